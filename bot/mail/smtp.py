"""Sending mails via SMTP with aiosmtplib.

One send is one SMTP session, step by step (connect, EHLO, STARTTLS or implicit TLS,
AUTH only when a user is set (XOAUTH2 with an OAuth2 token source), MAIL, RCPT, DATA),
so every error is classified by where it happened (:mod:`bot.mail.transport`):

- :class:`PermanentFailure`: this mail can never be delivered as it is: a recipient
  refused with 5xx at RCPT, or the message refused with 5xx after DATA.
- :class:`TemporaryFailure`: this mail, for now: 4xx at RCPT or DATA (greylisting, a
  full mailbox).
- :class:`ServerFailure` (a TemporaryFailure): not this mail's fault: no connection,
  timeout, dropped connection, TLS failure, login refused, AUTH not offered, sender
  refused, 421 anywhere, 4xx/5xx before RCPT, "relaying denied"/"authentication
  required" at RCPT. Every mail waits until the server or the settings are fixed.
  Of these, kind ``quota``: the provider's sending limit (:func:`quota_answer`: 421,
  450, 451, 452, 454 or a 5xx whose text says "too many", "quota", "rate limit", ...,
  at any step); never a mail's fault, never retried at once.

Connection trouble and 4xx are retried ``retries`` times with exponential backoff;
login, TLS and settings errors are not (they need the operator).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import re
import ssl
from pathlib import Path
from typing import Literal

import aiosmtplib

from bot.crash import crashpoint

from .oauth import OAuthError, TokenSource
from .transport import PermanentFailure, ServerFailure, TemporaryFailure, tls_context, tls_problem

__all__ = ["SmtpTransport"]

log = logging.getLogger(__name__)


def _tls_cause(exc: BaseException) -> ssl.SSLError | None:
    """The ``ssl.SSLError`` behind ``exc`` (aiosmtplib wraps it), if any."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ssl.SSLError):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def _config_refusal(code: int, message: str) -> bool:
    """A 5xx at RCPT that concerns the bot's settings, not the recipient: the server wants a
    login first, or does not relay for us (every recipient would be refused the same)."""
    text = message.lower()
    return code == 530 or "5.7.0" in text or "relay" in text or "authentication required" in text


#: what a provider's answer says when the account's sending limit is reached (English and
#: German; Gmail "Daily user sending quota exceeded", Outlook "SubmissionQuotaExceeded",
#: "too many messages", "rate limit", "zu viele E-Mails", "Versandlimit überschritten")
_QUOTA_TEXT = re.compile(
    r"(?i)too many|quota|rate[ _-]?limit|ratelimit|limit (?:has been |was )?(?:exceeded|reached)|exceeded"
    r"|throttl|slow down|sending limit|zu viele|kontingent|berschritten|versandlimit|limit erreicht"
    r"|\b[45]\.4\.5\b|\b4\.7\.28\b")
#: answers about the recipient's full mailbox or the size of the mail, which also say "quota"
#: or "exceeded": the mail's or the recipient's matter, not our sending limit
_NOT_QUOTA = re.compile(r"(?i)\b[45]\.2\.[23]\b|mailbox (?:is )?full|over ?quota|mailbox.{0,40}quota"
                        r"|quota.{0,40}mailbox|postfach.{0,20}voll|size|gr..e|insufficient storage|storage")
#: reply codes that are a quota answer when the text says so
QUOTA_CODES = (421, 450, 451, 452, 454)


def quota_answer(code: int | None, message: str) -> bool:
    """Whether the SMTP reply ``code``/``message`` says the sending limit of our account is
    reached (issue 27): one of :data:`QUOTA_CODES` or a 5xx, with a text of
    :data:`_QUOTA_TEXT` ("too many", "quota", "rate limit", "exceeded", ...) and not about a
    full mailbox or the mail's size."""
    if code is None or not (code in QUOTA_CODES or 500 <= code < 600):
        return False
    return bool(_QUOTA_TEXT.search(message or "")) and not _NOT_QUOTA.search(message or "")


class SmtpTransport:
    """SMTP sender.

    ``tls``: True = implicit TLS (port 465), "starttls" = STARTTLS required (port 587),
    False = plain (a local relay, loopback tests). ``user``: None or "" = no AUTH (a relay
    that takes mail without login); otherwise AUTH with ``password`` after TLS.
    ``retries`` is the number of extra attempts after the first one for connection
    trouble and 4xx; the wait before retry ``n`` (1-based) is ``backoff * 2 ** (n - 1)``
    seconds. ``timeout``: seconds per connect and per command. The server's certificate is
    verified against the system's CAs plus the PEM certificates of ``ca_file`` (a private
    CA or a self-signed certificate, :func:`~bot.mail.transport.tls_context`);
    ``ssl_context`` replaces that context.
    """

    def __init__(
        self,
        host: str,
        port: int,
        user: str | None = None,
        password: str | None = None,
        tls: bool | Literal["starttls"] = False,
        timeout: float = 30,
        retries: int = 3,
        backoff: float = 1.0,
        ssl_context: ssl.SSLContext | None = None,
        ca_file: str | Path | None = None,
        oauth: TokenSource | None = None,
    ):
        if tls not in (True, False, "starttls"):
            raise ValueError(f"tls must be True, False or 'starttls', not {tls!r}")
        #: AUTH XOAUTH2 with this source's access token instead of ``password`` (needs ``user``)
        self.oauth = oauth
        self.host = host
        self.port = port
        self.user = user or None
        self.password = password or ""
        self.tls = tls
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        self.ssl_context = ssl_context
        self.ca_file = ca_file

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    def _server(self, kind: str, message: str, code: int | None = None) -> ServerFailure:
        return ServerFailure("smtp", kind, message, host=self.where, code=code)

    def _quota(self, code: int | None, message: str) -> ServerFailure | None:
        """A ``quota`` failure when the reply is a quota answer (:func:`quota_answer`), else None."""
        if quota_answer(code, message):
            return self._server("quota", f"{code} {message}".strip(), code)
        return None

    def _unreachable(self, exc: BaseException) -> ServerFailure:
        cause = _tls_cause(exc)
        if cause is not None:
            return self._server("tls", tls_problem(cause, "smtp"))
        if isinstance(exc, asyncio.TimeoutError | TimeoutError):
            return self._server("unreachable", f"keine Antwort in {self.timeout:g} s")
        return self._server("unreachable", str(exc) or type(exc).__name__)

    async def _open(self) -> aiosmtplib.SMTP:
        """Connect, EHLO, TLS, AUTH: a session ready for MAIL FROM. Raises ServerFailure."""
        context = (self.ssl_context or tls_context("smtp", self.ca_file)) if self.tls else None
        client = aiosmtplib.SMTP(hostname=self.host, port=self.port, use_tls=self.tls is True, start_tls=False,
                                 timeout=self.timeout, tls_context=context)
        stage = "connect"
        try:
            await client.connect()
            stage = "ehlo"
            await client.ehlo()
            if self.tls == "starttls":
                stage = "starttls"
                if not client.supports_extension("starttls"):
                    raise self._server("tls", "der Server bietet kein STARTTLS an")
                await client.starttls()
                # the extensions offered before TLS are void (RFC 3207 4.2): ask again, so the
                # AUTH that most submission servers offer only after STARTTLS is seen
                stage = "ehlo"
                await client.ehlo()
            if self.user:
                stage = "login"
                if not client.supports_extension("auth"):
                    hint = ("" if self.tls else " (vielleicht erst nach STARTTLS: tls = \"starttls\")")
                    raise self._server("config", "der Server bietet keine Anmeldung (AUTH) an; ohne Anmeldung "
                                                 f"[smtp] user leer lassen{hint}")
                if self.oauth is not None:
                    await _xoauth2(client, self.user, self.oauth)
                else:
                    await client.login(self.user, self.password)
            return client
        except ServerFailure:
            _close(client)
            raise
        except OAuthError as exc:
            _close(client)
            raise self._server(exc.kind, str(exc)) from exc
        except aiosmtplib.SMTPAuthenticationError as exc:
            _close(client)
            how = ", OAuth2" if self.oauth else ""
            raise self._quota(exc.code, exc.message) or \
                self._server("login", f"{exc.message} (Benutzer {self.user}{how})", exc.code) from exc
        except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError, aiosmtplib.SMTPConnectError,
                OSError, asyncio.TimeoutError) as exc:
            _close(client)
            if isinstance(exc, aiosmtplib.SMTPConnectResponseError):
                raise self._quota(exc.code, exc.message) or \
                    self._server("temporary" if exc.code < 500 else "unreachable", exc.message, exc.code) from exc
            if stage == "starttls" and _tls_cause(exc) is None and not isinstance(exc, TimeoutError):
                raise self._server("tls", f"STARTTLS gescheitert: {exc}") from exc
            raise self._unreachable(exc) from exc
        except aiosmtplib.SMTPResponseException as exc:
            _close(client)
            if quota_answer(exc.code, exc.message):
                raise self._quota(exc.code, exc.message) from exc
            if exc.code == 421 or 400 <= exc.code < 500:
                raise self._server("temporary", exc.message, exc.code) from exc
            kind = "tls" if stage == "starttls" else "protocol"
            raise self._server(kind, f"{stage}: {exc.message}", exc.code) from exc
        except aiosmtplib.SMTPException as exc:
            _close(client)
            raise self._server("tls" if stage == "starttls" else "protocol", f"{stage}: {exc}") from exc

    async def _send_once(self, raw: bytes, sender: str, recipients: list[str], on_accepted=None) -> None:
        client = await self._open()
        try:
            try:
                await client.mail(sender)
            except aiosmtplib.SMTPSenderRefused as exc:
                if quota_answer(exc.code, exc.message):
                    raise self._quota(exc.code, exc.message) from exc
                if exc.code == 421 or exc.code < 500:
                    raise self._server("temporary", exc.message, exc.code) from exc
                raise self._server("config", f"Absender {sender} abgelehnt ([smtp] sender prüfen): {exc.message}",
                                   exc.code) from exc
            refused: dict[str, tuple[int, str]] = {}
            for rcpt in recipients:
                try:
                    await client.rcpt(rcpt)
                except aiosmtplib.SMTPRecipientRefused as exc:
                    if quota_answer(exc.code, exc.message):
                        raise self._quota(exc.code, exc.message) from exc
                    if exc.code == 421:
                        raise self._server("temporary", exc.message, exc.code) from exc
                    if exc.code >= 500 and _config_refusal(exc.code, exc.message):
                        raise self._server("config", f"{rcpt}: {exc.code} {exc.message}", exc.code) from exc
                    refused[rcpt] = (exc.code, exc.message)
            accepted = [r for r in recipients if r not in refused]
            text = "; ".join(f"{r}: {c} {m}" for r, (c, m) in refused.items())
            if not accepted:
                codes = [c for c, _ in refused.values()]
                if all(400 <= c < 500 for c in codes):
                    raise TemporaryFailure(text, codes[0])
                err = PermanentFailure(text, next(c for c in codes if c >= 500))
                err.refused = refused
                raise err
            try:
                await client.data(raw)
            except aiosmtplib.SMTPDataError as exc:
                if quota_answer(exc.code, exc.message):
                    raise self._quota(exc.code, exc.message) from exc
                if exc.code == 421:
                    raise self._server("temporary", exc.message, exc.code) from exc
                if 400 <= exc.code < 500:
                    raise TemporaryFailure(exc.message, exc.code) from exc
                raise PermanentFailure(exc.message, exc.code) from exc
            if on_accepted is not None:  # 250 to DATA: the mail is the server's now
                on_accepted()
            crashpoint("after-data")
            if refused:  # delivered to the rest: do not resend to everybody
                err = PermanentFailure(f"recipients refused: {text}", min(c for c, _ in refused.values()))
                err.refused = refused
                raise err
        except (TemporaryFailure, PermanentFailure):
            raise
        except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError, OSError,
                asyncio.TimeoutError) as exc:
            raise self._unreachable(exc) from exc
        except aiosmtplib.SMTPResponseException as exc:
            if quota_answer(exc.code, exc.message):
                raise self._quota(exc.code, exc.message) from exc
            if exc.code == 421 or 400 <= exc.code < 500:
                raise self._server("temporary", exc.message, exc.code) from exc
            raise self._server("protocol", exc.message, exc.code) from exc
        except aiosmtplib.SMTPException as exc:
            raise self._server("protocol", str(exc)) from exc
        finally:
            await _quit(client)

    #: :meth:`send` takes ``on_accepted`` (:func:`bot.service.stages.outbox.deliver`)
    reports_acceptance = True

    async def send_async(self, raw: bytes, sender: str, recipients: list[str], on_accepted=None) -> None:
        """Send ``raw`` (RFC 5322 bytes, sent unchanged) to ``recipients``.

        Retries connection trouble and 4xx up to ``retries`` times with exponential
        backoff, then raises the last :class:`TemporaryFailure` (a
        :class:`ServerFailure` when the server, not the mail, is the problem). Login,
        TLS and settings errors raise :class:`ServerFailure` at once. A 5xx for the
        recipient or the message raises :class:`PermanentFailure` at once; if only some
        recipients are refused, the mail went to the others and ``.refused`` =
        ``{address: (code, message)}`` names the rest (do not resend to everybody).
        ``on_accepted`` (no arguments) is called once the server answered 250 to DATA,
        before QUIT: the caller marks the mail sent there (issue 34).
        """
        if not recipients:
            raise PermanentFailure("no recipients", 554)
        attempt = 0
        while True:
            try:
                await self._send_once(bytes(raw), sender, list(recipients), on_accepted)
                return
            except TemporaryFailure as exc:
                if attempt >= self.retries or (isinstance(exc, ServerFailure) and not exc.retry_soon):
                    log.debug("SMTP send failed after %d attempts: %s", attempt + 1, exc)
                    raise
                delay = self.backoff * (2**attempt)
                attempt += 1
                log.debug("SMTP temporary failure (%s); retry %d in %.1fs", exc, attempt, delay)
                await asyncio.sleep(delay)

    async def check_async(self) -> str:
        """Connect, EHLO, TLS and AUTH (when a user is set), then QUIT; sends nothing.
        Returns what worked (``"STARTTLS, Anmeldung als bot"``); raises :class:`ServerFailure`."""
        client = await self._open()
        try:
            done = ["TLS" if self.tls is True else "STARTTLS" if self.tls == "starttls" else "ohne TLS"]
            done.append((f"Anmeldung als {self.user}" + (" (OAuth2)" if self.oauth else "")) if self.user
                        else "ohne Anmeldung")
            return ", ".join(done)
        finally:
            await _quit(client)

    def check(self) -> str:
        """Blocking :meth:`check_async`."""
        return _run(self.check_async())

    def send(self, raw: bytes, sender: str, recipients: list[str], on_accepted=None) -> None:
        """Blocking :meth:`send_async`; same errors.

        Works from plain threads (uses :func:`asyncio.run`) and also when
        called from inside a running event loop's thread (runs the send in a
        helper thread with its own loop and waits for it).
        """
        return _run(self.send_async(raw, sender, recipients, on_accepted))


async def _xoauth2(client: aiosmtplib.SMTP, user: str, oauth: TokenSource) -> None:
    """AUTH XOAUTH2; a refused token is renewed once and tried again (as
    :func:`bot.mail.oauth.with_token`). The token requests run in a thread."""
    try:
        await client.auth_xoauth2(user, await asyncio.to_thread(oauth.access_token))
    except aiosmtplib.SMTPAuthenticationError as exc:
        log.info("OAuth2-Token abgelehnt (%s); erneuere es und versuche es noch einmal", exc)
        await client.auth_xoauth2(user, await asyncio.to_thread(oauth.access_token, True))


def _run(coro):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _quit(client: aiosmtplib.SMTP) -> None:
    if not client.is_connected:
        return
    try:
        await client.quit()
    except Exception:
        _close(client)


def _close(client: aiosmtplib.SMTP) -> None:
    try:
        client.close()
    except Exception:
        pass

"""Sending mails via SMTP with aiosmtplib.

Errors are mapped onto the two failure kinds of
:mod:`bot.mail.transport`: connection problems and 4xx replies are retried
with exponential backoff and end in :class:`TemporaryFailure`; 5xx replies
(including refused recipients) raise :class:`PermanentFailure` at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from typing import Literal

import aiosmtplib

from .transport import PermanentFailure, TemporaryFailure

__all__ = ["SmtpTransport"]

log = logging.getLogger(__name__)


class SmtpTransport:
    """SMTP sender.

    ``tls``: True = implicit TLS (port 465), "starttls" = STARTTLS required
    (port 587), False = plain (loopback/tests only).  ``retries`` is the
    number of extra attempts after the first one; the wait before retry
    ``n`` (1-based) is ``backoff * 2 ** (n - 1)`` seconds.
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
    ):
        if tls not in (True, False, "starttls"):
            raise ValueError(f"tls must be True, False or 'starttls', not {tls!r}")
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.tls = tls
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff

    async def _send_once(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        try:
            errors, _reply = await aiosmtplib.send(
                raw,
                sender=sender,
                recipients=recipients,
                hostname=self.host,
                port=self.port,
                username=self.user,
                password=self.password,
                use_tls=self.tls is True,
                start_tls=self.tls == "starttls",
                timeout=self.timeout,
            )
        except aiosmtplib.SMTPRecipientsRefused as exc:  # every recipient refused
            refused = {r.recipient: (r.code, r.message) for r in exc.recipients}
            codes = [r.code for r in exc.recipients]
            text = "; ".join(f"{r.recipient}: {r.code} {r.message}" for r in exc.recipients)
            if codes and all(400 <= c < 500 for c in codes):
                raise TemporaryFailure(text, codes[0]) from exc
            err = PermanentFailure(text, next((c for c in codes if c >= 500), codes[0] if codes else None))
            err.refused = refused
            raise err from exc
        except aiosmtplib.SMTPResponseException as exc:
            if 400 <= exc.code < 500:
                raise TemporaryFailure(exc.message, exc.code) from exc
            raise PermanentFailure(exc.message, exc.code) from exc
        except (
            aiosmtplib.SMTPConnectError,
            aiosmtplib.SMTPServerDisconnected,
            aiosmtplib.SMTPTimeoutError,
            ConnectionError,
            OSError,
        ) as exc:
            raise TemporaryFailure(f"connection to {self.host}:{self.port} failed: {exc}") from exc
        except aiosmtplib.SMTPException as exc:  # e.g. STARTTLS not supported
            raise PermanentFailure(str(exc)) from exc
        if errors:  # some (not all) recipients refused: delivered to the rest
            text = "; ".join(f"{rcpt}: {resp.code} {resp.message}" for rcpt, resp in errors.items())
            err = PermanentFailure(f"recipients refused: {text}", min(r.code for r in errors.values()))
            err.refused = {rcpt: (resp.code, resp.message) for rcpt, resp in errors.items()}
            raise err

    async def send_async(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        """Send ``raw`` (RFC 5322 bytes, sent unchanged) to ``recipients``.

        Retries connection errors and 4xx replies up to ``retries`` times
        with exponential backoff, then raises :class:`TemporaryFailure`.
        Raises :class:`PermanentFailure` at once on a 5xx reply.  If only
        some recipients are refused, the mail was delivered to the others
        and :class:`PermanentFailure` is raised with ``.refused`` =
        ``{address: (code, message)}`` (do not resend to everybody).
        """
        if not recipients:
            raise PermanentFailure("no recipients", 554)
        attempt = 0
        while True:
            try:
                await self._send_once(bytes(raw), sender, list(recipients))
                return
            except TemporaryFailure as exc:
                if attempt >= self.retries:
                    log.warning("SMTP send failed after %d attempts: %s", attempt + 1, exc)
                    raise
                delay = self.backoff * (2**attempt)
                attempt += 1
                log.info("SMTP temporary failure (%s); retry %d in %.1fs", exc, attempt, delay)
                await asyncio.sleep(delay)

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        """Blocking :meth:`send_async`; same errors.

        Works from plain threads (uses :func:`asyncio.run`) and also when
        called from inside a running event loop's thread (runs the send in a
        helper thread with its own loop and waits for it).
        """
        coro = self.send_async(raw, sender, recipients)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, coro).result()

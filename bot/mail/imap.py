"""Polling an IMAP mailbox with imapclient.

Two stages, each on its own connection:

- :meth:`ImapInbox.poll`, the stage "mail in -> stored raw": connect, open the folder
  read-only (``EXAMINE``), fetch every mail with a UID above the remembered one
  (``BODY.PEEK[]``, so nothing is marked \\Seen; in batches, one FETCH each), hand each
  to the store callback and -- only after the store is durable -- advance the poll state
  (UIDVALIDITY and the last UID stored, in the database). The server's folder is not
  changed: the poll state alone says what is stored, so a mail is fetched once.
- :meth:`ImapInbox.tidy`, later (after the stored mails were read): move every mail up
  to the remembered UID to the processed folder (one ``UID MOVE``), so the folder holds
  only what has not been stored yet.

A crash at any point loses nothing: before the state is advanced a mail is at worst
handed to the store callback twice, and the callback dedupes; a mail stored but not
moved yet is moved by the next tidy.

Every server failure is raised as one :class:`~bot.mail.transport.ServerFailure` with its
kind: ``login`` (login refused), ``unreachable`` (no connection, timeout, DNS, connection
dropped), ``tls`` (handshake, certificate, STARTTLS), ``folder`` (the folder is missing or
the processed folder cannot be created), ``protocol`` (any other error answer). With
``oauth`` (a :class:`~bot.mail.oauth.TokenSource`) the login is XOAUTH2; a revoked grant
is kind ``login``, an unreachable token endpoint ``unreachable``.
"""

from __future__ import annotations

import logging
import socket
import ssl
from pathlib import Path
from typing import Literal

from imapclient import IMAPClient
from imapclient.exceptions import CapabilityError, IMAPClientAbortError, IMAPClientError, LoginError
from imapclient.imapclient import DELETED

from bot.crash import crashpoint

from .oauth import OAuthError, TokenSource, with_token
from .transport import (PollState, ServerFailure, StoreCallback, StoreUnavailable, sync_store, tls_context,
                        tls_problem)

__all__ = ["ImapInbox"]

log = logging.getLogger(__name__)


class ImapInbox:
    """An IMAP folder that players' mails arrive in.

    ``tls``: True = implicit TLS (port 993), "starttls" = STARTTLS (port
    143), False = plain (loopback/tests only).  ``processed_folder`` uses
    "/" as hierarchy separator; it is translated to the server's delimiter
    (Dovecot's default Maildir++ layout uses ".") and created if missing.
    The server's certificate is verified against the system's CAs plus the PEM
    certificates of ``ca_file`` (a private CA or a self-signed certificate,
    :func:`~bot.mail.transport.tls_context`); ``ssl_context`` replaces that context.
    """

    def __init__(
        self,
        host: str,
        port: int,
        user: str,
        password: str,
        tls: bool | Literal["starttls"] = True,
        folder: str = "INBOX",
        processed_folder: str = "Spielleiter/Verarbeitet",
        timeout: float = 30,
        ssl_context: ssl.SSLContext | None = None,
        ca_file: str | Path | None = None,
        oauth: TokenSource | None = None,
    ):
        if tls not in (True, False, "starttls"):
            raise ValueError(f"tls must be True, False or 'starttls', not {tls!r}")
        #: log in with XOAUTH2 and this source's access token instead of ``password``
        self.oauth = oauth
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.tls = tls
        self.folder = folder
        self.processed_folder = processed_folder
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.ca_file = ca_file
        #: after a :meth:`poll`: how many mails of the folder are stored (UID up to the
        #: poll state's), so :meth:`tidy` need not log in when it is 0; None: unknown
        self.untidy: int | None = None

    @property
    def source(self) -> str:
        """The ``source`` string given to the store callback ("imap:INBOX")."""
        return f"imap:{self.folder}"

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    def _failure(self, exc: BaseException, stage: str) -> ServerFailure:
        """Classify an error met at ``stage`` (connect, starttls, login, folder, poll)."""
        def fail(kind: str, text: str) -> ServerFailure:
            return ServerFailure("imap", kind, text, host=self.where)
        if isinstance(exc, ServerFailure):
            return exc
        text = _text(exc)
        if isinstance(exc, ssl.SSLError | ssl.CertificateError):
            return fail("tls", tls_problem(exc, "imap"))
        if isinstance(exc, OAuthError):
            return fail(exc.kind, str(exc))
        if isinstance(exc, LoginError):
            return fail("login", f"{text} (Benutzer {self.user}" + (", OAuth2)" if self.oauth else ")"))
        if isinstance(exc, socket.gaierror):
            return fail("unreachable", f"Rechnername {self.host} unbekannt ({text})")
        if isinstance(exc, TimeoutError | socket.timeout):
            return fail("unreachable", f"keine Antwort in {self.timeout:g} s")
        if isinstance(exc, IMAPClientAbortError | OSError):
            return fail("unreachable", text or "Verbindung abgebrochen")
        if stage == "starttls":
            if isinstance(exc, CapabilityError):
                return fail("tls", "der Server bietet kein STARTTLS an")
            return fail("tls", f"STARTTLS gescheitert: {text}")
        if stage == "folder":
            return fail("folder", text)
        return fail("protocol", text)

    def connect(self) -> IMAPClient:
        """Open and log in a new :class:`IMAPClient`; the caller must log out.

        Raises :class:`ServerFailure` (kinds ``unreachable``, ``tls``, ``login``).
        """
        # (loading the system's certificates costs ~30 ms: only when TLS is used)
        context = (self.ssl_context or tls_context("imap", self.ca_file)) if self.tls else None
        stage = "connect"
        try:
            client = IMAPClient(
                self.host,
                port=self.port,
                ssl=self.tls is True,
                ssl_context=context if self.tls is True else None,
                timeout=self.timeout,
            )
        except Exception as exc:
            raise self._failure(exc, stage) from exc
        try:
            if self.tls == "starttls":
                stage = "starttls"
                client.starttls(context)
            stage = "login"
            if self.oauth is not None:
                with_token(self.oauth, lambda token: client.oauth2_login(self.user, token), LoginError)
            else:
                client.login(self.user, self.password)
        except Exception as exc:
            _close(client)
            raise self._failure(exc, stage) from exc
        return client

    def check(self) -> str:
        """Log in, make sure the folder exists and the processed folder exists (created if
        not, as a poll would), log out; reads and moves no mail. Returns what it found
        (``"INBOX: 3 Mails, Spielleiter/Verarbeitet vorhanden, IDLE"``: whether the server
        offers IDLE, :mod:`bot.service.stages.idle`); raises
        :class:`ServerFailure` (a missing folder is kind ``folder``)."""
        client = self.connect()
        stage = "folder"
        try:
            if not client.folder_exists(self.folder):
                raise ServerFailure("imap", "folder", f"Ordner {self.folder} gibt es nicht ([imap] folder)",
                                    host=self.where)
            n = client.folder_status(self.folder, [b"MESSAGES"]).get(b"MESSAGES", 0)
            processed = self._server_folder(client, self.processed_folder)
            made = not client.folder_exists(processed)
            self._ensure_folder(client, processed)
            how = "TLS" if self.tls is True else "STARTTLS" if self.tls == "starttls" else "ohne TLS"
            how += " (OAuth2)" if self.oauth else ""
            idle = "IDLE" if client.has_capability("IDLE") else "kein IDLE (nur Abruf alle poll_interval s)"
            return (f"{how}, angemeldet als {self.user}, {self.folder}: {n} Mail(s), {self.processed_folder} "
                    + ("angelegt" if made else "vorhanden") + f", {idle}")
        except Exception as exc:
            raise self._failure(exc, stage) from exc
        finally:
            _close(client)

    def newest(self, n: int = 5) -> list[bytes]:
        """The header blocks of the ``n`` newest mails, newest first: of the folder, and
        when it holds fewer, of the processed folder (where :meth:`tidy` put the mails
        already read). Read-only: both folders are opened with ``EXAMINE`` and fetched with
        ``BODY.PEEK[HEADER]``, so nothing is moved or marked \\Seen. For ``spielleiter
        check`` (:func:`bot.service.operations.check.check_authserv`). Raises
        :class:`ServerFailure`."""
        client = self.connect()
        stage = "folder"
        out: list[bytes] = []
        try:
            for folder in (self.folder, self._server_folder(client, self.processed_folder)):
                if len(out) >= n or not client.folder_exists(folder):
                    continue
                client.select_folder(folder, readonly=True)
                uids = sorted(client.search(["ALL"]))[-(n - len(out)):]
                data = client.fetch(uids, ["BODY.PEEK[HEADER]"]) if uids else {}
                out += [bytes(data[u].get(b"BODY[HEADER]") or b"") for u in sorted(data, reverse=True)]
            return out[:n]
        except Exception as exc:
            raise self._failure(exc, stage) from exc
        finally:
            _close(client)

    def _server_folder(self, client: IMAPClient, name: str) -> str:
        try:
            delimiter = client.namespace().personal[0][1]
        except Exception:
            delimiter = None
        if isinstance(delimiter, bytes):
            delimiter = delimiter.decode()
        if delimiter and delimiter != "/":
            name = name.replace("/", delimiter)
        return name

    def _ensure_folder(self, client: IMAPClient, name: str) -> None:
        if not client.folder_exists(name):
            log.info("lege IMAP-Ordner %s an", name)
            client.create_folder(name)
            try:
                client.subscribe_folder(name)
            except Exception:  # subscription is cosmetic
                pass

    def _move(self, client: IMAPClient, uids: str, dest: str) -> None:
        """Move the UID set ``uids`` (``1:100,105``) to ``dest``."""
        if client.has_capability("MOVE"):
            client.move(uids, dest)
            return
        client.copy(uids, dest)
        client.add_flags(uids, [DELETED], silent=True)
        if client.has_capability("UIDPLUS"):
            client.uid_expunge(uids)
        else:  # no way to expunge just these; the bot owns this folder
            client.expunge()

    def poll(self, store: StoreCallback, state: PollState) -> int:
        """One poll pass (the stage "mail in -> stored raw"); returns the number of mails
        stored.

        Opens the folder read-only (``EXAMINE``). For the UIDs above ``state.get(folder)``'s
        last UID (all UIDs when the UIDVALIDITY changed), fetched in batches of at most
        :data:`BATCH` mails and :data:`BATCH_BYTES` (one ``FETCH BODY.PEEK[]`` each, so
        nothing is marked \\Seen; the sizes asked for only of mails over :data:`SMALL`
        bytes): call ``store(raw, source="imap:<folder>", uidvalidity=..., uid=...)`` for
        each mail; after every :data:`SYNC_EVERY` mails and at the end, make the store
        durable (:func:`~bot.mail.transport.sync_store`), then
        ``state.set(folder, uidvalidity, uid)`` to the last UID handled. The folder is
        not changed (:meth:`tidy` moves the stored mails away later). When ``store``
        returns False or raises, the pass stops after advancing over what was stored
        before (the exception is logged, not raised; :class:`~bot.mail.transport.
        StoreUnavailable`, the store being down, is raised) and the mail is fetched again
        by the next pass; so are the mails of a batch whose storing fails.
        Server failures raise :class:`ServerFailure` (see the module docstring);
        mails stored before it stay stored.  Always logs out.
        """
        client = self.connect()
        stored = 0
        stage = "folder"
        try:
            try:
                info = client.select_folder(self.folder, readonly=True)
            except IMAPClientError as exc:
                if isinstance(exc, IMAPClientAbortError):
                    raise
                raise ServerFailure("imap", "folder", f"Ordner {self.folder}: {_text(exc)}", host=self.where) from exc
            stage = "poll"
            uidvalidity = int(info[b"UIDVALIDITY"])
            exists = int(info.get(b"EXISTS", 0))
            self.untidy = None
            known_validity, last_uid = state.get(self.folder)
            if known_validity != uidvalidity:
                if known_validity is not None:
                    log.warning(
                        "UIDVALIDITY von %s geändert (%s -> %s); lese alle Mails neu",
                        self.folder, known_validity, uidvalidity,
                    )
                last_uid = 0
            # "UID n:*" always matches the highest UID, even if it is < n: filter
            uids = sorted(u for u in client.search(["UID", f"{last_uid + 1}:*"]) if u > last_uid)
            # sizes (for the batches' byte limit) only of the mails over SMALL bytes: the
            # server finds them (SEARCH LARGER), the rest count as SMALL each
            large = [u for u in client.search(["UID", f"{last_uid + 1}:*", "LARGER", str(SMALL)])
                     if u > last_uid] if uids else []
            sizes = client.fetch(large, ["RFC822.SIZE"]) if large else {}
            taken = 0  # mails taken by the store since it was last made durable
            handled = None  # the last UID of the unbroken run of mails taken (or vanished)

            def finish() -> bool:
                """Durable first, then advanced: if we crash in between, the mails are
                fetched again and the store dedupes them."""
                nonlocal stored, handled, taken
                if taken:
                    try:
                        sync_store(store)
                    except StoreUnavailable:  # the store is down: fetched again once it is back
                        raise
                    except Exception:  # not stored: fetched again next pass
                        log.exception("Speichern der Mails aus %s bis UID %s gescheitert", self.folder, handled)
                        return False
                    stored += taken
                    taken = 0
                if handled is not None:
                    state.set(self.folder, uidvalidity, handled)
                    handled = None
                return True

            stop = False
            for batch in _batches(uids, {u: int(sizes[u].get(b"RFC822.SIZE", SMALL)) if u in sizes else SMALL
                                         for u in uids}):
                response = client.fetch(batch, ["BODY.PEEK[]"])
                for uid in batch:
                    raw = response.get(uid, {}).get(b"BODY[]")
                    if raw is None:  # expunged by someone else meanwhile
                        log.info("UID %s aus %s verschwunden", uid, self.folder)
                        handled = uid
                        continue
                    try:
                        ok = store(bytes(raw), source=self.source, uidvalidity=uidvalidity, uid=uid)
                    except StoreUnavailable:
                        raise
                    except Exception:
                        log.exception("Speichern von %s UID %s gescheitert", self.folder, uid)
                        stop = True
                        break
                    if not ok:
                        log.warning("Speichern von %s UID %s abgelehnt; neuer Versuch beim nächsten Abruf", self.folder, uid)
                        stop = True
                        break
                    taken += 1
                    handled = uid
                del response
                if stop or taken >= SYNC_EVERY:
                    if not finish():
                        break
                if stop:
                    break
            else:
                finish()
            done_validity, done_uid = state.get(self.folder)
            if done_validity == uidvalidity:  # those not stored, by the remembered UID
                self.untidy = exists - sum(1 for u in uids if u > done_uid)
        except Exception as exc:
            raise self._failure(exc, stage) from exc
        finally:
            _close(client)
        return stored

    def tidy(self, state: PollState) -> int:
        """Move every mail of the folder that is stored (a UID up to ``state``'s last UID,
        under the same UIDVALIDITY) to the processed folder (created if missing), in one
        ``UID MOVE`` (or COPY, \\Deleted and EXPUNGE on a server without MOVE); returns
        how many were moved. Run after :meth:`poll`, once the stored mails were read;
        a crash before it leaves them in the folder for the next tidy, and no poll fetches
        them again. Does not log in when the pass just before found none of them in the
        folder (:attr:`untidy`: a poll with nothing new costs one login, not two).
        Server failures raise :class:`ServerFailure`. Always logs out."""
        validity, last_uid = state.get(self.folder)
        if validity is None or last_uid < 1 or self.untidy == 0:  # nothing stored is in the folder
            return 0
        self.untidy = None
        client = self.connect()
        stage = "folder"
        try:
            processed = self._server_folder(client, self.processed_folder)
            self._ensure_folder(client, processed)
            try:
                info = client.select_folder(self.folder)
            except IMAPClientError as exc:
                if isinstance(exc, IMAPClientAbortError):
                    raise
                raise ServerFailure("imap", "folder", f"Ordner {self.folder}: {_text(exc)}", host=self.where) from exc
            stage = "poll"
            if int(info[b"UIDVALIDITY"]) != validity:  # new folder: its mails are not stored yet
                return 0
            uids = [u for u in client.search(["UID", f"1:{last_uid}"]) if u <= last_uid]
            if uids:
                crashpoint("before-move")
                self._move(client, _uid_set(sorted(uids)), processed)
            return len(uids)
        except Exception as exc:
            raise self._failure(exc, stage) from exc
        finally:
            _close(client)


#: At most this many mails, and this many bytes, are fetched in one FETCH (fewer, larger
#: FETCHes: each costs the server a round of its own).
BATCH = 1000
BATCH_BYTES = 16 * 1024 * 1024
#: Mails up to this size are batched as if this large, without asking for their sizes
#: (``BATCH`` of them stay within ``BATCH_BYTES``).
SMALL = BATCH_BYTES // BATCH
#: The store is made durable and the poll state advanced after this many mails, and at
#: the end of the pass: a crash before costs fetching them again, nothing more (the store
#: dedupes).
SYNC_EVERY = 2000


def _uid_set(uids: list[int]) -> str:
    """``uids`` (ascending) as an IMAP sequence set of ranges: ``1:100,105,107:200``."""
    parts: list[str] = []
    start = prev = uids[0]
    for u in uids[1:] + [None]:  # type: ignore[list-item]
        if u is not None and u == prev + 1:
            prev = u
            continue
        parts.append(str(start) if start == prev else f"{start}:{prev}")
        if u is not None:
            start = prev = u
    return ",".join(parts)


def _batches(uids: list[int], sizes: dict[int, int]) -> list[list[int]]:
    """``uids`` in order, cut into batches of at most :data:`BATCH` mails and
    :data:`BATCH_BYTES` (a bigger mail is a batch of its own)."""
    out: list[list[int]] = []
    cur: list[int] = []
    total = 0
    for u in uids:
        if cur and (len(cur) >= BATCH or total + sizes.get(u, 0) > BATCH_BYTES):
            out.append(cur)
            cur, total = [], 0
        cur.append(u)
        total += sizes.get(u, 0)
    if cur:
        out.append(cur)
    return out


def _text(exc: BaseException) -> str:
    """An error's text without Python's bytes quoting (``b'[AUTHENTICATIONFAILED] ...'``)."""
    arg = exc.args[0] if len(exc.args) == 1 else None
    if isinstance(arg, bytes):
        return arg.decode("utf-8", "replace")
    text = str(exc)
    if text.startswith(("b'", 'b"')) and text.endswith(("'", '"')):
        text = text[2:-1]
    return text


def _close(client: IMAPClient) -> None:
    try:
        client.logout()
    except Exception:
        try:
            client.shutdown()
        except Exception:
            pass

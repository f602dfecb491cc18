"""Polling an IMAP mailbox with imapclient.

One :meth:`ImapInbox.poll` pass: connect, select the folder, fetch every
mail with a UID above the remembered one (``BODY.PEEK[]``, so nothing is
marked \\Seen), hand it to the store callback and -- only after the callback
confirmed it is stored -- move it to the processed folder and advance the
poll state.  A crash at any point loses nothing: at worst a mail is handed
to the store callback twice, and the callback dedupes.
"""

from __future__ import annotations

import logging
import ssl
from typing import Literal

from imapclient import IMAPClient
from imapclient.imapclient import DELETED

from bot.crash import crashpoint

from .transport import PollState, StoreCallback

__all__ = ["ImapInbox"]

log = logging.getLogger(__name__)


class ImapInbox:
    """An IMAP folder that players' mails arrive in.

    ``tls``: True = implicit TLS (port 993), "starttls" = STARTTLS (port
    143), False = plain (loopback/tests only).  ``processed_folder`` uses
    "/" as hierarchy separator; it is translated to the server's delimiter
    (Dovecot's default Maildir++ layout uses ".") and created if missing.
    ``ssl_context`` overrides the default verifying TLS context.
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
    ):
        if tls not in (True, False, "starttls"):
            raise ValueError(f"tls must be True, False or 'starttls', not {tls!r}")
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.tls = tls
        self.folder = folder
        self.processed_folder = processed_folder
        self.timeout = timeout
        self.ssl_context = ssl_context

    @property
    def source(self) -> str:
        """The ``source`` string given to the store callback ("imap:INBOX")."""
        return f"imap:{self.folder}"

    def connect(self) -> IMAPClient:
        """Open and log in a new :class:`IMAPClient`; the caller must log out.

        Raises imapclient/socket errors (``IMAPClient.Error``, ``OSError``).
        """
        context = self.ssl_context or ssl.create_default_context()
        client = IMAPClient(
            self.host,
            port=self.port,
            ssl=self.tls is True,
            ssl_context=context if self.tls is True else None,
            timeout=self.timeout,
        )
        try:
            if self.tls == "starttls":
                client.starttls(context)
            client.login(self.user, self.password)
        except Exception:
            _close(client)
            raise
        return client

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
            log.info("creating IMAP folder %s", name)
            client.create_folder(name)
            try:
                client.subscribe_folder(name)
            except Exception:  # subscription is cosmetic
                pass

    def _move(self, client: IMAPClient, uid: int, dest: str) -> None:
        if client.has_capability("MOVE"):
            client.move([uid], dest)
            return
        client.copy([uid], dest)
        client.add_flags([uid], [DELETED], silent=True)
        if client.has_capability("UIDPLUS"):
            client.uid_expunge([uid])
        else:  # no way to expunge just this one; the bot owns this folder
            client.expunge()

    def poll(self, store: StoreCallback, state: PollState) -> int:
        """One poll pass; returns the number of mails stored.

        For each UID above ``state.get(folder)``'s last UID (all UIDs when
        the UIDVALIDITY changed): fetch with ``BODY.PEEK[]``, call
        ``store(raw, source="imap:<folder>", uidvalidity=..., uid=...)``; on
        True move the mail to the processed folder, then
        ``state.set(folder, uidvalidity, uid)``.  When ``store`` returns
        False or raises, the pass stops (the exception is logged, not
        raised) and the mail stays in the folder for the next pass.
        Connection/protocol errors are raised (``IMAPClient.Error``,
        ``OSError``, ``socket.timeout``).  Always logs out.
        """
        client = self.connect()
        stored = 0
        try:
            processed = self._server_folder(client, self.processed_folder)
            self._ensure_folder(client, processed)
            info = client.select_folder(self.folder)
            uidvalidity = int(info[b"UIDVALIDITY"])
            known_validity, last_uid = state.get(self.folder)
            if known_validity != uidvalidity:
                if known_validity is not None:
                    log.warning(
                        "UIDVALIDITY of %s changed (%s -> %s); rescanning all mails",
                        self.folder, known_validity, uidvalidity,
                    )
                last_uid = 0
            # "UID n:*" always matches the highest UID, even if it is < n: filter
            uids = sorted(u for u in client.search(["UID", f"{last_uid + 1}:*"]) if u > last_uid)
            for uid in uids:
                response = client.fetch([uid], ["BODY.PEEK[]"])
                data = response.get(uid, {})
                raw = data.get(b"BODY[]")
                if raw is None:  # expunged by someone else meanwhile
                    log.info("UID %s vanished from %s", uid, self.folder)
                    state.set(self.folder, uidvalidity, uid)
                    continue
                try:
                    ok = store(bytes(raw), source=self.source, uidvalidity=uidvalidity, uid=uid)
                except Exception:
                    log.exception("store callback failed for %s UID %s", self.folder, uid)
                    break
                if not ok:
                    log.warning("store callback refused %s UID %s; retry next poll", self.folder, uid)
                    break
                stored += 1
                # move first, then advance: if we crash in between, the mail is
                # already out of the folder, so nothing is fetched twice.
                crashpoint("before-move")
                self._move(client, uid, processed)
                state.set(self.folder, uidvalidity, uid)
        finally:
            _close(client)
        return stored


def _close(client: IMAPClient) -> None:
    try:
        client.logout()
    except Exception:
        try:
            client.shutdown()
        except Exception:
            pass

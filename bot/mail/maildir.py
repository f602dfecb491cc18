"""A Maildir-based transport for the demo and tests (no network).

Layout under ``path``: ``inbox/`` (players' mails are dropped here),
``processed/`` (stored mails are moved here), ``outbox/`` ("sent" mails
are delivered here as files).  All three are Maildirs.
"""

from __future__ import annotations

import logging
import mailbox
import re
from pathlib import Path

from .transport import PermanentFailure, PollState, StoreCallback

__all__ = ["MaildirTransport"]

log = logging.getLogger(__name__)


class MaildirTransport:
    """Poll ``path/inbox`` and "send" into ``path/outbox``.

    All folders are created on init.  Implements both
    :class:`~bot.mail.transport.Poller` and :class:`~bot.mail.transport.Sender`.
    """

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.inbox = mailbox.Maildir(self.path / "inbox", factory=None, create=True)
        self.processed = mailbox.Maildir(self.path / "processed", factory=None, create=True)
        self.outbox = mailbox.Maildir(self.path / "outbox", factory=None, create=True)

    def poll(self, store: StoreCallback, state: PollState | None = None) -> int:
        """Give every inbox mail, in delivery order, to ``store``; return count stored.

        A mail is moved to ``processed`` only after ``store`` returned True.
        On False or an exception from ``store`` the pass stops and the mail
        stays in the inbox (retried next poll); the exception is logged, not
        raised.  ``state`` is accepted for interface compatibility and unused.
        """
        stored = 0
        for key in sorted(self.inbox.keys(), key=_delivery_order):
            try:
                raw = self.inbox.get_bytes(key)
            except KeyError:  # vanished meanwhile
                continue
            try:
                ok = store(raw, source="maildir", uidvalidity=None, uid=None)
            except Exception:
                log.exception("store callback failed for maildir key %s", key)
                return stored
            if not ok:
                log.warning("store callback refused maildir key %s; retry next poll", key)
                return stored
            self._move_processed(key)
            stored += 1
        return stored

    def _move_processed(self, key: str) -> None:
        # copy first, then remove: a crash in between leaves the mail in both
        # folders, and the next poll hands it to ``store`` again, which
        # dedupes (returns True for a duplicate) -- nothing is lost.
        self.processed.add(self.inbox.get_bytes(key))  # bytes: kept exactly
        self.inbox.remove(key)

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        """Deliver ``raw`` into ``outbox``; the file holds exactly ``raw``.

        The envelope (``sender``, ``recipients``) is not recorded.

        Raises :class:`~bot.mail.transport.PermanentFailure` when
        ``recipients`` is empty.
        """
        if not recipients:
            raise PermanentFailure("no recipients", 554)
        self.outbox.add(bytes(raw))

    def deliver_to_inbox(self, raw: bytes) -> str:
        """Drop ``raw`` into the inbox as a new mail; return its Maildir key."""
        return self.inbox.add(bytes(raw))

    def sent(self) -> list[bytes]:
        """All mails in the outbox, in the order they were sent, as raw bytes."""
        return [self.outbox.get_bytes(k) for k in sorted(self.outbox.keys(), key=_delivery_order)]

    def processed_mails(self) -> list[bytes]:
        """All mails in ``processed``, in the order they were moved there, as raw bytes."""
        return [self.processed.get_bytes(k) for k in sorted(self.processed.keys(), key=_delivery_order)]


_KEY = re.compile(r"^(\d+)\.M(\d+)P(\d+)Q(\d+)")


def _delivery_order(key: str) -> tuple:
    """Sort key for a Maildir name: Python's ``mailbox`` names a mail
    ``<seconds>.M<microseconds>P<pid>Q<counter>.<host>``; the numbers must compare as
    numbers (``M99`` before ``M100``), or mails of the same second come out of order and
    a later submission could be read before the earlier one it replaces."""
    m = _KEY.match(key)
    if m is None:
        return (1, key)
    sec, usec, pid, q = (int(g) for g in m.groups())
    return (0, sec, usec, q, pid, key)

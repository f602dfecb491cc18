"""A Maildir-based transport for the demo and tests (no network).

Layout under ``path``: ``inbox/`` (players' mails are dropped here),
``processed/`` (stored mails are moved here), ``outbox/`` ("sent" mails
are delivered here as files).  All three are Maildirs.
"""

from __future__ import annotations

import logging
import mailbox
import os
import re
from pathlib import Path

from .message import HEADER_LIMIT, header_block
from .transport import PermanentFailure, PollState, StoreCallback, StoreUnavailable, sync_store

__all__ = ["MaildirTransport"]

log = logging.getLogger(__name__)

#: Mails handed to the store callback before the store is synced and they are moved.
BATCH = 100


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

        Mails are handed over in batches of :data:`BATCH`; after each batch the store is
        made durable (:func:`~bot.mail.transport.sync_store`) and only then are the
        batch's mails moved to ``processed`` (a rename: a mail is always in exactly one
        of the two folders). On False or an exception from ``store`` the pass stops (the
        mails handed over before it are stored and moved) and the mail stays in the
        inbox (retried next poll); when storing a batch fails, the batch stays; the
        exception is logged, not raised, except :class:`~bot.mail.transport.
        StoreUnavailable` (the store is down), which is raised after the same. ``state`` is accepted for interface
        compatibility and unused.
        """
        moved = 0
        done: list[Path] = []
        for path in self._inbox_files():
            try:
                raw = path.read_bytes()
            except FileNotFoundError:  # vanished meanwhile
                continue
            try:
                ok = store(raw, source="maildir", uidvalidity=None, uid=None)
            except StoreUnavailable:
                raise  # the store is down: every mail not stored stays in the inbox
            except Exception:
                log.exception("Speichern der Maildir-Datei %s gescheitert", path.name)
                break
            if not ok:
                log.warning("Speichern der Maildir-Datei %s abgelehnt; neuer Versuch beim nächsten Abruf", path.name)
                break
            done.append(path)
            if len(done) >= BATCH:
                n = self._move_processed(store, done)
                if n is None:
                    return moved
                moved += n
        if done:
            moved += self._move_processed(store, done) or 0
        return moved

    def newest(self, n: int = 5) -> list[bytes]:
        """The header blocks of the ``n`` newest mails, newest first: of ``inbox``, and
        when it holds fewer, of ``processed``. Read-only (for ``spielleiter check``)."""
        out: list[bytes] = []
        for folder in ("inbox", "processed"):
            files = []
            for sub in ("new", "cur"):
                with os.scandir(self.path / folder / sub) as it:
                    files.extend(Path(e.path) for e in it if not e.name.startswith(".") and e.is_file())
            for path in sorted(files, key=lambda p: _delivery_order(p.name.split(":", 1)[0]), reverse=True):
                if len(out) >= n:
                    return out
                try:
                    with path.open("rb") as fh:
                        out.append(header_block(fh.read(HEADER_LIMIT + 4)))
                except FileNotFoundError:  # moved meanwhile
                    continue
        return out

    def _inbox_files(self) -> list[Path]:
        """The inbox's mail files (``new`` and ``cur``) in delivery order."""
        files = []
        for sub in ("new", "cur"):
            with os.scandir(self.path / "inbox" / sub) as it:
                files.extend(Path(e.path) for e in it if not e.name.startswith(".") and e.is_file())
        return sorted(files, key=lambda p: _delivery_order(p.name.split(":", 1)[0]))

    def _move_processed(self, store: StoreCallback, paths: list[Path]) -> int | None:
        """Make the store durable, then move ``paths`` (emptied); how many were moved, or
        None when storing failed (the mails stay in the inbox)."""
        # durable in the store first, then moved: a crash in between leaves the mails in
        # the inbox, and the next poll hands them to ``store`` again, which dedupes
        # (returns True for a duplicate) -- nothing is lost, nothing read twice.
        try:
            sync_store(store)
        except StoreUnavailable:
            paths.clear()
            raise
        except Exception:
            log.exception("Speichern von %d Maildir-Dateien gescheitert; neuer Versuch beim nächsten Abruf", len(paths))
            paths.clear()
            return None
        for path in paths:
            os.replace(path, self.path / "processed" / path.parent.name / path.name)
        n = len(paths)
        paths.clear()
        return n

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

"""Mail in, first step: the raw bytes stored before anything else.

``store_raw`` (and ``store_raw_many`` / ``store_raw_batch`` for a transport's batch,
through :class:`RawStore`) commits the raw bytes before anything else happens to them (a
mail larger than ``[bot] max_mail_bytes`` only up to that size; the same bytes once).
:func:`identify` reads a stored mail's headers (Message-ID, arrival time from our
server's topmost ``Received:``, a re-delivery of a mail read before) without the body.
Reading follows in :mod:`bot.service.conversations.intake`."""


from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from email.parser import BytesHeaderParser
from email import policy
from typing import Sequence

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from bot.config import DEFAULT_MAX_MAIL_BYTES, Config
from bot.crash import crashpoint
from bot.mail.message import header_block
from bot.storage.db import Database, database_failure
from bot.storage.models import InboundMail

log = logging.getLogger(__name__)

log = logging.getLogger(__name__)


def _headers(raw: bytes, *, head: bytes | None = None):
    """The raw mail's headers (lenient compat32 parse of the header block ``head``, by
    default cut from ``raw``), or None."""
    head = header_block(raw) if head is None else head
    try:
        return BytesHeaderParser(policy=policy.compat32).parsebytes(head + b"\r\n\r\n", headersonly=True)
    except Exception:
        return None


def _mid_of(hdr) -> str | None:
    mid = hdr.get("Message-ID") if hdr is not None else None
    return (str(mid).strip() or None) if mid else None


def _message_id(raw: bytes) -> str | None:
    """The Message-ID a stored mail is deduplicated by, or None."""
    return _mid_of(_headers(raw))


#: Headers that make up a mail's content for :func:`content_hash` (trace headers such as
#: Received, Delivered-To, Return-Path, Authentication-Results or X-* differ between two
#: deliveries of one mail and are left out).
CONTENT_HEADERS = ("from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references",
                   "mime-version", "content-type", "content-transfer-encoding")


def content_hash(raw: bytes, *, headers=None, head: bytes | None = None) -> str:
    """Hex sha256 of what a mail says, the same for two deliveries of one mail: the
    :data:`CONTENT_HEADERS` as written (unfolded, in order) and the body, line ends
    normalised to LF and trailing white space removed. ``headers``: :func:`_headers` of
    ``raw``, ``head``: its :func:`~bot.mail.message.header_block`, if the caller has them."""
    head = header_block(raw) if head is None else head
    hdr = headers if headers is not None else _headers(raw, head=head)
    h = hashlib.sha256()
    fields = []
    for name, value in (hdr.items() if hdr is not None else []):
        name = name.lower()
        if name in CONTENT_HEADERS:
            fields.append(f"{name}:{' '.join(str(value).split())}\n")
    fields.append("\n")
    h.update("".join(fields).encode("utf-8", "surrogateescape"))
    _hash_body(h, raw, len(head))
    return h.hexdigest()


_WS = b" \t\n\r\x0b\x0c"
_CHUNK = 1 << 20


def _hash_body(h, raw: bytes, start: int) -> None:
    """Feed ``h`` with ``raw[start:]``, CRLF as LF and trailing white space removed (as
    ``raw[start:].replace(b"\\r\\n", b"\\n").rstrip()``), a megabyte at a time: a 20 MB
    mail would otherwise be copied three times over (60 MB peak; the fuzz bench's
    worst case)."""
    if len(raw) - start <= _CHUNK:  # the usual mail: at once
        h.update(raw[start:].rstrip(_WS).replace(b"\r\n", b"\n"))
        return
    end = len(raw)
    while end > start:  # trailing white space, from the back in chunks
        tail = raw[max(start, end - _CHUNK):end]
        kept = len(tail.rstrip(_WS))
        end -= len(tail) - kept
        if kept:
            break
    pos, carry = start, b""
    while pos < end:
        chunk = carry + raw[pos:min(pos + _CHUNK, end)]
        pos += _CHUNK
        carry = b""
        if pos < end and chunk.endswith(b"\r"):
            chunk, carry = chunk[:-1], b"\r"
        h.update(chunk.replace(b"\r\n", b"\n"))
    if carry:
        h.update(carry)


def _cut(raw: bytes, max_bytes: int) -> bytes:
    """The first ``max_bytes`` of ``raw`` (at least the header block), cut at a line end."""
    nl = raw.rfind(b"\n", 0, max_bytes)
    part = raw[: nl + 1] if nl >= 0 else raw[:max_bytes]
    head = header_block(raw)
    return part if len(part) >= len(head) else head + b"\r\n\r\n"


def store_raw(db: Database, raw: bytes, *, source: str, uidvalidity: int | None = None,
              uid: int | None = None, max_bytes: int = DEFAULT_MAX_MAIL_BYTES) -> tuple[int, bool]:
    """Store a received mail and commit; returns ``(mail id, newly stored)``; see
    :func:`store_raw_many`."""
    return store_raw_many(db, [RawMail(raw, source, uidvalidity, uid)], max_bytes=max_bytes)[0]


@dataclass(frozen=True)
class RawMail:
    """One received mail as a transport hands it over: the bytes, ``source``
    (``imap:INBOX``, ``maildir``, ``ingest``) and the IMAP coordinates (or None)."""

    raw: bytes
    source: str
    uidvalidity: int | None = None
    uid: int | None = None


#: how many rows stored before ``content_sha256`` existed are compared per Message-ID
_LEGACY_ROWS = 20


def store_raw_many(db: Database, mails: Sequence[RawMail],
                   max_bytes: int = DEFAULT_MAX_MAIL_BYTES) -> list[tuple[int, bool]]:
    """Store received mails, in order, in one transaction, and commit; returns
    ``(mail id, newly stored)`` for each.

    The bytes are stored unchanged, except that a mail larger than ``max_bytes`` is stored
    cut to that size (its headers and the first part; ``raw_size`` keeps its real size).
    The same bytes are not stored twice (also earlier in ``mails``): the sha256 of the
    bytes as received. Nothing else is looked at here, so storing costs little more than
    the bytes: the headers are read when the mail is (:func:`identify`: its Message-ID,
    its arrival time, and whether it repeats a mail read before). ``received_at`` is the
    time of storing until then. Three statements: the known hashes, the INSERT of
    :func:`store_raw_batch` and the ids."""
    if not mails:
        return []
    rows = _raw_rows(mails, max_bytes)
    shas = [r["sha256"] for r in rows]
    t = InboundMail.__table__
    with db.session() as s:
        known = set(s.scalars(select(t.c.sha256).where(t.c.sha256.in_(set(shas)))))
        s.execute(_insert_new(s.get_bind().dialect.name), rows)
        ids = dict(s.execute(select(t.c.sha256, t.c.id).where(t.c.sha256.in_(set(shas)))).all())
    out, first = [], set()
    for sha in shas:
        out.append((ids[sha], sha not in known and sha not in first))
        first.add(sha)
    return out


def store_raw_batch(db: Database, mails: Sequence[RawMail], max_bytes: int = DEFAULT_MAX_MAIL_BYTES) -> None:
    """Store received mails as :func:`store_raw_many` does (the same bytes once, cut at
    ``max_bytes``), in one transaction, committed durably (:meth:`Database.durable_session`); without returning ids, so in one
    statement: an INSERT (executemany) that skips the bytes stored before
    (``ON CONFLICT (sha256) DO NOTHING``, SQLite and PostgreSQL). The transports' store
    (:class:`RawStore`) needs no ids: the stored mails are read in stored order."""
    if not mails:
        return
    rows = _raw_rows(mails, max_bytes)
    with db.durable_session() as s:
        s.execute(_insert_new(s.get_bind().dialect.name), rows)


def _raw_rows(mails: Sequence[RawMail], max_bytes: int) -> list[dict]:
    """The ``inbound_mails`` rows of received mails: the bytes (cut at ``max_bytes``,
    ``raw_size`` then the real size), their sha256, status ``stored``, ``received_at`` now."""
    now = datetime.now(timezone.utc)
    rows = []
    for m in mails:
        size = len(m.raw)
        stored = m.raw if size <= max_bytes else _cut(m.raw, max_bytes)
        rows.append({"source": m.source, "uidvalidity": m.uidvalidity, "uid": m.uid,
                     "sha256": hashlib.sha256(m.raw).hexdigest(), "raw": stored,
                     "raw_size": size if stored is not m.raw else None, "received_at": now, "status": "stored"})
    return rows


def _insert_new(dialect: str):
    """INSERT INTO inbound_mails .. ON CONFLICT (sha256) DO NOTHING for ``dialect``."""
    if dialect == "postgresql":
        # deferred on purpose: only the dialect of the database in use
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        # deferred on purpose: only the dialect of the database in use
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    return dialect_insert(InboundMail.__table__).on_conflict_do_nothing(index_elements=["sha256"])


def _identity(raw: bytes, stored_at: datetime) -> tuple[str | None, str | None, datetime]:
    """``(message_id, content_sha256, arrival time)`` of a stored mail's bytes: the
    Message-ID as written (stripped), :func:`content_hash` when there is one, and
    :func:`arrival_time` (``stored_at`` when there is no usable ``Received:``)."""
    head = header_block(raw)
    hdr = _headers(raw, head=head)
    mid = _mid_of(hdr)
    return (mid, content_hash(raw, headers=hdr, head=head) if mid else None,
            arrival_time(raw, stored_at, headers=hdr))


def identify_stored(db: Database, ids: Sequence[int]) -> int:
    """Read the headers of the stored mails ``ids`` not read yet into their rows, in one
    transaction (one UPDATE, an executemany): ``message_id``, ``content_sha256`` and
    ``received_at`` (:func:`_identity`). :func:`process_pending` does it a chunk at a
    time before reading them, so the per-mail transactions do not touch the Message-ID
    index (a page of its own to write for every mail). Returns how many were updated."""
    t = InboundMail.__table__
    with db.session() as s:
        conn = s.connection()
        rows = conn.execute(select(t.c.id, t.c.raw, t.c.received_at).where(
            t.c.id.in_(ids), t.c.status == "stored", t.c.message_id.is_(None))).all()
        done = []
        for i, raw, at in rows:
            mid, chash, arrived = _identity(bytes(raw), at)
            if mid is not None or arrived != at:
                done.append({"b_id": i, "mid": mid, "chash": chash, "at": arrived})
        if done:
            conn.execute(update(t).where(t.c.id == bindparam("b_id")).values(
                message_id=bindparam("mid"), content_sha256=bindparam("chash"), received_at=bindparam("at")), done)
    return len(done)


def identify(s: Session, mail: InboundMail, *, known: dict[str, list] | None = None) -> int | None:
    """Read a stored mail's headers into its row unless :func:`identify_stored` did:
    ``message_id``, ``content_sha256`` and ``received_at`` (:func:`_identity`). Returns
    the id of an earlier mail it repeats -- the same Message-ID with the same content,
    a re-delivery with other trace headers --, else None (a different mail reusing a
    Message-ID is read as a new one). Mails are read in the order they were stored, so
    the earlier one has been read. ``known``: the rows of :func:`same_ids` read for a
    batch (a Message-ID not in it is queried)."""
    if mail.message_id is None:  # not identified yet, or without a Message-ID
        mid, chash, arrived = _identity(mail.raw, mail.received_at)
        mail.received_at = arrived
        if mid is None:
            return None
        mail.message_id, mail.content_sha256 = mid, chash
    mid, chash = mail.message_id, mail.content_sha256
    conn = s.connection()
    if known is not None and mid in known:
        rows = [r for r in known[mid] if r[0] < mail.id]
    else:
        rows = conn.execute(_SAME_ID, {"mid": mid, "id": mail.id}).all()
    if not rows:
        return None
    for i, other, _ in rows:
        if other == chash:
            return i
    # stored before content_sha256 existed: compared by their bytes (the last few)
    legacy = [i for i, other, size in rows if other is None and size is None][-_LEGACY_ROWS:]
    t = InboundMail.__table__
    for i, raw in conn.execute(select(t.c.id, t.c.raw).where(t.c.id.in_(legacy)).order_by(t.c.id)).all() \
            if legacy else []:
        if content_hash(bytes(raw)) == chash:
            return i
    return None


#: The mails read before with a Message-ID (built once: building it cost more than running it).
_SAME_ID = (select(InboundMail.__table__.c.id, InboundMail.__table__.c.content_sha256,
                   InboundMail.__table__.c.raw_size)
            .where(InboundMail.__table__.c.message_id == bindparam("mid"),
                   InboundMail.__table__.c.id < bindparam("id"))
            .order_by(InboundMail.__table__.c.id))


#: The key of :func:`same_ids`' rows among a batch's shared lookups
#: (:data:`bot.storage.db.BATCH`).
SAME_ID = "same_id"


def same_ids(conn, ids: Sequence[int]) -> dict[str, list]:
    """For the stored mails ``ids`` (their headers read, :func:`identify_stored`): each
    Message-ID among them -> every stored mail with that Message-ID, ``(id,
    content_sha256, raw_size)`` in the order of ids (the rows :func:`identify` compares a
    mail with, those with a lower id), in one statement. Reading a mail changes none of
    these columns of another, so a batch reads them once."""
    t = InboundMail.__table__
    mids = select(t.c.message_id).where(t.c.id.in_(list(ids)), t.c.message_id.is_not(None)).scalar_subquery()
    out: dict[str, list] = {}
    for i, mid, chash, size in conn.execute(select(t.c.id, t.c.message_id, t.c.content_sha256, t.c.raw_size)
                                            .where(t.c.message_id.in_(mids)).order_by(t.c.id)):
        out.setdefault(mid, []).append((i, chash, size))
    return out


#: How far a Received: stamp may lie in the future (clock skew between servers).
CLOCK_SKEW = timedelta(minutes=5)


def arrival_time(raw: bytes, now: datetime | None = None, *, headers=None) -> datetime:
    """When the mail reached our mail server: the date of its topmost ``Received:`` header
    (written by our own receiving server, so a sender cannot forge it earlier), or now when
    there is none or it cannot be read. A mail that arrived before the ZAT counts for that
    round even when the bot reads it later (it was down, or the ZAT fell between polls)."""
    now = now or datetime.now(timezone.utc)
    hdr = headers if headers is not None else _headers(raw)
    try:
        received = (hdr.get_all("Received") if hdr is not None else None) or []
        if received:
            when = parsedate_to_datetime(str(received[0]).rpartition(";")[2].strip())
            if when.tzinfo is not None and when <= now + CLOCK_SKEW:
                return min(when.astimezone(timezone.utc), now)
    except (TypeError, ValueError, IndexError):
        pass
    return now


#: Stored mails whose headers :func:`process_pending` reads in one transaction.


class RawStore:
    """The store callback a transport hands its mails to (:class:`~bot.mail.transport.
    StoreCallback`): each mail is taken into the current batch; :meth:`sync` stores the
    batch raw in one durable transaction (:func:`store_raw_batch`,
    :meth:`~bot.storage.db.Database.durable_session`). The transport calls it (``sync_store``) before it moves the
    batch off the server or advances its poll state, so a crash before leaves the mails
    to be fetched and stored again; a batch longer than :attr:`limit` mails or :attr:`limit_bytes` is
    stored at once. The stored mails are read afterwards by :func:`process_pending`, so a
    poll pass costs no more than fetching and storing."""

    limit = 1000
    limit_bytes = 32 * 1024 * 1024

    def __init__(self, db: Database, source: str, max_bytes: int = DEFAULT_MAX_MAIL_BYTES) -> None:
        self.db, self.source, self.max_bytes = db, source, max_bytes
        self.pending: list[RawMail] = []
        self.size = 0

    def __call__(self, raw: bytes, *, source: str | None = None, uidvalidity: int | None = None,
                 uid: int | None = None) -> bool:
        self.pending.append(RawMail(bytes(raw), source or self.source, uidvalidity, uid))
        self.size += len(raw)
        if len(self.pending) >= self.limit or self.size >= self.limit_bytes:
            self._store()
        return True

    def _store(self) -> None:
        if self.pending:
            try:
                store_raw_batch(self.db, self.pending, self.max_bytes)
            except Exception as exc:  # the database is down: the transport stops quietly
                failure = database_failure(exc, self.db.url)
                if failure is None:
                    raise
                self.pending, self.size = [], 0  # handed over again by the next pass
                raise failure from exc
            self.pending, self.size = [], 0
            crashpoint("after-store")

    def sync(self) -> None:
        """Store the batch: committed and durable (every batch is stored so)."""
        self._store()


def make_store(db: Database, cfg: Config, source: str) -> RawStore:
    """The store callback for a transport (:class:`RawStore`; mails cut at ``[bot]
    max_mail_bytes``)."""
    return RawStore(db, source, cfg.max_mail_bytes)

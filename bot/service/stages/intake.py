"""Mail in: store raw first, then read and acknowledge.

``store_raw`` (and ``store_raw_many`` for a transport's batch, through :class:`RawStore`)
commits the raw bytes before anything else (a mail larger than ``[bot] max_mail_bytes``
only up to that size; the same bytes once); ``process_mail`` reads a stored mail (its
headers: Message-ID, arrival time, a re-delivery of a mail read before; then MIME -> text
-> Partie sections -> moves), records the submission and queues the German
acknowledgement, all in one transaction; ``process_pending`` reads every stored mail in order (after a poll pass,
and after a crash). A mail whose reading fails stays stored with status ``error``; a
registered sender is told it could not be read.

The front of the reading decides who may change what (issue "nobody can silence a
player"): bounces and automatic mails are never answered; a mail too large or
unreadable is answered from its raw headers; a mail whose sender our server did not
authenticate (``[bot] authserv_id``) or whose From field is doubtful (it names a second
address: :func:`bot.mail.sender.read_sender`, issue 31), or without the right code,
changes nothing and its owner (the registered player whose address it named) is told at
most once an hour (:func:`bot.service.conversations.loops.auth_failure`); every other
mail is read, and only the answers are capped per address and hour
(:func:`bot.service.conversations.loops.gate_answers`); a mail with the right code is always answered.
"""

from __future__ import annotations

import hashlib
import json
import logging
import traceback
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from email.parser import BytesHeaderParser
from email import policy
from typing import Iterator, Sequence

from sqlalchemy import bindparam, event, func, insert, select, update
from sqlalchemy.orm import Session

from bot.config import DEFAULT_MAX_MAIL_BYTES, Config
from bot.crash import crashpoint
from bot.games import get_game
from bot.games.base import Audience, GameRules, render_move
from bot.games.verdict import render_text
from bot.i18n import gm_language, league_language, texts, tr, unreadable_reason
from bot.mail.auth import SenderAuth, mail_auth
from bot.mail.message import ReadMail, header_block, raw_headers, read_mail
from bot.render import format_zat, nobreak, render
from bot.service.domain.league import league_lexicon, playing
from bot.service.stages.rounds import adjudicate_passed, closed_note, passed_zats
from bot.service.stages.outbox import queue_mail
from bot.service.stages.readpool import pool_for
from bot.storage.db import Database, database_failure
from bot.service.conversations.commands import standings_text
from bot.service.conversations.registry import find_command
from bot.service.conversations.identity import check_code, take_code
from bot.service.conversations.loops import auth_failure, gate_answers, handle_bounce, proven, repeat_key
from bot.service.conversations.mailctx import Incoming
from bot.service.conversations.strangers import unknown_sender
from bot.storage.models import (InboundMail, League, OutboxMail, Partie, Player, PlayerAddress, Round, Submission,
                                SubmissionMove)
from bot.service.conversations.quoted import norm, quoted_lines
from bot.service.conversations.routing import routed
from bot.submission import ReadSubmission, read_submission

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


def identify(s: Session, mail: InboundMail) -> int | None:
    """Read a stored mail's headers into its row unless :func:`identify_stored` did:
    ``message_id``, ``content_sha256`` and ``received_at`` (:func:`_identity`). Returns
    the id of an earlier mail it repeats -- the same Message-ID with the same content,
    a re-delivery with other trace headers --, else None (a different mail reusing a
    Message-ID is read as a new one). Mails are read in the order they were stored, so
    the earlier one has been read."""
    if mail.message_id is None:  # not identified yet, or without a Message-ID
        mid, chash, arrived = _identity(mail.raw, mail.received_at)
        mail.received_at = arrived
        if mid is None:
            return None
        mail.message_id, mail.content_sha256 = mid, chash
    mid, chash = mail.message_id, mail.content_sha256
    conn = s.connection()
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
IDENTIFY_CHUNK = 500


def process_pending(db: Database, cfg: Config, now: datetime | None = None) -> int:
    """Read every stored mail not yet read, in the order they were stored (the mails a
    poll pass has just stored, or left by a crash); first their headers, a chunk at a
    time (:func:`identify_stored`), then each mail in its own transaction.
    The MIME front of reading (:func:`~bot.mail.message.read_mail`) is done ahead in
    worker processes for a batch (``[bot] read_workers``, :mod:`bot.service.stages.readpool`).
    Returns how many."""
    with db.session() as s:
        ids = s.scalars(select(InboundMail.id).where(InboundMail.status == "stored").order_by(InboundMail.id)).all()
    for k in range(0, len(ids), IDENTIFY_CHUNK):
        identify_stored(db, ids[k:k + IDENTIFY_CHUNK])
    zats = passed_zats(db, now or datetime.now(timezone.utc)) if ids else []
    arrived = _arrivals(db, ids) if zats else {}
    for mid, rm in pool_for(cfg.read_workers).read(db, ids):
        if zats and mid in arrived and arrived[mid] > zats[0]:
            # a ZAT passed before this mail arrived and its round is still open (the bot or
            # its database was down at the ZAT): the round is adjudicated first, so the
            # mail counts for the next round, as it would have with the ZAT on time
            adjudicate_passed(db, cfg, arrived[mid])
            zats = passed_zats(db, now or datetime.now(timezone.utc))
        process_mail(db, cfg, mid, now, read=rm)
        crashpoint("after-read")
    return len(ids)


def _arrivals(db: Database, ids: Sequence[int]) -> dict[int, datetime]:
    """The arrival time (``received_at``, read by :func:`identify_stored`) of each of ``ids``."""
    t = InboundMail.__table__
    out: dict[int, datetime] = {}
    with db.engine.connect() as conn:
        for k in range(0, len(ids), IDENTIFY_CHUNK):
            out.update(conn.execute(select(t.c.id, t.c.received_at).where(t.c.id.in_(ids[k:k + IDENTIFY_CHUNK]))).all())
    return {i: (at if at.tzinfo else at.replace(tzinfo=timezone.utc)) for i, at in out.items()}


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


def process_mail(db: Database, cfg: Config, mail_id: int, now: datetime | None = None, *,
                 read: ReadMail | None = None) -> str:
    """Read stored mail ``mail_id`` and act on it; returns its new status. ``read``: the
    mail's :func:`~bot.mail.message.read_mail`, when a worker has read it already. A
    failure while reading is recorded on the mail (status ``error``, the GM told); the
    database going away raises :class:`~bot.storage.db.DatabaseUnavailable` instead (the
    mail stays ``stored`` and is read once it is back)."""
    now = now or datetime.now(timezone.utc)
    try:
        with db.session() as s:
            mail = s.get(InboundMail, mail_id)
            if mail is None or mail.status != "stored":
                return mail.status if mail else "missing"
            first = identify(s, mail)
            if first is not None:  # a re-delivery: read once, answered once
                mail.status, mail.kind = "ignored", "ignored"
                mail.parse = {"reason": f"duplicate of mail {first}", "duplicate_of": first}
                return mail.status
            with _answers(s) as queued:
                _process(s, cfg, mail, now, read)
                for row in queued:  # the reading time (gate_answers), written with the INSERT
                    row.created_at = now
                s.flush()
                gate_answers(s.info.pop("incoming"), queued)
            return mail.status
    except Exception as exc:  # keep the mail, record why, never lose it
        failure = database_failure(exc, db.url)
        if failure is not None:  # the database went away: still stored, read again once it is back
            raise failure from exc
        log.exception("Lesen der Mail %s gescheitert", mail_id)
        with db.session() as s:
            mail = s.get(InboundMail, mail_id)
            if mail is not None:
                try:
                    identify(s, mail)
                except Exception:  # pragma: no cover - the header parser is very tolerant
                    log.exception("Lesen der Kopfzeilen der Mail %s gescheitert", mail_id)
                mail.status = "error"
                mail.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
        _tell_failed(db, cfg, mail_id, now)
        return "error"


@contextmanager
def _answers(s: Session) -> Iterator[list[OutboxMail]]:
    """Collect every outbox row added to ``s`` inside the block (the answers to one mail)."""
    queued: list[OutboxMail] = []
    lists = s.info.setdefault(_QUEUED, [])
    lists.append(queued)
    try:
        yield queued
    finally:
        lists.pop()  # blocks nest: the innermost ends first
        if not lists:
            s.info.pop(_QUEUED, None)


#: The key in ``Session.info`` of the lists :func:`_answers` collects into (nested blocks: each).
_QUEUED = "spielleiter.queued"


@event.listens_for(Session, "transient_to_pending")
def _queued(session: Session, obj) -> None:
    """Every session: an outbox row added while :func:`_answers` collects goes to its list
    (one listener for all sessions: registering one per mail cost more than reading it)."""
    lists = session.info.get(_QUEUED)
    if lists and isinstance(obj, OutboxMail):
        for queued in lists:
            queued.append(obj)


def _tell_failed(db: Database, cfg: Config, mail_id: int, now: datetime) -> None:
    """After reading ``mail_id`` failed: flag it and tell a registered sender (found in
    the raw headers) that the mail could not be read. Never raises."""
    try:
        with db.session() as s:
            mail = s.get(InboundMail, mail_id)
            rm = read_mail(header_block(mail.raw) + b"\r\n\r\n")
            mail.from_addr = mail.from_addr or rm.from_addr or None
            mail.flagged = f"unreadable: reading failed ({(mail.error or '').splitlines()[0][:200]})"
            ctx = Incoming(s, cfg, mail, rm, now)
            if rm.auto or not rm.from_addr or rm.from_addr == cfg.sender_addr.lower() or \
                    _auth(rm, mail.raw, cfg).failed or not _registered(ctx):
                return
            with _answers(s) as queued:
                ctx.reply("deine Mail konnte ich nicht lesen: beim Lesen ist ein Fehler aufgetreten. Sie wurde "
                          "nicht gewertet und hat nichts verändert; sie bleibt für den Spielleiter gespeichert, der "
                          "Bescheid bekommt. Bitte schick deine Züge noch einmal als einfache Textmail.")
                s.flush()
                gate_answers(ctx, queued)
    except Exception:
        log.exception("Antwort an den Absender der Mail %s gescheitert", mail_id)


def _auth(rm: ReadMail, raw: bytes, cfg: Config) -> SenderAuth:
    """The verdict on the sender of ``rm`` (:func:`bot.mail.auth.mail_auth`): its From
    field doubtful, or our server's ``Authentication-Results`` (read only with
    ``[bot] authserv_id``)."""
    return mail_auth(rm, lambda: raw_headers(raw), cfg.authserv_id)


def _failure(auth: SenderAuth) -> str:
    """The words of a recorded reason: ``ambiguous`` (the From field) or ``not authenticated``."""
    return "ambiguous" if auth.ambiguous else "not authenticated"


def _claimed_player(ctx: Incoming) -> bool:
    """Does the doubtful From field of a stranger's mail name a player of a running
    league (``ReadMail.claimed``, in order)? Sets ``ctx.player`` and ``ctx.league`` (the
    first such player) and the mail's, for the notice to that player."""
    for addr in ctx.rm.claimed:
        if addr == ctx.rm.from_addr:
            continue
        row = ctx.s.execute(_SENDER, {"addr": addr}).first()
        if row is not None:
            ctx.player, ctx.league, _ = row
            ctx.mail.player_id, ctx.mail.league_id = ctx.player.id, ctx.league.id
            return True
    return False


def _registered(ctx: Incoming) -> bool:
    """Is the sender a player of a running league or a league's GM? Sets ``ctx.player``
    and ``ctx.league`` (the first match) for the greeting."""
    addr = ctx.rm.from_addr
    row = ctx.s.execute(select(Player, League).join(PlayerAddress, PlayerAddress.player_id == Player.id)
                        .join(League, League.id == Player.league_id)
                        .where(PlayerAddress.email == addr, League.status == "running", Player.active)).first()
    if row is not None:
        ctx.player, ctx.league = row
        ctx.mail.player_id, ctx.mail.league_id = ctx.player.id, ctx.league.id
        return True
    gm_of = ctx.s.scalar(select(League).where(func.lower(League.gm_email) == addr).limit(1))
    if gm_of is not None:
        ctx.league = gm_of
        return True
    return False


#: The sender's player, league and address row in the running leagues (built once).
_SENDER = (select(Player, League, PlayerAddress).join(PlayerAddress, PlayerAddress.player_id == Player.id)
           .join(League, League.id == Player.league_id)
           .where(PlayerAddress.email == bindparam("addr"), League.status == "running", Player.active))


def _process(s: Session, cfg: Config, mail: InboundMail, now: datetime, read: ReadMail | None = None) -> None:
    rm = read if read is not None and read.raw_sha256 == mail.sha256 else read_mail(mail.raw)
    mail.from_addr = rm.from_addr or None
    mail.subject = rm.subject
    ctx = s.info["incoming"] = Incoming(s, cfg, mail, rm, now)
    if handle_bounce(ctx):  # bounces: flagged for the GM, never answered
        return
    if rm.auto:
        return ctx.record("ignored", "ignored", reason=f"auto: {rm.auto}")
    if not rm.from_addr or rm.from_addr == cfg.sender_addr.lower():
        return ctx.record("ignored", "ignored", reason="own mail or no sender")
    mail.repeat_key = repeat_key(rm.from_addr, rm.subject, rm.new_text, rm.from_name)  # answered once an hour (gate_answers)
    auth = ctx.auth = _auth(rm, mail.raw, cfg)
    if mail.raw_size is not None:
        return _too_big(ctx, auth)
    if rm.unreadable:
        return _unreadable(ctx, auth)
    code, text = take_code(rm.new_text)
    found = find_command(rm.subject, text)
    if found and found[0].gm:
        if found[0].handler(ctx, found[1]) is not False:  # False: a player's mail after all
            return
        found = None
    with s.no_autoflush:  # nothing pending matters here; the mail's columns are written once, at the end
        # the sender's address row too (a bouncing address works again when its owner writes)
        rows = s.execute(_SENDER, {"addr": rm.from_addr}).all()
    if not rows:
        if auth.failed and auth.ambiguous and _claimed_player(ctx):  # it claimed a player's address
            return _bad_code(ctx, None, auth)  # (a code in it is not the stranger's to use)
        if auth.failed:  # a forged stranger: answering would only reach the forged address
            return ctx.record("ignored", "ignored", reason=f"sender {_failure(auth)}: {auth.reason}")
        if found and not found[0].needs_player:
            return found[0].handler(ctx, found[1])
        if _finished_player(ctx):
            if found and found[0].name in AFTER_END_COMMANDS:
                return found[0].handler(ctx, found[1])
            return _game_over(ctx)
        if _former_player(ctx):
            if found and found[0].name in AFTER_END_COMMANDS:
                return found[0].handler(ctx, found[1])
            return _not_playing(ctx)
        if _game_master(ctx):
            if found and found[0].name in OPEN_COMMANDS:
                return found[0].handler(ctx, found[1])
            return _gm_not_player(ctx, found[0].name if found else None)
        return _unknown_sender(ctx, text)
    if len(rows) > 1 and not (rows := routed(ctx, rows, found, text)):
        return  # the player was asked which league (bot.service.conversations.routing)
    for ctx.player, ctx.league, sent_from in rows:  # several: a command for each league
        mail.player_id, mail.league_id = ctx.player.id, ctx.league.id
        _as_player(ctx, found, code, auth, sent_from, text)


def _as_player(ctx: Incoming, found, code: str | None, auth: SenderAuth, sent_from: PlayerAddress,
               text: str) -> None:
    """The mail of ``ctx.player`` in ``ctx.league``: a command or the moves."""
    if found and found[0].name in OPEN_COMMANDS and not auth.failed:
        return found[0].handler(ctx, found[1])
    proved = bool(code) and check_code(code, ctx.player.code_hash)
    if not proved and (ctx.league.require_code or auth.failed):
        return _bad_code(ctx, code, auth)
    if proved:
        proven(ctx, f"player:{ctx.player.id}")
    if sent_from.bounced_at is not None:  # writing from a bouncing address: it works again
        sent_from.bounced_at = sent_from.bounce_reason = None
    if found:
        return found[0].handler(ctx, found[1])
    _submission(ctx, text)


#: Commands that need no personal code (they change nothing).
OPEN_COMMANDS = {"HILFE", "STAND"}
#: Commands a player of a league that has ended still gets answered (they change nothing;
#: an Auswertung goes only to the registered address it was asked from).
AFTER_END_COMMANDS = OPEN_COMMANDS | {"AUSWERTUNG"}


def _finished_player(ctx: Incoming) -> bool:
    """Is the sender a player of a league that has ended (and of no running one)? Sets
    ``ctx.player`` and ``ctx.league``: the league named in the subject, else the one that
    ended last."""
    return _take_player(ctx, League.status == "finished")


def _former_player(ctx: Incoming) -> bool:
    """Is the sender a player who left a running league (``ABMELDEN``) or was taken out of
    it by the GM, and plays in no running league? Sets ``ctx.player`` and ``ctx.league``:
    the league named in the subject, else the last one."""
    return _take_player(ctx, League.status == "running", Player.active.is_(False))


def _take_player(ctx: Incoming, *where) -> bool:
    """The sender's player rows in leagues matching ``where`` (newest first): the one
    whose league the subject names, else the newest, set as ``ctx.player`` and
    ``ctx.league`` (and on the mail). False when there is none."""
    rows = ctx.s.execute(select(Player, League).join(PlayerAddress, PlayerAddress.player_id == Player.id)
                         .join(League, League.id == Player.league_id)
                         .where(PlayerAddress.email == ctx.rm.from_addr, *where)
                         .order_by(League.id.desc(), Player.id.desc())).all()
    if not rows:
        return False
    subj = (ctx.rm.subject or "").lower()
    named = [r for r in rows if r[1].name.lower() in subj]
    ctx.player, ctx.league = (named or rows)[0]
    ctx.mail.player_id, ctx.mail.league_id = ctx.player.id, ctx.league.id
    return True


def _not_playing(ctx: Incoming) -> None:
    """A mail from a player who no longer plays in a running league (left or taken out):
    it changes nothing; the answer says so, how to come back, and the standings."""
    ctx.record("ignored", "ignored", reason="player left the league")
    t, league = texts(ctx.lang), ctx.league
    body = t.gettext("du spielst in {league} nicht mehr mit; deine Mail wurde nicht als Zug gewertet.",
                     league=league.name)
    game = get_game(league.game)
    body += " " + (t.gettext("Mit ANMELDEN {league} kannst du wieder einsteigen.", league=league.name)
                   if game.open_join else t.gettext("Willst du wieder mitspielen, schreib bitte dem Spielleiter."))
    ctx.reply(body + "\n\n" + standings_text(ctx.s, league, ctx.lang))


def _game_master(ctx: Incoming) -> bool:
    """Is the sender the GM (``gm_email``) of a league, and no player? Sets ``ctx.league``:
    the league named in the subject, else the last running one, else the last one."""
    leagues = list(ctx.s.scalars(select(League).where(func.lower(League.gm_email) == ctx.rm.from_addr)
                                 .order_by(League.id.desc())))
    if not leagues:
        return False
    subj = (ctx.rm.subject or "").lower()
    named = [lg for lg in leagues if lg.name.lower() in subj]
    running = [lg for lg in leagues if lg.status == "running"]
    ctx.league = (named or running or leagues)[0]
    ctx.mail.league_id = ctx.league.id
    return True


def _gm_not_player(ctx: Incoming, command: str | None) -> None:
    """A mail from a league's GM that is no GM command (a player command, or moves): the
    GM plays in no league of theirs; the answer says how GM commands go. Changes nothing."""
    ctx.record("ignored", "ignored", reason="game master, not a player", command=command)
    t = texts(gm_language(ctx.league.options))
    first = (t.gettext("{command} ist ein Befehl für Spieler; du bist Spielleiter von {league} und spielst dort "
                       "nicht mit.", command=command, league=ctx.league.name) if command else
             t.gettext("du bist Spielleiter von {league} und spielst dort nicht mit; deine Mail wurde nicht als "
                       "Zug gewertet.", league=ctx.league.name))
    ctx.reply(first + " " + t.gettext(
        "Spielleiter-Befehle gehen so: BEFEHL <Liga> ... als Betreff, dein Spielleiter-Code in einer eigenen "
        "Zeile ('Code: ...'); die Liste steht in der Mail zum Start der Liga. STAND und HILFE gehen auch so."),
        name=t.gettext("Spielleiter"), lang=gm_language(ctx.league.options))


def _game_over(ctx: Incoming) -> None:
    """A registered player's mail after their league ended: "Die Partie ist beendet" and
    the final standings, in the league's language; nothing is stored as a move."""
    ctx.record("ignored", "ignored", reason="league finished")
    lang = ctx.lang
    ctx.reply(tr(lang, "game_over", league=ctx.league.name) + "\n\n" + standings_text(ctx.s, ctx.league, lang))


def _unknown_sender(ctx: Incoming, text: str) -> None:
    """A mail from an address no running league knows changes nothing; the sender is told
    at that address alone, the game master and the players it names as whole names are
    told without giving a player anyone's address
    (:func:`bot.service.conversations.strangers.unknown_sender`, issue 31)."""
    unknown_sender(ctx, text)


def _bad_code(ctx: Incoming, code: str | None, auth: SenderAuth) -> None:
    """A mail without the right personal code (in a league that requires one), or whose
    sender our mail server did not authenticate or whose From field is doubtful (a second
    address, issue 31) and that carries no right code, changes nothing. The player is
    told at the registered address (the real player even when the sender was forged; for
    a doubtful From, the player whose address it named), at most once an hour
    (:func:`bot.service.conversations.loops.auth_failure`); the code is never echoed."""
    reason = f"sender {_failure(auth)}: {auth.reason}" if auth.failed and not (
        ctx.league.require_code and code) else "code missing" if not code else "code wrong"
    ctx.record("rejected", "submission", reason=reason)
    ctx.mail.flagged = {"code missing": "personal code missing", "code wrong": "personal code wrong"}.get(
        reason, reason)
    lang = ctx.lang
    if reason.startswith("sender ambiguous"):
        mine = {a.email for a in ctx.player.addresses} if ctx.player.addresses else {ctx.player.email}
        addr = next((a for a in ctx.rm.claimed if a in mine), ctx.rm.from_addr)
        others = [a for a in ctx.rm.claimed if a != addr][:3]
        text = tr(lang, "from_ambiguous", addr=addr, others=", ".join(others) or ctx.rm.from_addr)
    elif reason.startswith("sender"):
        text = tr(lang, "code_forged", addr=ctx.rm.from_addr, why=auth.reason)
    else:
        text = tr(lang, "code_missing" if not code else "code_wrong", addr=ctx.rm.from_addr)
    auth_failure(ctx, owner=f"player:{ctx.player.id}", to=ctx.player.email, name=ctx.player.name,
                 subject=tr(lang, "subject_not_counted", league=ctx.league.name), first_text=text,
                 what=tr(lang, "what_player", league=ctx.league.name))


def _too_big(ctx: Incoming, auth: SenderAuth) -> None:
    """A mail larger than ``[bot] max_mail_bytes``: stored cut, not read, flagged; a
    registered sender (player or GM, not a forged one) is told."""
    size, limit = ctx.mail.raw_size, ctx.cfg.max_mail_bytes
    ctx.record("ignored", "ignored", reason=f"zu groß: {size} Bytes (höchstens {limit})", size=size)
    ctx.mail.flagged = f"too large: {size} bytes, stored cut to {len(ctx.mail.raw)}"
    if auth.failed or not _registered(ctx):
        return
    mb = lambda n: f"{n / 1024 / 1024:.1f}".replace(".", ",")  # noqa: E731
    ctx.reply(tr(ctx.lang, "mail_too_big", size=mb(size), limit=mb(limit)))


def _unreadable(ctx: Incoming, auth: SenderAuth) -> None:
    """A mail whose structure or text could not be read: stored, flagged for the GM; a
    registered sender (player or GM, not a forged one) is told why in one line."""
    why = ctx.rm.unreadable
    ctx.record("ignored", "ignored", reason=f"unreadable: {why}")
    ctx.mail.flagged = f"unreadable mail from {ctx.rm.from_addr}: {why}"
    if auth.failed or not _registered(ctx):
        return
    lang = ctx.lang
    ctx.reply(tr(lang, "mail_unreadable", subject=ctx.rm.subject or tr(lang, "empty_subject"),
                 why=unreadable_reason(why, lang)))


def _not_now(s: Session, game, league: League, partie: Partie, active: set[int], player: Player,
             lang: str = "de", zat: str = "") -> str | None:
    """Why ``player`` cannot send moves for ``partie`` now (German), or None: the Partie
    is over, waits for the one before it (league option ``sequential``), or it is another
    player's turn (:meth:`GameRules.movers`; the answer names whose turn it is and that
    turn's ``zat``)."""
    if partie.finished:
        return tr(lang, "partie_over")
    if partie.id not in active:
        return tr(lang, "partie_waits")
    movers = game.movers(partie.state)
    if movers is not None and str(player.id) not in movers:
        out = game.out_note(partie.state, str(player.id))
        if out is not None:  # out of the Partie: say so, not "not your turn" (issue 32)
            return render_text(out, lang, Audience(viewer=str(player.id)), str(player.id))
        names = [p.name for p in league.players if str(p.id) in movers]
        who = tr(lang, "who_moves", names=", ".join(names), zat=zat) if names else ""
        return tr(lang, "not_your_turn", who=who)
    return None


# The statements of every submission, built once (building a statement and its cache key
# costs more than running it on SQLite) and run on the session's connection (plain rows;
# nothing of the session needs flushing for them).
_PARTIEN = (select(Partie.id, Partie.name, Partie.finished, Partie.state)
            .where(Partie.league_id == bindparam("league")).order_by(Partie.id))
_OPEN_ROUND = (select(Round.number, Round.zat).where(Round.league_id == bindparam("league"), Round.status == "open")
               .order_by(Round.number).limit(1))  # as bot.service.domain.league.open_round, without the ORM
_PREVIOUS_ROUND = select(Round.zat, Round.adjudicated_at).where(Round.league_id == bindparam("league"),
                                                               Round.number == bindparam("number"))


def _delayed_zat(conn, league_id: int, number: int, arrived: datetime) -> datetime | None:
    """The ZAT of round ``number - 1`` when a mail that ``arrived`` after it was read only
    after that round's (delayed) adjudication; else None."""
    if number <= 1:
        return None
    row = conn.execute(_PREVIOUS_ROUND, {"league": league_id, "number": number - 1}).first()
    if row is None or row.adjudicated_at is None:
        return None
    zat, done = (t if t.tzinfo else t.replace(tzinfo=timezone.utc) for t in (row.zat, row.adjudicated_at))
    return zat if zat < arrived <= done else None


_SUBMISSIONS = Submission.__table__
_NEW_SUBMISSION = insert(_SUBMISSIONS).returning(_SUBMISSIONS.c.id, _SUBMISSIONS.c.partie_id)
_NEW_MOVES = insert(SubmissionMove.__table__)
_NEWER = _SUBMISSIONS.alias("newer")
_MOVES = SubmissionMove.__table__
#: the move lines of the player's standing (not superseded) submissions of the round for
#: these Partien, in order: what a later mail is merged with
_STANDING = (select(_SUBMISSIONS.c.partie_id, _MOVES.c.text)
             .join(_MOVES, _MOVES.c.submission_id == _SUBMISSIONS.c.id)
             .where(_SUBMISSIONS.c.partie_id.in_(bindparam("partien", expanding=True)),
                    _SUBMISSIONS.c.round_number == bindparam("round"),
                    _SUBMISSIONS.c.player_id == bindparam("player"), _SUBMISSIONS.c.superseded_by.is_(None))
             .order_by(_SUBMISSIONS.c.id, _MOVES.c.position))
#: the player's earlier submissions of the round for these Partien superseded by the new
#: one of the same Partie (the last, should a Partie come twice), in one statement that
#: names the Partien it superseded in
_SUPERSEDE = (update(_SUBMISSIONS)
              .where(_SUBMISSIONS.c.partie_id.in_(bindparam("partien", expanding=True)),
                     _SUBMISSIONS.c.round_number == bindparam("round"),
                     _SUBMISSIONS.c.player_id == bindparam("player"), _SUBMISSIONS.c.superseded_by.is_(None),
                     _SUBMISSIONS.c.id.not_in(bindparam("new", expanding=True)))
              .values(superseded_by=select(func.max(_NEWER.c.id))
                      .where(_NEWER.c.partie_id == _SUBMISSIONS.c.partie_id,
                             _NEWER.c.id.in_(bindparam("newer", expanding=True))).scalar_subquery())
              .returning(_SUBMISSIONS.c.partie_id))


#: Rendered situations of a Partie (``<game>/situation.txt.j2``) by game, language, state
#: and the player's private view: the same for every mail of a round in most games.
_SITUATIONS: dict[tuple[str, str, str, str], str] = {}


def _situation(game, lang: str, state: dict, mine: dict) -> str:
    """The Partie's situation as the acknowledgement shows it (the game's public view and
    the player's own, rendered), remembered for the next mail of the same state."""
    try:
        key = (game.name, lang, json.dumps(state, sort_keys=True), json.dumps(mine, sort_keys=True))
    except (TypeError, ValueError):  # not JSON after all: rendered every time
        key = None
    text = _SITUATIONS.get(key) if key else None
    if text is None:
        text = render(f"{game.name}/situation.txt.j2", lang, mine=mine, **game.public_view(state)).strip()
        if key:
            if len(_SITUATIONS) >= 512:
                _SITUATIONS.clear()
            _SITUATIONS[key] = text
    return text


def _drop_quoted(conn, read: ReadSubmission, text: str, league_id: int, addresses: list[str],
                 player_id: int, in_reply_to: str | None = None) -> list[str]:
    """Take a block pasted from one of the bot's mails to this player in this league out
    of ``read`` (:mod:`bot.service.conversations.quoted`, issue 32: a run of at least
    ``MIN_RUN`` lines of one mail in order; a line the player wrote is theirs whatever it
    equals): out of the move lines (a section left without moves goes) and out of the
    unreadable ones. A line that stands in a block n times is taken out n times, the
    last places first (a block is pasted below the player's own lines). Returns the move
    lines taken out (white space collapsed), for the acknowledgement ("aus unserer Mail
    zitiert, nicht gewertet")."""
    hits = quoted_lines(conn, text, league_id, addresses, player_id, in_reply_to)
    if not hits:
        return []
    left = dict(hits)
    drop: set[tuple[int, int]] = set()
    for si in range(len(read.sections) - 1, -1, -1):
        sec = read.sections[si]
        for ri in range(len(sec.lines) - 1, -1, -1):
            n = norm(sec.lines[ri])
            if left.get(n, 0) > 0:
                left[n] -= 1
                drop.add((si, ri))
    dropped: list[str] = []
    keep_sections = []
    for si, sec in enumerate(read.sections):
        had = bool(sec.moves)
        rows = list(zip(sec.moves, sec.parsed, sec.lines))
        dropped += [norm(r[2]) for ri, r in enumerate(rows) if (si, ri) in drop]
        rows = [r for ri, r in enumerate(rows) if (si, ri) not in drop]
        sec.moves, sec.parsed, sec.lines = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
        if sec.moves or not had:
            keep_sections.append(sec)
    read.sections[:] = keep_sections
    read.ignored[:] = [line for line in read.ignored if norm(line) not in hits]
    return dropped


def _submission(ctx: Incoming, text: str) -> None:
    """Read the moves of a player's mail, record them (replacing the player's earlier
    submission for each Partie) and queue the acknowledgement. Its queries never need the
    session's pending changes (the mail's own columns), so nothing is flushed before
    them: the mail is written once, at the commit."""
    with ctx.s.no_autoflush:
        _read_moves(ctx, text)


def _read_moves(ctx: Incoming, text: str) -> None:
    s, cfg, mail, rm, now = ctx.s, ctx.cfg, ctx.mail, ctx.rm, ctx.now
    player, league = ctx.player, ctx.league
    game = get_game(league.game)
    lang = league_language(league.options)
    conn = s.connection()
    rnd = conn.execute(_OPEN_ROUND, {"league": league.id}).first()  # (number, zat) of the open round
    if rnd is None:
        ctx.record("ignored", "ignored", reason="league finished")
        return ctx.reply(tr(lang, "league_over", league=league.name))
    if player.joined_round > rnd.number:  # joined in a later round, which a rollback (ZURUECK) took back
        ctx.record("ignored", "submission", reason="joined later", round=rnd.number, joined=player.joined_round)
        return ctx.reply(tr(lang, "joined_later", league=league.name, round=rnd.number, joined=player.joined_round))
    if mail.received_at > rnd.zat:
        ctx.record("late", "submission", reason="after ZAT", zat=rnd.zat.isoformat())
        zat = nobreak(format_zat(rnd.zat, league.timezone, lang))  # the notice's wrap keeps the ZAT on one line
        if not game.turn_rounds:
            return ctx.reply(tr(lang, "late", round=rnd.number, zat=zat))
        turn = game.shown_number(rnd.number)  # a game of turns names the turn (issue 32)
        return ctx.reply(tr(lang, "late_turn", turn=turn, zat=zat) if turn else tr(lang, "late_opening", zat=zat))
    closed = closed_note(s, cfg, league, rnd)  # e.g. a Presto race two valid crosswords decided
    if closed:
        ctx.record("late", "submission", reason="round decided", round=rnd.number)
        return ctx.reply(render_text(closed, lang, Audience(viewer=str(player.id)), str(player.id)))
    delayed = _delayed_zat(conn, league.id, rnd.number, mail.received_at)
    all_partien = conn.execute(_PARTIEN, {"league": league.id}).all()  # rows: id, name, finished, state
    partien = {p.name: p for p in all_partien}
    active = {p.id for p in playing(league, all_partien)}
    read = read_submission(text, game, list(partien), subject=rm.subject, player_names=[player.name],
                           options=league.options)
    quoted = _drop_quoted(conn, read, text, league.id, [rm.from_addr, player.email], player.id, rm.in_reply_to)
    lexicon = league_lexicon(league, cfg)
    key = str(player.id)
    errors: list[str] = []
    if delayed is not None:  # came after the last ZAT, read only after its delayed adjudication
        errors.append(tr(lang, "after_delayed_zat", round=rnd.number - 1, next=rnd.number,
                         zat=format_zat(delayed, league.timezone, lang)))
    accepted: list[tuple[Partie, list[str], list]] = []
    readings: dict[int, list[tuple[str, str]]] = {}
    open_names = [p.name for p in all_partien if p.id in active]
    for sec in read.sections:
        if sec.partie is None and len(open_names) == 1:
            sec.partie = open_names[0]  # NOTATION.md: "or by the player having only one open Partie"
        part = partien.get(sec.partie) if sec.partie else None
        if part is None:
            if sec.partie is None:
                errors.append(tr(lang, "no_partie", first=next(iter(partien)), moves=", ".join(sec.moves)))
            else:
                errors.append(tr(lang, "unknown_partie", partie=sec.partie, league=league.name,
                                 names=", ".join(partien)))
            continue
        if not sec.moves:
            errors.append(tr(lang, "partie_note", name=part.name, why=tr(lang, "no_move_found")))
            continue
        why = _not_now(s, game, league, part, active, player, lang, format_zat(rnd.zat, league.timezone, lang))
        if why:
            errors.append(tr(lang, "partie_note", name=part.name, why=why))
            continue
        moves = ["\n".join(sec.moves)] if game.multiline else list(sec.moves)
        readings.setdefault(part.id, []).extend(sec.readings)  # ("ÖLE", "OELE"): shown in the ack
        accepted.append((part, moves, [None] if game.multiline else list(sec.parsed)))
    # a move with parts: the later mail replaces only the parts it contains (GameRules.merge_move)
    merged: list[str] = []
    parts = type(game).merge_move is not GameRules.merge_move  # False: a later mail replaces the whole move
    if accepted and parts:  # the default replaces: no query
        standing: dict[int, list[str]] = {}
        for pid, mtext in conn.execute(_STANDING, {"partien": [p.id for p, _, _ in accepted], "round": rnd.number,
                                                   "player": player.id}):
            standing.setdefault(pid, []).append(mtext)
        for k, (part, moves, parsed) in enumerate(accepted):
            if part.id in standing:
                now_moves = game.merge_move(standing[part.id], moves)
                if now_moves != moves:
                    accepted[k] = (part, now_moves, [None] * len(now_moves))
                    merged.append(part.name)
    # in bulk, with plain statements (no unit of work): the new submissions (one INSERT;
    # SQLite returns the ids of a multi-row INSERT in no guaranteed order, so each with its
    # Partie: one submission per Partie), their move lines (one executemany), the player's
    # earlier ones of these Partien superseded (one UPDATE, naming the Partien it hit)
    rows = [{"mail_id": mail.id, "partie_id": part.id, "round_number": rnd.number, "player_id": player.id,
             "created_at": now} for part, _, _ in accepted]
    if len({r["partie_id"] for r in rows}) == len(rows):
        new_ids = {pid: sid for sid, pid in conn.execute(_NEW_SUBMISSION, rows)} if rows else {}
        all_new = list(new_ids.values())
    else:  # a Partie named twice: the later section's row takes the move lines, as before
        all_new = [conn.execute(_NEW_SUBMISSION, r).scalar_one() for r in rows]
        new_ids = {r["partie_id"]: sid for r, sid in zip(rows, all_new)}
    lines = [{"submission_id": new_ids[part.id], "position": i, "text": t}
             for part, moves, _ in accepted for i, t in enumerate(moves)]
    if lines:
        conn.execute(_NEW_MOVES, lines)
    earlier: set[int] = set()  # the Partien whose earlier submission was replaced
    if all_new:
        earlier = set(conn.execute(_SUPERSEDE, {"partien": list(new_ids), "round": rnd.number, "player": player.id,
                                                "new": all_new, "newer": all_new}).scalars())
    sections, replaced = [], []
    for part, moves, parsed in accepted:
        if part.id in earlier and part.name not in merged:
            replaced.append(part.name)
        # the verdicts rendered for the mover, in their language (bot.games.verdict)
        reports = [render_move(game.check_read(part.state, t, m, lexicon, i, player=key).to_json(), lang,
                               Audience(viewer=key), key)
                   for i, (t, m) in enumerate(zip(moves, parsed))]
        situation = _situation(game, lang, part.state, game.player_view(part.state, key))
        sections.append({"partie": part.name, "situation": situation, "moves": reports, "error": None,
                         "readings": readings.get(part.id, [])})
    ctx.record("processed", "submission",
               sections=[{"partie": x["partie"], "moves": [m["text"] for m in x["moves"]]} for x in sections],
               errors=errors, ignored=read.ignored, quoted=quoted)
    refused = not sections and bool(errors)  # nothing stored: every Partie section was refused
    if not sections and not errors:
        errors.append(tr(lang, "unread_lines", lines=" | ".join(read.ignored[:8]) or tr(lang, "none")))
    text = render("ack.txt.j2", lang, player=player, league=league, round=rnd.number, sections=sections,
                  multiline=game.multiline, turns=game.turn_rounds, refused=refused, quoted=quoted,
                  merged=merged, parts=parts, points_rule=game.points_rule, replace_rule=game.replace_rule,
                  errors=errors, replaced=replaced, zat=format_zat(rnd.zat, league.timezone, lang))
    queue_mail(s, cfg, key=f"ack:{mail.id}", kind="ack", to=rm.from_addr, subject=ctx.reply_subject, text=text,
               league_id=league.id, round_number=rnd.number, in_reply_to=rm.message_id)



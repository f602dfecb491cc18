"""Mail in: store raw first, then read and acknowledge.

The raw bytes are stored first (:mod:`bot.service.stages.store`); ``process_mail`` reads a stored mail (its
headers: Message-ID, arrival time, a re-delivery of a mail read before; then MIME -> text
-> Partie sections -> moves), records the submission and queues the German
acknowledgement, all in one transaction; ``process_pending`` reads stored mails in order (after a poll pass,
and after a crash). Intake adjudicates nothing: the runner
(:func:`bot.service.operations.runner.read_stored`) puts a ZAT that has passed before the
mails that arrived after it. A mail whose reading fails stays stored with status ``error``; a
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

import logging
import traceback
from itertools import chain, islice
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterator, Sequence

from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.crash import crashpoint
from bot.i18n import texts
from bot.mail.auth import SenderAuth, mail_auth
from bot.mail.message import ReadMail, header_block, raw_headers, read_mail
from bot.service.conversations.moves import PLAIN, take_moves, write_submissions
from bot.service.conversations.quoted import remember
from bot.service.stages.readpool import pool_for
from bot.service.stages.outbox import FREE_KEYS, free_keys
from bot.service.stages.store import SAME_ID, identify, identify_stored, same_ids
from bot.storage.db import Database, OneTransaction, database_failure
from bot.service.conversations.registry import find_command
from bot.service.conversations.identity import check_code, take_code
from bot.service.conversations.bounces import handle_bounce
from bot.service.conversations.loops import (ANSWER_ADDRS, HOUR, REPEAT_KEYS, gate_answers, proven,
                                             repeat_key, repeat_keys)
from bot.service.conversations.mailctx import (DEFER, QUEUED_TO, SENDER_ROWS, UNWRITTEN, Incoming, batch_of,
                                               forget_batch)
from bot.service.conversations.senders import (AFTER_END_COMMANDS, OPEN_COMMANDS, SENDER, SENDERS, bad_code,
                                               claimed_player, failure, finished_player, former_player, game_master,
                                               game_over, gm_not_player, not_playing, registered, too_big, unreadable)
from bot.service.conversations.strangers import unknown_sender
from bot.storage.models import InboundMail, OutboxMail, PlayerAddress
from bot.service.conversations.routing import routed

log = logging.getLogger(__name__)


IDENTIFY_CHUNK = 500


def stored_mails(db: Database) -> list[int]:
    """The stored mails not yet read, in the order they were stored (the mails a poll pass
    has just stored, or left by a crash), their headers read first
    (:func:`identify_stored`, a chunk at a time, so each has its arrival time)."""
    with db.session() as s:
        ids = s.scalars(select(InboundMail.id).where(InboundMail.status == "stored").order_by(InboundMail.id)).all()
    for k in range(0, len(ids), IDENTIFY_CHUNK):
        identify_stored(db, ids[k:k + IDENTIFY_CHUNK])
    return list(ids)


def process_pending(db: Database, cfg: Config, now: datetime | None = None, *,
                    ids: Sequence[int] | None = None) -> int:
    """Read the stored mails ``ids`` (default: every one, :func:`stored_mails`) in that
    order, :data:`READ_BATCH` at a time in one transaction each (:func:`read_batch`: a
    mail whose reading fails is rolled back alone and recorded; a crash before a batch's
    commit leaves it stored, read again, answered once; crash point ``after-read`` after
    each batch's commit). The mails were stored, and committed, before. The MIME front
    of reading (:func:`~bot.mail.message.read_mail`) is done ahead in worker processes
    for a batch (``[bot] read_workers``, :mod:`bot.service.stages.readpool`).
    Adjudicates nothing: a ZAT that passed before a mail arrived is put before it by the
    runner (:func:`bot.service.operations.runner.read_stored`). Returns how many."""
    if ids is None:
        ids = stored_mails(db)
    ids = list(ids)
    if not ids:
        return 0
    reads = iter(pool_for(cfg.read_workers).read(db, ids))
    with OneTransaction(db.url) as rdb:
        for k in range(0, len(ids), READ_BATCH):
            chunk = ids[k:k + READ_BATCH]
            read_batch(rdb, cfg, chunk, islice(reads, len(chunk)), now)
            rdb.commit()  # the batch read: a crash before this reads it all again, answered once
            crashpoint("after-read")
    return len(ids)



#: Mails read in one transaction (:func:`read_batch`) by :func:`process_pending`.
READ_BATCH = 200


def outbox_top(db) -> int:
    """The highest outbox id committed (or, in a :class:`OneTransaction`, written in it:
    asked on its driver connection directly, once a mail, without the statement machinery
    around it)."""
    if isinstance(db, OneTransaction):
        cur = db.conn.connection.cursor()
        try:
            cur.execute("SELECT max(id) FROM outbox")
            return cur.fetchone()[0] or 0
        finally:
            cur.close()
    with db.engine.connect() as conn:
        return conn.execute(select(func.max(OutboxMail.id))).scalar() or 0


def read_pass(rdb: OneTransaction, cfg: Config, todo: list[int], reads, seen: list, now: datetime | None, *,
          savepoints: bool) -> dict[int, tuple[int, int]]:
    """Read the batch's mails ``todo`` (``reads``: ``(id, ReadMail or None)`` each, in
    order, appended to ``seen`` as they are taken) in ``rdb``'s open transaction; returns
    each mail's outbox ids ``(above, up to)``, those queued while it was read.

    With ``savepoints`` each mail is read in a savepoint of its own (a mail whose reading
    fails is rolled back alone and recorded, :func:`process_mail`); without, the mails
    are read one after the other in the one transaction, and the first failure raises:
    the caller rolls the pass back and reads the batch again with savepoints
    (:func:`read_batch`: mails rarely fail; the savepoints cost two statements and their
    bookkeeping a mail). The batch's shared lookups are read first: its mails (loaded at
    once), the running leagues' players by address when there are at most two addresses
    a mail (:data:`SENDER_ROWS`; else each sender is asked for), the re-delivery check (:func:`~bot.service.stages.store.same_ids`), the
    outbox keys of their acknowledgements (:func:`~bot.service.stages.outbox.free_keys`)
    and the repeat keys of the hour before (:func:`~bot.service.conversations.loops.repeat_keys`,
    each mail's own added once it is read)."""
    rdb.savepoints = savepoints
    with rdb.session() as s:  # the batch's mails, loaded at once (process_mail finds them loaded)
        mails = s.scalars(select(InboundMail).where(InboundMail.id.in_(todo))).all()
        senders = s.execute(SENDERS.limit(2 * len(todo) + 1)).all() if todo else []
        if len(senders) > 2 * len(todo):  # many players: asked a sender at a time
            senders = []
        else:  # few: every running league's players once, by address
            rdb.batch[SENDER_ROWS] = by_addr = {}
            for row in senders:
                by_addr.setdefault(row[2].email, []).append(row)
            rdb.batch[ANSWER_ADDRS] = {a.lower() for a in by_addr}  # their answers counted in memory (gate_answers)
        rdb.hold([*mails, *(o for row in senders for o in row)])
    rdb.batch[SAME_ID] = same_ids(rdb.conn, todo)  # the re-delivery check of every mail, in one statement
    rdb.batch[FREE_KEYS] = free_keys(rdb.conn, cfg, [f"ack:{mid}" for mid in todo])  # their acknowledgements' keys
    if mails:  # the repeat keys of the hour before the batch's earliest mail (answered_repeat)
        rdb.batch[REPEAT_KEYS] = repeat_keys(rdb.conn, min(m.received_at for m in mails) - HOUR)
    tops: dict[int, tuple[int, int]] = {}
    top = outbox_top(rdb)
    if savepoints:
        for mid, rm in reads:
            seen.append((mid, rm))
            process_mail(rdb, cfg, mid, now, read=rm)
            after = outbox_top(rdb)
            tops[mid], top = (top, after), after
        return tops
    done: list[tuple[int, list]] = []  # without savepoints: each mail's rows, written with the batch
    for mid, rm in reads:
        seen.append((mid, rm))
        later: list = []
        process_mail(rdb, cfg, mid, now, read=rm, later=later)
        done.append((mid, later))
    with rdb.session() as s:  # the batch's submissions (moves.write_submissions), then
        write_submissions(s)
    rdb.flush()  # the batch's UPDATEs and INSERTs, one executemany each where the ORM can
    plain = []
    for mid, later in done:  # the outbox ids are given in the order the rows were queued
        queued, texts = later[0] if later else ([], [])
        after = max([top, *(row.id for row in queued)])
        tops[mid], top = (top, after), after
        plain += texts
    if plain:  # a later reply quoting them is compared without parsing their bytes
        remember(str(rdb.engine.url), [(row.id, row.message_id, text) for row, text in plain])
    return tops


def read_batch(rdb: OneTransaction, cfg: Config, ids: list[int], reads, now: datetime | None) -> dict[int, tuple[int, int]]:
    """Read the stored mails ``ids`` (``reads``: ``(id, ReadMail or None)`` each, in
    order) in ONE transaction of ``rdb``, opened here and left open for the caller to
    commit: first without savepoints (:func:`read_pass`); should a mail fail, that pass
    is rolled back and the batch read again with a savepoint a mail, so the failed mail
    is rolled back alone and recorded (:func:`process_mail`), the others read as usual.
    Returns :func:`read_pass`' outbox ids a mail."""
    seen: list = []  # what the reading workers gave, kept for the second pass
    pending = iter(reads)
    rdb.begin()
    try:
        return read_pass(rdb, cfg, ids, pending, seen, now, savepoints=False)
    except Exception as exc:
        failure = database_failure(exc, rdb.url)
        if failure is not None:  # the database went away: the batch stays stored, read once it is back
            try:
                rdb.rollback()
            except Exception:  # the connection is gone with it
                log.debug("Zurückrollen des Stapels gescheitert", exc_info=True)
            if failure is exc:
                raise
            raise failure from exc
        log.info("Eine Mail des Stapels scheiterte beim Lesen: der Stapel wird mit Sicherungspunkten neu gelesen")
        rdb.rollback()
    rdb.begin()
    return read_pass(rdb, cfg, ids, chain(list(seen), pending), [], now, savepoints=True)


def arrivals(db: Database, ids: Sequence[int]) -> dict[int, datetime]:
    """The arrival time (``received_at``, read by :func:`identify_stored`) of each of ``ids``."""
    t = InboundMail.__table__
    out: dict[int, datetime] = {}
    with db.engine.connect() as conn:
        for k in range(0, len(ids), IDENTIFY_CHUNK):
            out.update(conn.execute(select(t.c.id, t.c.received_at).where(t.c.id.in_(ids[k:k + IDENTIFY_CHUNK]))).all())
    return {i: (at if at.tzinfo else at.replace(tzinfo=timezone.utc)) for i, at in out.items()}


def process_mail(db: Database, cfg: Config, mail_id: int, now: datetime | None = None, *,
                 read: ReadMail | None = None, later: list | None = None) -> str:
    """Read stored mail ``mail_id`` and act on it; returns its new status. ``read``: the
    mail's :func:`~bot.mail.message.read_mail`, when a worker has read it already. A
    failure while reading is recorded on the mail (status ``error``, the GM told); the
    database going away raises :class:`~bot.storage.db.DatabaseUnavailable` instead (the
    mail stays ``stored`` and is read once it is back).

    ``later`` (a batch read without savepoints, :func:`read_pass`): the mail's changes
    are not flushed here but with the batch's (or by the first query that needs them);
    ``(outbox rows queued, [(acknowledgement row, plain text)])`` is appended to it, for
    the caller to take their ids and remember their lines once flushed."""
    now = now or datetime.now(timezone.utc)
    plain: list[tuple[OutboxMail, str]] = []
    try:
        with db.session() as s:
            mail = s.get(InboundMail, mail_id)
            if mail is None or mail.status != "stored":
                return mail.status if mail else "missing"
            batch = batch_of(s)
            s.info[DEFER] = later is not None  # its submissions held for the batch's one write (moves)
            first = identify(s, mail, known=batch.get(SAME_ID) if batch is not None else None)
            if first is not None:  # a re-delivery: read once, answered once
                mail.status, mail.kind = "ignored", "ignored"
                mail.parse = {"reason": f"duplicate of mail {first}", "duplicate_of": first}
                return mail.status
            with _answers(s) as queued:
                _process(s, cfg, mail, now, read)
                for row in queued:  # the reading time (gate_answers), written with the INSERT
                    row.created_at = now
                if later is None:
                    s.flush()
                gate_answers(s.info.pop("incoming"), queued)
            keys = batch.get(REPEAT_KEYS) if batch is not None else None
            if keys is not None and mail.repeat_key:  # a later mail of the batch may repeat it
                keys.add(mail.repeat_key)
            plain = s.info.pop(PLAIN, [])
            status = mail.status
            if later is not None:  # written with the batch: the quoted-block check asks for them first
                if queued and batch is not None:
                    unwritten = batch.setdefault(UNWRITTEN, set())
                    unwritten.update(("a", row.to_addr.lower()) for row in queued)
                    unwritten.add(("p", mail.player_id))
                    to = batch.setdefault(QUEUED_TO, {})  # the quoted-block check's memory adds them
                    for row in queued:
                        to.setdefault((row.league_id, row.to_addr.lower()), []).append(row)
                later.append((list(queued), plain))
                plain = []
        if plain:  # committed: a later reply quoting them is compared without parsing their bytes
            remember(str(db.engine.url), [(row.id, row.message_id, text) for row, text in plain])
        return status
    except Exception as exc:  # keep the mail, record why, never lose it
        failure = database_failure(exc, db.url)
        if failure is not None:  # the database went away: still stored, read again once it is back
            raise failure from exc
        if getattr(db, "savepoints", True) is False:  # a batch read without savepoints: it is read again
            raise
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
                    _auth(rm, mail.raw, cfg).failed or not registered(ctx):
                return
            with _answers(s) as queued:
                ctx.reply(texts(ctx.lang).gettext(
                    "deine Mail konnte ich nicht lesen: beim Lesen ist ein Fehler aufgetreten. Sie wurde nicht "
                    "gewertet und hat nichts verändert; sie bleibt für den Spielleiter gespeichert, der Bescheid "
                    "bekommt. Bitte schick deine Züge noch einmal als einfache Textmail."))
                s.flush()
                gate_answers(ctx, queued)
    except Exception:
        log.exception("Antwort an den Absender der Mail %s gescheitert", mail_id)


def _auth(rm: ReadMail, raw: bytes, cfg: Config) -> SenderAuth:
    """The verdict on the sender of ``rm`` (:func:`bot.mail.auth.mail_auth`): its From
    field doubtful, or our server's ``Authentication-Results`` (read only with
    ``[bot] authserv_id``)."""
    return mail_auth(rm, lambda: raw_headers(raw), cfg.authserv_id)


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
        return too_big(ctx, auth)
    if rm.unreadable:
        return unreadable(ctx, auth)
    code, text = take_code(rm.new_text)
    found = find_command(rm.subject, text)
    if found:  # a command may change what the batch's shared lookups hold (rounds, Partien)
        write_submissions(s)  # and may read the submissions: the batch's held ones written first
        forget_batch(s)
    if found and found[0].gm:
        if found[0].handler(ctx, found[1]) is not False:  # False: a player's mail after all
            return
        found = None
    known = (batch_of(s) or {}).get(SENDER_ROWS)
    if known is not None:  # the batch's senders, read once (read_pass)
        rows = known.get(rm.from_addr, [])
    else:
        with s.no_autoflush:  # nothing pending matters here; the mail's columns are written once, at the end
            # the sender's address row too (a bouncing address works again when its owner writes)
            rows = s.execute(SENDER, {"addr": rm.from_addr}).all()
    if not rows:
        if auth.failed and auth.ambiguous and claimed_player(ctx):  # it claimed a player's address
            return bad_code(ctx, None, auth)  # (a code in it is not the stranger's to use)
        if auth.failed:  # a forged stranger: answering would only reach the forged address
            return ctx.record("ignored", "ignored", reason=f"sender {failure(auth)}: {auth.reason}")
        if found and not found[0].needs_player:
            return found[0].handler(ctx, found[1])
        if finished_player(ctx):
            if found and found[0].name in AFTER_END_COMMANDS:
                return found[0].handler(ctx, found[1])
            return game_over(ctx)
        if former_player(ctx):
            if found and found[0].name in AFTER_END_COMMANDS:
                return found[0].handler(ctx, found[1])
            return not_playing(ctx)
        if game_master(ctx):
            if found and found[0].name in OPEN_COMMANDS:
                return found[0].handler(ctx, found[1])
            return gm_not_player(ctx, found[0].name if found else None)
        return unknown_sender(ctx, text)
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
        return bad_code(ctx, code, auth)
    if proved:
        proven(ctx, f"player:{ctx.player.id}")
    if sent_from.bounced_at is not None:  # writing from a bouncing address: it works again
        sent_from.bounced_at = sent_from.bounce_reason = None
        ctx.s.flush()  # written now: the quoted-block check reads the addresses on the connection
    if found:
        return found[0].handler(ctx, found[1])
    take_moves(ctx, text)

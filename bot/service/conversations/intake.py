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

from sqlalchemy import bindparam, event, func, select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.crash import crashpoint
from bot.games import get_game
from bot.i18n import gm_language, texts, tr, unreadable_reason
from bot.mail.auth import SenderAuth, mail_auth
from bot.mail.message import ReadMail, header_block, raw_headers, read_mail
from bot.service.conversations.moves import PLAIN, take_moves
from bot.service.conversations.quoted import remember
from bot.service.stages.readpool import pool_for
from bot.service.stages.outbox import FREE_KEYS, free_keys
from bot.service.stages.store import SAME_ID, identify, identify_stored, same_ids
from bot.storage.db import Database, OneTransaction, database_failure
from bot.service.conversations.commands import standings_text
from bot.service.conversations.registry import find_command
from bot.service.conversations.identity import check_code, take_code
from bot.service.conversations.loops import (HOUR, REPEAT_KEYS, auth_failure, gate_answers, handle_bounce, proven,
                                             repeat_key, repeat_keys)
from bot.service.conversations.mailctx import Incoming, batch_of, forget_batch
from bot.service.conversations.strangers import unknown_sender
from bot.storage.models import (InboundMail, League, OutboxMail, Player, PlayerAddress)
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
    once), the re-delivery check (:func:`~bot.service.stages.store.same_ids`), the
    outbox keys of their acknowledgements (:func:`~bot.service.stages.outbox.free_keys`)
    and the repeat keys of the hour before (:func:`~bot.service.conversations.loops.repeat_keys`,
    each mail's own added once it is read)."""
    rdb.savepoints = savepoints
    with rdb.session() as s:  # the batch's mails, loaded at once (process_mail finds them loaded)
        mails = s.scalars(select(InboundMail).where(InboundMail.id.in_(todo))).all()
        rdb.hold(mails)
    rdb.batch[SAME_ID] = same_ids(rdb.conn, todo)  # the re-delivery check of every mail, in one statement
    rdb.batch[FREE_KEYS] = free_keys(rdb.conn, cfg, [f"ack:{mid}" for mid in todo])  # their acknowledgements' keys
    if mails:  # the repeat keys of the hour before the batch's earliest mail (answered_repeat)
        rdb.batch[REPEAT_KEYS] = repeat_keys(rdb.conn, min(m.received_at for m in mails) - HOUR)
    tops: dict[int, tuple[int, int]] = {}
    top = outbox_top(rdb)
    for mid, rm in reads:
        seen.append((mid, rm))
        process_mail(rdb, cfg, mid, now, read=rm)
        after = outbox_top(rdb)
        tops[mid], top = (top, after), after
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
                 read: ReadMail | None = None) -> str:
    """Read stored mail ``mail_id`` and act on it; returns its new status. ``read``: the
    mail's :func:`~bot.mail.message.read_mail`, when a worker has read it already. A
    failure while reading is recorded on the mail (status ``error``, the GM told); the
    database going away raises :class:`~bot.storage.db.DatabaseUnavailable` instead (the
    mail stays ``stored`` and is read once it is back)."""
    now = now or datetime.now(timezone.utc)
    plain: list[tuple[OutboxMail, str]] = []
    try:
        with db.session() as s:
            mail = s.get(InboundMail, mail_id)
            if mail is None or mail.status != "stored":
                return mail.status if mail else "missing"
            batch = batch_of(s)
            first = identify(s, mail, known=batch.get(SAME_ID) if batch is not None else None)
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
            keys = batch.get(REPEAT_KEYS) if batch is not None else None
            if keys is not None and mail.repeat_key:  # a later mail of the batch may repeat it
                keys.add(mail.repeat_key)
            plain = s.info.pop(PLAIN, [])
            status = mail.status
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
                    _auth(rm, mail.raw, cfg).failed or not _registered(ctx):
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
    if found:  # a command may change what the batch's shared lookups hold (rounds, Partien)
        forget_batch(s)
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
    take_moves(ctx, text)


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

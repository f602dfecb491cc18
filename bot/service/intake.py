"""Mail in: store raw first, then read and acknowledge.

``store_raw`` (and ``store_raw_many`` for a transport's batch, through :class:`RawStore`)
commits the raw bytes before anything else; ``process_mail`` reads a stored mail (MIME
-> text -> Partie sections -> moves), records the submission and queues the German
acknowledgement, all in one transaction; ``process_pending`` reads every stored mail in
order (after a poll pass, and after a crash). A mail whose reading fails stays stored
with status ``error`` and is retried by ``process_pending``.
"""

from __future__ import annotations

import hashlib
import logging
import re
import traceback
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from email.parser import BytesHeaderParser
from email import policy
from typing import Sequence

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from bot.config import Config
from bot.crash import crashpoint
from bot.games import get_game
from bot.mail.message import read_mail
from bot.render import format_zat, render
from bot.service.league import league_lexicon, open_round
from bot.service.rounds import playing
from bot.service.outbox import queue_mail
from bot.storage.db import Database
from bot.service.commands import find_command
from bot.service.identity import check_code, take_code
from bot.service.loops import handle_bounce, over_rate_limit
from bot.service.mailctx import Incoming
from bot.storage.models import InboundMail, League, Partie, Player, PlayerAddress, Submission, SubmissionMove
from bot.submission import read_submission

log = logging.getLogger(__name__)


_BLANK_LINE = re.compile(rb"\r?\n\r?\n")


def _headers(raw: bytes):
    """The raw mail's headers (lenient compat32 parse of the header block only), or None if
    they cannot be read."""
    end = _BLANK_LINE.search(raw)
    try:
        return BytesHeaderParser(policy=policy.compat32).parsebytes(raw[:end.end()] if end else raw,
                                                                   headersonly=True)
    except Exception:
        return None


def _mid_of(hdr) -> str | None:
    mid = hdr.get("Message-ID") if hdr is not None else None
    return (str(mid).strip() or None) if mid else None


def _message_id(raw: bytes) -> str | None:
    """The Message-ID a stored mail is deduplicated by, or None."""
    return _mid_of(_headers(raw))


def store_raw(db: Database, raw: bytes, *, source: str, uidvalidity: int | None = None,
              uid: int | None = None) -> tuple[int, bool]:
    """Store a received mail unchanged and commit; returns ``(mail id, newly stored)``.
    A mail already stored (same bytes, or same Message-ID) is not stored twice."""
    return store_raw_many(db, [RawMail(raw, source, uidvalidity, uid)])[0]


@dataclass(frozen=True)
class RawMail:
    """One received mail as a transport hands it over: the bytes, ``source``
    (``imap:INBOX``, ``maildir``, ``ingest``) and the IMAP coordinates (or None)."""

    raw: bytes
    source: str
    uidvalidity: int | None = None
    uid: int | None = None


def store_raw_many(db: Database, mails: Sequence[RawMail]) -> list[tuple[int, bool]]:
    """Store received mails unchanged, in order, in one transaction, and commit; returns
    ``(mail id, newly stored)`` for each. A mail already stored (same bytes, or same
    Message-ID; also earlier in ``mails``) is not stored twice. Four statements for the
    whole batch: the known hashes, the known Message-IDs, one INSERT of the new mails (an
    executemany) and their ids."""
    prepared = []
    for m in mails:
        hdr = _headers(m.raw)
        prepared.append((m, hashlib.sha256(m.raw).hexdigest(), _mid_of(hdr), arrival_time(m.raw, headers=hdr)))
    if not prepared:
        return []
    t = InboundMail.__table__
    with db.session() as s:
        by_sha = dict(s.execute(select(t.c.sha256, t.c.id).where(t.c.sha256.in_({p[1] for p in prepared}))).all())
        by_mid: dict[str, int] = {}
        mids = {p[2] for p in prepared if p[2]}
        if mids:
            for mid, i in s.execute(select(t.c.message_id, t.c.id).where(t.c.message_id.in_(mids))
                                    .order_by(t.c.id)).all():
                by_mid.setdefault(mid, i)
        # per mail: the id of the stored mail it repeats, or the hash of the new row that
        # holds it (its own, or an earlier one's in this batch)
        found: list[int | str] = []
        rows: list[dict] = []
        batch_mid: dict[str, str] = {}
        batch_sha: set[str] = set()
        for m, sha, mid, at in prepared:
            if sha in by_sha:
                found.append(by_sha[sha])
            elif mid and mid in by_mid:
                found.append(by_mid[mid])
            elif sha in batch_sha:
                found.append(sha)
            elif mid and mid in batch_mid:
                found.append(batch_mid[mid])
            else:
                found.append(sha)
                batch_sha.add(sha)
                if mid:
                    batch_mid[mid] = sha
                rows.append({"source": m.source, "uidvalidity": m.uidvalidity, "uid": m.uid, "message_id": mid,
                             "sha256": sha, "raw": m.raw, "received_at": at, "status": "stored"})
        new_ids: dict[str, int] = {}
        if rows:
            s.execute(insert(t), rows)
            new_ids = dict(s.execute(select(t.c.sha256, t.c.id).where(t.c.sha256.in_(batch_sha))).all())
    out, first = [], set()
    for f in found:
        if isinstance(f, int):
            out.append((f, False))
        else:
            out.append((new_ids[f], f not in first))
            first.add(f)
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


def process_pending(db: Database, cfg: Config, now: datetime | None = None) -> int:
    """Read every stored mail not yet read, in the order they were stored (the mails a
    poll pass has just stored, or left by a crash); each in its own transaction.
    Returns how many."""
    with db.session() as s:
        ids = s.scalars(select(InboundMail.id).where(InboundMail.status == "stored").order_by(InboundMail.id)).all()
    for mid in ids:
        process_mail(db, cfg, mid, now)
        crashpoint("after-read")
    return len(ids)


class RawStore:
    """The store callback a transport hands its mails to (:class:`~bot.mail.transport.
    StoreCallback`): each mail is taken into the current batch; :meth:`sync` stores the
    batch raw in one transaction (:func:`store_raw_many`) and makes it durable
    (:meth:`Database.sync`). The transport calls it (``sync_store``) before it moves the
    batch off the server, so a crash before leaves the mails on the server, to be fetched
    and stored again; a batch longer than :attr:`limit` mails or :attr:`limit_bytes` is
    stored at once. The stored mails are read afterwards by :func:`process_pending`, so a
    poll pass costs the mail server no more than fetching, storing and moving."""

    limit = 200
    limit_bytes = 32 * 1024 * 1024

    def __init__(self, db: Database, source: str) -> None:
        self.db, self.source = db, source
        self.pending: list[RawMail] = []
        self.size = 0
        self.stored = 0

    def __call__(self, raw: bytes, *, source: str | None = None, uidvalidity: int | None = None,
                 uid: int | None = None) -> bool:
        self.pending.append(RawMail(bytes(raw), source or self.source, uidvalidity, uid))
        self.size += len(raw)
        if len(self.pending) >= self.limit or self.size >= self.limit_bytes:
            self._store()
        return True

    def _store(self) -> None:
        if self.pending:
            done = store_raw_many(self.db, self.pending)
            self.stored += sum(1 for _, new in done if new)
            self.pending, self.size = [], 0
            crashpoint("after-store")

    def sync(self) -> None:
        """Store the batch (committed) and make every stored mail durable."""
        self._store()
        self.db.sync()


def make_store(db: Database, cfg: Config, source: str) -> RawStore:
    """The store callback for a transport (:class:`RawStore`)."""
    return RawStore(db, source)


def process_mail(db: Database, cfg: Config, mail_id: int, now: datetime | None = None) -> str:
    """Read stored mail ``mail_id`` and act on it; returns its new status."""
    now = now or datetime.now(timezone.utc)
    try:
        with db.session() as s:
            mail = s.get(InboundMail, mail_id)
            if mail is None or mail.status != "stored":
                return mail.status if mail else "missing"
            _process(s, cfg, mail, now)
            return mail.status
    except Exception as exc:  # keep the mail, record why, never lose it
        log.exception("reading mail %s failed", mail_id)
        with db.session() as s:
            mail = s.get(InboundMail, mail_id)
            if mail is not None:
                mail.status = "error"
                mail.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
        return "error"


def _process(s: Session, cfg: Config, mail: InboundMail, now: datetime) -> None:
    rm = read_mail(mail.raw)
    mail.from_addr = rm.from_addr or None
    mail.subject = rm.subject
    ctx = Incoming(s, cfg, mail, rm, now)
    if handle_bounce(ctx):  # bounces: flagged for the GM, never answered
        return
    if rm.auto:
        return ctx.record("ignored", "ignored", reason=f"auto: {rm.auto}")
    if not rm.from_addr or rm.from_addr == cfg.sender_addr.lower():
        return ctx.record("ignored", "ignored", reason="own mail or no sender")
    if over_rate_limit(ctx):  # stored, not answered: no mail loop
        return
    code, text = take_code(rm.new_text)
    found = find_command(rm.subject, text)
    if found and found[0].gm:
        if found[0].handler(ctx, found[1]) is not False:  # False: a player's mail after all
            return
        found = None
    rows = s.execute(select(Player, League).join(PlayerAddress, PlayerAddress.player_id == Player.id)
                     .join(League, League.id == Player.league_id)
                     .where(PlayerAddress.email == rm.from_addr, League.status == "running", Player.active)).all()
    if not rows:
        if found and not found[0].needs_player:
            return found[0].handler(ctx, found[1])
        return _unknown_sender(ctx, text)
    if len(rows) > 1:
        subj = rm.subject.lower()
        rows = [r for r in rows if r[1].name.lower() in subj]
        if len(rows) != 1:
            ctx.record("ignored", "ignored", reason="several leagues")
            return ctx.reply("du spielst in mehreren Ligen: bitte den Namen der Liga in den Betreff schreiben.")
    ctx.player, ctx.league = rows[0]
    mail.player_id, mail.league_id = ctx.player.id, ctx.league.id
    if found and found[0].name in OPEN_COMMANDS:
        return found[0].handler(ctx, found[1])
    if ctx.league.require_code and not check_code(code, ctx.player.code_hash):
        return _bad_code(ctx, code)
    if found:
        return found[0].handler(ctx, found[1])
    _submission(ctx, text)


#: Commands that need no personal code (they change nothing).
OPEN_COMMANDS = {"HILFE", "STAND"}


def _unknown_sender(ctx: Incoming, text: str) -> None:
    """A mail from an address no running league knows changes nothing; the sender is told,
    and so is every player the mail names (by full name), at their registered address."""
    ctx.record("ignored", "ignored", reason="unknown sender")
    ctx.reply("diese Adresse ist bei keiner laufenden Liga angemeldet; deine Mail wurde nicht als Zug "
              "gewertet. Bitte schreib von deiner angemeldeten Adresse oder melde dich beim Spielleiter.")
    hay = f"{ctx.rm.subject}\n{text}".lower()
    named = [p for p in ctx.s.scalars(select(Player).join(League).where(League.status == "running", Player.active))
             if len(p.name) >= 4 and p.name.lower() in hay]
    for p in named:
        ctx.mail.flagged = f"unknown sender {ctx.rm.from_addr} named player {p.name}"
        ctx.reply(f"von der unbekannten Adresse {ctx.rm.from_addr} kam eine Mail, die dich nennt. Sie wurde "
                  "nicht gewertet und hat nichts verändert. Warst du das nicht, musst du nichts tun.",
                  to=p.email, subject=f"{ctx.league.name if ctx.league else 'Spielleiter'}: Hinweis", name=p.name)


def _bad_code(ctx: Incoming, code: str | None) -> None:
    """A submission without the right personal code changes nothing. The answer goes to
    the registered address (the first one), which is the real player even when the
    sender address was forged; the code is never echoed."""
    ctx.record("rejected", "submission", reason="code missing" if not code else "code wrong")
    ctx.mail.flagged = "personal code missing" if not code else "personal code wrong"
    what = "ohne deinen persönlichen Code" if not code else "mit einem falschen Code"
    ctx.reply(f"eine Mail von {ctx.rm.from_addr} kam {what} und wurde nicht gewertet; nichts wurde "
              "verändert. Bitte schreib deinen Code in eine eigene Zeile: 'Code: ...'. Warst du das nicht, "
              "melde dich beim Spielleiter.", to=ctx.player.email)


def _not_now(s: Session, game, league: League, partie: Partie, active: set[int], player: Player) -> str | None:
    """Why ``player`` cannot send moves for ``partie`` now (German), or None: the Partie
    is over, waits for the one before it (league option ``sequential``), or it is another
    player's turn (:meth:`GameRules.movers`)."""
    if partie.finished:
        return "diese Partie ist beendet."
    if partie.id not in active:
        return "diese Partie beginnt erst, wenn die Partie davor beendet ist."
    movers = game.movers(partie.state)
    if movers is not None and str(player.id) not in movers:
        names = [p.name for p in league.players if str(p.id) in movers]
        who = f" Am Zug: {', '.join(names)}." if names else ""
        return f"du bist in dieser Runde nicht am Zug; dein Zug wurde nicht gespeichert.{who}"
    return None


# The statements of every submission, built once (building a statement and its cache key
# costs more than running it on SQLite) and run on the session's connection (plain rows;
# nothing of the session needs flushing for them).
_PARTIEN = (select(Partie.id, Partie.name, Partie.finished, Partie.state)
            .where(Partie.league_id == bindparam("league")).order_by(Partie.id))
_EARLIER = (select(Submission.id, Submission.partie_id)
            .where(Submission.partie_id.in_(bindparam("partien", expanding=True)),
                   Submission.round_number == bindparam("round"), Submission.player_id == bindparam("player"),
                   Submission.superseded_by.is_(None)).order_by(Submission.id))
_SUBMISSIONS = Submission.__table__
_NEW_SUBMISSION = insert(_SUBMISSIONS).returning(_SUBMISSIONS.c.id)
_NEW_MOVES = insert(SubmissionMove.__table__)
_SUPERSEDE = (update(_SUBMISSIONS).where(_SUBMISSIONS.c.id == bindparam("old"))
              .values(superseded_by=bindparam("new")))


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
    rnd = open_round(s, league)
    if rnd is None:
        ctx.record("ignored", "ignored", reason="league finished")
        return ctx.reply(f"die Liga {league.name} ist beendet.")
    if mail.received_at > rnd.zat:
        ctx.record("late", "submission", reason="after ZAT", zat=rnd.zat.isoformat())
        return ctx.reply(f"deine Mail kam nach dem ZAT der Runde {rnd.number} "
                         f"({format_zat(rnd.zat, league.timezone)}) und wird nicht mehr gewertet. "
                         "Sie bleibt für den Spielleiter gespeichert.")
    conn = s.connection()
    all_partien = conn.execute(_PARTIEN, {"league": league.id}).all()  # rows: id, name, finished, state
    partien = {p.name: p for p in all_partien}
    active = {p.id for p in playing(league, all_partien)}
    read = read_submission(text, game, list(partien), subject=rm.subject, player_names=[player.name])
    lexicon = league_lexicon(league, cfg)
    key = str(player.id)
    errors: list[str] = []
    accepted: list[tuple[Partie, list[str], list]] = []
    for sec in read.sections:
        part = partien.get(sec.partie) if sec.partie else None
        if part is None:
            if sec.partie is None:
                errors.append("Für diese Züge ist keine Partie angegeben: bitte 'Partie "
                              f"{next(iter(partien))}:' o. ä. davor schreiben ({', '.join(sec.moves)}).")
            else:
                errors.append(f"Eine Partie {sec.partie} gibt es in {league.name} nicht "
                              f"(Partien: {', '.join(partien)}).")
            continue
        if not sec.moves:
            errors.append(f"Partie {part.name}: kein Zug gefunden.")
            continue
        why = _not_now(s, game, league, part, active, player)
        if why:
            errors.append(f"Partie {part.name}: {why}")
            continue
        moves = ["\n".join(sec.moves)] if game.multiline else list(sec.moves)
        accepted.append((part, moves, [None] if game.multiline else list(sec.parsed)))
    # in bulk: the player's earlier submissions of these Partien (one query), the new ones
    # (one flush), the earlier ones superseded (one UPDATE)
    earlier: dict[int, list[int]] = {}
    if accepted:
        for sid, pid in conn.execute(_EARLIER, {"partien": [part.id for part, _, _ in accepted],
                                             "round": rnd.number, "player": player.id}):
            earlier.setdefault(pid, []).append(sid)
    # plain INSERTs (no unit of work): SQLite returns the ids of a multi-row INSERT in no
    # guaranteed order, so one statement per Partie, and the move lines in one executemany
    new_ids = {part.id: conn.execute(_NEW_SUBMISSION, {"mail_id": mail.id, "partie_id": part.id,
                                                    "round_number": rnd.number, "player_id": player.id,
                                                    "created_at": now}).scalar_one()
               for part, _, _ in accepted}
    lines = [{"submission_id": new_ids[part.id], "position": i, "text": t}
             for part, moves, _ in accepted for i, t in enumerate(moves)]
    if lines:
        conn.execute(_NEW_MOVES, lines)
    superseded = [{"old": e, "new": new_ids[pid]} for pid, olds in earlier.items() for e in olds]
    if superseded:
        conn.execute(_SUPERSEDE, superseded)
    sections, replaced = [], []
    for part, moves, parsed in accepted:
        if earlier.get(part.id):
            replaced.append(f"Partie {part.name}")
        view = game.public_view(part.state)
        reports = [game.check_read(part.state, t, m, lexicon, i, player=key)
                   for i, (t, m) in enumerate(zip(moves, parsed))]
        situation = render(f"{game.name}/situation.txt.j2", mine=game.player_view(part.state, key), **view).strip()
        sections.append({"partie": part.name, "situation": situation, "moves": reports, "error": None})
    ctx.record("processed", "submission",
               sections=[{"partie": x["partie"], "moves": [m.text for m in x["moves"]]} for x in sections],
               errors=errors, ignored=read.ignored)
    if not sections and not errors:
        errors.append("Zeilen, die ich nicht als Zug lesen konnte: " + (" | ".join(read.ignored[:8]) or "keine")
                      + ". Hilfe zur Notation steht in der Startmail und im README.")
    text = render("ack.txt.j2", player=player, league=league, round=rnd.number, sections=sections,
                  errors=errors, replaced=replaced, zat=format_zat(rnd.zat, league.timezone))
    queue_mail(s, cfg, key=f"ack:{mail.id}", kind="ack", to=rm.from_addr, subject=ctx.reply_subject, text=text,
               league_id=league.id, round_number=rnd.number, in_reply_to=rm.message_id)



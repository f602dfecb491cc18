"""Mail in: store raw first, then read and acknowledge.

``store_raw`` commits the raw bytes before anything else; ``process_mail`` reads a
stored mail (MIME -> text -> Partie sections -> moves), records the submission and
queues the German acknowledgement, all in one transaction. A mail whose reading
fails stays stored with status ``error`` and is retried by ``process_pending``.
"""

from __future__ import annotations

import hashlib
import logging
import traceback
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from email.parser import BytesHeaderParser
from email import policy

from sqlalchemy import insert, select, update
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


def _headers(raw: bytes):
    """The raw mail's headers (lenient compat32 parse), or None if they cannot be read."""
    try:
        return BytesHeaderParser(policy=policy.compat32).parsebytes(raw, headersonly=True)
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
    sha = hashlib.sha256(raw).hexdigest()
    hdr = _headers(raw)
    mid = _mid_of(hdr)
    with db.session() as s:
        old = s.scalar(select(InboundMail).where(InboundMail.sha256 == sha))
        if old is None and mid:
            old = s.scalar(select(InboundMail).where(InboundMail.message_id == mid))
        if old is not None:
            return old.id, False
        row = InboundMail(source=source, uidvalidity=uidvalidity, uid=uid, message_id=mid, sha256=sha, raw=raw,
                          received_at=arrival_time(raw, headers=hdr))
        s.add(row)
        s.flush()
        return row.id, True


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
    """Read every stored mail not yet read (e.g. after a crash); returns how many."""
    with db.session() as s:
        ids = s.scalars(select(InboundMail.id).where(InboundMail.status == "stored").order_by(InboundMail.id)).all()
    for mid in ids:
        process_mail(db, cfg, mid, now)
    return len(ids)


def make_store(db: Database, cfg: Config, source: str):
    """The store callback for a transport: store raw (committed), then read it (one
    transaction); ``store.sync()`` makes what was stored durable (:meth:`Database.sync`),
    which the transport calls before it moves a batch of mails off the server."""
    def store(raw: bytes, *, source: str = source, uidvalidity: int | None = None, uid: int | None = None) -> bool:
        mail_id, new = store_raw(db, raw, source=source, uidvalidity=uidvalidity, uid=uid)
        crashpoint("after-store")
        if new:
            process_mail(db, cfg, mail_id)
        crashpoint("after-read")
        return True
    store.sync = db.sync  # type: ignore[attr-defined]
    return store


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


def _submission(ctx: Incoming, text: str) -> None:
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
    all_partien = s.scalars(select(Partie).where(Partie.league_id == league.id).order_by(Partie.id)).all()
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
        for sid, pid in s.execute(select(Submission.id, Submission.partie_id).where(
                Submission.partie_id.in_([part.id for part, _, _ in accepted]),
                Submission.round_number == rnd.number, Submission.player_id == player.id,
                Submission.superseded_by.is_(None)).order_by(Submission.id)):
            earlier.setdefault(pid, []).append(sid)
    subs = [Submission(mail_id=mail.id, partie_id=part.id, round_number=rnd.number, player_id=player.id,
                       created_at=now) for part, _, _ in accepted]
    s.add_all(subs)
    s.flush()
    lines = [{"submission_id": sub.id, "position": i, "text": t}
             for sub, (_, moves, _) in zip(subs, accepted) for i, t in enumerate(moves)]
    if lines:  # one executemany (no RETURNING: their ids are never needed)
        s.execute(insert(SubmissionMove), lines)
    superseded = [{"id": e, "superseded_by": sub.id} for sub in subs for e in earlier.get(sub.partie_id, [])]
    if superseded:
        s.execute(update(Submission), superseded)
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



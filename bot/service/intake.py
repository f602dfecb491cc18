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
from datetime import datetime, timezone
from email.parser import BytesHeaderParser
from email import policy

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.games import get_game
from bot.mail.message import read_mail
from bot.render import format_zat, render
from bot.service.league import league_lexicon, open_round
from bot.service.outbox import queue_mail
from bot.storage.db import Database
from bot.storage.models import (InboundMail, League, Partie, Player, PlayerAddress, Result, Submission,
                                SubmissionMove)
from bot.submission import read_submission

log = logging.getLogger(__name__)


def _message_id(raw: bytes) -> str | None:
    try:
        hdr = BytesHeaderParser(policy=policy.compat32).parsebytes(raw, headersonly=True)
        mid = hdr.get("Message-ID")
        return str(mid).strip() or None if mid else None
    except Exception:
        return None


def store_raw(db: Database, raw: bytes, *, source: str, uidvalidity: int | None = None,
              uid: int | None = None) -> tuple[int, bool]:
    """Store a received mail unchanged and commit; returns ``(mail id, newly stored)``.
    A mail already stored (same bytes, or same Message-ID) is not stored twice."""
    sha = hashlib.sha256(raw).hexdigest()
    mid = _message_id(raw)
    with db.session() as s:
        old = s.scalar(select(InboundMail).where(InboundMail.sha256 == sha))
        if old is None and mid:
            old = s.scalar(select(InboundMail).where(InboundMail.message_id == mid))
        if old is not None:
            return old.id, False
        row = InboundMail(source=source, uidvalidity=uidvalidity, uid=uid, message_id=mid, sha256=sha, raw=raw)
        s.add(row)
        s.flush()
        return row.id, True


def process_pending(db: Database, cfg: Config, now: datetime | None = None) -> int:
    """Read every stored mail not yet read (e.g. after a crash); returns how many."""
    with db.session() as s:
        ids = s.scalars(select(InboundMail.id).where(InboundMail.status == "stored").order_by(InboundMail.id)).all()
    for mid in ids:
        process_mail(db, cfg, mid, now)
    return len(ids)


def make_store(db: Database, cfg: Config, source: str):
    """The store callback for a transport: store raw (committed), then read it."""
    def store(raw: bytes, *, source: str = source, uidvalidity: int | None = None, uid: int | None = None) -> bool:
        mail_id, new = store_raw(db, raw, source=source, uidvalidity=uidvalidity, uid=uid)
        if new:
            process_mail(db, cfg, mail_id)
        return True
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


COMMANDS = {"HILFE": "HILFE", "HELP": "HILFE", "STAND": "STAND", "STANDINGS": "STAND",
            "ANMELDEN": "ANMELDEN", "JOIN": "ANMELDEN"}


def _command_line(subject: str, text: str) -> tuple[str, str] | None:
    """(command, rest of its line) for a player command (HILFE, STAND, ANMELDEN; English
    aliases) written as the subject or as the first line of the mail."""
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    for cand in (subject.strip(), first):
        line = cand.strip()
        for prefix in ("RE:", "AW:", "Re:", "Aw:", "re:", "aw:"):
            line = line.removeprefix(prefix).strip()
        word, _, rest = line.partition(" ")
        word = word.upper().rstrip(".!:")
        if word in COMMANDS:
            return COMMANDS[word], rest.strip()
    return None


def _command(subject: str, text: str) -> str | None:
    found = _command_line(subject, text)
    return found[0] if found else None


def _join(s: Session, cfg: Config, mail: InboundMail, rm, rows, reply_subject: str, now: datetime) -> None:
    """ANMELDEN: a new player joins a running league whose game allows it, from the open
    round on; the rounds before count as NMR (shared/RULES.md, Monoscrabble)."""
    from bot.games import load_games
    mail.kind, mail.status = "command", "processed"
    mail.parse = {"command": "ANMELDEN"}
    if rows:
        player, league = rows[0]
        _notice(s, cfg, mail, rm.from_addr, reply_subject, f"du bist in {league.name} schon angemeldet.",
                rm.message_id, player.name)
        return
    games = load_games()
    open_leagues = [lg for lg in s.scalars(select(League).where(League.status == "running")).all()
                    if games.get(lg.game) is not None and games[lg.game].open_join]
    subj = (rm.subject + " " + rm.new_text[:200]).lower()
    named = [lg for lg in open_leagues if lg.name.lower() in subj]
    choice = named if named else open_leagues
    if len(choice) != 1:
        names = ", ".join(lg.name for lg in open_leagues) or "keine"
        _notice(s, cfg, mail, rm.from_addr, reply_subject,
                "Anmelden geht nur bei Ligen, die jederzeit Einstieg erlauben (" + names + "). "
                "Bitte den Namen der Liga in den Betreff schreiben: 'ANMELDEN <Liga> <Dein Name>'.", rm.message_id)
        return
    league = choice[0]
    rest = (_command_line(rm.subject, rm.new_text) or ("", ""))[1]
    name = rest.replace(league.name, "").strip(" ,:-") or rm.from_name or rm.from_addr.split("@")[0]
    rnd = open_round(s, league)
    joined = rnd.number if rnd else league.rounds + 1
    player = Player(league_id=league.id, name=name[:100], joined_round=joined)
    s.add(player)
    s.flush()
    s.add(PlayerAddress(player_id=player.id, email=rm.from_addr))
    mail.player_id, mail.league_id = player.id, league.id
    for partie in s.scalars(select(Partie).where(Partie.league_id == league.id)):
        for r in range(1, joined):
            better = s.scalar(select(func.count()).select_from(Result).where(
                Result.partie_id == partie.id, Result.round_number == r, Result.score > 0)) or 0
            s.add(Result(partie_id=partie.id, round_number=r, player_id=player.id, points=-better, score=0,
                         submitted=False))
    game = get_game(league.game)
    s.flush()
    views = [dict(game.public_view(pt.state), name=pt.name) for pt in league.partien]
    text = render(f"{game.name}/start.txt.j2", recipient=player, league=league, partien=views,
                  next_zat=format_zat(rnd.zat, league.timezone) if rnd else "–", joined=joined)
    queue_mail(s, cfg, key=f"join:{mail.id}", kind="start", to=rm.from_addr, subject=f"{league.name}: Willkommen",
               text=text, league_id=league.id, round_number=joined, in_reply_to=rm.message_id)


def _notice(s: Session, cfg: Config, mail: InboundMail, to: str, subject: str, body: str,
            in_reply_to: str | None, name: str | None = None) -> None:
    queue_mail(s, cfg, key=f"notice:{mail.id}", kind="notice", to=to, subject=subject,
               text=render("notice.txt.j2", name=name, body=body), in_reply_to=in_reply_to)


def _process(s: Session, cfg: Config, mail: InboundMail, now: datetime) -> None:
    rm = read_mail(mail.raw)
    mail.from_addr = rm.from_addr or None
    mail.subject = rm.subject
    reply_subject = rm.subject if rm.subject.lower().startswith(("re:", "aw:")) else f"Re: {rm.subject}".strip()

    def ignore(reason: str) -> None:
        mail.status, mail.kind = "ignored", "ignored"
        mail.parse = {"reason": reason}

    if rm.auto:
        return ignore(f"auto: {rm.auto}")
    if not rm.from_addr or rm.from_addr == cfg.sender_addr.lower():
        return ignore("own mail or no sender")
    rows = s.execute(select(Player, League).join(PlayerAddress, PlayerAddress.player_id == Player.id)
                     .join(League, League.id == Player.league_id)
                     .where(PlayerAddress.email == rm.from_addr, League.status == "running", Player.active)).all()
    command = _command(rm.subject, rm.new_text)
    if command == "ANMELDEN":
        return _join(s, cfg, mail, rm, rows, reply_subject, now)
    if not rows:
        ignore("unknown sender")
        _notice(s, cfg, mail, rm.from_addr, reply_subject,
                "diese Adresse ist bei keiner laufenden Liga angemeldet; deine Mail wurde nicht als Zug "
                "gewertet. Bitte schreib von deiner angemeldeten Adresse oder melde dich beim Spielleiter.",
                rm.message_id)
        return
    if len(rows) > 1:
        subj = rm.subject.lower()
        rows = [r for r in rows if r[1].name.lower() in subj]
        if len(rows) != 1:
            ignore("several leagues")
            _notice(s, cfg, mail, rm.from_addr, reply_subject,
                    "du spielst in mehreren Ligen: bitte den Namen der Liga in den Betreff schreiben.", rm.message_id)
            return
    player, league = rows[0]
    mail.player_id, mail.league_id = player.id, league.id
    game = get_game(league.game)
    if command:
        mail.status, mail.kind = "processed", "command"
        mail.parse = {"command": command}
        if command == "HILFE":
            body = render(f"{game.name}/hilfe.txt")
        else:
            from bot.service.standings import standings
            table = standings(s, league)
            body = f"Gesamtwertung {league.name}:\n\n" + "\n".join(
                f"{r['rank']:>3}. {r['name']:<24} {r['points']:>5}" for r in table)
        queue_mail(s, cfg, key=f"command:{mail.id}", kind="command", to=rm.from_addr, subject=reply_subject,
                   text=render("notice.txt.j2", name=player.name, body=body), league_id=league.id,
                   in_reply_to=rm.message_id)
        return
    rnd = open_round(s, league)
    if rnd is None:
        ignore("league finished")
        _notice(s, cfg, mail, rm.from_addr, reply_subject, f"die Liga {league.name} ist beendet.",
                rm.message_id, player.name)
        return
    if mail.received_at > rnd.zat:
        mail.status, mail.kind = "late", "submission"
        mail.parse = {"reason": "after ZAT", "zat": rnd.zat.isoformat()}
        _notice(s, cfg, mail, rm.from_addr, reply_subject,
                f"deine Mail kam nach dem ZAT der Runde {rnd.number} ({format_zat(rnd.zat, league.timezone)}) "
                "und wird nicht mehr gewertet. Sie bleibt für den Spielleiter gespeichert.", rm.message_id, player.name)
        return

    partien = {p.name: p for p in s.scalars(select(Partie).where(Partie.league_id == league.id)).all()}
    read = read_submission(rm.new_text, game, list(partien), subject=rm.subject, player_names=[player.name])
    lexicon = league_lexicon(league, cfg)
    sections, errors, replaced = [], [], []
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
        sub = Submission(mail_id=mail.id, partie_id=part.id, round_number=rnd.number, player_id=player.id,
                         created_at=now)
        sub.moves = [SubmissionMove(position=i, text=t) for i, t in enumerate(sec.moves)]
        s.add(sub)
        s.flush()
        earlier = s.scalars(select(Submission).where(
            Submission.partie_id == part.id, Submission.round_number == rnd.number,
            Submission.player_id == player.id, Submission.superseded_by.is_(None), Submission.id != sub.id)).all()
        for e in earlier:
            e.superseded_by = sub.id
        if earlier:
            replaced.append(f"Partie {part.name}")
        view = game.public_view(part.state)
        reports = [game.check_line(part.state, t, lexicon, i) for i, t in enumerate(sec.moves)]
        situation = render(f"{game.name}/situation.txt.j2", **view).strip()
        sections.append({"partie": part.name, "situation": situation, "moves": reports, "error": None})
    mail.kind = "submission"
    mail.status = "processed"
    mail.parse = {"sections": [{"partie": x["partie"], "moves": [m.text for m in x["moves"]]} for x in sections],
                  "errors": errors, "ignored": read.ignored}
    if not sections and not errors:
        errors.append("Zeilen, die ich nicht als Zug lesen konnte: " + (" | ".join(read.ignored[:8]) or "keine")
                      + ". Hilfe zur Notation steht in der Startmail und im README.")
    text = render("ack.txt.j2", player=player, league=league, round=rnd.number, sections=sections,
                  errors=errors, replaced=replaced, zat=format_zat(rnd.zat, league.timezone))
    queue_mail(s, cfg, key=f"ack:{mail.id}", kind="ack", to=rm.from_addr, subject=reply_subject, text=text,
               league_id=league.id, round_number=rnd.number, in_reply_to=rm.message_id)



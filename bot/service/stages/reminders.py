"""Reminders: a set time before each ZAT (``League.reminder_hours``, default 24), every
active player without moves for some Partie of the open round (where it is their turn,
for games with turns) gets one German reminder
naming those Partien and the ZAT in the league's time zone. Players on holiday (URLAUB)
are not reminded; a paused league reminds nobody. Each round reminds once."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from sqlalchemy import select

from bot.config import Config
from bot.i18n import league_language, tr
from bot.render import format_zat, render
from bot.service.stages.outbox import queue_mail
from bot.storage.db import Database
from bot.games import get_game
from bot.service.stages.rounds import active_partien
from bot.storage.models import League, Round, Submission


def send_reminders(db: Database, cfg: Config, now: datetime | None = None) -> int:
    """Queue the reminders that are due; returns how many were queued."""
    now = now or datetime.now(timezone.utc)
    queued = 0
    with db.session() as s:
        rows = s.execute(select(League, Round).join(Round, Round.league_id == League.id).where(
            League.status == "running", League.paused.is_(False), League.reminder_hours > 0,
            Round.status == "open", Round.reminded_at.is_(None))).all()
        for league, rnd in rows:
            if not (rnd.zat - timedelta(hours=league.reminder_hours) <= now < rnd.zat):
                continue
            game = get_game(league.game)
            partien = active_partien(s, league)
            movers = {pt.id: game.movers(pt.state) for pt in partien}
            zat_day = rnd.zat.astimezone(ZoneInfo(league.timezone)).date()
            for p in league.players:
                if not p.active or p.joined_round > rnd.number:
                    continue
                if p.away_from and p.away_to and p.away_from <= zat_day <= p.away_to:
                    continue
                sent = set(s.scalars(select(Submission.partie_id).where(
                    Submission.player_id == p.id, Submission.round_number == rnd.number,
                    Submission.superseded_by.is_(None))).all())
                missing = [pt.name for pt in partien if pt.id not in sent
                           and (movers[pt.id] is None or str(p.id) in movers[pt.id])]
                if not missing:
                    continue
                lang = league_language(league.options)
                which = tr(lang, "partie_one" if len(missing) == 1 else "partie_many", names=", ".join(missing))
                # a game of turns names the turn, as its subjects do (issue 32)
                # (RONDO's opening round is no turn: it is named the opening, never "Zug 0")
                turn = game.turn_of(rnd.number)
                which_text = "" if turn is None else "_turn" if turn >= 1 else "_opening"
                body = tr(lang, "reminder" + which_text, round=rnd.number if turn is None else turn,
                          league=league.name, partien=which, zat=format_zat(rnd.zat, league.timezone, lang))
                queue_mail(s, cfg, key=f"reminder:{league.id}:{rnd.number}:{p.id}", kind="reminder", to=p.email,
                           subject=tr(lang, "subject_reminder" + which_text, league=league.name,
                                      round=rnd.number if turn is None else turn),
                           text=render("notice.txt.j2", lang, name=p.name, body=body, league=league.name), league_id=league.id,
                           round_number=rnd.number)
                queued += 1
            rnd.reminded_at = now
    return queued

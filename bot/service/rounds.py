"""Adjudication at the ZAT.

One transaction per league round: every Partie is adjudicated by its game's rules
(first valid move of main move and Ersatzzuege counts, NMR scores as the rules say,
the best move goes on the table, the next Vorgabe is drawn), results and reports are
stored, the next round is opened, and every player's Auswertung is rendered into the
outbox. A crash before the commit leaves the round open to be run again; after it,
the outbox holds the finished mails, keyed so they are never queued twice.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.games import get_game
from bot.render import format_zat, render
from bot.service.league import find_league, league_lexicon, open_round, vorgabe_text, zat_of
from bot.service.outbox import queue_mail
from bot.service.standings import standings
from bot.storage.db import Database
from bot.storage.models import Adjudication, League, Partie, Result, Round, Submission, Vorgabe

log = logging.getLogger(__name__)


def due_leagues(db: Database, now: datetime) -> list[str]:
    """Names of running leagues whose open round's ZAT has passed."""
    with db.session() as s:
        rows = s.execute(select(League.name).join(Round, Round.league_id == League.id)
                         .where(League.status == "running", League.paused.is_(False), Round.status == "open",
                                Round.zat <= now)).all()
        return sorted({r[0] for r in rows})


def next_zat(db: Database) -> list[tuple[str, datetime]]:
    """(league name, ZAT) of every running league's open round."""
    with db.session() as s:
        rows = s.execute(select(League.name, Round.zat).join(Round, Round.league_id == League.id)
                         .where(League.status == "running", Round.status == "open")).all()
        return [(n, z) for n, z in rows]


def adjudicate_league(db: Database | None, cfg: Config, name: str, now: datetime | None = None,
                      force: bool = False, session: Session | None = None) -> dict | None:
    """Adjudicate the open round of league ``name`` if its ZAT has passed (or ``force``).
    A paused league is adjudicated only with ``force``. With ``session`` the work joins
    that session's transaction (the GM commands) instead of opening one on ``db``.

    Returns a summary ``{"league", "round", "partien": {name: board word}}`` or None when
    nothing was due. Raises ``LeagueError`` for an unknown league."""
    now = now or datetime.now(timezone.utc)
    with (nullcontext(session) if session is not None else db.session()) as s:
        league = find_league(s, name)
        rnd = open_round(s, league)
        if rnd is None or (not force and (rnd.zat > now or league.paused)):
            return None
        game = get_game(league.game)
        lexicon = league_lexicon(league, cfg)
        last = rnd.number >= league.rounds
        players = [p for p in league.players if p.active and p.joined_round <= rnd.number]
        names = {str(p.id): p.name for p in players}
        partien_ctx = []
        summary = {"league": league.name, "round": rnd.number, "partien": {}}
        for partie in s.scalars(select(Partie).where(Partie.league_id == league.id).order_by(Partie.id)):
            subs: dict[str, list[str] | None] = {}
            sub_ids: dict[str, int] = {}
            for p in players:
                sub = s.scalar(select(Submission).where(
                    Submission.partie_id == partie.id, Submission.round_number == rnd.number,
                    Submission.player_id == p.id, Submission.superseded_by.is_(None)).order_by(Submission.id.desc()))
                subs[str(p.id)] = [m.text for m in sub.moves] if sub else None
                if sub:
                    sub_ids[str(p.id)] = sub.id
            report = game.adjudicate(partie.state, subs, lexicon, seed=league.seed, partie=partie.name,
                                     last_round=last)
            s.add(Adjudication(partie_id=partie.id, round_number=rnd.number, report=report.to_json()))
            for pr in report.players:
                s.add(Result(partie_id=partie.id, round_number=rnd.number, player_id=int(pr.player),
                             submission_id=sub_ids.get(pr.player), counted=pr.counted, points=pr.points,
                             score=pr.score or 0, submitted=pr.submitted))
            partie.state = report.state_after
            partie.finished = bool(report.state_after.get("finished"))
            if not partie.finished:
                s.add(Vorgabe(partie_id=partie.id, round_number=rnd.number + 1,
                              cards=vorgabe_text(report.state_after)))
            view = game.public_view(report.state_after)
            bm = dict(report.board_move) if report.board_move else None
            if bm:
                bm["names"] = [names.get(k, k) for k in bm.get("players", [])]
                bm["new_squares"] = [f"{p[0]},{p[1]}" for p in bm.get("placements", [])]
            pls = []
            for pr in sorted(report.players, key=lambda x: names.get(x.player, "").lower()):
                d = pr.to_json()
                d["name"] = names.get(pr.player, pr.player)
                pls.append(d)
            partien_ctx.append(dict(view, name=partie.name, board_move=bm, top=report.top, lot=report.lot,
                                    players=pls))
            summary["partien"][partie.name] = bm["word"] if bm else None
        rnd.status, rnd.adjudicated_at = "adjudicated", now
        nxt = None
        if last:
            league.status = "finished"
        else:
            nxt_zat = zat_of(league, rnd.number + 1)
            while nxt_zat <= now and not force:  # ZATs missed while the bot was down: next one in the future
                nxt_zat += timedelta(days=max(1, league.zat_interval_days))
            nxt = Round(league_id=league.id, number=rnd.number + 1, zat=nxt_zat)
            s.add(nxt)
        s.flush()
        table = standings(s, league, rnd.number)
        ctx = dict(league={"name": league.name, "rounds": league.rounds, "finished": last},
                   round=rnd.number, partien=partien_ctx, standings=table,
                   next_zat=format_zat(nxt.zat, league.timezone) if nxt else None)
        subject = f"{league.name}: {'Schlussauswertung' if last else 'Auswertung'} Runde {rnd.number}"
        recipients = [(p.id, p.name, p.email) for p in league.players if p.active]
        if league.gm_email:
            recipients.append(("gm", "Spielleiter", league.gm_email))
        for pid, pname, email in recipients:
            text = render(f"{game.name}/auswertung.txt.j2", recipient={"name": pname}, **ctx)
            html = render(f"{game.name}/auswertung.html.j2", recipient={"name": pname}, **ctx)
            queue_mail(s, cfg, key=f"auswertung:{league.id}:{rnd.number}:{pid}", kind="auswertung", to=email,
                       subject=subject, text=text, html=html, league_id=league.id, round_number=rnd.number,
                       status="held" if league.review and pid != "gm" else "pending")
        summary["standings"] = [{"player": r["email"], "name": r["name"], "points": r["points"]} for r in table]
        return summary


def adjudicate_due(db: Database, cfg: Config, now: datetime | None = None) -> list[dict]:
    """Adjudicate every league whose ZAT has passed (also ZATs missed while the bot was down)."""
    now = now or datetime.now(timezone.utc)
    done = []
    for name in due_leagues(db, now):
        res = adjudicate_league(db, cfg, name, now)
        if res:
            done.append(res)
    return done

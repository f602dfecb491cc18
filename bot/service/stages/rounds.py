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
import re
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from typing import Any, Callable, Iterable

from markupsafe import escape
from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.orm import Session, selectinload

from bot.config import Config
from bot.games import get_game
from bot.games.base import GameRules
from bot.games.verdict import Verdict  # noqa: F401 (the closed note's type)
from bot.i18n import gm_language, league_language, texts, tr
from bot.render import format_zat, wrap
from bot.service.domain.league import (find_league, league_lexicon, open_round, period_name, playing, vorgabe_text,
                                       zat_of)
from bot.service.stages.outbox import queue_mails
from bot.service.presentation.chart import MAIL_LINES, league_chart
from bot.service.presentation.report import starting_partie, PartieRound, Recipient, partie_round, render_auswertungen
from bot.service.presentation.standings import standings
from bot.storage.db import Database
from bot.storage.models import (Adjudication, InboundMail, League, Partie, Player, Result, Round, Submission,
                                SubmissionMove, Vorgabe)

log = logging.getLogger(__name__)


def due_leagues(db: Database, now: datetime) -> list[str]:
    """Names of running leagues whose open round's ZAT has passed."""
    with db.session() as s:
        rows = s.execute(select(League.name).join(Round, Round.league_id == League.id)
                         .where(League.status == "running", League.paused.is_(False), Round.status == "open",
                                Round.zat <= now)).all()
        return sorted({r[0] for r in rows})


def passed_zats(db: Database, now: datetime) -> list[datetime]:
    """The ZATs up to ``now`` of running, unpaused leagues whose open round is not
    adjudicated yet (a ZAT delayed by an outage or by the bot being down), earliest
    first; usually none."""
    with db.session() as s:
        return sorted(s.scalars(select(Round.zat).join(League, Round.league_id == League.id).where(
            League.status == "running", League.paused.is_(False), Round.status == "open", Round.zat <= now)))


def adjudicate_passed(db: Database, cfg: Config, before: datetime) -> list[dict]:
    """Adjudicate every round whose ZAT lies before ``before`` (the arrival of a mail
    about to be read) and is still open, a league's rounds one after another while their
    ZATs lie before it: a mail that reached the server after a ZAT counts for the next
    round, as it would have had the ZAT run on time (issue 26). Returns the summaries."""
    done: list[dict] = []
    for _ in range(1000):  # each pass adjudicates at least one round, or stops
        with db.session() as s:
            names = sorted(set(s.scalars(select(League.name).join(Round, Round.league_id == League.id).where(
                League.status == "running", League.paused.is_(False), Round.status == "open",
                Round.zat < before))))
        got = [res for name in names if (res := adjudicate_league(db, cfg, name))]
        if not got:
            break
        for res in got:
            log.info("ZAT %s %s nachgeholt vor dem Lesen einer Mail von %s", res["league"], res["period"],
                     before.isoformat(timespec="seconds"))
        done += got
    return done


def next_zat(db: Database) -> list[tuple[str, datetime]]:
    """(league name, ZAT) of every running, unpaused league's open round: a paused league
    gets no ZAT job (its passed ZAT would otherwise be scheduled again at every pass and
    skipped by the scheduler, a warning every pass; issue 33). :func:`~bot.service.conversations.gm.resume`
    adjudicates a ZAT that passed during the pause itself."""
    with db.session() as s:
        rows = s.execute(select(League.name, Round.zat).join(Round, Round.league_id == League.id)
                         .where(League.status == "running", League.paused.is_(False), Round.status == "open")).all()
        return [(n, z) for n, z in rows]


def active_partien(s: Session, league: League) -> list[Partie]:
    """The Partien played in the league's open round: every unfinished one, or with the
    league option ``sequential`` (Partien one after another) only the first unfinished."""
    return playing(league, s.scalars(select(Partie).where(Partie.league_id == league.id).order_by(Partie.id)))


def round_players(league: League, number: int) -> list[Player]:
    """The league's players who take part in round ``number`` (active, joined by then)."""
    return [p for p in league.players if p.active and p.joined_round <= number]


def joiner_nmr_points(s: Session, partie_id: int, number: int) -> int:
    """The Besser-Wertung of a late joiner's NMR in round ``number`` of a Partie: minus the
    number of that round's moves that scored more than 0 (an NMR is a 0-point move;
    shared/RULES.md, Monoscrabble: a player who joins late is scored as NMR for the rounds
    before joining). Read from the round's stored results, so it is 0 for a round the
    Partie was not played in."""
    return -(s.scalar(select(func.count()).select_from(Result).where(
        Result.partie_id == partie_id, Result.round_number == number, Result.score > 0)) or 0)


def rescore_joiners(s: Session, league: League, partien: Iterable[Partie], number: int) -> None:
    """Score again the NMR rows of round ``number`` of the players who joined after it
    (only after the round was rolled back and is adjudicated anew: :func:`bot.service.conversations.gm.rollback`
    keeps those rows, facts of the joining): each row gets the Besser-Wertung of the new
    adjudication (:func:`joiner_nmr_points`); a missing row is made, so every joiner has
    exactly one row per Partie and round."""
    late = [p.id for p in league.players if p.joined_round > number]
    if not late:
        return
    for partie in partien:
        points = joiner_nmr_points(s, partie.id, number)
        have = set(s.scalars(select(Result.player_id).where(
            Result.partie_id == partie.id, Result.round_number == number, Result.player_id.in_(late))))
        s.execute(update(Result).where(Result.partie_id == partie.id, Result.round_number == number,
                                       Result.player_id.in_(late)).values(points=points))
        for pid in late:
            if pid not in have:
                s.add(Result(partie_id=partie.id, round_number=number, player_id=pid, points=points, score=0,
                             submitted=False))


def movers_of(game: GameRules, state: dict, players: list[Player]) -> list[Player]:
    """The players who are to move in a Partie's open round (:meth:`GameRules.movers`)."""
    keys = game.movers(state)
    if keys is None:
        return list(players)
    by_key = {str(p.id): p for p in players}
    return [by_key[k] for k in keys if k in by_key]


@dataclass(frozen=True)
class Current:
    """A player's latest submission of a round: its ``id``, when its mail ``arrived``
    and its move ``lines`` (main move first)."""

    id: int
    arrived: datetime
    lines: tuple[str, ...]


def current_submissions(s: Session, partie_ids: list[int], number: int) -> dict[tuple[int, int], Current]:
    """``{(partie id, player id): Current}`` for round ``number``: every player's latest
    submission, in two queries (submissions, their move lines) of plain rows."""
    if not partie_ids:
        return {}
    rows = s.execute(_CURRENT, {"partien": list(partie_ids), "round": number}).all()
    lines: dict[int, list[str]] = {}
    ids = [r[0] for r in rows]
    for i in range(0, len(ids), 900):  # bounded IN lists
        for sid, text in s.execute(_LINES, {"ids": ids[i:i + 900]}):
            lines.setdefault(sid, []).append(text)
    return {(pid, player): Current(sid, at, tuple(lines.get(sid, ()))) for sid, pid, player, at in rows}


_CURRENT = (select(Submission.id, Submission.partie_id, Submission.player_id, InboundMail.received_at)
            .join(InboundMail, InboundMail.id == Submission.mail_id)
            .where(Submission.partie_id.in_(bindparam("partien", expanding=True)),
                   Submission.round_number == bindparam("round"), Submission.superseded_by.is_(None))
            .order_by(Submission.id))
_LINES = (select(SubmissionMove.submission_id, SubmissionMove.text)
          .where(SubmissionMove.submission_id.in_(bindparam("ids", expanding=True)))
          .order_by(SubmissionMove.submission_id, SubmissionMove.position))


def _inputs(game: GameRules, partie: Partie, players: list[Player], subs: dict[tuple[int, int], Current]):
    """(submissions, received, submission ids) of one Partie's open round for its movers."""
    submissions: dict[str, list[str] | None] = {}
    received: dict[str, datetime] = {}
    sub_ids: dict[str, int] = {}
    for p in movers_of(game, partie.state, players):
        key = str(p.id)
        hit = subs.get((partie.id, p.id))
        submissions[key] = list(hit.lines) if hit else None
        if hit:
            received[key], sub_ids[key] = hit.arrived, hit.id
    return submissions, received, sub_ids


def round_complete(s: Session, cfg: Config, league: League, rnd: Round) -> bool:
    """Whether every active Partie's game says the open round may end before its ZAT
    (:meth:`GameRules.round_complete`; e.g. the player whose turn it is sent a valid move)."""
    game = get_game(league.game)
    if not game.closes_early:
        return False
    partien = active_partien(s, league)
    if not partien:
        return False
    players = round_players(league, rnd.number)
    subs = current_submissions(s, [p.id for p in partien], rnd.number)
    lexicon = league_lexicon(league, cfg)
    for partie in partien:
        submissions, received, _ = _inputs(game, partie, players, subs)
        if not game.round_complete(partie.state, submissions, lexicon, received=received):
            return False
    return True


def closed_note(s: Session, cfg: Config, league: League, rnd: Round) -> "Verdict | str | None":
    """Why the open round takes no more moves although its ZAT is still ahead (German or
    the league's language: :meth:`GameRules.closed_note`, e.g. a Presto race that two
    valid crosswords have decided; a :class:`~bot.games.verdict.Verdict` the caller renders
    for the recipient), or None. Asked before a new mail's moves are stored."""
    game = get_game(league.game)
    if not game.notes_closed_round:
        return None
    partien = active_partien(s, league)
    players = round_players(league, rnd.number)
    subs = current_submissions(s, [p.id for p in partien], rnd.number)
    lexicon = league_lexicon(league, cfg)
    names = {str(p.id): p.name for p in league.players}
    for partie in partien:
        submissions, received, _ = _inputs(game, partie, players, subs)
        note = game.closed_note(partie.state, submissions, lexicon, received=received, names=names)
        if note:
            return note
    return None


def next_round_zat(league: League, game: GameRules, number: int, now: datetime, force: bool) -> datetime:
    """The ZAT of round ``number``: ``turn_hours`` after ``now`` for turn games (league
    option, else the game's :attr:`~GameRules.turn_hours`); ``zat_interval_days`` days after
    ``now`` for games with :attr:`~GameRules.relative_zat`; else the league schedule, where
    a scheduled ZAT missed while the bot was down moves on to the next one in the future."""
    hours = (league.options or {}).get("turn_hours", game.turn_hours)
    if hours:
        return now + timedelta(hours=float(hours))
    if game.relative_zat:
        return now + timedelta(days=max(1, league.zat_interval_days))
    zat = zat_of(league, number)
    while zat <= now and not force:
        zat += timedelta(days=max(1, league.zat_interval_days))
    return zat


def with_gm_note(text: str, html: str | None, note: str, lang: str = "de") -> tuple[str, str | None]:
    """The GM's copy of an Auswertung with ``note`` (one paragraph in ``lang``, the GM's
    language) on top of the text part, wrapped, and right after ``<body>`` of the HTML
    part; no game template is involved."""

    head = texts(lang).gettext("Hinweis für den Spielleiter:") + " "
    text = f"{wrap(head + note)}\n\n{text}"
    if html is not None:
        para = f'<p class="gm-hinweis" style="border:1px solid #c60;padding:.5em"><strong>{escape(head)}</strong>' \
               f"{escape(note)}</p>"
        m = re.search(r"<body[^>]*>", html)
        html = html[:m.end()] + para + html[m.end():] if m else para + html
    return text, html


def turn_subject(lang: str, league: str, turn: int, last: bool) -> str:
    """The subject of an Auswertung in a game whose rounds are turns (RONDO)."""
    t = texts(lang)
    if last:
        return t.gettext("{league}: Schlussauswertung nach Zug {turn}", league=league, turn=turn)
    if not turn:
        return t.gettext("{league}: Auswertung der Eröffnung", league=league)
    return t.gettext("{league}: Auswertung Zug {turn}", league=league, turn=turn)


def adjudicate_league(db: Database | None, cfg: Config, name: str, now: datetime | None = None,
                      force: bool = False, session: Session | None = None,
                      gm_note: Callable[[str], str] | None = None) -> dict | None:
    """Adjudicate the open round of league ``name`` if its ZAT has passed, or every game
    of it says the round is complete (:func:`round_complete`), or with ``force``. A paused
    league is adjudicated only with ``force``. With ``session`` the work joins that
    session's transaction (the GM commands) instead of opening one on ``db``.
    ``gm_note``: a function of the GM's language (``gm_language``) giving a paragraph put
    on top of the GM's copy only (e.g. that the inbox could not be read before the ZAT).

    Returns a summary ``{"league", "round", "period", "partien": {name: board word},
    "standings"}`` (``period``: the round as the game names it, German, for the operator's
    log: "Runde 3", "Zug 2", "Eröffnung"; :func:`~bot.service.domain.league.period_name`)
    or None when nothing was due. Raises ``LeagueError`` for an unknown league."""
    now = now or datetime.now(timezone.utc)
    with (nullcontext(session) if session is not None else db.session()) as s:
        league = find_league(s, name)
        rnd = open_round(s, league)
        if rnd is None:
            return None
        if not force and (league.paused or (rnd.zat > now and not round_complete(s, cfg, league, rnd))):
            return None
        game = get_game(league.game)
        lexicon = league_lexicon(league, cfg)
        last = rnd.number >= league.rounds
        # every player with their addresses in two queries (not one per player)
        s.execute(select(League).where(League.id == league.id)
                  .options(selectinload(League.players).selectinload(Player.addresses))).all()
        players = round_players(league, rnd.number)
        names = {str(p.id): p.name for p in league.players}
        partien = active_partien(s, league)
        subs = current_submissions(s, [p.id for p in partien], rnd.number)
        rounds_data: list[PartieRound] = []
        summary: dict[str, Any] = {"league": league.name, "round": rnd.number,
                                   "period": period_name(game, rnd.number, "de", heading=True), "partien": {}}
        for partie in partien:
            submissions, received, sub_ids = _inputs(game, partie, players, subs)
            report = game.adjudicate(partie.state, submissions, lexicon, seed=league.seed, partie=partie.name,
                                     last_round=last, received=received)
            data = report.to_json()
            s.add(Adjudication(partie_id=partie.id, round_number=rnd.number, report=data))
            results = [{"partie_id": partie.id, "round_number": rnd.number, "player_id": int(pr.player),
                        "submission_id": sub_ids.get(pr.player), "counted": pr.counted, "points": pr.points,
                        "score": pr.score or 0, "submitted": pr.submitted} for pr in report.players]
            if results:  # one executemany (their ids are never needed)
                s.execute(insert(Result.__table__), results)
            partie.state = report.state_after
            partie.finished = game.finished(report.state_after)
            rounds_data.append(partie_round(game, partie.name, data, names, report.state_after,
                                            [str(p.id) for p in league.players if p.active]))
            summary["partien"][partie.name] = report.board_move.get("word") if report.board_move else None
        s.flush()
        rescore_joiners(s, league, partien, rnd.number)  # a round adjudicated again after ZURUECK
        upcoming = active_partien(s, league)
        last = last or not upcoming
        played = {p.id for p in partien}
        for partie in upcoming if not last else []:
            if partie.id not in played:  # starts next round (sequential): show it and the new private parts
                rounds_data.append(starting_partie(game, partie.name, names, partie.state,
                                                   [str(p.id) for p in league.players if p.active]))
        rnd.status, rnd.adjudicated_at = "adjudicated", now
        nxt = None
        if last:
            league.status = "finished"
        else:
            for partie in upcoming:
                if s.scalar(select(Vorgabe.id).where(Vorgabe.partie_id == partie.id,
                                                     Vorgabe.round_number == rnd.number + 1)) is None:
                    s.add(Vorgabe(partie_id=partie.id, round_number=rnd.number + 1, cards=vorgabe_text(partie.state)))
            nxt = Round(league_id=league.id, number=rnd.number + 1,
                        zat=next_round_zat(league, game, rnd.number + 1, now, force))
            s.add(nxt)
        s.flush()
        table = standings(s, league, rnd.number)
        shown_rounds = league.rounds if (game.fixed_rounds or game.default_rounds) else None
        lang, gm_lang = league_language(league.options), gm_language(league.options)
        recipients = [Recipient(str(p.id), p.name, p.email, lang=lang) for p in league.players if p.active]
        if league.gm_email:
            recipients.append(Recipient(None, tr(gm_lang, "gm_name"), league.gm_email, gm=True, lang=gm_lang))
        # RONDO: each round after the opening is one turn, and the mails say which (issue 24)
        turn = rounds_data[0].p.get("turn") if game.turn_rounds and rounds_data else None
        mails = render_auswertungen(
            game, league={"name": league.name, "rounds": shown_rounds, "finished": last, "title": game.title,
                          "timezone": league.timezone, "turn": turn},
            round=rnd.number, partien=rounds_data, standings=table,
            next_zat=(lambda lg: format_zat(nxt.zat, league.timezone, lg)) if nxt else None, recipients=recipients,
            chart=league_chart(s, league, limit=MAIL_LINES, lang=lang))
        queued = []
        for rc in recipients:
            text, html = mails[rc.ident]  # by role and player, never by address (issue 31)
            if gm_note and rc.gm:
                text, html = with_gm_note(text.text(), html.text(), gm_note(rc.lang), rc.lang)
            pid = "gm" if rc.gm else rc.key
            if turn is None:
                subject = tr(rc.lang, "subject_final" if last else "subject_auswertung", league=league.name,
                             round=rnd.number)
            else:
                subject = turn_subject(rc.lang, league.name, turn, last)
            queued.append(dict(key=f"auswertung:{league.id}:{rnd.number}:{pid}", kind="auswertung", to=rc.email,
                               subject=subject, text=text, html=html, league_id=league.id, round_number=rnd.number,
                               status="held" if league.review and not rc.gm else "pending"))
        queue_mails(s, cfg, queued)
        summary["standings"] = [{"player": r["email"], "name": r["name"], "points": r["points"]} for r in table]
        return summary


def round_data(s: Session, league: League, number: int) -> list[PartieRound]:
    """The template data of every Partie adjudicated in round ``number`` (from the stored
    reports), e.g. for ``AUSWERTUNG n ALLE``."""
    game = get_game(league.game)
    names = {str(p.id): p.name for p in league.players}
    out = []
    for partie, adj in s.execute(select(Partie, Adjudication).join(Adjudication, Adjudication.partie_id == Partie.id)
                                 .where(Partie.league_id == league.id, Adjudication.round_number == number)
                                 .order_by(Partie.id)).all():
        out.append(partie_round(game, partie.name, adj.report, names, adj.report["state_after"]))
    return out


def complete_leagues(db: Database, cfg: Config) -> list[str]:
    """Names of running, unpaused leagues whose open round may end before its ZAT
    because every active Partie's game says it is complete (:func:`round_complete`)."""
    out = []
    with db.session() as s:
        for league, rnd in s.execute(select(League, Round).join(Round, Round.league_id == League.id)
                                     .where(League.status == "running", League.paused.is_(False),
                                            Round.status == "open")).all():
            game = get_game(league.game)
            if game.closes_early and round_complete(s, cfg, league, rnd):
                out.append(league.name)
    return sorted(out)


def adjudicate_complete(db: Database, cfg: Config, now: datetime | None = None) -> list[dict]:
    """Adjudicate every league whose open round ended early (:func:`complete_leagues`);
    called after each poll, so a turn ends as soon as its valid move has been read."""
    now = now or datetime.now(timezone.utc)
    return [res for name in complete_leagues(db, cfg) if (res := adjudicate_league(db, cfg, name, now))]


def adjudicate_due(db: Database, cfg: Config, now: datetime | None = None,
                   gm_note: Callable[[str], str] | None = None) -> list[dict]:
    """Adjudicate every league whose ZAT has passed (also ZATs missed while the bot was
    down) or whose open round is complete before its ZAT (a turn's valid move);
    ``gm_note`` as in :func:`adjudicate_league`."""
    now = now or datetime.now(timezone.utc)
    done = []
    for name in sorted(set(due_leagues(db, now)) | set(complete_leagues(db, cfg))):
        res = adjudicate_league(db, cfg, name, now, gm_note=gm_note)
        if res:
            done.append(res)
    return done

"""The game master's operations on the schedule of a league: a new ZAT (:func:`set_zat`,
the later ones moved with ``alle``), :func:`pause`, :func:`resume`, :func:`status` and
:func:`process_now` (adjudicate the open round now). Each is announced to the players and
returns the answer to the GM (a :class:`~bot.service.conversations.gmbase.Said`: German, or
in the GM's language by ``render``), naming the game's period (Runde, Zug, the opening);
a request that cannot be done raises GMError."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.i18n import N_, Texts
from bot.games import get_game
from bot.render import format_zat
from bot.service.domain.league import open_round, paused_text, zat_of, zat_waits_text
from bot.service.stages.rounds import adjudicate_league
from bot.storage.models import (League, OutboxMail, Partie, Player, Round, Submission)

log = logging.getLogger(__name__)

from bot.service.conversations.gmbase import (GMError, active_players, announce, cap, done, get_league,
                                              open_round_of, parse_zat, partien_words, paused_note, period, Said, told,
                                              utcnow)

def _later_zat(s: Session, league: League, rnd: Round) -> datetime | None:
    """The scheduled ZAT of the round after ``rnd`` (None when the game sets it from the
    Auswertung, turn games and games with a relative ZAT, or when ``rnd`` is the last)."""
    game = get_game(league.game)
    if (league.options or {}).get("turn_hours", game.turn_hours) or game.relative_zat or rnd.number >= league.rounds:
        return None
    return zat_of(league, rnd.number + 1)


def set_zat(s: Session, cfg: Config, league: League | str, when: str | datetime, *,
            now: datetime | None = None, alle: bool = False) -> str:
    """Extend or move the open round's ZAT (``when`` as in :func:`parse_zat`). The later
    rounds keep their scheduled ZATs (the league's ``first_zat`` and ``zat_interval_days``),
    unless ``alle``: then every later ZAT moves by the same time (``first_zat`` is moved, in
    league time, so 20:00 stays 20:00). The answer and the notice say which (issue 33).
    During a pause the notice says that the league is paused."""
    league, now = get_league(s, league), utcnow(now)
    rnd = open_round_of(s, league)
    new = parse_zat(when, league, rnd.zat, now) if isinstance(when, str) else when.astimezone(timezone.utc)
    if new <= now:
        raise GMError(lambda t: t.gettext("der neue ZAT {zat} liegt nicht in der Zukunft (sofort auswerten: "
                                          "AUSWERTEN {league}).", zat=format_zat(new, league.timezone, t.lang),
                                          league=league.name))
    tz = league.timezone
    zone = ZoneInfo(tz)
    old, rnd.zat = rnd.zat, new
    if alle:
        delta = new.astimezone(zone).replace(tzinfo=None) - old.astimezone(zone).replace(tzinfo=None)
        first = league.first_zat.astimezone(zone).replace(tzinfo=None) + delta
        league.first_zat = first.replace(tzinfo=zone).astimezone(timezone.utc)
    later = _later_zat(s, league, rnd)
    game = get_game(league.game)
    # a game of turns names the turn, and only the player on turn may move (issue 32)
    turn = game.turn_of(rnd.number)
    on_turn: list[Player] = []
    if turn is not None:
        movers: set[str] | None = set()
        for pt in league.partien:
            if pt.finished:
                continue
            m = game.movers(pt.state)
            if m is None:
                movers = None
                break
            movers |= set(m)  # type: ignore[operator]
        on_turn = [p for p in active_players(league) if movers is None or str(p.id) in movers]

    def body(t: Texts, p: Player) -> str:
        zats = dict(league=league.name, new=format_zat(new, tz, t.lang), old=format_zat(old, tz, t.lang))
        if turn is None:
            out = t.gettext("der Spielleiter hat den ZAT der Runde {round} in {league} verschoben.\n\nNeuer ZAT: {new}\n"
                            "(bisher: {old})", round=rnd.number, **zats)
        elif turn < 1:  # the opening (RONDO): everybody sends a word
            out = t.gettext("der Spielleiter hat den ZAT der Eröffnung in {league} verschoben.\n\nNeuer ZAT: "
                            "{new}\n(bisher: {old})", **zats)
        else:
            out = t.gettext("der Spielleiter hat den ZAT von Zug {turn} in {league} verschoben.\n\nNeuer ZAT: {new}\n"
                            "(bisher: {old})", turn=turn, **zats)
        if later is not None:
            zat = format_zat(later, tz, t.lang)
            if turn is None:
                out += "\n\n" + (t.gettext("Die späteren ZATs verschieben sich ebenso; der ZAT der Runde {round} ist "
                                            "jetzt {zat}.", round=rnd.number + 1, zat=zat) if alle else
                                  t.gettext("Die späteren ZATs bleiben, wie sie waren; der ZAT der Runde {round} ist "
                                            "weiter {zat}.", round=rnd.number + 1, zat=zat))
            else:
                out += "\n\n" + (t.gettext("Die späteren ZATs verschieben sich ebenso; der ZAT von Zug {turn} ist "
                                            "jetzt {zat}.", turn=turn + 1, zat=zat) if alle else
                                  t.gettext("Die späteren ZATs bleiben, wie sie waren; der ZAT von Zug {turn} ist "
                                            "weiter {zat}.", turn=turn + 1, zat=zat))
        if league.paused:
            out += "\n\n" + paused_note(t, league)
        elif turn is None:
            out += "\n\n" + t.gettext("Bis dahin kannst du deine Züge schicken oder ändern.")
        elif turn < 1:
            out += "\n\n" + t.gettext("Bis dahin kannst du dein Eröffnungswort schicken oder ändern.")
        elif p in on_turn:
            out += "\n\n" + t.gettext("Bis dahin kannst du deinen Zug schicken oder ändern.")
        else:
            out += "\n\n" + t.gettext("Am Zug ist {names}; du bist jetzt nicht dran.",
                                       names=", ".join(q.name for q in on_turn) or "–")
        return out
    n = announce(s, cfg, league, body, per_player=True, tag="zat",
                 subject=lambda t: t.gettext("{league}: neuer ZAT der Runde {round}", league=league.name,
                                             round=rnd.number) if turn is None else
                 t.gettext("{league}: neuer ZAT für Zug {turn}", league=league.name, turn=turn) if turn >= 1 else
                 t.gettext("{league}: neuer ZAT der Eröffnung", league=league.name))
    def answer(t: Texts) -> str:
        zats = dict(league=league.name, new=format_zat(new, tz, t.lang), old=format_zat(old, tz, t.lang))
        out = [t.gettext("ZAT der Runde {round} in {league}: {new} (bisher {old}).", round=rnd.number, **zats)
               if turn is None else
               t.gettext("ZAT von Zug {turn} in {league}: {new} (bisher {old}).", turn=turn, **zats) if turn >= 1 else
               t.gettext("ZAT der Eröffnung in {league}: {new} (bisher {old}).", **zats)]
        if later is not None:
            nxt = dict(period=period(t, league, rnd.number + 1), zat=format_zat(later, tz, t.lang))
            out.append(t.gettext("Die späteren ZATs sind mitverschoben ({period}: {zat}).", **nxt) if alle else
                       t.gettext("Die späteren ZATs bleiben ({period}: {zat}); alle mitverschieben: ZAT {league} "
                                 "<Zeit> ALLE (CLI: --alle).", league=league.name, **nxt))
        if league.paused:
            out.append(t.gettext("{league} ist angehalten (WEITER setzt fort).", league=league.name))
        return " ".join(out + [told(t, s, n)])
    return done(league, "ZAT", answer)


def _by(s: Session) -> str:
    """Who acts (``paused_by``): ``cli``, ``mail <address>``, else ``gm``."""
    return s.info.get("gm_by") or "gm"


def pause(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Pause the league: its ZAT does not fire until :func:`resume`; ``paused_at`` and
    ``paused_by`` record since when and by whom."""
    league, now = get_league(s, league), utcnow(now)
    if league.paused:
        raise GMError(lambda t: t.gettext("{league} ist schon {state}.", league=league.name,
                                          state=paused_text(league, t.lang)))
    league.paused, league.paused_at, league.paused_by = True, now, _by(s)
    rnd = open_round(s, league)
    game = get_game(league.game)
    turn = game.turn_of(rnd.number) if rnd else None
    n = announce(s, cfg, league, lambda t: (
        t.gettext("der Spielleiter hat {league} angehalten. Runde {round} wird erst ausgewertet, wenn es "
                  "weitergeht; du bekommst dann Bescheid.", league=league.name, round=rnd.number)
        if rnd and turn is None else
        t.gettext("der Spielleiter hat {league} angehalten. Zug {turn} wird erst ausgewertet, wenn es "
                  "weitergeht; du bekommst dann Bescheid.", league=league.name, turn=turn)
        if rnd and turn else
        t.gettext("der Spielleiter hat {league} angehalten. Die Eröffnung wird erst ausgewertet, wenn es "
                  "weitergeht; du bekommst dann Bescheid.", league=league.name) if rnd else
        t.gettext("der Spielleiter hat {league} angehalten. Ausgewertet wird erst wieder, wenn es "
                  "weitergeht; du bekommst dann Bescheid.", league=league.name)),
        tag="pause", subject=lambda t: t.gettext("{league}: angehalten", league=league.name))
    def answer(t: Texts) -> str:
        what = (t.gettext("{league} ist angehalten; {period} wird erst ausgewertet, wenn WEITER kommt (oder "
                          "AUSWERTEN).", league=league.name, period=period(t, league, rnd.number)) if rnd else
                t.gettext("{league} ist angehalten.", league=league.name))
        return what + " " + told(t, s, n)
    return done(league, "PAUSE", answer)


def resume(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Resume a paused league. If the open round's ZAT passed during the pause, the round
    is adjudicated at once, in this transaction (the answer names the Partien; the
    Auswertungen go out with the next delivery); a GM who wants another ZAT moves it
    with ZAT before WEITER. Otherwise the answer names the next ZAT."""
    league, now = get_league(s, league), utcnow(now)
    if not league.paused:
        raise GMError(N_("{league} ist nicht angehalten."), league=league.name)
    league.paused, league.paused_at, league.paused_by = False, None, None
    rnd = open_round(s, league)
    passed = rnd is not None and rnd.zat <= now
    n = announce(s, cfg, league, lambda t: (
        t.gettext("{league} geht weiter. Der ZAT ({zat}) ist schon vorbei: {period} wird jetzt ausgewertet.",
                  league=league.name, period=period(t, league, rnd.number),
                  zat=format_zat(rnd.zat, league.timezone, t.lang)) if passed else
        t.gettext("{league} geht weiter.\n\nNächster ZAT: {zat}", league=league.name,
                  zat=format_zat(rnd.zat, league.timezone, t.lang) if rnd else "–")),
        tag="weiter", subject=lambda t: t.gettext("{league}: es geht weiter", league=league.name))
    tz = league.timezone
    if passed:
        zat, number = rnd.zat, rnd.number
        s.flush()
        res = adjudicate_league(None, cfg, league.name, now, session=s)
        nxt = open_round(s, league)

        def warn(t: Texts) -> str:
            if res is None:  # pragma: no cover - an open round whose ZAT passed is adjudicated
                return t.gettext("Der ZAT {zat} ist schon vorbei; {period} wird beim nächsten Abruf ausgewertet.",
                                 zat=format_zat(zat, tz, t.lang), period=period(t, league, number))
            game = get_game(league.game)
            turn = game.turn_of(number)
            what = dict(zat=format_zat(zat, tz, t.lang), partien=partien_words(res["partien"], t))
            out = [t.gettext("Der ZAT der Runde {round} ({zat}) war schon vorbei: die Runde ist jetzt ausgewertet "
                             "({partien}).", round=number, **what) if turn is None else
                   t.gettext("Der ZAT von Zug {turn} ({zat}) war schon vorbei: der Zug ist jetzt ausgewertet "
                             "({partien}).", turn=turn, **what) if turn >= 1 else
                   t.gettext("Der ZAT der Eröffnung ({zat}) war schon vorbei: die Eröffnung ist jetzt ausgewertet "
                             "({partien}).", **what)]
            out.append(t.gettext("Die Auswertungen warten auf die Freigabe (FREIGEBEN).") if league.review else
                       t.gettext("Die Auswertungen gehen jetzt hinaus."))
            out.append(t.gettext("Nächster ZAT: {period} am {zat}.", period=period(t, league, nxt.number),
                                 zat=format_zat(nxt.zat, tz, t.lang)) if nxt is not None else
                       t.gettext("Die Liga ist damit beendet."))
            return " ".join(out)
    else:
        def warn(t: Texts) -> str:
            return t.gettext("Nächster ZAT: {zat}.", zat=format_zat(rnd.zat, tz, t.lang) if rnd else "–")
    return done(league, "WEITER", lambda t: " ".join((t.gettext("{league} läuft wieder.", league=league.name),
                                                      warn(t), told(t, s, n))))


def status(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """The league's state for its GM (``STATUS <Liga>``, ``spielleiter gm status``): running,
    paused since when and by whom, or finished; the round, its ZAT, submissions so far,
    notices waiting to be merged. Changes nothing and tells no player."""
    league, now = get_league(s, league), utcnow(now)
    rnd = open_round(s, league)
    subs = players = 0
    if rnd is not None:
        subs = s.scalar(select(func.count(func.distinct(Submission.player_id))).join(
            Partie, Partie.id == Submission.partie_id).where(Partie.league_id == league.id,
                                                             Submission.round_number == rnd.number)) or 0
        players = len(active_players(league))
    waiting = s.scalars(select(OutboxMail).where(OutboxMail.league_id == league.id, OutboxMail.kind == "gm",
                                                 OutboxMail.status == "pending",
                                                 OutboxMail.notices.is_not(None))).all()
    due = (min(r.next_attempt_at for r in waiting if r.next_attempt_at) if any(
        r.next_attempt_at for r in waiting) else now) if waiting else None
    tz = league.timezone

    def answer(t: Texts) -> str:
        state = (t.gettext("beendet") if league.status == "finished" else
                 paused_text(league, t.lang) or t.gettext("läuft"))
        lines = [t.gettext("{league} ({game}): {state}.", league=league.name, game=get_game(league.game).title,
                           state=state)]  # the game as its mails name it: "RONDO", not "rondonl"
        if rnd is not None:
            zat = format_zat(rnd.zat, tz, t.lang)
            if league.paused and rnd.zat <= now:
                when = t.gettext("ZAT {zat} ist vorbei; {period} wird ausgewertet, sobald WEITER kommt (oder "
                                 "AUSWERTEN)", zat=zat, period=period(t, league, rnd.number))
            elif league.paused:
                when = t.gettext("ZAT {zat} ({waits})", zat=zat, waits=zat_waits_text(league, t.lang))
            else:
                when = t.gettext("ZAT {zat}", zat=zat)
            lines.append(t.ngettext("{period}: {when}; Züge von {subs} von {n} Spieler.",
                                    "{period}: {when}; Züge von {subs} von {n} Spielern.", players,
                                    period=cap(period(t, league, rnd.number)), when=when, subs=subs))
        if waiting:
            lines.append(t.ngettext("Mitteilungen an {n} Spieler warten bis {due} (weitere bis dahin kommen in "
                                    "dieselbe Mail).",
                                    "Mitteilungen an {n} Spieler warten bis {due} (weitere bis dahin kommen in "
                                    "dieselbe Mail).", len(waiting), due=format_zat(due, tz, t.lang)))
        return "\n".join(lines)
    return Said(answer)


def process_now(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Adjudicate the open round at once (also in a paused league)."""
    league, now = get_league(s, league), utcnow(now)
    rnd = open_round_of(s, league)
    res = adjudicate_league(None, cfg, league.name, now, force=True, session=s)
    if res is None:  # pragma: no cover - an open round is always adjudicated with force
        raise GMError(lambda t: t.gettext("{period} von {league} konnte nicht ausgewertet werden.",
                                          period=cap(period(t, league, rnd.number)), league=league.name))
    # no notice of its own: the Auswertung is the players' news (issue 24)

    def answer(t: Texts) -> str:
        out = [t.gettext("{period} von {league} ausgewertet ({partien}).", period=cap(period(t, league, res["round"])),
                         league=league.name, partien=partien_words(res["partien"], t)),
               t.gettext("Die Auswertungen warten auf die Freigabe (FREIGEBEN).") if league.review else
               t.gettext("Die Auswertungen gehen jetzt hinaus.")]
        if league.paused:
            out.append(t.gettext("{league} bleibt angehalten (WEITER setzt fort).", league=league.name))
        return " ".join(out)
    return done(league, "AUSWERTEN", answer)

"""The game master's operations on the schedule of a league: a new ZAT (:func:`set_zat`,
the later ones moved with ``alle``), :func:`pause`, :func:`resume`, :func:`status` and
:func:`process_now` (adjudicate the open round now). Each is announced to the players and
returns the German answer to the GM; a request that cannot be done raises GMError."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.i18n import Texts
from bot.games import get_game
from bot.render import format_zat
from bot.service.domain.league import open_round, paused_text, zat_of, zat_waits_text
from bot.service.stages.rounds import adjudicate_league
from bot.storage.models import (League, OutboxMail, Partie, Player, Round, Submission)

log = logging.getLogger(__name__)

from bot.service.conversations.gmbase import (GMError, active_players, announce, done, get_league, open_round_of,
                                              parse_zat, partien_words, paused_note, told, utcnow)

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
        raise GMError(f"der neue ZAT {format_zat(new, league.timezone)} liegt nicht in der Zukunft "
                      f"(sofort auswerten: AUSWERTEN {league.name}).")
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
    turn = game.shown_number(rnd.number) if game.turn_rounds else None
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
    unit = f"der Runde {rnd.number}" if turn is None else f"von Zug {turn}" if turn >= 1 else "der Eröffnung"
    nxt = f"Runde {rnd.number + 1}" if turn is None else f"Zug {turn + 1}"
    if later is None:
        rest = ""
    elif alle:
        rest = f" Die späteren ZATs sind mitverschoben ({nxt}: {format_zat(later, tz)})."
    else:
        rest = (f" Die späteren ZATs bleiben ({nxt}: {format_zat(later, tz)}); alle mitverschieben: "
                f"ZAT {league.name} <Zeit> ALLE (CLI: --alle).")
    paused = f" {league.name} ist angehalten (WEITER setzt fort)." if league.paused else ""
    return done(league, "ZAT", f"ZAT {unit} in {league.name}: {format_zat(new, tz)} "
                 f"(bisher {format_zat(old, tz)}).{rest}{paused} {told(s, n)}.")


def _by(s: Session) -> str:
    """Who acts (``paused_by``): ``cli``, ``mail <address>``, else ``gm``."""
    return s.info.get("gm_by") or "gm"


def pause(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Pause the league: its ZAT does not fire until :func:`resume`; ``paused_at`` and
    ``paused_by`` record since when and by whom."""
    league, now = get_league(s, league), utcnow(now)
    if league.paused:
        raise GMError(f"{league.name} ist schon {paused_text(league)}.")
    league.paused, league.paused_at, league.paused_by = True, now, _by(s)
    rnd = open_round(s, league)
    game = get_game(league.game)
    turn = game.shown_number(rnd.number) if rnd and game.turn_rounds else None
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
    return done(league, "PAUSE", f"{league.name} ist angehalten; {told(s, n)}.")


def resume(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Resume a paused league. If the open round's ZAT passed during the pause, the round
    is adjudicated at once, in this transaction (the answer names the Partien; the
    Auswertungen go out with the next delivery); a GM who wants another ZAT moves it
    with ZAT before WEITER. Otherwise the answer names the next ZAT."""
    league, now = get_league(s, league), utcnow(now)
    if not league.paused:
        raise GMError(f"{league.name} ist nicht angehalten.")
    league.paused, league.paused_at, league.paused_by = False, None, None
    rnd = open_round(s, league)
    passed = rnd is not None and rnd.zat <= now
    n = announce(s, cfg, league, lambda t: (
        t.gettext("{league} geht weiter. Der ZAT der Runde {round} ({zat}) ist schon vorbei: die Runde wird jetzt "
                  "ausgewertet.", league=league.name, round=rnd.number, zat=format_zat(rnd.zat, league.timezone,
                                                                                      t.lang)) if passed else
        t.gettext("{league} geht weiter.\n\nNächster ZAT: {zat}", league=league.name,
                  zat=format_zat(rnd.zat, league.timezone, t.lang) if rnd else "–")),
        tag="weiter", subject=lambda t: t.gettext("{league}: es geht weiter", league=league.name))
    if passed:
        zat, number = format_zat(rnd.zat, league.timezone), rnd.number
        s.flush()
        res = adjudicate_league(None, cfg, league.name, now, session=s)
        if res is not None:
            nxt = open_round(s, league)
            after = (f" Nächster ZAT: Runde {nxt.number} am {format_zat(nxt.zat, league.timezone)}."
                     if nxt is not None else " Die Liga ist damit beendet.")
            held = " Die Auswertungen warten auf die Freigabe (FREIGEBEN)." if league.review else \
                " Die Auswertungen gehen jetzt hinaus."
            warn = (f" Der ZAT der Runde {number} ({zat}) war schon vorbei: die Runde ist jetzt ausgewertet "
                    f"({partien_words(res['partien'])}).{held}{after}")
        else:  # pragma: no cover - an open round whose ZAT passed is adjudicated
            warn = f" Der ZAT {zat} ist schon vorbei; die Runde wird beim nächsten Abruf ausgewertet."
    else:
        warn = f" Nächster ZAT: {format_zat(rnd.zat, league.timezone) if rnd else '–'}."
    return done(league, "WEITER", f"{league.name} läuft wieder.{warn} {told(s, n)}.")


def status(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """The league's state for its GM (``STATUS <Liga>``, ``spielleiter gm status``): running,
    paused since when and by whom, or finished; the round, its ZAT, submissions so far,
    notices waiting to be merged. Changes nothing and tells no player."""
    league, now = get_league(s, league), utcnow(now)
    rnd = open_round(s, league)
    if league.status == "finished":
        state = "beendet"
    else:
        state = paused_text(league) or "läuft"
    lines = [f"{league.name} ({league.game}): {state}."]
    if rnd is not None:
        subs = s.scalar(select(func.count(func.distinct(Submission.player_id))).join(
            Partie, Partie.id == Submission.partie_id).where(Partie.league_id == league.id,
                                                             Submission.round_number == rnd.number)) or 0
        zat = format_zat(rnd.zat, league.timezone)
        if league.paused and rnd.zat <= now:
            when = f"ZAT {zat} ist vorbei; die Runde wird ausgewertet, sobald WEITER kommt (oder AUSWERTEN)"
        elif league.paused:
            when = f"ZAT {zat} ({zat_waits_text(league)})"
        else:
            when = f"ZAT {zat}"
        lines.append(f"Runde {rnd.number}: {when}; Züge von {subs} von {len(active_players(league))} Spielern.")
    waiting = s.scalars(select(OutboxMail).where(OutboxMail.league_id == league.id, OutboxMail.kind == "gm",
                                                 OutboxMail.status == "pending",
                                                 OutboxMail.notices.is_not(None))).all()
    if waiting:
        due = min(r.next_attempt_at for r in waiting if r.next_attempt_at) if any(
            r.next_attempt_at for r in waiting) else now
        lines.append(f"Mitteilungen an {len(waiting)} Spieler warten bis {format_zat(due, league.timezone)} "
                     "(weitere bis dahin kommen in dieselbe Mail).")
    return "\n".join(lines)


def process_now(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Adjudicate the open round at once (also in a paused league)."""
    league, now = get_league(s, league), utcnow(now)
    rnd = open_round_of(s, league)
    res = adjudicate_league(None, cfg, league.name, now, force=True, session=s)
    if res is None:  # pragma: no cover - an open round is always adjudicated with force
        raise GMError(f"Runde {rnd.number} von {league.name} konnte nicht ausgewertet werden.")
    # no notice of its own: the Auswertung is the players' news (issue 24)
    words = partien_words(res["partien"])
    extra = (" Die Auswertungen warten auf die Freigabe (FREIGEBEN)." if league.review else
             " Die Auswertungen gehen jetzt hinaus.") + \
        (f" {league.name} bleibt angehalten (WEITER setzt fort)." if league.paused else "")
    return done(league, "AUSWERTEN", f"Runde {res['round']} von {league.name} ausgewertet ({words}).{extra}")

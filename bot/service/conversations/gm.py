"""The game master's side: a Spielleiter who only supervises.

The operations are plain functions over a session (one transaction, the caller's), so
mail commands and the CLI (``spielleiter gm ...``) share them. Each one changes the
league, is announced to the players by mail (queued in the outbox, in the league's
language: bot.i18n, through ``notice.txt.j2``), is written to the log, and returns a German sentence saying what
was done (the answer to the GM). A request that cannot be done raises :class:`GMError`
before anything is changed.

By mail a GM command must come from the league's ``gm_email`` AND carry the GM's code
(``Code: ...`` in a line of its own); otherwise nothing changes, the mail is flagged and
the GM's registered address is told (the code is never echoed). By CLI no code is
needed: the user on the machine is the GM. CLI operations are recorded as stored
"mails" (``inbound_mails``, source ``cli``) so that every GM action leaves a row.

Operations: :func:`set_zat`, :func:`pause`, :func:`resume`, :func:`process_now`,
:func:`allow_word`, :func:`deny_word`, :func:`set_move`, :func:`remove_player`,
:func:`rollback`, :func:`message`, :func:`set_review`, :func:`release`, :func:`decide_address`.
"""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Sequence
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.i18n import Texts, gm_language, league_language, texts
from bot.games import get_game
from bot.mail.compose import compose
from bot.render import format_zat, render, wrap
from bot.service.conversations.commands import address_refusal, pending_change, set_address
from bot.service.conversations.identity import check_code, take_code
from bot.service.domain.league import LeagueError, find_league, league_lexicon, open_round, paused_text, zat_of
from bot.service.conversations.loops import auth_failure, proven
from bot.service.conversations.mailctx import Incoming
from bot.service.conversations.table import REPLY_PREFIX, CommandTable
from bot.service.stages.outbox import queue_mail
from bot.service.stages.rounds import adjudicate_league
from bot.storage.models import (Adjudication, InboundMail, League, OutboxMail, Partie, Player, PlayerAddress,
                                Result, Round, Submission, SubmissionMove, Vorgabe)

log = logging.getLogger(__name__)


class GMError(LeagueError):
    """A GM request that cannot be done (German message); nothing was changed."""


# -- helpers -----------------------------------------------------------------------------

def _league(s: Session, league: League | str) -> League:
    return find_league(s, league) if isinstance(league, str) else league


def _utcnow(now: datetime | None) -> datetime:
    return now or datetime.now(timezone.utc)


def _active(league: League) -> list[Player]:
    return [p for p in league.players if p.active]


Text = str | Callable[[Texts], str]


def still(s: Session) -> bool:
    """Whether the GM action under way is quiet (``--still`` / ``STILL``): no notice to
    the players (set by :func:`run_cli` and the mail commands in ``s.info``)."""
    return bool(s.info.get("gm_still"))


def _told(s: Session, n: int) -> str:
    """The end of a GM answer: how many players are told, or that none is (STILL), and
    when a notice waits to be merged with the next ones (:func:`announce`)."""
    if still(s):
        return "still: kein Spieler benachrichtigt"
    wait = s.info.get("gm_notice_due")
    if n and wait:
        return f"{n} Spieler benachrichtigt (die Mitteilung geht um {wait} hinaus, mit weiteren bis dahin in einer Mail)"
    return f"{n} Spieler benachrichtigt"


def announce(s: Session, cfg: Config, league: League, body: Text, *, tag: str,
             players: Sequence[Player] | None = None, subject: Text | None = None,
             per_player: bool = False) -> int:
    """Queue ``body`` (after "Hallo <Name>,") to every active player (or ``players``) in the
    league's language: ``body`` and ``subject`` are texts or functions of the
    :class:`~bot.i18n.Texts` of that language (``lambda t: t.gettext(...)``); with
    ``per_player`` ``body`` is a function of the Texts and the recipient
    :class:`~bot.storage.models.Player` (a sentence fitted to each player). Returns how
    many mails were queued (0 when the action is quiet: :func:`still`).

    The notice waits ``cfg.gm_notice_window`` seconds in the outbox (``[bot]
    gm_notice_minutes``, default 3): a further notice of the league to the same player in
    that time is merged into the same mail (one mail listing every action, sent when the
    first one's time is up), so a pause, a new ZAT and a resume within a minute are one
    mail, not three (issue 33). The merge is done in the database (the waiting row is
    replaced within the caller's transaction), so a crash loses nothing. Window 0: each
    notice goes out at once, on its own."""
    if still(s):
        log.info("GM %s %s: still, keine Mitteilung an die Spieler", league.name, tag)
        return 0
    uid = uuid.uuid4().hex[:12]
    rnd = open_round(s, league)
    targets = list(players) if players is not None else _active(league)
    lang = league_language(league.options)
    t = texts(lang)
    text = None if per_player else wrap((body(t) if callable(body) else body).strip())
    subj = (subject(t) if callable(subject) else subject) if subject else \
        t.gettext("{league}: Mitteilung des Spielleiters", league=league.name)
    window = float(getattr(cfg, "gm_notice_window", 0) or 0)
    now = s.info.get("gm_now") or datetime.now(timezone.utc)
    for p in targets:
        if not p.email:
            continue
        own = wrap(body(t, p).strip()) if per_player else text  # type: ignore[call-arg,operator]
        if window <= 0:
            queue_mail(s, cfg, key=f"gm:{league.id}:{tag}:{uid}:{p.id}", kind="gm", to=p.email, subject=subj,
                       text=render("notice.txt.j2", lang, name=p.name, body=own), league_id=league.id,
                       round_number=rnd.number if rnd else None)
            continue
        parts, due = [{"subject": subj, "body": own}], now + timedelta(seconds=window)
        waiting = s.scalars(select(OutboxMail).where(
            OutboxMail.league_id == league.id, OutboxMail.kind == "gm", OutboxMail.to_addr == p.email,
            OutboxMail.status == "pending", OutboxMail.notices.is_not(None), OutboxMail.claimed_by.is_(None),
            OutboxMail.next_attempt_at > now).order_by(OutboxMail.id)).first()
        if waiting is not None:
            parts, due = list(waiting.notices) + parts, waiting.next_attempt_at
            s.delete(waiting)
            s.flush()
        row = queue_mail(s, cfg, key=f"gm:{league.id}:{tag}:{uid}:{p.id}", kind="gm", to=p.email,
                         subject=_merged_subject(t, league, parts),
                         text=render("notice.txt.j2", lang, name=p.name, body=_merged_body(t, league, parts)),
                         league_id=league.id, round_number=rnd.number if rnd else None)
        row.notices, row.next_attempt_at = parts, due
        s.info["gm_notice_due"] = due.astimezone(ZoneInfo(league.timezone)).strftime("%H:%M Uhr")
    return len(targets)


def _merged_subject(t: Texts, league: League, parts: list[dict]) -> str:
    if len(parts) == 1:
        return parts[0]["subject"]
    return t.gettext("{league}: {n} Mitteilungen des Spielleiters", league=league.name, n=len(parts))


def _merged_body(t: Texts, league: League, parts: list[dict]) -> str:
    """One notice as it is; several in one mail, numbered, each with its subject as title."""
    if len(parts) == 1:
        return parts[0]["body"]
    out = [wrap(t.gettext("der Spielleiter hat in {league} kurz nacheinander mehreres getan; hier alles in einer "
                          "Mail, in der Reihenfolge, in der es geschah:", league=league.name))]
    for i, part in enumerate(parts, 1):
        title = part["subject"].partition(": ")[2] or part["subject"]
        body = part["body"]
        out.append(f"{i}. {title[:1].upper() + title[1:]}\n\n{body[:1].upper() + body[1:]}")
    return "\n\n".join(out)


def partien_words(partien: dict[str, str | None]) -> str:
    """``Partie K1 (HAUS), Partie K2``: the Partien of an adjudicated round with the word
    laid where the game lays one (the answer to AUSWERTEN and ``spielleiter adjudicate``)."""
    return ", ".join(f"Partie {k} ({v})" if v else f"Partie {k}" for k, v in partien.items())


def _done(league: League, op: str, text: str) -> str:
    log.info("GM %s %s: %s", league.name, op, text)
    return text


def _open_round(s: Session, league: League) -> Round:
    rnd = open_round(s, league)
    if rnd is None:
        raise GMError(f"{league.name} hat keine offene Runde (beendet).")
    return rnd


def find_player(s: Session, league: League, spec: str) -> Player:
    """A player of ``league`` by full name, address, or a unique first name/prefix."""
    want = spec.strip().lower()
    if not want:
        raise GMError("Welcher Spieler? Bitte den Namen angeben.")
    players = list(league.players)
    for test in (lambda p: p.name.lower() == want,
                 lambda p: any(a.email == want for a in p.addresses),
                 lambda p: p.name.lower().split()[0] == want if p.name.split() else False,
                 lambda p: p.name.lower().startswith(want)):
        hits = [p for p in players if test(p)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise GMError(f"'{spec}' passt auf mehrere Spieler: {', '.join(p.name for p in hits)}.")
    raise GMError(f"Einen Spieler '{spec}' gibt es in {league.name} nicht "
                  f"(Spieler: {', '.join(p.name for p in players)}).")


def find_partie(s: Session, league: League, name: str) -> Partie:
    for p in league.partien:
        if p.name.lower() == name.strip().lower():
            return p
    raise GMError(f"Eine Partie '{name}' gibt es in {league.name} nicht "
                  f"(Partien: {', '.join(p.name for p in league.partien)}).")


_UNITS = {"d": "days", "t": "days", "tag": "days", "tage": "days", "day": "days", "days": "days",
          "h": "hours", "std": "hours", "stunde": "hours", "stunden": "hours", "hour": "hours", "hours": "hours",
          "m": "minutes", "min": "minutes", "minute": "minutes", "minuten": "minutes", "minutes": "minutes"}
_GERMAN = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})?(?:\s*,?\s*(\d{1,2})(?:[:.](\d{2}))?(?:\s*uhr)?)?$", re.I)


def parse_zat(text: str, league: League, current: datetime, now: datetime | None = None) -> datetime:
    """A new ZAT (aware UTC) from ``+2d``, ``+12h``, ``+1d 6h``, ``-1d`` (relative to the
    ``current`` ZAT), an ISO date-time (``2026-12-13T20:00``, with or without offset) or a
    German one (``13.12.2026 20:00``, ``13.12. 20:00 Uhr``); naive means league time, a
    date without time keeps the current ZAT's time of day."""
    t = text.strip()
    tz = ZoneInfo(league.timezone)
    cur_local = current.astimezone(tz)
    if t[:1] in "+-":
        parts = re.findall(r"(\d+)\s*([a-zäöü]+)", t[1:].lower())
        if not parts or re.sub(r"[\d\sa-zäöü]", "", t[1:].lower()):
            raise GMError(f"'{text}' verstehe ich nicht; Beispiele: +2d, +12h, 13.12.2026 20:00.")
        delta = timedelta()
        for n, unit in parts:
            if unit not in _UNITS:
                raise GMError(f"Einheit '{unit}' verstehe ich nicht (d, h, min).")
            delta += timedelta(**{_UNITS[unit]: int(n)})
        # add in local wall-clock time, so "+7d" keeps 20:00 across a DST change
        local = cur_local.replace(tzinfo=None) + delta if t[0] == "+" else cur_local.replace(tzinfo=None) - delta
        return local.replace(tzinfo=tz).astimezone(timezone.utc)
    m = _GERMAN.match(t.replace("  ", " "))
    if m:
        d, mo, y, hh, mm = m.groups()
        year = (int(y) + (2000 if len(y) == 2 else 0)) if y else cur_local.year
        hour, minute = (int(hh), int(mm or 0)) if hh else (cur_local.hour, cur_local.minute)
        try:
            local = datetime(year, int(mo), int(d), hour, minute, tzinfo=tz)
        except ValueError:
            raise GMError(f"'{text}' ist kein gültiges Datum.") from None
        if not y and local < _utcnow(now):
            local = local.replace(year=year + 1)
        return local.astimezone(timezone.utc)
    try:
        when = datetime.fromisoformat(t)
    except ValueError:
        raise GMError(f"'{text}' verstehe ich nicht; Beispiele: +2d, +12h, 13.12.2026 20:00, "
                      "2026-12-13T20:00.") from None
    if len(t) <= 10:  # a date only
        when = when.replace(hour=cur_local.hour, minute=cur_local.minute)
    if when.tzinfo is None:
        when = when.replace(tzinfo=tz)
    return when.astimezone(timezone.utc)


# -- the operations ----------------------------------------------------------------------

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
    league, now = _league(s, league), _utcnow(now)
    rnd = _open_round(s, league)
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
        on_turn = [p for p in _active(league) if movers is None or str(p.id) in movers]

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
            out += "\n\n" + _paused_note(t, league)
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
    if later is None:
        rest = ""
    elif alle:
        rest = f" Die späteren ZATs sind mitverschoben (nächster: {format_zat(later, tz)})."
    else:
        rest = (f" Die späteren ZATs bleiben (nächster: {format_zat(later, tz)}); alle mitverschieben: "
                f"ZAT {league.name} <Zeit> ALLE (CLI: --alle).")
    paused = f" {league.name} ist angehalten (WEITER setzt fort)." if league.paused else ""
    return _done(league, "ZAT", f"ZAT {unit} in {league.name}: {format_zat(new, tz)} "
                 f"(bisher {format_zat(old, tz)}).{rest}{paused} {_told(s, n)}.")


def _paused_note(t: Texts, league: League) -> str:
    """The sentence a notice during a pause ends with (issue 33)."""
    return t.gettext("{league} ist zurzeit angehalten: kein ZAT wird ausgeführt, bis der Spielleiter die Liga "
                     "fortsetzt; du bekommst dann Bescheid. Deine Züge kannst du auch jetzt schicken oder ändern.",
                     league=league.name)


def _by(s: Session) -> str:
    """Who acts (``paused_by``): ``cli``, ``mail <address>``, else ``gm``."""
    return s.info.get("gm_by") or "gm"


def pause(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Pause the league: its ZAT does not fire until :func:`resume`; ``paused_at`` and
    ``paused_by`` record since when and by whom."""
    league, now = _league(s, league), _utcnow(now)
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
    return _done(league, "PAUSE", f"{league.name} ist angehalten; {_told(s, n)}.")


def resume(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Resume a paused league. If the open round's ZAT passed during the pause, the round
    is adjudicated at once, in this transaction (the answer names the Partien; the
    Auswertungen go out with the next delivery); a GM who wants another ZAT moves it
    with ZAT before WEITER. Otherwise the answer names the next ZAT."""
    league, now = _league(s, league), _utcnow(now)
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
    return _done(league, "WEITER", f"{league.name} läuft wieder.{warn} {_told(s, n)}.")


def status(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """The league's state for its GM (``STATUS <Liga>``, ``spielleiter gm status``): running,
    paused since when and by whom, or finished; the round, its ZAT, submissions so far,
    notices waiting to be merged. Changes nothing and tells no player."""
    league, now = _league(s, league), _utcnow(now)
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
            when = f"ZAT {zat} (wird nur ausgeführt, wenn die Liga bis dahin fortgesetzt ist)"
        else:
            when = f"ZAT {zat}"
        lines.append(f"Runde {rnd.number}: {when}; Züge von {subs} von {len(_active(league))} Spielern.")
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
    league, now = _league(s, league), _utcnow(now)
    rnd = _open_round(s, league)
    res = adjudicate_league(None, cfg, league.name, now, force=True, session=s)
    if res is None:  # pragma: no cover - an open round is always adjudicated with force
        raise GMError(f"Runde {rnd.number} von {league.name} konnte nicht ausgewertet werden.")
    # no notice of its own: the Auswertung is the players' news (issue 24)
    words = partien_words(res["partien"])
    extra = (" Die Auswertungen warten auf die Freigabe (FREIGEBEN)." if league.review else
             " Die Auswertungen gehen jetzt hinaus.") + \
        (f" {league.name} bleibt angehalten (WEITER setzt fort)." if league.paused else "")
    return _done(league, "AUSWERTEN", f"Runde {res['round']} von {league.name} ausgewertet ({words}).{extra}")


def _word(word: str) -> str:
    w = word.strip().upper()
    if not w or not re.fullmatch(r"[A-ZÄÖÜß]+", w):
        raise GMError(f"'{word}' ist kein Wort (nur Buchstaben).")
    return w


def allow_word(s: Session, cfg: Config, league: League | str, word: str, *, now: datetime | None = None) -> str:
    """Put ``word`` on the league's allow-list (and off its deny-list)."""
    return _list_word(s, cfg, _league(s, league), _word(word), allow=True, now=_utcnow(now))


def deny_word(s: Session, cfg: Config, league: League | str, word: str, *, now: datetime | None = None) -> str:
    """Put ``word`` on the league's deny-list (and off its allow-list)."""
    return _list_word(s, cfg, _league(s, league), _word(word), allow=False, now=_utcnow(now))


def _list_word(s: Session, cfg: Config, league: League, word: str, *, allow: bool, now: datetime) -> str:
    allow_l = [w for w in (league.allow_words or []) if w.upper() != word]
    deny_l = [w for w in (league.deny_words or []) if w.upper() != word]
    (allow_l if allow else deny_l).append(word)
    league.allow_words, league.deny_words = allow_l, deny_l  # new lists: the JSON change is seen
    s.flush()
    redone = _readjudicate_held(s, cfg, league, now)
    what = "erlaubt" if allow else "gesperrt"
    n = announce(s, cfg, league, lambda t: (
        t.gettext("der Spielleiter hat in {league} das Wort {word} erlaubt. Das gilt ab der nächsten Auswertung.",
                  league=league.name, word=word) if allow else
        t.gettext("der Spielleiter hat in {league} das Wort {word} gesperrt. Das gilt ab der nächsten Auswertung.",
                  league=league.name, word=word)), tag="erlaube" if allow else "verbiete",
        subject=lambda t: (t.gettext("{league}: Wort {word} erlaubt", league=league.name, word=word) if allow else
                           t.gettext("{league}: Wort {word} gesperrt", league=league.name, word=word)))
    again = (f" Runde {redone} war ausgewertet, aber noch nicht freigegeben: sie ist mit der neuen Liste neu "
             "ausgewertet (die neuen Auswertungen warten wieder auf FREIGEBEN)." if redone else "")
    return _done(league, "ERLAUBE" if allow else "VERBIETE",
                 f"{word} ist in {league.name} {what}.{again} {_told(s, n)}.")


def _last_adjudicated(s: Session, league: League) -> Round | None:
    return s.scalar(select(Round).where(Round.league_id == league.id, Round.status == "adjudicated")
                    .order_by(Round.number.desc()))


def _auswertungen(s: Session, league: League, number: int) -> list[OutboxMail]:
    """The current (not withdrawn) Auswertung rows of round ``number``."""
    prefix = f"auswertung:{league.id}:{number}:"
    rows = s.scalars(select(OutboxMail).where(OutboxMail.league_id == league.id, OutboxMail.kind == "auswertung",
                                              OutboxMail.round_number == number)).all()
    return [r for r in rows if r.key.startswith(prefix) and ":" not in r.key[len(prefix):]]


def _readjudicate_held(s: Session, cfg: Config, league: League, now: datetime) -> int | None:
    """When the last adjudicated round's Auswertungen are all still held (review mode),
    roll it back and adjudicate it again (new lists); returns its number, else None."""
    last = _last_adjudicated(s, league)
    if last is None:
        return None
    players = [r for r in _auswertungen(s, league, last.number) if not r.key.endswith(":gm")]
    if not players or any(r.status != "held" for r in players):
        return None
    nxt = s.scalar(select(Round).where(Round.league_id == league.id, Round.number == last.number + 1))
    keep_zat = nxt.zat if nxt is not None else None
    _rollback_rows(s, league, last)
    adjudicate_league(None, cfg, league.name, now, force=True, session=s)
    if keep_zat is not None:
        new = open_round(s, league)
        if new is not None and new.number == last.number + 1:
            new.zat = keep_zat  # a ZAT the GM had already moved stays moved
    return last.number


def set_move(s: Session, cfg: Config, league: League | str, player: str, partie: str, lines: Sequence[str] | str,
             *, mail_id: int, now: datetime | None = None) -> str:
    """Record moves for ``player`` in ``partie`` of the open round, as if the player had
    sent them (``lines``: main move first, then Ersatzzüge); they replace the player's
    earlier moves for that Partie. ``mail_id``: the stored mail (or CLI record) behind it."""
    league, now = _league(s, league), _utcnow(now)
    rnd = _open_round(s, league)
    pl = find_player(s, league, player)
    if not pl.active:
        raise GMError(f"{pl.name} spielt in {league.name} nicht mehr mit.")
    if pl.joined_round > rnd.number:  # joined after the open round (it was rolled back): NMR there
        raise GMError(f"{pl.name} spielt erst ab Runde {pl.joined_round} mit; Runde {rnd.number} zählt für "
                      f"{pl.name} als NMR.")
    pt = find_partie(s, league, partie)
    if isinstance(lines, str):
        lines = lines.splitlines()
    moves = []
    for ln in lines:
        ln = ln.strip()
        if not ln or re.match(rf"^partie\s+{re.escape(pt.name)}\s*:?\s*$", ln, re.I):
            continue
        ln = re.sub(r"^(?:ersatz(?:zug)?\s*\d*|hauptzug|zug)\s*:\s*", "", ln, flags=re.I).strip()
        if ln:
            moves.append(ln)
    if not moves:
        raise GMError("kein Zug angegeben (die Zugzeilen gehören unter die Befehlszeile).")
    game = get_game(league.game)
    moves = [game.spell(m, league.options).text for m in moves]  # ÖLE as OELE, as a player's mail
    if game.multiline:  # one move of several lines (Crossword, Presto)
        moves = ["\n".join(moves)]
    sub = Submission(mail_id=mail_id, partie_id=pt.id, round_number=rnd.number, player_id=pl.id, created_at=now)
    sub.moves = [SubmissionMove(position=i, text=t) for i, t in enumerate(moves)]
    s.add(sub)
    s.flush()
    for e in s.scalars(select(Submission).where(
            Submission.partie_id == pt.id, Submission.round_number == rnd.number, Submission.player_id == pl.id,
            Submission.superseded_by.is_(None), Submission.id != sub.id)):
        e.superseded_by = sub.id
    lexicon = league_lexicon(league, cfg)
    checked = [(i, line, game.check_line(pt.state, line, lexicon, i, player=str(pl.id))) for i, line in enumerate(moves)]

    def listing_of(t: Texts) -> str:
        out = []
        for i, line, r in checked:
            label = t.gettext("Zug") if game.multiline else (t.gettext("Hauptzug") if i == 0 else
                                                                 t.gettext("Ersatzzug {n}", n=i))
            verdict = (t.ngettext("gültig, {n} Punkt", "gültig, {n} Punkte", r.score or 0) if r.valid else
                       t.gettext("ungültig: {why}", why=r.verdict.render(t.lang) or r.reason))
            out.append(f"  {label}: {line} – {verdict}")
        return "\n".join(out)

    announce(s, cfg, league, lambda t: t.gettext(
        "der Spielleiter hat für dich in {league}, Partie {partie}, Runde {round} diese Züge eingetragen; sie "
        "ersetzen, was du für diese Partie geschickt hattest:\n\n{listing}\n\nBis zum ZAT ({zat}) kannst du sie "
        "wie immer ändern.", league=league.name, partie=pt.name, round=rnd.number, listing=listing_of(t),
        zat=format_zat(rnd.zat, league.timezone, t.lang)) + ("\n\n" + _paused_note(t, league) if league.paused else ""),
        tag="setze", players=[pl],
        subject=lambda t: t.gettext("{league}: Züge für Partie {partie} eingetragen", league=league.name,
                                    partie=pt.name))
    listing = listing_of(texts(gm_language(league.options)))
    return _done(league, "SETZE", f"Für {pl.name} in Partie {pt.name}, Runde {rnd.number} eingetragen:\n{listing}\n"
                 + (f"{pl.name} ist benachrichtigt." if not still(s) else "Still: nicht benachrichtigt."))


def remove_player(s: Session, cfg: Config, league: League | str, player: str, *, now: datetime | None = None) -> str:
    """Take ``player`` out of the league (``active = False``) from the open round on."""
    league = _league(s, league)
    pl = find_player(s, league, player)
    if not pl.active:
        raise GMError(f"{pl.name} spielt in {league.name} schon nicht mehr mit.")
    pl.active = False
    s.flush()
    n = announce(s, cfg, league, lambda t: t.gettext(
        "{name} spielt in {league} nicht mehr mit (vom Spielleiter ausgetragen). Die Wertung zeigt ab der nächsten "
        "Auswertung nur noch die übrigen Spieler.", name=pl.name, league=league.name),
        tag="entferne", players=[*_active(league), pl],
        subject=lambda t: t.gettext("{league}: {name} ausgetragen", league=league.name, name=pl.name))
    return _done(league, "ENTFERNE", f"{pl.name} ist aus {league.name} ausgetragen; {_told(s, n)}.")


def _rollback_rows(s: Session, league: League, rnd: Round) -> tuple[int, int]:
    """Undo the adjudication of ``rnd`` in the database; returns (Auswertungen already
    sent, Auswertungen withdrawn before sending)."""
    n = rnd.number
    partien = list(league.partien)
    ids = [p.id for p in partien]
    adjs = {a.partie_id: a for a in s.scalars(select(Adjudication).where(
        Adjudication.partie_id.in_(ids), Adjudication.round_number == n))}
    for p in partien:
        a = adjs.get(p.id)
        if a is None:
            continue
        before = dict(a.report["state_before"])
        p.state, p.finished = before, bool(before.get("finished"))
        s.delete(a)
    # the NMR rows of players who joined after round n are facts of their joining: they stay
    # (one per Partie) and are scored again when the round is (bot.service.stages.rounds.rescore_joiners)
    late = {p.id for p in league.players if p.joined_round > n}
    for r in s.scalars(select(Result).where(Result.partie_id.in_(ids), Result.round_number == n)):
        if r.player_id not in late:
            s.delete(r)
    for v in s.scalars(select(Vorgabe).where(Vorgabe.partie_id.in_(ids), Vorgabe.round_number == n + 1)):
        s.delete(v)
    nxt = s.scalar(select(Round).where(Round.league_id == league.id, Round.number == n + 1))
    if nxt is not None:
        s.delete(nxt)
    rnd.status, rnd.adjudicated_at = "open", None
    if league.status == "finished":
        league.status = "running"
    sent = withdrawn = 0
    for row in _auswertungen(s, league, n):
        if row.status == "sent":
            sent += 0 if row.key.endswith(":gm") else 1
        else:
            row.status, row.last_error = "failed", "zurückgenommen: Runde vom Spielleiter zurückgesetzt"
            withdrawn += 1
        row.key = f"{row.key}:zurueck{row.id}"  # frees the key for the new Auswertung
    s.flush()
    return sent, withdrawn


def rollback(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Undo the last adjudicated round: its results and reports go, every Partie gets the
    state before it back, the next round and its Vorgabe go, the round is open again and
    the league is paused (so the old, passed ZAT does not fire at once). Auswertungen not
    yet sent are withdrawn (status failed); sent ones cannot be recalled. A player who
    joined (ANMELDEN) after the round keeps their NMR rows of it, scored again at the new
    adjudication, and is told that the round still counts as NMR for them."""
    league = _league(s, league)
    last = _last_adjudicated(s, league)
    if last is None:
        raise GMError(f"in {league.name} ist noch keine Runde ausgewertet.")
    later = s.scalar(select(Round).where(Round.league_id == league.id, Round.number > last.number + 1))
    if later is not None:  # pragma: no cover - rounds are only ever opened one after another
        raise GMError(f"nach Runde {last.number} gibt es schon Runde {later.number}.")
    n = last.number
    ahead = s.scalar(select(Submission.id).join(Partie, Partie.id == Submission.partie_id).where(
        Partie.league_id == league.id, Submission.round_number == n + 1).limit(1)) is not None
    sent, withdrawn = _rollback_rows(s, league, last)
    if not league.paused:
        league.paused, league.paused_at, league.paused_by = True, _utcnow(now), "zurueck"
    def head(t: Texts) -> str:
        recall = (t.gettext("Die Auswertung der Runde {n} war schon verschickt und lässt sich nicht zurückholen: "
                            "bitte betrachte sie als ungültig; die neue Auswertung ersetzt sie.", n=n) if sent else
                  t.gettext("Die Auswertung der Runde {n} war noch nicht verschickt und ist zurückgezogen.", n=n))
        return t.gettext("der Spielleiter hat Runde {n} von {league} zurückgesetzt: die Ergebnisse der Runde sind "
                         "gelöscht, die Partien stehen wieder wie vor Runde {n}, und Runde {n} ist wieder offen.",
                         n=n, league=league.name) + " " + recall + "\n\n"

    def tail(t: Texts) -> str:
        return t.gettext("Die Liga ruht, bis der Spielleiter die Runde neu auswertet oder fortsetzt.")

    def subject(t: Texts) -> str:
        return t.gettext("{league}: Runde {n} zurückgesetzt", league=league.name, n=n)

    playing = [p for p in _active(league) if p.joined_round <= n]
    joiners = [p for p in _active(league) if p.joined_round > n]  # joined by ANMELDEN after round n
    count = announce(s, cfg, league, lambda t: head(t) + t.gettext(
        "Deine Züge für Runde {n} bleiben gespeichert und zählen bei der neuen Auswertung; bis dahin kannst du sie "
        "noch ändern.", n=n) + " " + (t.gettext(
            "Züge, die schon für Runde {next} kamen, bleiben ebenfalls gespeichert; prüfe sie nach der neuen "
            "Auswertung.", next=n + 1) + " " if ahead else "") + tail(t), tag="zurueck", players=playing,
        subject=subject)
    for p in joiners:  # their NMR rows stay; their Besser-Wertung follows the new adjudication
        count += announce(s, cfg, league, lambda t, p=p: head(t) + t.gettext(
            "Du spielst erst ab Runde {joined} mit: Runde {n} zählt für dich weiter als NMR (wie bei deiner "
            "Anmeldung), mit der Besser-Wertung der neuen Auswertung. Züge, die du schon geschickt hast, bleiben "
            "gespeichert; prüfe sie nach der neuen Auswertung. Züge für Runde {joined} nimmt der Bot an, sobald "
            "die Runde offen ist.", joined=p.joined_round, n=n) + " " + tail(t), tag="zurueck", players=[p],
            subject=subject)
    later = (f" Nach Runde {n} angemeldet: {', '.join(p.name for p in joiners)}; ihre NMR-Zeilen der Runde {n} "
             "bleiben und werden bei der neuen Auswertung neu gewertet." if joiners else "")
    return _done(league, "ZURUECK", f"Runde {n} von {league.name} ist zurückgesetzt und wieder offen; die Liga ist "
                 f"angehalten (AUSWERTEN wertet neu aus, WEITER setzt fort). Auswertungen: {withdrawn} "
                 f"zurückgezogen, {sent} schon verschickt (nicht zurückholbar). {_told(s, count)}."
                 f"{later}")


def message(s: Session, cfg: Config, league: League | str, text: str, *, now: datetime | None = None) -> str:
    """Mail ``text`` to every active player."""
    league = _league(s, league)
    text = text.strip()
    if not text:
        raise GMError("die Nachricht ist leer.")
    if still(s):
        raise GMError("eine Nachricht an alle lässt sich nicht still verschicken (STILL weglassen).")
    n = announce(s, cfg, league, lambda t: t.gettext("eine Nachricht des Spielleiters an alle in {league}:",
                                                     league=league.name) + "\n\n" + text,
                 tag="nachricht", subject=lambda t: t.gettext("{league}: Nachricht des Spielleiters",
                                                              league=league.name))
    return _done(league, "NACHRICHT", f"Nachricht an {n} Spieler von {league.name} verschickt" + (
        f" (geht um {s.info['gm_notice_due']} hinaus, mit weiteren Mitteilungen bis dahin in einer Mail)."
        if s.info.get("gm_notice_due") else "."))


def set_review(s: Session, cfg: Config, league: League | str, on: bool, *, now: datetime | None = None) -> str:
    """Review mode on (Auswertungen wait for :func:`release`) or off."""
    league = _league(s, league)
    if bool(league.review) == bool(on):
        raise GMError(f"die Prüfung der Auswertungen ist in {league.name} schon {'an' if on else 'aus'}.")
    league.review = bool(on)
    held = s.scalars(select(OutboxMail.id).where(OutboxMail.league_id == league.id,
                                                 OutboxMail.status == "held")).all()
    n = announce(s, cfg, league, lambda t: (
        t.gettext("der Spielleiter prüft ab jetzt jede Auswertung von {league}, bevor sie verschickt wird; sie kann "
                  "daher etwas später kommen.", league=league.name) if on else
        t.gettext("die Auswertungen von {league} gehen ab jetzt wieder gleich nach dem ZAT hinaus.",
                  league=league.name)), tag="review",
        subject=lambda t: (t.gettext("{league}: Auswertungen mit Prüfung", league=league.name) if on else
                           t.gettext("{league}: Auswertungen ohne Prüfung", league=league.name)))
    rest = f" {len(held)} zurückgehaltene Mails warten noch auf FREIGEBEN." if held and not on else ""
    return _done(league, "REVIEW", f"Prüfung der Auswertungen in {league.name}: {'an' if on else 'aus'}.{rest} "
                 f"{_told(s, n)}.")


def release(s: Session, cfg: Config, league: League | str, *, now: datetime | None = None) -> str:
    """Send every held Auswertung of the league (status held -> pending)."""
    league = _league(s, league)
    rows = s.scalars(select(OutboxMail).where(OutboxMail.league_id == league.id, OutboxMail.status == "held")).all()
    if not rows:
        raise GMError(f"in {league.name} wartet keine Auswertung auf Freigabe.")
    for r in rows:
        r.status = "pending"
    rounds = sorted({r.round_number for r in rows if r.round_number is not None})
    return _done(league, "FREIGEBEN", f"{len(rows)} Auswertungen von {league.name} (Runde "
                 f"{', '.join(map(str, rounds))}) freigegeben; sie gehen jetzt hinaus.")


def decide_address(s: Session, cfg: Config, league: League | str, player: str, ok: bool, *, by: str = "gm",
                   now: datetime | None = None) -> str:
    """Confirm (``ok``) or refuse the address change of ``player`` (name, address or unique
    first name) that waits for the game master (an unproven ``ADRESSE``:
    :class:`~bot.storage.models.AddressChange`). Confirmed, the address is added and becomes
    the first, and both the new and the old address are told; refused, the old address is
    told and the new one gets nothing. ``by``: ``gm`` (mail) or ``cli``. Raises
    :class:`GMError` when nothing waits for the player, or when the address was taken
    meanwhile (:func:`~bot.service.conversations.commands.address_refusal`). Source: issue 31."""
    league, now = _league(s, league), _utcnow(now)
    p = find_player(s, league, player)
    change = pending_change(s, p)
    if change is None:
        raise GMError(f"für {p.name} wartet keine Adressänderung.")
    lang = league_language(league.options)
    t = texts(lang)
    if ok:
        why = address_refusal(s, cfg, p, change.email, "de")
        if why:
            raise GMError(why)
        set_address(s, p, change.email)
        change.status = "confirmed"
        body = wrap(t.gettext("der Spielleiter hat deine neue Adresse bestätigt.") + " " + t.gettext(
            "Auswertungen gehen ab jetzt an {new}. Züge kannst du von allen deinen Adressen schicken ({all}).",
            new=change.email, all=", ".join(a.email for a in p.addresses)))
        targets = {"neu": change.email, "alt": change.old_email}
    else:
        change.status = "refused"
        body = wrap(t.gettext("der Spielleiter hat die Bitte abgelehnt, deine Mails aus {league} an {new} zu "
                              "schicken; alles geht weiter an {old}.", league=league.name, new=change.email,
                              old=p.email))
        targets = {"alt": change.old_email}
    change.decided_at, change.decided_by = now, by
    subject = t.gettext("{league}: deine Adresse", league=league.name)
    for role, to in targets.items():
        if role == "alt" and to == targets.get("neu"):
            continue
        queue_mail(s, cfg, key=f"adresse:{change.id}:{change.status}:{role}", kind="gm", to=to, subject=subject,
                   text=render("notice.txt.j2", lang, name=p.name, body=body), league_id=league.id)
    if ok:
        return _done(league, "ADRESSE", f"{p.name}: Auswertungen gehen ab jetzt an {change.email} (bisher "
                     f"{change.old_email}); beide Adressen sind benachrichtigt.")
    return _done(league, "ADRESSE", f"{p.name}: die Adressänderung an {change.email} ist abgelehnt; alles geht "
                 f"weiter an {p.email}, die Adresse ist benachrichtigt.")


def _decision(rest: str, league: League) -> tuple[bool, str]:
    """(confirmed?, player) of ``OK <Spieler>`` / ``NEIN <Spieler>``."""
    word, _, who = rest.strip().partition(" ")
    w = word.lower()
    if w in ("ok", "ja", "yes") and who.strip():
        return True, who.strip()
    if w in ("nein", "nee", "no") and who.strip():
        return False, who.strip()
    raise GMError(f"bitte so: ADRESSE {league.name} OK <Spieler> oder ADRESSE {league.name} NEIN <Spieler>.")


# -- by mail -----------------------------------------------------------------------------

Op = Callable[[Session, Config, League, str, str, Incoming], str]


def _match_league(leagues: Sequence[League], arg: str) -> tuple[League | None, str]:
    low = arg.lower()
    for lg in sorted(leagues, key=lambda x: -len(x.name)):
        name = lg.name.lower()
        if low == name or (low.startswith(name) and low[len(name)].isspace()):
            return lg, arg[len(name):].strip()
    return None, arg


def _body(ctx: Incoming, name: str) -> str:
    """The mail text after the command line (all of it when the command is the subject),
    without the code line."""
    _, text = take_code(ctx.rm.new_text)
    subj = REPLY_PREFIX.sub("", (ctx.rm.subject or "").strip()).strip()
    if ALIASES.get(subj.partition(" ")[0].upper().rstrip(".!:")) == name:
        return text.strip()
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines[1:]).strip()


def _gm_mail(ctx: Incoming, arg: str, name: str, op: Op) -> bool | None:
    s, sender = ctx.s, (ctx.rm.from_addr or "").lower()
    code, _ = take_code(ctx.rm.new_text)
    leagues = s.scalars(select(League).order_by(League.id)).all()
    league, rest = _match_league(leagues, arg)
    gm_of = [lg for lg in leagues if lg.gm_email and lg.gm_email.lower() == sender]
    if league is None:
        is_player = s.scalar(select(PlayerAddress.id).join(Player).join(League).where(
            PlayerAddress.email == sender, Player.active, League.status == "running").limit(1)) is not None
        if is_player and not any(check_code(code, lg.gm_code_hash) for lg in gm_of):
            return False  # e.g. "Weiter so, hier meine Züge": a player's mail, not a GM command
        subj = (ctx.rm.subject or "").lower()
        named = [lg for lg in leagues if re.search(rf"(?<!\S){re.escape(lg.name.lower())}(?!\S)", subj)]
        choice = named if len(named) == 1 else gm_of
        league = choice[0] if len(choice) == 1 else None
    if league is None:
        ctx.record("rejected", "command", command=name, reason="league unknown")
        if gm_of:
            return ctx.reply(f"für welche Liga? Bitte so: {name} <Liga> ... (deine Ligen: "
                             f"{', '.join(lg.name for lg in gm_of)}). Nichts wurde verändert.", name="Spielleiter")
        ctx.mail.flagged = f"GM command {name} from {sender}: no league of this GM"
        return ctx.reply("Spielleiter-Befehle nimmt der Bot nur von der Adresse des Spielleiters einer Liga an; "
                         "deine Mail wurde nicht ausgeführt und hat nichts verändert.")
    ctx.league = league
    ctx.mail.league_id = league.id
    ok_addr = bool(league.gm_email) and sender == league.gm_email.lower()
    ok_code = check_code(code, league.gm_code_hash)
    if not (ok_addr and ok_code):
        reason = ("wrong sender address" if not ok_addr else "GM code not set for league"
                  if not league.gm_code_hash else "GM code missing" if not code else "GM code wrong")
        ctx.record("rejected", "command", command=name, league=league.name, reason=reason)
        ctx.mail.flagged = f"GM command {name} for {league.name}: {reason} (from {sender})"
        log.warning("Spielleiter-Befehl %s für %s abgelehnt: %s (von %s)", name, league.name, reason, sender)
        why = {"wrong sender address": f"von {sender}, nicht von der Adresse des Spielleiters",
               "GM code not set for league": "an eine Liga ohne Spielleiter-Code (gm_code in der Ligadatei)",
               "GM code missing": "ohne den Spielleiter-Code",
               "GM code wrong": "mit einem falschen Spielleiter-Code"}[reason]
        if league.gm_email:  # at most one notice an hour, however many arrive (bot.service.conversations.loops)
            auth_failure(ctx, owner=f"gm:{league.id}", to=league.gm_email, name="Spielleiter",
                         subject=f"{league.name}: Spielleiter-Befehl abgelehnt",
                         first_text=f"ein Spielleiter-Befehl {name} für {league.name} kam {why} und wurde nicht "
                         "ausgeführt; nichts wurde verändert. Ein Befehl braucht die Adresse des Spielleiters und "
                         "den Code in einer eigenen Zeile ('Code: ...'). Warst du das nicht, prüfe bitte, wer den "
                         "Code kennt.", what=f"Spielleiter-Befehle für {league.name}")
        return None
    proven(ctx, f"gm:{league.id}")
    rest, quiet = _take_word(rest, "STILL")
    if not quiet:  # STILL also in a line of its own below the command
        quiet = any(ln.strip().upper() == "STILL" for ln in _body(ctx, name).splitlines())
    s.info.update(gm_still=quiet, gm_by=f"mail {sender}", gm_now=ctx.now, gm_notice_due=None)
    try:
        done = op(s, ctx.cfg, league, rest, _body(ctx, name), ctx)
    except LeagueError as exc:
        ctx.record("processed", "command", command=name, league=league.name, arg=rest, error=str(exc))
        return ctx.reply(wrap(f"{name} {league.name}: nicht ausgeführt: {exc}"), name="Spielleiter",
                         kind="command")
    ctx.record("processed", "command", command=name, league=league.name, arg=rest, done=done)
    ctx.reply(wrap(done), name="Spielleiter", kind="command")
    return None


#: the game master's mail commands (listed with the players' in
#: :mod:`bot.service.conversations.registry`)
GM_COMMANDS = CommandTable()
ALIASES = GM_COMMANDS.aliases
command = GM_COMMANDS.command


def _take_word(rest: str, word: str) -> tuple[str, bool]:
    """``rest`` without a leading or trailing ``word`` (any case), and whether it was there."""
    words = rest.split()
    if words and words[-1].upper() == word:
        return " ".join(words[:-1]), True
    if words and words[0].upper() == word:
        return " ".join(words[1:]), True
    return rest, False


def _gm_command(name: str, *aliases: str, help: str = "", shown: str | None = None):
    """Register ``op`` as the GM mail command ``name`` (``shown``: the word the answers
    use, when the registry's name is not the one the GM writes)."""
    def deco(op: Op) -> Op:
        @command(name, *aliases, gm=True, needs_player=False, help=help)
        def handler(ctx: Incoming, arg: str) -> bool | None:
            return _gm_mail(ctx, arg, shown or name, op)
        return op
    return deco


def _on_off(value: str) -> bool:
    v = value.strip().lower()
    if v in ("an", "ein", "on", "ja", "yes", "1", "true"):
        return True
    if v in ("aus", "off", "nein", "no", "0", "false"):
        return False
    raise GMError(f"'{value}': bitte 'an' oder 'aus'.")


@_gm_command("ZAT", "DEADLINE", help="ZAT <Liga> <+2d | +12h | 13.12.2026 20:00> [ALLE] [STILL]")
def _m_zat(s, cfg, lg, rest, body, ctx):
    rest, alle = _take_word(rest, "ALLE")
    if not rest:
        raise GMError("welcher ZAT? Bitte so: ZAT <Liga> +2d oder ZAT <Liga> 13.12.2026 20:00")
    return set_zat(s, cfg, lg, rest, now=ctx.now, alle=alle)


@_gm_command("STATUS", help="STATUS <Liga>: läuft oder angehalten (seit wann, von wem), Runde, ZAT")
def _m_status(s, cfg, lg, rest, body, ctx):
    return status(s, cfg, lg, now=ctx.now)


@_gm_command("PAUSE", "PAUSIEREN", "ANHALTEN", help="PAUSE <Liga>")
def _m_pause(s, cfg, lg, rest, body, ctx):
    return pause(s, cfg, lg, now=ctx.now)


@_gm_command("WEITER", "RESUME", "FORTSETZEN", help="WEITER <Liga>")
def _m_weiter(s, cfg, lg, rest, body, ctx):
    return resume(s, cfg, lg, now=ctx.now)


@_gm_command("AUSWERTEN", "PROCESS", "ADJUDICATE", help="AUSWERTEN <Liga>: die offene Runde jetzt")
def _m_auswerten(s, cfg, lg, rest, body, ctx):
    return process_now(s, cfg, lg, now=ctx.now)


@_gm_command("ERLAUBE", "ERLAUBEN", "ALLOW", help="ERLAUBE <Liga> <WORT>")
def _m_erlaube(s, cfg, lg, rest, body, ctx):
    return allow_word(s, cfg, lg, rest, now=ctx.now)


@_gm_command("VERBIETE", "VERBIETEN", "SPERRE", "DENY", help="VERBIETE <Liga> <WORT>")
def _m_verbiete(s, cfg, lg, rest, body, ctx):
    return deny_word(s, cfg, lg, rest, now=ctx.now)


@_gm_command("SETZE", "SETZEN", "SET", help="SETZE <Liga> <Spieler> <Partie>, die Züge darunter")
def _m_setze(s, cfg, lg, rest, body, ctx):
    who, partie = _player_partie(lg, rest)
    moves: list[str] = []
    for ln in body.splitlines():  # the lines right below the command, up to the first empty line
        if not ln.strip() and moves:
            break
        moves.append(ln)
    return set_move(s, cfg, lg, who, partie, moves, mail_id=ctx.mail.id, now=ctx.now)


def _player_partie(league: League, rest: str) -> tuple[str, str]:
    words = rest.split()
    names = {p.name.lower() for p in league.partien}
    if words and words[-1].rstrip(":").lower() in names:
        return " ".join(words[:-1]), words[-1].rstrip(":")
    if len(league.partien) == 1:
        return rest, league.partien[0].name
    raise GMError(f"welche Partie? Bitte so: SETZE {league.name} <Spieler> <Partie> "
                  f"(Partien: {', '.join(p.name for p in league.partien)}), die Züge in den Zeilen darunter.")


@_gm_command("ENTFERNE", "ENTFERNEN", "REMOVE", help="ENTFERNE <Liga> <Spieler>")
def _m_entferne(s, cfg, lg, rest, body, ctx):
    return remove_player(s, cfg, lg, rest, now=ctx.now)


@_gm_command("ZURUECK", "ZURÜCK", "ROLLBACK", help="ZURUECK <Liga>: die letzte Auswertung zurücknehmen")
def _m_zurueck(s, cfg, lg, rest, body, ctx):
    return rollback(s, cfg, lg, now=ctx.now)


@_gm_command("NACHRICHT", "MESSAGE", "RUNDMAIL", help="NACHRICHT <Liga>, der Text darunter")
def _m_nachricht(s, cfg, lg, rest, body, ctx):
    return message(s, cfg, lg, "\n".join(x for x in (rest, body) if x), now=ctx.now)


@_gm_command("REVIEW", "PRUEFUNG", "PRÜFUNG", help="REVIEW <Liga> an|aus")
def _m_review(s, cfg, lg, rest, body, ctx):
    return set_review(s, cfg, lg, _on_off(rest), now=ctx.now)


@_gm_command("FREIGEBEN", "FREIGABE", "RELEASE", help="FREIGEBEN <Liga>: zurückgehaltene Auswertungen senden")
def _m_freigeben(s, cfg, lg, rest, body, ctx):
    return release(s, cfg, lg, now=ctx.now)


@_gm_command("ADRESSE-GM", help="ADRESSE <Liga> OK|NEIN <Spieler>: eine wartende Adressänderung",
             shown="ADRESSE")
def _m_adresse(s, cfg, lg, rest, body, ctx):
    # reached through find_command: ADRESSE with OK|NEIN <Spieler> (bot.service.conversations.registry)
    ok, who = _decision(rest, lg)
    return wrap(decide_address(s, cfg, lg, who, ok, by="gm", now=ctx.now))


# -- by CLI ------------------------------------------------------------------------------

CLI_OPS = ("zat", "status", "pause", "weiter", "auswerten", "erlaube", "verbiete", "setze", "entferne", "zurueck",
           "nachricht", "review", "freigeben", "adresse")


def cli_record(s: Session, cfg: Config, league: League, op: str, args: dict[str, Any], now: datetime) -> InboundMail:
    """Store a CLI GM action like a mail (source ``cli``), so every GM action has a row."""
    body = f"spielleiter gm {op} {league.name}\n" + "\n".join(f"{k}: {v}" for k, v in args.items()) + \
        f"\n{now.isoformat()} {uuid.uuid4().hex}\n"
    raw = compose(sender=cfg.sender, to=cfg.sender, subject=f"{op.upper()} {league.name} (CLI)", text=body)
    row = InboundMail(source="cli", sha256=hashlib.sha256(raw).hexdigest(), raw=raw, from_addr=cfg.sender_addr,
                      subject=f"{op.upper()} {league.name} (CLI)", status="processed", kind="command",
                      league_id=league.id, received_at=now,
                      parse={"command": op.upper(), "league": league.name, "via": "cli", **args})
    s.add(row)
    s.flush()
    return row


def run_cli(s: Session, cfg: Config, op: str, name: str, *, now: datetime | None = None, still: bool = False,
            **kw: Any) -> str:
    """Run GM operation ``op`` (one of :data:`CLI_OPS`) on league ``name``; returns the answer.
    ``still``: no notice to the players (``--still``)."""
    now = _utcnow(now)
    league = find_league(s, name)
    if op == "status":
        return status(s, cfg, league, now=now)
    s.info.update(gm_still=bool(still), gm_by="cli", gm_now=now, gm_notice_due=None)
    rec = cli_record(s, cfg, league, op, {k: v for k, v in dict(kw, still=still or None).items()
                                          if v is not None}, now)
    if op == "zat":
        done = set_zat(s, cfg, league, kw["when"], now=now, alle=bool(kw.get("alle")))
    elif op == "pause":
        done = pause(s, cfg, league, now=now)
    elif op == "weiter":
        done = resume(s, cfg, league, now=now)
    elif op == "auswerten":
        done = process_now(s, cfg, league, now=now)
    elif op == "erlaube":
        done = allow_word(s, cfg, league, kw["word"], now=now)
    elif op == "verbiete":
        done = deny_word(s, cfg, league, kw["word"], now=now)
    elif op == "setze":
        done = set_move(s, cfg, league, kw["player"], kw["partie"], kw["moves"], mail_id=rec.id, now=now)
    elif op == "entferne":
        done = remove_player(s, cfg, league, kw["player"], now=now)
    elif op == "zurueck":
        done = rollback(s, cfg, league, now=now)
    elif op == "nachricht":
        done = message(s, cfg, league, kw["text"], now=now)
    elif op == "review":
        done = set_review(s, cfg, league, _on_off(kw["mode"]), now=now)
    elif op == "freigeben":
        done = release(s, cfg, league, now=now)
    elif op == "adresse":
        done = decide_address(s, cfg, league, kw["player"], kw["decision"].lower() in ("ok", "ja", "yes"),
                              by="cli", now=now)
    else:
        raise GMError(f"unbekannter Spielleiter-Befehl {op!r}.")
    rec.parse = dict(rec.parse or {}, done=done)
    return done

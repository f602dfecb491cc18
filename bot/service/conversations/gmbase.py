"""What every operation of the game master uses (:mod:`bot.service.conversations.gm`):
:class:`GMError`, the lookups of a league, a player and a Partie, the ZAT a GM writes
(:func:`parse_zat`), and :func:`announce`, the notice to the players (quiet with STILL,
merged with the others of a few minutes, issue 33)."""

from __future__ import annotations

import logging
import re
import uuid
from datetime import datetime, timedelta, timezone
from typing import Callable, Sequence
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.i18n import DEFAULT, N_, Texts, league_language, texts
from bot.games import get_game
from bot.render import render, wrap
from bot.service.domain.league import LeagueError, find_league, open_round, period_name
from bot.service.stages.outbox import queue_mail
from bot.storage.models import (League, OutboxMail, Partie, Player, Round)

log = logging.getLogger(__name__)



class GMError(LeagueError):
    """A GM request that cannot be done; nothing was changed. ``GMError(N_("... {name} ..."),
    name=...)`` (a German msgid with named fields) or ``GMError(lambda t: ...)`` (a text of
    the :class:`~bot.i18n.Texts` of a language): ``str()`` is the German text (the CLI, the
    log), :meth:`render` the text in another language (the answer mailed to a GM in
    ``gm_language``)."""

    def __init__(self, msgid: str | Callable[[Texts], str], /, **params: object) -> None:
        self.say: Callable[[Texts], str] = msgid if callable(msgid) else (
            lambda t: t.gettext(msgid, **params))
        super().__init__(self.say(texts(DEFAULT)))

    def render(self, lang: str) -> str:
        return self.say(texts(lang))


class Said(str):
    """The answer to a GM action: the German text (what the CLI prints; a ``str``) that can
    be said in another language (:meth:`render`), from ``say``, a function of the
    :class:`~bot.i18n.Texts` of a language."""

    say: Callable[[Texts], str]

    def __new__(cls, say: Callable[[Texts], str]) -> "Said":
        obj = super().__new__(cls, say(texts(DEFAULT)))
        obj.say = say
        return obj

    def render(self, lang: str) -> str:
        """The answer in ``lang``."""
        return self.say(texts(lang))


def said(answer: str, lang: str) -> str:
    """``answer`` in ``lang`` when it is a :class:`Said` (or an error that renders), else as it is."""
    render = getattr(answer, "render", None)
    return render(lang) if callable(render) else str(answer)


# -- helpers -----------------------------------------------------------------------------

def get_league(s: Session, league: League | str) -> League:
    return find_league(s, league) if isinstance(league, str) else league


def utcnow(now: datetime | None) -> datetime:
    return now or datetime.now(timezone.utc)


def active_players(league: League) -> list[Player]:
    return [p for p in league.players if p.active]


Text = str | Callable[[Texts], str]


def still(s: Session) -> bool:
    """Whether the GM action under way is quiet (``--still`` / ``STILL``): no notice to
    the players (set by :func:`run_cli` and the mail commands in ``s.info``)."""
    return bool(s.info.get("gm_still"))


def told(t: Texts, s: Session, n: int) -> str:
    """The end of a GM answer in the language of ``t``: how many players are told, or that
    none is (STILL), and when a notice waits to be merged with the next ones
    (:func:`announce`)."""
    if still(s):
        return t.gettext("Still: kein Spieler benachrichtigt.")
    wait = s.info.get("gm_notice_due")
    if n and wait:
        return t.ngettext("{n} Spieler benachrichtigt (die Mitteilung geht um {time} Uhr hinaus, mit weiteren "
                          "bis dahin in einer Mail).",
                          "{n} Spieler benachrichtigt (die Mitteilung geht um {time} Uhr hinaus, mit weiteren "
                          "bis dahin in einer Mail).", n, time=wait)
    return t.ngettext("{n} Spieler benachrichtigt.", "{n} Spieler benachrichtigt.", n)


def period(t: Texts, league: League, number: int) -> str:
    """The period ``number`` (a round's number) of ``league`` as a noun phrase inside a
    sentence, in the language of ``t``: :func:`~bot.service.domain.league.period_name`.
    :func:`cap` puts it at the start of a sentence."""
    return period_name(get_game(league.game), number, t.lang)


def cap(text: str) -> str:
    """``text`` with a capital first letter (a sentence that starts with :func:`period`)."""
    return text[:1].upper() + text[1:]


#: The notices that speak of the pause themselves (a new ZAT and a set move add the
#: pause sentence, ZURUECK pauses the league and says why).
_SAY_PAUSE = frozenset({"pause", "weiter", "zat", "setze", "zurueck"})


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
    targets = list(players) if players is not None else active_players(league)
    lang = league_language(league.options)
    t = texts(lang)
    # during a pause every notice says so (issue 33); these notices say it themselves
    pause = "\n\n" + paused_note(t, league) if league.paused and tag not in _SAY_PAUSE else ""
    text = None if per_player else wrap((body(t) if callable(body) else body).strip() + pause)
    subj = (subject(t) if callable(subject) else subject) if subject else \
        t.gettext("{league}: Mitteilung des Spielleiters", league=league.name)
    window = float(getattr(cfg, "gm_notice_window", 0) or 0)
    now = s.info.get("gm_now") or datetime.now(timezone.utc)
    for p in targets:
        if not p.email:
            continue
        own = wrap(body(t, p).strip() + pause) if per_player else text  # type: ignore[call-arg,operator]
        if window <= 0:
            queue_mail(s, cfg, key=f"gm:{league.id}:{tag}:{uid}:{p.id}", kind="gm", to=p.email, subject=subj,
                       text=render("notice.txt.j2", lang, name=p.name, body=own, league=league.name), league_id=league.id,
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
                         text=render("notice.txt.j2", lang, name=p.name, body=_merged_body(t, league, parts),
                                     league=league.name),
                         league_id=league.id, round_number=rnd.number if rnd else None)
        row.notices, row.next_attempt_at = parts, due
        s.info["gm_notice_due"] = due.astimezone(ZoneInfo(league.timezone)).strftime("%H:%M")
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


def partien_words(partien: dict[str, str | None], t: Texts | None = None) -> str:
    """``Partie K1 (HAUS), Partie K2``: the Partien of an adjudicated round with the word
    laid where the game lays one (the answer to AUSWERTEN and ``spielleiter adjudicate``),
    in the language of ``t`` (German without)."""
    t = t or texts(DEFAULT)
    return ", ".join(t.gettext("Partie {partie} ({word})", partie=k, word=v) if v else
                     t.gettext("Partie {partie}", partie=k) for k, v in partien.items())


def done(league: League, op: str, say: Callable[[Texts], str]) -> Said:
    """The answer to GM action ``op``, ``say`` a function of the :class:`~bot.i18n.Texts` of
    a language (German for the CLI and the log, the GM's language for a mail); logged."""
    answer = Said(say)
    log.info("GM %s %s: %s", league.name, op, answer)
    return answer


def open_round_of(s: Session, league: League) -> Round:
    rnd = open_round(s, league)
    if rnd is None:
        raise GMError(N_("{league} hat keine offene Runde mehr (die Liga ist beendet)."), league=league.name)
    return rnd


def find_player(s: Session, league: League, spec: str) -> Player:
    """A player of ``league`` by full name, address, or a unique first name/prefix."""
    want = spec.strip().lower()
    if not want:
        raise GMError(N_("welcher Spieler? Bitte den Namen angeben."))
    players = list(league.players)
    for test in (lambda p: p.name.lower() == want,
                 lambda p: any(a.email == want for a in p.addresses),
                 lambda p: p.name.lower().split()[0] == want if p.name.split() else False,
                 lambda p: p.name.lower().startswith(want)):
        hits = [p for p in players if test(p)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise GMError(N_("'{spec}' passt auf mehrere Spieler: {names}."), spec=spec,
                              names=", ".join(p.name for p in hits))
    raise GMError(N_("einen Spieler '{spec}' gibt es in {league} nicht. Spieler in {league}: {names}."), spec=spec,
                  league=league.name, names=", ".join(p.name for p in players))


def find_partie(s: Session, league: League, name: str) -> Partie:
    for p in league.partien:
        if p.name.lower() == name.strip().lower():
            return p
    raise GMError(N_("eine Partie '{partie}' gibt es in {league} nicht. Partien in {league}: {names}."), partie=name,
                  league=league.name, names=", ".join(p.name for p in league.partien))


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
            raise GMError(N_("'{text}' verstehe ich nicht; Beispiele: +2d, +12h, 13.12.2026 20:00."), text=text)
        delta = timedelta()
        for n, unit in parts:
            if unit not in _UNITS:
                raise GMError(N_("die Einheit '{unit}' verstehe ich nicht (d, h, min)."), unit=unit)
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
            raise GMError(N_("'{text}' ist kein gültiges Datum."), text=text) from None
        if not y and local < utcnow(now):
            local = local.replace(year=year + 1)
        return local.astimezone(timezone.utc)
    try:
        when = datetime.fromisoformat(t)
    except ValueError:
        raise GMError(N_("'{text}' verstehe ich nicht; Beispiele: +2d, +12h, 13.12.2026 20:00, "
                         "2026-12-13T20:00."), text=text) from None
    if len(t) <= 10:  # a date only
        when = when.replace(hour=cur_local.hour, minute=cur_local.minute)
    if when.tzinfo is None:
        when = when.replace(tzinfo=tz)
    return when.astimezone(timezone.utc)


def paused_note(t: Texts, league: League) -> str:
    """The sentence a notice during a pause ends with (issue 33)."""
    return t.gettext("{league} ist zurzeit angehalten: kein ZAT wird ausgeführt, bis der Spielleiter die Liga "
                     "fortsetzt; du bekommst dann Bescheid. Deine Züge kannst du auch jetzt schicken oder ändern.",
                     league=league.name)

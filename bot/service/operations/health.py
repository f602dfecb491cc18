"""How the service lives with a failing mail server: backoff, few log lines, the GM told.

:class:`Outage` follows one server (IMAP or SMTP) for ``spielleiter run``: the first
failure is logged as one line (the traceback only at DEBUG), every later failed attempt
as one summary line, and the recovery as one line ("IMAP wieder erreichbar nach 3 min,
7 Versuche"). While it fails, the next attempt waits ``interval * 2**n`` seconds, at most
``interval * 10``. :func:`inbox_alarm` and :func:`inbox_recovered` queue the mails to the
game masters after an hour of IMAP failures and when it works again.

Decision (the rules are silent): the alarm goes to every distinct ``gm_email`` of the
running leagues, once per outage (keyed by its start), and the recovery mail only to those
who got the alarm.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone
from typing import Callable

from sqlalchemy import select

from bot.config import Config
from bot.mail.transport import ServerFailure
from bot.i18n import gm_language, texts
from bot.render import format_zat, nobreak, render, wrap
from bot.service.stages.outbox import queue_mail
from bot.storage.db import Database
from bot.storage.models import League, OutboxMail

log = logging.getLogger(__name__)

#: the backoff never waits longer than this many poll intervals
BACKOFF_CAP = 10


def duration(seconds: float) -> str:
    """``0,4 s``, ``45 s``, ``3 min``, ``2 h 5 min`` (German, rounded)."""
    if seconds < 9.95:
        return f"{seconds:.1f}".rstrip("0").rstrip(".").replace(".", ",") + " s"
    s = int(round(seconds))
    if s < 90:
        return f"{s} s"
    if s < 90 * 60:
        return f"{round(s / 60)} min"
    h, m = divmod(round(s / 60), 60)
    return f"{h} h {m} min" if m else f"{h} h"


def spoken_duration(seconds: float, lang: str) -> str:
    """``seconds`` as a game master writes them in a mail to a game master, in ``lang``
    (plural forms from the catalog), rounded as :func:`duration`: ``45 Sekunden``,
    ``65 Minuten``, ``1 Stunde``, ``2 Stunden und 5 Minuten`` (Dutch ``45 seconden``,
    ``2 uur en 5 minuten``). :func:`duration` is the short form of the operator's log
    lines (German)."""
    t = texts(lang)
    s = max(1, int(round(seconds)))
    if s < 90:
        return t.ngettext("{n} Sekunde", "{n} Sekunden", s)
    if s < 90 * 60:
        return t.ngettext("{n} Minute", "{n} Minuten", round(s / 60))
    h, m = divmod(round(s / 60), 60)
    hours = t.ngettext("{n} Stunde", "{n} Stunden", h)
    return t.gettext("{hours} und {minutes}", hours=hours,
                     minutes=t.ngettext("{n} Minute", "{n} Minuten", m)) if m else hours


class Outage:
    """Failures of one server (``name``: "IMAP", "SMTP", "Datenbank") and the backoff they
    cause. ``exc`` of :meth:`failed` has ``line()``, ``kind`` and ``KIND_TEXT`` (a
    :class:`~bot.mail.transport.ServerFailure` or a
    :class:`~bot.storage.db.DatabaseUnavailable`).

    ``interval``: the normal seconds between attempts. ``clock``: wall clock (UTC), to be
    replaced in tests. Thread-safe: the database's outage is met by every loop."""

    def __init__(self, name: str, interval: float, *, clock: Callable[[], datetime] | None = None,
                 logger: logging.Logger | None = None) -> None:
        self.name, self.interval = name, interval
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        self.log = logger or log
        self.since: datetime | None = None
        self.attempts = 0
        self.last: ServerFailure | None = None
        self._lock = threading.Lock()

    @property
    def failing(self) -> bool:
        return self.since is not None

    def down_for(self) -> float:
        """Seconds since the first failure of this outage (0 when it works)."""
        return (self.clock() - self.since).total_seconds() if self.since else 0.0

    def delay(self) -> float:
        """Seconds until the next attempt: ``interval`` when working, else the backoff."""
        if not self.failing:
            return self.interval
        return min(self.interval * 2 ** self.attempts, self.interval * BACKOFF_CAP)

    def failed(self, exc: ServerFailure) -> float:
        """Record a failed attempt and log it (one line); returns the delay to the next."""
        with self._lock:
            return self._failed(exc)

    def _failed(self, exc: ServerFailure) -> float:
        first = not self.failing
        if first:
            self.since, self.attempts = self.clock(), 0
        self.attempts += 1
        self.last = exc
        wait = self.delay()
        if first:
            self.log.error("%s (nächster Versuch in %s)", exc.line(), duration(wait),
                           exc_info=self.log.isEnabledFor(logging.DEBUG))
        else:
            self.log.warning("%s weiter gestört seit %s (%d Versuche): %s; nächster Versuch in %s", self.name,
                             duration(self.down_for()), self.attempts, exc.KIND_TEXT[exc.kind], duration(wait))
        return wait

    def succeeded(self) -> tuple[datetime, float, int] | None:
        """Record a working attempt. After an outage: log the recovery line, forget the
        outage and return ``(since, seconds, attempts)``; else None."""
        if not self.failing:
            return None
        with self._lock:
            return self._succeeded()

    def _succeeded(self) -> tuple[datetime, float, int] | None:
        if not self.failing:
            return None
        since, secs, attempts = self.since, self.down_for(), self.attempts + 1
        self.log.info("%s wieder erreichbar nach %s, %d Versuche", self.name, duration(secs), attempts)
        self.since, self.attempts, self.last = None, 0, None
        return since, secs, attempts

    def note(self) -> Callable[[str], str] | None:
        """What the GM copy of an Auswertung says when the inbox could not be read, as a
        function of the GM's language (``gm_note`` of
        :func:`~bot.service.stages.rounds.adjudicate_league`); None while the inbox works."""
        if not self.failing or self.last is None:
            return None
        last, seconds = self.last, self.down_for()
        return lambda lang: texts(lang).gettext(
            "Der Posteingang konnte vor dem ZAT nicht gelesen werden ({error}; gestört seit {down}). Ausgewertet "
            "wurde, was bis dahin gespeichert war; Züge, die noch auf dem Server liegen, fehlen in dieser "
            "Auswertung. Wenn nötig nach dem nächsten Abruf mit ZURUECK zurücknehmen und neu auswerten.",
            error=error_line(last, lang), down=nobreak(spoken_duration(seconds, lang)))


def error_line(exc, lang: str) -> str:
    """``exc.line()`` (a failure of :class:`Outage`) with its kind in ``lang`` where it
    can give it (:meth:`~bot.mail.transport.ServerFailure.line`)."""
    return exc.line(lang) if isinstance(exc, ServerFailure) else exc.line()


def _gm_addresses(db: Database) -> list[tuple[int, str, str, str]]:
    """``(league id, league time zone, gm_email, GM's language)`` of every running league
    with a GM, one per address (the first league of each: its ``gm_language``)."""
    seen: dict[str, tuple[int, str, str, str]] = {}
    with db.session() as s:
        for lg in s.scalars(select(League).where(League.status == "running").order_by(League.id)):
            if lg.gm_email and lg.gm_email.lower() not in seen:
                seen[lg.gm_email.lower()] = (lg.id, lg.timezone, lg.gm_email, gm_language(lg.options))
    return list(seen.values())


def inbox_alarm(db: Database, cfg: Config, outage: Outage) -> int:
    """Queue one mail to every GM, in the language of the GM's first running league: the
    inbox cannot be read, since when, why. Keyed by the outage's start, so it is queued
    once. Returns the number of mails queued. The mail is about no one league: it is
    signed by the bot alone."""
    n = 0
    for league_id, tz, gm, lang in _gm_addresses(db):
        t = texts(lang)
        body = wrap(t.ngettext(
            "der Posteingang des Spielleiter-Bots kann seit {since} nicht gelesen werden ({n} Versuch).",
            "der Posteingang des Spielleiter-Bots kann seit {since} nicht gelesen werden ({n} Versuche).",
            outage.attempts, since=nobreak(format_zat(outage.since, tz, lang)))) + "\n\n" + wrap(t.gettext(
                "Letzter Fehler: {error}", error=error_line(outage.last, lang))) + "\n\n" + wrap(t.gettext(
                    "Züge, die Spieler jetzt schicken, bleiben auf dem Server liegen und werden gelesen, sobald er "
                    "wieder erreichbar ist; ZATs werden trotzdem pünktlich ausgewertet (mit dem, was gespeichert "
                    "ist). Bitte Server, Zugangsdaten und Konfiguration prüfen (spielleiter check)."))
        with db.session() as s:
            queue_mail(s, cfg, key=f"ops:imap-down:{outage.since.isoformat()}:{gm.lower()}", kind="gm-notice",
                       to=gm, subject=t.gettext("Spielleiter-Bot: Posteingang nicht lesbar"),
                       text=render("notice.txt.j2", lang, name=t.gettext("Spielleiter"), body=body),
                       league_id=league_id)
        n += 1
    return n


def inbox_recovered(db: Database, cfg: Config, since: datetime, seconds: float, attempts: int) -> int:
    """Queue the all-clear to every GM who got :func:`inbox_alarm` for the outage that
    began at ``since`` (in the same language). Returns the number of mails queued."""
    n = 0
    for league_id, tz, gm, lang in _gm_addresses(db):
        key = f"ops:imap-down:{since.isoformat()}:{gm.lower()}"
        with db.session() as s:
            if s.scalar(select(OutboxMail.id).where(OutboxMail.key == key)) is None:
                continue
            t = texts(lang)
            body = t.ngettext(
                "der Posteingang ist wieder lesbar (gestört seit {since}, {down}, {n} Versuch). Die "
                "liegengebliebenen Mails werden jetzt gelesen und bestätigt.",
                "der Posteingang ist wieder lesbar (gestört seit {since}, {down}, {n} Versuche). Die "
                "liegengebliebenen Mails werden jetzt gelesen und bestätigt.",
                attempts, since=nobreak(format_zat(since, tz, lang)), down=nobreak(spoken_duration(seconds, lang)))
            queue_mail(s, cfg, key=f"ops:imap-up:{since.isoformat()}:{gm.lower()}", kind="gm-notice", to=gm,
                       subject=t.gettext("Spielleiter-Bot: Posteingang wieder lesbar"),
                       text=render("notice.txt.j2", lang, name=t.gettext("Spielleiter"), body=wrap(body)),
                       league_id=league_id)
        n += 1
    return n

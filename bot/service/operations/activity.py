"""Quiet logs for the service: one line per poll only when something happened, a
heartbeat at most once an hour, and APScheduler's per-job lines at DEBUG.

The service's inbox loop reports each poll (:meth:`Activity.poll`: a line when mail was
stored, else at most an hourly ``alive`` line), its outbox loop each delivery pass
(:meth:`Activity.delivered`: a line only when mail was sent or failed); ``spielleiter
poll`` reports both in one line. At a 10 s poll interval APScheduler alone wrote two INFO lines per poll ("Running job",
"Job ... executed successfully"), about 17,000 lines a day; :func:`quiet_apscheduler`
turns them into DEBUG records (shown only when DEBUG logging is on). :class:`Activity`
logs a poll that stored, sent or failed mail as ONE line and, when nothing happened for
an hour, one ``alive`` line with the number of quiet polls.
"""

from __future__ import annotations

import logging
import time

__all__ = ["Activity", "ACTIVITY", "quiet_apscheduler", "HEARTBEAT"]

log = logging.getLogger("bot.service.operations.runner")

#: Seconds without a logged line after which a poll logs that the service is alive.
HEARTBEAT = 3600.0


class Activity:
    """What the polls did since the last logged line."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock = clock
        self.last = clock()
        self.quiet = 0

    def poll(self, *, stored: int = 0, sent: int = 0, failed: int = 0) -> None:
        """Log one line for a poll that stored, sent or failed mail; else count it and log
        a heartbeat once :data:`HEARTBEAT` seconds passed without a line."""
        now = self.clock()
        if stored or sent or failed:
            done = [f"{stored} Mail{'s' if stored != 1 else ''} gespeichert"] if stored else []
            done += [f"{sent} gesendet"] if sent else []
            done += [f"{failed} gescheitert"] if failed else []
            log.info("Abruf: %s", ", ".join(done))
        elif now - self.last >= HEARTBEAT:
            log.info("läuft: keine neue Mail in den letzten %.0f min (Abrufe: %d)", (now - self.last) / 60, self.quiet + 1)
        else:
            self.quiet += 1
            return
        self.last, self.quiet = now, 0

    def delivered(self, *, sent: int = 0, failed: int = 0) -> None:
        """The outbox loop's pass: one line when it sent or failed mail, else nothing."""
        if sent or failed:
            log.info("Postausgang: %d gesendet%s", sent, f", {failed} gescheitert" if failed else "")
            self.last, self.quiet = self.clock(), 0

    def event(self) -> None:
        """Something else was logged (a ZAT fired): the heartbeat waits again."""
        self.last, self.quiet = self.clock(), 0


#: The service's activity (one per process).
ACTIVITY = Activity()


class _InfoToDebug(logging.Filter):
    """Turn INFO records into DEBUG ones; drop them unless DEBUG logging is on."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.INFO:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger().isEnabledFor(logging.DEBUG)
        return True


_FILTER = _InfoToDebug()


def quiet_apscheduler() -> None:
    """APScheduler's per-job INFO lines (executors) and job-store lines go to DEBUG."""
    for name in ("apscheduler.executors.default", "apscheduler.scheduler"):
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)

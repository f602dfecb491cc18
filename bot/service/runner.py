"""One pass (poll, read, deliver) and the long-running service.

The service runs three independent stages:

- the inbox loop: read stored mail, poll the inbox, queue reminders, (re)schedule the
  ZATs; every ``poll_interval`` seconds, with backoff while IMAP fails
  (:class:`bot.service.health.Outage`), one run at a time; woken at once when the IMAP
  IDLE watch (:mod:`bot.service.idle`) hears of new mail;
- the outbox loop: deliver due mail every ``poll_interval`` seconds whether or not the
  poll worked, with its own backoff while SMTP fails; woken at once when new mail waits;
- the ZATs: APScheduler date jobs on the ZATs stored in the database as aware UTC times
  (``misfire_grace_time=None``: a late job still runs); at start-up every ZAT missed while
  the bot was down runs at once, before anything else. Before each ZAT the inbox is polled
  once more; if that fails the round is adjudicated anyway with what was stored, and the
  GM's copy says so.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone

from bot.config import Config
from bot.crash import crashpoint
from bot.mail.transport import ServerFailure
from bot.service.idle import start_idle
from bot.service.quota import pause_seconds
from bot.service.health import Outage, inbox_alarm, inbox_recovered
from bot.service.activity import ACTIVITY, quiet_apscheduler
from bot.service.archive import refresh_archive
from bot.service.intake import make_store, process_pending
from bot.service.mailer import DbPollState, transports
from bot.service.outbox import Delivery, deliver
from bot.service.reminders import send_reminders
from bot.service.rounds import adjudicate_complete, adjudicate_due, adjudicate_league, next_zat
from bot.storage.db import Database

log = logging.getLogger(__name__)


def poll_inbox(db: Database, cfg: Config) -> int:
    """Read stored mail, then fetch new mail and store it raw (the transport's pass), then
    read what was stored, then tidy the server's folder (IMAP: the stored mails moved to
    the processed folder, :meth:`~bot.mail.imap.ImapInbox.tidy`); returns mails stored.
    Raises :class:`ServerFailure` when the inbox cannot be read or tidied (stored mail
    is read all the same)."""
    poller, _ = transports(cfg)
    process_pending(db, cfg)
    state = DbPollState(db)
    try:
        n = poller.poll(make_store(db, cfg, getattr(poller, "source", "maildir")), state)
    finally:
        process_pending(db, cfg)
        adjudicate_complete(db, cfg)  # a turn ends as soon as its valid move is read
    tidy = getattr(poller, "tidy", None)
    if tidy is not None:
        tidy(state)
    return n


def send_outbox(db: Database, cfg: Config) -> Delivery:
    """Deliver every due outbox mail (:func:`bot.service.outbox.deliver`)."""
    _, sender = transports(cfg)
    return deliver(db, sender, cfg)


def poll_once(db: Database, cfg: Config) -> int:
    """One pass: read stored mail, poll, queue reminders, deliver; returns mails stored.
    The reminders and the outbox go out even when the inbox fails; then its
    :class:`ServerFailure` is raised."""
    n = 0
    try:
        n = poll_inbox(db, cfg)
        return n
    finally:
        send_reminders(db, cfg)
        done = send_outbox(db, cfg)
        ACTIVITY.poll(stored=n, sent=done.sent, failed=done.failed)  # one line only when something happened


class Service:
    """The service of ``spielleiter run`` (see the module docstring). ``stop()`` ends it."""

    def __init__(self, db: Database, cfg: Config) -> None:
        from apscheduler.executors.pool import ThreadPoolExecutor
        from apscheduler.schedulers.blocking import BlockingScheduler
        self.db, self.cfg = db, cfg
        self.lock = threading.Lock()          # inbox, reminders and ZATs: one at a time
        self.outbox_lock = threading.Lock()   # one delivery at a time: a mail is sent once
        self.inbox = Outage("IMAP", cfg.poll_interval)
        self.smtp = Outage("SMTP", cfg.poll_interval)
        self.alarmed = False
        self.stopping = threading.Event()
        self.wake_outbox = threading.Event()
        self.wake_inbox = threading.Event()  # set by the IMAP IDLE watch (bot.service.idle)
        self.idle = None
        quiet_apscheduler()
        self.scheduler = BlockingScheduler(timezone=timezone.utc,
                                           executors={"default": ThreadPoolExecutor(1)},
                                           job_defaults={"coalesce": True, "misfire_grace_time": None,
                                                         "max_instances": 1})

    # -- the stages ----------------------------------------------------------------------
    def poll(self) -> bool:
        """Poll the inbox once; on failure back off and, after ``cfg.inbox_alarm_after``
        seconds of failures, tell the GMs once. Returns True when the inbox was read."""
        try:
            n = poll_inbox(self.db, self.cfg)
        except ServerFailure as exc:
            self.inbox.failed(exc)
            if not self.alarmed and self.inbox.down_for() >= self.cfg.inbox_alarm_after:
                self.alarmed = inbox_alarm(self.db, self.cfg, self.inbox) > 0
                self._wake()
            return False
        except Exception:
            log.exception("poll failed")
            return False
        ACTIVITY.poll(stored=n)  # a line only when mail came, else an hourly heartbeat
        back = self.inbox.succeeded()
        if back and self.alarmed:
            inbox_recovered(self.db, self.cfg, *back)
            self.alarmed = False
            self._wake()
        return True

    def tick(self) -> float:
        """The inbox stage: poll, reminders, ZAT jobs. Returns seconds until the next."""
        with self.lock:
            self.poll()
            try:
                send_reminders(self.db, self.cfg)
            except Exception:
                log.exception("reminders failed")
            self.schedule_zats()
        self._wake()
        return self.inbox.delay()

    def _wake(self) -> None:
        """Let the outbox loop deliver now (not while SMTP is backing off)."""
        if not self.smtp.failing:
            self.wake_outbox.set()

    def send(self) -> float:
        """The outbox stage: deliver what is due. Returns seconds until the next."""
        with self.outbox_lock:
            try:
                done = send_outbox(self.db, self.cfg)
            except Exception:
                log.exception("outbox failed")
                return self.smtp.delay()
        ACTIVITY.delivered(sent=done.sent, failed=done.failed)
        if done.problem is not None:
            self.smtp.failed(done.problem)
            if done.waiting:
                log.debug("%d Mail(s) warten im Postausgang", done.waiting)
        else:
            self.smtp.succeeded()
        return pause_seconds(done.paused_until, datetime.now(timezone.utc), self.smtp.delay())

    def fire(self, league: str) -> None:
        """The ZAT job: poll once more (mail that arrived just before the ZAT counts), then
        adjudicate; if the inbox could not be read, the GM's copy says so."""
        with self.lock:
            read = self.poll()
            try:
                res = adjudicate_league(self.db, self.cfg, league, gm_note=None if read else self.inbox.note())
                if res:
                    log.info("adjudicated %s round %s%s", league, res["round"],
                             "" if read else " (Posteingang nicht lesbar)")
                    ACTIVITY.event()
                    crashpoint("after-adjudicate")
            except Exception:
                log.exception("adjudication of %s failed", league)
            self.schedule_zats()
        self.send()

    def schedule_zats(self) -> None:
        refresh_archive(self.db, self.cfg)  # after every pass and ZAT: the archive follows ([archive] path)
        for league, zat in next_zat(self.db):
            job_id = f"zat:{league}:{zat.isoformat()}"
            if self.scheduler.get_job(job_id) is None:
                self.scheduler.add_job(self.fire, "date", run_date=zat, args=[league], id=job_id,
                                       replace_existing=True)

    # -- running -------------------------------------------------------------------------
    def _loop(self, step, wake: threading.Event | None, first: float) -> None:
        delay = first
        while not self.stopping.is_set():
            if wake is not None:
                wake.wait(delay)
                wake.clear()
            else:
                self.stopping.wait(delay)
            if self.stopping.is_set():
                break
            try:
                delay = step()
            except Exception:
                log.exception("%s failed", step.__name__)
                delay = self.cfg.poll_interval

    def start(self) -> None:
        """Catch up (stored mail, missed ZATs, outbox), then run until interrupted or
        :meth:`stop`."""
        with self.lock:
            process_pending(self.db, self.cfg)
            read = self.poll()  # mail that arrived while the bot was down, before missed ZATs
            done = adjudicate_due(self.db, self.cfg, datetime.now(timezone.utc),
                                  gm_note=None if read else self.inbox.note())
            for d in done:
                log.info("missed ZAT run at start-up: %s round %s", d["league"], d["round"])
            if done:
                crashpoint("after-adjudicate")
        self.send()
        self.schedule_zats()
        loops = [threading.Thread(target=self._loop, args=(self.tick, self.wake_inbox, self.inbox.delay()),
                                  name="spielleiter-inbox", daemon=True),
                 threading.Thread(target=self._loop, args=(self.send, self.wake_outbox, self.smtp.delay()),
                                  name="spielleiter-outbox", daemon=True)]
        for t in loops:
            t.start()
        start_idle(self)  # IMAP IDLE: the inbox loop is woken as mail arrives
        try:
            self.scheduler.start()
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.stopping.set()
            self.wake_outbox.set()
            self.wake_inbox.set()

    def stop(self) -> None:
        """End :meth:`start` (from another thread or a signal handler)."""
        self.stopping.set()
        self.wake_outbox.set()
        self.wake_inbox.set()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

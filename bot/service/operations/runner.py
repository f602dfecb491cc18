"""One pass (poll, read, deliver) and the long-running service.

The service runs three independent stages:

- the inbox loop: read stored mail, poll the inbox, queue reminders, (re)schedule the
  ZATs; every ``poll_interval`` seconds, with backoff while IMAP fails
  (:class:`bot.service.operations.health.Outage`), one run at a time; woken at once when the IMAP
  IDLE watch (:mod:`bot.service.stages.idle`) hears of new mail;
- the outbox loop: deliver due mail every ``poll_interval`` seconds whether or not the
  poll worked, with its own backoff while SMTP fails; woken at once when new mail waits;
- the ZATs: APScheduler date jobs on the ZATs stored in the database as aware UTC times
  (``misfire_grace_time=None``: a late job still runs); at start-up every ZAT missed while
  the bot was down runs at once. Before each ZAT the inbox is polled once more; if that
  fails the round is adjudicated anyway with what was stored, and the GM's copy says so.
  Every inbox pass also adjudicates a ZAT that has passed (one whose job failed while the
  database was down), and reading puts a delayed ZAT before the first mail that arrived
  after it (:func:`read_stored`): at start-up, mails that reached
  the server before a missed ZAT count for its round, those after it for the next.

The database may fail like a mail server: every stage treats an unreachable database
(:func:`bot.storage.db.database_failure`) as an outage (:class:`Outage` "Datenbank": one
line when it begins, backoff, one line when it is back, no tracebacks) and carries on
where it stopped once it is back. SIGTERM (systemd's stop) ends the service like Ctrl+C:
the passes under way finish (a ZAT job with the delivery of its Auswertungen), then it
gives up the lease and exits with status 0.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from datetime import datetime, timezone

from bot.config import Config
from bot.crash import crashpoint
from bot.mail.imap import ImapInbox
from bot.mail.transport import ServerFailure
from bot.service.stages.idle import IdleWatch, idle_enabled
from bot.service.stages.quota import pause_seconds
from bot.service.operations.health import Outage, inbox_alarm, inbox_recovered
from bot.service.operations.activity import ACTIVITY, quiet_apscheduler
from bot.service.operations.lease import Lease
from bot.service.presentation.archive import refresh_archive
from bot.service.conversations.intake import arrivals, process_pending, stored_mails
from bot.service.stages.store import make_store
from bot.service.operations.mailer import DbPollState, transports
from bot.service.stages.outbox import Delivery, deliver, release_claims, sender_id
from bot.service.stages.reminders import send_reminders
from bot.service.stages.rounds import (adjudicate_complete, adjudicate_due, adjudicate_league, adjudicate_passed,
                                      next_zat, passed_zats)
from bot.storage.db import Database, database_failure, safe_url

log = logging.getLogger(__name__)

#: Seconds a stop waits for a pass under way (a big poll or a ZAT of many players).
STOP_WAIT = 120.0


def read_stored(db: Database, cfg: Config, now: datetime | None = None) -> int:
    """Read every stored mail not yet read, in stored order
    (:func:`~bot.service.conversations.intake.process_pending`), with every ZAT that has
    passed while its round is still open (the bot or its database was down at the ZAT)
    adjudicated before the first mail that arrived after it
    (:func:`~bot.service.stages.rounds.adjudicate_passed`): a mail that reached the server
    before the ZAT counts for its round, one after it for the next, as with the ZAT on
    time (issue 26). Returns how many mails were read."""
    ids = stored_mails(db)
    if not ids:
        return 0
    zats = passed_zats(db, now or datetime.now(timezone.utc))
    arrived = arrivals(db, ids) if zats else {}
    run: list[int] = []
    for mid in ids:
        if zats and mid in arrived and arrived[mid] > zats[0]:
            process_pending(db, cfg, now, ids=run)  # the mails before it, for the open round
            run = []
            adjudicate_passed(db, cfg, arrived[mid])
            zats = passed_zats(db, now or datetime.now(timezone.utc))
        run.append(mid)
    process_pending(db, cfg, now, ids=run)
    return len(ids)


def poll_inbox(db: Database, cfg: Config) -> int:
    """Read stored mail, then fetch new mail and store it raw (the transport's pass), then
    read what was stored, then tidy the server's folder (IMAP: the stored mails moved to
    the processed folder, :meth:`~bot.mail.imap.ImapInbox.tidy`); returns mails stored.
    Raises :class:`ServerFailure` when the inbox cannot be read or tidied (stored mail
    is read all the same)."""
    poller, _ = transports(cfg)
    read_stored(db, cfg)
    state = DbPollState(db)
    try:
        n = poller.poll(make_store(db, cfg, getattr(poller, "source", "maildir")), state)
    finally:
        read_stored(db, cfg)
        adjudicate_complete(db, cfg)  # a turn ends as soon as its valid move is read
    tidy = getattr(poller, "tidy", None)
    if tidy is not None:
        tidy(state)
    return n


def send_outbox(db: Database, cfg: Config) -> Delivery:
    """Deliver every due outbox mail (:func:`bot.service.stages.outbox.deliver`)."""
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


def start_idle(service) -> threading.Thread | None:
    """Start the IDLE watch of a :class:`~bot.service.operations.runner.Service` in a daemon thread
    (``spielleiter-idle``), waking ``service.wake_inbox``; returns the thread, or None
    when IDLE is off (no ``[imap]``, or ``[imap] idle = false``). The watch is kept as
    ``service.idle``."""
    cfg = service.cfg
    if not idle_enabled(cfg):
        return None
    inbox, _ = transports(cfg)
    if not isinstance(inbox, ImapInbox):
        return None
    watch = IdleWatch(inbox, wake=service.wake_inbox.set, healthy=lambda: not service.inbox.failing,
                      pause=service.inbox.delay, stopping=service.stopping)
    service.idle = watch
    t = threading.Thread(target=watch.run, name="spielleiter-idle", daemon=True)
    t.start()
    return t


class Service:
    """The service of ``spielleiter run`` (see the module docstring). ``stop()`` ends it."""

    def __init__(self, db: Database, cfg: Config) -> None:
        # deferred on purpose: APScheduler loads only for the long-running service
        from apscheduler.executors.pool import ThreadPoolExecutor
        from apscheduler.schedulers.background import BackgroundScheduler
        self.db, self.cfg = db, cfg
        self.lock = threading.Lock()          # inbox, reminders and ZATs: one at a time
        self.outbox_lock = threading.Lock()   # one delivery at a time: a mail is sent once
        self.inbox = Outage("IMAP", cfg.poll_interval)
        self.smtp = Outage("SMTP", cfg.poll_interval)
        self.database = Outage("Datenbank", cfg.poll_interval)
        self.alarmed = False
        self.stopping = threading.Event()
        self.wake_outbox = threading.Event()
        self.wake_inbox = threading.Event()  # set by the IMAP IDLE watch (bot.service.stages.idle)
        self.idle = None
        quiet_apscheduler()
        # the ZAT jobs' thread; a stop waits for the job under way on it (:meth:`_run`)
        self.zat_jobs = ThreadPoolExecutor(1)
        self.scheduler = BackgroundScheduler(timezone=timezone.utc, executors={"default": self.zat_jobs},
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
        except Exception as exc:
            self._unless_database(exc, "Abruf gescheitert")
            return False
        ACTIVITY.poll(stored=n)  # a line only when mail came, else an hourly heartbeat
        back = self.inbox.succeeded()
        if back and self.alarmed:
            inbox_recovered(self.db, self.cfg, *back)
            self.alarmed = False
            self._wake()
        return True

    def tick(self) -> float:
        """The inbox stage: poll, ZATs that have passed (a job that failed while the
        database was down), reminders, ZAT jobs. Returns seconds until the next."""
        with self.lock:
            read = self.poll()
            self._adjudicate_due(read)
            try:
                send_reminders(self.db, self.cfg)
            except Exception as exc:
                self._unless_database(exc, "Erinnerungen gescheitert")
            self.schedule_zats()
        self._wake()
        return self.inbox.delay()

    def _adjudicate_due(self, read: bool) -> list[dict]:
        """Adjudicate every round whose ZAT has passed (``read``: the inbox was read just
        before; if not, the GM's copy says so)."""
        done = adjudicate_due(self.db, self.cfg, datetime.now(timezone.utc),
                              gm_note=None if read else self.inbox.note())
        for d in done:
            log.info("ZAT nachgeholt: %s %s", d["league"], d["period"])
            ACTIVITY.event()
        if done:
            crashpoint("after-adjudicate")
        return done

    def _unless_database(self, exc: BaseException, what: str) -> None:
        """Raise ``exc`` on as :class:`~bot.storage.db.DatabaseUnavailable` when the database is down (the
        stage ends, :meth:`_loop` reports the outage); else log it with ``what``."""
        failure = database_failure(exc, self.db.url)
        if failure is not None:
            raise failure from exc
        log.exception(what)

    def _guarded(self, step):
        """Run a stage; a database outage is recorded (:attr:`database`) and answered
        with its backoff delay. Returns the stage's result, or the delay."""
        try:
            result = step()
        except Exception as exc:
            failure = database_failure(exc, self.db.url)
            if failure is None:
                raise
            return self.database.failed(failure)
        self.database.succeeded()
        return result

    def _wake(self) -> None:
        """Let the outbox loop deliver now (not while SMTP is backing off)."""
        if not self.smtp.failing:
            self.wake_outbox.set()

    def send(self) -> float:
        """The outbox stage: deliver what is due. Returns seconds until the next."""
        with self.outbox_lock:
            try:
                done = send_outbox(self.db, self.cfg)
            except Exception as exc:
                self._unless_database(exc, "Postausgang gescheitert")
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
        adjudicate; if the inbox could not be read, the GM's copy says so. While the
        database is down the job ends; the first inbox pass after it is back adjudicates."""
        if self._guarded(lambda: self._fire(league)) is not None:
            return  # the database is down (reported)
        self._guarded(self.send)

    def _fire(self, league: str) -> None:
        with self.lock:
            read = self.poll()
            try:
                res = adjudicate_league(self.db, self.cfg, league, gm_note=None if read else self.inbox.note())
                if res:
                    log.info("ausgewertet: %s %s%s", league, res["period"],
                             "" if read else " (Posteingang nicht lesbar)")
                    ACTIVITY.event()
                    crashpoint("after-adjudicate")
            except Exception as exc:
                self._unless_database(exc, f"Auswertung von {league} gescheitert")
            self.schedule_zats()

    def schedule_zats(self) -> None:
        """One date job per running, unpaused league's open ZAT; the jobs of a league
        paused since, or of a ZAT moved since, are removed (a paused league's ZAT neither
        fires nor warns; issue 33)."""
        refresh_archive(self.db, self.cfg)  # after every pass and ZAT: the archive follows ([archive] path)
        wanted = {f"zat:{league}:{zat.isoformat()}": (league, zat) for league, zat in next_zat(self.db)}
        for job in self.scheduler.get_jobs():
            if job.id.startswith("zat:") and job.id not in wanted:
                try:
                    self.scheduler.remove_job(job.id)
                except Exception:  # pragma: no cover - the job ran and went meanwhile
                    pass
        for job_id, (league, zat) in wanted.items():
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
                delay = self._guarded(step)
            except Exception:
                log.exception("%s gescheitert", step.__name__)
                delay = self.cfg.poll_interval

    def catch_up(self) -> None:
        """At start-up: read the stored mail and the inbox (each mail before the ZATs
        missed after its arrival, see :func:`read_stored`), run the missed ZATs, deliver."""
        with self.lock:
            read_stored(self.db, self.cfg)
            read = self.poll()
            self._adjudicate_due(read)
        self.send()
        self.schedule_zats()

    def start(self) -> None:
        """Take the service lease (:mod:`bot.service.operations.lease`: while another
        service holds it, stand by), catch up (stored mail, missed ZATs, outbox; waiting
        for the database, if it is down, as long as it takes), then run until
        interrupted, SIGTERM, :meth:`stop`, or until another service has taken the lease."""
        self._signals()
        self.lease = Lease(self.db)
        if not self.lease.acquire(self.stopping):
            return  # stopped while standing by
        try:
            release_claims(self.db, keep=sender_id())  # a dead service's claims: no other sender is alive
        except Exception as exc:
            log.debug("releasing claims: %s", exc)
        self.lease.start_heartbeat(self.stop)
        log.info("%s", self.started_line())
        try:
            self._run()
        finally:
            self.lease.release()
            log.info("Spielleiter beendet (pid %d)", os.getpid())

    def started_line(self) -> str:
        """The one log line of a start (issue 33): version, process, mail, database, poll
        interval; no password."""
        from bot import __version__
        cfg = self.cfg
        if cfg.imap:
            mail = f"IMAP {cfg.imap.get('host')}, SMTP {(cfg.smtp or {}).get('host')}"
        else:
            mail = f"Maildir {cfg.maildir}"
        return (f"Spielleiter {__version__} gestartet (pid {os.getpid()}): {mail}, Datenbank "
                f"{safe_url(self.db.url)}, Abruf alle {cfg.poll_interval:g} s; beenden mit Strg+C "
                f"oder SIGTERM")

    def _run(self) -> None:
        while not self.stopping.is_set() and (delay := self._guarded(self.catch_up)) is not None:
            self.stopping.wait(delay)
        loops = [threading.Thread(target=self._loop, args=(self.tick, self.wake_inbox, self.inbox.delay()),
                                  name="spielleiter-inbox", daemon=True),
                 threading.Thread(target=self._loop, args=(self.send, self.wake_outbox, self.smtp.delay()),
                                  name="spielleiter-outbox", daemon=True)]
        for t in loops:
            t.start()
        start_idle(self)  # IMAP IDLE: the inbox loop is woken as mail arrives
        try:
            if not self.stopping.is_set():
                self.scheduler.start()  # the ZAT jobs, in threads of their own
            self.stopping.wait()  # until stop(): SIGTERM, the lease lost, or another thread
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.stopping.set()
            self.wake_outbox.set()
            self.wake_inbox.set()
            # No ZAT job starts any more: the scheduler paused and its jobs dropped (under its
            # lock, so a submission under way completes first; a shutdown in the middle of
            # one fails in APScheduler's thread), then shut down. The job under way finishes,
            # its Auswertungen delivered, before the lease is given up: waited for here, not
            # by shutdown(wait=True), which holds the locks the job's schedule_zats needs.
            if self.scheduler.running:
                self.scheduler.pause()
                self.scheduler.remove_all_jobs()
                self.scheduler.shutdown(wait=False)
            self.zat_jobs.shutdown(wait=True)
            for t in loops:  # so does the pass under way
                t.join(timeout=STOP_WAIT)

    def _signals(self) -> None:
        """SIGTERM (systemd's stop) ends the service as Ctrl+C does (only where signals
        can be set: the main thread)."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, lambda _sig, _frame: self.stop())

    def stop(self) -> None:
        """End :meth:`start` (from another thread or a signal handler): the passes under
        way and a ZAT job under way (with its delivery) finish first. Only sets events:
        :meth:`_run` stops the scheduler (a shutdown from the signal handler could land
        inside the scheduler's own work)."""
        self.stopping.set()
        self.wake_outbox.set()
        self.wake_inbox.set()

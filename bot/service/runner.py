"""One pass (poll, read, deliver) and the long-running service with APScheduler.

ZATs live in the database as aware UTC times; each open round's ZAT is a date-trigger
job (``misfire_grace_time=None``: a late job still runs), and at start-up every ZAT
missed while the bot was down is run at once, before anything else.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone

from bot.config import Config
from bot.crash import crashpoint
from bot.service.intake import make_store, process_pending
from bot.service.mailer import DbPollState, transports
from bot.service.outbox import deliver
from bot.service.reminders import send_reminders
from bot.service.rounds import adjudicate_complete, adjudicate_due, adjudicate_league, next_zat
from bot.storage.db import Database

log = logging.getLogger(__name__)


def poll_once(db: Database, cfg: Config) -> int:
    """Fetch new mail, store and read it, deliver the outbox; returns mails stored."""
    poller, sender = transports(cfg)
    process_pending(db, cfg)
    n = poller.poll(make_store(db, cfg, getattr(poller, "source", "maildir")), DbPollState(db))
    adjudicate_complete(db, cfg)  # a turn ends as soon as its valid move is read
    send_reminders(db, cfg)
    deliver(db, sender, cfg)
    return n


class Service:
    """The service of ``spielleiter run``: poll every ``cfg.poll_interval`` seconds, fire ZATs."""

    def __init__(self, db: Database, cfg: Config) -> None:
        from apscheduler.schedulers.blocking import BlockingScheduler
        from apscheduler.executors.pool import ThreadPoolExecutor
        self.db, self.cfg = db, cfg
        self.lock = threading.Lock()
        self.scheduler = BlockingScheduler(timezone=timezone.utc,
                                           executors={"default": ThreadPoolExecutor(1)},
                                           job_defaults={"coalesce": True, "misfire_grace_time": None,
                                                         "max_instances": 1})

    def tick(self) -> None:
        with self.lock:
            try:
                poll_once(self.db, self.cfg)
            except Exception:
                log.exception("poll failed")
            self.schedule_zats()

    def fire(self, league: str) -> None:
        with self.lock:
            try:
                poll_once(self.db, self.cfg)  # mail that arrived just before the ZAT counts
            except Exception:
                log.exception("poll before the ZAT failed")
            try:
                res = adjudicate_league(self.db, self.cfg, league)
                if res:
                    log.info("adjudicated %s round %s", league, res["round"])
                    crashpoint("after-adjudicate")
                _, sender = transports(self.cfg)
                deliver(self.db, sender, self.cfg)
            except Exception:
                log.exception("adjudication of %s failed", league)
            self.schedule_zats()

    def schedule_zats(self) -> None:
        for league, zat in next_zat(self.db):
            job_id = f"zat:{league}:{zat.isoformat()}"
            if self.scheduler.get_job(job_id) is None:
                self.scheduler.add_job(self.fire, "date", run_date=zat, args=[league], id=job_id,
                                       replace_existing=True)

    def start(self) -> None:
        """Catch up (stored mail, missed ZATs, outbox), then run until interrupted."""
        with self.lock:
            process_pending(self.db, self.cfg)
            try:
                poll_once(self.db, self.cfg)  # mail that arrived while the bot was down, before missed ZATs
            except Exception:
                log.exception("poll at start-up failed")
            done = adjudicate_due(self.db, self.cfg, datetime.now(timezone.utc))
            for d in done:
                log.info("missed ZAT run at start-up: %s round %s", d["league"], d["round"])
            if done:
                crashpoint("after-adjudicate")
            _, sender = transports(self.cfg)
            deliver(self.db, sender, self.cfg)
        self.schedule_zats()
        self.scheduler.add_job(self.tick, "interval", seconds=self.cfg.poll_interval, id="poll",
                               next_run_time=datetime.now(timezone.utc))
        try:
            self.scheduler.start()
        except (KeyboardInterrupt, SystemExit):
            pass

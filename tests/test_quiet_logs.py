"""Quiet logs (issue 15): one line per poll only when something happened, a heartbeat at
most hourly, APScheduler's per-job INFO lines at DEBUG. Real APScheduler, real Maildir."""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.service.operations import activity
from bot.service.operations.activity import Activity, quiet_apscheduler
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.runner import Service
from bot.storage.db import Database
from tests.helpers import league_toml, player_mail


def info_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]


def test_a_poll_logs_one_line_only_when_something_happened(tmp_path, caplog, monkeypatch):
    cfg = embedded(tmp_path / "var")
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "l.toml")), cfg)
    now = [1000.0]
    monkeypatch.setattr(activity, "ACTIVITY", Activity(clock=lambda: now[0]))
    import bot.service.operations.runner as runner
    monkeypatch.setattr(runner, "ACTIVITY", activity.ACTIVITY)
    service = Service(db, cfg)
    caplog.set_level(logging.INFO)

    def one_poll() -> None:  # the inbox loop, then the outbox loop it wakes
        service.tick()
        service.send()
    one_poll()  # the start mails go out: something happened
    assert info_lines(caplog) == ["Postausgang: 3 gesendet"]
    caplog.clear()
    for _ in range(5):
        now[0] += 10
        one_poll()
    assert info_lines(caplog) == []  # nothing happened: nothing logged
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    one_poll()
    assert info_lines(caplog) == ["Abruf: 1 Mail gespeichert", "Postausgang: 1 gesendet"]
    caplog.clear()
    now[0] += 3599
    one_poll()
    assert info_lines(caplog) == []
    now[0] += 2
    one_poll()
    assert info_lines(caplog) == ["läuft: keine neue Mail in den letzten 60 min (Abrufe: 2)"]
    caplog.clear()
    # spielleiter poll: one line for the whole pass
    md.deliver_to_inbox(player_mail("bernd@example.org", "Partie R1:\nTOR"))
    runner.poll_once(db, cfg)
    assert info_lines(caplog) == ["Abruf: 1 Mail gespeichert, 1 gesendet"]
    db.dispose()


def _run_one_job(sched, done) -> None:
    import time
    sched.start()
    try:
        assert done.wait(10)
        deadline = time.monotonic() + 10
        while sched.get_jobs() and time.monotonic() < deadline:  # the finished job is removed
            time.sleep(0.01)
    finally:
        sched.shutdown(wait=True)


def test_apscheduler_job_lines_go_to_debug(caplog):
    from apscheduler.schedulers.background import BackgroundScheduler
    quiet_apscheduler()
    done = threading.Event()
    sched = BackgroundScheduler(timezone=timezone.utc)
    sched.add_job(done.set, "date", run_date=datetime.now(timezone.utc))
    caplog.set_level(logging.INFO)
    _run_one_job(sched, done)
    assert not [r for r in caplog.records if r.name.startswith("apscheduler") and r.levelno >= logging.INFO]
    caplog.clear()
    caplog.set_level(logging.DEBUG)
    done.clear()
    sched = BackgroundScheduler(timezone=timezone.utc)
    sched.add_job(done.set, "date", run_date=datetime.now(timezone.utc))
    _run_one_job(sched, done)
    assert any("executed successfully" in r.getMessage() and r.levelname == "DEBUG" for r in caplog.records)

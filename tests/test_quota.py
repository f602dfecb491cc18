"""Sending within the provider's quotas (issue 27): the outbox keeps ``[smtp]
max_per_minute/hour/day`` (counted from the stored send times, so a restart cannot cross
them), sends answers before Auswertungen, takes a provider's quota answer (4xx/5xx "rate
limit", "quota") as a pause, never as a failed mail, and tells the GM once when a ZAT's
mails take longer than an hour. Against a real aiosmtpd and SQLite, with an injected
clock (no test waits for the limits: the clock jumps to the time the outbox names)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.config import Config, problems
from bot.mail.smtp import SmtpTransport, quota_answer
from bot.mail.transport import PermanentFailure, ServerFailure
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver, queue_mail
from bot.service.stages.quota import Budget, Limits
from bot.storage.db import Database
from bot.storage.models import OutboxMail
from tests.helpers import header, league_toml

GM = "gm@example.org"
T0 = datetime(2026, 12, 6, 19, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self, t: datetime) -> None:
        self.t = t

    def __call__(self) -> datetime:
        return self.t


@pytest.fixture
def env(tmp_path, smtpd):
    cfg = Config(database_url=f"sqlite:///{tmp_path / 'q.sqlite'}", sender="Spielleiter <spielleiter@example.org>",
                 smtp={"host": smtpd.host, "port": smtpd.port, "tls": False, "max_per_minute": 3,
                       "max_per_hour": 5, "max_per_day": 8},
                 imap={"host": "127.0.0.1"})
    db = Database(cfg.database_url)
    db.migrate()
    sender = SmtpTransport(smtpd.host, smtpd.port, tls=False, timeout=10, retries=0)
    yield db, cfg, sender
    db.dispose()


def _queue_zat_and_answers(db, cfg, tmp_path):
    """A league (3 start mails), then a ZAT's 6 Auswertungen (at T0), then 3 answers."""
    liga = league_toml(tmp_path / "liga.toml", extra=f'gm_email = "{GM}"')
    with db.session() as s:
        create_league(s, read_league_file(liga), cfg)
    with db.session() as s:
        for i in range(6):
            r = queue_mail(s, cfg, key=f"auswertung:1:1:{i}", kind="auswertung", to=f"p{i}@example.org",
                           subject=f"Auswertung Runde 1 ({i})", text="x", league_id=1, round_number=1)
            r.created_at = T0
        for i in range(3):
            queue_mail(s, cfg, key=f"ack:{i}", kind="ack", to=f"a{i}@example.org", subject=f"Re: Züge {i}", text="y")
        s.execute(OutboxMail.__table__.update().values(created_at=T0))


def _within_limits(times: list[datetime], limits: Limits) -> bool:
    times = sorted(times)
    for window, n in limits.windows:
        for i, t in enumerate(times):
            if sum(1 for u in times[i:] if u < t + window) > n:
                return False
    return True


def test_paced_in_order_each_once_and_quota_answers_pause(env, smtpd, tmp_path):
    db, cfg, sender = env
    clock = Clock(T0)
    _queue_zat_and_answers(db, cfg, tmp_path)
    limits = Limits.from_config(cfg)

    first = deliver(db, sender, cfg, clock=clock)
    assert first.sent == 3 and first.paused_until == T0 + timedelta(minutes=1)  # sent at T0: the minute is full
    restarted = Database(cfg.database_url)               # as after a restart: only the stored send times
    again = deliver(restarted, sender, cfg, clock=clock)
    restarted.dispose()
    assert again.sent == 0 and again.paused_until == T0 + timedelta(minutes=1)

    # the provider refuses twice with quota answers: paused, nothing failed, nothing lost
    smtpd.fail_next(1, 451, "4.7.1 Rate limit exceeded, slow down")
    clock.t = again.paused_until
    d = deliver(db, sender, cfg, clock=clock)
    assert d.problem is not None and d.problem.kind == "quota" and d.sent == 0
    smtpd.fail_next(1, 550, "5.4.5 Daily user sending quota exceeded")
    clock.t += timedelta(minutes=5)
    d = deliver(db, sender, cfg, clock=clock)
    assert d.problem is not None and d.problem.kind == "quota"
    with db.session() as s:
        assert not s.scalars(select(OutboxMail).where(OutboxMail.status == "failed")).all()

    passes = 0
    while True:  # the clock jumps to when the outbox may send again
        passes += 1
        assert passes < 50
        d = deliver(db, sender, cfg, clock=clock)
        assert d.problem is None
        if d.paused_until is None and d.waiting == 0:
            with db.session() as s:
                if not s.scalars(select(OutboxMail).where(OutboxMail.status == "pending")).all():
                    break
        clock.t = d.paused_until or clock.t + timedelta(minutes=1)

    with db.session() as s:
        rows = s.scalars(select(OutboxMail).order_by(OutboxMail.id)).all()
        assert {r.status for r in rows} == {"sent"}
        notices = [r for r in rows if r.key == "quota:1:1"]
        times = [r.sent_at for r in rows]
        ids = {r.message_id for r in rows}
    # every mail delivered exactly once
    got = Counter(header(m.raw, "Message-ID") for m in smtpd.messages)
    assert set(got) == ids and set(got.values()) == {1}
    # no faster than the limits in any window
    assert _within_limits(times, limits)
    # order: the answers first, then the GM's notice (queued when the first pass paused),
    # then the league's start mails and the Auswertungen, oldest first
    subjects = [header(m.raw, "Subject") for m in smtpd.messages]
    kinds = ["ack" if s.startswith("Re: Züge") else "auswertung" if s.startswith("Auswertung") else
             "notice" if "brauchen länger" in s else "gm-start" if "Liga angelegt" in s else "start"
             for s in subjects]
    # the GM's mail about the new league is a notice too, queued first
    assert kinds == ["gm-start"] + ["ack"] * 3 + ["notice"] + ["start"] * 3 + ["auswertung"] * 6, kinds
    # the GM was told once: 6 Auswertungen at 5 an hour take longer than an hour
    assert len(notices) == 1 and notices[0].to_addr == GM
    assert max(times) - T0 > timedelta(days=1)  # 13 mails at 8 a day


def test_budget_windows_and_eta():
    lim = Limits(((timedelta(minutes=1), 2), (timedelta(hours=1), 3)))
    b = Budget(lim, [T0, T0 + timedelta(seconds=10)])
    assert b.next_free(T0 + timedelta(seconds=20)) == T0 + timedelta(minutes=1)
    b.take(T0 + timedelta(minutes=1))
    assert b.next_free(T0 + timedelta(minutes=1)) == T0 + timedelta(hours=1)  # the hour is full
    assert Budget(lim, []).eta(T0, 4) == T0 + timedelta(hours=1)
    assert Budget(Limits(()), []).eta(T0, 1000) == T0


def test_limits_from_config_and_check():
    cfg = Config(database_url="sqlite://", smtp={"host": "x"})
    assert Limits.from_config(cfg).text() == "10/min, 100/h, 300/Tag"
    cfg.smtp.update(max_per_minute=0, max_per_day=0)
    assert Limits.from_config(cfg).text() == "100/h"
    assert Limits.from_config(Config(database_url="sqlite://")).windows == ()  # Maildir: none
    ok = {"imap": {"host": "i", "idle": False}, "smtp": {"host": "s", "max_per_minute": 5, "max_per_hour": 50,
                                                         "max_per_day": 200}}
    assert problems(ok) == []
    assert problems({"smtp": {"max_per_hour": "100"}}) == [
        "[smtp] max_per_hour: muss eine ganze Zahl sein, nicht '100'"]


def test_negative_limit_is_a_config_error(tmp_path):
    from bot.config import load_config
    from bot.errors import ConfigError
    conf = tmp_path / "c.toml"
    conf.write_text('[imap]\nhost = "i"\n[smtp]\nhost = "s"\nmax_per_day = -1\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="max_per_day"):
        load_config(conf)


@pytest.mark.parametrize("code,text,quota", [
    (451, "4.7.1 Rate limit exceeded, slow down", True),
    (421, "4.7.0 Too many messages, try again later", True),
    (454, "4.7.0 Too many login attempts, please try again later", True),
    (450, "4.7.1 Zu viele E-Mails in kurzer Zeit", True),
    (452, "4.5.3 Too many recipients", True),
    (550, "5.4.5 Daily user sending quota exceeded", True),
    (554, "5.2.0 STOREDRV.Submission.Exception:SubmissionQuotaExceededException", True),
    (550, "5.7.1 Your mail limit has been reached", True),
    (451, "4.3.0 Try again later", False),                  # greylisting: the mail's own retry
    (550, "5.1.1 User unknown", False),
    (552, "5.2.2 Mailbox full, quota exceeded", False),     # the recipient's quota, not ours
    (452, "4.2.2 The email account that you tried to reach is over quota", False),
    (552, "5.3.4 Message size exceeds fixed limit", False),
    (250, "OK", False),
])
def test_quota_answers(code, text, quota):
    assert quota_answer(code, text) is quota


def test_quota_answer_through_smtp_is_a_server_failure_not_a_failed_mail(smtpd):
    from bot.mail.compose import compose
    raw = compose(sender="spielleiter@example.org", to="anna@example.org", subject="x", text="y")
    smtp = SmtpTransport(smtpd.host, smtpd.port, tls=False, timeout=10, retries=2, backoff=0.01)
    smtpd.fail_next(1, 550, "5.4.5 Daily user sending quota exceeded")
    with pytest.raises(ServerFailure) as err:
        smtp.send(raw, "spielleiter@example.org", ["anna@example.org"])
    assert err.value.kind == "quota" and not err.value.retry_soon and smtpd.attempts == 1  # not retried at once
    assert err.value.line().startswith(f"SMTP {smtpd.host}:{smtpd.port}: Versandgrenze des Anbieters erreicht: 550")
    smtpd.reject("bernd@example.org", 550)
    with pytest.raises(PermanentFailure):  # a bad address stays a failed mail
        smtp.send(raw, "spielleiter@example.org", ["bernd@example.org"])


def test_check_names_the_limits_and_accepts_the_keys(tmp_path, dovecot, smtpd):
    import subprocess

    from tests.helpers import server_config, spielleiter_exe
    conf = server_config(tmp_path / "s.toml", dovecot, smtpd, dovecot.fresh_user(),
                         db_url=f"sqlite:///{tmp_path / 'c.sqlite'}",
                         smtp_limits="max_per_minute = 5\nmax_per_hour = 0\nmax_per_day = 200")
    conf.write_text(conf.read_text().replace('folder = "INBOX"', 'folder = "INBOX"\nidle = true'))
    proc = subprocess.run([spielleiter_exe(), "check", "--config", str(conf)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert "unbekannt" not in proc.stdout, proc.stdout
    imap = next(ln for ln in proc.stdout.splitlines() if ln.startswith("OK      IMAP: "))
    assert imap.endswith(("vorhanden, IDLE", "angelegt, IDLE")), imap  # Dovecot offers IDLE
    assert f"OK      SMTP: {smtpd.host}:{smtpd.port}, ohne TLS, ohne Anmeldung, Versandgrenzen 5/min, 200/Tag" \
        in proc.stdout, proc.stdout


def test_a_command_sends_what_the_limits_allow_and_says_the_rest_waits(tmp_path, dovecot, smtpd, capsys):
    from bot.cli import main
    from bot.service.stages.quota import pause_seconds
    from tests.helpers import server_config
    conf = server_config(tmp_path / "s.toml", dovecot, smtpd, dovecot.fresh_user(),
                         db_url=f"sqlite:///{tmp_path / 'c.sqlite'}", smtp_limits="max_per_minute = 3")
    assert main(["league", "create", str(league_toml(tmp_path / "l.toml")), "--config", str(conf)]) == 0
    err = capsys.readouterr().err
    assert len(smtpd.messages) == 2  # 3 start mails, 3 a minute of which 1 is kept for answers
    assert "Postausgang: 1 Mail(s) warten wegen der Versandgrenzen" in err, err
    assert main(["poll", "--config", str(conf)]) == 0 and len(smtpd.messages) == 2  # still within the minute
    assert pause_seconds(None, T0, 60) == 60
    assert pause_seconds(T0 + timedelta(seconds=5), T0, 60) == 5
    assert pause_seconds(T0 - timedelta(seconds=5), T0, 60) == 0.05


def test_eta_of_a_big_zat_is_quick():
    """200 Auswertungen at 10/min, 100/h: the last goes out after a bit more than an hour,
    worked out without sending."""
    import time
    lim = Limits(((timedelta(minutes=1), 10), (timedelta(hours=1), 100), (timedelta(days=1), 300)))
    t = time.perf_counter()
    times = Budget(lim, []).schedule(T0, 5000)
    assert time.perf_counter() - t < 5  # generous: a sanity bound, not a benchmark
    assert times[199] == T0 + timedelta(hours=1, minutes=9) and times[299] == T0 + timedelta(hours=2, minutes=9)
    assert times[300] == T0 + timedelta(days=1)


def test_a_kill_between_data_and_quit_keeps_the_limit(tmp_path, dovecot, smtpd):
    """Issue 34, item 5: ``spielleiter poll`` killed after the server's 250 to DATA and
    before QUIT (crash point ``after-data``), again and again: the mail is marked sent at
    the 250 (never sent twice) and every SMTP session is counted against
    ``max_per_minute = 5`` before it starts, so within the minute no more than 5 mails
    go out however often the sender dies."""
    import email
    import email.policy
    import os
    import subprocess
    import time
    from bot.config import load_config
    from tests.helpers import server_config, spielleiter_exe
    t0 = time.monotonic()
    url = f"sqlite:///{tmp_path / 'k.sqlite'}"
    conf = server_config(tmp_path / "s.toml", dovecot, smtpd, dovecot.fresh_user(), db_url=url,
                         smtp_limits="max_per_minute = 5\nmax_per_hour = 0\nmax_per_day = 0")
    cfg = load_config(conf)
    db = Database(url)
    db.migrate()
    try:
        with db.session() as s:
            for i in range(8):
                queue_mail(s, cfg, key=f"ack:k{i}", kind="ack", to=f"p{i}@example.org", subject="Zug erhalten",
                           text=f"Antwort {i}\n")
    finally:
        db.dispose()
    codes = []
    env = dict(os.environ, SPIELLEITER_CRASH_AT="after-data")
    for _ in range(8):
        proc = subprocess.run([spielleiter_exe(), "poll", "--config", str(conf)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)
        codes.append(proc.returncode)
        assert proc.returncode in (0, 77), proc.stdout + proc.stderr
    assert time.monotonic() - t0 < 55, "too slow to test one window"
    assert codes[:5] == [77] * 5 and set(codes[5:]) == {0}, codes  # the 6th run finds the minute full
    mids = Counter(email.message_from_bytes(m.raw, policy=email.policy.compat32)["Message-ID"]
                   for m in smtpd.messages)
    assert len(smtpd.messages) == 5 and set(mids.values()) == {1}, mids
    db = Database(url)
    try:
        with db.session() as s:
            status = Counter(r.status for r in s.scalars(select(OutboxMail)))
    finally:
        db.dispose()
    assert status == Counter({"sent": 5, "pending": 3}), status

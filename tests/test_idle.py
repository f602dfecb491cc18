"""IMAP IDLE in ``spielleiter run`` (issue 27), with a real Dovecot and aiosmtpd: a new
mail is stored, read and acknowledged within 2 seconds of its arrival while the poll
interval is a minute; IDLE is renewed (here every 0.3 s instead of 10 min) and keeps
working; a dropped connection falls back to the backoff and polling, and IDLE comes back
with the server; ``[imap] idle = false`` polls only."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from bot.cli import main
from bot.config import load_config
from bot.service.stages import idle as idle_mod
from bot.service.operations.runner import Service
from bot.storage.db import Database
from bot.storage.models import InboundMail
from tests.helpers import header, league_toml, player_mail, server_config
from tests.mailservers import TcpProxy

pytestmark = pytest.mark.e2e


def _wait(pred, seconds=20.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return False


def _acks(smtpd, to):
    return [m for m in smtpd.messages if m.rcpt_tos == [to] and "Spielbeginn" not in header(m.raw, "Subject")]


@pytest.fixture
def running(tmp_path, dovecot, smtpd):
    """A league (players anna, bernd, clara) and a started service; yields a namespace
    with ``svc``, ``db``, ``user``, ``start(bot=..., imap=..., extra_imap=...)``."""
    user = dovecot.fresh_user()
    made = []

    def start(bot="poll_interval = 60", imap=None, extra_imap=""):
        conf = server_config(tmp_path / "spielleiter.toml", imap or dovecot, smtpd, user,
                             db_url=f"sqlite:///{tmp_path / 'bot.sqlite'}", bot=bot)
        if extra_imap:
            conf.write_text(conf.read_text().replace('folder = "INBOX"', 'folder = "INBOX"\n' + extra_imap))
        liga = league_toml(tmp_path / "l.toml", partien=("R1",))
        assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
        cfg = load_config(conf)
        db = Database(cfg.database_url)
        svc = Service(db, cfg)
        t = threading.Thread(target=svc.start, daemon=True)
        t.start()
        made.append((svc, t, db))
        return SimpleNamespace(svc=svc, db=db, user=user, cfg=cfg)

    yield start
    for svc, t, db in made:
        svc.stop()
        t.join(10)
        db.dispose()


def _arrives_and_is_answered(dovecot, smtpd, env, who):
    before = len(_acks(smtpd, who))
    t0 = time.monotonic()
    dovecot.append(player_mail(who, "Partie R1:\nTOR"), user=env.user)
    assert _wait(lambda: len(_acks(smtpd, who)) > before, 20), "no acknowledgement"
    return time.monotonic() - t0


def test_a_new_mail_is_acknowledged_within_two_seconds(running, dovecot, smtpd):
    env = running()
    assert _wait(lambda: env.svc.idle is not None and env.svc.idle.idling)
    took = [_arrives_and_is_answered(dovecot, smtpd, env, who)
            for who in ("anna@example.org", "bernd@example.org")]
    print(f"arrival to acknowledgement: {took}")
    assert max(took) < 2.0, took  # the poll interval is 60 s: only IDLE can do this
    with env.db.session() as s:
        assert s.scalar(select(func.count()).select_from(InboundMail)) == 2  # stored once each
    assert dovecot.fetch_all(user=env.user) == []  # read and moved to the processed folder


def test_idle_is_renewed_and_keeps_working(running, dovecot, smtpd, monkeypatch):
    monkeypatch.setattr(idle_mod, "RENEW", 0.3)
    env = running()
    assert _wait(lambda: env.svc.idle is not None and env.svc.idle.started >= 4)
    assert _arrives_and_is_answered(dovecot, smtpd, env, "anna@example.org") < 2.0


def test_a_dropped_connection_falls_back_to_polling_and_idle_comes_back(running, dovecot, smtpd):
    proxy = TcpProxy(dovecot.host, dovecot.port)
    env = running(bot="poll_interval = 0.5", imap=SimpleNamespace(host=proxy.host, port=proxy.port,
                                                                  password=dovecot.password))
    assert _wait(lambda: env.svc.idle is not None and env.svc.idle.idling)
    first = env.svc.idle.started
    proxy.down()                                   # the IDLE connection is cut, polls fail
    assert _wait(lambda: env.svc.inbox.failing)    # the poll woken by the drop backs off
    assert _wait(lambda: not env.svc.idle.idling)  # the watch saw the drop
    dovecot.append(player_mail("clara@example.org", "Partie R1:\nTOR"), user=env.user)
    proxy.up()
    assert _wait(lambda: _acks(smtpd, "clara@example.org"))  # read by the polling after the backoff
    assert _wait(lambda: env.svc.idle.started > first and env.svc.idle.idling)  # IDLE again
    assert _arrives_and_is_answered(dovecot, smtpd, env, "anna@example.org") < 2.0
    proxy.down()


def test_idle_off_polls_only(running, dovecot, smtpd):
    env = running(bot="poll_interval = 0.3", extra_imap="idle = false")
    assert env.svc.idle is None
    assert _arrives_and_is_answered(dovecot, smtpd, env, "anna@example.org") < 10
    assert env.svc.idle is None


def test_a_server_without_idle_is_polled(tmp_path, dovecot_no_idle, smtpd, caplog):
    import logging
    caplog.set_level(logging.INFO, "bot.service.stages.idle")
    user = dovecot_no_idle.fresh_user()
    conf = server_config(tmp_path / "spielleiter.toml", dovecot_no_idle, smtpd, user,
                         db_url=f"sqlite:///{tmp_path / 'bot.sqlite'}", bot="poll_interval = 0.3")
    assert main(["league", "create", str(league_toml(tmp_path / "l.toml", partien=("R1",))), "--config",
                 str(conf)]) == 0
    cfg = load_config(conf)
    db = Database(cfg.database_url)
    svc = Service(db, cfg)
    t = threading.Thread(target=svc.start, daemon=True)
    t.start()
    try:
        assert _wait(lambda: any("bietet kein IDLE an" in r.getMessage() for r in caplog.records))
        assert svc.idle is not None and svc.idle.started == 0
        dovecot_no_idle.append(player_mail("anna@example.org", "Partie R1:\nTOR"), user=user)
        assert _wait(lambda: _acks(smtpd, "anna@example.org"))  # read by polling
    finally:
        svc.stop()
        t.join(10)
        db.dispose()

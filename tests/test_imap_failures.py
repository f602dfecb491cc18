"""When the IMAP server fails (issue 16), with a real Dovecot: one clear line and a
documented exit status per failure kind for ``poll``, no traceback without ``--debug``;
``run`` backs off (capped, one line per attempt, one recovery line), delivers the
outbox during the outage, fires a ZAT on time with a note in the GM's copy, and tells
the GM once after the alarm time and once when the inbox works again."""

from __future__ import annotations

import logging
import subprocess
import threading
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from bot.cli import main
from bot.config import load_config
from bot.mail.transport import ServerFailure
from bot.service.operations.health import Outage, duration
from bot.service.operations.runner import Service
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Round
from tests.helpers import header, league_toml, player_mail, server_config, spielleiter_exe, text_of
from tests.mailservers import TcpProxy, free_port

pytestmark = pytest.mark.e2e


def _conf(tmp_path, imap, smtpd, user, **kw):
    return server_config(tmp_path / "spielleiter.toml", imap, smtpd, user,
                         db_url=f"sqlite:///{tmp_path / 'bot.sqlite'}", **kw)


def _cli(conf, *args):
    return subprocess.run([spielleiter_exe(), *args, "--config", str(conf)], capture_output=True, text=True,
                          timeout=120, cwd=conf.parent)


# -- poll: one line and an exit status per kind ----------------------------------------

def test_poll_wrong_password_one_line_and_status_10(tmp_path, dovecot, smtpd):
    conf = _conf(tmp_path, dovecot, smtpd, dovecot.fresh_user(), imap_password="falsch")
    proc = _cli(conf, "poll")
    assert proc.returncode == 10, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith(f"IMAP {dovecot.host}:{dovecot.port}: Anmeldung abgelehnt: ")
    assert "AUTHENTICATIONFAILED" in lines[0] and "b'" not in lines[0]
    debug = _cli(conf, "poll", "--debug")
    assert debug.returncode == 10 and "Traceback" in debug.stderr and "LoginError" in debug.stderr


def test_poll_unreachable_folder_missing_and_check(tmp_path, dovecot, smtpd):
    user = dovecot.fresh_user()
    down = SimpleNamespace(host="127.0.0.1", port=free_port(), password=dovecot.password)
    conf = _conf(tmp_path, down, smtpd, user)
    proc = _cli(conf, "poll")
    assert proc.returncode == 11 and proc.stderr.startswith(f"IMAP 127.0.0.1:{down.port}: Server nicht erreichbar: ")
    assert len(proc.stderr.strip().splitlines()) == 1
    check = _cli(conf, "check")
    assert check.returncode == 1 and f"FEHLER  IMAP: 127.0.0.1:{down.port}: Server nicht erreichbar" in check.stdout

    conf = _conf(tmp_path, dovecot, smtpd, user)
    conf.write_text(conf.read_text().replace('folder = "INBOX"', 'folder = "Gibtsnicht"'))
    proc = _cli(conf, "poll")
    assert proc.returncode == 13, proc.stderr
    assert proc.stderr.strip() .startswith(f"IMAP {dovecot.host}:{dovecot.port}: Ordner fehlt: Ordner Gibtsnicht")
    check = _cli(conf, "check")
    assert "FEHLER  IMAP: " in check.stdout and "Ordner Gibtsnicht gibt es nicht" in check.stdout


def test_poll_delivers_the_outbox_although_imap_fails(tmp_path, dovecot, smtpd):
    user = dovecot.fresh_user()
    conf = _conf(tmp_path, dovecot, smtpd, user)
    smtpd.stop()
    assert main(["league", "create", str(league_toml(tmp_path / "l.toml")), "--config", str(conf)]) == 21
    smtpd.start()
    conf = _conf(tmp_path, dovecot, smtpd, user, imap_password="falsch")
    proc = _cli(conf, "poll")
    assert proc.returncode == 10 and "Postausgang: 3 gesendet" in proc.stderr
    assert len(smtpd.messages) == 3


def test_adjudicate_while_imap_fails_says_so_in_the_gm_copy(tmp_path, dovecot, smtpd):
    user = dovecot.fresh_user()
    conf = _conf(tmp_path, dovecot, smtpd, user)
    liga = league_toml(tmp_path / "l.toml", name="Ausfall", extra='gm_email = "sl@example.org"')
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    conf = _conf(tmp_path, dovecot, smtpd, user, imap_password="falsch")
    proc = _cli(conf, "adjudicate", "Ausfall", "--now")
    assert proc.returncode == 10 and "Runde 1 ausgewertet" in proc.stdout
    reports = {m.rcpt_tos[0]: m.raw for m in smtpd.messages if "Auswertung Runde 1" in header(m.raw, "Subject")}
    assert len(reports) == 4
    gm = text_of(reports["sl@example.org"])
    assert " ".join(gm.split()).startswith(
        "Hinweis für den Spielleiter: Der Posteingang konnte vor der Auswertung nicht gelesen")
    assert max(len(line) for line in gm.splitlines()) <= 76  # the remark is wrapped like the mail
    assert "Anmeldung abgelehnt" in gm
    assert all("Hinweis für den Spielleiter" not in text_of(raw) for a, raw in reports.items() if a != "sl@example.org")


# -- the backoff itself ------------------------------------------------------------------

def test_outage_backoff_lines_and_recovery(caplog):
    now = [datetime(2026, 12, 6, 19, 0, tzinfo=timezone.utc)]
    o = Outage("IMAP", 5, clock=lambda: now[0], logger=logging.getLogger("test.outage"))
    exc = ServerFailure("imap", "unreachable", "[Errno 111] Connection refused", host="imap.example.org:993")
    caplog.set_level(logging.INFO, "test.outage")
    assert o.delay() == 5
    waits = []
    for _ in range(7):
        waits.append(o.failed(exc))
        now[0] += timedelta(seconds=waits[-1])
    assert waits == [10, 20, 40, 50, 50, 50, 50]          # exponential, capped at 10 intervals
    back = o.succeeded()
    assert back[2] == 8 and not o.failing and o.delay() == 5
    msgs = [r.getMessage() for r in caplog.records]
    assert msgs[0] == ("IMAP imap.example.org:993: Server nicht erreichbar: [Errno 111] Connection refused "
                       "(nächster Versuch in 10 s)")
    assert msgs[1] == "IMAP weiter gestört seit 10 s (2 Versuche): Server nicht erreichbar; nächster Versuch in 20 s"
    assert len(msgs) == 8 and msgs[-1] == "IMAP wieder erreichbar nach 4 min, 8 Versuche"
    assert not any(r.exc_info for r in caplog.records)
    assert duration(180) == "3 min" and duration(3 * 3600 + 5 * 60) == "3 h 5 min"


# -- run: Dovecot down, outbox and ZAT go on -----------------------------------------------

def _wait(pred, seconds=30.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.1)
    return False


def _subjects(smtpd, to=None):
    return [header(m.raw, "Subject") for m in smtpd.messages if to is None or m.rcpt_tos == [to]]


def test_run_during_an_imap_outage(tmp_path, dovecot, smtpd, caplog):
    user = dovecot.fresh_user()
    proxy = TcpProxy(dovecot.host, dovecot.port)
    imap = SimpleNamespace(host=proxy.host, port=proxy.port, password=dovecot.password)
    conf = _conf(tmp_path, imap, smtpd, user, bot="poll_interval = 0.2\ninbox_alarm_minutes = 0.02")
    liga = league_toml(tmp_path / "l.toml", name="Ausfall", partien=("R1",), extra='gm_email = "sl@example.org"')
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    # two moves stored while SMTP is down: their acknowledgements wait in the outbox
    smtpd.stop()
    for who in ("anna@example.org", "bernd@example.org"):
        dovecot.append(player_mail(who, "Partie R1:\nXYZ"), user=user)
    assert main(["poll", "--config", str(conf)]) == 21
    smtpd.start()
    proxy.down()                                      # now IMAP is down, SMTP works again
    before = len(smtpd.messages)

    cfg = load_config(conf)
    db = Database(cfg.database_url)
    caplog.set_level(logging.INFO)
    svc = Service(db, cfg)
    t = threading.Thread(target=svc.start, daemon=True)
    t.start()
    try:
        # the acknowledgements of the stored mails go out during the outage
        assert _wait(lambda: len(smtpd.messages) >= before + 2), _subjects(smtpd)
        assert svc.inbox.failing
        acks = Counter(m.rcpt_tos[0] for m in smtpd.messages[before:])
        assert acks == Counter({"anna@example.org": 1, "bernd@example.org": 1})
        # the GM hears of it once after the alarm time (here 1.2 s)
        assert _wait(lambda: "Spielleiter-Bot: Posteingang nicht lesbar" in _subjects(smtpd, "sl@example.org"))
        # a ZAT during the outage fires on time, with a note in the GM's copy only
        with db.session() as s:
            s.scalar(select(Round).where(Round.number == 1)).zat = datetime.now(timezone.utc) + timedelta(seconds=1)
        assert _wait(lambda: any("Auswertung Runde 1" in x for x in _subjects(smtpd, "sl@example.org")))
        gm = next(text_of(m.raw) for m in smtpd.messages
                  if m.rcpt_tos == ["sl@example.org"] and "Auswertung Runde 1" in header(m.raw, "Subject"))
        assert " ".join(gm.split()).startswith(
            "Hinweis für den Spielleiter: Der Posteingang konnte vor dem ZAT nicht gelesen werden")
        anna = next(text_of(m.raw) for m in smtpd.messages
                    if m.rcpt_tos == ["anna@example.org"] and "Auswertung Runde 1" in header(m.raw, "Subject"))
        assert "Hinweis für den Spielleiter" not in anna
        # a move sent during the outage is read once the server is back
        dovecot.append(player_mail("clara@example.org", "Partie R1:\nABC"), user=user)
        time.sleep(1.0)
        proxy.up()
        assert _wait(lambda: "Spielleiter-Bot: Posteingang wieder lesbar" in _subjects(smtpd, "sl@example.org"))
        assert _wait(lambda: any(m.rcpt_tos == ["clara@example.org"] and "Auswertung" not in header(m.raw, "Subject")
                                 and "Spielbeginn" not in header(m.raw, "Subject") for m in smtpd.messages))
    finally:
        svc.stop()
        t.join(10)
        proxy.down()
    assert not t.is_alive()
    imap_lines = [r for r in caplog.records if r.getMessage().startswith("IMAP ")]
    failures = [r for r in imap_lines if "wieder erreichbar" not in r.getMessage()]
    recovered = [r for r in imap_lines if "wieder erreichbar" in r.getMessage()]
    assert failures[0].levelno == logging.ERROR and "Server nicht erreichbar" in failures[0].getMessage()
    assert all("weiter gestört seit" in r.getMessage() for r in failures[1:])
    assert len(recovered) == 1 and recovered[0].getMessage().endswith(f", {len(failures) + 1} Versuche")
    assert not any(r.exc_info for r in caplog.records if r.name.startswith("bot"))
    assert not any("skipped" in r.getMessage() for r in caplog.records)
    gaps = [b.created - a.created for a, b in zip(failures, failures[1:])]
    assert gaps and max(gaps) < 0.2 * 10 + 1.5        # capped at ten poll intervals (+ the ZAT's extra try)
    assert len(failures) < 40                          # backoff, not one line per 0.2 s
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(InboundMail)) == 3       # every mail stored once
        acks = s.scalars(select(OutboxMail).where(OutboxMail.kind == "ack")).all()
        assert len(acks) == 3 and all(a.status == "sent" for a in acks)
        assert Counter(m.rcpt_tos[0] for m in smtpd.messages if "Posteingang" in header(m.raw, "Subject")) \
            == Counter({"sl@example.org": 2})
    db.dispose()

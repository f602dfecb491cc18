"""A failing or misconfigured SMTP server costs nothing but time (issue 7): against a real
aiosmtpd server and Dovecot, through the CLI. A relay without AUTH works with an empty
user; AUTH refused and a server that is down keep every mail queued (attempts and
last_error recorded, status untouched) and each goes out exactly once when the server
works again; a 550 for one recipient fails only that mail; ``outbox retry`` sends a
failed mail once; ``check`` names every problem."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.config import load_config
from bot.storage.db import Database
from bot.storage.models import OutboxMail
from tests.helpers import PLAYERS, league_toml, server_config

pytestmark = pytest.mark.e2e
EMAILS = sorted(e for _, e in PLAYERS)


def _conf(tmp_path, dovecot, smtpd, **kw):
    return server_config(tmp_path / "spielleiter.toml", dovecot, smtpd, dovecot.fresh_user(),
                         db_url=f"sqlite:///{tmp_path / 'bot.sqlite'}", **kw)


def _liga(tmp_path):
    return str(league_toml(tmp_path / "liga.toml", name="Fehler-Liga"))


def _rows(conf) -> list[OutboxMail]:
    db = Database(load_config(conf).database_url)
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).order_by(OutboxMail.id)).all()
    db.dispose()
    return rows


def _received(smtpd) -> Counter:
    return Counter(m.rcpt_tos[0] for m in smtpd.messages)


def test_relay_without_auth_and_an_empty_user(tmp_path, dovecot, smtpd):
    conf = _conf(tmp_path, dovecot, smtpd, smtp_login='user = ""\npassword = ""')
    assert main(["league", "create", _liga(tmp_path), "--config", str(conf)]) == 0
    assert sorted(_received(smtpd)) == EMAILS
    assert [r.status for r in _rows(conf)] == ["sent"] * 3


def test_auth_refused_keeps_mails_queued_and_they_go_out_once_fixed(tmp_path, dovecot, smtpd, capsys):
    smtpd.require_auth("bot", "richtig")
    conf = _conf(tmp_path, dovecot, smtpd, smtp_login='user = "bot"\npassword = "falsch"')
    assert main(["league", "create", _liga(tmp_path), "--config", str(conf)]) == 20  # SMTP login refused
    cap = capsys.readouterr()
    assert "Liga Fehler-Liga angelegt" in cap.out
    assert f"SMTP {smtpd.host}:{smtpd.port}: Anmeldung abgelehnt: " in cap.err and "Traceback" not in cap.err
    assert "3 Mail(s) warten" in cap.err
    rows = _rows(conf)
    assert [r.status for r in rows] == ["pending"] * 3
    assert rows[0].attempts == 1 and "Anmeldung abgelehnt" in rows[0].last_error
    assert rows[0].next_attempt_at is None            # the mail is not at fault: due at once when fixed
    assert smtpd.messages == [] and smtpd.logins and set(smtpd.logins) == {("bot", False)}
    # another command meets the same refusal: still queued, one more attempt on the first mail
    assert main(["poll", "--config", str(conf)]) == 20
    assert [r.status for r in _rows(conf)] == ["pending"] * 3 and _rows(conf)[0].attempts == 2

    server_config(conf, dovecot, smtpd, load_config(conf).imap["user"], db_url=load_config(conf).database_url,
                  smtp_login='user = "bot"\npassword = "richtig"')
    assert main(["poll", "--config", str(conf)]) == 0
    assert _received(smtpd) == Counter(EMAILS)        # each exactly once
    assert [r.status for r in _rows(conf)] == ["sent"] * 3
    assert main(["poll", "--config", str(conf)]) == 0
    assert len(smtpd.messages) == 3


def test_server_down_keeps_mails_queued_and_they_go_out_once_back(tmp_path, dovecot, smtpd, capsys):
    conf = _conf(tmp_path, dovecot, smtpd)
    smtpd.stop()
    assert main(["league", "create", _liga(tmp_path), "--config", str(conf)]) == 21  # SMTP unreachable
    assert "Server nicht erreichbar" in capsys.readouterr().err
    rows = _rows(conf)
    assert [r.status for r in rows] == ["pending"] * 3 and rows[0].attempts == 1
    assert "Server nicht erreichbar" in rows[0].last_error
    assert main(["outbox", "--config", str(conf)]) == 0
    listed = capsys.readouterr().out
    assert listed.count("pending") >= 3 and "letzter Fehler: SMTP" in listed and listed.strip().endswith("3 pending")
    smtpd.start()
    assert main(["poll", "--config", str(conf)]) == 0
    assert _received(smtpd) == Counter(EMAILS)
    assert main(["poll", "--config", str(conf)]) == 0
    assert len(smtpd.messages) == 3
    assert main(["outbox", "--config", str(conf)]) == 0
    assert "Der Postausgang ist leer." in capsys.readouterr().out


def test_550_for_one_recipient_fails_only_that_mail_and_retry_sends_it_once(tmp_path, dovecot, smtpd, capsys):
    conf = _conf(tmp_path, dovecot, smtpd)
    smtpd.reject("bernd@example.org", 550)
    assert main(["league", "create", _liga(tmp_path), "--config", str(conf)]) == 0
    by_to = {r.to_addr: r for r in _rows(conf)}
    assert by_to["bernd@example.org"].status == "failed" and "550" in by_to["bernd@example.org"].last_error
    assert by_to["anna@example.org"].status == by_to["clara@example.org"].status == "sent"
    capsys.readouterr()
    assert main(["outbox", "--status", "failed", "--json", "--config", str(conf)]) == 0
    import json
    failed = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [f["to"] for f in failed] == ["bernd@example.org"] and failed[0]["attempts"] == 1

    smtpd._rejected.clear()                          # the address works again
    bernd = by_to["bernd@example.org"].id
    assert main(["outbox", "retry", str(bernd), "--config", str(conf)]) == 0
    assert _received(smtpd)["bernd@example.org"] == 1
    assert main(["outbox", "retry", str(bernd), "--config", str(conf)]) == 2   # sent: never twice
    assert "schon gesendet" in capsys.readouterr().err
    assert main(["outbox", "retry", "--all-failed", "--config", str(conf)]) == 0
    assert _received(smtpd) == Counter(EMAILS)
    assert main(["outbox", "retry", "9999", "--config", str(conf)]) == 2


def test_mails_failed_by_the_old_auth_bug_can_be_queued_again(tmp_path, dovecot, smtpd):
    """Rows marked failed by an earlier version (AUTH error taken as permanent) go out
    after ``outbox retry --all-failed``; a withdrawn Auswertung does not."""
    conf = _conf(tmp_path, dovecot, smtpd)
    smtpd.stop()
    assert main(["league", "create", _liga(tmp_path), "--config", str(conf)]) == 21
    db = Database(load_config(conf).database_url)
    with db.session() as s:
        for r in s.scalars(select(OutboxMail)):
            r.status, r.last_error = "failed", "failed permanently: The SMTP AUTH extension is not supported"
        first = s.scalars(select(OutboxMail).order_by(OutboxMail.id)).first()
        first.key += ":zurueck1"                       # as gm.rollback marks a withdrawn mail
    smtpd.start()
    assert main(["outbox", "retry", "--all-failed", "--config", str(conf)]) == 0
    assert len(smtpd.messages) == 2 and first.to_addr not in _received(smtpd)
    assert main(["outbox", "retry", str(first.id), "--config", str(conf)]) == 2


def test_user_set_but_server_offers_no_auth_is_a_settings_error(tmp_path, dovecot, smtpd, capsys):
    conf = _conf(tmp_path, dovecot, smtpd, smtp_login='user = "bot"\npassword = "x"')
    assert main(["league", "create", _liga(tmp_path), "--config", str(conf)]) == 24
    err = capsys.readouterr().err
    assert "keine Anmeldung (AUTH)" in err and "[smtp] user leer lassen" in err
    assert [r.status for r in _rows(conf)] == ["pending"] * 3


def test_check_names_every_problem_and_sends_nothing(tmp_path, dovecot, smtpd, capsys):
    conf = _conf(tmp_path, dovecot, smtpd)
    assert main(["check", "--config", str(conf)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("OK      Konfiguration: ")
    assert any(ln.startswith("WARNUNG Datenbank: ") and "spielleiter init" in ln for ln in out)
    assert any(ln.startswith("OK      IMAP: ") and "Spielleiter/Verarbeitet angelegt" in ln for ln in out)
    assert any(ln.startswith(f"OK      SMTP: {smtpd.host}:{smtpd.port}, ohne TLS, ohne Anmeldung") for ln in out)
    assert any(ln.startswith("OK      Lexikon rondo: ") for ln in out) and out[-1] == "Alles bereit."
    assert main(["init", "--config", str(conf)]) == 0
    capsys.readouterr()
    assert main(["check", "--config", str(conf)]) == 0
    assert "(Schema " in capsys.readouterr().out

    bad = _conf(tmp_path, dovecot, smtpd, imap_password="falsch", smtp_login='pasword = "x"',
                bot="poll_intervall = 5")
    assert main(["check", "--config", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "FEHLER  Konfiguration: [smtp] pasword: unbekannter Schlüssel (gemeint: password?)" in out
    assert "FEHLER  Konfiguration: [bot] poll_intervall: unbekannter Schlüssel (gemeint: poll_interval?)" in out
    assert any(ln.startswith(f"FEHLER  IMAP: {dovecot.host}:{dovecot.port}: Anmeldung abgelehnt: ") for ln in out)
    assert out[-1] == "3 Prüfung(en) fehlgeschlagen."
    assert smtpd.messages == []


def test_a_wrong_type_is_named_with_section_and_key(tmp_path, dovecot, smtpd, capsys):
    conf = _conf(tmp_path, dovecot, smtpd)
    conf.write_text(conf.read_text().replace(f"port = {smtpd.port}", f'port = "{smtpd.port}"'))
    assert main(["check", "--config", str(conf)]) == 2
    assert f"[smtp] port: muss eine ganze Zahl sein, nicht '{smtpd.port}'" in capsys.readouterr().err

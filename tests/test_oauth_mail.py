"""OAuth2 (XOAUTH2) for IMAP and SMTP against real servers (issue 27, item 3), the mail
flows: ``poll`` and ``run`` read and answer mails with XOAUTH2; a token that expires
during a run is renewed before it runs out (mails keep flowing), one the server refuses
early is renewed and tried again; a revoked grant is one German line naming ``oauth
login``, every mail waits (in the outbox, on the server) and goes out once after a new
login, without a restart. The servers, the login and the config: tests/test_oauth.py."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from collections import Counter

import pytest
from sqlalchemy import func, select

from bot.cli import main
from bot.config import load_config
from bot.mail.imap import ImapInbox
from bot.mail.oauth import TokenSource
from bot.mail.smtp import SmtpTransport
from bot.mail.transport import MemoryPollState, ServerFailure
from bot.service.operations.runner import Service
from bot.storage.db import Database
from bot.storage.models import InboundMail
from tests.helpers import header, league_toml, player_mail
from tests.test_oauth import EMAILS, _conf, _login, _rows, _wait

pytestmark = pytest.mark.e2e


# -- mail flows with XOAUTH2 ---------------------------------------------------------------

def test_poll_reads_and_answers_with_xoauth2_and_renews_a_refused_token(tmp_path, dovecot_oauth, smtpd_oauth,
                                                                        oauth_provider, capsys):
    user = dovecot_oauth.fresh_user()
    conf = _conf(tmp_path, dovecot_oauth, smtpd_oauth, oauth_provider, user)
    assert _login(conf, oauth_provider, user) == 0
    liga = league_toml(tmp_path / "l.toml", name="OAuth-Liga")
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    assert sorted(m.rcpt_tos[0] for m in smtpd_oauth.messages) == EMAILS
    # the provider lets the access token die early (before the bot's clock says so)
    oauth_provider.expire(user)
    refreshes = oauth_provider.refreshes()
    dovecot_oauth.append(player_mail("anna@example.org", "Partie R1:\nXYZ"), user=user)
    capsys.readouterr()
    assert main(["poll", "--config", str(conf)]) == 0, capsys.readouterr().err
    assert oauth_provider.refreshes() == refreshes + 1          # renewed once, then used by IMAP and SMTP
    acks = [m for m in smtpd_oauth.messages if m.rcpt_tos == ["anna@example.org"]]
    assert len(acks) == 2                                        # the welcome and the acknowledgement
    saved = json.loads((tmp_path / "bot-oauth.json").read_text())["token"]
    assert oauth_provider.active(saved["access_token"])          # the rotated tokens were stored
    assert saved["refresh_token"] in oauth_provider.refresh
    assert all(r.status == "sent" for r in _rows(conf))


def test_a_token_expiring_during_a_run_is_renewed_and_mail_keeps_flowing(tmp_path, dovecot_oauth, smtpd_oauth,
                                                                        oauth_provider, caplog):
    user = dovecot_oauth.fresh_user()
    conf = _conf(tmp_path, dovecot_oauth, smtpd_oauth, oauth_provider, user, bot="poll_interval = 0.3")
    oauth_provider.lifetime = 6                  # renewed 2 s before it runs out (a third of its life)
    try:
        assert _login(conf, oauth_provider, user) == 0
        assert main(["league", "create", str(league_toml(tmp_path / "l.toml", name="Lauf")), "--config",
                     str(conf)]) == 0
        cfg = load_config(conf)
        db = Database(cfg.database_url)
        caplog.set_level(logging.INFO)
        svc = Service(db, cfg)
        t = threading.Thread(target=svc.start, daemon=True)
        t.start()
        start_refreshes = oauth_provider.refreshes()
        senders = [f"spieler{n}@example.org" for n in range(6)]
        try:
            for who in senders:                   # one mail every 1.5 s: 9 s, two lifetimes and more
                dovecot_oauth.append(player_mail(who, "Partie R1:\nXYZ"), user=user)
                assert _wait(lambda: any(m.rcpt_tos == [who] for m in smtpd_oauth.messages), 10), who
                time.sleep(1.5)
        finally:
            svc.stop()
            t.join(10)
        assert oauth_provider.refreshes() - start_refreshes >= 2
        assert Counter(m.rcpt_tos[0] for m in smtpd_oauth.messages if m.rcpt_tos[0] in senders) == \
            Counter(senders)                      # each answered once
        assert all(ok for _, ok in smtpd_oauth.xoauth2)   # never sent an expired token
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("bot")]
        with db.session() as s:
            assert s.scalar(select(func.count()).select_from(InboundMail)) == len(senders)
        db.dispose()
    finally:
        oauth_provider.lifetime = 3600


def test_a_revoked_grant_is_one_german_line_and_no_mail_is_lost(tmp_path, dovecot_oauth, smtpd_oauth,
                                                                oauth_provider, capsys):
    user = dovecot_oauth.fresh_user()
    conf = _conf(tmp_path, dovecot_oauth, smtpd_oauth, oauth_provider, user)
    assert _login(conf, oauth_provider, user) == 0
    oauth_provider.revoke(user)
    capsys.readouterr()
    liga = league_toml(tmp_path / "l.toml", name="Widerruf")
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 20     # SMTP login refused
    err = capsys.readouterr().err
    line = next(ln for ln in err.splitlines() if ln.startswith("SMTP "))
    assert line == (f"SMTP {smtpd_oauth.host}:{smtpd_oauth.port}: Anmeldung abgelehnt: OAuth2-Zugang widerrufen "
                    f"oder abgelaufen: spielleiter oauth login --config {conf} erneut ausführen "
                    "(invalid_grant: AADSTS50173: The provided grant has expired due to it being revoked.)")
    assert "Traceback" not in err and "3 Mail(s) warten" in err
    assert [r.status for r in _rows(conf)] == ["pending"] * 3 and not smtpd_oauth.messages
    # a player's mail meanwhile stays on the server; the welcome mails still wait
    dovecot_oauth.append(player_mail("anna@example.org", "Partie R1:\nXYZ"), user=user)
    assert main(["poll", "--config", str(conf)]) == 10                             # IMAP login refused
    err = capsys.readouterr().err
    assert f"IMAP {dovecot_oauth.host}:{dovecot_oauth.port}: Anmeldung abgelehnt: OAuth2-Zugang widerrufen oder " \
           f"abgelaufen: spielleiter oauth login --config {conf} erneut ausführen (invalid_grant: " in err
    assert len(dovecot_oauth.fetch_all(user=user)) == 1
    assert [r.status for r in _rows(conf)] == ["pending"] * 3
    # the operator grants access again: everything goes out, once
    assert _login(conf, oauth_provider, user) == 0
    assert main(["poll", "--config", str(conf)]) == 0
    assert Counter(m.rcpt_tos[0] for m in smtpd_oauth.messages) == Counter(EMAILS + ["anna@example.org"])
    assert [header(m.raw, "Subject") for m in smtpd_oauth.messages if m.rcpt_tos == ["anna@example.org"]][-1]
    assert main(["poll", "--config", str(conf)]) == 0
    assert len(smtpd_oauth.messages) == 4 and all(r.status == "sent" for r in _rows(conf))


def test_transports_turn_oauth_failures_into_server_failures(tmp_path, dovecot_oauth, smtpd_oauth,
                                                             oauth_provider, caplog):
    user = dovecot_oauth.fresh_user()
    conf = _conf(tmp_path, dovecot_oauth, smtpd_oauth, oauth_provider, user,
                 oauth='token_file = "nirgends/token.json"')
    settings = load_config(conf).oauth
    inbox = ImapInbox(dovecot_oauth.host, dovecot_oauth.port, user, "", tls=False, timeout=10,
                      oauth=TokenSource(settings))
    with pytest.raises(ServerFailure) as err:
        inbox.poll(lambda raw, **kw: True, MemoryPollState())
    assert err.value.kind == "login" and "noch kein OAuth2-Zugang" in str(err.value)
    # the token endpoint down while the token is due for renewal but still valid: it is used
    assert _login(conf, oauth_provider, user) == 0
    dead = dataclasses.replace(settings, token_endpoint="http://127.0.0.1:9/token")
    data = json.loads(settings.token_file.read_text())
    data["token_endpoint"] = dead.token_endpoint
    data["token"]["expires_at"] = int(time.time()) + 60          # within the 5 minutes of renewal
    settings.token_file.write_text(json.dumps(data))
    sender = SmtpTransport(smtpd_oauth.host, smtpd_oauth.port, user, tls=False, timeout=10, retries=0,
                           oauth=TokenSource(dead))
    caplog.set_level(logging.WARNING, "bot.mail.oauth")
    sender.send(b"Subject: x\r\n\r\nx\r\n", user, ["a@example.org"])
    assert [m.rcpt_tos for m in smtpd_oauth.messages] == [["a@example.org"]]
    assert caplog.messages == ["OAuth2-Token-Endpunkt 127.0.0.1:9 nicht erreichbar; das alte Token gilt noch, "
                               "es wird weiter benutzt"]
    # ... and once it has run out: "unreachable", retried like a server that is down
    _expire_saved_token(settings.token_file)
    with pytest.raises(ServerFailure) as err:
        sender.send(b"Subject: x\r\n\r\nx\r\n", user, ["a@example.org"])
    assert err.value.kind == "unreachable" and err.value.line() == \
        f"SMTP {smtpd_oauth.host}:{smtpd_oauth.port}: Server nicht erreichbar: OAuth2-Token-Endpunkt " \
        "127.0.0.1:9 nicht erreichbar"



def test_a_grant_revoked_while_running_waits_for_a_new_login_without_a_restart(tmp_path, dovecot_oauth, smtpd_oauth,
                                                                               oauth_provider, caplog):
    user = dovecot_oauth.fresh_user()
    conf = _conf(tmp_path, dovecot_oauth, smtpd_oauth, oauth_provider, user,
                 bot="poll_interval = 0.3\ngm_notice_minutes = 0")  # the notice goes out at once
    assert _login(conf, oauth_provider, user) == 0
    assert main(["league", "create", str(league_toml(tmp_path / "l.toml", name="Dienst")), "--config",
                 str(conf)]) == 0
    welcome = len(smtpd_oauth.messages)
    oauth_provider.revoke(user)
    _expire_saved_token(tmp_path / "bot-oauth.json")            # the bot must renew: the grant is gone
    assert main(["gm", "nachricht", "Dienst", "Bitte", "pünktlich", "sein.", "--config", str(conf)]) == 20
    cfg = load_config(conf)
    db = Database(cfg.database_url)
    caplog.set_level(logging.INFO)
    svc = Service(db, cfg)
    t = threading.Thread(target=svc.start, daemon=True)
    t.start()
    try:
        dovecot_oauth.append(player_mail("anna@example.org", "Partie R1:\nXYZ"), user=user)
        refused = "Anmeldung abgelehnt: OAuth2-Zugang widerrufen oder abgelaufen: spielleiter oauth login"
        assert _wait(lambda: any(r.getMessage().startswith("IMAP ") and refused in r.getMessage()
                                 for r in caplog.records))
        assert _wait(lambda: any(r.getMessage().startswith("SMTP ") and refused in r.getMessage()
                                 for r in caplog.records))
        time.sleep(1.0)
        assert len(smtpd_oauth.messages) == welcome and len(dovecot_oauth.fetch_all(user=user)) == 1
        assert {r.status for r in _rows(conf)} == {"sent", "pending"}   # nothing failed
        assert _login(conf, oauth_provider, user) == 0                   # the operator, while the bot runs
        assert _wait(lambda: [m.rcpt_tos for m in smtpd_oauth.messages[welcome:]].count(["anna@example.org"]) == 2)
        assert _wait(lambda: all(r.status == "sent" for r in _rows(conf)))
    finally:
        svc.stop()
        t.join(10)
    db.dispose()
    news = Counter(m.rcpt_tos[0] for m in smtpd_oauth.messages[welcome:])
    assert news == Counter({e: 1 for e in EMAILS}) + Counter({"anna@example.org": 1})   # the message, the ack
    lines = [r for r in caplog.records if refused in r.getMessage()]
    assert not any(r.exc_info for r in caplog.records if r.name.startswith("bot"))
    assert len(lines) <= 4                 # one line each, then "weiter gestört" lines with backoff


def _expire_saved_token(path):
    data = json.loads(path.read_text())
    data["token"]["expires_at"] = int(time.time()) - 5
    path.write_text(json.dumps(data))

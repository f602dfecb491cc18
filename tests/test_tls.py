"""TLS and STARTTLS against the real servers: a Dovecot with ``ssl = yes`` (STARTTLS on
its plain port, implicit TLS on its imaps port) and aiosmtpd with STARTTLS or implicit TLS,
all presenting a certificate of a throwaway CA (``trustme``, ``tests/mailservers.py``).

A poll and ``ImapInbox.check()`` work over both IMAP modes when the bot trusts the CA;
an untrusted CA, a name that is not in the certificate and STARTTLS asked of a server
without it each fail as ``ServerFailure`` kind ``tls`` (CLI exit status 12 / 22). SMTP sends
over both modes, AUTH only after STARTTLS. Through the config file: ``[imap] ca_file`` /
``[smtp] ca_file`` (a private CA, or a server's self-signed certificate) and OpenSSL's
``SSL_CERT_FILE`` make ``spielleiter check`` / ``poll`` / ``league create`` trust the server.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from sqlalchemy import func, select

from bot.config import load_config
from bot.errors import ConfigError
from bot.mail.imap import ImapInbox
from bot.mail.smtp import SmtpTransport
from bot.mail.transport import MemoryPollState, ServerFailure
from bot.storage.db import Database
from bot.storage.models import InboundMail
from tests.helpers import header, league_toml, player_mail, spielleiter_exe
from tests.mailservers import make_self_signed

pytestmark = pytest.mark.e2e

PORTS = {True: "tls_port", "starttls": "port"}  # which Dovecot port each IMAP mode uses


def _mail(n: int) -> bytes:
    return player_mail(f"Spieler {n} <spieler{n}@example.de>", f"Zug {n}", subject=f"Zug {n}")


def _inbox(server, user, tls, host="127.0.0.1", **kw) -> ImapInbox:
    return ImapInbox(host, getattr(server, PORTS[tls]), user, server.password, tls=tls, timeout=10, **kw)


def _login_lines(server, user) -> list[str]:
    return [ln for ln in server.log().splitlines() if f"Login: user=<{user}>" in ln]


class Store:
    def __init__(self):
        self.raws: list[bytes] = []

    def __call__(self, raw, *, source, uidvalidity, uid):
        self.raws.append(raw)
        return True


# -- IMAP ----------------------------------------------------------------------------------

@pytest.mark.parametrize("tls", [True, "starttls"], ids=["implicit", "starttls"])
def test_imap_poll_and_check_over_tls_trusting_the_test_ca(dovecot_tls, tls):
    user = dovecot_tls.fresh_user()
    for n in (1, 2):
        dovecot_tls.append(_mail(n), user=user)
    before = len(_login_lines(dovecot_tls, user))  # the helper's plain logins
    inbox = _inbox(dovecot_tls, user, tls, ca_file=dovecot_tls.certs.ca_pem)
    said = inbox.check()
    assert said.startswith(("TLS, " if tls is True else "STARTTLS, ") + f"angemeldet als {user}, INBOX: 2 Mail(s)")
    store, state = Store(), MemoryPollState()
    assert inbox.poll(store, state) == 2
    assert inbox.tidy(state) == 2
    # the server saw the bot's three logins (check, poll, tidy) over TLS, not in plain text
    logins = _login_lines(dovecot_tls, user)[before:]
    assert len(logins) == 3 and all(", TLS," in ln for ln in logins), logins
    assert [b"Zug 1" in r and b"Zug 2" not in r for r in store.raws] == [True, False]
    assert dovecot_tls.fetch_all(user=user) == []
    assert len(dovecot_tls.fetch_all("Spielleiter.Verarbeitet", user=user)) == 2


@pytest.mark.parametrize("tls", [True, "starttls"], ids=["implicit", "starttls"])
def test_imap_untrusted_ca_is_a_tls_failure(dovecot_tls, tls):
    user = dovecot_tls.fresh_user()
    dovecot_tls.append(_mail(1), user=user)
    other = dovecot_tls.certs.client_context(dovecot_tls.certs.other_ca_pem)
    for inbox in (_inbox(dovecot_tls, user, tls), _inbox(dovecot_tls, user, tls, ssl_context=other)):
        with pytest.raises(ServerFailure) as err:
            inbox.poll(Store(), MemoryPollState())
        assert err.value.kind == "tls" and err.value.service == "imap"
        assert "Zertifikat nicht vertrauenswürdig (unable to get local issuer certificate)" in str(err.value)
        assert "[imap] ca_file" in str(err.value)
    assert len(dovecot_tls.fetch_all(user=user)) == 1  # nothing read, nothing moved
    assert not any(", TLS," in ln for ln in _login_lines(dovecot_tls, user))  # the bot never logged in


@pytest.mark.parametrize("tls", [True, "starttls"], ids=["implicit", "starttls"])
def test_imap_name_not_in_the_certificate_is_a_tls_failure(dovecot_tls, tls):
    # the server listens on 127.0.0.2 too; its certificate names 127.0.0.1 and localhost only
    inbox = _inbox(dovecot_tls, dovecot_tls.fresh_user(), tls, host="127.0.0.2", ca_file=dovecot_tls.certs.ca_pem)
    with pytest.raises(ServerFailure) as err:
        inbox.check()
    assert err.value.kind == "tls"
    assert "Zertifikat passt nicht zum Servernamen (IP address mismatch" in str(err.value)
    assert "[imap] host" in str(err.value)


def test_imap_starttls_asked_of_a_server_without_it(dovecot, tls_certs):
    inbox = ImapInbox(dovecot.host, dovecot.port, dovecot.fresh_user(), dovecot.password, tls="starttls",
                      timeout=10, ca_file=tls_certs.ca_pem)
    with pytest.raises(ServerFailure) as err:
        inbox.check()
    assert err.value.kind == "tls" and str(err.value) == "der Server bietet kein STARTTLS an"


def test_imap_implicit_tls_against_a_plain_port(dovecot, tls_certs):
    inbox = ImapInbox(dovecot.host, dovecot.port, dovecot.fresh_user(), dovecot.password, tls=True,
                      timeout=10, ca_file=tls_certs.ca_pem)
    with pytest.raises(ServerFailure) as err:
        inbox.check()
    assert err.value.kind == "tls" and str(err.value).startswith("TLS-Handshake gescheitert (")


# -- SMTP ----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["implicit", "starttls"])
def test_smtp_sends_over_tls_with_auth(smtpd_tls, tls_certs, mode):
    server = smtpd_tls(mode, auth=("bot", "geheim"))
    smtp = SmtpTransport(server.host, server.port, "bot", "geheim", tls=True if mode == "implicit" else "starttls",
                         timeout=10, retries=0, ca_file=tls_certs.ca_pem)
    assert smtp.check() == ("TLS" if mode == "implicit" else "STARTTLS") + ", Anmeldung als bot"
    raw = _mail(7)
    smtp.send(raw, "spielleiter@example.org", ["anna@example.org"])
    assert [(m.mail_from, m.rcpt_tos, m.raw) for m in server.messages] == [
        ("spielleiter@example.org", ["anna@example.org"], raw)]
    assert server.logins == [("bot", True), ("bot", True)]
    wrong = SmtpTransport(server.host, server.port, "bot", "falsch", tls=smtp.tls, timeout=10, retries=0,
                          ca_file=tls_certs.ca_pem)
    with pytest.raises(ServerFailure) as err:
        wrong.send(raw, "spielleiter@example.org", ["anna@example.org"])
    assert err.value.kind == "login" and len(server.messages) == 1


def test_smtp_auth_only_after_starttls(smtpd_tls, tls_certs):
    server = smtpd_tls("starttls", auth=("bot", "geheim"))
    plain = SmtpTransport(server.host, server.port, "bot", "geheim", tls=False, timeout=10, retries=0)
    with pytest.raises(ServerFailure) as err:
        plain.check()
    assert err.value.kind == "config"
    assert "keine Anmeldung (AUTH)" in str(err.value) and 'tls = "starttls"' in str(err.value)
    # nor does it take mail in plain text (require_starttls)
    relay = SmtpTransport(server.host, server.port, tls=False, timeout=10, retries=0)
    with pytest.raises(ServerFailure):
        relay.send(_mail(1), "spielleiter@example.org", ["anna@example.org"])
    assert server.messages == [] and server.logins == []


@pytest.mark.parametrize("mode", ["implicit", "starttls"])
def test_smtp_untrusted_ca_is_a_tls_failure(smtpd_tls, tls_certs, mode):
    server = smtpd_tls(mode)
    tls = True if mode == "implicit" else "starttls"
    other = tls_certs.client_context(tls_certs.other_ca_pem)
    for smtp in (SmtpTransport(server.host, server.port, tls=tls, timeout=10, retries=0),
                 SmtpTransport(server.host, server.port, tls=tls, timeout=10, retries=0, ssl_context=other)):
        with pytest.raises(ServerFailure) as err:
            smtp.send(_mail(1), "spielleiter@example.org", ["anna@example.org"])
        assert err.value.kind == "tls" and err.value.service == "smtp"
        assert "Zertifikat nicht vertrauenswürdig (unable to get local issuer certificate)" in str(err.value)
        assert "[smtp] ca_file" in str(err.value)
    assert server.messages == []


def test_smtp_starttls_asked_of_a_server_without_it(smtpd, tls_certs):
    smtp = SmtpTransport(smtpd.host, smtpd.port, tls="starttls", timeout=10, retries=0, ca_file=tls_certs.ca_pem)
    with pytest.raises(ServerFailure) as err:
        smtp.send(_mail(1), "spielleiter@example.org", ["anna@example.org"])
    assert err.value.kind == "tls" and str(err.value) == "der Server bietet kein STARTTLS an"
    assert smtpd.messages == []


def test_smtp_self_signed_server_certificate_trusted_by_ca_file(smtpd_tls, tmp_path):
    own = make_self_signed(tmp_path / "own")
    server = smtpd_tls("implicit", certs=own)
    with pytest.raises(ServerFailure) as err:
        SmtpTransport(server.host, server.port, tls=True, timeout=10, retries=0).check()
    assert err.value.kind == "tls" and "Zertifikat nicht vertrauenswürdig (self-signed certificate)" in str(err.value)
    smtp = SmtpTransport(server.host, server.port, tls=True, timeout=10, retries=0, ca_file=own.ca_pem)
    smtp.send(_mail(2), "spielleiter@example.org", ["bernd@example.org"])
    assert [m.rcpt_tos for m in server.messages] == [["bernd@example.org"]]


# -- through the config file and the CLI ----------------------------------------------------

def _config(tmp_path, imap, smtp, user, *, imap_tls="true", smtp_tls="true", imap_extra="", smtp_extra="",
            imap_host="127.0.0.1") -> "os.PathLike":
    imap_port = imap.tls_port if imap_tls == "true" else imap.port
    path = tmp_path / "spielleiter.toml"
    path.write_text(f"""
[database]
url = "sqlite:///{tmp_path / 'bot.sqlite'}"

[imap]
host = "{imap_host}"
port = {imap_port}
user = "{user}"
password = "{imap.password}"
tls = {imap_tls}
{imap_extra}

[smtp]
host = "{smtp.host}"
port = {smtp.port}
tls = {smtp_tls}
sender = "Spielleiter <spielleiter@example.org>"
{smtp_extra}

[bot]
timezone = "Europe/Berlin"
""", encoding="utf-8")
    return path


def _cli(conf, *args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    env.update(env_extra or {})
    return subprocess.run([spielleiter_exe(), *args, "--config", str(conf)], capture_output=True, text=True,
                          timeout=120, cwd=conf.parent, env=env)


def _stored(conf) -> int:
    db = Database(load_config(conf).database_url)
    with db.session() as s:
        n = s.scalar(select(func.count()).select_from(InboundMail))
    db.dispose()
    return n


def test_cli_ca_file_check_league_create_and_poll_over_tls(tmp_path, dovecot_tls, smtpd_tls):
    shutil.copy(dovecot_tls.certs.ca_pem, tmp_path / "meine-ca.pem")
    smtp = smtpd_tls("starttls", auth=("bot", "geheim"))
    user = dovecot_tls.fresh_user()
    conf = _config(tmp_path, dovecot_tls, smtp, user, smtp_tls='"starttls"',
                   imap_extra='ca_file = "meine-ca.pem"',  # relative to the config file
                   smtp_extra=f'ca_file = "{tmp_path / "meine-ca.pem"}"\nuser = "bot"\npassword = "geheim"')
    assert _cli(conf, "init").returncode == 0
    check = _cli(conf, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"OK      IMAP: TLS, angemeldet als {user}, INBOX: 0 Mail(s)" in check.stdout
    assert f"OK      SMTP: {smtp.host}:{smtp.port}, STARTTLS, Anmeldung als bot" in check.stdout
    create = _cli(conf, "league", "create", str(league_toml(tmp_path / "liga.toml", name="TLS-Liga")))
    assert create.returncode == 0, create.stderr
    assert sorted(m.rcpt_tos[0] for m in smtp.messages) == ["anna@example.org", "bernd@example.org",
                                                            "clara@example.org"]
    dovecot_tls.append(player_mail("Anna Albers <anna@example.org>", "R1: HAUS"), user=user)
    poll = _cli(conf, "poll")
    assert poll.returncode == 0, poll.stderr
    assert _stored(conf) == 1
    assert dovecot_tls.fetch_all(user=user) == []
    assert len(smtp.messages) == 4 and smtp.messages[-1].rcpt_tos == ["anna@example.org"]
    assert sum(", TLS," in ln for ln in _login_lines(dovecot_tls, user)) == 4  # check (the inbox, then its newest mails' Authentication-Results), poll and tidy


def test_cli_without_ca_file_tls_failures_exit_12_and_22(tmp_path, dovecot_tls, smtpd_tls):
    smtp = smtpd_tls("implicit")
    user = dovecot_tls.fresh_user()
    dovecot_tls.append(_mail(1), user=user)
    conf = _config(tmp_path, dovecot_tls, smtp, user)
    assert _cli(conf, "init").returncode == 0
    poll = _cli(conf, "poll")
    assert poll.returncode == 12, poll.stderr
    lines = poll.stderr.strip().splitlines()
    assert lines == [f"IMAP 127.0.0.1:{dovecot_tls.tls_port}: TLS-Fehler: Zertifikat nicht vertrauenswürdig "
                     "(unable to get local issuer certificate); eigene CA oder selbst signiertes Zertifikat: "
                     "als PEM-Datei in [imap] ca_file angeben"]
    check = _cli(conf, "check")
    assert check.returncode == 1
    assert "FEHLER  IMAP: " in check.stdout and "FEHLER  SMTP: " in check.stdout
    assert check.stdout.count("Zertifikat nicht vertrauenswürdig") == 2
    # IMAP trusted now, SMTP not: the start mails wait, exit status 22
    shutil.copy(dovecot_tls.certs.ca_pem, tmp_path / "ca.pem")
    conf = _config(tmp_path, dovecot_tls, smtp, user, imap_extra='ca_file = "ca.pem"')
    create = _cli(conf, "league", "create", str(league_toml(tmp_path / "liga.toml")))
    assert create.returncode == 22, create.stderr
    assert f"SMTP {smtp.host}:{smtp.port}: TLS-Fehler: Zertifikat nicht vertrauenswürdig" in create.stderr
    assert smtp.messages == []
    assert len(dovecot_tls.fetch_all(user=user)) == 1  # the failed poll moved nothing


def test_cli_name_mismatch_and_starttls_missing(tmp_path, dovecot_tls, dovecot, smtpd):
    shutil.copy(dovecot_tls.certs.ca_pem, tmp_path / "ca.pem")
    conf = _config(tmp_path, dovecot_tls, smtpd, dovecot_tls.fresh_user(), imap_host="127.0.0.2",
                   imap_extra='ca_file = "ca.pem"', smtp_tls="false")
    assert _cli(conf, "init").returncode == 0
    poll = _cli(conf, "poll")
    assert poll.returncode == 12
    assert poll.stderr.startswith(f"IMAP 127.0.0.2:{dovecot_tls.tls_port}: TLS-Fehler: Zertifikat passt nicht "
                                  "zum Servernamen (IP address mismatch, certificate is not valid for '127.0.0.2'")
    # STARTTLS asked of the Dovecot without TLS, and of the aiosmtpd without it
    conf = _config(tmp_path, dovecot, smtpd, dovecot.fresh_user(), imap_tls='"starttls"', smtp_tls='"starttls"',
                   imap_extra='ca_file = "ca.pem"')
    poll = _cli(conf, "poll")
    assert poll.returncode == 12
    assert poll.stderr.splitlines()[0] == f"IMAP {dovecot.host}:{dovecot.port}: TLS-Fehler: der Server bietet kein STARTTLS an"
    create = _cli(conf, "league", "create", str(league_toml(tmp_path / "liga.toml")))
    assert create.returncode == 22
    assert f"SMTP {smtpd.host}:{smtpd.port}: TLS-Fehler: der Server bietet kein STARTTLS an" in create.stderr
    assert smtpd.messages == []


def test_cli_ssl_cert_file_is_honoured(tmp_path, dovecot_tls, smtpd_tls):
    """OpenSSL's SSL_CERT_FILE works without ca_file (it replaces the system's CAs for the
    whole process: fine for a private CA that signed both servers)."""
    smtp = smtpd_tls("implicit")
    user = dovecot_tls.fresh_user()
    dovecot_tls.append(_mail(1), user=user)
    conf = _config(tmp_path, dovecot_tls, smtp, user)
    assert _cli(conf, "init").returncode == 0
    env = {"SSL_CERT_FILE": str(dovecot_tls.certs.ca_pem)}
    check = _cli(conf, "check", env_extra=env)
    assert check.returncode == 0, check.stdout
    assert "OK      IMAP: TLS, angemeldet" in check.stdout and "OK      SMTP: " in check.stdout
    poll = _cli(conf, "poll", env_extra=env)
    assert poll.returncode == 0, poll.stderr
    assert _stored(conf) == 1 and dovecot_tls.fetch_all(user=user) == []


def test_cli_self_signed_smtp_certificate_via_ca_file(tmp_path, dovecot_tls, smtpd_tls):
    own = make_self_signed(tmp_path / "own")
    smtp = smtpd_tls("starttls", certs=own)
    shutil.copy(dovecot_tls.certs.ca_pem, tmp_path / "ca.pem")
    conf = _config(tmp_path, dovecot_tls, smtp, dovecot_tls.fresh_user(), imap_extra='ca_file = "ca.pem"',
                   smtp_tls='"starttls"', smtp_extra='ca_file = "own/selfsigned.pem"')
    assert _cli(conf, "init").returncode == 0
    create = _cli(conf, "league", "create", str(league_toml(tmp_path / "liga.toml", name="Eigen")))
    assert create.returncode == 0, create.stderr
    assert len(smtp.messages) == 3 and all("Eigen" in header(m.raw, "Subject") for m in smtp.messages)


# -- ca_file in the config: checked when the config is read ---------------------------------

def _minimal(tmp_path, imap_lines: str) -> "os.PathLike":
    path = tmp_path / "c.toml"
    path.write_text(f'[imap]\nhost = "imap.example.org"\n{imap_lines}\n\n[smtp]\nhost = "smtp.example.org"\n',
                    encoding="utf-8")
    return path


def test_config_ca_file_is_resolved_and_validated(tmp_path, tls_certs):
    shutil.copy(tls_certs.ca_pem, tmp_path / "ca.pem")
    cfg = load_config(_minimal(tmp_path, 'ca_file = "ca.pem"'))
    assert cfg.imap["ca_file"] == str(tmp_path / "ca.pem") and "ca_file" not in cfg.smtp
    with pytest.raises(ConfigError, match=r"\[imap\] ca_file .*fehlt.pem: Datei nicht gefunden"):
        load_config(_minimal(tmp_path, 'ca_file = "fehlt.pem"'))
    (tmp_path / "key.pem").write_bytes(tls_certs.key_pem.read_bytes())  # a key, not a certificate
    with pytest.raises(ConfigError, match=r"\[imap\] ca_file .*key.pem: kein Zertifikat im PEM-Format"):
        load_config(_minimal(tmp_path, 'ca_file = "key.pem"'))
    with pytest.raises(ConfigError, match=r"\[imap\] ca_file: gilt nur mit TLS"):
        load_config(_minimal(tmp_path, 'ca_file = "ca.pem"\ntls = false'))
    with pytest.raises(ConfigError, match=r"\[imap\] ca_file: muss ein Text"):
        load_config(_minimal(tmp_path, "ca_file = 1"))


def test_cli_ca_file_missing_is_a_config_error(tmp_path):
    conf = _minimal(tmp_path, 'ca_file = "fehlt.pem"')
    proc = _cli(conf, "check")
    assert proc.returncode == 2
    assert f"[imap] ca_file {tmp_path / 'fehlt.pem'}: Datei nicht gefunden" in proc.stderr


def test_ca_file_gone_after_the_config_was_read_is_a_settings_failure(tmp_path):
    """The file is checked when the config is read; if it vanishes later, the next connect
    says so as a settings failure (IMAP exit 14, SMTP 24), before any connection."""
    gone = tmp_path / "weg.pem"
    for service, transport in (("imap", ImapInbox("127.0.0.1", 1, "bot", "x", tls=True, ca_file=gone)),
                               ("smtp", SmtpTransport("127.0.0.1", 1, tls="starttls", retries=0, ca_file=gone))):
        with pytest.raises(ServerFailure) as err:
            transport.check()
        assert (err.value.service, err.value.kind) == (service, "config")
        assert str(err.value) == f"[{service}] ca_file {gone}: Datei nicht gefunden"

"""OAuth2 (XOAUTH2) for IMAP and SMTP against real servers (issue 27, item 3): a Dovecot whose
``oauth2`` passdb asks a local provider's token introspection, aiosmtpd checking XOAUTH2
bearer tokens against the same provider, and that provider's device-code, authorization
and token endpoints (``tests/oauthserver.py``).

``spielleiter oauth login`` prints the URL and code, waits for the grant, stores the token
file with permissions 0600 and logs in to both servers; Google's code flow (pasted back,
PKCE) and the config's checks too. The mail flows with XOAUTH2 (poll, run, a token renewed,
a grant revoked): tests/test_oauth_mail.py, with this module's helpers.
"""

from __future__ import annotations

import json
import stat
import threading
import time

import pytest
import requests
from sqlalchemy import select

from bot.cli import main
from bot.config import load_config
from bot.errors import ConfigError
from bot.mail.imap import ImapInbox
from bot.mail.oauth import OAuthError, TokenSource
from bot.mail.oauth_login import login
from bot.storage.db import Database
from bot.storage.models import OutboxMail
from tests.helpers import PLAYERS
from tests.mailservers import free_port

pytestmark = pytest.mark.e2e
EMAILS = sorted(e for _, e in PLAYERS)


def _conf(tmp_path, dovecot, smtp, provider, user, *, oauth: str = "", bot: str = "", imap_auth="oauth2",
          smtp_auth="oauth2"):
    path = tmp_path / "spielleiter.toml"
    path.write_text(f"""
[database]
url = "sqlite:///{tmp_path / 'bot.sqlite'}"

[imap]
host = "{dovecot.host}"
port = {dovecot.port}
user = "{user}"
auth = "{imap_auth}"
password = "{dovecot.password}"
tls = false

[smtp]
host = "{smtp.host}"
port = {smtp.port}
user = "{user}"
auth = "{smtp_auth}"
tls = false
sender = "Spielleiter <{user}>"

[oauth]
provider = "generic"
client_id = "spielleiter-test"
token_endpoint = "{provider.base}/token"
device_endpoint = "{provider.base}/device"
scope = "offline_access mail"
{oauth}

[bot]
timezone = "Europe/Berlin"
{bot}
""", encoding="utf-8")
    return path


def _approve_when_asked(provider, user):
    """A thread that plays the operator: approves the first device grant that appears."""
    def run():
        end = time.monotonic() + 20
        while time.monotonic() < end:
            with provider.lock:
                pending = [d["user_code"] for d in provider.devices.values() if d["user"] is None]
            if pending:
                provider.approve(pending[0], user)
                return
            time.sleep(0.05)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _login(conf, provider, user) -> int:
    t = _approve_when_asked(provider, user)
    status = main(["oauth", "login", "--config", str(conf)])
    t.join(5)
    return status


def _rows(conf) -> list[OutboxMail]:
    db = Database(load_config(conf).database_url)
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).order_by(OutboxMail.id)).all()
    db.dispose()
    return rows


def _xoauth2_logins(dovecot, user) -> list[str]:
    return [ln for ln in dovecot.log().splitlines() if f"Login: user=<{user}>" in ln and "method=XOAUTH2" in ln]


def _wait(pred, seconds=30.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.1)
    return False


# -- login ---------------------------------------------------------------------------------

def test_oauth_login_device_flow_stores_the_token_0600_and_logs_in(tmp_path, dovecot_oauth, smtpd_oauth,
                                                                   oauth_provider, capsys):
    user = dovecot_oauth.fresh_user()
    conf = _conf(tmp_path, dovecot_oauth, smtpd_oauth, oauth_provider, user)
    # before the login: check names the missing grant and the command that gives it
    assert main(["check", "--config", str(conf)]) == 1
    out = capsys.readouterr().out
    assert f"FEHLER  OAuth2: noch kein OAuth2-Zugang (keine Token-Datei {tmp_path / 'bot-oauth.json'}): " \
           f"spielleiter oauth login --config {conf} ausführen" in out
    assert "FEHLER  IMAP: " in out and "Anmeldung abgelehnt: noch kein OAuth2-Zugang" in out

    assert _login(conf, oauth_provider, user) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"Im Browser {oauth_provider.base}/verify öffnen und den Code ")
    assert out[0].endswith("eingeben (gültig 10 min); dort mit dem Konto des Bots anmelden und zustimmen.")
    assert out[1] == "Warte auf die Zustimmung ..."
    token_file = tmp_path / "bot-oauth.json"
    assert out[2] == f"OAuth2-Zugang gespeichert in {token_file} (nur für diesen Benutzer lesbar)."
    assert out[3].startswith(f"IMAP {dovecot_oauth.host}:{dovecot_oauth.port}: ohne TLS (OAuth2), angemeldet als {user}")
    assert out[4] == f"SMTP {smtpd_oauth.host}:{smtpd_oauth.port}: ohne TLS, Anmeldung als {user} (OAuth2)"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    saved = json.loads(token_file.read_text())
    assert saved["client_id"] == "spielleiter-test" and oauth_provider.active(saved["token"]["access_token"])
    assert saved["token"]["refresh_token"].startswith("rt-")
    # the device grant asked for the configured scope; the servers saw XOAUTH2 logins
    device = [f for p, f in oauth_provider.requests if p == "/device"][-1]
    assert device == {"client_id": "spielleiter-test", "scope": "offline_access mail"}
    assert len(_xoauth2_logins(dovecot_oauth, user)) == 1
    assert smtpd_oauth.xoauth2 == [(user, True)]

    assert main(["check", "--config", str(conf)]) == 0
    out = capsys.readouterr().out
    assert f"OK      OAuth2: generic, {token_file} (Rechte 0600), Zugangs-Token noch 59 min gültig, " \
           "Refresh-Token vorhanden (wird vor Ablauf erneuert)" in out
    assert f"OK      IMAP: ohne TLS (OAuth2), angemeldet als {user}" in out
    assert f"OK      SMTP: {smtpd_oauth.host}:{smtpd_oauth.port}, ohne TLS, Anmeldung als {user} (OAuth2)" in out


def test_device_flow_waits_while_the_grant_is_pending(tmp_path, oauth_provider):
    cfg_path = tmp_path / "c.toml"
    cfg_path.write_text(f"""
[oauth]
provider = "generic"
client_id = "app"
token_endpoint = "{oauth_provider.base}/token"
device_endpoint = "{oauth_provider.base}/device"
scope = "mail"
token_file = "geheim/token.json"
""")
    settings = load_config(cfg_path).oauth
    lines, waits = [], []

    def sleep(seconds):  # the operator needs three polls to agree
        waits.append(seconds)
        if len(waits) == 3:
            code = lines[0].split("den Code ")[1].split()[0]
            oauth_provider.approve(code, "bot@example.org")

    token = login(settings, out=lines.append, sleep=sleep)
    assert waits == [1.0, 1.0, 1.0]
    polls = [f for p, f in oauth_provider.requests if p == "/token" and f.get("device_code")]
    assert len(polls) >= 3 and polls[-1]["client_id"] == "app"
    assert oauth_provider.user_of(token["access_token"]) == "bot@example.org"
    path = tmp_path / "geheim" / "token.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert TokenSource(settings).access_token() == token["access_token"]
    path.chmod(0o644)                                  # someone loosened it: check says so
    ok, text = TokenSource(settings).describe()
    assert not ok and f"{path} (Rechte 0644, zu offen: chmod 600)" in text


def test_google_code_flow_pasted_back(tmp_path, dovecot_oauth, oauth_provider):
    """Google allows no device flow for mail: the operator opens the URL, agrees and pastes the
    address the browser was sent to; the code is exchanged with PKCE and the client secret."""
    user = dovecot_oauth.fresh_user()
    cfg_path = tmp_path / "g.toml"
    cfg_path.write_text(f"""
[oauth]
provider = "google"
client_id = "123.apps.googleusercontent.com"
client_secret = "GOCSPX-geheim"
authorize_endpoint = "{oauth_provider.base}/authorize"
token_endpoint = "{oauth_provider.base}/token"
redirect_uri = "http://localhost:{free_port()}/"
""")
    settings = load_config(cfg_path).oauth
    assert settings.scope == "https://mail.google.com/" and settings.flow == "code"
    oauth_provider.code_user = user
    lines = []

    def browser(prompt):  # follows the printed URL, returns where the browser was sent
        url = next(ln for ln in lines[0].splitlines() if ln.startswith("http"))
        assert "code_challenge=" in url and "access_type=offline" in url
        r = requests.get(url, allow_redirects=False, timeout=10)
        return r.headers["Location"]

    oauth_provider.secret = "GOCSPX-geheim"
    try:
        token = login(settings, out=lines.append, read=browser)
        exchange = [f for p, f in oauth_provider.requests if p == "/token"][-1]
        assert exchange["grant_type"] == "authorization_code" and exchange["code_verifier"]
        assert exchange["client_secret"] == "GOCSPX-geheim"
        inbox = ImapInbox(dovecot_oauth.host, dovecot_oauth.port, user, "", tls=False, timeout=10,
                          oauth=TokenSource(settings))
        assert inbox.check().startswith(f"ohne TLS (OAuth2), angemeldet als {user}, INBOX: 0 Mail(s)")
        assert oauth_provider.user_of(token["access_token"]) == user
        # a pasted address without a code stores nothing
        with pytest.raises(OAuthError, match="Anmeldung nicht abgeschlossen"):
            login(settings, out=lines.append, read=lambda p: "http://localhost:8765/?error=access_denied")
        # a wrong client secret: refused, in one line
        oauth_provider.secret = "anders"
        lines.clear()
        with pytest.raises(OAuthError, match="invalid_client") as err:
            login(settings, out=lines.append, read=browser)
        assert err.value.kind == "login" and "\n" not in str(err.value)
    finally:
        oauth_provider.secret = None


def test_code_flow_caught_on_this_machine(tmp_path, oauth_provider):
    """When the browser runs where the bot does, its redirect to the loopback address is
    caught: nothing to paste."""
    port = free_port()
    cfg_path = tmp_path / "g.toml"
    cfg_path.write_text(f"""
[oauth]
provider = "generic"
client_id = "app"
authorize_endpoint = "{oauth_provider.base}/authorize"
token_endpoint = "{oauth_provider.base}/token"
scope = "mail"
redirect_uri = "http://127.0.0.1:{port}/"
""")
    settings = load_config(cfg_path).oauth
    oauth_provider.code_user = "bot@example.org"
    lines, never = [], threading.Event()
    pages = []

    def browser():
        assert _wait(lambda: bool(lines), 10)
        url = lines[0].splitlines()[1]
        pages.append(requests.get(url, timeout=10))   # follows the redirect to the bot's listener

    t = threading.Thread(target=browser, daemon=True)
    t.start()
    token = login(settings, out=lines.append, read=lambda prompt: (never.wait(30), "")[1])
    t.join(10)
    assert oauth_provider.user_of(token["access_token"]) == "bot@example.org"
    assert pages[0].status_code == 200 and "Zugang erteilt" in pages[0].text
    assert "access_type" not in lines[0]                    # Google's extras only for Google
    never.set()


def test_oauth_login_without_the_section_or_with_the_provider_down(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text('[bot]\ntimezone = "Europe/Berlin"\n')
    assert main(["oauth", "login", "--config", str(path)]) == 2
    assert capsys.readouterr().err == "Konfiguration: kein Abschnitt [oauth] in der Konfiguration " \
                                      "(siehe docs/operator/oauth2.md).\n"
    path.write_text('[oauth]\nprovider = "generic"\nclient_id = "x"\nscope = "mail"\n'
                    'token_endpoint = "http://127.0.0.1:9/token"\ndevice_endpoint = "http://127.0.0.1:9/device"\n')
    assert main(["oauth", "login", "--config", str(path)]) == 1
    assert capsys.readouterr().err == "OAuth2-Token-Endpunkt 127.0.0.1:9 nicht erreichbar\n"
    assert not (tmp_path / "spielleiter-oauth.json").exists()


# -- the config ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ('[imap]\nhost = "h"\nuser = "u"\nauth = "oauth2"\n[smtp]\nhost = "h"\n',
     '[imap] auth = "oauth2" braucht einen Abschnitt [oauth]'),
    ('[imap]\nhost = "h"\nauth = "oauth2"\n[smtp]\nhost = "h"\n[oauth]\nprovider = "microsoft"\nclient_id = "x"\n',
     "[imap] user fehlt"),
    ('[oauth]\nprovider = "google"\nclient_id = "x"\n', "[oauth] client_secret fehlt"),
    ('[oauth]\nprovider = "generic"\nclient_id = "x"\ndevice_endpoint = "https://a/d"\nscope = "s"\n',
     "[oauth] token_endpoint fehlt"),
    ('[oauth]\nprovider = "microsoft"\n', "[oauth] client_id fehlt"),
    ('[oauth]\nclient_id = "x"\n', "[oauth] provider fehlt"),
    ('[oauth]\nprovider = "outlook"\nclient_id = "x"\n', '[oauth] provider: erlaubt sind "microsoft"'),
    ('[oauth]\nprovider = "microsoft"\nclient_id = "x"\ntoken_endpoint = "login.example/token"\n',
     "[oauth] token_endpoint: keine http(s)-Adresse"),
    ('[imap]\nhost = "h"\nauth = "oauth"\n[smtp]\nhost = "h"\n', '[imap] auth: erlaubt sind "password", "oauth2"'),
])
def test_config_names_the_wrong_oauth_key(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert message in str(err.value)


def test_microsoft_presets_and_default_token_file(tmp_path, monkeypatch):
    path = tmp_path / "c.toml"
    path.write_text('[database]\nurl = "postgresql+psycopg://u@h/db"\n'
                    '[oauth]\nprovider = "microsoft"\nclient_id = "abc"\ntenant = "consumers"\n')
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    s = load_config(path).oauth
    assert s.device_endpoint == "https://login.microsoftonline.com/consumers/oauth2/v2.0/devicecode"
    assert s.token_endpoint == "https://login.microsoftonline.com/consumers/oauth2/v2.0/token"
    assert s.scope == ("offline_access https://outlook.office.com/IMAP.AccessAsUser.All "
                       "https://outlook.office.com/SMTP.Send")
    assert s.flow == "device" and s.token_file == tmp_path / "state" / "spielleiter" / "c-oauth.json"
    assert s.relogin == f"spielleiter oauth login --config {path}"


def test_check_names_an_unknown_oauth_key_and_an_unused_grant(tmp_path, capsys):
    from bot.config import problems
    assert problems({"oauth": {"provider": "microsoft", "clientid": "x"}, "imap": {"auth": "oauth2", "host": "h"}}) \
        == ["[oauth] clientid: unbekannter Schlüssel (gemeint: client_id?)"]
    # [oauth] without auth = "oauth2" anywhere: a warning, not a failure
    path = tmp_path / "c.toml"
    path.write_text('[oauth]\nprovider = "microsoft"\nclient_id = "x"\ntoken_file = "t.json"\n')
    from bot.service.operations.check import check_oauth
    line = check_oauth(load_config(path))
    assert line.status == "WARNUNG" and line.detail.endswith('(nicht benutzt: [imap]/[smtp] auth = "oauth2")')

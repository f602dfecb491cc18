"""OAuth2 access tokens for IMAP and SMTP (SASL ``XOAUTH2``): Microsoft (Outlook.com,
Microsoft 365), Google (Gmail) and any other OAuth2 provider ("generic").

The token requests go through ``authlib`` (its requests-based ``OAuth2Session``): the
same client for every provider, with presets for the Microsoft and Google endpoints
(:data:`PROVIDERS`), every endpoint overridable in ``[oauth]``. (``msal`` would cover only
Microsoft and cannot be pointed at a local test server.)

- :func:`bot.mail.oauth_login.login` (``spielleiter oauth login``, its own module): the
  operator grants the bot access once (the device-code flow, or Google's authorization
  code with PKCE).
- The tokens are kept in the token file (JSON, permissions 0600, written atomically),
  never in the config. :class:`TokenSource` hands out the access token and renews it with
  the refresh token before it expires (:data:`RENEW_BEFORE`, at most a third of its
  lifetime), under a file lock, so several processes share one file; it reads the file
  at every login (a new ``oauth login`` is used without a restart).
- Failures come out as :class:`~bot.mail.transport.ServerFailure` of the IMAP or SMTP
  server that needed the token: a refused or revoked grant (``invalid_grant``) and a
  missing token file are kind ``login`` (one German line naming ``spielleiter oauth
  login``), an unreachable token endpoint kind ``unreachable``. So nothing is lost
  meanwhile: a mail to send stays in the outbox, a mail to read stays on the server.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from bot.errors import ConfigError

__all__ = ["PROVIDERS", "OAuthSettings", "OAuthError", "TokenSource", "settings_from_config", "with_token"]

log = logging.getLogger(__name__)

#: The endpoints and default scopes of the providers; ``{tenant}`` is ``[oauth] tenant``.
PROVIDERS: dict[str, dict[str, str]] = {
    "microsoft": {
        "device_endpoint": "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/devicecode",
        "token_endpoint": "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
        "scope": "offline_access https://outlook.office.com/IMAP.AccessAsUser.All "
                 "https://outlook.office.com/SMTP.Send",
    },
    "google": {
        "authorize_endpoint": "https://accounts.google.com/o/oauth2/v2/auth",
        "token_endpoint": "https://oauth2.googleapis.com/token",
        "scope": "https://mail.google.com/",
    },
    "generic": {},
}
#: ``[oauth] tenant`` of Microsoft when not set: personal and work accounts alike.
DEFAULT_TENANT = "common"
#: The redirect address of the authorization-code flow (Google's "desktop app" clients
#: accept any loopback address; it need not answer).
DEFAULT_REDIRECT = "http://localhost:8765/"
#: An access token is renewed when it has less than this many seconds left (or less than
#: a third of its lifetime, for short-lived tokens).
RENEW_BEFORE = 300
#: Seconds per token request.
HTTP_TIMEOUT = 30
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
#: token endpoint errors that mean "the grant is gone": only a new ``oauth login`` helps
REFUSED = {"invalid_grant", "invalid_client", "unauthorized_client", "invalid_scope", "interaction_required",
           "consent_required", "access_denied", "invalid_request"}


class OAuthError(Exception):
    """An OAuth2 step failed. ``kind``: ``login`` (no grant, refused or revoked: run
    ``spielleiter oauth login``), ``unreachable`` (the provider did not answer) or
    ``protocol`` (an answer that makes no sense); the message is one German line."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class OAuthSettings:
    """``[oauth]`` resolved: the provider's presets filled in, ``token_file`` absolute.
    ``config`` is the config file (for the hint ``spielleiter oauth login --config ...``)."""

    provider: str
    client_id: str
    token_file: Path
    scope: str
    token_endpoint: str
    device_endpoint: str | None = None
    authorize_endpoint: str | None = None
    client_secret: str | None = None
    redirect_uri: str = DEFAULT_REDIRECT
    config: Path | None = None

    @property
    def flow(self) -> str:
        """``device`` (device-code flow) or ``code`` (authorization code with PKCE)."""
        return "device" if self.device_endpoint else "code"

    @property
    def relogin(self) -> str:
        """The command that grants access anew."""
        return "spielleiter oauth login" + (f" --config {self.config}" if self.config else "")


def _default_token_file(database_url: str, config: Path | None) -> Path:
    """Beside the SQLite database (``bot.sqlite`` -> ``bot-oauth.json``), otherwise
    ``$XDG_STATE_HOME/spielleiter/`` (``~/.local/state/spielleiter/``)."""
    if database_url.startswith("sqlite:///") and database_url != "sqlite:///:memory:":
        db = Path(database_url[len("sqlite:///"):])
        return db.with_name(db.stem + "-oauth.json")
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "spielleiter"
    return state / ((config.stem if config else "spielleiter") + "-oauth.json")


def settings_from_config(data: dict[str, Any], base: Path, database_url: str,
                         config: Path | None = None) -> OAuthSettings | None:
    """The :class:`OAuthSettings` of the parsed config ``data`` (None without ``[oauth]``
    and without ``auth = "oauth2"``); relative paths against ``base``. Raises
    :class:`~bot.errors.ConfigError` naming the key when one is missing or wrong."""
    used = [sec for sec in ("imap", "smtp") if isinstance(data.get(sec), dict) and data[sec].get("auth") == "oauth2"]
    table = data.get("oauth")
    if table is None:
        if used:
            raise ConfigError(f"[{used[0]}] auth = \"oauth2\" braucht einen Abschnitt [oauth] "
                              "(provider, client_id).")
        return None
    for sec in used:
        if not str(data[sec].get("user", "")).strip():
            raise ConfigError(f"[{sec}] user fehlt: mit auth = \"oauth2\" die Mail-Adresse des Kontos angeben.")
    provider = table.get("provider")
    if provider is None:
        raise ConfigError("[oauth] provider fehlt (\"microsoft\", \"google\" oder \"generic\").")
    if not str(table.get("client_id", "")).strip():
        raise ConfigError("[oauth] client_id fehlt: die Anwendungs-(Client-)ID der App-Registrierung.")
    preset = {k: v.format(tenant=table.get("tenant") or DEFAULT_TENANT) for k, v in PROVIDERS[provider].items()}
    if "tenant" in table and provider != "microsoft":
        raise ConfigError("[oauth] tenant: gilt nur für provider = \"microsoft\".")
    values = {k: table.get(k, preset.get(k)) for k in ("scope", "token_endpoint", "device_endpoint",
                                                         "authorize_endpoint")}
    for key in ("token_endpoint", "device_endpoint", "authorize_endpoint"):
        url = values[key]
        if url is not None and (urlsplit(url).scheme not in ("https", "http") or not urlsplit(url).hostname):
            raise ConfigError(f"[oauth] {key}: keine http(s)-Adresse: {url!r}")
    if not values["token_endpoint"]:
        raise ConfigError("[oauth] token_endpoint fehlt (mit provider = \"generic\" anzugeben).")
    if not values["device_endpoint"] and not values["authorize_endpoint"]:
        raise ConfigError("[oauth] device_endpoint (oder authorize_endpoint) fehlt (mit provider = \"generic\" "
                          "anzugeben).")
    if not values["scope"]:
        raise ConfigError("[oauth] scope fehlt (mit provider = \"generic\" anzugeben).")
    if provider == "google" and not str(table.get("client_secret", "")).strip():
        raise ConfigError("[oauth] client_secret fehlt: Google verlangt es auch für Desktop-Apps.")
    token_file = table.get("token_file")
    path = _default_token_file(database_url, config) if not token_file else \
        (Path(token_file).expanduser() if Path(token_file).expanduser().is_absolute() else base / token_file)
    return OAuthSettings(provider=provider, client_id=table["client_id"].strip(), token_file=path,
                         scope=values["scope"], token_endpoint=values["token_endpoint"],
                         device_endpoint=values["device_endpoint"], authorize_endpoint=values["authorize_endpoint"],
                         client_secret=table.get("client_secret") or None,
                         redirect_uri=table.get("redirect_uri", DEFAULT_REDIRECT), config=config)


def _session(settings: OAuthSettings, **kw):
    # deferred on purpose: authlib/requests load only for OAuth2
    from authlib.integrations.requests_client import OAuth2Session
    return OAuth2Session(settings.client_id, settings.client_secret, scope=settings.scope,
                         token_endpoint_auth_method="client_secret_post" if settings.client_secret else "none",
                         **kw)


def _error(settings: OAuthSettings, exc: Exception, url: str) -> OAuthError:
    """A token request's exception as an :class:`OAuthError` (German one line)."""
    # deferred on purpose: authlib/requests load only for OAuth2
    import requests
    from authlib.integrations.base_client import OAuthError as LibError
    host = urlsplit(url).netloc
    if isinstance(exc, LibError):
        code = exc.error or "?"
        said = (exc.description or "").splitlines()[0][:160] if exc.description else ""
        detail = f"{code}" + (f": {said}" if said else "")
        if code in REFUSED:
            return OAuthError("login", f"OAuth2-Zugang widerrufen oder abgelaufen: {settings.relogin} "
                                       f"erneut ausführen ({detail})")
        return OAuthError("protocol", f"OAuth2-Token-Endpunkt {host}: {detail}")
    if isinstance(exc, requests.Timeout):
        return OAuthError("unreachable", f"OAuth2-Token-Endpunkt {host}: keine Antwort in {HTTP_TIMEOUT} s")
    if isinstance(exc, requests.ConnectionError):
        return OAuthError("unreachable", f"OAuth2-Token-Endpunkt {host} nicht erreichbar")
    if isinstance(exc, requests.HTTPError) and exc.response is not None and exc.response.status_code >= 500:
        return OAuthError("unreachable", f"OAuth2-Token-Endpunkt {host}: HTTP {exc.response.status_code}")
    return OAuthError("protocol", f"OAuth2-Token-Endpunkt {host}: {type(exc).__name__}: {str(exc)[:160]}")


# -- the token file -----------------------------------------------------------------------

def _write_token(settings: OAuthSettings, token: dict[str, Any]) -> None:
    """Write the token file atomically with permissions 0600 (its folder made 0700 if new)."""
    path = settings.token_file
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = {"provider": settings.provider, "client_id": settings.client_id,
            "token_endpoint": settings.token_endpoint, "saved_at": int(time.time()), "token": dict(token)}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _read_token(settings: OAuthSettings) -> dict[str, Any]:
    """The stored token (``access_token``, ``refresh_token``, ``expires_at``, ...).
    Raises :class:`OAuthError` kind ``login`` when there is none for this client."""
    try:
        data = json.loads(settings.token_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OAuthError("login", f"noch kein OAuth2-Zugang (keine Token-Datei {settings.token_file}): "
                                  f"{settings.relogin} ausführen") from None
    except (OSError, ValueError) as exc:
        raise OAuthError("login", f"Token-Datei {settings.token_file} nicht lesbar ({exc}): "
                                  f"{settings.relogin} ausführen") from None
    token = data.get("token") if isinstance(data, dict) else None
    if not isinstance(token, dict) or not token.get("access_token"):
        raise OAuthError("login", f"Token-Datei {settings.token_file} ohne Token: {settings.relogin} ausführen")
    if data.get("client_id") != settings.client_id or data.get("token_endpoint") != settings.token_endpoint:
        raise OAuthError("login", f"Token-Datei {settings.token_file} gehört zu einer anderen App oder einem "
                                  f"anderen Anbieter: {settings.relogin} ausführen")
    return token


class _FileLock:
    """An exclusive ``flock`` on ``<token file>.lock`` (processes and threads alike)."""

    def __init__(self, path: Path):
        self.path = path.with_name(path.name + ".lock")

    def __enter__(self):
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _leeway(token: dict[str, Any]) -> int:
    life = int(token.get("expires_in") or 3600)
    return max(1, min(RENEW_BEFORE, life // 3))


class TokenSource:
    """The current access token of ``settings``' token file, renewed before expiry.

    Thread-safe and shared across processes through the file (a lock around renewal);
    ``clock`` gives seconds since the epoch."""

    def __init__(self, settings: OAuthSettings, clock: Callable[[], float] = time.time):
        self.settings = settings
        self.clock = clock
        self._lock = threading.Lock()
        #: when this source last renewed the token (epoch seconds), 0: never
        self.renewed_at = 0.0

    def _due(self, token: dict[str, Any]) -> bool:
        expires = token.get("expires_at")
        return expires is not None and float(expires) - _leeway(token) <= self.clock()

    def access_token(self, renew: bool = False) -> str:
        """The access token to log in with, renewed first when it expires within the
        leeway or when ``renew`` (the server refused it; not again when this source renewed
        it in the last 10 s). Raises :class:`OAuthError`."""
        with self._lock:
            token = _read_token(self.settings)
            if not (self._due(token) or (renew and self.clock() - self.renewed_at > 10)):
                return token["access_token"]
            with _FileLock(self.settings.token_file):
                fresh = _read_token(self.settings)  # another process may have renewed it meanwhile
                if fresh["access_token"] != token["access_token"] and not self._due(fresh):
                    return fresh["access_token"]
                try:
                    return self._renew(fresh)["access_token"]
                except OAuthError as exc:
                    # the provider is down, but the token still holds for a few minutes: use it
                    if exc.kind == "login" or renew or float(fresh.get("expires_at") or 0) <= self.clock() + 5:
                        raise
                    log.warning("%s; das alte Token gilt noch, es wird weiter benutzt", exc)
                    return fresh["access_token"]

    def _renew(self, token: dict[str, Any]) -> dict[str, Any]:
        s = self.settings
        if not token.get("refresh_token"):
            raise OAuthError("login", f"OAuth2-Zugang abgelaufen und ohne Refresh-Token: {s.relogin} erneut "
                                      "ausführen (scope mit offline_access?)")
        session = _session(s)
        try:
            new = dict(session.refresh_token(s.token_endpoint, refresh_token=token["refresh_token"],
                                             timeout=HTTP_TIMEOUT))
        except Exception as exc:
            err = _error(s, exc, s.token_endpoint)
            log.debug("OAuth2 refresh failed: %r", exc)
            raise err from exc
        finally:
            session.close()
        new.setdefault("refresh_token", token["refresh_token"])
        _write_token(s, new)
        self.renewed_at = self.clock()
        log.info("OAuth2-Zugang erneuert (gültig %s s)", new.get("expires_in", "?"))
        return new

    def describe(self) -> tuple[bool, str]:
        """For ``spielleiter check``: (usable, one German line on the token file: where,
        permissions, until when the access token is valid, whether a refresh token is
        there). Does not renew anything."""
        s = self.settings
        try:
            token = _read_token(s)
        except OAuthError as exc:
            return False, str(exc)
        mode = s.token_file.stat().st_mode & 0o777
        perms = f"Rechte {mode:04o}" + ("" if mode & 0o077 == 0 else ", zu offen: chmod 600")
        left = float(token.get("expires_at") or 0) - self.clock()
        until = (f"Zugangs-Token noch {int(left // 60)} min gültig" if left > 0 else "Zugangs-Token abgelaufen")
        refresh = "Refresh-Token vorhanden (wird vor Ablauf erneuert)" if token.get("refresh_token") else \
            f"kein Refresh-Token: nach Ablauf {s.relogin} erneut ausführen"
        return (left > 0 or bool(token.get("refresh_token"))) and mode & 0o077 == 0, \
            f"{s.provider}, {s.token_file} ({perms}), {until}, {refresh}"


def with_token(source: TokenSource, attempt: Callable[[str], Any], refused: type[BaseException] | tuple) -> Any:
    """``attempt(access_token)`` (a login); when the server refuses the token (``attempt``
    raises ``refused``: revoked early, or the clocks differ), renew it once and try again.
    Raises :class:`OAuthError` or what the second attempt raises."""
    try:
        return attempt(source.access_token())
    except refused as exc:
        log.info("OAuth2-Token abgelehnt (%s); erneuere es und versuche es noch einmal", exc)
        return attempt(source.access_token(renew=True))

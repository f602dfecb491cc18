"""Pytest plugin: a local OAuth2 provider and the mail servers that trust it.

* :class:`TokenServer` (fixture ``oauth_provider``, session): a tiny ``http.server`` on
  127.0.0.1 playing the provider: the device-code endpoint (``/device``), the
  authorization endpoint of the code flow (``/authorize``, answers at once with a
  redirect for :attr:`TokenServer.code_user`), the token endpoint (``/token``: device
  code, authorization code with PKCE, refresh token; refresh tokens are rotated, the old
  one dies) and token introspection (``/introspect``, RFC 7662, for Dovecot). Access
  tokens live :attr:`TokenServer.lifetime` seconds; :meth:`TokenServer.revoke` kills every
  refresh and access token of a user, :meth:`TokenServer.expire` only the access tokens.
* ``dovecot_oauth`` (session): a Dovecot (``tests/mailservers.py``) whose ``oauth2``
  passdb asks that server's introspection (XOAUTH2 and OAUTHBEARER), besides the usual
  static password for the tests' helpers.
* ``smtpd_oauth`` (function): aiosmtpd demanding AUTH, offering XOAUTH2 and checking the
  bearer token against the same server (a refused token gets Google's 334 JSON challenge,
  then 535).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.mailservers import SmtpServer, free_port, running_dovecot

__all__ = ["TokenServer", "OAuthSmtpServer"]


class TokenServer:
    """The local OAuth2 provider (module docstring). ``requests`` lists every request as
    ``(path, form)``; ``code_user`` is who "signs in" at ``/authorize``."""

    def __init__(self, lifetime: int = 3600):
        self.lifetime = lifetime
        self.lock = threading.Lock()
        self.access: dict[str, tuple[str, float]] = {}      # token -> (user, expires at)
        self.refresh: dict[str, str] = {}                    # live refresh token -> user
        self.devices: dict[str, dict] = {}                   # device code -> grant
        self.codes: dict[str, dict] = {}                     # authorization code -> grant
        self.requests: list[tuple[str, dict]] = []
        self.code_user = "bot@example.org"
        self.secret: str | None = None
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, body: dict | None = None, headers: dict | None = None):
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                url = urlsplit(self.path)
                form = {k: v[0] for k, v in parse_qs(url.query).items()}
                owner.requests.append((url.path, form))
                if url.path != "/authorize":
                    return self._send(404, {"error": "not_found"})
                code = secrets.token_urlsafe(16)
                with owner.lock:
                    owner.codes[code] = {"user": owner.code_user, "challenge": form.get("code_challenge"),
                                         "redirect_uri": form.get("redirect_uri"), "client_id": form.get("client_id")}
                target = form["redirect_uri"] + "?" + urlencode({"code": code, "state": form.get("state", "")})
                self._send(302, None, {"Location": target})

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(n).decode()).items()}
                path = urlsplit(self.path).path
                owner.requests.append((path, form))
                status, body = owner.answer(path, form, self.headers.get("Authorization"))
                self._send(status, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    # -- the provider's logic -----------------------------------------------------------
    def _issue(self, user: str) -> dict:
        access, refresh = "at-" + secrets.token_urlsafe(16), "rt-" + secrets.token_urlsafe(16)
        self.access[access] = (user, time.time() + self.lifetime)
        self.refresh[refresh] = user
        return {"access_token": access, "refresh_token": refresh, "token_type": "Bearer",
                "expires_in": self.lifetime, "scope": "mail"}

    def answer(self, path: str, form: dict, authorization: str | None) -> tuple[int, dict]:
        with self.lock:
            if path == "/introspect":
                token = form.get("token", "")
                user, expires = self.access.get(token, (None, 0.0))
                if user is None or expires <= time.time():
                    return 200, {"active": False}
                return 200, {"active": True, "username": user, "exp": int(expires)}
            if self.secret is not None and form.get("client_secret") != self.secret:
                return 401, {"error": "invalid_client", "error_description": "wrong client secret"}
            if path == "/device":
                device = secrets.token_urlsafe(16)
                user_code = f"{secrets.randbelow(10**4):04d}-{secrets.randbelow(10**4):04d}"
                self.devices[device] = {"user_code": user_code, "user": None, "client_id": form.get("client_id"),
                                        "scope": form.get("scope")}
                return 200, {"device_code": device, "user_code": user_code,
                             "verification_uri": f"{self.base}/verify", "expires_in": 600, "interval": 1}
            if path != "/token":
                return 404, {"error": "not_found"}
            grant = form.get("grant_type")
            if grant == "urn:ietf:params:oauth:grant-type:device_code":
                d = self.devices.get(form.get("device_code", ""))
                if d is None:
                    return 400, {"error": "expired_token"}
                if d["user"] is None:
                    return 400, {"error": "authorization_pending"}
                del self.devices[form["device_code"]]
                return 200, self._issue(d["user"])
            if grant == "authorization_code":
                c = self.codes.pop(form.get("code", ""), None)
                verifier = form.get("code_verifier", "")
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if c is None or c["challenge"] != challenge or c["redirect_uri"] != form.get("redirect_uri"):
                    return 400, {"error": "invalid_grant", "error_description": "bad code, verifier or redirect"}
                return 200, self._issue(c["user"])
            if grant == "refresh_token":
                user = self.refresh.pop(form.get("refresh_token", ""), None)
                if user is None:
                    return 400, {"error": "invalid_grant",
                                 "error_description": "AADSTS50173: The provided grant has expired due to it "
                                                      "being revoked.\r\nTrace ID: 1234"}
                return 200, self._issue(user)
            return 400, {"error": "unsupported_grant_type"}

    # -- what a test does to it -----------------------------------------------------------
    def approve(self, user_code: str, user: str) -> None:
        """The operator signs in as ``user`` and enters ``user_code`` at the verification URL."""
        with self.lock:
            for d in self.devices.values():
                if d["user_code"] == user_code:
                    d["user"] = user
                    return
        raise KeyError(user_code)

    def revoke(self, user: str) -> None:
        """The user withdraws the grant: every refresh and access token of theirs dies."""
        with self.lock:
            self.refresh = {t: u for t, u in self.refresh.items() if u != user}
            self.access = {t: v for t, v in self.access.items() if v[0] != user}

    def expire(self, user: str) -> None:
        """Every access token of ``user`` expires now (the refresh tokens live on)."""
        with self.lock:
            self.access = {t: (u, time.time() - 1 if u == user else e) for t, (u, e) in self.access.items()}

    def refreshes(self) -> int:
        return sum(1 for p, f in self.requests if p == "/token" and f.get("grant_type") == "refresh_token")

    def active(self, token: str) -> bool:
        with self.lock:
            user, expires = self.access.get(token, (None, 0.0))
            return user is not None and expires > time.time()

    def user_of(self, token: str) -> str | None:
        with self.lock:
            user, expires = self.access.get(token, (None, 0.0))
            return user if expires > time.time() else None

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


_OAUTH2_CONF = """\
introspection_mode = post
introspection_url = {url}/introspect
username_attribute = username
active_attribute = active
active_value = true
"""


@pytest.fixture(scope="session")
def oauth_provider():
    server = TokenServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def dovecot_oauth(oauth_provider):
    """A Dovecot whose XOAUTH2/OAUTHBEARER logins are checked by ``oauth_provider``."""
    base = Path(tempfile.mkdtemp(prefix="spielleiter-dovecot-oauth-"))
    conf = base / "dovecot-oauth2.conf.ext"
    conf.write_text(_OAUTH2_CONF.format(url=oauth_provider.base))
    conf.chmod(0o644)
    with running_dovecot(base, oauth2_conf=conf) as server:
        yield server


@dataclass
class OAuthSmtpServer(SmtpServer):
    """aiosmtpd demanding AUTH and taking XOAUTH2 bearer tokens that ``provider`` issued
    (``logins`` records ``(user, ok)`` of each XOAUTH2 attempt)."""

    provider: TokenServer | None = None
    xoauth2: list = field(default_factory=list)

    async def auth_XOAUTH2(self, server, args):
        from aiosmtpd.smtp import MISSING, AuthResult
        if len(args) > 1:  # ["XOAUTH2", initial response]
            raw = base64.b64decode(args[1])
        else:
            raw = await server.challenge_auth("")
            if raw is MISSING:
                return AuthResult(success=False, handled=True)
        try:
            parts = dict(p.split("=", 1) for p in raw.decode().split("\x01") if p)
            user, token = parts["user"], parts["auth"].removeprefix("Bearer ")
        except Exception:
            return AuthResult(success=False, handled=False)
        ok = self.provider.user_of(token) == user
        self.xoauth2.append((user, ok))
        if not ok:  # as Gmail: a JSON challenge first, the client answers with an empty line
            error = base64.b64encode(json.dumps({"status": "401", "schemes": "bearer"}).encode()).decode()
            await server.challenge_auth(error, encode_to_b64=False)
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True, auth_data=user)


@pytest.fixture
def smtpd_oauth(oauth_provider):
    """A running :class:`OAuthSmtpServer` on 127.0.0.1 (AUTH demanded, no TLS: loopback)."""
    server = OAuthSmtpServer("127.0.0.1", free_port(), auth=("-", "-"), provider=oauth_provider)
    server.start()
    try:
        yield server
    finally:
        server.stop()

"""``spielleiter oauth login``: the operator grants the bot OAuth2 access once, and the
tokens are stored in the token file (:mod:`bot.mail.oauth` keeps and renews them).

Microsoft and the generic provider use the device-code flow (RFC 8628): a URL and a code
are printed, the operator signs in with any browser, the bot polls the token endpoint
until the grant arrives. Google allows no device flow for mail scopes: there the operator
opens the printed authorization URL (PKCE, RFC 7636) and agrees; the browser's redirect to
``http://localhost:PORT/?code=...`` is caught on that port when the browser runs on this
machine, else the operator pastes the address (the page need not load) into the terminal.
Failures raise :class:`~bot.mail.oauth.OAuthError` (one German line).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Callable
from urllib.parse import urlsplit

from bot.mail.oauth import (DEVICE_GRANT, HTTP_TIMEOUT, OAuthError, OAuthSettings, _error, _FileLock, _session,
                            _write_token)

__all__ = ["login"]


def _device_login(s: OAuthSettings, out: Callable[[str], None], sleep: Callable[[float], None]) -> dict[str, Any]:
    # deferred on purpose: authlib/requests load only for OAuth2
    from authlib.integrations.base_client import OAuthError as LibError
    session = _session(s)
    try:
        try:
            resp = session.post(s.device_endpoint, data={"client_id": s.client_id, "scope": s.scope},
                                timeout=HTTP_TIMEOUT, withhold_token=True)
            try:
                grant = resp.json()
            except ValueError:
                grant = None
            if isinstance(grant, dict) and grant.get("error"):
                raise LibError(error=grant["error"], description=grant.get("error_description"))
            resp.raise_for_status()
            if not isinstance(grant, dict):
                raise ValueError(f"HTTP {resp.status_code}, keine JSON-Antwort")
        except Exception as exc:
            raise _error(s, exc, s.device_endpoint) from exc
        url = grant.get("verification_uri") or grant.get("verification_url")
        if not url or not grant.get("user_code") or not grant.get("device_code"):
            raise OAuthError("protocol", f"OAuth2-Geräte-Endpunkt {urlsplit(s.device_endpoint).netloc}: "
                                         "Antwort ohne verification_uri/user_code/device_code")
        expires = int(grant.get("expires_in") or 900)
        out(f"Im Browser {url} öffnen und den Code {grant['user_code']} eingeben "
            f"(gültig {max(1, expires // 60)} min); dort mit dem Konto des Bots anmelden und zustimmen.")
        if grant.get("verification_uri_complete"):
            out(f"(oder direkt: {grant['verification_uri_complete']})")
        out("Warte auf die Zustimmung ...")
        interval = float(grant.get("interval") or 5)
        deadline = time.monotonic() + expires
        while time.monotonic() < deadline:
            sleep(interval)
            try:
                return dict(session.fetch_token(s.token_endpoint, grant_type=DEVICE_GRANT,
                                                device_code=grant["device_code"], timeout=HTTP_TIMEOUT))
            except Exception as exc:
                code = getattr(exc, "error", None)
                if code == "authorization_pending":
                    continue
                if code == "slow_down":
                    interval += 5
                    continue
                if code == "expired_token":
                    break
                if code in ("access_denied", "authorization_declined"):
                    raise OAuthError("login", "Anmeldung im Browser abgelehnt; nichts gespeichert") from exc
                raise _error(s, exc, s.token_endpoint) from exc
        raise OAuthError("login", f"Code abgelaufen, ohne dass jemand zugestimmt hat: {s.relogin} erneut ausführen")
    finally:
        session.close()


def _code_login(s: OAuthSettings, out: Callable[[str], None], read: Callable[[str], str]) -> dict[str, Any]:
    # deferred on purpose: authlib/requests load only for OAuth2
    from authlib.common.security import generate_token
    session = _session(s, redirect_uri=s.redirect_uri, code_challenge_method="S256")
    verifier = generate_token(48)
    try:
        # Google gives a refresh token only with access_type=offline (and again only with consent)
        extra = {"access_type": "offline", "prompt": "consent"} if s.provider == "google" else {}
        url, state = session.create_authorization_url(s.authorize_endpoint, code_verifier=verifier, **extra)
        out(f"Im Browser diese Adresse öffnen, mit dem Konto des Bots anmelden und zustimmen:\n{url}")
        out(f"Danach leitet der Browser auf {s.redirect_uri}... weiter: läuft der Browser auf diesem Rechner, "
            "geht es von selbst weiter; sonst darf die Seite fehlschlagen.")
        answer = _redirect_or_paste(s.redirect_uri, lambda: read("Die ganze Adresse aus der Adresszeile hier "
                                                                 "einfügen: ")).strip()
        if "code=" not in answer:
            err = "access_denied" if "error=access_denied" in answer else "keine Adresse mit code="
            raise OAuthError("login", f"Anmeldung nicht abgeschlossen ({err}); nichts gespeichert")
        try:
            return dict(session.fetch_token(s.token_endpoint, authorization_response=answer, state=state,
                                            code_verifier=verifier, timeout=HTTP_TIMEOUT))
        except Exception as exc:
            if type(exc).__name__ == "MismatchingStateException":
                raise OAuthError("login", "die eingefügte Adresse gehört zu einer anderen Anmeldung "
                                          "(state passt nicht); nichts gespeichert") from exc
            raise _error(s, exc, s.token_endpoint) from exc
    finally:
        session.close()


def _redirect_or_paste(redirect_uri: str, read: Callable[[], str]) -> str:
    """The address the browser was sent to: caught by a listener on the redirect's
    loopback port (the browser runs on this machine) or pasted by the operator (``read``),
    whichever comes first. Without a free loopback port only the paste."""
    got: queue.Queue[str] = queue.Queue()
    parts = urlsplit(redirect_uri)

    class Catch(BaseHTTPRequestHandler):
        def do_GET(self):
            done = "code=" in self.path
            body = ("Spielleiter: Zugang erteilt, dieses Fenster kann zu." if done else
                    "Spielleiter: keine Zustimmung erhalten.").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)
            if "code=" in self.path or "error=" in self.path:  # not the browser's /favicon.ico
                got.put(f"{parts.scheme}://{parts.netloc}{self.path}")

        def log_message(self, *args):
            pass

    server = None
    if parts.scheme == "http" and parts.hostname in ("localhost", "127.0.0.1") and parts.port:
        try:
            server = HTTPServer(("127.0.0.1", parts.port), Catch)
        except OSError:  # the port is taken: paste only
            server = None
    if server is None:
        return read()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    threading.Thread(target=lambda: got.put(read()), daemon=True).start()
    try:
        return got.get()
    finally:
        server.shutdown()
        server.server_close()


def _stdin_line(prompt: str) -> str:
    """``input()`` for a helper thread: reads file descriptor 0 directly, so a thread still
    waiting at exit holds no lock of ``sys.stdin`` (the listener may have won)."""
    print(prompt, end="", flush=True)
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(0, 4096)
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", "replace")


def login(settings: OAuthSettings, out: Callable[[str], None] = print, read: Callable[[str], str] = _stdin_line,
          sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """Let the operator grant access (device-code flow, or authorization code pasted
    back; see the module docstring), store the tokens in the token file (0600) and
    return them. ``out`` prints a line, ``read`` asks for one (code flow), ``sleep`` waits
    between the polls of the device flow. Raises :class:`OAuthError`."""
    if settings.flow == "device":
        token = _device_login(settings, out, sleep)
    else:
        token = _code_login(settings, out, read)
    if not token.get("access_token"):
        raise OAuthError("protocol", "der Token-Endpunkt gab kein access_token zurück")
    if not token.get("refresh_token"):
        out("Warnung: kein Refresh-Token erhalten (scope ohne offline_access?): nach Ablauf des Zugangs-Tokens "
            "ist eine neue Anmeldung nötig.")
    with _FileLock(settings.token_file):
        _write_token(settings, token)
    return token

"""A real ``aiosmtpd`` SMTP server for tests (the fixtures: tests/mailservers.py),
recording every message, with switchable failures, AUTH and TLS."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.testcerts import TlsCerts

__all__ = ["Received", "SmtpServer"]


@dataclass
class Received:
    """One message received by the test SMTP server."""

    mail_from: str
    rcpt_tos: list[str]
    raw: bytes


@dataclass
class SmtpServer:
    """Handle on the test SMTP server; ``messages`` lists every delivery."""

    host: str
    port: int
    messages: list[Received] = field(default_factory=list)
    attempts: int = 0
    _fail_left: int = 0
    _fail_code: int = 451
    _fail_text: str = "4.3.0 Try again later"
    _reject_code: int | None = None
    _rejected: dict = field(default_factory=dict)
    auth: tuple[str, str] | None = None
    logins: list = field(default_factory=list)
    _controller: object = None
    #: None: no TLS; "starttls": STARTTLS offered and required before MAIL (and AUTH);
    #: "implicit": TLS from the first byte. Both present ``certs``' server certificate.
    tls: str | None = None
    certs: TlsCerts | None = None

    def start(self) -> None:
        """Start (or restart) the server on its port; with ``auth`` set it demands AUTH
        (without TLS also over plain text, fine on loopback; with TLS only over TLS)."""
        from aiosmtpd.controller import Controller

        kw: dict = {}
        if self.tls == "starttls":
            kw.update(tls_context=self.certs.server_context(), require_starttls=True)
        elif self.tls == "implicit":
            kw.update(ssl_context=self.certs.server_context())
        elif self.tls is not None:
            raise ValueError(f"tls must be None, 'starttls' or 'implicit', not {self.tls!r}")
        if self.auth is not None:
            # aiosmtpd counts only STARTTLS as TLS for AUTH; over implicit TLS every byte is
            # encrypted already, so AUTH may go at once
            kw.update(auth_required=True, auth_require_tls=self.tls == "starttls",
                      authenticator=self._authenticate)
        import logging

        logging.getLogger("mail.log").setLevel(logging.ERROR)  # AUTH without TLS: fine on loopback
        self._controller = Controller(self, hostname=self.host, port=self.port, decode_data=False, **kw)
        self._controller.start()

    def stop(self) -> None:
        """Stop the server: connections to its port are refused until :meth:`start`."""
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def require_auth(self, user: str, password: str) -> None:
        """Restart demanding AUTH (PLAIN/LOGIN without TLS) with these credentials."""
        self.stop()
        self.auth = (user, password)
        self.start()

    def _authenticate(self, server, session, envelope, mechanism, auth_data):
        from aiosmtpd.smtp import AuthResult, LoginPassword

        ok = isinstance(auth_data, LoginPassword) and self.auth is not None and \
            (auth_data.login.decode(), auth_data.password.decode()) == self.auth
        self.logins.append((auth_data.login.decode() if isinstance(auth_data, LoginPassword) else None, ok))
        return AuthResult(success=ok, handled=False)

    def reject(self, address: str, code: int = 550) -> None:
        """Refuse this one recipient (RCPT TO) with ``code``."""
        self._rejected[address.lower()] = code

    def fail_next(self, n: int, code: int = 451, text: str = "4.3.0 Try again later") -> None:
        """Answer the next ``n`` DATA commands with ``code`` and ``text`` (by default a
        temporary failure; a provider's quota answer with e.g. ``451, "4.7.1 Rate limit
        exceeded"`` or ``550, "5.4.5 Daily user sending quota exceeded"``)."""
        self._fail_left = n
        self._fail_code = code
        self._fail_text = text

    def reject_all(self, code: int = 550) -> None:
        """Refuse every recipient (RCPT TO) with ``code`` from now on."""
        self._reject_code = code

    # aiosmtpd handler hooks -------------------------------------------------
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self._reject_code is not None:
            return f"{self._reject_code} 5.1.1 <{address}>: Recipient address rejected"
        if address.lower() in self._rejected:
            return f"{self._rejected[address.lower()]} 5.1.1 <{address}>: Recipient address rejected"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.attempts += 1
        if self._fail_left > 0:
            self._fail_left -= 1
            return f"{self._fail_code} {self._fail_text}"
        raw = envelope.original_content or envelope.content
        self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), bytes(raw)))
        return "250 Message accepted for delivery"

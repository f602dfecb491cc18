"""Transport-side protocols and errors shared by IMAP, SMTP and Maildir.

The mail layer never touches the database: the poller is given a
:class:`StoreCallback` (stores and commits one raw mail) and a
:class:`PollState` (remembers where the last poll stopped).  Both senders
(:class:`bot.mail.smtp.SmtpTransport`, :class:`bot.mail.maildir.MaildirTransport`)
implement :class:`Sender`.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Protocol, runtime_checkable

from bot.i18n import DEFAULT, N_, texts

__all__ = [
    "tls_context",
    "tls_problem",
    "ca_file_problem",
    "TemporaryFailure",
    "PermanentFailure",
    "ServerFailure",
    "StoreCallback",
    "StoreUnavailable",
    "sync_store",
    "PollState",
    "MemoryPollState",
    "Sender",
    "Poller",
]


class TemporaryFailure(Exception):
    """Sending failed for now (connection trouble, 4xx); try again later.

    ``code`` is the last SMTP code (None for connection errors), ``message``
    the server's text or the error description.
    """

    def __init__(self, message: str, code: int | None = None):
        super().__init__(f"{code} {message}" if code else message)
        self.code = code
        self.message = message


class PermanentFailure(Exception):
    """Sending can never succeed as is (5xx, recipient refused); do not retry.

    ``code`` is the SMTP reply code, ``message`` the server's text.
    """

    def __init__(self, message: str, code: int | None = None):
        super().__init__(f"{code} {message}" if code else message)
        self.code = code
        self.message = message


class ServerFailure(TemporaryFailure):
    """The mail server cannot be used now, or the bot's settings for it are wrong: no single
    mail is at fault. A mail that met it stays queued (its status untouched) and is sent
    once the server works again; the operator is told (:meth:`line`).

    ``service``: ``"imap"`` or ``"smtp"``; ``kind``: one of :data:`KINDS`; ``host``:
    ``"host:port"``; ``code``: the server's reply code if there was one.
    """

    #: failure kinds, in the order of the exit statuses (``bot.cli``: IMAP 10 + index,
    #: SMTP 20 + index)
    KINDS = ("login", "unreachable", "tls", "folder", "config", "temporary", "protocol", "quota")
    #: the kinds in the operator's words (German, like the rest of the CLI; msgids: a
    #: notice to a game master gives them in the GM's language, :meth:`line`)
    KIND_TEXT = {
        "login": N_("Anmeldung abgelehnt"),
        "unreachable": N_("Server nicht erreichbar"),
        "tls": N_("TLS-Fehler"),
        "folder": N_("Ordner fehlt"),
        "config": N_("Einstellung passt nicht zum Server"),
        "temporary": N_("Server lehnt vorübergehend ab"),
        "protocol": N_("unerwartete Antwort des Servers"),
        "quota": N_("Versandgrenze des Anbieters erreicht"),
    }

    def __init__(self, service: str, kind: str, message: str, *, host: str = "", code: int | None = None):
        if kind not in self.KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        super().__init__(message, code)
        self.service, self.kind, self.host = service, kind, host

    @property
    def retry_soon(self) -> bool:
        """True when the same attempt may work in a few seconds (connection dropped,
        server busy); False when someone has to change something (login, TLS, folder,
        settings) or the server said something unexpected."""
        return self.kind in ("unreachable", "temporary")

    def line(self, lang: str = DEFAULT) -> str:
        """One line for the operator: ``IMAP imap.example.org:993: Anmeldung abgelehnt:
        [AUTHENTICATIONFAILED] Authentication failed.``; the kind in ``lang`` (German by
        default; a game master's language in a notice to them), the server's words as
        they came."""
        where = f" {self.host}" if self.host else ""
        return f"{self.service.upper()}{where}: {texts(lang).gettext(self.KIND_TEXT[self.kind])}: {self}"


class StoreUnavailable(Exception):
    """Raised by a :class:`StoreCallback` (or :func:`sync_store`) when the store itself
    cannot be used now (its database is down): no mail is at fault, so the transport
    stops the pass at once, leaves every mail not yet stored where it is, logs nothing
    and lets it propagate to the caller, which reports the outage once
    (:class:`bot.service.operations.health.Outage`)."""


class StoreCallback(Protocol):
    """Takes one raw incoming mail to store it.

    Returns True when the mail is taken (also when it was stored before,
    i.e. a duplicate); it is stored and committed at the latest by
    :func:`sync_store`, which may store a whole batch at once.  Only after
    True and a successful :func:`sync_store` may a transport move or delete
    the mail on the server.  False or an exception (from the call or from
    :func:`sync_store`) means "not stored": the transport leaves the mail
    where it is and retries next poll; :class:`StoreUnavailable` also ends the pass and
    is raised on to the transport's caller.
    ``source`` names the transport ("imap:INBOX", "maildir"); ``uidvalidity``
    and ``uid`` are the IMAP coordinates (None for Maildir).
    """

    def __call__(
        self, raw: bytes, *, source: str, uidvalidity: int | None, uid: int | None
    ) -> bool: ...


def sync_store(store: StoreCallback) -> None:
    """Store and commit every mail handed to ``store`` so far and make it durable (power
    loss included): calls its ``sync()`` when it has one. A transport calls it before it
    moves or deletes the mails it handed over, so the store may take a batch in one
    transaction and one disk flush (a callback that commits durably each time needs no
    ``sync``). Raises what storing raised."""
    sync = getattr(store, "sync", None)
    if sync is not None:
        sync()


class PollState(Protocol):
    """Where the last IMAP poll of a mailbox stopped (backed by the DB)."""

    def get(self, mailbox: str) -> tuple[int | None, int]:
        """Return ``(uidvalidity, last_uid)``; ``(None, 0)`` if never polled."""
        ...

    def set(self, mailbox: str, uidvalidity: int, last_uid: int) -> None:
        """Remember that every UID <= ``last_uid`` of ``mailbox`` is stored."""
        ...


class MemoryPollState:
    """In-memory :class:`PollState` for tests and the demo."""

    def __init__(self) -> None:
        self.states: dict[str, tuple[int | None, int]] = {}

    def get(self, mailbox: str) -> tuple[int | None, int]:
        """Return ``(uidvalidity, last_uid)`` or ``(None, 0)``."""
        return self.states.get(mailbox, (None, 0))

    def set(self, mailbox: str, uidvalidity: int, last_uid: int) -> None:
        """Store ``(uidvalidity, last_uid)`` for ``mailbox``."""
        self.states[mailbox] = (uidvalidity, last_uid)


@runtime_checkable
class Sender(Protocol):
    """Common send interface of all outgoing transports."""

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        """Deliver ``raw`` to ``recipients`` with envelope sender ``sender``.

        Raises :class:`TemporaryFailure` (retry later) or
        :class:`PermanentFailure` (give up / tell the operator).
        """
        ...


@runtime_checkable
class Poller(Protocol):
    """Common poll interface of all incoming transports."""

    def poll(self, store: StoreCallback, state: PollState) -> int:
        """Hand every new mail to ``store``; return how many were stored."""
        ...


# -- TLS: one trust and one wording for IMAP and SMTP -----------------------------------

#: OpenSSL's verify codes (``ssl.SSLCertVerificationError.verify_code``) that mean "issued by
#: nobody we trust": self-signed leaf, self-signed CA in the chain, unknown issuer,
#: unverifiable leaf
_UNTRUSTED = {18, 19, 20, 21}
_MISMATCH = {62, 64}  # host name, IP address not in the certificate
_EXPIRED = {9, 10}  # not yet valid, expired


def tls_context(service: str, ca_file: str | Path | None = None) -> ssl.SSLContext:
    """The verifying client context of ``service`` ("imap"/"smtp"): the system's trusted
    CAs (OpenSSL's default paths, so ``SSL_CERT_FILE``/``SSL_CERT_DIR`` apply), plus the
    PEM certificates in ``ca_file`` (``[imap] ca_file``/``[smtp] ca_file``: a private CA or
    a self-signed server certificate to trust in addition). Host names are always checked.
    Raises :class:`ServerFailure` kind ``config`` when ``ca_file`` cannot be read or holds
    no certificate."""
    context = ssl.create_default_context()
    if ca_file:
        try:
            context.load_verify_locations(cafile=str(ca_file))
        except (OSError, ssl.SSLError, ValueError) as exc:
            raise ServerFailure(service, "config", f"[{service}] ca_file {ca_file}: {ca_file_problem(exc)}") from exc
    return context


def ca_file_problem(exc: BaseException) -> str:
    """Why a ``ca_file`` could not be loaded, in German."""
    if isinstance(exc, FileNotFoundError):
        return "Datei nicht gefunden"
    if isinstance(exc, PermissionError):
        return "Datei nicht lesbar (Rechte)"
    if isinstance(exc, ssl.SSLError | ValueError):
        return "kein Zertifikat im PEM-Format darin (-----BEGIN CERTIFICATE-----)"
    return str(exc)


def tls_problem(exc: ssl.SSLError, service: str) -> str:
    """The German text of a failed TLS handshake of ``service`` ("imap"/"smtp"), with what
    to change: an untrusted certificate names ``[service] ca_file``, a name mismatch
    ``[service] host``."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = exc.verify_message or exc.reason or str(exc)
        code = exc.verify_code
        if code in _MISMATCH:
            return (f"Zertifikat passt nicht zum Servernamen ({why}); [{service}] host muss ein Name "
                    "aus dem Zertifikat sein")
        if code in _UNTRUSTED:
            return (f"Zertifikat nicht vertrauenswürdig ({why}); eigene CA oder selbst signiertes "
                    f"Zertifikat: als PEM-Datei in [{service}] ca_file angeben")
        if code in _EXPIRED:
            return f"Zertifikat abgelaufen oder noch nicht gültig ({why})"
        return f"Zertifikat abgelehnt ({why})"
    return f"TLS-Handshake gescheitert ({getattr(exc, 'reason', None) or exc})"

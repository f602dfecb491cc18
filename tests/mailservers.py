"""Pytest plugin: real mail servers for tests.

* ``dovecot`` (session): a real Dovecot 2.3 IMAP server started as a
  subprocess (``dovecot -F -c CONF``) on 127.0.0.1 at a free port, all
  state in a temporary directory.  Plain LOGIN without TLS.  The passdb is
  ``static`` with one password, so ANY user name logs in (``bot``, ``gm``,
  ``fresh_user()``); every user gets its own Maildir.  Skipped when
  ``dovecot`` is not installed -- unless the env var ``CI`` is set, then
  the test errors (CI must run ``scripts/setup --test``).  ``DOVECOT_BIN``
  selects another binary.  Works as root (drops to dovenull/dovecot/mail
  like a system install) and as an ordinary user (all of it as that user).
* ``dovecot_clean`` (function): the same server after ``reset()``.
* ``tls_certs`` (session): a throwaway CA made with ``trustme`` and a server certificate
  it signed for ``127.0.0.1`` and ``localhost``, written as PEM files
  (:class:`TlsCerts`); plus a second CA nobody trusts.
* ``dovecot_tls`` (session): a second Dovecot like ``dovecot`` but with ``ssl = yes`` and
  that certificate: STARTTLS on the plain ``port``, implicit TLS on ``tls_port``; it listens
  on 127.0.0.1 and 127.0.0.2 (an address not in the certificate: the name mismatch).
  Separate from ``dovecot`` so the tests without TLS do not wait for it.
* ``smtpd`` (function): a real ``aiosmtpd`` server recording every message;
  ``fail_next(n, code)`` / ``reject_all(code)`` / ``reject(address, code)`` switch on
  failures, ``require_auth(user, password)`` makes it demand AUTH, ``stop()`` /
  ``start()`` take it down and bring it back on the same port.
* ``smtpd_tls`` (function): a factory ``smtpd_tls(mode, auth=None, certs=None)`` for
  aiosmtpd servers with the test certificate (or ``certs``, e.g. :func:`make_self_signed`): ``mode="starttls"`` (STARTTLS offered and required before
  MAIL) or ``"implicit"`` (TLS from the first byte); with ``auth=(user, password)`` AUTH is
  demanded and offered only over TLS, as real servers do.

Use in a test module or conftest: ``pytest_plugins = ["tests.mailservers"]``.

This module holds the fixtures; the servers are in ``tests/dovecotserver.py`` and
``tests/smtpserver.py``, the certificates in ``tests/testcerts.py``, ``free_port`` and
:class:`TcpProxy` in ``tests/tcpproxy.py``. Their names are importable from here too.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

# the servers and helpers, importable from here as before
from tests.dovecotserver import (DOVECOT_PASSWORD, NO_IDLE_CAPABILITY, DovecotServer, _dovecot_binary,
                                 _start_dovecot, _stop, running_dovecot)
from tests.smtpserver import Received, SmtpServer
from tests.tcpproxy import TcpProxy, free_port
from tests.testcerts import TlsCerts, make_self_signed, make_tls_certs

# (the private ones: bench/ingest.py and bench/chaos.py start a Dovecot with them)
__all__ = ["DOVECOT_PASSWORD", "DovecotServer", "NO_IDLE_CAPABILITY", "Received", "SmtpServer", "TcpProxy",
           "TlsCerts", "_dovecot_binary", "_start_dovecot", "_stop", "free_port", "make_self_signed",
           "make_tls_certs", "running_dovecot"]


@pytest.fixture(scope="session")
def dovecot():
    """A running Dovecot IMAP server (see module docstring)."""
    with running_dovecot(Path(tempfile.mkdtemp(prefix="spielleiter-dovecot-"))) as server:
        yield server


@pytest.fixture(scope="module")
def dovecot_no_idle():
    """A second Dovecot that does not announce IDLE (a server the bot only polls)."""
    with running_dovecot(Path(tempfile.mkdtemp(prefix="spielleiter-dovecot-noidle-")),
                         extra=f"imap_capability = {NO_IDLE_CAPABILITY}\n") as server:
        yield server


@pytest.fixture(scope="session")
def tls_certs(tmp_path_factory):
    """A throwaway CA and a server certificate for 127.0.0.1/localhost (:class:`TlsCerts`)."""
    return make_tls_certs(tmp_path_factory.mktemp("tls-certs"))


@pytest.fixture(scope="session")
def dovecot_tls(tls_certs):
    """A running Dovecot with TLS: STARTTLS on ``port``, implicit TLS on ``tls_port``."""
    # (Dovecot's config process reads the certificate and key before dropping privileges)
    with running_dovecot(Path(tempfile.mkdtemp(prefix="spielleiter-dovecot-tls-")), certs=tls_certs) as server:
        yield server


@pytest.fixture
def dovecot_clean(dovecot):
    """The session Dovecot with user ``bot`` emptied before the test."""
    dovecot.reset()
    yield dovecot


@pytest.fixture
def smtpd():
    """A running aiosmtpd server on 127.0.0.1 recording every message."""
    server = SmtpServer("127.0.0.1", free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def smtpd_tls(tls_certs):
    """Factory ``smtpd_tls(mode, auth=None)``: a running aiosmtpd server with the test
    certificate, ``mode`` "starttls" or "implicit", AUTH demanded with ``auth=(user,
    password)`` (only over TLS). Every server made is stopped after the test."""
    made: list[SmtpServer] = []

    def make(mode: str, auth: tuple[str, str] | None = None, certs: TlsCerts | None = None) -> SmtpServer:
        server = SmtpServer("127.0.0.1", free_port(), auth=auth, tls=mode, certs=certs or tls_certs)
        server.start()
        made.append(server)
        return server

    try:
        yield make
    finally:
        for server in made:
            server.stop()

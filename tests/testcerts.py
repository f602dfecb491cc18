"""TLS certificates for the test servers (tests/mailservers.py): a throwaway CA with a
server certificate it signed (``trustme``), and a self-signed certificate."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TlsCerts", "make_self_signed", "make_tls_certs"]


@dataclass
class TlsCerts:
    """PEM files of a throwaway test CA (``ca_pem``) and the server certificate it issued
    for ``127.0.0.1`` and ``localhost`` (``cert_pem`` with its chain, ``key_pem``);
    ``other_ca_pem`` is a second CA that signed nothing the servers use (trusting only it
    must fail). Made by ``trustme`` (session fixture ``tls_certs``)."""

    ca: object
    dir: Path
    ca_pem: Path
    cert_pem: Path
    key_pem: Path
    other_ca_pem: Path
    _leaf: object = None

    def client_context(self, ca_pem: Path | None = None):
        """A verifying client context (as the bot's default one) trusting only ``ca_pem``
        (default: the test CA)."""
        import ssl

        return ssl.create_default_context(cafile=str(ca_pem or self.ca_pem))

    def server_context(self):
        """A TLS server context presenting the test certificate."""
        import ssl

        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(str(self.cert_pem), str(self.key_pem))
        return ctx


def make_tls_certs(directory: Path) -> TlsCerts:
    """Write a new test CA, a server certificate for 127.0.0.1/localhost and an
    unrelated CA into ``directory`` (see :class:`TlsCerts`)."""
    import trustme

    ca = trustme.CA(organization_name="Spielleiter Test-CA")
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    other = trustme.CA(organization_name="Fremde CA")
    directory.mkdir(parents=True, exist_ok=True)
    certs = TlsCerts(ca, directory, directory / "ca.pem", directory / "server.pem", directory / "server.key",
                     directory / "other-ca.pem", leaf)
    ca.cert_pem.write_to_path(str(certs.ca_pem))
    with open(certs.cert_pem, "wb") as f:
        for blob in leaf.cert_chain_pems:
            f.write(blob.bytes())
    leaf.private_key_pem.write_to_path(str(certs.key_pem))
    other.cert_pem.write_to_path(str(certs.other_ca_pem))
    for path in (certs.ca_pem, certs.cert_pem, certs.other_ca_pem):
        os.chmod(path, 0o644)
    os.chmod(certs.key_pem, 0o600)
    return certs


def make_self_signed(directory: Path, *names: str) -> TlsCerts:
    """A self-signed server certificate (no CA: what ``openssl req -x509`` or Debian's
    snakeoil certificate gives a small server) for ``names`` (default 127.0.0.1 and
    localhost), made with ``cryptography`` (trustme's base); ``ca_pem`` is the certificate
    itself, the one thing a client can trust."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    names = names or ("127.0.0.1", "localhost")
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[-1])])
    alt = []
    for name in names:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alt.append(x509.DNSName(name))
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    directory.mkdir(parents=True, exist_ok=True)
    cert_pem, key_pem = directory / "selfsigned.pem", directory / "selfsigned.key"
    cert_pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    os.chmod(key_pem, 0o600)
    return TlsCerts(None, directory, cert_pem, cert_pem, key_pem, directory / "none.pem")

"""Composing outgoing mails as RFC 5322 bytes.

No game rules here: the caller gives sender, recipients, subject and text
(optionally HTML); :func:`compose` returns the bytes that go into the
outbox and later to a transport's ``send``.
"""

from __future__ import annotations

import email.policy
import email.utils
import hashlib
from datetime import datetime, timezone
from email.message import EmailMessage

__all__ = ["compose", "make_message_id", "domain_of"]

# SMTP needs CRLF line endings and lines <= 998 chars; policy.SMTP folds headers
# and encodes bodies (QP/base64 for UTF-8) accordingly.
_POLICY = email.policy.SMTP


def domain_of(address: str) -> str:
    """Domain part of ``address`` ("Name <a@b.de>" -> "b.de"); "localhost" if none."""
    _, addr = email.utils.parseaddr(address)
    domain = addr.rpartition("@")[2] if "@" in addr else ""
    return domain.strip().lower() or "localhost"


def make_message_id(key: str, domain: str) -> str:
    """Deterministic Message-ID ``<sha256(key)[:32]@domain>`` for ``key``.

    The same outbox row (same key) always gets the same Message-ID, so a
    resend after a crash is recognisable as the same mail.
    """
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    return f"<{digest}.spielleiter@{domain}>"


def compose(
    *,
    sender: str,
    to: str | list[str],
    subject: str,
    text: str,
    html: str | None = None,
    message_id: str | None = None,
    in_reply_to: str | None = None,
    references: list[str] | None = None,
    date: datetime | None = None,
    headers: dict | None = None,
) -> bytes:
    """Build one outgoing mail and return its RFC 5322 bytes (CRLF, UTF-8, 7-bit clean).

    ``sender``/``to`` may be "Name <addr>" strings (non-ASCII names are
    RFC 2047 encoded).  With ``html`` the mail is multipart/alternative
    (text/plain first, text/html second), else text/plain.  Always sets
    ``Auto-Submitted: auto-generated``, ``Date`` (``date`` or now, must be
    timezone-aware if given; naive datetimes are taken as UTC) and
    ``Message-ID`` (``message_id`` or a fresh one for the sender's domain).
    ``headers`` adds/overrides further headers (e.g. ``Reply-To``).
    Raises ValueError for an empty recipient list.
    """
    recipients = [to] if isinstance(to, str) else list(to)
    if not recipients:
        raise ValueError("compose: no recipients")
    msg = EmailMessage(policy=_POLICY)
    msg["From"] = sender
    msg["To"] = ", ".join(recipients)
    msg["Subject"] = subject
    if date is None:
        date = datetime.now(timezone.utc)
    elif date.tzinfo is None:
        date = date.replace(tzinfo=timezone.utc)
    msg["Date"] = email.utils.format_datetime(date)
    msg["Message-ID"] = message_id or email.utils.make_msgid(domain=domain_of(sender))
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    refs = list(references or [])
    if in_reply_to and in_reply_to not in refs:
        refs.append(in_reply_to)
    if refs:
        msg["References"] = " ".join(refs)
    msg["Auto-Submitted"] = "auto-generated"
    msg["MIME-Version"] = "1.0"
    for name, value in (headers or {}).items():
        if name in msg:
            del msg[name]
        msg[name] = value
    # quoted-printable keeps the mail 7-bit clean (no 8BITMIME needed) and
    # readable in the raw form
    msg.set_content(text, subtype="plain", charset="utf-8", cte="quoted-printable")
    if html is not None:
        msg.add_alternative(html, subtype="html", charset="utf-8", cte="quoted-printable")
    return msg.as_bytes(policy=_POLICY)

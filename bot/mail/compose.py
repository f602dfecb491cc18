"""Composing outgoing mails as RFC 5322 bytes.

No game rules here: the caller gives sender, recipients, subject and text
(optionally HTML); :func:`compose` returns the bytes that go into the
outbox and later to a transport's ``send``.
"""

from __future__ import annotations

import binascii
import email.policy
import email.utils
import hashlib
import random
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime, timezone
from email.header import Header

from bot.packing import Chunked, pack

__all__ = ["compose", "make_message_id", "may_be_ours", "domain_of", "Segments", "qp_lines"]

# SMTP needs CRLF line endings and lines <= 998 chars: headers folded at 78,
# bodies quoted-printable (lines <= 76).
_POLICY = email.policy.compat32.clone(linesep="\r\n", max_line_length=78)


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


_OURS = re.compile(r"<[0-9a-f]{32}\.spielleiter@[^>]*>")


def may_be_ours(message_id: str | None) -> bool:
    """Whether ``message_id`` has the shape of :func:`make_message_id` (whatever the
    domain): every mail the bot queues gets its Message-ID from there (the outbox,
    ``bot.service.stages.outbox``, a copy resent), so a Message-ID of another shape was
    never the bot's (the quoted-block check of a batch needs no query for a reply to it)."""
    return bool(message_id) and _OURS.fullmatch(message_id) is not None


@dataclass(frozen=True)
class Segments:
    """A mail body in pieces, joined when the mail is composed: ``str`` pieces are encoded
    then, ``bytes`` pieces are already encoded (:func:`qp_lines`); so a part that is the
    same in many mails (a round's table in every Auswertung) is encoded once. A piece
    starts at the beginning of a line; a ``bytes`` piece is whole lines, or the last line
    without its end when the next piece begins with a line end."""

    pieces: tuple[str | bytes, ...]
    #: the ``str`` of every ``bytes`` piece, in order (for :meth:`text`)
    plain: tuple[str, ...] = ()

    def text(self) -> str:
        """The whole body as text."""
        plain = iter(self.plain)
        return "".join(p if isinstance(p, str) else next(plain) for p in self.pieces)


def compose(
    *,
    sender: str,
    to: str | list[str],
    subject: str,
    text: str | Segments,
    html: str | Segments | None = None,
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
    ``text``/``html`` may be :class:`Segments` with pieces encoded beforehand; when
    such a piece is :class:`~bot.packing.Chunked` (compressed once for many mails), the
    result is :class:`~bot.packing.Packed`: the bytes with their compressed form.
    Raises ValueError for an empty recipient list.

    Built with the stdlib's compat32 message classes and ``binascii``'s
    quoted-printable encoder (a few times faster than ``EmailMessage`` with
    ``policy.SMTP``, which matters for a round's hundreds of Auswertungen).
    """
    recipients = [to] if isinstance(to, str) else list(to)
    if not recipients:
        raise ValueError("compose: no recipients")
    if date is None:
        date = datetime.now(timezone.utc)
    elif date.tzinfo is None:
        date = date.replace(tzinfo=timezone.utc)
    fields: dict[str, str] = {
        "From": _address(sender),
        "To": ", ".join(_address(r) for r in recipients),
        "Subject": _encoded(subject, "Subject"),
        "Date": email.utils.format_datetime(date),
        "Message-ID": message_id or email.utils.make_msgid(domain=domain_of(sender)),
    }
    if in_reply_to:
        fields["In-Reply-To"] = in_reply_to
    refs = list(references or [])
    if in_reply_to and in_reply_to not in refs:
        refs.append(in_reply_to)
    if refs:
        fields["References"] = " ".join(refs)
    fields["Auto-Submitted"] = "auto-generated"
    fields["MIME-Version"] = "1.0"
    for name, value in (headers or {}).items():
        fields.pop(next((k for k in fields if k.lower() == name.lower()), name), None)
        fields[name] = _encoded(str(value), name)
    # quoted-printable keeps the mail 7-bit clean (no 8BITMIME needed) and
    # readable in the raw form; the header block is written by the stdlib (folding,
    # encoded words), the bodies are joined to it as bytes (the generator would split
    # and rewrite them line by line: slow for a large Auswertung)
    if html is None:
        parts = [_head(fields), _PLAIN, *_qp_parts(text)]
    else:
        boundary = "===============%019d==" % random.randrange(sys.maxsize)  # "==" never occurs in QP
        fields["Content-Type"] = f'multipart/alternative; boundary="{boundary}"'
        sep = f"--{boundary}\r\n".encode("ascii")
        parts = [_head(fields), b"\r\n", sep, _PLAIN, *_qp_parts(text), b"\r\n", sep, _HTML, *_qp_parts(html),
                 b"\r\n", f"--{boundary}--\r\n".encode("ascii")]
    if any(isinstance(p, Chunked) for p in parts):
        return pack(parts)  # the compressed form made alongside (bot.packing)
    return b"".join(parts)


def _head(fields: dict[str, str]) -> bytes:
    """The header lines, folded at 78 columns (compat32 folding, CRLF). A short ASCII
    value of words with single spaces (most of them) is written as compat32 would write
    it, without its folding machinery."""
    return b"".join(f"{name}: {value}\r\n".encode("ascii")
                    if len(name) + len(value) <= 76 and _UNFOLDED.match(value)
                    else _POLICY.fold_binary(name, value) for name, value in fields.items())


#: a header value compat32 writes unchanged when the line fits in 78 columns
_UNFOLDED = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*\Z")


#: the header lines of a text part, and the empty line after them
_PLAIN = b'Content-Type: text/plain; charset="utf-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
_HTML = b'Content-Type: text/html; charset="utf-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'


def qp_lines(text: str) -> bytes:
    """``text`` as UTF-8 quoted-printable with CRLF line ends (lines <= 76 characters,
    ``binascii.b2a_qp``), for a :class:`Segments` piece; no line end is added."""
    data = text.replace("\r\n", "\n").replace("\r", "\n").encode("utf-8")
    return binascii.b2a_qp(data, istext=True).replace(b"\n", b"\r\n")


def _qp_parts(text: str | Segments) -> list[bytes]:
    """The body quoted-printable, in parts (a :class:`Segments` piece encoded before
    stays the same object), ending with a line end."""
    if isinstance(text, Segments):
        parts = [qp_lines(p) if isinstance(p, str) else p for p in text.pieces]
    else:
        parts = [qp_lines(text)]
    parts = [p for p in parts if p]
    if not parts or not parts[-1].endswith(b"\r\n"):
        parts.append(b"\r\n")
    return parts


def _qp(text: str | Segments) -> bytes:
    """The whole body quoted-printable, ending with a line end."""
    return b"".join(_qp_parts(text))


@lru_cache(maxsize=4096)
def _encoded(value: str, name: str) -> str:
    """A header value as is when ASCII, else RFC 2047 encoded words (folded)."""
    if value.isascii():
        return value
    return Header(value, "utf-8", header_name=name).encode()


@lru_cache(maxsize=4096)
def _address(value: str) -> str:
    """"Name <addr>" with a non-ASCII name RFC 2047 encoded; a bare address as is."""
    name, addr = email.utils.parseaddr(value)
    if not addr:
        return _encoded(value, "To")
    return email.utils.formataddr((name, addr), charset="utf-8") if name else addr

"""Reading incoming mails: raw RFC 5322 bytes -> :class:`ReadMail`.

This module knows nothing about games or the database.  It turns the raw
bytes of one mail into plain values the rest of the bot works with:
addresses, decoded subject, threading headers, the body as text, the part
of the body the sender wrote *now* (``new_text``) and whether the mail is an
automatic message that must never be answered (``auto``).

Forwarded mails: a forwarded mail's inner text (everything after a
``---------- Forwarded message ---------`` / ``-------- Weitergeleitete
Nachricht --------`` marker) is *not* part of ``new_text`` -- unless nothing
else was written above the marker, in which case ``new_text`` is the
forwarded text (with its own header block, quotes and signature removed).
A player who forwards an old mail with a comment on top sends the comment;
a player who forwards a draft without comment sends the draft.

Limits (issue "nobody can silence a player"): only the first :data:`PARSE_LIMIT` bytes
of a mail go to the MIME parser, only the first :data:`MAX_TEXT` characters of its
text are read and of the fresh text only the first :data:`MAX_LINES` non-empty lines, so
any mail is read in under two seconds; a mail with more than
:data:`MAX_CONTAINERS` nested MIME containers or more than :data:`MAX_ENTITIES` parts is not
parsed at all. A mail whose
structure cannot be read still yields its sender, subject and Message-ID from the raw
header block, and ``unreadable`` says in one German line why the rest could not be read.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage, Message

import html2text

__all__ = ["ReadMail", "read_mail", "read_all", "body_text", "html_to_text", "header_block", "raw_headers",
           "parse_part", "MAX_TEXT", "MAX_LINES", "PARSE_LIMIT", "MAX_CONTAINERS", "MAX_ENTITIES"]

#: Characters of a mail's body text that are read (moves, commands, quotes): 64 KiB.
MAX_TEXT = 64 * 1024
#: Non-empty lines of the freshly written text (``new_text``) that are read for moves:
#: reading a move line costs milliseconds, and no submission needs more.
MAX_LINES = 100
#: Bytes of a mail handed to the MIME parser (the text comes first in every common client).
PARSE_LIMIT = 256 * 1024
#: Characters of the subject kept (answers quote it: folding a long one costs seconds).
MAX_SUBJECT = 200
#: Bytes of the header block that are read.
HEADER_LIMIT = 64 * 1024
#: More MIME containers (``multipart/*``, ``message/*``) than this in the parsed part: the
#: mail is not parsed (the parser's cost grows with depth times lines).
MAX_CONTAINERS = 32
#: More MIME entities than this (boundary lines, blocks of a delivery report) in the parsed
#: part: the mail is not parsed (each costs the parser about 50 us; 25,000 tiny parts in
#: 256 KB took 2 s, 120,000 blank lines in a delivery report 5 s; found by the fuzz bench).
MAX_ENTITIES = 1000

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReadMail:
    """One incoming mail, decoded.

    ``from_addr`` is the lower-case bare address ("" if unreadable or no
    address at all, e.g. without ``@``);
    ``to`` holds the lower-case addresses of To *and* Cc (a bot that is only
    Cc'd still finds its address); ``subject`` is RFC 2047 decoded, folded
    onto one line, control characters removed, at most :data:`MAX_SUBJECT`
    characters; ``message_id``/``in_reply_to`` keep their angle brackets; ``references``
    is a list of ``<id>`` strings; ``date`` is timezone-aware or None;
    ``text`` is the whole body as text, ``new_text`` only the freshly
    written part; ``auto`` is a reason string when the mail is an automatic
    message (never answer it) else None; ``raw_sha256`` is the hex sha256 of
    the raw bytes; ``defects`` lists what the parser found broken
    (informational only); ``unreadable`` is a one-line German reason when the
    mail's structure or text could not be read (then ``text`` is ""), else None;
    ``cut`` is True when only the beginning of the mail or of its text was read
    (:data:`PARSE_LIMIT`, :data:`MAX_TEXT`, :data:`MAX_LINES`);
    ``from_problem`` and ``claimed`` are :class:`Sender`'s ``problem`` and ``claimed``
    (the sender's identity is doubtful when ``from_problem`` is set).
    """

    from_addr: str
    from_name: str
    to: list[str]
    subject: str
    message_id: str | None
    in_reply_to: str | None
    references: list[str]
    date: datetime | None
    text: str
    new_text: str
    auto: str | None
    raw_sha256: str
    defects: list[str] = field(default_factory=list)
    unreadable: str | None = None
    cut: bool = False
    from_problem: str | None = None
    claimed: tuple[str, ...] = ()


from bot.mail.automail import auto_reason
from bot.mail.headers import READ_POLICY, MSGID_RE, addresses, header_text, mail_date, msgid, raw_header
from bot.mail.replies import new_text
from bot.mail.sender import Sender, read_sender

# --------------------------------------------------------------------------
# body


_MD_UNESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!])")
#: a line break followed by lines of nothing but white space (one blank line is kept)
_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n)+")


def html_to_text(html: str) -> str:
    """Convert HTML to plain text with html2text.

    No wrapping, no link references, no emphasis marks; html2text's
    Markdown backslash escapes (``1\\.``, ``\\-``, ``\\+``) are undone,
    ``&nbsp;`` becomes a space, trailing spaces are removed, table cells
    are separated by spaces.  ``<blockquote>`` becomes ``> `` lines (so
    :func:`new_text` drops it).  Never raises.
    """
    try:
        h = html2text.HTML2Text()
        h.body_width = 0
        h.ignore_links = True
        h.ignore_images = True
        h.ignore_emphasis = True
        h.ignore_tables = True
        h.unicode_snob = True
        # Runs of blank lines become one: html2text escapes every text run with
        # MULTILINE patterns such as ``^(\s*\d+)(\.)``, which take quadratic time over
        # thousands of white-space lines (20,000 blank lines took 11 s, a 256 KB part
        # many minutes; found by bench/fuzz_intake.py). In HTML they are one space anyway.
        html = _BLANK_LINES.sub("\n\n", html)
        # keep table cells apart ("A B", not "AB") without Markdown tables
        text = h.handle(re.sub(r"(?i)</t[dh]\s*>", r" \g<0>", html))
        text = _MD_UNESCAPE.sub(r"\1", text)
    except Exception:
        log.exception("html2text gescheitert")
        text = re.sub(r"<[^>]*>", " ", html)
    text = text.replace("\xa0", " ")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


def _part_text(part: Message) -> str:
    """Decoded text of one MIME part, tolerant to wrong/unknown charsets."""
    payload = part.get_payload(decode=True)
    if payload is None:
        payload = part.get_payload()
        return payload if isinstance(payload, str) else ""
    charset = (part.get_content_charset() or "").lower()
    if charset in ("", "us-ascii", "ascii"):
        # undeclared or wrongly declared 8-bit text: UTF-8 is most likely
        candidates = ["utf-8", "windows-1252"]
    elif charset in ("iso-8859-1", "latin-1", "latin1", "iso_8859-1"):
        # "iso-8859-1" is very often really windows-1252 (curly quotes, euro)
        candidates = ["windows-1252"]
    else:
        candidates = [charset, "utf-8", "windows-1252"]
    for cs in candidates:
        try:
            return payload.decode(cs)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("latin-1")  # cannot fail


def body_text(msg: Message) -> str:
    """The whole body of ``msg`` as text.

    text/plain is preferred, else text/html converted with html2text;
    attachments are ignored.  Line endings become ``\\n``.  Never raises;
    returns "" when there is no readable text part.
    """
    return _body(msg)[0]


def _body(msg: Message) -> tuple[str, str | None]:
    """(the body text, None) or ("", why it could not be read, in German)."""
    part = None
    try:
        if isinstance(msg, EmailMessage):
            part = msg.get_body(preferencelist=("plain", "html"))
    except Exception:
        part = None
    if part is None:
        # fallback: first text/* leaf that is not an attachment
        try:
            for leaf in msg.walk():
                if leaf.is_multipart():
                    continue
                if leaf.get_content_maintype() == "text" and not (
                    leaf.get_content_disposition() == "attachment"
                ):
                    part = leaf
                    break
        except Exception:
            part = None
    if part is None:
        return "", None
    try:
        text = _part_text(part)
    except Exception as exc:
        log.warning("Teil des Mailtexts nicht dekodierbar: %r", exc)
        return "", f"ihr Text ließ sich nicht entschlüsseln ({type(exc).__name__})"
    if part.get_content_subtype() == "html":
        text = html_to_text(text[: 4 * MAX_TEXT])
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, None


# --------------------------------------------------------------------------


# Line ends as Python's email parser reads them: CRLF, LF, or a bare CR (a mail with bare
# CRs was once parsed in full, 5,000 containers deep, because ``^`` missed them).
_CONTAINER = re.compile(rb"(?i)(?:^|(?<=[\r\n]))content-type:[ \t]*(?:(?:\r\n|\n|\r)[ \t]+)?(?:multipart|message)/")
_EOL = rb"(?:\r\n|\n|\r(?!\n))"
_BLANK = re.compile(_EOL + _EOL)


def header_block(raw: bytes) -> bytes:
    """The header block of ``raw`` (up to the first empty line, at most
    :data:`HEADER_LIMIT` bytes, cut at a line end)."""
    m = _BLANK.search(raw, 0, HEADER_LIMIT + 4)
    head = raw[: m.start()] if m else raw[:HEADER_LIMIT]
    if not m and len(raw) > HEADER_LIMIT:
        head = head[: max(head.rfind(b"\n"), head.rfind(b"\r")) + 1] or head
    return head


def raw_headers(raw: bytes) -> Message:
    """The header block of ``raw`` parsed leniently (compat32, no decoding); an empty
    message when even that fails. Never raises."""
    try:
        return email.message_from_bytes(header_block(raw) + b"\r\n\r\n", policy=email.policy.compat32)
    except Exception:  # pragma: no cover - the header parser is very tolerant
        return Message()


_DELIMITER = re.compile(rb"(?:^|(?<=[\r\n]))--")
_DSN = re.compile(rb"(?i)content-type:[ \t]*(?:(?:\r\n|\n|\r)[ \t]+)?message/delivery-status")


def _entities(part: bytes) -> int:
    """An upper estimate of the MIME entities the parser would make of ``part``: lines
    starting with ``--`` (boundary delimiters, and some signatures), and in a delivery
    report every blank line after its ``message/delivery-status`` (each block of
    per-recipient fields is an entity of its own)."""
    # as len(_DELIMITER.findall(part)), without trying the pattern at every byte
    n = part.startswith(b"--") + part.count(b"\n--") + part.count(b"\r--")
    dsn = _DSN.search(part) if b"delivery-status" in part.lower() else None
    if dsn:
        n += len(_BLANK.findall(part, dsn.end()))
    return n


def parse_part(raw: bytes) -> tuple[bytes, bool]:
    """(the first :data:`PARSE_LIMIT` bytes of ``raw`` cut at a line end, whether it was cut)."""
    if len(raw) <= PARSE_LIMIT:
        return raw, False
    part = raw[:PARSE_LIMIT]
    return part[: max(part.rfind(b"\n"), part.rfind(b"\r")) + 1] or part, True


def _parse(raw: bytes) -> tuple[Message, str | None, bool]:
    """(the parsed mail, why it could not be parsed or None, whether it was cut)."""
    part, cut = parse_part(raw)
    low = part.lower()  # the container pattern is tried only where it can match (it costs at every byte)
    if (b"multipart/" in low or b"message/" in low) and len(_CONTAINER.findall(part)) > MAX_CONTAINERS:
        why = f"sie besteht aus zu vielen ineinander verschachtelten Teilen (mehr als {MAX_CONTAINERS})"
    elif _entities(part) > MAX_ENTITIES:
        why = f"sie besteht aus zu vielen Teilen (mehr als {MAX_ENTITIES})"
    else:
        try:
            return email.message_from_bytes(part, policy=READ_POLICY), None, cut
        except RecursionError:
            why = "sie ist zu tief verschachtelt (zu viele ineinander steckende Teile)"
        except Exception as exc:
            why = f"ihr Aufbau (MIME) ist fehlerhaft ({type(exc).__name__})"
    try:  # the headers alone, for the sender
        msg = email.message_from_bytes(header_block(raw) + b"\r\n\r\n", policy=READ_POLICY)
    except Exception:  # pragma: no cover
        msg = EmailMessage()
    return msg, why, cut




_BLANK_RUN = re.compile(r"\n[ \t\r\f\v]*(?:\n[ \t\r\f\v]*)+\n")


def _first_lines(text: str, n: int) -> tuple[str, bool]:
    """(``text`` up to and including its ``n``-th non-empty line, whether more followed)."""
    seen = 0
    for m in re.finditer(r"[^\n]*\n?", text):
        if m.group(0).strip():
            seen += 1
            if seen == n:
                rest = text[m.end():]
                return text[: m.end()].rstrip("\n"), bool(rest.strip())
    return text, False


def read_all(raws: list[bytes], reader: Callable[[bytes], ReadMail] | None = None) -> list[ReadMail]:
    """``reader`` (default :func:`read_mail`) of every raw mail, in order: the task of a
    reading worker process (``bot.service.stages.readpool``)."""
    reader = reader or read_mail
    return [reader(raw) for raw in raws]


def read_mail(raw: bytes) -> ReadMail:
    """Parse raw mail bytes into a :class:`ReadMail`.

    Never raises on bad input: whatever cannot be read becomes "" / None /
    [] and a short note is added to ``defects``; when the structure cannot be
    parsed at all (too deep, too many parts, a parser error) the sender,
    subject and Message-ID still come from the raw header block and
    ``unreadable`` says why.  ``raw`` must be bytes (a ``str`` is encoded as
    UTF-8 with surrogateescape).  Only the first :data:`PARSE_LIMIT` bytes are
    parsed and the first :data:`MAX_TEXT` characters of text read, of which ``new_text``
    keeps the first :data:`MAX_LINES` non-empty lines (``cut`` when anything was left).
    """
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    raw = bytes(raw)
    sha = hashlib.sha256(raw).hexdigest()
    defects: list[str] = []
    msg, unreadable, cut = _parse(raw)
    if unreadable:
        defects.append(f"parse: {unreadable}")

    sender = read_sender(msg)
    from_name, from_addr = sender.name, sender.addr
    defects += sender.defects

    to: list[str] = []
    try:
        values = []
        for name in ("To", "Cc"):
            try:
                values += [str(v) for v in (msg.get_all(name) or [])]
            except Exception:
                values.append(raw_header(msg, name))
        to = [a.lower() for _, a in addresses(values)]
    except Exception as exc:
        defects.append(f"to: {exc!r}")

    subject = header_text(msg, "Subject")
    subject = re.sub(r"[\x00-\x1f\x7f]+", " ", re.sub(r"\s*\n\s*", " ", subject))[:MAX_SUBJECT].strip()
    message_id = msgid(raw_header(msg, "Message-ID"))
    in_reply_to = msgid(raw_header(msg, "In-Reply-To"))
    references = MSGID_RE.findall(raw_header(msg, "References"))
    date = mail_date(raw_header(msg, "Date"))

    text = ""
    if not unreadable:
        try:
            text, unreadable = _body(msg)
        except Exception as exc:  # pragma: no cover - _body catches itself
            defects.append(f"body: {exc!r}")
            text, unreadable = "", f"ihr Text ließ sich nicht lesen ({type(exc).__name__})"
        if len(text) > MAX_TEXT:
            text = text[:MAX_TEXT]
            text = text[: text.rfind("\n") + 1] or text
            cut = True
        if cut and not text.strip() and not unreadable:
            unreadable = f"sie ist sehr groß ({len(raw) // 1024} KB), und ihr Anfang enthält keinen Text"
    try:  # quotes above the fresh text (bottom posting) are allowed for, not a whole book;
        # runs of empty lines count as one (mail-parser-reply's patterns crawl over thousands)
        fresh = new_text(_first_lines(_BLANK_RUN.sub("\n\n", text), 10 * MAX_LINES)[0])
    except Exception as exc:  # pragma: no cover
        defects.append(f"new_text: {exc!r}")
        fresh = text
    fresh, more = _first_lines(fresh, MAX_LINES)
    cut = cut or more
    try:
        auto = auto_reason(msg, from_addr)
    except Exception as exc:  # pragma: no cover
        defects.append(f"auto: {exc!r}")
        auto = None
    try:
        defects += [type(d).__name__ for d in getattr(msg, "defects", [])]
    except Exception:
        pass

    return ReadMail(
        from_addr=from_addr,
        from_name=from_name,
        to=to,
        subject=subject,
        message_id=message_id,
        in_reply_to=in_reply_to,
        references=references,
        date=date,
        text=text,
        new_text=fresh,
        auto=auto,
        raw_sha256=sha,
        defects=defects,
        unreadable=unreadable,
        cut=cut,
        from_problem=sender.problem,
        claimed=sender.claimed,
    )

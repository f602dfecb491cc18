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
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from email.message import EmailMessage, Message

import html2text
from mailparser_reply import EmailReplyParser

__all__ = ["ReadMail", "read_mail", "body_text", "new_text", "auto_reason", "html_to_text"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReadMail:
    """One incoming mail, decoded.

    ``from_addr`` is the lower-case bare address ("" if unreadable);
    ``to`` holds the lower-case addresses of To *and* Cc (a bot that is only
    Cc'd still finds its address); ``subject`` is RFC 2047 decoded, folded
    onto one line; ``message_id``/``in_reply_to`` keep their angle brackets; ``references``
    is a list of ``<id>`` strings; ``date`` is timezone-aware or None;
    ``text`` is the whole body as text, ``new_text`` only the freshly
    written part; ``auto`` is a reason string when the mail is an automatic
    message (never answer it) else None; ``raw_sha256`` is the hex sha256 of
    the raw bytes; ``defects`` lists what the parser found broken
    (informational only).
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


# --------------------------------------------------------------------------
# header helpers


class _ReadPolicy(email.policy.EmailPolicy):
    """``policy.default`` whose parsed header values are remembered.

    ``EmailMessage`` parses a header again on every access (``get_content_type``
    alone reads Content-Type about ten times per mail while the body is found);
    the parsed values are immutable, so the same raw header (``text/plain;
    charset=utf-8`` in nearly every mail) is parsed once per process."""

    def header_fetch_parse(self, name, value):
        if hasattr(value, "name"):
            return value
        return _parsed_header(self, name, value)


@lru_cache(maxsize=4096)
def _parsed_header(policy: email.policy.EmailPolicy, name: str, value: str):
    return email.policy.EmailPolicy.header_fetch_parse(policy, name, value)


_READ_POLICY = _ReadPolicy()

_MSGID_RE = re.compile(r"<[^<>\s]+>")


def _header(msg: Message, name: str) -> str:
    """Return header ``name`` as a decoded str ("" if absent or unreadable)."""
    try:
        value = msg.get(name)
    except Exception:  # broken encoded words etc.
        try:
            value = msg.get_all(name, failobj=[None])[0]
        except Exception:
            return ""
    if value is None:
        return ""
    try:
        return str(value).strip()
    except Exception:
        return ""


def _raw_header(msg: Message, name: str) -> str:
    """Header value without any parsing (works for headers the policy rejects)."""
    for key, value in msg.raw_items() if hasattr(msg, "raw_items") else msg.items():
        if key.lower() == name.lower():
            return str(value).strip()
    return ""


def _msgid(value: str) -> str | None:
    found = _MSGID_RE.search(value or "")
    if found:
        return found.group(0)
    value = (value or "").strip()
    return f"<{value}>" if value and " " not in value else None


def _addresses(values: list[str]) -> list[tuple[str, str]]:
    try:
        return [(n, a) for n, a in email.utils.getaddresses(values) if a]
    except Exception:
        return []


def _date(value: str) -> datetime | None:
    if not value:
        return None
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except Exception:
        return None
    if parsed is None or parsed.tzinfo is None:
        return None  # "-0000" / no zone: unknown offset, do not guess
    return parsed


# --------------------------------------------------------------------------
# body


_MD_UNESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!])")


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
        # keep table cells apart ("A B", not "AB") without Markdown tables
        text = h.handle(re.sub(r"(?i)</t[dh]\s*>", r" \g<0>", html))
        text = _MD_UNESCAPE.sub(r"\1", text)
    except Exception:
        log.exception("html2text failed")
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
        return ""
    try:
        text = _part_text(part)
    except Exception:
        log.exception("could not decode body part")
        return ""
    if part.get_content_subtype() == "html":
        text = html_to_text(text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


# --------------------------------------------------------------------------
# new_text: strip quotes, reply headers, signatures

_SEP = r"[-_=*]{2,}"
_ORIGINAL_RE = re.compile(
    rf"^\s*{_SEP}\s*(Urspr(ü|ue)ngliche Nachricht|Original\s*Message|Originalnachricht)\s*{_SEP}\s*$",
    re.IGNORECASE,
)
_FORWARD_RE = re.compile(
    rf"^\s*({_SEP}\s*(Forwarded message|Weitergeleitete Nachricht)\s*{_SEP}"
    r"|(Begin forwarded message|Anfang der weitergeleiteten Nachricht)\s*:)\s*$",
    re.IGNORECASE,
)
_DE_WROTE_RE = re.compile(r"^\s*Am\s.*\b(schrieb|geschrieben)\b.*:\s*$", re.IGNORECASE)
_DE_WROTE_START = re.compile(r"^\s*Am\s", re.IGNORECASE)
_DE_WROTE_END = re.compile(r"\b(schrieb|geschrieben)\b.*:\s*$", re.IGNORECASE)
_EN_WROTE_RE = re.compile(r"^\s*On\s.*\bwrote:\s*$", re.IGNORECASE)
_EN_WROTE_START = re.compile(r"^\s*On\s", re.IGNORECASE)
_EN_WROTE_END = re.compile(r"\bwrote:\s*$", re.IGNORECASE)
_FROM_LINE = re.compile(r"^\s*\**\s*(Von|From)\s*:\**\s*\S", re.IGNORECASE)
_HEADER_LINE = re.compile(
    r"^\s*\**\s*(Gesendet|Sent|Datum|Date|An|To|Betreff|Subject|Cc)\s*:", re.IGNORECASE
)
_UNDERLINE = re.compile(r"^\s*_{10,}\s*$")
_QUOTED = re.compile(r"^\s*>")
_SIGNATURE = re.compile(r"^--\s?$")

_reply_parser = EmailReplyParser(languages=["de", "en"])

# The bot's own acknowledgement pasted back WITHOUT quote marks or reply header (some
# clients do that): "  Hauptzug: mondE" / "Ersatzzug 1: ..." followed by a "    -> ..."
# line, or its intro line. The copy starts at its "Hallo ...," greeting.
_OWN_MOVE = re.compile(r"^\s*(Hauptzug|Ersatzzug\s*\d+)\s*:", re.IGNORECASE)
_OWN_RESULT = re.compile(r"^\s*->\s")
_OWN_INTRO = re.compile(
    r"^\s*(ich habe deine Züge für Runde\s+\d+\b.*so gelesen:|in deiner Mail habe ich keinen Zug gefunden\."
    r"|diese Mail ersetzt deine frühere Einsendung\b)", re.IGNORECASE)
_OWN_SECTION = re.compile(r"^\s*Partie\s+\S+\s+\(.*\)\s*:\s*$", re.IGNORECASE)
_OWN_GREETING = re.compile(r"^\s*Hallo\b[^:]*,\s*$", re.IGNORECASE)


def _own_mail_at(lines: list[str], i: int) -> bool:
    """Does a pasted copy of the bot's acknowledgement show at line ``i``?"""
    if _OWN_INTRO.match(lines[i]):
        return True
    if _OWN_MOVE.match(lines[i]):
        # a multi-line move (Crossword) goes on in indented lines before its "->" line
        for nxt in (l for l in lines[i + 1 : i + 16] if l.strip()):
            if _OWN_RESULT.match(nxt):
                return True
            if not nxt[:1].isspace():
                return False
    return False


def _own_mail_start(lines: list[str], i: int) -> int:
    """First line of the bot's mail whose marker is at ``i`` (its greeting, section lines)."""
    k = i
    while k > 0:
        prev = lines[k - 1]
        if not prev.strip() or _OWN_SECTION.match(prev) or _OWN_INTRO.match(prev):
            k -= 1
        elif _OWN_GREETING.match(prev):
            return k - 1
        else:
            break
    return k


def _is_reply_header(lines: list[str], i: int) -> bool:
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    if _ORIGINAL_RE.match(line):
        return True
    if _DE_WROTE_RE.match(line) or _EN_WROTE_RE.match(line):
        return True
    # "Am 01.12.2026 um 10:00 schrieb Spielleiter\n<bot@x>:" wrapped over two lines
    if _DE_WROTE_START.match(line) and nxt and _DE_WROTE_END.search(line + " " + nxt) and (
        _DE_WROTE_END.search(nxt) or re.search(r"\b(schrieb|geschrieben)\b", line)
    ):
        return True
    if _EN_WROTE_START.match(line) and nxt and _EN_WROTE_END.search(nxt):
        return True
    if _FROM_LINE.match(line):
        # Outlook block: Von:/From: followed by Gesendet:/Sent:/An:/... within 4 lines
        return any(_HEADER_LINE.match(l) for l in lines[i + 1 : i + 5])
    return False


def _header_block_end(lines: list[str], i: int) -> int:
    """Index of the first line after a header block starting at ``i``."""
    j = i + 1
    while j < len(lines) and (
        _FROM_LINE.match(lines[j]) or _HEADER_LINE.match(lines[j]) or re.match(r"^\s*\S+\s*:\s", lines[j])
    ):
        j += 1
    return j


def _cut(lines: list[str]) -> tuple[list[str], list[str] | None]:
    """Cut at the first reply header/signature; return (kept, forwarded_rest)."""
    for i, line in enumerate(lines):
        if _SIGNATURE.match(line):
            return lines[:i], None
        if _FORWARD_RE.match(line):
            return lines[:i], lines[_header_block_end(lines, i) :]
        if _own_mail_at(lines, i):
            return lines[: _own_mail_start(lines, i)], None
        if _is_reply_header(lines, i):
            # an Outlook "_____" separator directly above belongs to the header
            k = i
            while k > 0 and (not lines[k - 1].strip() or _UNDERLINE.match(lines[k - 1])):
                k -= 1
            if k < i and any(_UNDERLINE.match(l) for l in lines[k:i]):
                return lines[:k], None
            return lines[:i], None
    return lines, None


def _library_cut(lines: list[str]) -> list[str]:
    """Second pass with mail-parser-reply's header detection (de + en).

    The library normalises the text (strips every line), so its result is
    mapped back onto our lines by counting non-empty lines; signature and
    disclaimer heuristics of the library are NOT used (a line "Grüße" can
    be a legal move in a word game).
    """
    text = "\n".join(lines)
    if not text.strip():
        return lines
    try:
        parsed = _reply_parser.read(text)
        if not parsed.replies:
            return lines
        first = parsed.replies[0].content
    except Exception:
        log.exception("mail-parser-reply failed")
        return lines
    keep = sum(1 for l in first.split("\n") if l.strip())
    total = sum(1 for l in lines if l.strip())
    if keep >= total or keep == 0:
        return lines
    seen = 0
    for idx, line in enumerate(lines):
        if line.strip():
            seen += 1
            if seen == keep:
                return lines[: idx + 1]
    return lines


def _tidy(lines: list[str]) -> str:
    lines = [l.rstrip() for l in lines if not _QUOTED.match(l)]
    return "\n".join(lines).strip("\n")


def new_text(text: str) -> str:
    """What the sender wrote now: ``text`` without quotes, reply headers, signature.

    Removes lines starting with ``>``; everything from a reply header on
    (``Am ... schrieb ...:`` also wrapped over two lines,
    ``-----Ursprüngliche Nachricht-----``, Outlook ``Von:``/``Gesendet:``
    blocks, ``On ... wrote:``, ``-----Original Message-----``,
    ``From:``/``Sent:``); everything after a signature delimiter line
    (``-- `` or ``--``); everything from a pasted copy of the bot's own
    acknowledgement on (``Hauptzug:``/``Ersatzzug n:`` followed by a ``->``
    line, or its intro line; quoted without ``>`` and without a reply header),
    so an old move in it is never read as a new one.  A forwarded message's
    content is only used when nothing was written above the forward marker.
    Never raises.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept, forwarded = _cut(lines)
    kept = _library_cut(kept)
    result = _tidy(kept)
    if not result.strip() and forwarded is not None:
        return new_text("\n".join(forwarded))
    return result


# --------------------------------------------------------------------------
# automatic mails

_PRECEDENCE_AUTO = {"bulk", "junk", "list", "auto_reply", "auto-reply"}
_DAEMON_LOCALPARTS = {"mailer-daemon", "postmaster"}


def auto_reason(msg: Message, from_addr: str) -> str | None:
    """Why ``msg`` must never be answered, or None for a normal mail.

    Checks ``Auto-Submitted`` (anything but ``no``), ``Precedence``
    (bulk/junk/list/auto_reply), ``X-Autoreply``, ``X-Autorespond``, an
    empty ``Return-Path: <>``, MAILER-DAEMON/postmaster senders and
    ``multipart/report`` delivery status notifications.
    """
    auto_submitted = _raw_header(msg, "Auto-Submitted").lower()
    if auto_submitted and auto_submitted.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto_submitted}"
    precedence = _raw_header(msg, "Precedence").lower()
    if precedence in _PRECEDENCE_AUTO:
        return f"Precedence: {precedence}"
    for name in ("X-Autoreply", "X-Autorespond"):
        if name in msg:  # present at all (even empty) means auto-reply
            value = _raw_header(msg, name)
            if value.lower() not in ("no", "false", "0"):
                return f"{name}: {value}".rstrip()
    if "Return-Path" in msg and re.fullmatch(r"<\s*>", _raw_header(msg, "Return-Path") or "x"):
        return "Return-Path: <>"
    local = from_addr.split("@", 1)[0].lower() if from_addr else ""
    if local in _DAEMON_LOCALPARTS:
        return f"sender {from_addr}"
    try:
        ctype = msg.get_content_type()
    except Exception:
        ctype = ""
    if ctype == "multipart/report":
        report = (msg.get_param("report-type") or "") if hasattr(msg, "get_param") else ""
        return f"multipart/report {report}".strip()
    return None


# --------------------------------------------------------------------------


def read_mail(raw: bytes) -> ReadMail:
    """Parse raw mail bytes into a :class:`ReadMail`.

    Never raises on bad input: whatever cannot be read becomes "" / None /
    [] and a short note is added to ``defects``.  ``raw`` must be bytes (a
    ``str`` is encoded as UTF-8 with surrogateescape).
    """
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    raw = bytes(raw)
    sha = hashlib.sha256(raw).hexdigest()
    defects: list[str] = []
    try:
        msg = email.message_from_bytes(raw, policy=_READ_POLICY)
    except Exception as exc:  # pragma: no cover - the parser is very tolerant
        defects.append(f"parse: {exc!r}")
        msg = EmailMessage()

    from_name, from_addr = "", ""
    try:
        found = _addresses([_header(msg, "From")])
        if found:
            from_name, from_addr = found[0]
    except Exception as exc:
        defects.append(f"from: {exc!r}")
    from_addr = from_addr.strip().lower()

    to: list[str] = []
    try:
        values = []
        for name in ("To", "Cc"):
            try:
                values += [str(v) for v in (msg.get_all(name) or [])]
            except Exception:
                values.append(_raw_header(msg, name))
        to = [a.lower() for _, a in _addresses(values)]
    except Exception as exc:
        defects.append(f"to: {exc!r}")

    subject = _header(msg, "Subject")
    subject = re.sub(r"\s*\n\s*", " ", subject)
    message_id = _msgid(_raw_header(msg, "Message-ID"))
    in_reply_to = _msgid(_raw_header(msg, "In-Reply-To"))
    references = _MSGID_RE.findall(_raw_header(msg, "References"))
    date = _date(_raw_header(msg, "Date"))

    try:
        text = body_text(msg)
    except Exception as exc:  # pragma: no cover - body_text catches itself
        defects.append(f"body: {exc!r}")
        text = ""
    try:
        fresh = new_text(text)
    except Exception as exc:  # pragma: no cover
        defects.append(f"new_text: {exc!r}")
        fresh = text
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
    )

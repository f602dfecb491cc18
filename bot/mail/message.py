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
from email import _header_value_parser as parser
from functools import lru_cache
from email.message import EmailMessage, Message

import html2text
from mailparser_reply import EmailReplyParser

__all__ = ["ReadMail", "Sender", "read_sender", "read_mail", "read_all", "body_text", "new_text", "auto_reason",
           "html_to_text", "header_block", "raw_headers", "parse_part", "MAX_TEXT", "MAX_LINES", "PARSE_LIMIT",
           "MAX_CONTAINERS", "MAX_ENTITIES"]

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
        return found.group(0) if found.group(0).isprintable() else None
    value = (value or "").strip()
    return f"<{value}>" if value and value.isprintable() and not re.search(r"[\s<>]", value) else None


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
# new_text: strip quotes, reply headers, signatures

_SEP = r"[-_=*]{2,}"
# Reply headers of the mail clients in the languages players write in: German, English,
# Dutch (RONDO, seed 004) and French; Outlook, Gmail, Apple Mail, Thunderbird, GMX/web.de.
_ORIGINAL_RE = re.compile(
    rf"^\s*{_SEP}\s*(Urspr(ü|ue)ngliche Nachricht|Original\s*Message|Originalnachricht"
    r"|Oorspronkelijk bericht|Origineel bericht|Message d'origine|Message original)"
    rf"\s*{_SEP}\s*$",
    re.IGNORECASE,
)
_FORWARD_RE = re.compile(
    rf"^\s*({_SEP}\s*(Forwarded message|Weitergeleitete Nachricht|Doorgestuurd bericht|Message transf[ée]r[ée])"
    rf"\s*{_SEP}"
    r"|(Begin forwarded message|Anfang der weitergeleiteten Nachricht|Begin doorgestuurd bericht"
    r"|D[ée]but du message (r[ée]exp[ée]di[ée]|transf[ée]r[ée]))\s*:)\s*$",
    re.IGNORECASE,
)
#: "Am ... schrieb ...:", "Op ... schreef ...:" (Dutch), "Le ... a écrit :" (French)
_DE_WROTE_RE = re.compile(r"^\s*(Am|Op|Le)\s.*\b(schrieb|geschrieben|schreef|geschreven|a\s+écrit|écrit)\b.*:\s*$",
                          re.IGNORECASE)
_DE_WROTE_START = re.compile(r"^\s*(Am|Op|Le)\s", re.IGNORECASE)
_DE_WROTE_END = re.compile(r"\b(schrieb|geschrieben|schreef|geschreven|a\s+écrit|écrit)\b.*:\s*$", re.IGNORECASE)
_DE_WROTE_WORD = re.compile(r"\b(schrieb|geschrieben|schreef|geschreven|a\s+écrit|écrit)\b", re.IGNORECASE)
_EN_WROTE_RE = re.compile(r"^\s*On\s.*\bwrote:\s*$", re.IGNORECASE)
_EN_WROTE_START = re.compile(r"^\s*On\s", re.IGNORECASE)
_EN_WROTE_END = re.compile(r"\bwrote:\s*$", re.IGNORECASE)
#: Outlook's header block: Von/From/Van/De, then Gesendet/Sent/Verzonden/Envoyé, An/To/Aan/À,
#: Betreff/Subject/Onderwerp/Objet ... (French Outlook writes a space before the colon)
_FROM_LINE = re.compile(r"^\s*\**\s*(Von|From|Van|De)\s*:\**\s*\S", re.IGNORECASE)
_HEADER_LINE = re.compile(
    r"^\s*\**\s*(Gesendet|Sent|Verzonden|Envoy[ée]|Datum|Date|An|To|Aan|À|A|Betreff|Subject|Onderwerp|Objet"
    r"|Cc)\s*:", re.IGNORECASE
)
_UNDERLINE = re.compile(r"^\s*_{10,}\s*$")
_QUOTED = re.compile(r"^\s*>")
_SIGNATURE = re.compile(r"^--\s?$")
#: The signature line a phone's mail app writes below the fresh text ("Von meinem iPhone
#: gesendet", "Sent from my Galaxy", "Verstuurd vanaf mijn iPad"): what follows is no longer
#: the player's (issue 32: it was read as a move above the quote).
_DEVICE = r"[\w-]+(?: [\w-]+){0,3}"  # "iPhone", "Samsung Galaxy S23", "Huawei-Smartphone"
_MOBILE_SIGNATURE = re.compile(
    rf"^\s*(?:Von meinem {_DEVICE} gesendet|Gesendet von meine[mr] {_DEVICE}|Sent from my {_DEVICE}"
    rf"|Verstuurd (?:vanaf|met) mijn {_DEVICE}|Envoy[ée] de mon {_DEVICE})\s*\.?\s*$", re.IGNORECASE)

#: The languages whose reply headers mail-parser-reply looks for: every European language
#: it knows (players use mail clients in many languages, whatever their league's).
REPLY_LANGUAGES = ["de", "en", "nl", "fr", "it", "es", "da", "sv", "pl", "cs"]
_reply_parser = EmailReplyParser(languages=REPLY_LANGUAGES)

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
        _DE_WROTE_END.search(nxt) or _DE_WROTE_WORD.search(line)
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


def _bottom_quote_end(lines: list[str], i: int) -> int | None:
    """Bottom posting (Thunderbird, Apple Mail): when the "wrote" header at ``i`` (one or
    two lines) is followed by ``>`` lines only and then by unquoted text, the index of the
    first line after the quote; else None (the header starts the quoted rest)."""
    line = lines[i]
    if not (_DE_WROTE_START.match(line) or _EN_WROTE_START.match(line)):
        return None
    j = i + 1 if (_DE_WROTE_RE.match(line) or _EN_WROTE_RE.match(line)) else i + 2
    quoted = False
    while j < len(lines) and (not lines[j].strip() or _QUOTED.match(lines[j])):
        quoted = quoted or bool(lines[j].strip())
        j += 1
    if quoted and j < len(lines) and not _SIGNATURE.match(lines[j]):
        return j
    return None


def _cut(lines: list[str]) -> tuple[list[str], list[str] | None]:
    """Cut at the first reply header/signature; return (kept, forwarded_rest). A "wrote"
    header whose ``>`` quote is followed by fresh text (bottom posting) is dropped with
    its quote, and the text below is read."""
    lines = list(lines)
    i = -1
    while i + 1 < len(lines):
        i += 1
        line = lines[i]
        if _SIGNATURE.match(line) or _MOBILE_SIGNATURE.match(line):
            return lines[:i], None
        if _FORWARD_RE.match(line):
            return lines[:i], lines[_header_block_end(lines, i) :]
        if _own_mail_at(lines, i):
            return lines[: _own_mail_start(lines, i)], None
        if _is_reply_header(lines, i):
            end = _bottom_quote_end(lines, i)
            if end is not None:
                del lines[i:end]
                i -= 1
                continue
            # header lines directly above belong to the block (GMX, web.de: "Gesendet:"
            # before "Von:"), as does an Outlook "_____" separator
            while i > 0 and _HEADER_LINE.match(lines[i - 1]) and _FROM_LINE.match(line):
                i -= 1
            k = i
            while k > 0 and (not lines[k - 1].strip() or _UNDERLINE.match(lines[k - 1])):
                k -= 1
            if k < i and any(_UNDERLINE.match(l) for l in lines[k:i]):
                return lines[:k], None
            return lines[:i], None
    return lines, None


def _library_cut(lines: list[str]) -> list[str]:
    """Second pass with mail-parser-reply's header detection (:data:`REPLY_LANGUAGES`).

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
        log.exception("mail-parser-reply gescheitert")
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
_AUTO_HEADERS = ("X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Autogenerated", "X-AutoReply-From",
                 "X-Mail-Autoreply", "X-FC-MachineGenerated")
_LIST_HEADERS = ("List-Id", "List-Unsubscribe")
#: Local parts of machines: mail servers and addresses nobody reads (RFC 3834 section 2).
_MACHINE_LOCAL = re.compile(
    r"(?i)^(mailer[-_.]?daemon|mail[-_.]?daemon|postmaster|mdaemon|no[-_.]?reply|do[-_.]?not[-_.]?reply"
    r"|bounces?(\+.*)?|.+-request|owner-.+|.+-bounces?(\+.*)?)$")
_DAEMON_IN_HEADER = re.compile(r"(?i)(^|[<\s\"(])(mailer[-_.]?daemon|mail[-_.]?daemon|postmaster)(@|>|\s|\)|$)")
#: Subjects of delivery failures (German, English, French, Dutch), at the start of the subject.
FAILURE_SUBJECT = re.compile(
    r"(?i)^\s*("
    r"undelivered mail returned to sender|undeliver(?:able|ed)\b|delivery status notification"
    r"|mail delivery (?:failed|failure|system)|message delivery failure|delivery (?:failure|has failed|failed)"
    r"|returned mail\b|failure notice|(?:mail|message) could not be delivered|mail system error"
    r"|non-?deliver(?:y|able)|delivery (?:delayed|notification)|warning: could not send message|delayed mail"
    r"|unzustellbar|nicht zustellbar|zustellung fehlgeschlagen|fehler bei der zustellung"
    r"|benachrichtigung .ber den zustellstatus|nachricht (?:konnte nicht|nicht) zugestellt"
    r"|(?:mail-)?zustellungs?(?:fehler|problem|bericht)|r.ckl.ufer"
    r"|non remis|non distribu|.chec de (?:la )?(?:remise|distribution|livraison)|rapport de non-remise"
    r"|avis de non-remise|message non d.livr|notification d'.tat de (?:la )?distribution|courrier non distribu"
    r"|onbestelbaar|niet bestelbaar|kan niet worden bezorgd|bezorging (?:mislukt|is mislukt)|niet afgeleverd"
    r"|onbezorgbaar|melding van niet-bezorging|bezorgingsstatusmelding|afleveringsfout)")
#: Subjects of automatic replies (out of office, vacation), at the start, with a colon after.
AUTOREPLY_SUBJECT = re.compile(
    r"(?i)^\s*(automatic reply|auto[- ]?reply|auto[- ]?response|out of (?:the )?office(?: autoreply)?"
    r"|automatische antwort|autom\. antwort|abwesenheitsnotiz|automatische abwesenheitsnotiz|urlaubsantwort"
    r"|r.ponse automatique|absence du bureau|absent du bureau|automatisch antwoord|afwezigheidsbericht"
    r"|buiten kantoor)\s*:")


def auto_reason(msg: Message, from_addr: str) -> str | None:
    """Why ``msg`` must never be answered (RFC 3834 and common practice), or None.

    The reason names the rule: ``Auto-Submitted`` other than ``no``;
    ``Precedence`` bulk/junk/list/auto_reply; a ``List-Id`` or
    ``List-Unsubscribe`` (a mailing list); ``X-Auto-Response-Suppress``;
    ``X-Autoreply``/``X-Autorespond`` and their kin; an empty or
    MAILER-DAEMON/postmaster ``Return-Path``; a machine sender (From or
    Sender: MAILER-DAEMON, postmaster, no-reply, ``-request``, ``owner-``,
    bounces); ``multipart/report``; a delivery-failure subject (German,
    English, French, Dutch; :data:`FAILURE_SUBJECT`) or an automatic-reply
    subject (:data:`AUTOREPLY_SUBJECT`) -- the subject rules not for a mail
    that says ``Auto-Submitted: no`` nor for a subject ending in "?" (a
    player asking "Unzustellbar?").
    """
    auto_submitted = _raw_header(msg, "Auto-Submitted").lower()
    if auto_submitted and auto_submitted.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto_submitted}"
    precedence = _raw_header(msg, "Precedence").lower()
    if precedence in _PRECEDENCE_AUTO:
        return f"Precedence: {precedence}"
    for name in _LIST_HEADERS:
        if name in msg:
            return f"{name} (mailing list)"
    if "X-Auto-Response-Suppress" in msg:
        return f"X-Auto-Response-Suppress: {_raw_header(msg, 'X-Auto-Response-Suppress')}".rstrip()
    for name in _AUTO_HEADERS:
        if name in msg:  # present at all (even empty) means auto-reply
            value = _raw_header(msg, name)
            if value.lower() not in ("no", "false", "0"):
                return f"{name}: {value}".rstrip()
    try:
        ctype = msg.get_content_type()
    except Exception:
        ctype = ""
    if ctype == "multipart/report":
        report = (msg.get_param("report-type") or "") if hasattr(msg, "get_param") else ""
        return f"multipart/report {report}".strip()
    if "Return-Path" in msg:
        rp = _raw_header(msg, "Return-Path")
        if re.fullmatch(r"<\s*>", rp or "x"):
            return "Return-Path: <>"
        if _DAEMON_IN_HEADER.search(rp):
            return f"Return-Path: {rp[:80]}"
    local = from_addr.split("@", 1)[0].lower() if from_addr else ""
    if local and _MACHINE_LOCAL.match(local):
        return f"sender {from_addr}"
    for name in ("From", "Sender"):
        value = _raw_header(msg, name)
        if _DAEMON_IN_HEADER.search(value):
            return f"{name}: {value[:80]}"
    subject = _header(msg, "Subject")
    if auto_submitted or subject.rstrip().endswith("?"):  # "Auto-Submitted: no", or a human's question
        return None
    if FAILURE_SUBJECT.match(subject):
        return f"subject: delivery failure ({subject[:60]})"
    if AUTOREPLY_SUBJECT.match(subject):
        return f"subject: automatic reply ({subject[:60]})"
    return None


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
    n = len(_DELIMITER.findall(part))
    dsn = _DSN.search(part)
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
    if len(_CONTAINER.findall(part)) > MAX_CONTAINERS:
        why = f"sie besteht aus zu vielen ineinander verschachtelten Teilen (mehr als {MAX_CONTAINERS})"
    elif _entities(part) > MAX_ENTITIES:
        why = f"sie besteht aus zu vielen Teilen (mehr als {MAX_ENTITIES})"
    else:
        try:
            return email.message_from_bytes(part, policy=_READ_POLICY), None, cut
        except RecursionError:
            why = "sie ist zu tief verschachtelt (zu viele ineinander steckende Teile)"
        except Exception as exc:
            why = f"ihr Aufbau (MIME) ist fehlerhaft ({type(exc).__name__})"
    try:  # the headers alone, for the sender
        msg = email.message_from_bytes(header_block(raw) + b"\r\n\r\n", policy=_READ_POLICY)
    except Exception:  # pragma: no cover
        msg = EmailMessage()
    return msg, why, cut


#: What a sender address must look like to be answered (at most 254 characters, one @,
#: no white space, no replacement character of a broken encoding).
_ADDRESS = re.compile(r"(?=.{3,254}$)[^\s@<>()\[\],;:\"\\\ufffd]{1,64}@[^\s@<>()\[\],;:\"\\\ufffd]+")


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


# --------------------------------------------------------------------------
# the sender: one parse of From (and Sender) with the header registry


@dataclass(frozen=True)
class Sender:
    """Who a mail says it is from (:func:`read_sender`).

    ``addr``: the lower-case addr-spec of the From mailbox ("" when there is none that
    looks like an address); ``name``: its display name; ``claimed``: every address the
    From and Sender fields name anywhere (addr-specs, display names, comments; lower
    case, ``addr`` first); ``problem``: why the identity is doubtful, in header terms
    (``"From names 2 addresses (a@x, b@y)"``, ``"From also names b@y"``, ``"2 From
    fields"``, ``"Sender b@y is not From"``), else None; ``defects``: parser notes."""

    addr: str = ""
    name: str = ""
    claimed: tuple[str, ...] = ()
    problem: str | None = None
    defects: tuple[str, ...] = ()


#: Anything that looks like an address in a header's text (display names, comments, junk).
_ADDRESS_IN_TEXT = re.compile(r"[^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+")


def _norm_addr(value: str) -> str:
    return value.strip().strip(".").lower()


def _field(value: str) -> tuple[list[tuple[str, str]], list[str], str] | None:
    """The From ``value`` parsed by the header registry (the same parse ``msg["From"]``
    gives): ([(display name, addr-spec)], defects, the decoded text), or None when it
    cannot be parsed. A display name whose encoded words decode to a line break makes the
    registry refuse to build its ``Address``; then the registry's own address-list parser
    (``email._header_value_parser``, which the registry calls) gives the mailboxes."""
    try:
        parsed = _READ_POLICY.header_fetch_parse("From", value)
        return ([(a.display_name or "", a.addr_spec) for a in parsed.addresses],
                [str(d) for d in parsed.defects], str(parsed))
    except Exception:
        pass
    try:
        tokens, _ = parser.get_address_list(value)
        boxes = [(mb.display_name or "", mb.addr_spec or "") for address in tokens.addresses
                 for mb in address.all_mailboxes]
        return boxes, ["line break in a display name"], str(tokens)
    except Exception:
        return None


def _mailboxes(values: list[str]) -> tuple[list[tuple[str, str]], set[str], list[str]]:
    """([(display name, lower-case addr-spec)] of every mailbox in ``values`` (group
    members too), every address-like text anywhere in them, defects)."""
    boxes: list[tuple[str, str]] = []
    seen: set[str] = set()
    defects: list[str] = []
    for value in values:
        # raw 8-bit bytes (RFC 6532 UTF-8, or broken): decoded as UTF-8, the rest U+FFFD
        text = re.sub(r"\r?\n[ \t]*", " ", value.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
        seen.update(_norm_addr(a) for a in _ADDRESS_IN_TEXT.findall(text))
        parsed = _field(text)
        if parsed is None:
            defects.append("from: unreadable")
            continue
        found, notes, decoded = parsed
        defects += [f"from: {d}" for d in notes]
        for display, addr in found:
            seen.update(_norm_addr(a) for a in _ADDRESS_IN_TEXT.findall(display))
            boxes.append((display, _norm_addr(addr)))
        seen.update(_norm_addr(a) for a in _ADDRESS_IN_TEXT.findall(decoded))
    return boxes, seen, defects


def _values(msg: Message, name: str) -> list[str]:
    """Every ``name`` field of ``msg`` as written (unparsed)."""
    items = msg.raw_items() if hasattr(msg, "raw_items") else msg.items()
    return [str(v) for k, v in items if k.lower() == name.lower()]


def read_sender(msg: Message) -> Sender:
    """The sender of ``msg`` (a parsed mail or header block), from ONE parse of its From
    field(s) with the email library's header registry (``policy.default``); Sender
    fields are read the same way. This is the only place the bot reads who a mail is
    from (:func:`read_mail` fills ``ReadMail.from_addr`` from it).

    The identity is doubtful (``problem``) when there is more than one From field, when
    From names more than one mailbox (RFC 5322 allows it only with a Sender; a forger
    uses it to be read as one and verified as the other), when the From field names
    another address than its addr-spec anywhere (``anna@example.org
    <mallory@evil.example>``, ``"anna@example.org" <mallory@evil.example>``, a comment),
    or when a Sender field names another address than From's. Never raises."""
    froms = _values(msg, "From")
    boxes, seen, defects = _mailboxes(froms)
    addr, name = "", ""
    if boxes:
        name, addr = boxes[0]
    name = re.sub(r"[\x00-\x1f\x7f]+", " ", name).strip()  # no line break from an encoded word
    if addr and not _ADDRESS.fullmatch(addr):
        defects.append("from: not an address")
        addr = ""
    valid = list(dict.fromkeys(a for _, a in boxes if _ADDRESS.fullmatch(a)))
    sender_boxes, sender_seen, sender_defects = _mailboxes(_values(msg, "Sender"))
    defects += sender_defects
    sender_addrs = list(dict.fromkeys(a for _, a in sender_boxes if _ADDRESS.fullmatch(a)))
    others = sorted(a for a in seen if a != addr and _ADDRESS.fullmatch(a))
    sender_others = sorted(a for a in sender_seen | set(sender_addrs) if a != addr and _ADDRESS.fullmatch(a))
    claimed = tuple(dict.fromkeys([a for a in (addr, *valid, *others, *sender_others) if a]))
    problem = None
    if len(froms) > 1:
        problem = f"{len(froms)} From fields"
    elif len(valid) > 1:
        problem = f"From names {len(valid)} addresses ({', '.join(valid[:4])})"
    elif addr and others:
        problem = f"From also names {', '.join(others[:4])}"
    elif addr and sender_others:
        problem = f"Sender {', '.join(sender_others[:4])} is not From"
    return Sender(addr=addr, name=name, claimed=claimed, problem=problem, defects=tuple(defects))


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
                values.append(_raw_header(msg, name))
        to = [a.lower() for _, a in _addresses(values)]
    except Exception as exc:
        defects.append(f"to: {exc!r}")

    subject = _header(msg, "Subject")
    subject = re.sub(r"[\x00-\x1f\x7f]+", " ", re.sub(r"\s*\n\s*", " ", subject))[:MAX_SUBJECT].strip()
    message_id = _msgid(_raw_header(msg, "Message-ID"))
    in_reply_to = _msgid(_raw_header(msg, "In-Reply-To"))
    references = _MSGID_RE.findall(_raw_header(msg, "References"))
    date = _date(_raw_header(msg, "Date"))

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

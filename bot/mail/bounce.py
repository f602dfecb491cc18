"""Recognising bounces (non-delivery reports) and finding what they are about.

No database here: :func:`find_bounce` turns the raw bytes of one incoming mail into a
:class:`Bounce` (or None for a mail that is no bounce): the recipients that failed
(permanently or for now), the Message-IDs the report names (the bounced mail's own
first), and a one-line summary.

Which addresses failed is found by ``flufl.bounce``, GNU Mailman's bounce detectors
(RFC 3464 DSNs and the formats of Postfix, Exim, qmail, Exchange, Yahoo and others,
and its simple matcher's plain-text reports); they also decide that a mail is a report
when its headers do not say so (a plain-text "Your message could not be delivered to"
from an ordinary sender). Our own code comes after them: it recognises reports by their
headers (DSN, MAILER-DAEMON, a failure subject), matches a report to the outbox mail it
is about (Message-IDs), and reads the recipients of reports the detectors miss (German
"Unzustellbar" notices of Exchange, Postfix texts without a DSN part).
"""

from __future__ import annotations

import email
import email.policy
import logging
import re
from dataclasses import dataclass, field
from email.message import Message
from email.parser import HeaderParser

from flufl.bounce import all_failures

from bot.mail.automail import FAILURE_SUBJECT
from bot.mail.message import ReadMail, _part_text, header_block, parse_part, raw_headers, read_mail

__all__ = ["Bounce", "find_bounce"]

log = logging.getLogger(__name__)

_DAEMON = re.compile(r"(?i)(^|[<\s\"(])(mailer[-_.]?daemon|mail[-_.]?daemon|postmaster)(@|>|\s|\)|$)")
_PERMANENT = re.compile(r"\b5\.\d{1,3}\.\d{1,3}\b|\b5[0-5]\d[\s-]")
_TEMPORARY = re.compile(r"\b4\.\d{1,3}\.\d{1,3}\b|\b4[2-5]\d[\s-]|(?i:\bdelay(ed)?\b|verz.gert|retard)")
_MSGID = re.compile(r"<([^<>\s@]+@[^<>\s]+)>")
_OUR_BARE_ID = re.compile(r"\b([0-9a-f]{32}\.spielleiter@[A-Za-z0-9.-]+[A-Za-z0-9])")
_POSTFIX_RCPT = re.compile(r"<([^<>\s@]+@[^<>\s]+)>\s*:")
_ADDR = re.compile(r"[^\s<>;:,\"'()\[\]]+@[^\s<>;:,\"'()\[\]]+")
_WARNING = re.compile(r"(?i)\b(warning|delayed|delay|not yet been delivered|no action is required|verz.gert"
                      r"|noch nicht zugestellt|retard|vertraagd)\b")
_MSGID_LINE = re.compile(r"(?im)^.*message-id.*$")


@dataclass(frozen=True)
class Bounce:
    """A non-delivery report.

    ``why``: what made it a bounce (``multipart/report``, the sender, the subject);
    ``recipients``: lower-case addresses that failed (may be empty), of them
    ``permanent`` the ones that failed for good and ``temporary`` the ones still tried
    (flufl.bounce, else from the status codes of the text); ``message_ids``:
    ``<id>`` strings named in the report, the attached original's Message-ID first,
    then any other found in the headers or the body; ``status``/``diagnostic`` from the
    DSN (or None); ``summary``: one line (at most 300 characters) for the game master;
    ``delayed``: only a delay warning (``Action: delayed``), not a failure.
    """

    why: str
    recipients: list[str] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)
    status: str | None = None
    diagnostic: str | None = None
    summary: str = ""
    #: only a delay warning (every DSN block says ``Action: delayed``, or only temporary
    #: failures): the mail may still arrive
    delayed: bool = False
    permanent: list[str] = field(default_factory=list)
    temporary: list[str] = field(default_factory=list)


def _why(msg: Message, rm: ReadMail) -> str | None:
    try:
        if msg.get_content_type() == "multipart/report" and \
                (msg.get_param("report-type") or "").lower() == "delivery-status":
            return "multipart/report delivery-status"
    except Exception:
        pass
    for name in ("From", "Sender", "Return-Path"):
        value = str(msg.get(name, "") or "")
        if _DAEMON.search(value):
            return f"sender {value.strip()[:80]}"
    return _why_subject(rm)


def _why_subject(rm: ReadMail) -> str | None:
    if FAILURE_SUBJECT.match(rm.subject or "") and rm.auto:  # a player's "Unzustellbar?" is no report
        return f"subject {rm.subject[:80]!r}"
    return None


#: What a header block must contain for :func:`_why` to find more than the subject: a
#: ``multipart/report`` or a mail server's name (every match of :data:`_DAEMON` contains one).
_HINT = re.compile(rb"(?i)report|daemon|postmaster")


def find_bounce(raw: bytes, rm: ReadMail | None = None) -> Bounce | None:
    """The bounce in ``raw`` (bytes of one mail), or None when it is no bounce.

    A bounce is a mail in which flufl.bounce's detectors (every one of them, in the
    library's order: :func:`flufl.bounce.all_failures`) find a failed recipient, a DSN
    (``multipart/report; report-type=delivery-status``), a mail from (or with the
    Return-Path of) MAILER-DAEMON/postmaster, or one whose subject starts like a
    non-delivery report (:data:`bot.mail.message.FAILURE_SUBJECT`: German, English,
    French, Dutch). The detectors are asked about a mail whose headers say nothing only
    when its text has a word of such reports (:data:`_REPORT_WORDS`; they cost about a
    millisecond a mail).
    The bounced mail's Message-ID is taken from an attached ``message/rfc822`` or
    ``text/rfc822-headers`` part, else from anywhere in the mail. ``rm`` (the same
    mail already read) saves a second parse. Never raises on bad input.
    """
    try:
        rm = rm or read_mail(raw)
        if rm.unreadable and not rm.auto:
            return None
        raw = bytes(raw)
        # the header block decides (every mail is asked); parsed only when it names a
        # report or a mail server (what _why looks for), else the subject alone can tell
        why = _why(raw_headers(raw), rm) if _HINT.search(header_block(raw)) else _why_subject(rm)
        if why is None and not _report_words(rm.text[:BOUNCE_LIMIT]):
            return None
        part = _report_part(bytes(raw))
        msg = email.message_from_bytes(part, policy=email.policy.compat32)
        detected = _detected(msg)
        if why is None:
            if not any(detected):
                return None
            why = "flufl.bounce: failed recipients in the text"
        return _analyse(msg, rm, why, part, detected)
    except Exception:  # a bounce we cannot read is still no reason to crash
        return None


#: Words of the reports flufl.bounce's text detectors read (English, French, German,
#: Dutch): a mail without any of them, and without a report's headers, is not given to
#: the detectors (a player's move is not). Looked for in the text in lower case, each as
#: a plain substring of its UTF-8 bytes (an ASCII word matches there exactly where it
#: matches in the text; a regular expression of these alternatives tried every
#: alternative at every character, and a search in a text with an umlaut is slower than
#: in bytes), ``d.livr`` (``délivr``: any letter in the middle) with :data:`_DELIVR`;
#: the status codes (:data:`_REPORT_CODES`) as written.
_REPORT_WORDS = tuple(w.encode() for w in (
    "deliver", "remis", "distribu", "zustell", "bestel", "bezorg", "afgeleverd", "undeliver", "bounce", "returned",
    "permanent", "fail", "could not", "couldn't", "unable", "not reach", "no such", "unknown", "mailbox",
    "recipient", "n'a pas pu", "konnte nicht", "quota", "rejected", "refused", "error",
    # the start lines of flufl.bounce's text detectors that say none of the above
    "following addresses", "did not receive", "your message", "machine generated", "email server", "viruswall",
    "advisory"))
_DELIVR = re.compile(r"d.livr")
#: SMTP status codes in a report's text (``550``, ``5.1.1``), each a word of its own: a
#: match of this pattern not preceded by a word character (``\w``; checked by hand: a
#: look-behind in the pattern took the literal ``5`` to search for from the engine, and
#: the search cost a quarter of a millisecond in a mail of a few KB).
_REPORT_CODES = re.compile(r"5(?:\d\d\b|\.\d+\.\d+)")


def _status_code(text: str) -> bool:
    r"""Does ``text`` have a status code (:data:`_REPORT_CODES`) that is a word of its own
    (as ``(?<!\w)5(?:\d\d\b|\.\d+\.\d+)`` finds it)?"""
    m = _REPORT_CODES.search(text)
    while m is not None:
        i = m.start()
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
            return True
        m = _REPORT_CODES.search(text, i + 1)
    return False


def _report_words(text: str) -> bool:
    """Does ``text`` have a word of a delivery report (:data:`_REPORT_WORDS` or
    :data:`_DELIVR`, any case, or a status code, :func:`_status_code`)?"""
    low = text.lower()
    data = low.encode("utf-8", "surrogatepass")
    return any(w in data for w in _REPORT_WORDS) or _DELIVR.search(low) is not None or _status_code(text)


#: Bytes of a mail that go to the bounce detectors (a report and the start of the
#: returned mail fit well; flufl.bounce matches each of its patterns against every body
#: line, so 1 MB of short lines took 7 s; found by the fuzz bench).
BOUNCE_LIMIT = 64 * 1024
_BLANK_RUN = re.compile(rb"((?:\r\n|\n|\r(?!\n)){2})(?:[ \t]*(?:\r\n|\n|\r(?!\n)))+")


def _report_part(raw: bytes) -> bytes:
    """The first :data:`BOUNCE_LIMIT` bytes of ``raw``, cut at a line end, with runs of
    blank lines folded into one."""
    part = parse_part(raw)[0][:BOUNCE_LIMIT]
    if len(part) == BOUNCE_LIMIT:
        part = part[: max(part.rfind(b"\n"), part.rfind(b"\r")) + 1] or part
    return _BLANK_RUN.sub(rb"\1", part)


def _add(seq: list[str], value: str) -> None:
    if value and value not in seq:
        seq.append(value)


def _analyse(msg: Message, rm: ReadMail, why: str, raw: bytes,
             detected: tuple[list[str], list[str]]) -> Bounce:
    ids: list[str] = []
    rcpts: list[str] = []
    status = diagnostic = None
    actions: list[str] = []
    texts: list[str] = []
    own_id = rm.message_id
    for part in msg.walk():
        ctype = part.get_content_type()
        if ctype == "message/rfc822":
            inner = part.get_payload()
            inner = inner[0] if isinstance(inner, list) and inner else inner
            if isinstance(inner, Message):
                for m in _MSGID.findall(str(inner.get("Message-ID", ""))):
                    _add(ids, f"<{m}>")
        elif ctype == "text/rfc822-headers":
            hdr = HeaderParser().parsestr(_part_text(part))
            for m in _MSGID.findall(str(hdr.get("Message-ID", ""))):
                _add(ids, f"<{m}>")
        elif ctype == "message/delivery-status":
            blocks = part.get_payload()
            blocks = blocks if isinstance(blocks, list) else []
            for block in blocks:
                if not isinstance(block, Message):
                    continue
                for name in ("Final-Recipient", "Original-Recipient"):
                    val = str(block.get(name, "") or "")
                    addr = _ADDR.search(val.split(";", 1)[-1])
                    if addr and name == "Final-Recipient":
                        _add(rcpts, addr.group(0).lower())
                if block.get("Action"):
                    actions.append(str(block.get("Action")).strip().lower())
                status = status or (str(block.get("Status")).strip() if block.get("Status") else None)
                if block.get("Diagnostic-Code") and diagnostic is None:
                    diagnostic = re.sub(r"\s+", " ", str(block.get("Diagnostic-Code"))).strip()
        elif part.get_content_maintype() == "text":
            try:
                texts.append(_part_text(part))
            except Exception:
                pass
    body = "\n".join(texts)
    # anywhere else: the body, the raw bytes (headers of the attached original), threading headers
    hay = body + "\n" + raw.decode("latin-1") + "\n" + (rm.in_reply_to or "") + " " + " ".join(rm.references)
    for m in _MSGID.findall(hay):
        _add(ids, f"<{m}>")
    for m in _OUR_BARE_ID.findall(hay):
        _add(ids, f"<{m}>")
    if own_id in ids:
        ids.remove(own_id)
    del ids[200:]  # a report names few; a huge mail must not make a huge query
    temporary, permanent = (list(x) for x in detected)
    for a in permanent + temporary:
        _add(rcpts, a)
    if not rcpts:
        for m in _POSTFIX_RCPT.findall(body):
            _add(rcpts, m.lower())
    if not rcpts:  # e.g. Exchange's German "Unzustellbar": the addresses in the report's text
        ours = {(rm.from_addr or "").lower(), *(a.lower() for a in rm.to)}
        report = _MSGID_LINE.sub("", texts[0] if texts else "")
        for m in _ADDR.findall(report):
            m = m.strip(".").lower()
            if m not in ours and not _DAEMON.search(m):
                _add(rcpts, m)
    if permanent and not _PERMANENT.search(" ".join([status or "", diagnostic or "", body[:5000]])) and (
            _WARNING.search(rm.subject or "") or _WARNING.search(body[:5000])):
        temporary, permanent = permanent + temporary, []  # "delayed 24 hours ... no action required"
    if not permanent and not temporary and rcpts:
        failed = " ".join([status or "", diagnostic or "", body[:5000]])
        if _PERMANENT.search(failed) or not _TEMPORARY.search(failed):
            permanent = list(rcpts)
        else:
            temporary = list(rcpts)
    if diagnostic is None:
        lines = [l.strip() for l in body.splitlines() if re.search(r"\b[45]\d\d\b|\b[45]\.\d+\.\d+\b", l)]
        diagnostic = lines[0] if lines else None
    if diagnostic or status:
        summary = ", ".join(x for x in (f"Status {status}" if status else "", diagnostic or "") if x)
    else:
        summary = " ".join(l.strip() for l in body.splitlines() if l.strip())[:200] or rm.subject
    delayed = (bool(actions) and all(a == "delayed" for a in actions)) or (bool(temporary) and not permanent)
    return Bounce(why=why, recipients=rcpts, message_ids=ids, status=status, diagnostic=diagnostic,
                  summary=summary[:300], delayed=delayed, permanent=[a for a in permanent if a in rcpts],
                  temporary=[a for a in temporary if a in rcpts and a not in permanent])


def _detected(msg: Message) -> tuple[list[str], list[str]]:
    """(temporary, permanent) failures found by flufl.bounce, lower case; ([], []) when
    its detectors find nothing or fail on a broken report."""
    try:
        temporary, permanent = all_failures(msg)
    except Exception as exc:  # a detector choking on a mangled report is no reason to crash
        log.warning("flufl.bounce gescheitert: %r", exc)
        return [], []

    def _addrs(found) -> list[str]:
        out: list[str] = []
        for a in sorted(found):
            a = (a.decode("ascii", "replace") if isinstance(a, bytes) else str(a)).strip().lower()
            if "@" in a:
                _add(out, a)
        return out
    return _addrs(temporary), _addrs(permanent)

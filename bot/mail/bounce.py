"""Recognising bounces (non-delivery reports) and finding what they are about.

No database here: :func:`find_bounce` turns the raw bytes of one incoming mail into a
:class:`Bounce` (or None for a mail that is no bounce): the recipients that failed, the
Message-IDs the report names (the bounced mail's own first), and a one-line summary.
"""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass, field
from email.message import Message
from email.parser import HeaderParser

from bot.mail.message import ReadMail, _part_text, parse_part, read_mail

__all__ = ["Bounce", "find_bounce"]

_SUBJECT = re.compile(
    r"^\s*(Undelivered Mail Returned to Sender|Undeliver(able|ed)|Unzustellbar|Nicht zustellbar"
    r"|Delivery Status Notification \((Failure|Delay)\)|Mail delivery failed|Returned mail"
    r"|Delivery failure|Failure notice|Zustellung fehlgeschlagen|Mail System Error)",
    re.IGNORECASE)
_STATUS_CODE = re.compile(r"\b[245]\.\d{1,3}\.\d{1,3}\b|\b5[0-5]\d\s")
_DAEMONS = {"mailer-daemon", "postmaster"}
_MSGID = re.compile(r"<([^<>\s@]+@[^<>\s]+)>")
_OUR_BARE_ID = re.compile(r"\b([0-9a-f]{32}\.spielleiter@[A-Za-z0-9.-]+[A-Za-z0-9])")
_POSTFIX_RCPT = re.compile(r"<([^<>\s@]+@[^<>\s]+)>\s*:")
_ADDR = re.compile(r"[^\s<>;:,\"']+@[^\s<>;:,\"']+")


@dataclass(frozen=True)
class Bounce:
    """A non-delivery report.

    ``why``: what made it a bounce (``multipart/report``, the sender, the subject);
    ``recipients``: lower-case addresses that failed (may be empty); ``message_ids``:
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
    #: every DSN block says ``Action: delayed`` (a warning, the mail may still arrive)
    delayed: bool = False


def _why(msg: Message, rm: ReadMail) -> str | None:
    try:
        if msg.get_content_type() == "multipart/report" and \
                (msg.get_param("report-type") or "").lower() == "delivery-status":
            return "multipart/report delivery-status"
    except Exception:
        pass
    local = rm.from_addr.split("@", 1)[0] if rm.from_addr else ""
    if local in _DAEMONS:
        return f"sender {rm.from_addr}"
    if _SUBJECT.match(rm.subject or "") and (rm.auto or _STATUS_CODE.search(rm.text or "")):
        return f"subject {rm.subject[:80]!r}"  # a player's "Unzustellbar?" has no status code
    return None


def find_bounce(raw: bytes, rm: ReadMail | None = None) -> Bounce | None:
    """The bounce in ``raw`` (bytes of one mail), or None when it is no bounce.

    A bounce is a DSN (``multipart/report; report-type=delivery-status``), a mail from
    MAILER-DAEMON/postmaster, or one whose subject starts like a non-delivery report
    ("Undelivered Mail Returned to Sender", "Unzustellbar", "Undeliverable", ...) and
    that is an automatic mail or names an SMTP status code (``5.1.1``, ``550 ``).
    The bounced mail's Message-ID is taken from an attached ``message/rfc822`` or
    ``text/rfc822-headers`` part, else from anywhere in the mail. ``rm`` (the same
    mail already read) saves a second parse. Never raises on bad input.
    """
    try:
        rm = rm or read_mail(raw)
        if rm.unreadable and not rm.auto:
            return None
        part = parse_part(bytes(raw))[0]
        msg = email.message_from_bytes(part, policy=email.policy.compat32)
        why = _why(msg, rm)
        if why is None:
            return None
        return _analyse(msg, rm, why, part)
    except Exception:  # a bounce we cannot read is still no reason to crash
        return None


def _add(seq: list[str], value: str) -> None:
    if value and value not in seq:
        seq.append(value)


def _analyse(msg: Message, rm: ReadMail, why: str, raw: bytes) -> Bounce:
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
    if not rcpts:
        for m in _POSTFIX_RCPT.findall(body):
            _add(rcpts, m.lower())
    if diagnostic is None:
        lines = [l.strip() for l in body.splitlines() if re.search(r"\b[45]\d\d\b|\b[45]\.\d+\.\d+\b", l)]
        diagnostic = lines[0] if lines else None
    if diagnostic or status:
        summary = ", ".join(x for x in (f"Status {status}" if status else "", diagnostic or "") if x)
    else:
        summary = " ".join(l.strip() for l in body.splitlines() if l.strip())[:200] or rm.subject
    return Bounce(why=why, recipients=rcpts, message_ids=ids, status=status, diagnostic=diagnostic,
                  summary=summary[:300], delayed=bool(actions) and all(a == "delayed" for a in actions))

"""The sender of a mail (:func:`read_sender`): one parse of From and Sender with the
header registry; a From that names a second address, a display name that is an
address, several From fields or a Sender that is not From make the sender doubtful
(issue 31). No database, no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from email import _header_value_parser as parser
from email.message import Message

from bot.mail.headers import READ_POLICY

#: What a sender address must look like to be answered (at most 254 characters, one @,
#: no white space, no replacement character of a broken encoding).
_ADDRESS = re.compile(r"(?=.{3,254}$)[^\s@<>()\[\],;:\"\\\ufffd]{1,64}@[^\s@<>()\[\],;:\"\\\ufffd]+")


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
        parsed = READ_POLICY.header_fetch_parse("From", value)
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

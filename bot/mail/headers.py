"""Header helpers of reading a mail (:mod:`bot.mail.message`): the parse policy that
remembers parsed header values, decoded and raw header values, Message-IDs, address
lists and dates. No database, no games."""

from __future__ import annotations

import email
import email.policy
import email.utils
import re
from datetime import datetime
from functools import lru_cache
from email.message import Message

class ReadPolicy(email.policy.EmailPolicy):
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


READ_POLICY = ReadPolicy()

MSGID_RE = re.compile(r"<[^<>\s]+>")


def header_text(msg: Message, name: str) -> str:
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


def raw_header(msg: Message, name: str) -> str:
    """Header value without any parsing (works for headers the policy rejects)."""
    for key, value in msg.raw_items() if hasattr(msg, "raw_items") else msg.items():
        if key.lower() == name.lower():
            return str(value).strip()
    return ""


def msgid(value: str) -> str | None:
    found = MSGID_RE.search(value or "")
    if found:
        return found.group(0) if found.group(0).isprintable() else None
    value = (value or "").strip()
    return f"<{value}>" if value and value.isprintable() and not re.search(r"[\s<>]", value) else None


def addresses(values: list[str]) -> list[tuple[str, str]]:
    try:
        return [(n, a) for n, a in email.utils.getaddresses(values) if a]
    except Exception:
        return []


def mail_date(value: str) -> datetime | None:
    if not value:
        return None
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except Exception:
        return None
    if parsed is None or parsed.tzinfo is None:
        return None  # "-0000" / no zone: unknown offset, do not guess
    return parsed

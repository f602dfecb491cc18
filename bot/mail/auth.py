"""Sender authentication as our own receiving mail server saw it: the
``Authentication-Results`` header (RFC 8601) that the server with ``[bot] authserv_id``
added, read with the ``authres`` package.

Only a header carrying our authserv-id counts, and of those only the topmost: a server
prepends its own header fields, so a copy further down was written upstream (a forger
can write any authserv-id into his mail; RFC 8601 section 5 has the receiving server
delete such copies, and even where it does not, the topmost header is the one it added).

The verdict (:class:`SenderAuth`): ``fail`` when the server says ``dmarc=fail``, or
``spf=fail`` with no ``dkim=pass`` for the From domain, or gives a DMARC result whose
``header.from`` is another domain than the sender's (the server judged another From
than the one the bot took: ``From: anna@example.org <mallory@evil.example>`` passes
DMARC for evil.example, issue 31); ``pass`` for ``dmarc=pass`` or a DKIM pass for the
From domain; ``none`` otherwise (no header of ours, nothing checked, no ``authserv_id``
configured). :func:`mail_auth` puts it together with the doubts of the From field itself
(:func:`bot.mail.sender.read_sender`), which need no server. No database, no I/O.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from email.message import Message
from typing import Callable

import authres
import authres.dmarc

__all__ = ["SenderAuth", "sender_auth", "mail_auth", "topmost_authserv_ids"]

log = logging.getLogger(__name__)

_CONTEXT = authres.FeatureContext(authres.dmarc)
_COMMENT = re.compile(r"\([^()]*\)")


@dataclass(frozen=True)
class SenderAuth:
    """``verdict``: ``pass`` | ``fail`` | ``none``; ``reason``: what the server said, in
    its own terms (``dmarc=fail``, ``spf=fail, no dkim=pass for example.net``,
    ``dmarc=pass header.from=evil.example``), or what is wrong with the From field
    (``From also names mallory@evil.example``), "" for none; ``ambiguous``: the failure
    is the From field's own (:attr:`bot.mail.message.ReadMail.from_problem`)."""

    verdict: str = "none"
    reason: str = ""
    ambiguous: bool = False

    @property
    def failed(self) -> bool:
        return self.verdict == "fail"


def _authserv_id(value: str) -> str:
    return _COMMENT.sub("", value.split(";", 1)[0]).strip().lower()


def _domain(value: str | None) -> str:
    d = (value or "").strip().lower().rstrip(".")
    if "@" in d:
        d = d.rpartition("@")[2]
    try:  # an internationalised domain compares as its A-label (xn--...)
        return d.encode("idna").decode("ascii") if d and not d.isascii() else d
    except UnicodeError:
        return d


def _aligned(domain: str | None, from_domain: str) -> bool:
    """Relaxed alignment: the same domain, or one a subdomain of the other."""
    d = _domain(domain)
    return bool(d) and (d == from_domain or from_domain.endswith("." + d) or d.endswith("." + from_domain))


def sender_auth(headers: Message, from_addr: str, authserv_id: str | None) -> SenderAuth:
    """The verdict of our server (``authserv_id``) on ``from_addr``, read from the
    ``Authentication-Results`` fields of ``headers`` (a parsed header block). Never
    raises: a header it cannot parse counts as none."""
    if not authserv_id or not from_addr:
        return SenderAuth()
    ours = authserv_id.strip().lower()
    try:
        values = [re.sub(r"\r?\n[ \t]*", " ", str(v)) for v in (headers.get_all("Authentication-Results") or [])]
    except Exception:
        return SenderAuth()
    value = next((v for v in values if _authserv_id(v) == ours), None)
    if value is None:
        return SenderAuth()
    try:
        header = _CONTEXT.parse_value(value)
    except Exception as exc:  # authres raises its own SyntaxError and others
        log.warning("Authentication-Results von %s nicht lesbar: %r", ours, exc)
        return SenderAuth()
    from_domain = _domain(from_addr)
    results = [(str(r.method or "").lower(), str(getattr(r, "result", "") or "").lower(), r)
               for r in header.results if getattr(r, "method", None)]
    dkim_ok = any(m == "dkim" and res == "pass" and (_aligned(getattr(r, "header_d", None), from_domain)
                                                      or _aligned(getattr(r, "header_i", None), from_domain))
                  for m, res, r in results)
    if any(m == "dmarc" and res == "fail" for m, res, _ in results):
        return SenderAuth("fail", "dmarc=fail")
    for m, res, r in results:  # DMARC judged the From domain it read: it must be the sender's
        header_from = getattr(r, "header_from", None)
        if m == "dmarc" and header_from and _domain(str(header_from)) != from_domain:
            return SenderAuth("fail", f"dmarc={res} header.from={_domain(str(header_from))}"[:120])
    if any(m == "spf" and res == "fail" for m, res, _ in results) and not dkim_ok:
        return SenderAuth("fail", f"spf=fail, no dkim=pass for {from_domain}")
    if dkim_ok or any(m == "dmarc" and res == "pass" for m, res, _ in results):
        return SenderAuth("pass", "dmarc=pass" if not dkim_ok else "dkim=pass")
    return SenderAuth()


def mail_auth(rm, headers: Callable[[], Message], authserv_id: str | None) -> SenderAuth:
    """The verdict on the sender of ``rm`` (a :class:`~bot.mail.message.ReadMail`): a
    failure (``ambiguous``) when its From field is doubtful (``rm.from_problem``: a second
    address, several mailboxes, another Sender), whatever the configuration; else
    :func:`sender_auth` on the header block ``headers()`` gives (called only when
    ``authserv_id`` is set)."""
    if rm.from_problem:
        return SenderAuth("fail", rm.from_problem, ambiguous=True)
    if not authserv_id or not rm.from_addr:
        return SenderAuth()
    return sender_auth(headers(), rm.from_addr, authserv_id)


def topmost_authserv_ids(headers: Message) -> list[str]:
    """The authserv-ids of the ``Authentication-Results`` fields of ``headers``, topmost
    first (lower case; the first is the receiving server's, if it writes one)."""
    try:
        return [_authserv_id(re.sub(r"\r?\n[ \t]*", " ", str(v)))
                for v in (headers.get_all("Authentication-Results") or [])]
    except Exception:
        return []

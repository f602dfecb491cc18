"""Lines of a player's mail that the bot itself wrote to that player (issue 24, item 2).

A player who answers with a client that pastes the bot's mail without ``>`` marks and
without a reply header the reply parser knows (:mod:`bot.mail.message`) sends the bot's
own lines back: the example block of a start mail (``RUIL Q``), the rows of a standings
table or of a board. Such a line is never read as a move: the acknowledgement lists it as
"aus unserer Mail zitiert, nicht gewertet".

How it is recognised, cheaply: the plain text of the last :data:`RECENT` mails the bot
queued for the player's address in this league, of its start mail and of the mail the
reply answers (``In-Reply-To``) (the ``outbox`` table; each mail's lines are remembered
per outbox row, its bytes never change) gives a set of lines, normalised
(white space collapsed, ``>`` marks removed). The player's own earlier move lines are taken
out of that set, because the acknowledgement echoes them (a player who sends the same move
again means it). A line of the new mail counts as quoted only when at least
:data:`MIN_QUOTED` lines of the mail are the bot's (a quote copies a passage; one line
that happens to equal an example, ``PAS``, is the player's own).
"""

from __future__ import annotations

import email
import email.policy
import re
from collections import OrderedDict
from typing import Iterable

from sqlalchemy import select
from sqlalchemy.engine import Connection

from bot.mail.message import body_text
from bot.storage.models import OutboxMail, Submission, SubmissionMove

__all__ = ["bot_lines", "player_lines", "quoted_lines", "norm", "RECENT", "MIN_QUOTED"]

#: How many of the latest mails to the player are compared (the start mail, the last
#: Auswertungen and acknowledgements: what a reply quotes).
RECENT = 12
#: How many lines of a mail must be the bot's before they count as quoted.
MIN_QUOTED = 2
#: Lines shorter than this (after normalising) are never taken as the bot's ("A", "--").
MIN_CHARS = 2

_WS = re.compile(r"\s+")
_MARKS = re.compile(r"^(\s*>)+")
#: the lines of a queued mail by (database URL, row id, Message-ID): a Message-ID is made
#: from the mail's key, so two databases (tests) can hold different mails under one
_CACHE: OrderedDict[tuple[str, int, str], frozenset[str]] = OrderedDict()
_CACHE_SIZE = 2048


def norm(line: str) -> str:
    """``line`` without quote marks, white space collapsed, stripped (case kept)."""
    return _WS.sub(" ", _MARKS.sub("", line)).strip()


def _lines_of(raw: bytes) -> frozenset[str]:
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        text = body_text(msg)
    except Exception:  # pragma: no cover - our own mails always parse
        return frozenset()
    return frozenset(n for n in (norm(l) for l in text.splitlines()) if len(n) >= MIN_CHARS)


def bot_lines(conn: Connection, league_id: int, addresses: Iterable[str],
              in_reply_to: str | None = None) -> frozenset[str]:
    """The normalised lines of the mails queued to ``addresses`` in league ``league_id``
    that a reply may quote: the last :data:`RECENT`, the start mail (its help and
    examples) and the mail ``in_reply_to`` names. Two queries, and one more for mails not
    seen before (each mail's lines are parsed once per process)."""
    addrs = sorted({a.lower() for a in addresses if a})
    if not addrs:
        return frozenset()
    t = OutboxMail.__table__
    mine = (t.c.league_id == league_id) & t.c.to_addr.in_(addrs)
    rows = conn.execute(select(t.c.id, t.c.message_id).where(mine).order_by(t.c.id.desc()).limit(RECENT)).all()
    more = (t.c.kind == "start") | (t.c.message_id == in_reply_to) if in_reply_to else (t.c.kind == "start")
    seen = {oid for oid, _ in rows}
    rows += [r for r in conn.execute(select(t.c.id, t.c.message_id).where(mine, more)).all() if r[0] not in seen]
    db = str(conn.engine.url)
    missing = [oid for oid, mid in rows if (db, oid, mid) not in _CACHE]
    if missing:
        for oid, mid, raw in conn.execute(select(OutboxMail.id, OutboxMail.message_id, OutboxMail.raw)
                                          .where(OutboxMail.id.in_(missing))):
            _CACHE[(db, oid, mid)] = _lines_of(raw)
            if len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    out: set[str] = set()
    for oid, mid in rows:
        out |= _CACHE.get((db, oid, mid), frozenset())
    return frozenset(out)


def player_lines(conn: Connection, player_id: int) -> set[str]:
    """The normalised lines of every move player ``player_id`` sent (one query)."""
    st, sm = Submission.__table__, SubmissionMove.__table__
    texts = conn.execute(select(sm.c.text).join(st, st.c.id == sm.c.submission_id)
                         .where(st.c.player_id == player_id)).scalars()
    return {norm(line) for text in texts for line in str(text).splitlines()}


def quoted_lines(conn: Connection, text: str, league_id: int, addresses: Iterable[str],
                 player_id: int, in_reply_to: str | None = None) -> set[str]:
    """The normalised lines of ``text`` that are the bot's (:func:`bot_lines`) and not one
    of the player's own moves (:func:`player_lines`), when at least :data:`MIN_QUOTED`
    are; else the empty set. The player's moves are only looked up when the mail has
    that many of the bot's lines."""
    own = bot_lines(conn, league_id, addresses, in_reply_to)
    if not own:
        return set()
    hits = {n for n in (norm(line) for line in text.splitlines()) if n in own}
    if len(hits) < MIN_QUOTED:
        return set()
    hits -= player_lines(conn, player_id)
    return hits if len(hits) >= MIN_QUOTED else set()

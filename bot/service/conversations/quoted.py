"""Lines of a player's mail that the bot itself wrote to that player (issue 24, item 2).

A player who answers with a client that pastes the bot's mail without ``>`` marks and
without a reply header the reply parser knows (:mod:`bot.mail.message`) sends the bot's
own lines back: the example block of a start mail (``RUIL Q``), the rows of a standings
table or of a board. Such a line is never read as a move: the acknowledgement lists it as
"aus unserer Mail zitiert, nicht gewertet".

How it is recognised, cheaply: the plain text of the last :data:`RECENT` mails the bot
queued for the player's address in this league, of its start mail and of the mail the
reply answers (``In-Reply-To``) (the ``outbox`` table; each mail's lines are remembered
per outbox row, its bytes never change), each as its sequence of lines, normalised
(white space collapsed, ``>`` marks removed, blank lines and section headers left out).
A line of the new mail counts as the bot's only inside a run of at least
:data:`MIN_RUN` consecutive lines equal to consecutive lines of one such mail, in its
order (issue 32): a pasted passage. A line the player wrote themselves - above a quote
or in a plain mail - is theirs whatever it equals: an example of the start mail
(``Partie R1:`` / ``mo*NDES 24 Punkte`` / ``Ersatz: mondES`` / ``Ersatz: monDES``),
another player's word in an Auswertung. A section header alone (``Partie R1:``) is
never the bot's. The player's own earlier move lines are taken out of a run, because
the acknowledgement echoes them (a player who sends the same move again means it).
Text below a reply header or marked ``>`` never gets here (:func:`bot.mail.replies.new_text`).
"""

from __future__ import annotations

import email
import email.policy
import re
from collections import Counter, OrderedDict
from functools import lru_cache
from typing import Iterable

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection

from bot.mail.compose import may_be_ours
from bot.mail.message import body_text
from bot.submission import is_section_header
from bot.storage.models import OutboxMail, PlayerAddress, Submission, SubmissionMove

__all__ = ["bot_lines", "player_lines", "quoted_lines", "norm", "runs", "bot_mails", "remember", "quotable_rows",
           "pick_quotable", "lines_of_rows", "RECENT", "MIN_RUN"]

#: How many of the latest mails to the player are compared (the start mail, the last
#: Auswertungen and acknowledgements: what a reply quotes).
RECENT = 12
#: How many consecutive lines of one of the bot's mails, in its order, make a pasted
#: block (section headers such as "Partie R1:" are not counted): fewer are the player's
#: own lines, whatever they equal. Four, because the longest move example the bot sends
#: (Rondo: a move and two Ersatzzuege under "Partie R1:") has three lines, and a player
#: who sends exactly that as their move means it (issue 32).
MIN_RUN = 4
#: Lines shorter than this (after normalising) are never taken as the bot's ("A", "--").
MIN_CHARS = 2

_WS = re.compile(r"\s+")
_MARKS = re.compile(r"^(\s*>)+")
#: the lines of a queued mail by (database URL, row id, Message-ID): a Message-ID is made
#: from the mail's key, so two databases (tests) can hold different mails under one
_CACHE: OrderedDict[tuple[str, int, str], tuple[str, ...] | str] = OrderedDict()
_CACHE_SIZE = 2048


def norm(line: str) -> str:
    """``line`` without quote marks, white space collapsed, stripped (case kept)."""
    return " ".join((_MARKS.sub("", line) if ">" in line else line).split())


def _lines_of(raw: bytes) -> tuple[str, ...]:
    """The lines (:func:`_sequence`) of the plain text of one of the bot's own mails."""
    try:  # our own mails (bot.mail.compose): the first text/plain part, read with the lighter compat32 classes
        msg = email.message_from_bytes(raw)
        for part in msg.walk():
            if part.get_content_type() == "text/plain" and not part.is_multipart():
                data = part.get_payload(decode=True)
                return _sequence(data.decode(part.get_content_charset() or "utf-8", "replace"))
    except Exception:  # pragma: no cover - our own mails always parse
        pass
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        text = body_text(msg)
    except Exception:  # pragma: no cover - our own mails always parse
        return ()
    return _sequence(text)


def _sequence(text: str) -> tuple[str, ...]:
    """The normalised lines of ``text`` in order that take part in a run: not blank, not
    shorter than :data:`MIN_CHARS`, not a section header alone (``Partie R1:``)."""
    return tuple(n for n in (norm(l) for l in text.splitlines())
                 if len(n) >= MIN_CHARS and not is_section_header(n))


_OUT = OutboxMail.__table__
#: the mails to these addresses (lower case) in this league, found through the outbox's
#: index on ``lower(to_addr)`` (``ix_outbox_to_created``; without it every mail read
#: scanned the whole outbox, and reading got slower with every mail the league was sent)
_MINE = (_OUT.c.league_id == bindparam("league")) & func.lower(_OUT.c.to_addr).in_(bindparam("addrs", expanding=True))
#: the one statement of :func:`bot_mails`, built once (building one cost more than running
#: it): the last :data:`RECENT` mails to these addresses, the start mail and the mail
#: ``reply`` names (NULL: none), newest first
_RECENT_IDS = select(_OUT.c.id).where(_MINE).order_by(_OUT.c.id.desc()).limit(RECENT).scalar_subquery()
_QUOTABLE = (select(_OUT.c.id, _OUT.c.message_id)
             .where(_MINE, _OUT.c.id.in_(_RECENT_IDS) | (_OUT.c.kind == "start")
                    | (_OUT.c.message_id == bindparam("reply")))
             .order_by(_OUT.c.id.desc()))
_PA = PlayerAddress.__table__
#: the address the bot sends player ``player``'s answers to: the first (by id) that does
#: not bounce, the address ``sender`` wrote from counting as working (addresses are
#: stored in lower case; ``sender`` is ``addr`` again: one parameter of one type each,
#: as PostgreSQL wants it)
_REPORT_TO = (select(_PA.c.email).where(_PA.c.player_id == bindparam("player"),
                                        _PA.c.bounced_at.is_(None) | (_PA.c.email == bindparam("sender")))
              .order_by(_PA.c.id).limit(1).scalar_subquery())
#: :data:`_QUOTABLE` for the sender ``addr`` and the address :data:`_REPORT_TO` of the
#: player: one statement with the look-up of that address
_MINE_PLAYER = (_OUT.c.league_id == bindparam("league")) & func.lower(_OUT.c.to_addr).in_([bindparam("addr"),
                                                                                            _REPORT_TO])
_QUOTABLE_PLAYER = (
    select(_OUT.c.id, _OUT.c.message_id)
    .where(_MINE_PLAYER, _OUT.c.id.in_(select(_OUT.c.id).where(_MINE_PLAYER).order_by(_OUT.c.id.desc()).limit(RECENT)
                                       .scalar_subquery())
           | (_OUT.c.kind == "start") | (_OUT.c.message_id == bindparam("reply")))
    .order_by(_OUT.c.id.desc()))
_RAW = select(_OUT.c.id, _OUT.c.message_id, _OUT.c.raw).where(_OUT.c.id.in_(bindparam("ids", expanding=True)))


#: The quotable mails of many addresses at once (a batch, :func:`quotable_rows`): for each
#: address (lower case) of ``addrs`` its last :data:`RECENT` mails in the league and its
#: start mails, numbered newest first per address by a window function
_NUMBERED = (select(_OUT.c.id, _OUT.c.message_id, func.lower(_OUT.c.to_addr).label("addr"), _OUT.c.kind,
                    func.row_number().over(partition_by=func.lower(_OUT.c.to_addr),
                                           order_by=_OUT.c.id.desc()).label("n"))
             .where(_MINE).subquery())
_QUOTABLE_MANY = (select(_NUMBERED.c.addr, _NUMBERED.c.id, _NUMBERED.c.message_id, _NUMBERED.c.kind)
                  .where((_NUMBERED.c.n <= RECENT) | (_NUMBERED.c.kind == "start")))


def quotable_rows(conn: Connection, league_id: int, addresses: Iterable[str]) -> dict[str, dict[int, tuple[str, str]]]:
    """For each of ``addresses`` (lower case) the mails of league ``league_id`` to it that
    a reply may quote, as far as they do not depend on the reply: ``{address: {outbox id:
    (Message-ID, kind)}}``, its last :data:`RECENT` and its start mails (one statement for
    all addresses; :func:`pick_quotable` takes one mail's from them)."""
    addrs = sorted({a.lower() for a in addresses if a})
    out: dict[str, dict[int, tuple[str, str]]] = {a: {} for a in addrs}
    if addrs:
        for addr, oid, mid, kind in conn.execute(_QUOTABLE_MANY, {"league": league_id, "addrs": addrs}):
            out.setdefault(addr, {})[oid] = (mid, kind)
    return out


def pick_quotable(rows: dict[str, dict[int, tuple[str, str]]], addresses: Iterable[str],
                  in_reply_to: str | None = None) -> list[tuple[int, str]] | None:
    """What :data:`_QUOTABLE` / :data:`_QUOTABLE_PLAYER` return for ``addresses`` (lower
    case), ``(outbox id, Message-ID)`` newest first, taken from ``rows``
    (:func:`quotable_rows`, with the mails queued since added): the last :data:`RECENT`
    to these addresses together (each address's last :data:`RECENT` hold them), every
    start mail, and the mail ``in_reply_to`` names. None when ``rows`` cannot tell: an
    address not among them, or a reply to a mail not among them that may be the bot's
    (:func:`bot.mail.compose.may_be_ours`: it may be older; a Message-ID of another shape
    names none of the bot's mails)."""
    mine: dict[int, tuple[str, str]] = {}
    for a in set(addresses):
        if a not in rows:
            return None
        mine.update(rows[a])
    ids = sorted(mine, reverse=True)
    recent = set(ids[:RECENT])
    if may_be_ours(in_reply_to) and not any(mid == in_reply_to for mid, _ in mine.values()):
        return None  # perhaps an older mail of ours
    return [(oid, mine[oid][0]) for oid in ids
            if oid in recent or mine[oid][1] == "start" or mine[oid][0] == in_reply_to]


def lines_of_rows(conn: Connection, rows: list[tuple[int, str]]) -> list[tuple[str, ...]]:
    """The lines (:func:`_sequence`) of each of the bot's mails ``rows`` (``(outbox id,
    Message-ID)``, kept in order): remembered, else read (one statement for those not
    seen before) and parsed once per process."""
    db = str(conn.engine.url)
    missing = [oid for oid, mid in rows if (db, oid, mid) not in _CACHE]
    if missing:
        for oid, mid, raw in conn.execute(_RAW, {"ids": missing}):
            _CACHE[(db, oid, mid)] = _lines_of(raw)
            if len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    out = []
    for oid, mid in rows:
        lines = _CACHE.get((db, oid, mid), ())
        if isinstance(lines, str):  # remembered as text
            lines = _CACHE[(db, oid, mid)] = _sequence(lines)
        out.append(lines)
    return out


def remember(db_url: str, rows: Iterable[tuple[int, str, str]]) -> None:
    """Take the lines of mails just queued and committed, ``(outbox id, Message-ID, plain
    text)`` each, from their text, so :func:`bot_mails` need not parse their bytes
    (the text of a mail without HTML is its plain part as composed)."""
    for oid, mid, text in rows:
        _CACHE[(db_url, oid, mid)] = text  # its lines taken when first asked for (most never are)
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)


def bot_mails(conn: Connection, league_id: int, addresses: Iterable[str],
              in_reply_to: str | None = None, *, player: int | None = None) -> list[tuple[str, ...]]:
    """The lines (:func:`_sequence`, in order) of each mail queued to ``addresses`` in
    league ``league_id`` that a reply may quote: the last :data:`RECENT`, the start mail
    (its help and examples) and the mail ``in_reply_to`` names, newest first. With
    ``player`` (the id of the player who wrote from the one address of ``addresses``)
    the address the player's answers go to as well (:data:`_REPORT_TO`). One query, and
    one more for mails not seen before (each mail's lines are parsed once per process,
    or taken from its text when it was queued here: :func:`remember`)."""
    addrs = sorted({a.lower() for a in addresses if a})
    if not addrs:
        return []
    if player is not None and len(addrs) == 1:
        rows = conn.execute(_QUOTABLE_PLAYER, {"league": league_id, "addr": addrs[0], "sender": addrs[0],
                                               "player": player, "reply": in_reply_to}).all()
    else:
        rows = conn.execute(_QUOTABLE, {"league": league_id, "addrs": addrs, "reply": in_reply_to}).all()
    return lines_of_rows(conn, [tuple(r) for r in rows])


def bot_lines(conn: Connection, league_id: int, addresses: Iterable[str],
              in_reply_to: str | None = None) -> frozenset[str]:
    """The set of all lines of :func:`bot_mails`."""
    return frozenset(n for m in bot_mails(conn, league_id, addresses, in_reply_to) for n in m)


@lru_cache(maxsize=_CACHE_SIZE)
def _index(mail: tuple[str, ...]) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """(the lines, the pairs of consecutive lines) of one mail's sequence."""
    return frozenset(mail), frozenset(zip(mail, mail[1:]))


def runs(text: str, mails: Iterable[tuple[str, ...]], min_run: int = MIN_RUN) -> Counter[str]:
    """The normalised lines of ``text`` that lie in a run of at least ``min_run``
    consecutive lines (:func:`_sequence`: blank lines and section headers skipped on both
    sides) equal to consecutive lines of one of ``mails`` in their order, each with the
    number of its places in such runs (the same line written by the player outside a
    run is not counted). A line outside every run is never returned, whatever it equals."""
    seq = _sequence(text)
    marked: set[int] = set()
    for mail in mails:
        if len(mail) < min_run:
            continue
        lines, pairs = _index(mail)
        start = None
        for i in range(len(seq) + 1):
            if start is not None and i < len(seq) and (seq[i - 1], seq[i]) in pairs:
                continue
            if start is not None and i - start >= min_run:
                marked.update(range(start, i))
            start = i if i < len(seq) and seq[i] in lines else None
    return Counter(seq[i] for i in marked)


def player_lines(conn: Connection, player_id: int) -> set[str]:
    """The normalised lines of every move player ``player_id`` sent (one query)."""
    st, sm = Submission.__table__, SubmissionMove.__table__
    texts = conn.execute(select(sm.c.text).join(st, st.c.id == sm.c.submission_id)
                         .where(st.c.player_id == player_id)).scalars()
    return {norm(line) for text in texts for line in str(text).splitlines()}


def quoted_lines(conn: Connection, text: str, league_id: int, addresses: Iterable[str],
                 player_id: int, in_reply_to: str | None = None, *, report_address: bool = False,
                 mails: list[tuple[str, ...]] | None = None, before_moves=None) -> Counter[str]:
    """The normalised lines of ``text`` that lie in a pasted block of one of the bot's
    mails (:func:`runs` over :func:`bot_mails`, at least :data:`MIN_RUN` lines in order),
    less the player's own earlier moves (:func:`player_lines`), each with its number of
    places in such blocks; else empty. The player's moves are only looked up when there
    is such a block. ``report_address``: the mails to the address the player's answers
    go to count too (``addresses``: the one the player wrote from; :func:`bot_mails`
    with ``player``). ``mails``: those lines already taken (a batch: :func:`pick_quotable`);
    ``before_moves``: called before the player's moves are read (a batch writes its held
    submissions)."""
    if mails is None:
        mails = bot_mails(conn, league_id, addresses, in_reply_to, player=player_id if report_address else None)
    hits = runs(text, mails)
    if not hits:
        return hits
    if before_moves is not None:
        before_moves()
    for line in player_lines(conn, player_id):
        hits.pop(line, None)
    return hits

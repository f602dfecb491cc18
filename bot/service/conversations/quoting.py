"""The bot's own lines in a player's mail: which of the bot's mails a reply may quote
(from the batch's memory, :func:`quotable_for`, or asked of the database) and the block
pasted from one of them taken out of the moves read (:func:`drop_quoted`). The
comparison itself is :mod:`bot.service.conversations.quoted`."""

from __future__ import annotations

from sqlalchemy.orm import Session

from bot.service.conversations.mailctx import DEFER, QUEUED_TO, SENDER_ROWS, batch_of
from bot.service.conversations.quoted import lines_of_rows, norm, pick_quotable, quotable_rows, quoted_lines
from bot.submission import ReadSubmission

__all__ = ["PREFETCH", "quotable_for", "drop_quoted"]


#: Up to how many of the quotable mails of a batch (:func:`quotable_for`) are made lines
#: of at once (bounded: the process remembers the lines of 2,048 mails; one IN list).
PREFETCH = 500


def quotable_for(s: Session, conn, league_id: int, sender: str, player_id: int,
                 in_reply_to: str | None) -> list[tuple[str, ...]] | None:
    """The lines of the bot's mails that player ``player_id``'s mail from ``sender`` may
    quote (:func:`bot.service.conversations.quoted.bot_mails` with ``player``), from the
    batch's memory: the quotable mails of every address of the players of league
    ``league_id`` the batch knows (:data:`SENDER_ROWS`: at most two addresses a mail of
    the batch in all running leagues) are read in one statement when its first mail is
    checked (:func:`~bot.service.conversations.quoted.quotable_rows`), the
    answers the batch queued since added (:data:`QUEUED_TO`, written first if they are
    not). None when the memory cannot tell (the caller asks the database): a mail read
    with savepoints or outside a batch, no memory of the senders (many players:
    :data:`SENDER_ROWS`), a sender or address not in it, a reply to one of the bot's
    mails not in it. The address the player's answers go to is taken as
    :data:`~bot.service.conversations.quoted._REPORT_TO` takes it: the first of the
    player's addresses (by id) that does not bounce, ``sender`` counting as working.
    What the memory gives up: on PostgreSQL, a mail another process queues to the
    player while the batch is read is not compared (as the batch's other memories)."""
    batch = batch_of(s)
    if batch is None or not s.info.get(DEFER):
        return None
    by_addr = batch.get(SENDER_ROWS)
    if by_addr is None:
        return None
    sender = sender.lower()
    key = ("quotable", league_id)
    memory = batch.get(key)
    if memory is None:  # the league's players, each with all their addresses
        own: dict[int, list] = {}
        for rows in by_addr.values():
            for row in rows:
                if row[1].id == league_id:
                    own.setdefault(row[0].id, []).append(row[2])
        memory = batch[key] = (quotable_rows(conn, league_id, [a.email for v in own.values() for a in v]), own, {})
        every = [(oid, mid) for got in memory[0].values() for oid, (mid, _) in got.items()]
        if len(every) <= PREFETCH:  # the lines of those not seen before read in one statement, not one a mail
            lines_of_rows(conn, every)
    rows, own, added = memory
    addresses = own.get(player_id)
    if addresses is None or sender not in rows:
        return None
    report = next((a.email.lower() for a in sorted(addresses, key=lambda a: a.id)
                   if a.bounced_at is None or a.email.lower() == sender), None)
    wanted = {sender} | ({report} if report else set())
    queued = batch.get(QUEUED_TO) or {}
    fresh = [row for a in wanted for row in queued.get((league_id, a), ()) if row not in added.get(a, ())]
    if any(row.id is None for row in fresh):  # not written yet: their ids first
        s.flush()
    for row in fresh:
        a = row.to_addr.lower()
        if a in rows:
            rows[a][row.id] = (row.message_id, row.kind)
            added.setdefault(a, set()).add(row)
    picked = pick_quotable(rows, wanted, in_reply_to)
    return None if picked is None else lines_of_rows(conn, picked)


def drop_quoted(conn, read: ReadSubmission, text: str, league_id: int, sender: str,
                player_id: int, in_reply_to: str | None = None,
                mails: list[tuple[str, ...]] | None = None, before_moves=None) -> list[str]:
    """Take a block pasted from one of the bot's mails to this player in this league (to
    ``sender``, the address the mail came from, or to the address the player's answers
    go to: the first that does not bounce, the sender's counting as working) out of
    ``read`` (:mod:`bot.service.conversations.quoted`, issue 32: a run of at least
    ``MIN_RUN`` lines of one mail in order; a line the player wrote is theirs whatever it
    equals): out of the move lines (a section left without moves goes) and out of the
    unreadable ones. A line that stands in a block n times is taken out n times, the
    last places first (a block is pasted below the player's own lines). Returns the move
    lines taken out (white space collapsed), for the acknowledgement ("aus unserer Mail
    zitiert, nicht gewertet")."""
    hits = quoted_lines(conn, text, league_id, [sender], player_id, in_reply_to, report_address=True, mails=mails,
                        before_moves=before_moves)
    if not hits:
        return []
    left = dict(hits)
    drop: set[tuple[int, int]] = set()
    for si in range(len(read.sections) - 1, -1, -1):
        sec = read.sections[si]
        for ri in range(len(sec.lines) - 1, -1, -1):
            n = norm(sec.lines[ri])
            if left.get(n, 0) > 0:
                left[n] -= 1
                drop.add((si, ri))
    dropped: list[str] = []
    keep_sections = []
    for si, sec in enumerate(read.sections):
        had = bool(sec.moves)
        rows = list(zip(sec.moves, sec.parsed, sec.lines))
        dropped += [norm(r[2]) for ri, r in enumerate(rows) if (si, ri) in drop]
        rows = [r for ri, r in enumerate(rows) if (si, ri) not in drop]
        sec.moves, sec.parsed, sec.lines = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
        if sec.moves or not had:
            keep_sections.append(sec)
    read.sections[:] = keep_sections
    read.ignored[:] = [line for line in read.ignored if norm(line) not in hits]
    return dropped

"""``spielleiter ingest``: feed raw mails (``.eml`` files) exactly as the poller would.

For a game master who gets moves by other routes: each mail is stored raw
(:func:`~bot.service.stages.store.store_raw`, source ``ingest``), read and acknowledged
(:func:`~bot.service.conversations.intake.process_mail`); the caller delivers the outbox afterwards.

With ``dry_run`` the very same code runs inside ONE database transaction that is rolled
back at the end (each session of the intake becomes a SAVEPOINT in it), so nothing is
stored and nothing reaches the outbox or a mailbox; the report is read from the stored
row before the rollback.
"""

from __future__ import annotations

import gc
import json
from bisect import bisect_right
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Iterator, TextIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.crash import crashpoint
from bot.service.conversations.intake import read_batch, read_pass
from bot.service.stages.readpool import pool_for
from bot.service.stages.store import RawMail, identify_stored, store_raw_many
from bot.storage.db import Database, OneTransaction
from bot.storage.models import InboundMail, OutboxMail

__all__ = ["ingest", "report_of", "print_reports", "OneTransaction", "RollbackDatabase"]


class RollbackDatabase(OneTransaction):
    """:class:`OneTransaction` that never commits: :meth:`close` rolls back everything
    done through it (``ingest`` with ``dry_run``)."""

    BEGIN = "BEGIN"  # as before: a dry run that fails to write fails, and changes nothing anyway

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.begin()


def report_of(s: Session, mail_id: int, *, name: str | None = None, duplicate: bool = False,
              outbox_after: int | None = None) -> dict[str, Any]:
    """The report of stored mail ``mail_id``::

        {"file": name, "id": int, "from": str | None, "subject": str | None,
         "kind": "submission" | "command" | "ignored", "status": str,
         "reason": str | None, "sections": [{"partie": str | None, "moves": [str, ...]}],
         "errors": [str, ...], "flagged": str | None, "duplicate": bool,
         "replies": [{"to": str, "kind": str, "subject": str}],
         "withheld": [{"to": str, "kind": str, "subject": str}]}

    ``duplicate``: the mail was stored before (the same bytes) or repeats one read
    before (a re-delivery: the same Message-ID and content); ``moves`` as written, main move first; ``reason`` is the recorded reason (or the
    flag, or the error's first line); ``replies`` are the outbox rows with an id above
    ``outbox_after`` (those queued while the mail was read; [] when None); ``withheld``
    the ones among them kept back by the rate limit (status ``suppressed``: summed up
    in one mail an hour later, never sent themselves).
    """
    mail = s.get(InboundMail, mail_id)
    rows = [] if outbox_after is None else list(
        s.execute(_ANSWERS.where(OutboxMail.id > outbox_after).order_by(OutboxMail.id)))
    return _report(mail, rows, name, duplicate)


_MAILS = InboundMail.__table__
#: The columns of a stored mail a report shows (plain rows, not ORM objects: :func:`_report`
#: reads them by the same names).
_REPORTED = select(_MAILS.c.id, _MAILS.c.from_addr, _MAILS.c.subject, _MAILS.c.kind, _MAILS.c.status,
                   _MAILS.c.parse, _MAILS.c.error, _MAILS.c.flagged)
#: The columns of the outbox a report shows (plain rows, not ORM objects).
_ANSWERS = select(OutboxMail.id, OutboxMail.to_addr, OutboxMail.kind, OutboxMail.subject, OutboxMail.status)


def _report(mail, rows, name: str | None, duplicate: bool) -> dict[str, Any]:
    """:func:`report_of` from the stored mail (an :class:`InboundMail` or a row of
    :data:`_REPORTED`) and its answers' outbox rows (:data:`_ANSWERS`)."""
    parse = dict(mail.parse or {})
    errors = [str(e) for e in parse.get("errors", [])]
    reason = parse.get("reason") or mail.flagged
    if mail.status == "error" and mail.error:
        first = mail.error.splitlines()[0]
        errors.append(first)
        reason = reason or first
    replies = [{"to": r.to_addr, "kind": r.kind, "subject": r.subject} for r in rows if r.status != "suppressed"]
    withheld = [{"to": r.to_addr, "kind": r.kind, "subject": r.subject} for r in rows if r.status == "suppressed"]
    kind = mail.kind if mail.kind in ("submission", "command") else "ignored"
    return {"file": name, "id": mail.id, "from": mail.from_addr, "subject": mail.subject, "kind": kind,
            "status": mail.status, "reason": reason,
            "sections": [{"partie": x.get("partie"), "moves": list(x.get("moves", []))}
                         for x in parse.get("sections", [])],
            "errors": errors, "flagged": mail.flagged, "duplicate": duplicate or "duplicate_of" in parse,
            "replies": replies,
            "withheld": withheld}


#: Mails stored in one transaction, then read in one more.
BATCH = 200


def _batch(db, rdb: OneTransaction, cfg: Config, batch: list[tuple[str | None, bytes]], now: datetime | None,
           read_ahead: bool) -> list[dict[str, Any]]:
    """Store ``batch`` raw in one transaction of ``db`` (committed before any of it is
    read), read each newly stored mail in order in ONE transaction of ``rdb``
    (:func:`~bot.service.conversations.intake.read_batch`: without savepoints, and again
    with a savepoint a mail should one fail; the MIME front in the reading workers when
    ``read_ahead``), report them all from it, then commit it (``rdb`` is ``db`` itself
    for a dry run: a savepoint a mail, nothing committed)."""
    stored = store_raw_many(db, [RawMail(raw, "ingest") for _, raw in batch], max_bytes=cfg.max_mail_bytes)
    crashpoint("after-store")  # committed: a crash from here on leaves the batch to the next poll (or ingest)
    # every mail of the batch still waiting to be read: the new ones, and one stored by an
    # earlier run that ended before reading it (process_mail leaves a mail read before as it is)
    todo = list(dict.fromkeys(mid for mid, _ in stored))
    identify_stored(db, todo)  # the headers of the batch, in one UPDATE
    reads = pool_for(cfg.read_workers).read(db, todo) if read_ahead else ((i, None) for i in todo)
    if rdb is not db:  # one transaction: without savepoints first, again with them should a mail fail
        tops = read_batch(rdb, cfg, todo, reads, now)
    else:  # the dry run's one transaction holds the stored mails too: a savepoint a mail
        tops = read_pass(rdb, cfg, todo, reads, [], now, savepoints=True)
    with rdb.session() as s:
        mails = {m.id: m for m in s.execute(_REPORTED.where(_MAILS.c.id.in_({mid for mid, _ in stored})))}
        answers = list(s.execute(_ANSWERS.where(OutboxMail.id > min(lo for lo, _ in tops.values()))
                                 .order_by(OutboxMail.id))) if tops else []
        ids = [r.id for r in answers]
        out = []
        for (name, _), (mid, new) in zip(batch, stored):
            lo, hi = tops.pop(mid, (0, 0))  # a mail twice in the batch: answered (and reported so) once
            rows = answers[bisect_right(ids, lo):bisect_right(ids, hi)]
            out.append(_report(mails[mid], rows, name, not new))
    if rdb is not db:
        rdb.commit()  # the batch read: a crash before this reads it all again, answered once
        crashpoint("after-read")
    return out


def ingest(db: Database, cfg: Config, mails: list[tuple[str | None, bytes]], *, dry_run: bool = False,
           now: datetime | None = None) -> list[dict[str, Any]]:
    """Store, read and answer each ``(name, raw bytes)`` of ``mails`` in order, as the
    poller would; returns one :func:`report_of` dict per mail. A mail already stored
    (the same bytes) or read (the same Message-ID and content) is not read again
    (``duplicate``: True). The mails are stored :data:`BATCH` at a time, in one
    transaction committed before any of them is read (a crash then leaves them stored,
    read by the next poll, or by ``ingest`` of the same files), and read in one more
    transaction a batch, each mail in its own savepoint (:class:`OneTransaction`: a mail
    whose reading fails is rolled back alone and recorded as the poller records it; a
    crash before the batch's commit leaves all of it stored, read again, answered once;
    the MIME front in ``[bot] read_workers`` worker processes). Crash points
    ``after-store`` and ``after-read`` (:mod:`bot.crash`, the latter after a batch's
    reading is committed).

    ``dry_run``: everything happens in one transaction on a separate connection that
    is rolled back, so the database (incl. the outbox) is unchanged afterwards; the
    reports show what would have happened. The outbox is never delivered here (the
    CLI does that after a real run). Errors while reading a mail are recorded in the
    mail (status ``error``), as in the poller; database errors propagate (the batch's
    reading rolled back, its mails stored).
    """
    out: list[dict[str, Any]] = []
    if not dry_run:
        with OneTransaction(db.url) as rdb:
            for k in range(0, len(mails), BATCH):
                with collector_paused():
                    out += _batch(db, rdb, cfg, mails[k:k + BATCH], now, read_ahead=True)
        return out
    with RollbackDatabase(db.url) as rdb:
        for k in range(0, len(mails), BATCH):
            with collector_paused():
                out += _batch(rdb, rdb, cfg, mails[k:k + BATCH], now, read_ahead=False)
    return out


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for one batch (at most :data:`BATCH` mails),
    on again after it if it was on (issue 35, item 3). Reading a batch makes many
    short-lived objects (SQLAlchemy's rows and ORM instances, parsed mails, rendered
    texts), and each collection walked every object the process holds (the grammars,
    templates, word lists) again: on the bench's 1,000 mails the command took about
    15 % less CPU a mail with the collector off while reading, peak RSS unchanged
    (docs/development/performance.md, "Ingest: the collector paused"). Cycles made in
    the batch are collected after it, by the collector's next run."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def print_reports(reports: list[dict[str, Any]], *, as_json: bool, out: TextIO) -> None:
    """Write the reports to ``out``: with ``as_json`` one JSON object per line (the dicts
    of :func:`report_of`), else one German summary line per mail."""
    for r in reports:
        if as_json:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
            continue
        what = "; ".join(f"Partie {x['partie'] or '?'}: {', '.join(x['moves'])}" for x in r["sections"])
        extra = [x for x in (what, r["reason"], *r["errors"]) if x]
        dup = " (schon gespeichert)" if r["duplicate"] else ""
        out.write(f"{r['file']}: {r['from'] or '?'}, {r['kind']} ({r['status']}){dup}"
                  + (": " + " | ".join(extra) if extra else "") + "\n")

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

import json
import logging
from bisect import bisect_right
from itertools import chain
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Iterator, TextIO

from sqlalchemy import event, func, select
from sqlalchemy.orm import Session, sessionmaker

from bot.config import Config
from bot.crash import crashpoint
from bot.service.conversations.intake import process_mail
from bot.service.stages.outbox import FREE_KEYS, free_keys
from bot.service.stages.readpool import pool_for
from bot.service.stages.store import SAME_ID, RawMail, identify_stored, same_ids, store_raw_many
from bot.storage.db import BATCH as SHARED, STALE, Database, make_engine
from bot.storage.models import InboundMail, OutboxMail

log = logging.getLogger(__name__)

__all__ = ["ingest", "report_of", "print_reports", "OneTransaction", "RollbackDatabase"]


class OneTransaction:
    """A stand-in for :class:`~bot.storage.db.Database` whose sessions all live in one
    outer transaction on one connection: each ``session()`` is a SAVEPOINT (committed =
    released, failed = rolled back to the savepoint, so one mail that cannot be read
    loses nothing of the others). :meth:`begin` opens the outer transaction,
    :meth:`commit` commits it, :meth:`close` rolls back whatever is left uncommitted and
    releases the connection. On SQLite the driver's own transaction handling is switched
    off so SAVEPOINTs nest correctly (a separate engine: the main one keeps the driver's,
    which ``PRAGMA synchronous`` of a durable commit needs). Use as a context manager.

    The savepoints of one outer transaction are one ORM session's (``begin_nested``): the
    objects a mail loaded stay loaded for the next (the batch's mails, loaded at once with
    :meth:`hold`; the senders' leagues and players), since every change of the batch goes
    through that session. Whatever a mail may have changed otherwise -- a command, which
    may change rounds and Partien with plain statements (it calls
    :func:`~bot.service.conversations.mailctx.forget_batch`), or a failed mail rolled back
    -- expires them all once the mail is done, and empties the shared lookups."""

    #: How SQLite opens the outer transaction: with the write lock at once (``IMMEDIATE``,
    #: waiting for another writer as any write does), so a batch that has read can always
    #: write (a deferred transaction whose snapshot another process has written past
    #: would fail at its first write instead of waiting).
    BEGIN = "BEGIN IMMEDIATE"

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        if url.startswith("sqlite"):
            @event.listens_for(self.engine, "connect")
            def _no_pysqlite_tx(dbapi_conn, _rec):  # pragma: no cover - trivial
                dbapi_conn.isolation_level = None

            @event.listens_for(self.engine, "begin")
            def _begin(conn):  # pragma: no cover - trivial
                conn.exec_driver_sql(self.BEGIN)
        self.conn = self.engine.connect()
        self.outer = None
        #: lookups shared by the mails of the batch (:data:`bot.storage.db.BATCH`):
        #: emptied at :meth:`begin` and whenever a mail may change them (a command, a failure)
        self.batch: dict = {}
        self.sessions = sessionmaker(bind=self.conn, expire_on_commit=False,
                                     join_transaction_mode="create_savepoint")
        self._shared: Session | None = None  # the ORM session of the outer transaction
        #: each :meth:`session` in a SAVEPOINT of its own; False: in the outer transaction
        #: itself, a failure leaves it to the caller to roll back (``ingest``'s first pass)
        self.savepoints = True
        self._held: list = []  # objects kept loaded for the batch (hold)

    def begin(self) -> None:
        """Open the outer transaction (the sessions are savepoints in it)."""
        self.batch.clear()
        self.outer = self.conn.begin()

    def commit(self) -> None:
        """Commit the outer transaction (the ORM session's work in it first)."""
        self.batch.clear()
        self._held.clear()
        if self._shared is not None:
            s, self._shared = self._shared, None
            s.commit()  # releases the session's own savepoint; nothing is left to flush
            s.close()
        self.outer.commit()

    def rollback(self) -> None:
        """Roll the outer transaction back (the ORM session's work with it); :meth:`begin`
        opens the next."""
        self.batch.clear()
        self._held = []
        try:
            if self._shared is not None:
                self._shared.close()
        finally:
            self._shared = None
            self.outer.rollback()

    def hold(self, objects: list) -> None:
        """Keep ``objects`` (loaded in a :meth:`session`) loaded for the batch (instead of
        those held before): the
        session's identity map holds only what is referenced (until :meth:`commit`, or
        until a mail expires everything)."""
        self._held = list(objects)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """The outer transaction's ORM session in a SAVEPOINT of its own, with the batch's
        shared lookups (``info[bot.storage.db.BATCH]``)."""
        if self._shared is None:
            self._shared = self.sessions(info={SHARED: self.batch})
        s = self._shared
        try:
            if self.savepoints:
                with s.begin_nested():
                    yield s
            else:
                yield s
                s.flush()
        except BaseException:
            self._forget(s)
            for key in [k for k in s.info if k != SHARED]:  # what the failed reading left behind
                del s.info[key]
            raise
        if self.batch.get(STALE):
            self._forget(s)

    def _forget(self, s: Session) -> None:
        """A mail may have changed what the batch keeps (a command; a failure rolled back):
        every loaded object expired (read again when used), the shared lookups emptied."""
        self.batch.clear()
        self._held.clear()
        s.expire_all()

    def close(self) -> None:
        """Roll back what is not committed and release the connection."""
        try:
            if self._shared is not None:
                self._shared.close()
                self._shared = None
            if self.outer is not None and self.outer.is_active:
                self.outer.rollback()
        finally:
            self.conn.close()
            self.engine.dispose()

    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


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
_TOP = select(func.max(OutboxMail.id))


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


#: Mails stored in one transaction, then read in one more (a savepoint each).
BATCH = 200


def _top(db) -> int:
    """The highest outbox id committed (or, in a :class:`OneTransaction`, written in it:
    asked on its driver connection directly, once a mail, without the statement machinery
    around it)."""
    if isinstance(db, OneTransaction):
        cur = db.conn.connection.cursor()
        try:
            cur.execute("SELECT max(id) FROM outbox")
            return cur.fetchone()[0] or 0
        finally:
            cur.close()
    with db.engine.connect() as conn:
        return conn.execute(_TOP).scalar() or 0


def _read(rdb: OneTransaction, cfg: Config, todo: list[int], reads, seen: list, now: datetime | None, *,
          savepoints: bool) -> dict[int, tuple[int, int]]:
    """Read the batch's mails ``todo`` (``reads``: ``(id, ReadMail or None)`` each, in
    order, appended to ``seen`` as they are taken) in ``rdb``'s open transaction; returns
    each mail's outbox ids ``(above, up to)``, those queued while it was read.

    With ``savepoints`` each mail is read in a savepoint of its own (a mail whose reading
    fails is rolled back alone and recorded, :func:`process_mail`); without, the mails
    are read one after the other in the one transaction, and the first failure raises:
    the caller rolls the pass back and reads the batch again with savepoints (mails
    rarely fail; the savepoints cost two statements and their bookkeeping a mail)."""
    rdb.savepoints = savepoints
    with rdb.session() as s:  # the batch's mails, loaded at once (process_mail finds them loaded)
        rdb.hold(s.scalars(select(InboundMail).where(InboundMail.id.in_(todo))).all())
    rdb.batch[SAME_ID] = same_ids(rdb.conn, todo)  # the re-delivery check of every mail, in one statement
    rdb.batch[FREE_KEYS] = free_keys(rdb.conn, cfg, [f"ack:{mid}" for mid in todo])  # their acknowledgements' keys
    tops: dict[int, tuple[int, int]] = {}
    top = _top(rdb)
    for mid, rm in reads:
        seen.append((mid, rm))
        process_mail(rdb, cfg, mid, now, read=rm)
        after = _top(rdb)
        tops[mid], top = (top, after), after
    return tops


def _batch(db, rdb: OneTransaction, cfg: Config, batch: list[tuple[str | None, bytes]], now: datetime | None,
           read_ahead: bool) -> list[dict[str, Any]]:
    """Store ``batch`` raw in one transaction of ``db`` (committed before any of it is
    read), read each newly stored mail in order in ONE transaction of ``rdb``
    (:func:`process_mail`, each mail in a savepoint of it; the MIME front in the reading
    workers when ``read_ahead``), report them all from it, then commit it (``rdb`` is
    ``db`` itself for a dry run: nothing is committed)."""
    stored = store_raw_many(db, [RawMail(raw, "ingest") for _, raw in batch], max_bytes=cfg.max_mail_bytes)
    crashpoint("after-store")  # committed: a crash from here on leaves the batch to the next poll (or ingest)
    # every mail of the batch still waiting to be read: the new ones, and one stored by an
    # earlier run that ended before reading it (process_mail leaves a mail read before as it is)
    todo = list(dict.fromkeys(mid for mid, _ in stored))
    identify_stored(db, todo)  # the headers of the batch, in one UPDATE
    reads = pool_for(cfg.read_workers).read(db, todo) if read_ahead else ((i, None) for i in todo)
    seen: list = []  # what the reading workers gave, kept for a second pass
    pending = iter(reads)
    if rdb is not db:  # first without savepoints: a mail that fails ends the pass (see _read)
        rdb.begin()
        try:
            tops = _read(rdb, cfg, todo, pending, seen, now, savepoints=False)
        except Exception:  # nothing of the pass stays; read again with a savepoint a mail
            log.info("Ingest: eine Mail des Stapels scheiterte, der Stapel wird mit Sicherungspunkten neu gelesen")
            rdb.rollback()
            rdb.begin()
            tops = _read(rdb, cfg, todo, chain(list(seen), pending), [], now, savepoints=True)
    else:
        tops = _read(rdb, cfg, todo, pending, seen, now, savepoints=True)
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
    if not dry_run:
        with OneTransaction(db.url) as rdb:
            return [r for k in range(0, len(mails), BATCH)
                    for r in _batch(db, rdb, cfg, mails[k:k + BATCH], now, read_ahead=True)]
    with RollbackDatabase(db.url) as rdb:
        return [r for k in range(0, len(mails), BATCH)
                for r in _batch(rdb, rdb, cfg, mails[k:k + BATCH], now, read_ahead=False)]


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

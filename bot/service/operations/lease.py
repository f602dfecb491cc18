"""One ``spielleiter run`` per database: the service lease, and the hot standby.

Two services on one database would both read, adjudicate and send (issue 34: of 40
moves, 6 were answered twice). ``run`` therefore takes a lease in the database before it
does anything; a second ``run`` logs one line naming the holder (host, pid, since when)
and waits as a standby, taking over within a few seconds of the holder's death.

How the lease is held (the database itself keeps it; no lock file beside it):

- **PostgreSQL**: a session-level advisory lock (``pg_try_advisory_lock``, key
  :data:`PG_KEY`) on a connection the service keeps open. It dies with the process (the
  server ends the session when the connection drops), so a standby that tries every
  :data:`HEARTBEAT` seconds takes over at once. The ``service_lease`` row beside it only
  says who holds it (the standby line).
- **SQLite**: the ``service_lease`` row with a heartbeat. The holder renews
  ``heartbeat_at`` every :data:`HEARTBEAT` seconds; a row whose heartbeat is older than
  :data:`TTL` belongs to a dead service and is taken over by a conditional ``UPDATE``
  (one statement, so of two standbys exactly one wins). A held SQLite write transaction
  would also die with the process, but it would block every other writer (``spielleiter
  gm``, ``adjudicate``) for as long as the service runs; the heartbeat row does not.
  Takeover takes at most ``TTL + HEARTBEAT`` seconds.

A holder that finds the lease taken by another (its heartbeat was late past :data:`TTL`,
e.g. the machine was suspended) stops at once (``on_lost``): a service never works
without the lease. While the database is unreachable the lease is kept as it is (no one
else can take it meanwhile on SQLite; on PostgreSQL the lock is taken again when the
database is back, or the service stops if a standby has it).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import datetime, timedelta, timezone
from typing import Callable

from sqlalchemy import delete, select, text, update
from sqlalchemy.exc import IntegrityError

from bot.storage.db import Database
from bot.storage.models import ServiceLease

log = logging.getLogger(__name__)

#: seconds between two heartbeats (and two tries of a standby)
HEARTBEAT = 1.0
#: a heartbeat older than this belongs to a dead service (SQLite)
TTL = timedelta(seconds=5)
#: the advisory lock key of ``spielleiter run`` on PostgreSQL
PG_KEY = 0x5370_6C31  # "Spl1"
NAME = "run"


def _now() -> datetime:
    return datetime.now(timezone.utc)


class Lease:
    """The lease of one service on ``db``. :meth:`acquire` blocks until it is held;
    :meth:`start_heartbeat` keeps it; :meth:`release` gives it up."""

    def __init__(self, db: Database, *, heartbeat: float = HEARTBEAT, ttl: timedelta = TTL) -> None:
        self.db, self.heartbeat, self.ttl = db, heartbeat, ttl
        self.host, self.pid = socket.gethostname(), os.getpid()
        self.holder = f"{self.host}:{self.pid}:{uuid.uuid4().hex[:8]}"
        self.since: datetime | None = None
        self._pg_conn = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- taking ------------------------------------------------------------------------
    def _pg_lock(self) -> bool:
        if self.db.is_sqlite:
            return True
        if self._pg_conn is not None:
            try:
                self._pg_conn.exec_driver_sql("SELECT 1")
                return True
            except Exception:
                self._drop_pg()
        conn = self.db.engine.connect()
        try:
            got = conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": PG_KEY}).scalar()
            conn.commit()
        except Exception:
            conn.close()
            raise
        if not got:
            conn.close()
            return False
        self._pg_conn = conn
        return True

    def _drop_pg(self) -> None:
        conn, self._pg_conn = self._pg_conn, None
        if conn is not None:
            try:
                conn.invalidate()
            except Exception:  # pragma: no cover - already gone
                pass

    def try_take(self) -> ServiceLease | None:
        """Take the lease if it is free or its holder is dead; returns None when taken,
        else a detached copy of the holder's row (for the standby line)."""
        if not self._pg_lock():
            with self.db.session() as s:
                return s.get(ServiceLease, NAME)
        now = _now()
        pg = not self.db.is_sqlite
        with self.db.session() as s:
            row = s.get(ServiceLease, NAME)
            if row is None:
                s.add(ServiceLease(name=NAME, holder=self.holder, host=self.host, pid=self.pid, since=now,
                                   heartbeat_at=now))
                try:
                    s.flush()
                except IntegrityError:  # another standby was quicker
                    return _copy(row) if row else ServiceLease(name=NAME, holder="?", host="?", pid=0,
                                                               since=now, heartbeat_at=now)
            else:
                q = update(ServiceLease).where(ServiceLease.name == NAME)
                if not pg:  # on PostgreSQL the advisory lock decides; the row only informs
                    q = q.where(ServiceLease.holder == row.holder, ServiceLease.heartbeat_at == row.heartbeat_at)
                    if row.holder != self.holder and row.heartbeat_at >= now - self.ttl:
                        return _copy(row)
                n = s.execute(q.values(holder=self.holder, host=self.host, pid=self.pid, since=now,
                                       heartbeat_at=now).execution_options(synchronize_session=False)).rowcount
                if n != 1:
                    return _copy(s.get(ServiceLease, NAME)) or row
        self.since = now
        return None

    def acquire(self, stopping: threading.Event | None = None) -> bool:
        """Block until the lease is held (True), or ``stopping`` is set (False). While
        another service holds it, one line says who, and this one waits as standby."""
        stopping = stopping or threading.Event()
        told = None
        while not stopping.is_set():
            try:
                other = self.try_take()
            except Exception as exc:  # a race with another standby, or the database is down: try again
                log.debug("lease: %s", exc)
                stopping.wait(self.heartbeat)
                continue
            if other is None:
                if told is not None:
                    log.warning("Übernommen: dieser Dienst (%s, pid %d) arbeitet jetzt; der vorige (%s, pid %d) "
                                "antwortet nicht mehr.", self.host, self.pid, told.host, told.pid)
                return True
            if told is None or told.holder != other.holder:
                log.warning("Ein anderer Dienst hält die Datenbank (%s, pid %d, seit %s); dieser wartet "
                            "als Bereitschaft und übernimmt, sobald jener endet.", other.host, other.pid,
                            other.since.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"))
                told = other
            stopping.wait(self.heartbeat)
        return False

    # -- keeping -----------------------------------------------------------------------
    def beat(self) -> bool:
        """Renew the heartbeat; False when another service holds the lease now. Raises
        when the database cannot be reached."""
        if not self._pg_lock():
            return False
        with self.db.session() as s:
            n = s.execute(update(ServiceLease).where(ServiceLease.name == NAME, ServiceLease.holder == self.holder)
                          .values(heartbeat_at=_now()).execution_options(synchronize_session=False)).rowcount
        return n == 1

    def start_heartbeat(self, on_lost: Callable[[], None]) -> None:
        """Renew the lease every :attr:`heartbeat` seconds in a thread; call ``on_lost``
        once if another service has taken it."""
        def run() -> None:
            while not self._stop.wait(self.heartbeat):
                try:
                    ok = self.beat()
                except Exception as exc:  # the database is down: nobody can take it meanwhile
                    log.debug("lease heartbeat failed: %s", exc)
                    continue
                if not ok:
                    log.error("Ein anderer Dienst hat die Datenbank übernommen; dieser endet.")
                    on_lost()
                    return
        self._thread = threading.Thread(target=run, name="spielleiter-lease", daemon=True)
        self._thread.start()

    def release(self) -> None:
        """Stop the heartbeat and give the lease up (a standby takes over at once)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            with self.db.session() as s:
                s.execute(delete(ServiceLease).where(ServiceLease.name == NAME, ServiceLease.holder == self.holder))
        except Exception as exc:  # the database is down: the heartbeat expires
            log.debug("lease release failed: %s", exc)
        if self._pg_conn is not None:
            try:
                self._pg_conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": PG_KEY})
                self._pg_conn.commit()
                self._pg_conn.close()
            except Exception:
                pass
            self._pg_conn = None


def _copy(row: ServiceLease | None) -> ServiceLease | None:
    if row is None:
        return None
    return ServiceLease(name=row.name, holder=row.holder, host=row.host, pid=row.pid, since=row.since,
                        heartbeat_at=row.heartbeat_at)


def holder(db: Database) -> ServiceLease | None:
    """The lease row (who runs on ``db``), or None."""
    with db.session() as s:
        return _copy(s.get(ServiceLease, NAME))

"""Reading stored mails' MIME on the other cores, the way GNU Mailman 3's runners do.

The game-independent front of reading a mail (:func:`bot.mail.message.read_mail`: MIME
-> text -> reply stripping; a pure function of the stored bytes) is done for a batch of
stored mails in worker processes (:class:`concurrent.futures.ProcessPoolExecutor`, the
results small picklable :class:`~bot.mail.message.ReadMail` values), while the main
process does everything else for each mail in stored order, one transaction per mail
(:func:`bot.service.conversations.intake.process_mail`: the sender, the state checks, the moves, the
acknowledgement). The results are the same as reading in-process: ``read_mail`` depends
on nothing but the bytes.

- ``[bot] read_workers`` (default: the number of CPUs; 1: off) sets the pool size;
- a batch of fewer than :data:`MIN_BATCH` mails is read in-process (no pool start-up for
  the single mail of a quiet poll);
- a mail whose reading fails in a worker (an exception, a crashed or killed worker, a
  broken pool) is read in-process as before: nothing is lost, and an exception of
  ``read_mail`` itself (never expected: it never raises on bad input) shows up where it
  always did, in :func:`~bot.service.conversations.intake.process_mail`'s error handling;
- the main process never waits for a worker: a mail the workers have not read yet
  (while they start, about half a second) is read in-process, and so is a stored mail
  over :data:`BIG_MAIL` bytes;
- the pool is started on first use (``spawn``: safe beside the service's threads) and
  kept for the next pass; a broken pool is dropped and started again on the next batch;
- the workers end with the process that started them, however it ends (at exit, on
  SIGTERM, and within a second after a SIGKILL: :func:`watch_parent`).
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from sqlalchemy import func, select

from bot.mail.message import ReadMail, read_all, read_mail
from bot.storage.db import Database
from bot.storage.models import InboundMail

log = logging.getLogger(__name__)

#: Fewer stored mails than this are read in-process.
MIN_BATCH = 20
#: Mails loaded and handed to the workers at a time: the workers read one chunk ahead of
#: the main process.
CHUNK = 100
#: Mails per task sent to a worker (fewer round trips than one mail each).
TASK = 8
#: Larger stored mails are read in-process (two chunks of them in memory stay under
#: 200 MiB; ``[bot] max_mail_bytes`` allows 10 MiB a mail).
BIG_MAIL = 1024 * 1024


class ReadPool:
    """Worker processes reading stored mails (see the module docstring). ``workers``: the
    pool size (at most 1: no pool); ``reader``: the function run on each stored mail's
    bytes, a module-level function (pickled by name; tests swap it); ``wait``: wait for
    the workers' results instead of reading in-process what they have not finished
    (tests)."""

    def __init__(self, workers: int, reader: Callable[[bytes], ReadMail] = read_mail, *, wait: bool = False) -> None:
        self.workers, self.reader, self.wait = workers, reader, wait
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._pool is None and self.workers > 1:
                try:
                    self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=watch_parent, initargs=(os.getpid(),))
                except Exception:  # no processes to be had: read in-process
                    log.exception("Start von %d Leseprozessen gescheitert; lese im Hauptprozess", self.workers)
                    return None
            return self._pool

    def shutdown(self) -> None:
        """Stop the workers (started again when needed)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _broken(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    def read(self, db: Database, ids: Sequence[int]) -> Iterator[tuple[int, ReadMail | None]]:
        """``(mail id, ReadMail or None)`` for every id of ``ids``, in order; None where the
        mail is to be read in-process (too few mails, no pool, a worker failed, the mail
        is no longer stored, or its worker has not finished it yet: the caller never
        waits for a worker, unless :attr:`wait`). Lazy: the caller reads the mails one by
        one while the workers read ahead, one chunk at a time."""
        pool = self._executor() if len(ids) >= MIN_BATCH else None
        if pool is None:
            for i in ids:
                yield i, None
            return
        chunks = list(_chunks(ids, CHUNK))
        ahead: list[tuple[list[int], list[tuple[list[int], Future | None]]]] = []
        usable = True

        def submit(chunk: list[int]) -> None:
            raws = _load(db, chunk)
            tasks: list[tuple[list[int], Future | None]] = []
            batch: list[int] = []
            for i in chunk:
                if i in raws:
                    batch.append(i)
                if batch and (len(batch) >= TASK or i == chunk[-1]):
                    fut = None
                    if usable:
                        try:
                            fut = pool.submit(read_all, [raws[j] for j in batch], self.reader)
                        except Exception:  # the pool broke meanwhile
                            fut = None
                    tasks.append((batch, fut))
                    batch = []
            ahead.append((chunk, tasks))

        for n, chunk in enumerate(chunks):
            if n == 0:
                submit(chunk)
            if n + 1 < len(chunks):
                submit(chunks[n + 1])
            chunk, tasks = ahead.pop(0)
            task_of = {i: k for k, (batch, _) in enumerate(tasks) for i in batch}
            results: dict[int, dict[int, ReadMail]] = {}
            for i in chunk:
                k = task_of.get(i)
                if k is not None and k not in results:
                    batch, fut = tasks[k]
                    if fut is not None and (self.wait or fut.done()):
                        results[k] = {}
                        try:
                            results[k] = dict(zip(batch, fut.result(), strict=True))
                        except Exception:
                            # a worker crashed or the reader raised there: these mails are
                            # read in-process (where a real error is handled as always)
                            log.warning("Lesen der Mails %s in einem Leseprozess gescheitert; lese sie im Hauptprozess", batch,
                                        exc_info=True)
                            if usable and _is_broken(fut):
                                usable = False
                                self._broken(pool)
                yield i, results.get(k, {}).get(i) if k is not None else None


#: Seconds between a worker's looks at its parent process.
PARENT_CHECK = 0.5


def watch_parent(parent: int) -> None:
    """A worker's initializer: end the worker as soon as the process that started it,
    ``parent``, is gone, however it ended (SIGKILL included, which runs no clean-up of
    its own); without it the workers would wait for work forever, and with them the
    multiprocessing resource tracker (a worker holds the queue's both ends)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(0)
    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _is_broken(fut: Future) -> bool:
    exc = fut.exception() if fut.done() else None
    return isinstance(exc, BrokenProcessPool)


def _chunks(ids: Sequence[int], n: int) -> Iterator[list[int]]:
    for k in range(0, len(ids), n):
        yield list(ids[k:k + n])


def _load(db: Database, ids: list[int]) -> dict[int, bytes]:
    """The stored bytes of those of ``ids`` still waiting to be read, up to
    :data:`BIG_MAIL` bytes each (a larger one is read in-process)."""
    t = InboundMail.__table__
    with db.engine.connect() as conn:
        return {i: bytes(raw) for i, raw in conn.execute(
            select(t.c.id, t.c.raw).where(t.c.id.in_(ids), t.c.status == "stored",
                                          func.length(t.c.raw) <= BIG_MAIL))}


_POOLS: dict[int, ReadPool] = {}
_POOLS_LOCK = threading.Lock()


def pool_for(workers: int) -> ReadPool:
    """The process-wide :class:`ReadPool` of ``workers`` workers (started on first use,
    stopped at exit)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = ReadPool(workers)
        return pool


@atexit.register
def _shutdown_all() -> None:
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        try:
            pool.shutdown()
        except Exception:  # pragma: no cover - at exit
            pass

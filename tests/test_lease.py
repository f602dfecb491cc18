"""One service per database, with a hot standby (issue 34, item 4): two real
``spielleiter run`` on one SQLite and on one PostgreSQL database; the second says in one
line who holds the lease and waits; 40 move mails arrive, the active service is killed
(SIGKILL) midway, the standby takes over within a few seconds; afterwards every mail is
answered once, every round adjudicated once (:meth:`tests.chaos.Chaos.check`)."""

from __future__ import annotations

import email
import email.policy
import signal
import time
from collections import Counter

import pytest
from sqlalchemy import select

from bot.service.operations.lease import Lease, holder
from bot.storage.db import Database
from bot.storage.models import OutboxMail
from tests.chaos import Chaos

pytestmark = pytest.mark.e2e


class _Url:
    """A PostgreSQL database for :class:`Chaos` (``pg.create_database()``)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def create_database(self) -> str:
        return self.url


def _wait(what, timeout: float, why: str, chaos: Chaos):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        got = what()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"{why} not within {timeout:.0f} s\n{chaos.log_tail()}")


def _holder_pid(chaos: Chaos) -> int | None:
    db = Database(chaos.db_url)
    try:
        row = holder(db)
        return row.pid if row else None
    except Exception:
        return None
    finally:
        db.dispose()


def _two_services(chaos: Chaos) -> None:
    chaos.start_service()
    first = chaos.proc
    _wait(lambda: _holder_pid(chaos) == first.pid, 30, "the first service's lease", chaos)
    chaos.start_service()
    second = chaos.proc
    standby_log = chaos.logs[-1]
    line = _wait(lambda: next((ln for ln in standby_log.read_text().splitlines()
                               if "hält die Datenbank" in ln), None), 15, "the standby line", chaos)
    assert f"pid {first.pid}" in line and "Bereitschaft" in line, line
    for _ in range(4):  # 20 mails while the first one works
        chaos.move_zat()
        chaos.deliver(5)
        time.sleep(1.0)
    assert _holder_pid(chaos) == first.pid  # the standby only waits
    first.send_signal(signal.SIGKILL)
    first.wait()
    killed = time.monotonic()
    for _ in range(4):  # 20 more while the standby takes over
        chaos.move_zat()
        chaos.deliver(5)
        time.sleep(1.0)
    _wait(lambda: _holder_pid(chaos) == second.pid, 15, "the takeover", chaos)
    assert time.monotonic() - killed < 15
    t0 = time.monotonic()
    while chaos.rounds_done() < 2 and time.monotonic() - t0 < 30:
        chaos.move_zat()
        time.sleep(0.5)
    chaos.proc = second
    chaos.settle(timeout=60)
    f = chaos.check()
    assert chaos.sent == 40 and f.acks == 40 and f.rounds >= 1, f
    assert f.tracebacks == 0, chaos.tracebacks()
    # every answer delivered once: the standby never sent what the first one had sent
    delivered = Counter(email.message_from_bytes(m.raw, policy=email.policy.compat32)["Message-ID"]
                        for m in chaos.smtp.messages)
    db = Database(chaos.db_url)
    try:
        with db.session() as s:
            acks = [r.message_id for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "ack"))]
    finally:
        db.dispose()
    assert len(acks) == 40 and all(delivered[m] == 1 for m in acks), [delivered[m] for m in acks]
    assert "Übernommen" in standby_log.read_text()


def test_two_services_on_sqlite(tmp_path, dovecot):
    _two_services(Chaos(tmp_path, dovecot))


@pytest.mark.postgres
def test_two_services_on_postgresql(tmp_path, dovecot, postgres_url):
    chaos = Chaos(tmp_path, dovecot, _Url(postgres_url))
    _two_services(chaos)


def test_a_lease_is_held_once_and_taken_over_when_its_heartbeat_stops(tmp_path):
    """Two leases on one SQLite database: the second is refused while the first beats,
    and takes it once the heartbeat is older than the TTL; the first then finds it lost."""
    from datetime import timedelta
    db = Database(f"sqlite:///{tmp_path / 'l.sqlite'}")
    db.migrate()
    try:
        a = Lease(db, ttl=timedelta(seconds=1))
        b = Lease(db, ttl=timedelta(seconds=1))
        assert a.try_take() is None
        other = b.try_take()
        assert other is not None and other.holder == a.holder
        assert a.beat()
        time.sleep(1.3)
        assert b.try_take() is None  # a's heartbeat is stale: b takes over
        assert not a.beat()
        b.release()
        assert holder(db) is None
    finally:
        db.dispose()

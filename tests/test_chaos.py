"""The chaos run in the suite (issue 26), short: ``spielleiter run`` on SQLite and on
PostgreSQL while mails arrive in bursts and the service, the IMAP server, the SMTP server
and (PostgreSQL) the database are killed and restarted at seeded random moments; then
nothing is lost, nothing is answered twice, every due round is adjudicated once. The
long version with figures is ``bench/chaos.py`` (see ``tests/chaos.py``)."""

from __future__ import annotations

import os

import pytest

from tests.chaos import Chaos

pytestmark = pytest.mark.e2e

#: Seconds of faults per run (``SPIELLEITER_CHAOS_SECONDS`` for a longer one).
SECONDS = float(os.environ.get("SPIELLEITER_CHAOS_SECONDS", "30"))


@pytest.mark.parametrize("seed", [1])
def test_chaos_on_sqlite(tmp_path, dovecot, seed):
    chaos = Chaos(tmp_path, dovecot, seed=seed)
    chaos.play(SECONDS, min_rounds=2)
    chaos.settle()
    f = chaos.check()
    assert f.mails > 20 and f.rounds >= 2 and f.faults["service"] >= 1, f
    assert f.tracebacks == 0, chaos.tracebacks()


@pytest.mark.postgres
@pytest.mark.parametrize("seed", [2])
def test_chaos_on_postgresql(tmp_path, dovecot, own_postgres, seed):
    chaos = Chaos(tmp_path, dovecot, own_postgres, seed=seed)
    chaos.play(SECONDS, min_rounds=2)
    chaos.settle()
    f = chaos.check()
    assert f.mails > 20 and f.rounds >= 2 and f.faults["database"] >= 1, f
    assert f.tracebacks == 0, chaos.tracebacks()

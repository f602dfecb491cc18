"""The cyclic garbage collector is off while ``spielleiter ingest`` reads a batch and as
it was after (bot.service.operations.ingest.collector_paused; issue 35, item 3)."""

from __future__ import annotations

import gc

import pytest

from bot.service.operations import ingest as ingest_mod
from bot.service.operations.ingest import ingest
from tests.test_ingest import env  # noqa: F401 (fixture)


def _mails(files):
    return [(f, open(f, "rb").read()) for f in files]


@pytest.fixture
def seen(monkeypatch):
    """The collector's state each time a batch is read (the real readers run)."""
    states: list[bool] = []

    def spy(real):
        def read(*a, **k):
            states.append(gc.isenabled())
            return real(*a, **k)
        return read

    # (a real run reads by read_batch, a dry run by read_pass)
    monkeypatch.setattr(ingest_mod, "read_batch", spy(ingest_mod.read_batch))
    monkeypatch.setattr(ingest_mod, "read_pass", spy(ingest_mod.read_pass))
    was = gc.isenabled()
    yield states
    gc.enable() if was else gc.disable()


@pytest.mark.parametrize("dry_run", [False, True])
def test_the_collector_is_off_while_a_batch_is_read_and_on_again_after(env, seen, monkeypatch, dry_run):  # noqa: F811
    db, cfg, md, conf, files = env
    monkeypatch.setattr(ingest_mod, "BATCH", 2)  # two batches: 2 + 1 mails
    gc.enable()
    reports = ingest(db, cfg, _mails(files), dry_run=dry_run)
    assert len(reports) == 3 and not any(r.get("duplicate") for r in reports)
    assert seen == [False, False]
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off(env, seen):  # noqa: F811
    db, cfg, md, conf, files = env
    gc.disable()
    ingest(db, cfg, _mails(files))
    assert seen == [False] and not gc.isenabled()


def test_the_collector_is_on_again_when_a_batch_fails(env, monkeypatch):  # noqa: F811
    db, cfg, md, conf, files = env

    def boom(*a, **k):
        assert not gc.isenabled()
        raise RuntimeError("database gone")

    monkeypatch.setattr(ingest_mod, "read_batch", boom)
    gc.enable()
    with pytest.raises(RuntimeError, match="database gone"):
        ingest(db, cfg, _mails(files))
    assert gc.isenabled()

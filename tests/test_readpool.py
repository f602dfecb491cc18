"""Reading stored mails in worker processes (``[bot] read_workers``, bot.service.stages.readpool):
the same statuses, flags and answers as reading in-process, in stored order; a worker
that fails or dies loses nothing."""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.mail.message import read_mail
from bot.service.conversations import intake
from bot.service.stages import readpool
from bot.service.conversations.intake import process_pending
from bot.service.stages.store import make_store
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.readpool import ReadPool
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Submission
from tests.helpers import league_toml, player_mail, text_of

AUTOMAIL = Path(__file__).parent / "automail"
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)
ZAT = NOW + timedelta(days=5)


def _corpus() -> list[bytes]:
    """Submissions (plain, HTML, quoted replies, corrections, errors), commands, unknown
    senders, auto-replies and bounces, broken MIME: more than MIN_BATCH mails."""
    out = []
    for n in range(4):
        for who in ("Anna Albers <anna@example.org>", "Bernd Becker <bernd@example.org>",
                    "Clara Conrad <clara@example.org>"):
            out.append(player_mail(who, f"Partie R1:\nQQQ\nErsatz: ABC\n\nPartie R2:\nZUG{n}\n",
                                   subject=f"Züge {n}"))
    out.append(player_mail("Anna Albers <anna@example.org>", "Partie R9:\nQQQ\n"))  # unknown Partie
    out.append(player_mail("Bernd Becker <bernd@example.org>", "nur Gruesse, keine Zuege"))
    out.append(player_mail("Fremd <fremd@example.net>", "Partie R1:\nQQQ\nAnna Albers"))  # unknown sender
    out.append(player_mail("Clara Conrad <clara@example.org>", "HILFE", subject="HILFE"))
    out.append(b"From: Anna Albers <anna@example.org>\r\nTo: spielleiter@example.org\r\nSubject: html\r\n"
               b"Message-ID: <html1@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
               b"<p>Partie R1:<br>QQQ</p><blockquote>&gt; alt</blockquote>\r\n")
    out.append(b"From: Bernd Becker <bernd@example.org>\r\nSubject: kaputt\r\nMessage-ID: <broken@example.org>\r\n"
               b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"x\"\r\n\r\n--x\r\n"
               b"Content-Type: text/plain; charset=nonsense-8\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!\r\n")
    out += [p.read_bytes() for p in sorted(AUTOMAIL.glob("*.eml"))[:12]]
    return out


def _setup(tmp_path: Path, name: str, db_url: str | None = None):
    cfg = embedded(tmp_path / name)
    if db_url:
        cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    cfg.rate_limit_per_hour = 0
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / f"{name}.toml", first_zat=ZAT)), cfg)
    deliver(db, md, cfg)
    for raw in _corpus():
        md.deliver_to_inbox(raw)
    md.poll(make_store(db, cfg, "maildir"))  # stored, not read yet
    return db, cfg


_VOLATILE = re.compile(r"\d{4}-\d\d-\d\dT[\d:.+]+|<[^<>@\s]+@[^<>\s]+>")


def _outcome(db) -> tuple[list, list, list]:
    """Per stored mail its status, kind, what was read, flag; per answer its key, kind,
    addressee, subject and text (dates and Message-IDs left out); the submissions."""
    with db.session() as s:
        mails = [(m.status, m.kind, m.parse, m.flagged, m.error, m.from_addr, m.subject, m.player_id)
                 for m in s.scalars(select(InboundMail).order_by(InboundMail.id))]
        answers = [(o.key, o.kind, o.to_addr, o.subject, _VOLATILE.sub("*", text_of(o.raw)))
                   for o in s.scalars(select(OutboxMail).where(OutboxMail.kind != "welcome").order_by(OutboxMail.id))]
        subs = [(x.mail_id, x.partie_id, x.player_id, x.superseded_by)
                for x in s.scalars(select(Submission).order_by(Submission.id))]
    return mails, answers, subs


def _run(db, cfg, monkeypatch, pool: ReadPool | None) -> int:
    if pool is not None:
        monkeypatch.setattr(intake, "pool_for", lambda n: pool)
    try:
        return process_pending(db, cfg, NOW)
    finally:
        if pool is not None:
            pool.shutdown()


def test_pool_reads_like_in_process(tmp_path, monkeypatch, db_url):
    assert len(_corpus()) >= readpool.MIN_BATCH
    seen: list[bool] = []
    real = intake._process

    def spy(s, cfg, mail, now, read=None):
        seen.append(read is not None)
        return real(s, cfg, mail, now, read)

    db1, cfg1 = _setup(tmp_path, "inproc")
    cfg1.read_workers = 1
    n1 = _run(db1, cfg1, monkeypatch, None)
    assert not any(seen)
    db2, cfg2 = _setup(tmp_path, "pool", db_url)  # the pool also on PostgreSQL when configured
    monkeypatch.setattr(intake, "_process", spy)
    monkeypatch.setattr(readpool, "CHUNK", 7)  # several chunks, read ahead
    n2 = _run(db2, cfg2, monkeypatch, ReadPool(2, wait=True))
    assert n1 == n2 == len(_corpus())
    assert all(seen) and len(seen) == n2  # every mail read by a worker
    one, two = _outcome(db1), _outcome(db2)
    assert one == two
    statuses = {m[0] for m in one[0]}
    assert {"processed", "ignored"} <= statuses and len(one[1]) > 10 and len(one[2]) > 20
    db1.dispose()
    db2.dispose()


def crashing_reader(raw: bytes):
    """A reader whose worker dies on one mail (as a killed or out-of-memory worker would)."""
    if b"ZUG2" in raw and b"bernd@" in raw:
        os._exit(3)
    return read_mail(raw)


def failing_reader(raw: bytes):
    """A reader that raises in the worker for one mail."""
    if b"ZUG1" in raw:
        raise RuntimeError("kaputt im Arbeitsprozess")
    return read_mail(raw)


@pytest.mark.parametrize("reader", [crashing_reader, failing_reader])
def test_a_failing_worker_loses_nothing(tmp_path, monkeypatch, reader, caplog):
    db1, cfg1 = _setup(tmp_path, "inproc")
    cfg1.read_workers = 1
    _run(db1, cfg1, monkeypatch, None)
    db2, cfg2 = _setup(tmp_path, "pool")
    monkeypatch.setattr(readpool, "CHUNK", 10)
    monkeypatch.setattr(readpool, "TASK", 2)
    with caplog.at_level("WARNING", logger="bot.service.stages.readpool"):
        assert _run(db2, cfg2, monkeypatch, ReadPool(2, reader=reader, wait=True)) == len(_corpus())
    assert "lese sie im Hauptprozess" in caplog.text  # the worker did fail
    assert _outcome(db1) == _outcome(db2)  # the failed mails read in-process, in order
    with db2.session() as s:
        assert not s.scalars(select(InboundMail).where(InboundMail.status.in_(("stored", "error")))).all()
    db1.dispose()
    db2.dispose()


def test_the_main_process_does_not_wait_for_the_workers(tmp_path, monkeypatch):
    db1, cfg1 = _setup(tmp_path, "inproc")
    cfg1.read_workers = 1
    _run(db1, cfg1, monkeypatch, None)
    db2, cfg2 = _setup(tmp_path, "pool")
    seen: list[bool] = []
    real = intake._process
    monkeypatch.setattr(intake, "_process", lambda s, cfg, mail, now, read=None:
                        seen.append(read is not None) or real(s, cfg, mail, now, read))
    _run(db2, cfg2, monkeypatch, ReadPool(2, reader=slow_reader))
    assert seen[0] is False and len(seen) == len(_corpus())  # not waited for: read in-process
    assert _outcome(db1) == _outcome(db2)
    db1.dispose()
    db2.dispose()


def slow_reader(raw: bytes):
    """A reader slower than the main process."""
    import time
    time.sleep(0.05)
    return read_mail(raw)


def test_a_big_mail_is_read_in_process(tmp_path, monkeypatch):
    db, cfg = _setup(tmp_path, "big")
    with db.session() as s:
        rows = s.execute(select(InboundMail.id, InboundMail.raw).order_by(InboundMail.id)).all()
    small = min(len(bytes(r.raw)) for r in rows)
    monkeypatch.setattr(readpool, "BIG_MAIL", small)  # only the smallest mails go to the workers
    pool = ReadPool(2, wait=True)
    try:
        got = dict(pool.read(db, [r.id for r in rows]))
    finally:
        pool.shutdown()
    assert {r.id for r in rows if got[r.id] is not None} == {r.id for r in rows if len(bytes(r.raw)) <= small}
    assert all(got[r.id] == read_mail(bytes(r.raw)) for r in rows if got[r.id] is not None)
    db.dispose()


def test_few_mails_and_read_workers_1_stay_in_process(tmp_path):
    db, cfg = _setup(tmp_path, "few")
    with db.session() as s:
        ids = s.scalars(select(InboundMail.id).order_by(InboundMail.id)).all()
    pool = ReadPool(2)
    assert list(pool.read(db, ids[: readpool.MIN_BATCH - 1])) == [(i, None) for i in ids[: readpool.MIN_BATCH - 1]]
    assert pool._pool is None  # no worker started for a few mails
    off = ReadPool(1)
    assert list(off.read(db, ids)) == [(i, None) for i in ids] and off._pool is None
    db.dispose()


def test_read_workers_config(tmp_path):
    from bot.config import load_config
    from bot.errors import ConfigError
    p = tmp_path / "c.toml"
    p.write_text("[bot]\nread_workers = 1\n", encoding="utf-8")
    assert load_config(p).read_workers == 1
    p.write_text("[bot]\n", encoding="utf-8")
    assert load_config(p).read_workers == len(os.sched_getaffinity(0))
    p.write_text("[bot]\nread_workers = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="read_workers"):
        load_config(p)

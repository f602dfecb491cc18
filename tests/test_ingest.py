"""``spielleiter ingest``: raw .eml files through the real intake (SQLite + Maildir)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot.cli import main
from bot.config import Config, load_config
from bot.mail.maildir import MaildirTransport
from bot.service.operations.ingest import ingest
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Submission, SubmissionMove
from tests.helpers import league_toml, player_mail, spielleiter_exe, text_of


@pytest.fixture
def env(tmp_path):
    """A config file (SQLite + Maildir under tmp_path), a Rondo league with its start
    mails delivered, and three .eml files: a submission, a HILFE command, an unknown
    sender. Yields (db, cfg, md, config path, [files])."""
    conf = tmp_path / "spielleiter.toml"
    conf.write_text('[database]\nurl = "sqlite:///db/spielleiter.sqlite"\n[maildir]\npath = "mail"\n'
                    '[bot]\nsender = "Spielleiter <spielleiter@example.org>"\n', encoding="utf-8")
    cfg = load_config(conf)
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
    deliver(db, md, cfg)
    files = []
    for name, raw in [("zug.eml", player_mail("Anna Albers <anna@example.org>",
                                                "Hallo,\n\nPartie R1:\nTOR\nErsatz: ROT\n\nPartie R2: MOND\n\nGruß Anna")),
                      ("hilfe.eml", player_mail("bernd@example.org", "", subject="HILFE")),
                      ("fremd.eml", player_mail("fremd@example.net", "Partie R1:\nTOR"))]:
        (tmp_path / name).write_bytes(raw)
        files.append(str(tmp_path / name))
    yield db, cfg, md, conf, files
    db.dispose()


def counts(db) -> dict[str, int]:
    with db.session() as s:
        return {m.__name__: s.scalar(select(func.count()).select_from(m))
                for m in (InboundMail, Submission, SubmissionMove, OutboxMail)}


EXPECTED = [
    {"from": "anna@example.org", "kind": "submission", "status": "processed", "reason": None,
     "sections": [{"partie": "R1", "moves": ["TOR", "ROT"]}, {"partie": "R2", "moves": ["MOND"]}], "errors": []},
    {"from": "bernd@example.org", "kind": "command", "status": "processed", "reason": None, "sections": [],
     "errors": []},
    {"from": "fremd@example.net", "kind": "ignored", "status": "ignored", "reason": "unknown sender",
     "sections": [], "errors": []},
]


def _core(r: dict) -> dict:
    return {k: r[k] for k in ("from", "kind", "status", "reason", "sections", "errors")}


def test_dry_run_reports_and_stores_nothing(env, capsys):
    db, cfg, md, conf, files = env
    before, sent_before = counts(db), len(md.sent())
    assert main(["ingest", "--dry-run", "--json", *files, "--config", str(conf)]) == 0
    lines = capsys.readouterr().out.splitlines()
    reports = [json.loads(x) for x in lines]
    assert [_core(r) for r in reports] == EXPECTED
    assert [r["file"] for r in reports] == files
    # what would have been answered, but was not
    assert [(x["to"], x["kind"]) for x in reports[0]["replies"]] == [("anna@example.org", "ack")]
    assert [x["to"] for x in reports[1]["replies"]] == ["bernd@example.org"]
    assert counts(db) == before and before["InboundMail"] == 0
    assert len(md.sent()) == sent_before and md.processed_mails() == [] and list(md.inbox.keys()) == []
    # a dry run again gives the same report (nothing was left behind, not even as duplicate)
    again = ingest(db, cfg, [(f, Path(f).read_bytes()) for f in files], dry_run=True)
    assert [_core(r) for r in again] == EXPECTED and not any(r["duplicate"] for r in again)
    assert counts(db) == before


def test_real_ingest_stores_answers_and_delivers(env, capsys):
    db, cfg, md, conf, files = env
    sent_before = len(md.sent())
    assert main(["ingest", "--json", *files, "--config", str(conf)]) == 0
    reports = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [_core(r) for r in reports] == EXPECTED
    with db.session() as s:
        mails = s.scalars(select(InboundMail).order_by(InboundMail.id)).all()
        assert [(m.source, m.status, m.kind) for m in mails] == [
            ("ingest", "processed", "submission"), ("ingest", "processed", "command"), ("ingest", "ignored", "ignored")]
        subs = s.scalars(select(Submission).order_by(Submission.id)).all()
        assert [[m.text for m in x.moves] for x in subs] == [["TOR", "ROT"], ["MOND"]]
        out = s.scalars(select(OutboxMail).where(OutboxMail.id > 3).order_by(OutboxMail.id)).all()
        assert [(o.to_addr, o.status) for o in out] == [("anna@example.org", "sent"), ("bernd@example.org", "sent"),
                                                       ("fremd@example.net", "sent")]
    sent = md.sent()
    assert len(sent) == sent_before + 3
    assert any("Hauptzug: TOR" in text_of(r) for r in sent)
    # the same file again: stored once, not answered twice
    assert main(["ingest", "--json", files[0], "--config", str(conf)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["duplicate"] is True and again["replies"] == []
    assert counts(db)["InboundMail"] == 3 and len(md.sent()) == sent_before + 3


def test_plain_output_and_missing_file(env, capsys):
    db, cfg, md, conf, files = env
    assert main(["ingest", "--dry-run", files[0], "--config", str(conf)]) == 0
    out = capsys.readouterr().out
    assert out.strip() == f"{files[0]}: anna@example.org, submission (processed): Partie R1: TOR, ROT; Partie R2: MOND"
    assert main(["ingest", "--dry-run", files[0], files[0] + ".fehlt", "--config", str(conf)]) == 2
    assert "fehlt" in capsys.readouterr().err
    assert counts(db)["InboundMail"] == 0


def _spielleiter() -> list[str]:
    return [spielleiter_exe()]


def test_subprocess_dry_run_then_real(env):
    db, cfg, md, conf, files = env
    before, sent_before = counts(db), len(md.sent())
    run = subprocess.run([*_spielleiter(), "ingest", "--dry-run", "--json", *files, "--config", str(conf)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert [_core(json.loads(x)) for x in run.stdout.splitlines()] == EXPECTED
    assert counts(db) == before and len(md.sent()) == sent_before
    run = subprocess.run([*_spielleiter(), "ingest", "--json", files[0], "--config", str(conf)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert _core(json.loads(run.stdout)) == EXPECTED[0]
    assert "1 gesendet" in run.stderr
    assert counts(db)["InboundMail"] == 1 and counts(db)["SubmissionMove"] == 3
    assert len(md.sent()) == sent_before + 1


def test_dry_run_after_real_mails_sees_the_stored_state(env):
    """A dry run in a league with stored submissions reads like the poller would: the
    new mail replaces the earlier one (in the report), the database keeps the old."""
    db, cfg, md, conf, files = env
    ingest(db, cfg, [(files[0], Path(files[0]).read_bytes())])
    newer = player_mail("anna@example.org", "Partie R1: ROT\n", subject="Neuer Zug")
    (rep,) = ingest(db, cfg, [("neu.eml", newer)], dry_run=True)
    assert rep["sections"] == [{"partie": "R1", "moves": ["ROT"]}] and rep["status"] == "processed"
    assert [x["kind"] for x in rep["replies"]] == ["ack"]
    with db.session() as s:
        subs = s.scalars(select(Submission)).all()
        assert len(subs) == 2 and all(x.superseded_by is None for x in subs)
        assert s.scalar(select(func.count()).select_from(InboundMail)) == 1


def test_dry_run_rolls_back_on_every_backend(tmp_path, db_url):
    """The SAVEPOINT-based dry run leaves SQLite and PostgreSQL unchanged; a real run stores."""
    cfg = Config(database_url=db_url, sender="Spielleiter <spielleiter@example.org>", maildir=tmp_path / "mail")
    db = Database(db_url)
    db.migrate()
    try:
        with db.session() as s:
            create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
        raws = [("a.eml", player_mail("anna@example.org", "Partie R1:\nTOR\nErsatz: ROT")),
                ("b.eml", player_mail("bernd@example.org", "", subject="STAND"))]
        before = counts(db)
        reports = ingest(db, cfg, raws, dry_run=True)
        assert [(r["kind"], r["sections"]) for r in reports] == [
            ("submission", [{"partie": "R1", "moves": ["TOR", "ROT"]}]), ("command", [])]
        assert counts(db) == before
        reports = ingest(db, cfg, raws)
        assert [r["duplicate"] for r in reports] == [False, False]
        after = counts(db)
        assert after["InboundMail"] == 2 and after["SubmissionMove"] == 2 and after["OutboxMail"] == before["OutboxMail"] + 2
    finally:
        db.dispose()


@pytest.mark.parametrize("point", ["after-store", "after-read"])
def test_a_crash_of_ingest_loses_no_mail_and_answers_none_twice(env, point):
    """``spielleiter ingest`` killed right after its batch is stored (``after-store``: the
    mails committed raw, none read) or after the batch's reading is committed
    (``after-read``: one transaction a batch, the mails read, nothing delivered): every
    mail is stored; the next ``spielleiter ingest`` of the same files reads what is
    left, and each mail is answered exactly once (issue 35: batching keeps the intake's
    durability)."""
    import os
    db, cfg, md, conf, files = env
    sent_before = len(md.sent())
    run = subprocess.run([*_spielleiter(), "ingest", "--json", *files, "--config", str(conf)],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "SPIELLEITER_CRASH_AT": point})
    assert run.returncode == 77, run.stderr
    with db.session() as s:
        rows = s.execute(select(InboundMail.status).order_by(InboundMail.id)).scalars().all()
    assert len(rows) == 3  # every mail stored before anything else happened to it
    assert rows.count("stored") == (3 if point == "after-store" else 0)
    assert len(md.sent()) == sent_before  # the crash came before any delivery
    run = subprocess.run([*_spielleiter(), "ingest", "--json", *files, "--config", str(conf)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    reports = [json.loads(x) for x in run.stdout.splitlines()]
    assert [(r["from"], r["kind"], r["status"]) for r in reports] == [(e["from"], e["kind"], e["status"]) for e in EXPECTED]
    assert all(r["duplicate"] for r in reports)  # stored by the first run
    with db.session() as s:
        out = s.execute(select(OutboxMail.to_addr).where(OutboxMail.id > 3).order_by(OutboxMail.id)).scalars().all()
    assert out == ["anna@example.org", "bernd@example.org", "fremd@example.net"]  # one answer each
    assert len(md.sent()) == sent_before + 3
    assert counts(db)["SubmissionMove"] == 3


def test_a_mail_that_fails_mid_batch_loses_nothing_of_the_others(tmp_path, db_url, monkeypatch):
    """Reading is one transaction a batch, each mail in a savepoint: a mail whose reading
    fails after it has written its submission is rolled back alone (status ``error``,
    its sender told it could not be read, none of its moves kept), and the mails before
    and after it in the batch are read and answered as usual (SQLite and PostgreSQL)."""
    import bot.service.conversations.intake as intake

    real = intake.take_moves

    def half(ctx, text):  # the submission written, then the reading fails
        real(ctx, text)
        if ctx.rm.from_addr == "bernd@example.org":
            raise RuntimeError("kaputt nach dem Schreiben")
    monkeypatch.setattr(intake, "take_moves", half)
    cfg = Config(database_url=db_url, sender="Spielleiter <spielleiter@example.org>", maildir=tmp_path / "mail")
    db = Database(db_url)
    db.migrate()
    try:
        with db.session() as s:
            create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
        top = counts(db)["OutboxMail"]
        raws = [(f"{who}.eml", player_mail(f"{who}@example.org", f"Partie R1:\n{move}"))
                for who, move in (("anna", "TOR"), ("bernd", "ROT"), ("clara", "MOND"))]
        reports = ingest(db, cfg, raws)
        assert [(r["from"], r["status"]) for r in reports] == [
            ("anna@example.org", "processed"), ("bernd@example.org", "error"), ("clara@example.org", "processed")]
        assert "kaputt nach dem Schreiben" in reports[1]["errors"][-1]
        assert [x["to"] for r in reports for x in r["replies"]] == [
            "anna@example.org", "bernd@example.org", "clara@example.org"]
        with db.session() as s:
            moves = s.execute(select(InboundMail.from_addr, SubmissionMove.text)
                              .join(Submission, Submission.mail_id == InboundMail.id)
                              .join(SubmissionMove, SubmissionMove.submission_id == Submission.id)
                              .order_by(InboundMail.id)).all()
            told = s.scalars(select(OutboxMail.raw).where(OutboxMail.id > top, OutboxMail.to_addr == "bernd@example.org")).all()
        assert [tuple(m) for m in moves] == [("anna@example.org", "TOR"), ("clara@example.org", "MOND")]
        assert len(told) == 1 and "nicht lesen" in text_of(told[0])
    finally:
        db.dispose()


def test_a_batch_that_has_read_can_always_write_beside_another_writer(tmp_path):
    """SQLite: ``ingest`` reads a batch in one transaction opened with the write lock
    (``BEGIN IMMEDIATE``): another process writing meanwhile (the service marking a mail
    sent) waits for the batch's commit, instead of the batch failing at its first write
    because its snapshot is older than that commit (what a deferred transaction does)."""
    import threading
    import time

    from bot.service.operations.ingest import OneTransaction
    db = Database(f"sqlite:///{tmp_path / 'x.sqlite'}")
    db.migrate()
    try:
        with db.session() as s:
            s.add(OutboxMail(key="k0", kind="ack", to_addr="a@example.org", subject="s", message_id="<m0@x>",
                             raw=b"x", status="pending"))
        with OneTransaction(db.url) as rdb:
            rdb.begin()
            assert rdb.conn.execute(select(func.count()).select_from(OutboxMail)).scalar() == 1  # the snapshot

            def other_writer():
                with db.session() as s:  # waits for the batch's commit (busy timeout)
                    s.execute(OutboxMail.__table__.update().values(status="sent"))
            t = threading.Thread(target=other_writer)
            t.start()
            time.sleep(0.5)
            assert t.is_alive()  # still waiting: the batch holds the write lock
            with rdb.session() as s:  # the batch writes after reading: no "database is locked"
                s.add(OutboxMail(key="k1", kind="ack", to_addr="b@example.org", subject="s", message_id="<m1@x>",
                                 raw=b"x", status="pending"))
            rdb.commit()
            t.join(10)
            assert not t.is_alive()
        with db.session() as s:
            assert sorted(s.execute(select(OutboxMail.key, OutboxMail.status)).all()) == [("k0", "sent"), ("k1", "sent")]
    finally:
        db.dispose()


_GM, _GM_CODE = "gm@example.org", "Geheim-4711"


def _gm_league(db_url: str, tmp_path: Path, **cfg) -> tuple[Database, Config]:
    """A migrated database at ``db_url`` holding the test Rondo league (tests.helpers
    ``league_toml``) with ``_GM`` as its game master and ``_GM_CODE`` as the code, and
    the config to ingest with (Maildir under ``tmp_path``; ``cfg`` adds Config fields,
    e.g. ``rate_limit_per_hour``). Returns (db, config); the caller disposes of db."""
    config = Config(database_url=db_url, sender="Spielleiter <spielleiter@example.org>",
                    maildir=tmp_path / "mail", **cfg)
    db = Database(db_url)
    try:
        db.migrate()
        with db.session() as s:
            create_league(s, read_league_file(league_toml(tmp_path / "liga.toml",
                                                          extra=f'gm_email = "{_GM}"\ngm_code = "{_GM_CODE}"')),
                          config)
    except BaseException:
        db.dispose()
        raise
    return db, config


def test_a_command_in_a_batch_is_seen_by_the_mails_after_it(tmp_path, db_url):
    """A batch reads a league's open round and Partien once for all its mails, and
    re-delivery checks and acknowledgement keys once (issue 35); a command in the batch
    ends what was read (here the GM's ``ZAT +2d`` moves the open round's ZAT): a player's
    mail before it is acknowledged with the old ZAT, one after it with the new one, a
    re-delivery of the first in the same batch is recognised and not answered
    (SQLite and PostgreSQL)."""
    from bot.render import format_zat
    from bot.storage.models import Round
    code, gm = _GM_CODE, _GM
    db, cfg = _gm_league(db_url, tmp_path)
    try:
        with db.session() as s:
            rnd = s.scalar(select(Round).where(Round.status == "open"))
            tz, zat0 = rnd.league.timezone, rnd.zat
        anna = player_mail("anna@example.org", "Partie R1:\nTOR")
        raws = [("anna.eml", anna),
                ("zat.eml", player_mail(gm, f"Code: {code}\n", subject="ZAT Test-Rondo +2d")),
                ("bernd.eml", player_mail("bernd@example.org", "Partie R1:\nROT")),
                ("anna-again.eml", b"Received: from mx2.example.org by mx.example.org;\r\n" + anna)]  # re-delivered
        reports = ingest(db, cfg, raws)
        assert [(r["from"], r["status"]) for r in reports][:3] == [
            ("anna@example.org", "processed"), (gm, "processed"), ("bernd@example.org", "processed")]
        with db.session() as s:
            zat1 = s.scalar(select(Round.zat).where(Round.status == "open"))
            acks = {to: text_of(raw) for to, raw in s.execute(
                select(OutboxMail.to_addr, OutboxMail.raw).where(OutboxMail.kind == "ack"))}
        assert zat1 != zat0
        old, new = (f"ZAT: {format_zat(z, tz)}" for z in (zat0, zat1))
        assert old in acks["anna@example.org"] and new not in acks["anna@example.org"]
        assert new in acks["bernd@example.org"] and old not in acks["bernd@example.org"]
        assert reports[3]["duplicate"] and reports[3]["status"] == "ignored" and not reports[3]["replies"]
    finally:
        db.dispose()


def test_a_repeated_mail_is_answered_once_within_a_batch_and_across_batches(tmp_path, db_url):
    """The repeat check (the same sender, subject and text within the hour: answered
    once) asks the database only for a key a batch has seen (issue 35: the keys of the
    hour before a batch read once, each mail's own added as it is read): a repeat in the
    same batch and one in the next are both recognised and not answered again (SQLite
    and PostgreSQL)."""
    cfg = Config(database_url=db_url, sender="Spielleiter <spielleiter@example.org>", maildir=tmp_path / "mail")
    db = Database(db_url)
    db.migrate()
    try:
        with db.session() as s:
            create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
        same = [player_mail("anna@example.org", "Partie R1:\nTOR") for _ in range(3)]  # three Message-IDs
        first = ingest(db, cfg, [("a1.eml", same[0]), ("b.eml", player_mail("bernd@example.org", "Partie R1:\nROT")),
                                 ("a2.eml", same[1])])
        second = ingest(db, cfg, [("a3.eml", same[2])])
        assert [(r["status"], len(r["replies"]), len(r["withheld"])) for r in first + second] == [
            ("processed", 1, 0), ("processed", 1, 0), ("processed", 0, 1), ("processed", 0, 1)]
        with db.session() as s:
            parses = s.scalars(select(InboundMail.parse).where(InboundMail.from_addr == "anna@example.org")
                               .order_by(InboundMail.id)).all()
        assert "repeat_of" not in parses[0] and parses[1]["repeat_of"] == parses[2]["repeat_of"]
    finally:
        db.dispose()


def test_a_batch_sees_the_answers_it_has_not_written_yet(tmp_path, db_url):
    """A batch read without savepoints writes its mails' changes and answers with one
    flush at its end, or when a query needs them, and counts the answer cap in memory
    (issue 35): the cap counts the batch's own unwritten answers (here 2 an hour: the
    third mail of the same address is read, its answer withheld and summed up an hour
    later), each report names its own answers, a later mail pasting an earlier one's
    acknowledgement back has only its own new move read (SQLite and PostgreSQL)."""
    cfg = Config(database_url=db_url, sender="Spielleiter <spielleiter@example.org>", maildir=tmp_path / "mail",
                 rate_limit_per_hour=2)
    first = player_mail("anna@example.org", "Partie R1:\nTOR\nErsatz: ROT")
    probe = Database(f"sqlite:///{tmp_path / 'probe.sqlite'}")  # the acknowledgement the first mail gets
    probe.migrate()
    try:
        with probe.session() as s:
            create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
        ingest(probe, cfg, [("a1.eml", first)])
        with probe.session() as s:
            ack = text_of(s.scalar(select(OutboxMail.raw).where(OutboxMail.kind == "ack")))
    finally:
        probe.dispose()
    db = Database(db_url)
    db.migrate()
    try:
        with db.session() as s:
            create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
        block = ack[ack.index("Partie R1 ("):ack.index("ZAT:")]  # pasted without quote marks or a header
        pasted = player_mail("anna@example.org", "Partie R1:\nMOND\n\n" + block)
        reports = ingest(db, cfg, [("b.eml", player_mail("bernd@example.org", "Partie R1:\nROT")),
                                   ("a1.eml", first), ("a2.eml", pasted),
                                   ("a3.eml", player_mail("anna@example.org", "Partie R1:\nOPER"))])
        assert [(r["from"], r["status"], len(r["replies"]), len(r["withheld"])) for r in reports] == [
            ("bernd@example.org", "processed", 1, 0), ("anna@example.org", "processed", 1, 0),
            ("anna@example.org", "processed", 1, 0), ("anna@example.org", "processed", 1, 1)]
        assert [x["kind"] for x in reports[3]["replies"]] == ["summary"]  # due an hour later, the withheld in it
        assert reports[2]["sections"] == [{"partie": "R1", "moves": ["MOND"]}]
        with db.session() as s:
            rows = s.execute(select(OutboxMail.id, OutboxMail.to_addr, OutboxMail.status)
                             .where(OutboxMail.kind == "ack").order_by(OutboxMail.id)).all()
            parse = s.scalar(select(InboundMail.parse).where(InboundMail.id == reports[2]["id"]))
        assert [(to, status) for _, to, status in rows] == [
            ("bernd@example.org", "pending"), ("anna@example.org", "pending"), ("anna@example.org", "pending"),
            ("anna@example.org", "suppressed")]
        assert parse["ignored"] == [], parse  # every pasted line known as the bot's
    finally:
        db.dispose()


def test_a_batch_writes_its_submissions_together_and_each_replaces_the_one_before(tmp_path, db_url):
    """A batch read without savepoints holds its submissions and writes them together
    (issue 35: ``moves.write_submissions``); whether a mail replaced an earlier
    submission comes from the batch's memory of the standing ones. Anna's three mails
    of one batch (R1, R1 and R2, R1) and one of the next batch, Clara's first two of
    the batch (the second told it replaced the first, from the batch's memory): each R1 submission
    supersedes the one before, in order, whether written in the same batch or before
    it, and each acknowledgement says so only when there was one before; the GM's
    ``STATUS`` between them counts the submissions held so far (written before the
    command reads them; the batch's memory of the standing ones read again after it)
    (SQLite and PostgreSQL)."""
    code, gm = _GM_CODE, _GM
    db, cfg = _gm_league(db_url, tmp_path, rate_limit_per_hour=0)
    try:
        first = ingest(db, cfg, [
            ("a1.eml", player_mail("anna@example.org", "Partie R1:\nTOR")),
            ("b.eml", player_mail("bernd@example.org", "Partie R1:\nROT")),
            ("status.eml", player_mail(gm, f"Code: {code}\n", subject="STATUS Test-Rondo")),
            ("a2.eml", player_mail("anna@example.org", "Partie R1:\nOPER\n\nPartie R2:\nMOND")),
            ("a3.eml", player_mail("anna@example.org", "Partie R1:\nSAU")),
            ("c1.eml", player_mail("clara@example.org", "Partie R1:\nLOS")),  # her first: nothing standing
            ("c2.eml", player_mail("clara@example.org", "Partie R1:\nSOL"))])  # the batch's memory: c1's
        second = ingest(db, cfg, [("a4.eml", player_mail("anna@example.org", "Partie R1:\nLAUS"))])
        assert [r["status"] for r in first + second] == ["processed"] * 8
        with db.session() as s:
            told = [text_of(raw) for raw in s.scalars(select(OutboxMail.raw).where(OutboxMail.to_addr == gm))]
            clara = s.scalars(select(OutboxMail.raw).where(OutboxMail.kind == "ack", OutboxMail.to_addr ==
                                                           "clara@example.org").order_by(OutboxMail.id)).all()
            acks = [text_of(raw) for raw in s.scalars(select(OutboxMail.raw).where(
                OutboxMail.kind == "ack", OutboxMail.to_addr == "anna@example.org").order_by(OutboxMail.id))]
            sub, mv = Submission.__table__, SubmissionMove.__table__
            rows = s.execute(select(sub.c.id, sub.c.superseded_by, sub.c.partie_id, mv.c.text)
                             .join(mv, mv.c.submission_id == sub.c.id)
                             .join(InboundMail.__table__, InboundMail.__table__.c.id == sub.c.mail_id)
                             .where(InboundMail.__table__.c.from_addr == "anna@example.org")
                             .order_by(sub.c.id)).all()
        replaced = ["ersetzt deine frühere Einsendung" in a for a in acks]
        assert ["ersetzt deine frühere Einsendung" in text_of(raw) for raw in clara] == [False, True], clara
        assert replaced == [False, True, True, True], acks
        assert "Partie R1." in acks[1] and "R2" not in acks[1].split("ersetzt deine frühere")[1].split("\n")[0]
        texts = [r.text for r in rows]
        assert texts == ["TOR", "OPER", "MOND", "SAU", "LAUS"], texts
        ids = {r.text: r.id for r in rows}
        chain = {r.text: r.superseded_by for r in rows}
        assert chain == {"TOR": ids["OPER"], "OPER": ids["SAU"], "MOND": None, "SAU": ids["LAUS"], "LAUS": None}
        assert any("Züge von 2 von 3 Spielern" in " ".join(t.split()) for t in told), told
    finally:
        db.dispose()

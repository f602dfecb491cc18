"""``spielleiter ingest``: the quoted-block check of a batch (issue 35, item 3): the
bot's mails a player may quote taken from the batch's memory
(:func:`bot.service.conversations.quoting.quotable_for`) instead of a statement a mail,
and what it still asks of the database (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.config import Config
from bot.service.operations.ingest import ingest
from bot.service.operations.league import create_league, read_league_file
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail
from tests.helpers import league_toml, player_mail, text_of


def test_a_pasted_block_of_an_unwritten_acknowledgement_of_the_same_batch_is_recognised(tmp_path, db_url):
    """A batch read without savepoints writes an acknowledgement only when a query needs
    it (``mailctx.written_for`` before the quoted-block check of its player): a second
    mail of the same player in the same batch that pastes lines of the first mail's
    acknowledgement -- lines the reply stripping keeps (no ``>``, no reply header, no
    ``Hauptzug:``/``->`` pair, no greeting or intro line) -- has them recognised as the
    bot's, not read as the player's unreadable lines. Another player's mail comes first,
    so the answer cap's first count (which flushes) is not what writes the first
    acknowledgement (SQLite and PostgreSQL)."""
    cfg = Config(database_url=db_url, sender="Spielleiter <spielleiter@example.org>", maildir=tmp_path / "mail")
    first = player_mail("anna@example.org", "Partie R1:\nTOR\nErsatz: ROT")
    league = league_toml(tmp_path / "liga.toml")
    probe = Database(f"sqlite:///{tmp_path / 'probe.sqlite'}")  # the acknowledgement the first mail gets
    probe.migrate()
    try:
        with probe.session() as s:
            create_league(s, read_league_file(league), cfg)
        ingest(probe, cfg, [("b.eml", player_mail("bernd@example.org", "Partie R1:\nROT")), ("a1.eml", first)])
        with probe.session() as s:
            ack = text_of(s.scalars(select(OutboxMail.raw).where(OutboxMail.kind == "ack", OutboxMail.to_addr ==
                                                                  "anna@example.org")).one())
    finally:
        probe.dispose()
    # four lines in a row of that acknowledgement: the last verdict, the replace note, the ZAT
    block = ack[ack.index("    -> ", ack.index("Ersatzzug 1:")):ack.index("\n-- ")]
    assert len([line for line in block.splitlines() if line.strip()]) == 4, block
    db = Database(db_url)
    db.migrate()
    try:
        with db.session() as s:
            create_league(s, read_league_file(league), cfg)
        pasted = player_mail("anna@example.org", "Partie R1:\nMOND\n\n" + block)
        reports = ingest(db, cfg, [("b.eml", player_mail("bernd@example.org", "Partie R1:\nROT")),
                                   ("a1.eml", first), ("a2.eml", pasted)])
        assert [(r["from"], r["status"], len(r["replies"])) for r in reports] == [
            ("bernd@example.org", "processed", 1), ("anna@example.org", "processed", 1),
            ("anna@example.org", "processed", 1)]
        assert reports[2]["sections"] == [{"partie": "R1", "moves": ["MOND"]}]
        with db.session() as s:
            parse = s.scalar(select(InboundMail.parse).where(InboundMail.id == reports[2]["id"]))
            acks = s.scalars(select(OutboxMail.raw).where(OutboxMail.kind == "ack").order_by(OutboxMail.id)).all()
        assert parse["ignored"] == [], parse  # every pasted line known as the bot's
        assert text_of(acks[1]) == ack  # the same acknowledgement as in the probe: the block is its own
    finally:
        db.dispose()


def _ingest_counting(db, cfg, mails) -> tuple[list, int]:
    """``ingest(db, cfg, mails)`` and how many statements the quoted-block check ran (the
    outbox of one league by address)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    box = [0]

    def count(_conn, _cur, statement, *_a):
        st = " ".join(statement.split())
        if st.startswith("SELECT") and "FROM outbox" in st and "outbox.league_id = " in st:
            box[0] += 1
    event.listen(Engine, "before_cursor_execute", count)
    try:
        reports = ingest(db, cfg, mails)
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    return reports, box[0]


def _first_ack_block(db, cfg) -> tuple[str, str]:
    """Four lines in a row of Anna's first acknowledgement (her last verdict, the replace
    note, the ZAT) and its Message-ID."""
    with db.session() as s:
        raw, mid = s.execute(select(OutboxMail.raw, OutboxMail.message_id).where(
            OutboxMail.kind == "ack", OutboxMail.to_addr == "anna@example.org").order_by(OutboxMail.id)).first()
    ack = text_of(raw)
    block = ack[ack.index("    -> ", ack.index("Ersatzzug 1:")):ack.index("\n-- ")]
    assert len([line for line in block.splitlines() if line.strip()]) == 4, block
    return block, mid


def _db_and_cfg(db_url: str, tmp_path) -> tuple[Database, Config]:
    """A migrated database at ``db_url`` and its configuration (no rate limit)."""
    cfg = Config(database_url=db_url, sender="Spielleiter <spielleiter@example.org>", maildir=tmp_path / "mail",
                 rate_limit_per_hour=0)
    db = Database(db_url)
    db.migrate()
    return db, cfg


def _anna_acknowledged(db: Database, cfg: Config, tmp_path, later: int = 0) -> tuple[str, str]:
    """The league of ``league_toml``, Anna's first mail (and ``later`` more) ingested:
    :func:`_first_ack_block` of her first acknowledgement."""
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
    ingest(db, cfg, [("a1.eml", player_mail("anna@example.org", "Partie R1:\nTOR\nErsatz: ROT"))]
           + [(f"a{k}.eml", player_mail("anna@example.org", "Partie R1:\nMOND")) for k in range(2, 2 + later)])
    return _first_ack_block(db, cfg)


def test_a_batch_reads_the_quotable_mails_of_its_players_in_one_statement(tmp_path, db_url):
    """Issue 35: the quoted-block check of a batch read without savepoints takes the
    bot's mails a player may quote from the batch's memory (``quoting.quotable_for``: the
    last mails and the start mail of every address of the league's players, one
    statement), not from a statement a mail. Anna pastes four lines of her acknowledgement
    of the batch before (recognised: no unreadable line); Bernd's reply names a
    Message-ID that is not of the bot's shape (no query for it: ``may_be_ours``),
    Clara's names her start mail (in the memory). One statement for the three mails; a
    statement a mail before (SQLite and PostgreSQL)."""
    db, cfg = _db_and_cfg(db_url, tmp_path)
    try:
        block, _ = _anna_acknowledged(db, cfg, tmp_path)
        with db.session() as s:
            clara_start = s.scalar(select(OutboxMail.message_id).where(OutboxMail.kind == "start",
                                                                       OutboxMail.to_addr == "clara@example.org"))
        reports, statements = _ingest_counting(db, cfg, [
            ("a2.eml", player_mail("anna@example.org", "Partie R1:\nMOND\n\n" + block)),
            ("b.eml", player_mail("bernd@example.org", "Partie R1:\nROT", headers={"In-Reply-To": "<x1@mail.example>"})),
            ("c.eml", player_mail("clara@example.org", "Partie R1:\nTOR", headers={"In-Reply-To": clara_start}))])
        assert [(r["status"], len(r["replies"])) for r in reports] == [("processed", 1)] * 3
        assert reports[0]["sections"] == [{"partie": "R1", "moves": ["MOND"]}]
        with db.session() as s:
            parse = s.scalar(select(InboundMail.parse).where(InboundMail.id == reports[0]["id"]))
        assert parse["ignored"] == [], parse  # every pasted line known as the bot's
        assert statements == 1, statements
    finally:
        db.dispose()


def test_a_batch_asks_the_database_for_a_reply_to_an_older_mail_of_ours(tmp_path, db_url):
    """The batch's memory of quotable mails holds each address's last mails only: a
    reply to an older acknowledgement of the bot (In-Reply-To its Message-ID, 13 mails
    back) is asked of the database (``pick_quotable`` says None), and the four lines it
    pastes of that acknowledgement -- which no later mail holds in a row -- are known as
    the bot's. Fails when the memory answers a reply it does not hold as "no such mail"."""
    db, cfg = _db_and_cfg(db_url, tmp_path)
    try:
        block, mid = _anna_acknowledged(db, cfg, tmp_path, later=12)
        reports = ingest(db, cfg, [
            ("a14.eml", player_mail("anna@example.org", "Partie R1:\nMOND\n\n" + block, headers={"In-Reply-To": mid})),
            ("b.eml", player_mail("bernd@example.org", "Partie R1:\nROT"))])
        assert [(r["status"], len(r["replies"])) for r in reports] == [("processed", 1)] * 2
        with db.session() as s:
            parse = s.scalar(select(InboundMail.parse).where(InboundMail.id == reports[0]["id"]))
        assert parse["ignored"] == [], parse
    finally:
        db.dispose()


def test_our_message_ids_have_the_shape_the_quoted_check_relies_on():
    """``may_be_ours``: every Message-ID ``make_message_id`` makes, no other shape."""
    from bot.mail.compose import make_message_id, may_be_ours
    assert may_be_ours(make_message_id("ack:17", "liga.example.org"))
    assert may_be_ours(make_message_id("ack:17#2", "x.invalid"))
    assert not may_be_ours("<start.1@liga.invalid>")
    assert not may_be_ours("<x1@mail.example>")
    assert not may_be_ours(None) and not may_be_ours("")


@pytest.mark.parametrize("first_bounces", [False, True])
def test_the_batchs_quoted_check_takes_the_players_report_address_as_the_database_does(tmp_path, first_bounces):
    """The batch's memory of quotable mails (``quoting.quotable_for``) takes the mails to
    the address the player's answers go to as ``quoted._REPORT_TO`` does: Anna writes
    from a second address and pastes four lines of the acknowledgement sent to her
    first; while the first works they are the bot's, once it bounces answers go to the
    sender's and the lines are read as written (unreadable). One statement for the
    batch's check: the memory answered."""
    from datetime import datetime, timezone

    from bot.storage.models import PlayerAddress

    db_url = f"sqlite:///{tmp_path / 'bot.sqlite'}"
    db, cfg = _db_and_cfg(db_url, tmp_path)
    try:
        block, _ = _anna_acknowledged(db, cfg, tmp_path)
        with db.session() as s:
            first = s.scalars(select(PlayerAddress).where(PlayerAddress.email == "anna@example.org")).one()
            s.add(PlayerAddress(player_id=first.player_id, email="anna.zwei@example.org"))
            if first_bounces:
                first.bounced_at, first.bounce_reason = datetime.now(timezone.utc), "550 no such user"
        reports, statements = _ingest_counting(db, cfg, [
            ("a2.eml", player_mail("anna.zwei@example.org", "Partie R1:\nMOND\n\n" + block)),
            ("b.eml", player_mail("bernd@example.org", "Partie R1:\nROT"))])
        assert [(r["status"], len(r["replies"])) for r in reports] == [("processed", 1)] * 2
        with db.session() as s:
            parse = s.scalar(select(InboundMail.parse).where(InboundMail.id == reports[0]["id"]))
        if first_bounces:
            assert parse["ignored"], parse  # not a mail to her answer address: read as written
        else:
            assert parse["ignored"] == [], parse
        assert statements == 1, statements
    finally:
        db.dispose()

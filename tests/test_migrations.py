"""The Alembic migrations on SQLite and on a real PostgreSQL server (fixture ``db_url``):
upgrade to head, downgrade to base, upgrade again; the migrated schema is the models'
schema; data written under an old revision survives the later ones."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text

from bot.storage.db import alembic_config, make_engine, upgrade
from bot.storage.models import Base

TABLES = {"leagues", "partien", "players", "player_addresses", "rounds", "vorgaben", "inbound_mails",
          "submissions", "submission_moves", "adjudications", "results", "outbox", "poll_state",
          "address_changes", "service_lease", "send_attempts"}


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def _revision(url: str) -> str | None:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def _schema_diff(url: str) -> list:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": False})
            return compare_metadata(ctx, Base.metadata)
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(db_url):
    cfg = alembic_config(db_url)
    head = ScriptDirectory.from_config(cfg).get_current_head()
    upgrade(db_url)
    assert _revision(db_url) == head
    assert _tables(db_url) == TABLES
    assert _schema_diff(db_url) == []
    command.downgrade(cfg, "base")
    assert _revision(db_url) is None
    assert _tables(db_url) == set()
    upgrade(db_url)
    assert _revision(db_url) == head
    assert _tables(db_url) == TABLES
    assert _schema_diff(db_url) == []
    upgrade(db_url)  # at head: nothing to do
    assert _revision(db_url) == head


def test_data_of_the_first_revision_survives_the_upgrade(db_url):
    """Rows written under 0001 get the server defaults of the later columns (booleans
    false, counts, score = points) on both backends, and downgrading keeps them."""
    upgrade(db_url, "0001")
    engine = create_engine(db_url)
    try:
        with engine.begin() as c:
            c.execute(text("INSERT INTO leagues (id, name, game, seed, rounds, first_zat, zat_interval_days, "
                           "timezone, allow_words, deny_words, options, status, created_at) VALUES (1, 'L', "
                           "'rondo', '1', 3, '2026-12-06 19:00:00', 7, 'Europe/Berlin', '[]', '[]', '{}', "
                           "'running', '2026-11-01 10:00:00')"))
            c.execute(text("INSERT INTO partien (id, league_id, name, state, finished) "
                           "VALUES (1, 1, 'R1', '{}', false)"))
            c.execute(text("INSERT INTO players (id, league_id, name, active, joined_round) "
                           "VALUES (1, 1, 'Anna', true, 1)"))
            c.execute(text("INSERT INTO results (id, partie_id, round_number, player_id, points) "
                           "VALUES (1, 1, 1, 1, 17)"))
            c.execute(text("INSERT INTO inbound_mails (id, received_at, source, uidvalidity, uid, sha256, raw, "
                           "status) VALUES (1, '2026-11-01 10:00:00', 'imap:INBOX', 7, 1, 'ab', :raw, "
                           "'processed')"), {"raw": b"Subject: x\r\n\r\nTOR\r\n"})
            c.execute(text("INSERT INTO submissions (id, mail_id, partie_id, round_number, player_id, "
                           "created_at) VALUES (1, 1, 1, 1, 1, '2026-11-01 10:00:00')"))
            c.execute(text("INSERT INTO poll_state (mailbox, uidvalidity, last_uid) VALUES ('INBOX', 7, 1)"))
        upgrade(db_url)
        with engine.begin() as c:
            row = c.execute(text("SELECT score, submitted FROM results")).one()
            assert (row.score, bool(row.submitted)) == (17, False)
            lg = c.execute(text("SELECT require_code, paused, review, reminder_hours FROM leagues")).one()
            assert (bool(lg.require_code), bool(lg.paused), bool(lg.review), lg.reminder_hours) == \
                (False, False, False, 24)
            # the tables rebuilt by later revisions (SQLite batch mode) keep their rows
            mail = c.execute(text("SELECT source, uidvalidity, uid, raw FROM inbound_mails")).one()
            assert (mail.source, mail.uidvalidity, mail.uid, bytes(mail.raw)) == \
                ("imap:INBOX", 7, 1, b"Subject: x\r\n\r\nTOR\r\n")
            assert c.execute(text("SELECT mail_id FROM submissions")).scalar_one() == 1
            assert c.execute(text("SELECT last_uid FROM poll_state")).scalar_one() == 1
        command.downgrade(alembic_config(db_url), "0001")
        with engine.begin() as c:
            assert c.execute(text("SELECT points FROM results")).scalar_one() == 17
        upgrade(db_url)
        # the ORM reads the migrated rows (aware UTC times on both backends)
        from bot.storage.db import Database
        from bot.storage.models import League
        db = Database(db_url)
        try:
            with db.session() as s:
                league = s.get(League, 1)
                assert league.first_zat.tzinfo is not None and league.first_zat.hour == 19
                assert league.require_code is False and league.reminder_hours == 24
        finally:
            db.dispose()
    finally:
        engine.dispose()

"""The same code on PostgreSQL: migrations, and a round from mail to Auswertung."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import inspect, select

from bot.service.presentation.view import league_view
from bot.config import Config
from bot.games.rondo.movegen import best_moves
from bot.games.rondo.game import position_of
from bot.lexicon import load
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import League, OutboxMail, Partie
from tests.helpers import league_toml, player_mail, text_of


def test_migrations_and_a_round_on_postgresql(postgres_url, tmp_path):
    db = Database(postgres_url)
    db.migrate()
    tables = set(inspect(db.engine).get_table_names())
    assert {"leagues", "partien", "players", "player_addresses", "rounds", "vorgaben", "inbound_mails",
            "submissions", "submission_moves", "adjudications", "results", "outbox", "poll_state",
            "alembic_version"} <= tables
    cfg = Config(database_url=postgres_url, maildir=tmp_path / "mail", sender="spielleiter@example.org")
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "l.toml", partien=("R1",))), cfg)
    with db.session() as s:
        league = s.scalar(select(League))
        assert league.first_zat.tzinfo is not None and league.first_zat > datetime.now(timezone.utc)
        state = s.scalar(select(Partie)).state
    pos = position_of(state)
    best = best_moves(pos, load("rondo"), 1)[0]
    md.deliver_to_inbox(player_mail("anna@example.org", f"{best.notation(pos)}\n"))
    assert poll_once(db, cfg) == 1
    res = adjudicate_league(db, cfg, "Test-Rondo", force=True)
    assert res["partien"] == {"R1": best.word}
    view = league_view(db, "Test-Rondo")
    assert {r["player"]: r["points"] for r in view["standings"]}["anna@example.org"] == best.score
    deliver(db, md, cfg)
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung")).all()
        assert len(rows) == 3 and all(r.status == "sent" for r in rows)
        assert f"Neues Wort: {best.word}" in text_of(rows[0].raw)
    db.dispose()

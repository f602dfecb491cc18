"""The game master's operations on the machine: ``spielleiter gm ...`` (the CLI, German,
no code needed: the user on the machine is the GM) and the operations as functions
(:mod:`bot.service.conversations.gm`) on a Monoscrabble league. The GM commands by mail:
tests/test_gm.py."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.service.presentation.view import league_view
from bot.config import embedded
from bot.games import get_game
from bot.games.rondo.movegen import best_moves
from bot.games.rondo.game import position_of
from bot.lexicon import load
from bot.mail.maildir import MaildirTransport
from bot.service.conversations.gmbase import GMError
from bot.service.operations.league import create_league, read_league_file
from bot.storage.db import Database
from bot.storage.models import InboundMail, League, OutboxMail, Round
from tests.helpers import PLAYERS, header, league_toml, text_of
from tests.test_gm import CODE, GM, GM_KEYS, sent_in_order, states, unpaused


# -- the CLI ------------------------------------------------------------------------------

def test_cli_gm_commands(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf = tmp_path / "bot.toml"
    conf.write_text('[database]\nurl = "sqlite:///db.sqlite"\n[maildir]\npath = "mail"\n'
                    '[bot]\nsender = "spielleiter@example.org"\ngm_notice_minutes = 0\n', encoding="utf-8")
    liga = league_toml(tmp_path / "liga.toml", name="DS-Rondo", extra=GM_KEYS,
                       first_zat=datetime(2030, 12, 6, 20, 0, tzinfo=timezone(timedelta(hours=1))))
    md = MaildirTransport(tmp_path / "mail")

    def gm(*args) -> str:
        capsys.readouterr()
        assert main(["gm", *args, "--config", str(conf)]) == 0
        return capsys.readouterr().out

    def view():
        capsys.readouterr()
        assert main(["show", "DS-Rondo", "--json", "--config", str(conf)]) == 0
        return json.loads(capsys.readouterr().out)

    def last_to(addr):
        return [r for r in sent_in_order(md) if header(r, "To") == addr][-1]

    assert main(["init", "--config", str(conf)]) == 0
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    db = Database("sqlite:///" + str(tmp_path / "db.sqlite"))

    assert "ZAT der Runde 1" in gm("zat", "DS-Rondo", "+2d")
    assert view()["next_zat"] == "2030-12-08T19:00:00+00:00"
    assert "neuer ZAT" in header(last_to("anna@example.org"), "Subject")   # delivered before exit
    gm("zat", "DS-Rondo", "13.12.2030", "21:00")
    assert view()["next_zat"] == "2030-12-13T20:00:00+00:00"

    gm("pause", "DS-Rondo")
    with db.session() as s:
        assert s.scalar(select(League)).paused
        s.scalar(select(Round)).zat = datetime.now(timezone.utc) - timedelta(minutes=1)
    assert main(["adjudicate", "DS-Rondo", "--config", str(conf)]) == 0
    assert view()["round"] == 1
    with db.session() as s:  # (a ZAT that passed during the pause: tests/test_gm_pause.py)
        s.scalar(select(Round)).zat = datetime(2030, 12, 13, 20, 0, tzinfo=timezone.utc)
    assert "Nächster ZAT" in gm("weiter", "DS-Rondo")
    with db.session() as s:
        assert not s.scalar(select(League)).paused

    gm("erlaube", "DS-Rondo", "werkzeug")
    gm("verbiete", "DS-Rondo", "TOR")
    with db.session() as s:
        lg = s.scalar(select(League))
        assert lg.allow_words == ["WERKZEUG"] and lg.deny_words == ["TOR"]
    assert main(["lexicon", "check", "--league", "DS-Rondo", "TOR", "--config", str(conf)]) == 1

    st = {p["name"]: p for p in view()["partien"]}
    pos = position_of({"row": st["R1"]["row"], "vorgabe": st["R1"]["vorgabe"], "round": 1})
    lex = load("rondo").with_lists(["WERKZEUG"], ["TOR"])
    best = best_moves(pos, lex, 1)[0]
    out = gm("setze", "DS-Rondo", "Anna Albers", "R1", best.notation(pos), "XQZ")
    assert "Anna Albers" in out and "gültig" in out
    assert "eingetragen" in header(last_to("anna@example.org"), "Subject")

    gm("review", "DS-Rondo", "an")
    before = view()
    out = gm("auswerten", "DS-Rondo")
    assert "Runde 1 von DS-Rondo ausgewertet" in out and "FREIGEBEN" in out
    after = view()
    assert after["round"] == 2
    assert next(r for r in after["standings"] if r["name"] == "Anna Albers")["points"] == best.score
    with db.session() as s:
        assert {r.status for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung",
                                                                     OutboxMail.to_addr != GM))} == {"held"}

    out = gm("zurueck", "DS-Rondo")
    assert "zurückgesetzt" in out and f"{len(PLAYERS)} zurückgezogen" in out
    assert unpaused(view()) == unpaused(before)
    with db.session() as s:
        assert {r.status for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung",
                                                                     OutboxMail.to_addr != GM))} == {"failed"}
    gm("auswerten", "DS-Rondo")
    assert view()["standings"] == after["standings"]
    gm("freigeben", "DS-Rondo")
    assert "Auswertung Runde 1" in header(last_to("bernd@example.org"), "Subject")
    gm("review", "DS-Rondo", "aus")

    gm("nachricht", "DS-Rondo", "Bitte", "pünktlich", "sein.")
    for _, email in PLAYERS:
        assert "Bitte pünktlich sein." in text_of(last_to(email))

    gm("entferne", "DS-Rondo", "bernd@example.org")
    assert {r["name"] for r in view()["standings"]} == {"Anna Albers", "Clara Conrad"}
    assert "ausgetragen" in header(last_to("bernd@example.org"), "Subject")

    # every CLI action is recorded; errors exit 2 with a German message and change nothing
    with db.session() as s:
        recs = s.scalars(select(InboundMail).where(InboundMail.source == "cli")).all()
        assert [r.parse["command"] for r in recs][:3] == ["ZAT", "ZAT", "PAUSE"] and all("done" in r.parse for r in recs)
    assert main(["gm", "pause", "Nix", "--config", str(conf)]) == 2
    assert main(["gm", "freigeben", "DS-Rondo", "--config", str(conf)]) == 2
    assert "wartet keine Auswertung" in capsys.readouterr().err
    with db.session() as s:
        for row in s.scalars(select(OutboxMail)):
            assert CODE.encode() not in row.raw
    db.dispose()


# -- the operations as functions, on Monoscrabble, on SQLite and PostgreSQL -----------------

def test_monoscrabble_set_move_process_and_rollback_via_functions(tmp_path, db_url):
    from bot.games.monoscrabble.movegen import generate
    from bot.service.conversations import gm
    cfg = embedded(tmp_path / "var")
    cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    path = league_toml(tmp_path / "mono.toml", name="Test-Mono", partien=("M1",), rounds=3, extra=GM_KEYS)
    path.write_text(path.read_text().replace('game = "rondo"', 'game = "monoscrabble"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    game = get_game("monoscrabble")
    state = states(db)["M1"]
    ranked = sorted(generate(state["board"], state["rack"], load("monoscrabble")), key=lambda m: -m.score)
    top = game.gen_notation(ranked[0], state["board"])
    before = league_view(db, "Test-Mono")
    with db.session() as s:
        rec = gm.cli_record(s, cfg, s.scalar(select(League)), "setze", {}, datetime.now(timezone.utc))
        out = gm.set_move(s, cfg, "Test-Mono", "anna", "m1", [top], mail_id=rec.id)
        assert "Anna Albers" in out and "gültig" in out
    with db.session() as s:
        assert "ausgewertet" in gm.process_now(s, cfg, "Test-Mono")
    after = league_view(db, "Test-Mono")
    assert after["round"] == 2 and after["partien"][0]["board"] != before["partien"][0]["board"]
    assert {r["player"]: r["points"] for r in after["standings"]}["anna@example.org"] == 0
    assert {r["player"]: r["points"] for r in after["standings"]}["bernd@example.org"] == -1  # Besser-Wertung
    with db.session() as s:
        with pytest.raises(GMError):
            gm.release(s, cfg, "Test-Mono")
        assert "zurückgesetzt" in gm.rollback(s, cfg, "Test-Mono")
    assert unpaused(league_view(db, "Test-Mono")) == unpaused(before)          # board, rack, bag, cycle, standings, ZAT
    with db.session() as s:
        assert s.scalar(select(League)).paused
        assert {r.status for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung"))} == {"failed"}
        # SETZE (to Anna), ZURUECK (to all three; AUSWERTEN sends no notice: the Auswertung is the news),
        # within the notice window: Anna gets both in one mail
        notices = {r.to_addr: len(r.notices) for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "gm"))}
        assert notices == {"anna@example.org": 2, "bernd@example.org": 1, "clara@example.org": 1}
    db.dispose()

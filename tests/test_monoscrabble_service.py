"""Monoscrabble through the service: start mails, acknowledgement with scores, Besser-
Wertung standings, show --json, the top in the Auswertung, and joining by mail."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from bot.service.presentation.archive import build_archive, slug
from bot.service.presentation.view import league_view
from bot.config import embedded
from bot.games import get_game
from bot.lexicon import load
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import Partie, Player
from tests.helpers import header, league_toml, player_mail, text_of

try:
    get_game("monoscrabble")
except KeyError:  # the game is registered when its rules, notation and generator are complete
    pytestmark = pytest.mark.skip(reason="Monoscrabble is not registered yet")


@pytest.fixture
def mono(tmp_path, db_url):
    cfg = embedded(tmp_path / "var")
    cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    path = league_toml(tmp_path / "mono.toml", name="Test-Mono", partien=("M1",), rounds=3)
    path.write_text(path.read_text().replace('game = "rondo"', 'game = "monoscrabble"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    deliver(db, md, cfg)
    yield db, cfg, md
    db.dispose()


def _moves(state, lex):
    from bot.games.monoscrabble.movegen import generate
    game = get_game("monoscrabble")
    ranked = sorted(generate(state["board"], state["rack"], lex), key=lambda m: -m.score)
    return [(game.gen_notation(m, state["board"]), m.score) for m in ranked]


def test_a_monoscrabble_round_with_besser_wertung_and_a_late_joiner(mono, capsys):
    db, cfg, md = mono
    lex = load("monoscrabble")
    start = text_of(md.sent()[0])
    with db.session() as s:
        state = s.scalar(select(Partie)).state
    assert len(state["rack"]) == 7 and f"Vorgabe {state['rack']}" in start
    moves = _moves(state, lex)
    top_note, top_score = moves[0]
    weaker = next((n, sc) for n, sc in moves if sc < top_score)
    md.deliver_to_inbox(player_mail("anna@example.org", f"{top_note} {top_score} Punkte\n"))
    md.deliver_to_inbox(player_mail("bernd@example.org", f"A1w QQQQ\nErsatz: {weaker[0]}\n"))
    poll_once(db, cfg)
    acks = [r for r in md.sent() if "Re:" in header(r, "Subject")]
    assert len(acks) == 2
    a_ack = text_of(next(r for r in acks if header(r, "To") == "anna@example.org"))
    assert f"{top_score} Punkte" in a_ack and "gültig" in a_ack
    b_ack = text_of(next(r for r in acks if header(r, "To") == "bernd@example.org"))
    assert "ungültig" in b_ack and f"{weaker[1]} Punkte" in b_ack

    res = adjudicate_league(db, cfg, "Test-Mono", force=True)
    assert res["round"] == 1
    view = league_view(db, "Test-Mono")
    p = view["partien"][0]
    assert p["round"] == 2 and len(p["board"]) == 15 and all(len(r) == 15 for r in p["board"])
    assert len(p["rack"]) == 8 and isinstance(p["bag"], int)
    placed = sum(ch != "." for row in p["board"] for ch in row)
    assert p["bag"] == 102 - 8 - placed  # every tile is on the board, on the rack of 8 or in the bag
    assert p["board"][7][7] != "."  # the first move covers H8
    besser = {r["player"]: r["points"] for r in view["standings"]}
    assert besser == {"anna@example.org": 0, "bernd@example.org": -1, "clara@example.org": -2}
    played = {r["player"]: r["rounds_played"] for r in view["standings"]}
    assert played == {"anna@example.org": 1, "bernd@example.org": 1, "clara@example.org": 0}
    deliver(db, md, cfg)
    reports = {header(r, "To"): text_of(r) for r in md.sent() if "Auswertung Runde 1" in header(r, "Subject")}
    report = reports["anna@example.org"]
    assert "Top: " in report and f"{top_score} Punkte" in report
    assert "Abstand zum Top: 0" in report  # Anna's own lines
    # the round's table: one line per player with score, distance to the top and Besser-Wertung
    # of the round, then Besser-Wertung, rounds played and move points in total
    assert re.search(rf"^ *2\. Bernd Becker +\S.* +{weaker[1]} +{top_score - weaker[1]} +-1 +-1 +1 +{weaker[1]}\r?$",
                     report, re.M), report
    assert f"Abstand zum Top: {top_score - weaker[1]}" in reports["bernd@example.org"]
    assert "Besser-Wertung" in report and "Rd. = gespielte Runden" in report

    # a late joiner by mail: scored as NMR for round 1 (two players scored more than 0)
    md.deliver_to_inbox(player_mail("Dora Dahl <dora@example.org>", "", subject="ANMELDEN Test-Mono Dora Dahl"))
    poll_once(db, cfg)
    with db.session() as s:
        dora = s.scalar(select(Player).where(Player.name == "Dora Dahl"))
        assert dora is not None and dora.joined_round == 2
    view = league_view(db, "Test-Mono")
    row = next(r for r in view["standings"] if r["player"] == "dora@example.org")
    assert row["points"] == -2 and row["rounds_played"] == 0
    welcome = next(r for r in md.sent() if header(r, "To") == "dora@example.org")
    assert "ab Runde 2" in text_of(welcome)


def test_passe_is_acknowledged_as_a_valid_zero_point_move(mono):
    """Regression (found by the property test): a PASSE has no word; the acknowledgement
    used to fail rendering and the mail ended as ``error`` without an answer."""
    db, cfg, md = mono
    before = len(md.sent())
    md.deliver_to_inbox(player_mail("anna@example.org", "PASSE", subject="Test-Mono"))
    poll_once(db, cfg)
    acks = [text_of(m) for m in md.sent() if header(m, "Subject").startswith("Re:")]
    assert len(acks) == 1 and len(md.sent()) == before + 1
    ack = acks[0]
    assert "Hauptzug: PASSE" in ack and "gültig: PASSE, 0 Punkte" in ack


def test_a_blanko_in_a_move_line_gets_its_key_once(mono):
    """A move line writes a Blanko as ``*X`` ("MOK*IERT"): the acknowledgement and the
    Auswertung give the key once, as the board gives its own ("Kleinbuchstabe = Blanko");
    a mail without a Blanko in its move lines has no such key (issue 32)."""
    db, cfg, md = mono
    with db.session() as s:
        part = s.scalar(select(Partie))
        part.state = dict(part.state, rack="EKMORT?")
    md.deliver_to_inbox(player_mail("anna@example.org", "H2s MOK*IERT\nErsatz: H4s MOK*IERT\n", subject="Test-Mono"))
    md.deliver_to_inbox(player_mail("bernd@example.org", "PASSE\n", subject="Test-Mono"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    acks = {header(m, "To"): text_of(m) for m in md.sent() if header(m, "Subject").startswith("Re:")}
    assert "MOK*IERT" in acks["anna@example.org"] and acks["anna@example.org"].count("(*X = Blanko als X)") == 1
    assert "Blanko als" not in acks["bernd@example.org"]
    adjudicate_league(db, cfg, "Test-Mono", force=True)
    deliver(db, md, cfg)
    mails = [m for m in md.sent() if "Auswertung" in header(m, "Subject")]
    assert mails
    for m in mails:
        text = text_of(m)
        assert "H2s MOK*IERT" in text and text.count("(*X = Blanko als X)") == 1, text
        assert "(Kleinbuchstabe = Blanko)" in text
    # every player's lines of the round (AUSWERTUNG 1 ALLE): the key once, at the end
    md.deliver_to_inbox(player_mail("bernd@example.org", "", subject="AUSWERTUNG 1 ALLE Test-Mono"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    alle = [text_of(m) for m in md.sent() if "AUSWERTUNG 1 ALLE" in header(m, "Subject")]
    assert len(alle) == 1 and "MOK*IERT" in alle[0] and alle[0].count("(*X = Blanko als X)") == 1, alle


@pytest.mark.parametrize("racks", [("EKMORTS",), ("EKMORTS", "EKMORT?")], ids=["one-partie", "two-partien"])
def test_the_blanko_key_comes_once_a_mail_also_in_the_gm_copy(tmp_path, db_url, racks):
    """The key "(*X = Blanko als X)" comes once a mail (GameRules.move_key), and once a
    round page of the archive, however many
    move sections write a Blanko: in the game master's copy, which shows every player's
    moves, not once per player; with two Partien not once per Partie. Partie M1's Vorgabe
    has no Blanko (the starred lines are invalid there, the board move has none), M2's has
    one (its board move is MOK*IERT)."""
    cfg = embedded(tmp_path / "var")
    cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    names = [f"M{i}" for i in range(1, len(racks) + 1)]
    path = league_toml(tmp_path / "mono.toml", name="Test-Mono", partien=names, rounds=3,
                       extra='gm_email = "gm@example.org"')
    path.write_text(path.read_text().replace('game = "rondo"', 'game = "monoscrabble"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
        for part in s.scalars(select(Partie)):
            part.state = dict(part.state, rack=racks[names.index(part.name)])
    deliver(db, md, cfg)
    multi = len(racks) > 1
    anna = "Partie M1:\nH8w MOK*IERT\nPartie M2:\nH2s MOK*IERT\n" if multi else "H8w MOK*IERT\n"
    bernd = "Partie M1:\nH8w K*RT\nPartie M2:\nPASSE\n" if multi else "H8w K*RT\n"
    md.deliver_to_inbox(player_mail("anna@example.org", anna, subject="Test-Mono"))
    md.deliver_to_inbox(player_mail("bernd@example.org", bernd, subject="Test-Mono"))
    poll_once(db, cfg)
    adjudicate_league(db, cfg, "Test-Mono", force=True)
    deliver(db, md, cfg)
    mails = {header(m, "To"): text_of(m) for m in md.sent() if "Auswertung" in header(m, "Subject")}
    assert {"gm@example.org", "anna@example.org", "bernd@example.org"} <= set(mails)
    gm = mails["gm@example.org"]
    assert "Hauptzug: H8w MOK*IERT" in gm and "Hauptzug: H8w K*RT" in gm
    for who in ("gm@example.org", "anna@example.org", "bernd@example.org"):
        assert mails[who].count("(*X = Blanko als X)") == 1, mails[who]
    # the key stands below the first lines that need it: the board move of M2, else the moves
    first_star = gm.index("MOK*IERT") if not multi else gm.index("Aufs Brett: H2s MOK*IERT")
    assert gm.index("(*X = Blanko als X)") > first_star
    # the archive's round page, which shows every player's moves, gives the key once too
    build_archive(db, tmp_path / "site")
    page = (tmp_path / "site" / slug("Test-Mono") / "runde-01.html").read_text(encoding="utf-8")
    assert "K*RT" in page and page.count("(*X = Blanko als X)") == 1, page
    db.dispose()

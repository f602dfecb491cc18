"""Typed visibility in the game interface (issue 23, docs/development/privacy.md): what a public
context may reach, and what raises when it reaches for more; ``show`` through each game's
own picture with every private part, ``show --json`` naming players by address."""

from __future__ import annotations

import pytest
from jinja2 import Environment, StrictUndefined
from markupsafe import escape

from bot.config import embedded
from bot.games import get_game
from bot.games.base import GM_ONLY, PUBLIC, Audience, MoveReport, PlayerRound, PrivacyError, Redacted, Sealed, Withheld
from bot.service.operations.league import create_league, read_league_file
from bot.service.presentation.view import league_view
from bot.storage.db import Database
from tests.helpers import PLAYERS, league_toml


def _typdom_round():
    game = get_game("typdom")
    rep = MoveReport(1, "P9s QOLLeN", False, reason="rack", message="Nicht auf deiner Bank (JLLNNOUUU): Q.",
                     public="Steine, die nicht auf der Bank sind: Q.", notes=["n"], public_notes=["n"],
                     detail={"picture": ["secret"]})
    pl = PlayerRound("7", True, [rep], None, 0, private={"rack": "JLLNNOUUU"}).to_json()
    return game, pl


def test_a_verdict_has_a_public_and_a_private_text():
    game, pl = _typdom_round()
    mine = game.seen_by(pl, Audience(viewer="7"), {})
    assert mine["moves"][0]["message"] == "Nicht auf deiner Bank (JLLNNOUUU): Q."
    assert mine["private"]["rack"] == "JLLNNOUUU"
    assert game.seen_by(pl, GM_ONLY, {})["moves"][0]["message"].startswith("Nicht auf deiner Bank (JLLNNOUUU)")
    for audience in (PUBLIC, Audience(viewer="8")):
        other = game.seen_by(pl, audience, {})
        assert other["moves"][0]["message"] == "Steine, die nicht auf der Bank sind: Q."
        assert "picture" not in other["moves"][0]["detail"] and "JLLNNOUUU" not in repr(other)
        with pytest.raises(PrivacyError):
            other["private"].get("rack")


def test_a_private_state_game_without_public_text_shows_the_gloss_only():
    game = get_game("typdom")
    pl = PlayerRound("7", True, [MoveReport(0, "X", False, reason="rack", message="Bank ABCDEFG")], None, 0).to_json()
    assert game.seen_by(pl, PUBLIC, {})["moves"][0]["message"] == "Steine nicht auf der Bank"
    rondo = get_game("rondo")  # no private state: the verdict is public as it is
    assert rondo.seen_by(pl, PUBLIC, {})["moves"][0]["message"] == "Bank ABCDEFG"


def test_crossword_moves_are_hidden_until_the_end():
    game = get_game("crossword")
    rep = MoveReport(0, "B3 E, C4 R\nWunsch: N", True, score=0, message="Gelegt: B3 E.", public="Legung abgegeben.",
                     detail={"summary": "Gelegt: B3 E."})
    pl = PlayerRound("1", True, [rep], 0, 0).to_json()
    running = game.seen_by(pl, PUBLIC, {"finished": False})["moves"][0]
    assert running["text"] == game.hidden_move_text and running["detail"] == {} and "B3" not in repr(running)
    assert game.seen_by(pl, PUBLIC, {"finished": True})["moves"][0]["text"].startswith("B3 E")


def test_a_public_context_cannot_render_a_private_text():
    game, pl = _typdom_round()
    env = Environment(undefined=StrictUndefined, autoescape=False)
    with pytest.raises(PrivacyError):
        env.from_string("{{ pl.moves }}").render(pl=Sealed(pl, game, {}))
    with pytest.raises(PrivacyError):
        env.from_string("{{ x }}").render(x=Withheld("rack"))
    with pytest.raises(PrivacyError):
        escape(Withheld("rack"))
    assert not Withheld("rack")
    with pytest.raises(PrivacyError):
        Redacted({}, {"hand"})["hand"]
    assert Redacted({"partner_turn": True}, {"hand"}).get("partner_turn") is True
    assert Sealed(pl, game, {}).open(PUBLIC)["moves"][0]["message"].startswith("Steine, die nicht")


@pytest.fixture
def env(tmp_path):
    cfg = embedded(tmp_path / "var")
    db = Database(cfg.database_url)
    db.migrate()
    yield db, cfg
    db.dispose()


@pytest.mark.parametrize("game,expect", [
    ("typdom", ["Sitzreihenfolge: 1.", "Bank Anna Albers: ", "Vorrat: ", "am Zug: alle"]),
    ("typdom-wbr", ["am Zug: ", "Bank Bernd Becker: ", "Sitzreihenfolge"]),
    ("rondonl", ["Hand Anna Albers: ", "Striche", "Eröffnung: alle bis", "Stapel: "]),
    ("rondo", ["Auslage ", "Vorgabe "]),
])
def test_show_renders_the_games_own_picture_for_the_gm(tmp_path, env, game, expect):
    db, cfg = env
    path = league_toml(tmp_path / "l.toml", name="L", partien=("A",), rounds=5)
    path.write_text(path.read_text().replace('game = "rondo"', f'game = "{game}"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    view = league_view(db, "L")
    picture = "\n".join(view["partien"][0]["picture"])
    assert all(x in picture for x in expect), picture
    addresses = {e for _, e in PLAYERS}
    part = view["partien"][0]
    for field in ("seat_order", "seats"):
        if field in part:
            assert set(part[field]) == addresses
    for field in ("rack_sizes", "hand_sizes", "marks", "scores"):
        if field in part:
            assert set(part[field]) == addresses
    if game == "rondonl":
        assert view["rounds_fixed"] is False


def test_show_crossword_draws_every_grid(tmp_path, env):
    db, cfg = env
    players = [(f"Spieler {i}", f"s{i}@example.org") for i in range(6)]
    path = league_toml(tmp_path / "c.toml", name="C", partien=("A",), players=players)
    text = path.read_text().replace('game = "rondo"', 'game = "crossword"').replace("rounds = 3\n", "")
    path.write_text(text)
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    pic = league_view(db, "C")["partien"][0]["picture"]
    assert pic[0].startswith("Runde 1 von 7") and "Wunschrunde" in pic[0]
    # whole names, four grids side by side, then the other two
    assert pic[2].split() == ["Spieler", "0", "Spieler", "1", "Spieler", "2", "Spieler", "3"]
    assert pic[11].split() == ["Spieler", "4", "Spieler", "5"]
    assert len(pic) == 1 + 2 * (3 + 6) and pic[4].startswith("  A  ······")

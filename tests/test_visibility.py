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
from bot.games.verdict import N_, Verdict, Visibility, mover, verdict
from bot.service.operations.league import create_league, read_league_file
from bot.service.presentation.view import league_view
from bot.storage.db import Database
from tests.helpers import PLAYERS, league_toml


def _typdom_round():
    game = get_game("typdom")
    from bot.games.typdom.engine import NOT_ON_RACK  # as the engine writes it, with the GM's wording

    rep = MoveReport(1, "P9s QOLLeN", False, reason="rack",
                     verdict=verdict("rack", NOT_ON_RACK,
                                     rack=mover("JLLNNOUUU"), missing=mover("Q")),
                     notes=[verdict("n", "n")], detail={"picture": ["secret"]})
    pl = PlayerRound("7", True, [rep], None, 0, private={"rack": "JLLNNOUUU"}).to_json()
    return game, pl


def test_a_verdict_is_data_rendered_per_audience():
    game, pl = _typdom_round()
    mine = game.seen_by(pl, Audience(viewer="7"), {})
    assert mine["moves"][0]["message"] == "Nicht auf deiner Bank (JLLNNOUUU): Q."
    assert mine["moves"][0]["notes"] == ["n"]
    assert mine["private"]["rack"] == "JLLNNOUUU"
    # the game master reads it whole, about the player (bot.games.verdict.about_mover)
    assert game.seen_by(pl, GM_ONLY, {})["moves"][0]["message"] == "Nicht auf der Bank (JLLNNOUUU): Q."
    for audience in (PUBLIC, Audience(viewer="8")):
        other = game.seen_by(pl, audience, {})
        # issue 31: a line that was not played names nothing (no letter, no count, no reason)
        assert other["moves"][0]["message"] == "ungültig" and other["moves"][0]["reason"] is None
        assert other["moves"][0]["text"] != "P9s QOLLeN" and other["moves"][0]["notes"] == []
        assert "picture" not in other["moves"][0]["detail"] and "JLLNNOUUU" not in repr(other)
        assert "QOLL" not in repr(other)
        with pytest.raises(PrivacyError):
            other["private"].get("rack")
    v = verdict("rack", N_("Nicht auf deiner Bank ({rack}): {missing}."), rack=mover("JL"), missing=mover("Q"))
    with pytest.raises(PrivacyError):
        v.render("de", PUBLIC, "7")
    with pytest.raises(PrivacyError):
        v.render("de", Audience(viewer="8"), "7")
    with pytest.raises(PrivacyError):
        str(v)
    assert v.render("de", Audience(viewer="7"), "7") == "Nicht auf deiner Bank (JL): Q."
    # a public sentence cannot carry a private parameter out
    w = verdict("word", N_("{word} steht nicht im Wörterbuch."), seen=Visibility.PUBLIC, word=mover("QOLL"))
    assert not w.visible(PUBLIC, "7")
    with pytest.raises(PrivacyError):
        w.render("de", PUBLIC, "7")
    assert Verdict.from_json(v.to_json()) == v


def test_lines_after_the_counted_one_are_not_tried_for_others():
    game = get_game("typdom")
    reps = [MoveReport(0, "A1w QUARK", False, reason="word", message=verdict("w", "kein Wort")),
            MoveReport(1, "A1w HAUS", True, score=4, message=verdict("ok", "HAUS", seen=Visibility.PUBLIC)),
            MoveReport(2, "A1w MAUS", True, score=4, message=verdict("ok", "MAUS", seen=Visibility.PUBLIC))]
    pl = PlayerRound("7", True, reps, 1, 4).to_json()
    seen = game.seen_by(pl, PUBLIC, {})["moves"]
    assert [m["message"] for m in seen] == ["ungültig", "HAUS", "nicht mehr probiert"]
    assert seen[1]["text"] == "A1w HAUS" and "QUARK" not in repr(seen) and "MAUS" not in repr(seen)
    assert [m["message"] for m in game.seen_by(pl, PUBLIC, {}, "nl")["moves"]][0] != ""
    rondo = get_game("rondo")  # no private state: every public verdict as it is
    assert [m["text"] for m in rondo.seen_by(pl, PUBLIC, {})["moves"]] == ["A1w QUARK", "A1w HAUS", "A1w MAUS"]


def test_crossword_moves_are_hidden_until_the_end():
    game = get_game("crossword")
    rep = MoveReport(0, "B3 E, C4 R\nWunsch: N", True, score=0, message="Gelegt: B3 E.",
                     public=verdict("laid", "Legung abgegeben.", seen=Visibility.PUBLIC),
                     detail={"summary": verdict("sum", "Gelegt: {f}.", f=mover("B3 E"))})
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
    assert Sealed(pl, game, {}).open(PUBLIC)["moves"][0]["message"] == "ungültig"


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

"""Crossword through the game interface (bot.games.base): a whole Partie of seven ZATs
adjudicated in memory, private grids, drawn wishes, acknowledgements, final scoring."""

from __future__ import annotations

import json

import pytest

from bot.games import get_game
from bot.games.crossword.game import WISH_WEIGHTS, draw_wish
from bot.lexicon import Lexicon

KEYS = ["1", "2", "3", "4", "5", "6"]
LEX = Lexicon.from_words(["HAUS", "OH", "OB", "SO", "TOR", "ROT", "HAUSE", "NEBEL"], "crossword")


@pytest.fixture
def game():
    return get_game("crossword")


def test_interface_facts(game):
    assert game.multiline and game.fixed_rounds == 7 and game.alphabet == "crossword"
    assert game.check_players(KEYS) is None
    assert game.check_players(KEYS[:5]).text() == "Crossword braucht genau 6 Spieler, die Ligadatei hat 5."
    assert game.check_players(KEYS[:5]).text("nl").startswith("Crossword heeft precies 6 spelers nodig")


def test_new_partie_is_private(game):
    st = game.new_partie(seed="s", partie="C1", players=KEYS)
    json.dumps(st)
    assert st["round"] == 1 and st["letters"] == "" and set(st["grids"]) == set(KEYS)
    assert "grids" not in game.public_view(st)
    assert game.player_view(st, "1")["grid"] == ["......"] * 6


def test_round_one_is_the_wish_only(game):
    st = game.new_partie(seed="s", partie="C1", players=KEYS)
    assert game.check_line(st, "Wunsch: H", LEX, player="1").valid
    bad = game.check_line(st, "A1 H\nWunsch: H", LEX, player="1")
    assert not bad.valid and "Runde 1" in bad.message
    rep = game.adjudicate(st, {"1": ["Wunsch: H"], "2": ["Wunsch: A"], "3": ["Wunsch: U"], "4": ["Wunsch: S"],
                               "5": ["Wunsch: E"], "6": None}, LEX, seed="s", partie="C1")
    after = rep.state_after
    drawn = draw_wish("s", "C1", 1, "6")
    assert after["round"] == 2 and after["letters"] == "".join(sorted("HAUSE" + drawn))
    assert rep.board_move["drawn"] == 1 and rep.board_move["players"] == ["1", "2", "3", "4", "5"]
    six = next(p for p in rep.players if p.player == "6")
    assert six.counted is None and six.private["wish_drawn"] and not six.submitted


def test_drawn_wishes_are_reproducible_and_weighted():
    assert draw_wish("s", "C1", 3, "2") == draw_wish("s", "C1", 3, "2")
    draws = [draw_wish("seed", "C1", r, p) for r in range(1, 60) for p in KEYS]
    assert draws.count("E") > draws.count("Q") and set(draws) <= set(WISH_WEIGHTS)


def play(game, moves_by_round, seed="s"):
    st = game.new_partie(seed=seed, partie="C1", players=KEYS)
    reports = []
    for rnd, moves in enumerate(moves_by_round, start=1):
        rep = game.adjudicate(st, moves, LEX, seed=seed, partie="C1", last_round=rnd == 7)
        json.dumps(rep.to_json())
        reports.append(rep)
        st = rep.state_after
    return st, reports


def test_a_whole_partie(game):
    wishes = {"1": "H", "2": "A", "3": "U", "4": "S", "5": "E", "6": "O"}
    r1 = {k: [f"Wunsch: {w}"] for k, w in wishes.items()}
    # round 2: letters A E H O S U; player 1 builds HAUS + E, player 2 sends an invalid move, 3 NMR
    r2 = {"1": ["A1 H, A2 A, A3 U, A4 S, A5 E\nWunsch: T"], "2": ["A1 X\nWunsch: R"], "3": None,
          "4": ["HAUS..\n......\n......\n......\n......\n......\nWunsch: B"], "5": ["Wunsch: O"],
          "6": ["F1 O, F2 S"]}
    rest = [{k: ["Wunsch: E"] for k in KEYS} for _ in range(3)]
    rest.append(dict({k: ["Wunsch: E"] for k in KEYS}, **{"1": ["Wunsch: O"], "2": ["Wunsch: B"]}))
    last = {"1": ["B1 O\nHAUSE A1-A5\nHAUS A1-A4\nOH B1-A1\nSAU A4-A2\nHAU A1-A3"], "2": None,
            "3": ["Wunsch: Q"], "4": ["HAUS A1-A4"], "5": [], "6": ["SO F2-F1"]}
    st, reps = play(game, [r1, r2] + rest + [last])
    assert st["finished"] and st["round"] == 7
    assert st["grids"]["1"][0] == "HAUSE." and st["grids"]["1"][1] == "O....."
    assert st["grids"]["2"] == ["......"] * 6          # invalid placement places nothing
    r2rep = reps[1]
    two = next(p for p in r2rep.players if p.player == "2")
    assert two.counted is None and two.private["wish"] == "R" and not two.private.get("wish_drawn")
    six = next(p for p in r2rep.players if p.player == "6")
    assert six.private["wish_drawn"]                    # no wish in a valid move: drawn
    final = st["final"]
    one = final["1"]
    assert [c["valid"] for c in one["claims"]] == [True, False, True, False, False]
    assert [c.get("reason") for c in one["claims"]] == [None, "overlap", None, "position", "overlap"]
    assert one["score"] == 7 + 1
    assert final["4"]["score"] == 5 and final["6"]["score"] == 1 and final["3"]["score"] == 0
    assert one["best"]["score"] >= one["score"]
    pts = {p.player: p.points for p in reps[-1].players}
    assert pts == {"1": 8, "2": 0, "3": 0, "4": 5, "5": 0, "6": 1}
    pub = game.public_view(st)
    assert pub["finished"] and pub["grids"]["1"][0] == "HAUSE."
    assert reps[-1].top["1"]["score"] == one["best"]["score"]


def test_acknowledgement_shows_the_grid_and_answers_at_once(game):
    st = game.new_partie(seed="s", partie="C1", players=KEYS)
    st = dict(st, round=2, letters="AEHOSU")
    ok = game.check_line(st, "A1 H, A2 A\nWunsch: T", LEX, player="1")
    assert ok.valid and ok.detail["picture"][1].startswith("A  H A")
    assert ok.message == "2 Buchstaben gelegt. Ungenutzt: E O S U. Wunsch: T."
    assert ok.detail["picture_title"].text() == "Dein Spielfeld danach:"
    assert ok.public.text() == "Legung und Wunsch abgegeben." and ok.public.code == "placed"
    bad = game.check_line(st, "A1 H, A1 A", LEX, player="1")
    assert not bad.valid and bad.reason == "occupied" and "zweimal" in bad.message
    assert bad.verdict.code == "occupied" and bad.public is None
    assert bad.detail["picture_title"].text() == "Dein Spielfeld bleibt so:"
    one = game.check_line(st, "A1 H\nWunsch: T", LEX, player="1")
    assert one.message == "1 Buchstabe gelegt. Ungenutzt: A E O S U. Wunsch: T."
    assert one.verdict.text("nl") == "1 letter gelegd. Ongebruikt: A E O S U. Wens: T."
    from bot.games.verdict import PUBLIC, PrivacyError
    with pytest.raises(PrivacyError):       # the mover's letters and wish: never for everybody
        one.verdict.render("de", PUBLIC, owner="1")
    assert one.public.render("nl", PUBLIC, owner="1") == "Legging en wens ingestuurd."
    nowish = game.check_line(st, "A1 H", LEX, player="1")
    assert nowish.valid and "ausgelost" in nowish.message


def test_last_round_acknowledgement_checks_positions_not_words(game):
    st = game.new_partie(seed="s", partie="C1", players=KEYS)
    grids = dict(st["grids"], **{"1": ["HAUS..", "......", "......", "......", "......", "......"]})
    st = dict(st, round=7, letters="BEEORT", grids=grids)
    rep = game.check_line(st, "A5 E\nHAUSE A1-A5\nXYZ A1-A3\nHAUS A1-A4\nWunsch: Q", LEX, player="1")
    assert rep.valid
    text = " ".join(rep.note_texts)
    assert "XYZ A1-A3" in text and "HAUS A1-A4" in text and "Wunsch Q entfällt" in text
    assert "HAUSE A1-A5:" not in text


def test_rule_cases_run_through_the_registry(game):
    case = {"kind": "score", "grid": ["HAUS..", "......", "......", "......", "......", "......"],
            "claims": ["HAUS A1-A4"], "words": ["HAUS"]}
    assert game.run_case(case, LEX) == {"score": 5, "claims": [{"valid": True, "points": 5}], "best": 5}
    assert game.top_case(case, LEX)["move"] == ["HAUS A1-A4"]


def test_a_removed_player_keeps_the_grid_but_has_no_result(game):
    st = game.new_partie(seed="s", partie="C1", players=KEYS)
    subs = {k: [f"Wunsch: {w}"] for k, w in zip(KEYS[:5], "HAUSE")}   # "6" was removed by the GM
    rep = game.adjudicate(st, subs, LEX, seed="s", partie="C1")
    assert [p.player for p in rep.players] == KEYS[:5]
    assert len(rep.state_after["letters"]) == 6 and "6" in rep.state_after["grids"]


def test_gm_picture_names_every_grid_whole():
    """``spielleiter show``: the round, its letters and all six grids, headed by whole
    names (two Annas told apart), four side by side."""
    from bot.games.registry import get_game
    game = get_game("crossword")
    keys = [str(i) for i in range(1, 7)]
    state = {"round": 3, "rounds": 7, "letters": "ABCDEF", "players": keys,
             "grids": {k: ["A.....", "......", "......", "......", "......", f"....{chr(64 + int(k))}."] for k in keys}}
    names = dict(zip(keys, ["Anna Albers", "Anna Ammann", "Clara Conrad", "Dieter Dahl", "Edith Ernst", "Fritz Fuchs"]))
    from bot.games.verdict import render_text
    lines = [render_text(x) for x in game.gm_picture(state, names, zat="So 20:00")]
    assert lines[0] == "Runde 3 von 7, ZAT So 20:00, Buchstaben A B C D E F"
    text = "\n".join(lines)
    assert "Anna Albers" in text and "Anna Ammann" in text and "Fritz Fuchs" in text
    assert lines[2].split() == ["Anna", "Albers", "Anna", "Ammann", "Clara", "Conrad", "Dieter", "Dahl"]
    assert lines[9].split() == ["F", "····A·", "····B·", "····C·", "····D·"]
    assert max(len(ln) for ln in lines) <= 72

"""Monoscrabble as a game: tiles and bag, Partie state, round adjudication with the
Besser-Wertung, bag cycles, views (bot/games/monoscrabble/game.py, tiles.py; seed 001;
shared/RULES.md "Monoscrabble")."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from collections import Counter

import pytest

from bot.games.base import GameRules, MoveReport
from bot.games.monoscrabble import MonoscrabbleRules
from bot.games.registry import GAMES
from bot.games.monoscrabble.engine import evaluate
from bot.games.monoscrabble.game import MovegenUnavailable
from bot.games.monoscrabble.tiles import BAG_SIZE, LETTER_COUNTS, LETTER_VALUES, full_bag, sort_tiles
from bot.lexicon import Lexicon
from tests.helpers import CASES_DIR

RULES = MonoscrabbleRules()
WORDS = ["STERN", "STERNE", "RUHE", "ER", "NEU", "NE", "RE", "EN"]
LEX = Lexicon.from_words(WORDS, "monoscrabble")
EMPTY = ["." * 15] * 15
STERN = ["." * 15] * 7 + ["...STERN......."] + ["." * 15] * 7

# RULES.md "Monoscrabble": count x value
RULES_TABLE = ("E 15x1, N 9x1, S 7x1, I 6x1, R 6x1, T 6x1, U 6x1, A 5x1, D 4x1, H 4x2, G 3x2, L 3x2, O 3x2, "
               "M 4x3, B 2x3, W 1x3, Z 1x3, C 2x4, F 2x4, K 2x4, P 1x4, Ä 1x6, J 1x6, Ü 1x6, V 1x6, Ö 1x8, "
               "X 1x8, Q 1x10, Y 1x10")
HAVE_MOVEGEN = importlib.util.find_spec("bot.games.monoscrabble.movegen") is not None


def state(board=STERN, rack="AEHILRTU", bag="ABCDEFGHIJKLMNOP", rnd=2, rounds=20, cycle=1):
    return {"round": rnd, "rounds": rounds, "board": list(board), "rack": rack, "bag": bag, "cycle": cycle,
            "finished": False, "history": []}


def adj(st, subs, seed="s", partie="M1", **kw):
    return RULES.adjudicate(st, subs, LEX, seed=seed, partie=partie, **kw)


def by_player(report):
    return {p.player: p for p in report.players}


# -- tiles and bag -----------------------------------------------------------------------------

def test_bag_has_102_tiles_with_the_counts_and_values_of_the_rules():
    table = {}
    for item in RULES_TABLE.split(", "):
        letter, cv = item.split(" ")
        n, v = cv.split("x")
        table[letter] = (int(n), int(v))
    assert {k: n for k, (n, _) in table.items()} == LETTER_COUNTS
    assert {k: v for k, (_, v) in table.items()} == LETTER_VALUES
    bag = Counter(full_bag())
    assert sum(bag.values()) == BAG_SIZE == 102
    assert bag["?"] == 2
    assert {k: n for k, n in bag.items() if k != "?"} == LETTER_COUNTS
    assert evaluate(EMPTY, "?E", "H8w *RE", Lexicon.from_words(["RE"], "monoscrabble")).score == (0 + 1) * 2


def test_new_partie_draws_7_from_the_seeded_bag():
    s = RULES.new_partie(seed="liga", partie="M1")
    assert s["round"] == 1 and s["rounds"] == 20 and s["cycle"] == 1 and s["finished"] is False
    assert s["board"] == EMPTY and s["history"] == []
    assert len(s["rack"]) == 7 and len(s["bag"]) == 95
    bag = full_bag()
    random.Random("liga/M1/bag/1").shuffle(bag)
    assert s["rack"] == sort_tiles(bag[:7]) and s["bag"] == "".join(bag[7:])
    assert Counter(s["rack"]) + Counter(s["bag"]) == Counter(full_bag())
    assert RULES.new_partie(seed="liga", partie="M1") == s
    assert RULES.new_partie(seed="liga", partie="M2") != s
    assert RULES.new_partie(seed="liga", partie="M1", options={"rounds": 12})["rounds"] == 12


def test_state_json_round_trip():
    s = RULES.new_partie(seed="liga", partie="M1")
    assert json.loads(json.dumps(s, ensure_ascii=False)) == s
    rep = adj(state(), {"anna": ["I5s RUHE"], "bert": None})
    after = rep.state_after
    assert json.loads(json.dumps(after, ensure_ascii=False)) == after
    json.dumps(rep.to_json(), ensure_ascii=False)


def test_interface():
    assert isinstance(RULES, GameRules)
    assert (RULES.name, RULES.alphabet, RULES.title) == ("monoscrabble", "monoscrabble", "Monoscrabble")
    assert RULES.read_move("H8w STERN").word == "STERN"
    rep = RULES.check_line(state(), "I5s RUHE +sternE 13 Punkte", LEX, index=1)
    assert isinstance(rep, MoveReport) and rep.valid and rep.score == 13 and rep.index == 1
    assert rep.detail["words"] == ["RUHE", "STERNE"] and rep.detail["tiles"] == 4
    assert rep.detail["notation"] == "I5s RUHE" and rep.detail["placements"][0] == [5, 9, "R", False]
    bad = RULES.check_line(state(), "A1w RUHE", LEX)
    assert not bad.valid and bad.reason == "not-connected" and bad.score is None and bad.message


def test_registry_creates_the_game_once_and_get_game_finds_it():
    from bot.games import get_game
    g = get_game("monoscrabble")
    assert isinstance(g, MonoscrabbleRules) and GAMES["monoscrabble"] is g
    assert get_game("monoscrabble") is g


# -- adjudication --------------------------------------------------------------------------------

def test_besser_wertung_ties_nmr_and_ersatzzug():
    rep = adj(state(), {
        "anna": ["I5s RUHE"],                       # 13
        "bert": ["I5s RUHE 13 Punkte"],             # 13, the same move
        "carl": ["A1w RUHE", "I8w E"],              # main invalid, Ersatzzug counts: STERNE 6
        "dora": None,                               # NMR
        "emil": ["Quatsch"],                        # nothing valid
    })
    p = by_player(rep)
    assert {k: v.score for k, v in p.items()} == {"anna": 13, "bert": 13, "carl": 6, "dora": 0, "emil": 0}
    assert {k: v.points for k, v in p.items()} == {"anna": 0, "bert": 0, "carl": -2, "dora": -3, "emil": -3}
    assert p["carl"].counted == 1 and not p["carl"].moves[0].valid and p["carl"].moves[1].valid
    assert p["dora"].submitted is False and p["dora"].counted is None and p["dora"].moves == []
    assert p["emil"].submitted is True and p["emil"].counted is None and p["emil"].moves[0].reason == "syntax"
    bm = rep.board_move
    assert bm["players"] == ["anna", "bert"] and bm["notation"] == "I5s RUHE" and bm["score"] == 13
    assert bm["words"] == ["RUHE", "STERNE"] and bm["word"] == "RUHE" and bm["tiles"] == 4
    assert rep.lot is None
    after = rep.state_after
    assert after["board"][4][8] == "R" and after["board"][7] == "...STERNE......"
    # rack: AEHILRTU minus RUHE = AILT, refilled to 8 from the front of the bag
    assert after["rack"] == sort_tiles("AILT" + "ABCD") and after["bag"] == "EFGHIJKLMNOP"
    assert after["round"] == 3 and after["cycle"] == 1 and not after["finished"]
    assert after["history"][-1]["notation"] == "I5s RUHE" and after["history"][-1]["players"] == ["anna", "bert"]


def test_equal_top_scores_both_zero_next_minus_two_with_different_moves():
    rep = adj(state(board=EMPTY, rack="ENRU?", rnd=1), {
        "a": ["H8w ER"], "b": ["H8s ER"], "c": ["H8w NE"],  # 4, 4, 4 ... and a lower one:
        "d": ["H8w *RE"]})                                   # (0+1)*2 = 2
    p = by_player(rep)
    assert [p[k].score for k in "abcd"] == [4, 4, 4, 2]
    assert [p[k].points for k in "abcd"] == [0, 0, 0, -3]


def test_tie_broken_by_more_tiles():
    rep = adj(state(board=EMPTY, rack="ENRU?", rnd=1), {"anna": ["H8w ER"], "bert": ["H8w N*EU"]})
    p = by_player(rep)
    assert p["anna"].score == p["bert"].score == 4
    assert p["anna"].points == p["bert"].points == 0
    assert rep.board_move["players"] == ["bert"] and rep.board_move["tiles"] == 3 and rep.lot is None
    assert rep.state_after["board"][7] == ".......NeU....."
    # the rack loses N, ? and U; E and R stay; refilled to 8
    assert sorted(rep.state_after["rack"]) == sorted("ER" + "ABCDEF")


def test_tie_by_lot_is_seeded_and_recorded():
    subs = {"anna": ["H8w ER"], "bert": ["H8s ER"], "carl": ["G8w ER"], "dora": ["H8w ER"]}
    st = state(board=EMPTY, rack="ENRU?", rnd=1)
    rep = adj(st, subs, seed="liga", partie="M3")
    cands = sorted(["H8w ER", "H8s ER", "G8w ER"])
    assert rep.lot == {"candidates": cands, "chosen": random.Random("liga/M3/1/lot").choice(cands)}
    assert rep.board_move["notation"] == rep.lot["chosen"]
    winners = {"H8w ER": ["anna", "dora"], "H8s ER": ["bert"], "G8w ER": ["carl"]}[rep.lot["chosen"]]
    assert rep.board_move["players"] == winners
    assert adj(st, subs, seed="liga", partie="M3").to_json() == rep.to_json()
    chosen = {adj(st, subs, seed=f"x{i}", partie="M3").lot["chosen"] for i in range(30)}
    assert len(chosen) > 1       # the lot really depends on the seed


def test_round_one_rack_of_7_becomes_8_even_without_a_board_move():
    s = RULES.new_partie(seed="liga", partie="M1")
    rep = RULES.adjudicate(s, {"anna": None, "bert": ["PASSE"]}, LEX, seed="liga", partie="M1")
    after = rep.state_after
    assert rep.board_move is None and after["board"] == EMPTY
    assert len(after["rack"]) == 8 and Counter(after["rack"]) == Counter(s["rack"]) + Counter(s["bag"][:1])
    assert after["bag"] == s["bag"][1:] and after["round"] == 2
    p = by_player(rep)
    assert p["bert"].counted == 0 and p["bert"].score == 0 and p["bert"].moves[0].message == "gepasst"
    assert p["anna"].points == p["bert"].points == 0


def test_no_valid_move_leaves_board_rack_and_bag():
    st = state()
    rep = adj(st, {"anna": ["A1w RUHE"], "bert": None})
    after = rep.state_after
    assert rep.board_move is None
    assert after["board"] == st["board"] and after["rack"] == st["rack"] and after["bag"] == st["bag"]
    assert after["round"] == 3


def test_pass_never_goes_on_the_board_but_beats_nobody():
    rep = adj(state(), {"anna": ["PASSE", "I5s RUHE"], "bert": ["I8w E"]})
    p = by_player(rep)
    assert p["anna"].counted == 0 and p["anna"].score == 0 and len(p["anna"].moves) == 2
    assert p["anna"].points == -1 and p["bert"].points == 0
    assert rep.board_move["players"] == ["bert"] and rep.board_move["notation"] == "D8w sternE"


def test_bag_cycle_clears_the_board_and_draws_a_fresh_bag():
    st = state(bag="ABC", cycle=1)
    rep = adj(st, {"anna": ["I5s RUHE"]}, seed="liga", partie="M1")
    after = rep.state_after
    assert rep.board_move["notation"] == "I5s RUHE"           # the move is still made and scored
    assert after["cycle"] == 2 and after["board"] == EMPTY
    bag = full_bag()
    random.Random("liga/M1/bag/2").shuffle(bag)
    assert after["rack"] == sort_tiles(bag[:7]) and after["bag"] == "".join(bag[7:])
    assert len(after["rack"]) == 7 and len(after["bag"]) == 95
    last = after["history"][-1]
    assert last["cleared"] is True and last["board"][4][8] == "R" and last["cycle"] == 1


def test_bag_that_can_just_refill_does_not_clear():
    rep = adj(state(bag="ABCD"), {"anna": ["I5s RUHE"]})
    after = rep.state_after
    assert after["cycle"] == 1 and after["bag"] == "" and len(after["rack"]) == 8
    assert after["board"][7] == "...STERNE......"
    # with an empty bag, any tile played leaves the rack short -> cleared
    rep2 = adj(state(bag=""), {"anna": ["I8w E"]})
    assert rep2.state_after["cycle"] == 2 and rep2.state_after["board"] == EMPTY
    # ... but a round with no board move keeps the full rack and the board
    rep3 = adj(state(bag=""), {"anna": ["PASSE"]})
    assert rep3.state_after["cycle"] == 1 and rep3.state_after["board"] == STERN
    assert rep3.state_after["rack"] == "AEHILRTU"


def test_last_round_finishes():
    rep = adj(state(rnd=20, rounds=20), {"anna": ["I5s RUHE"]})
    after = rep.state_after
    assert after["finished"] is True and after["round"] == 20 and after["rack"] == ""
    assert after["board"][7] == "...STERNE......"
    rep = adj(state(rnd=3), {"anna": None}, last_round=True)
    assert rep.state_after["finished"] is True


# -- views -------------------------------------------------------------------------------------

def test_public_view():
    st = state(board=["." * 15] * 7 + ["...STeRN......."] + ["." * 15] * 7)
    v = RULES.public_view(st)
    assert {k: v[k] for k in ("round", "rounds", "rack", "bag", "cycle", "finished")} == {
        "round": 2, "rounds": 20, "rack": "AEHILRTU", "bag": 16, "cycle": 1, "finished": False}
    assert v["board"] == st["board"]
    assert len(v["cells"]) == 15 and all(len(r) == 15 for r in v["cells"])
    assert v["cells"][7][5] == {"letter": "E", "blank": True, "premium": "", "new": False}
    assert v["cells"][7][3] == {"letter": "S", "blank": False, "premium": "DL", "new": False}
    assert v["cells"][0][0]["premium"] == "TW" and v["cells"][7][7]["premium"] == "DW"
    assert v["cells"][1][5]["premium"] == "TL" and v["cells"][1][1]["premium"] == "DW"
    lines = v["grid_text"].splitlines()
    assert lines[0].split() == list("ABCDEFGHIJKLMNO")
    assert lines[8].split() == ["8"] + list("···STeRN·······")
    assert lines[1].split()[0] == "1" and lines[15].split()[0] == "15"
    json.dumps(v, ensure_ascii=False)


# -- the top (needs bot.games.monoscrabble.movegen, written separately) --------------------------

needs_movegen = pytest.mark.skipif(not HAVE_MOVEGEN, reason="bot.games.monoscrabble.movegen not there yet")


@needs_movegen
def test_top_case_on_the_conformance_cases():
    for case in json.loads((CASES_DIR / "monoscrabble.json").read_text(encoding="utf-8")):
        lex = Lexicon.from_words(case["words"], "monoscrabble")
        res = RULES.top_case(case, lex)
        out = evaluate(case["board"], case["rack"], res["move"], lex)
        assert out.valid and out.score == res["score"], (case["id"], res)
        if case["expect"]["valid"]:
            assert res["score"] >= case["expect"]["score"], case["id"]


@needs_movegen
def test_top_of_a_state_and_in_the_report():
    st = state()
    top = RULES.top(st, LEX)
    assert top is not None and set(top) >= {"notation", "score", "word", "tiles"}
    out = evaluate(st["board"], st["rack"], top["notation"], LEX)
    assert out.valid and out.score == top["score"] and out.word == top["word"] and out.tiles == top["tiles"]
    assert top["score"] >= 13        # at least as good as RUHE
    rep = adj(st, {"anna": ["I5s RUHE"]})
    assert rep.top == top


def test_without_movegen_top_raises_and_adjudicate_has_no_top(monkeypatch):
    monkeypatch.setitem(sys.modules, "bot.games.monoscrabble.movegen", None)   # import fails
    with pytest.raises(MovegenUnavailable, match="movegen"):
        RULES.top(state(), LEX)
    with pytest.raises(MovegenUnavailable):
        RULES.top_case({"board": STERN, "rack": "AEHILRTU", "move": "I5s RUHE"}, LEX)
    rep = adj(state(), {"anna": ["I5s RUHE"]})
    assert rep.top is None and rep.board_move["score"] == 13


def test_gen_notation_of_tiles_is_canonical():
    class Gen:  # the shape of movegen.GenMove that gen_notation reads
        def __init__(self, tiles, direction):
            self.tiles, self.direction = tiles, direction
    assert RULES.gen_notation(Gen(((5, 9, "R", False), (6, 9, "U", False), (7, 9, "H", True), (8, 9, "E", False)),
                                  "s"), STERN) == "I5s RU*HE"
    assert RULES.gen_notation(Gen(((8, 9, "E", False),), "w"), STERN) == "D8w sternE"
    assert RULES.gen_notation(Gen(((8, 9, "E", False),), "s"), STERN) == "D8w sternE"   # no word down: across
    assert RULES.gen_notation(Gen(((9, 8, "E", False),), "s"), STERN) == "H8s nE"


@needs_movegen
def test_every_generated_move_reads_back_with_the_same_score():
    from bot.games.monoscrabble.movegen import generate
    lex = Lexicon.from_words(WORDS + ["RUHT", "HEU", "TEE", "HUT", "AHLE", "TAL", "LIT", "EHER", "REH"], "monoscrabble")
    for st in (state(), state(board=EMPTY, rack="ENRU?", rnd=1), state(rack="AEH?LRTU")):
        moves = list(generate(st["board"], st["rack"], lex))
        assert moves
        for m in moves:
            out = evaluate(st["board"], st["rack"], RULES.gen_notation(m, st["board"]), lex)
            assert out.valid and out.score == m.score and out.tiles == len(m.tiles), (m, out)
            assert out.words[0] == m.word and sorted(out.words[1:]) == sorted(m.words[1:])

"""Crossword rules engine (seed 003): placements, the round's letters, word-list scoring
and the exact best score, checked against a brute force on random grids."""

from __future__ import annotations

import itertools
import random

import pytest

from bot.games.crossword.engine import (best, best_line, check_placement, line_candidates, round_letters,
                                        score_claims)
from bot.games.crossword.grid import LINES, POINTS, Field, Grid, points, segment
from bot.lexicon import Lexicon

GRID = ["HAUSOT", "OBEN.L", "TEWARE", "ELEEOB", "LIEBIE", "SODEIN"]
WORDS = ["HAUS", "OBEN", "WARE", "OB", "DEIN", "SO", "HOTELS", "HOTEL", "LEBEN", "NEBEL", "WEIN", "EIS",
         "SEE", "EI", "LIEBE", "WEINE", "NEBELN", "HAUSE"]
LEX = Lexicon.from_words(WORDS, "crossword")
START = ["HAUS..", "......", "......", "...T..", "......", "S....."]


# -- grid ------------------------------------------------------------------------------

def test_points_table_of_the_seed():
    assert POINTS == {2: 1, 3: 3, 4: 5, 5: 7, 6: 10}
    assert points(1) == 0 and points(7) == 0


def test_fourteen_lines():
    assert len(LINES) == 14
    assert [ln.name for ln in LINES[-2:]] == ["Diagonale A1-F6", "Diagonale A6-F1"]
    assert LINES[-1].fields[0] == Field(0, 5) and LINES[-1].fields[-1] == Field(5, 0)


@pytest.mark.parametrize("a,b,ok", [("A1", "A4", True), ("A4", "A1", True), ("A1", "F1", True),
                                    ("C3", "F6", True), ("D3", "F1", True), ("A4", "C2", False),
                                    ("C3", "D6", False), ("A1", "A7", False), ("B2", "B2", True)])
def test_segments(a, b, ok):
    seg = segment(Field.parse(a), Field.parse(b))
    assert (seg is not None) == ok
    if seg:
        line, fields = seg
        assert fields[0] == Field.parse(a) and fields[-1] == Field.parse(b)


def test_grid_rejects_bad_rows():
    with pytest.raises(ValueError):
        Grid(["HAUS.."] * 5)
    with pytest.raises(ValueError):
        Grid(["HAUS.1"] * 6)


def test_picture():
    assert Grid(START).picture()[:2] == ["   1 2 3 4 5 6", "A  H A U S · ·"]


# -- placement ---------------------------------------------------------------------------

def test_round_letters_sorted_and_repeating():
    assert round_letters("TEONLE") == "EELNOT"


def test_valid_pairs_leave_letters_unused():
    out = check_placement(Grid(START), "EELNOT", "B1 O, C1 T, D1 E, E1 L")
    assert out.valid and out.unused == "EN"
    assert out.grid.rows[1:5] == ("O.....", "T.....", "E..T..", "L.....")


def test_lenient_pair_forms_are_the_same():
    a = check_placement(Grid(START), "EELNOT", "B1 O, C1 T")
    for text in ("b1 o, c1 t", "B1=O C1=T", "B1: O; C1: T", "B1O C1T", "B1 O\nC1 T"):
        assert check_placement(Grid(START), "EELNOT", text).grid == a.grid, text


@pytest.mark.parametrize("move,reason", [
    ("B1 O, C1", "syntax"), ("B1 OT", "syntax"), ("B1 Ä", "syntax"),
    ("B1 Q, G1 T", "off-board"), ("A7 E", "off-board"), ("A0 E", "off-board"),
    ("A1 E", "occupied"), ("B1 O, B1 T", "occupied"),
    ("B1 X", "letters"), ("B1 E, B2 E, B3 E", "letters"),
])
def test_placement_reasons(move, reason):
    out = check_placement(Grid(START), "EELNOT", move)
    assert not out.valid and out.reason == reason, out
    assert out.message


def test_grid_form_must_keep_old_letters():
    removed = "\n".join([".AUS..", "O.....", "......", "...T..", "......", "S....."])
    out = check_placement(Grid(START), "BELNOT", removed)
    assert out.reason == "occupied" and "A1" in out.message


def test_grid_form_of_the_wrong_size_is_syntax():
    out = check_placement(Grid(START), "BELNOT", "HAUS..\nOBEN..\nT.....")
    assert out.reason == "syntax"


def test_empty_placement_is_valid_grid_form():
    out = check_placement(Grid(START), "BELNOT", "\n".join(START))
    assert out.valid and out.grid == Grid(START) and out.unused == "BELNOT"


# -- claims ------------------------------------------------------------------------------

def test_claims_reason_order_and_overlap_only_within_a_line():
    sc = score_claims(Grid(GRID), ["HAUS A1-A4", "HOTELS A1-F1", "SO F1-F2", "OS F2-F1", "LIEBE E1-E5",
                                   "EI E6-E5", "OB D5-D6"], LEX)
    assert [(v.valid, v.points, v.reason) for v in sc.claims] == [
        (True, 5, None), (True, 10, None), (True, 1, None), (False, 0, "overlap"),
        (False, 0, "position"), (True, 1, None), (True, 1, None)]
    assert sc.score == 18


def test_overlap_comes_before_word():
    sc = score_claims(Grid(GRID), ["HAUS A1-A4", "AUSO A2-A5"], Lexicon.from_words(["HAUS"], "crossword"))
    assert sc.claims[1].reason == "overlap"


def test_invalid_word_does_not_block_the_line():
    sc = score_claims(Grid(GRID), ["HAU A1-A3", "HAUS A1-A4"], LEX)
    assert [v.reason for v in sc.claims] == ["word", None] and sc.score == 5


def test_umlaut_in_a_claim_is_spelled_ae():
    g = Grid(["BAER..", "......", "......", "......", "......", "......"])
    sc = score_claims(g, ["BÄR A1-A4"], Lexicon.from_words(["BÄR"], "crossword"))
    assert sc.claims[0].valid and sc.score == 5


def test_claim_off_the_grid_is_position():
    sc = score_claims(Grid(GRID), ["HAUSOTX A1-A7"], LEX)
    assert sc.claims[0].reason == "position"


def test_wrong_claimed_points_are_noted_not_punished():
    sc = score_claims(Grid(GRID), ["HAUS A1-A4 7 Punkte"], LEX)
    assert sc.score == 5 and "7" in sc.claims[0].message


# -- the best score ------------------------------------------------------------------------

def brute_line(text: str, lexicon) -> int:
    """Every subset of candidate intervals, the disjoint ones only."""
    cands = [(i, j) for i in range(len(text)) for j in range(i + 2, len(text) + 1)
             if "." not in text[i:j] and (text[i:j] in lexicon or text[i:j][::-1] in lexicon)]
    top = 0
    for k in range(len(cands) + 1):
        for combo in itertools.combinations(cands, k):
            used = [f for i, j in combo for f in range(i, j)]
            if len(used) == len(set(used)):
                top = max(top, sum(points(j - i) for i, j in combo))
    return top


def brute_grid(grid: Grid, lexicon) -> int:
    return sum(brute_line(grid.line_text(line), lexicon) for line in LINES)


def random_case(rng: random.Random) -> tuple[Grid, Lexicon]:
    alphabet = "AEIRSTN"
    rows = ["".join(rng.choice(alphabet + ".") if rng.random() < 0.15 else rng.choice(alphabet) for _ in range(6))
            for _ in range(6)]
    grid = Grid(rows)
    # a lexicon of pieces that really occur in the grid, forwards or backwards, plus noise
    words = set()
    for line in LINES:
        text = grid.line_text(line)
        for i in range(6):
            for j in range(i + 2, 7):
                piece = text[i:j]
                if "." not in piece and rng.random() < 0.25:
                    words.add(piece if rng.random() < 0.5 else piece[::-1])
    words.update("".join(rng.choice(alphabet) for _ in range(rng.randint(2, 6))) for _ in range(30))
    return grid, Lexicon.from_words(words, "crossword")


@pytest.mark.parametrize("seed", range(60))
def test_best_equals_brute_force(seed):
    grid, lex = random_case(random.Random(seed))
    b = best(grid, lex)
    assert b.score == brute_grid(grid, lex)
    # the words reaching it are a valid word list worth exactly that
    sc = score_claims(grid, [w.claim for w in b.words], lex)
    assert all(v.valid for v in sc.claims), [v for v in sc.claims if not v.valid]
    assert sc.score == b.score


def test_best_is_not_greedy():
    lex = Lexicon.from_words(["WEH", "REH", "WEHR", "EHRE"], "crossword")
    pts, chosen = best_line("WEHREH", lex)
    assert pts == 6 and [w for _, _, w in chosen] == ["WEH", "REH"]


def test_backward_words_are_read_in_their_direction():
    lex = Lexicon.from_words(["EI"], "crossword")
    assert line_candidates("LIEBIE", lex) == [(1, 3, "EI"), (4, 6, "EI")]
    b = best(Grid(["LIEBIE", "......", "......", "......", "......", "......"]), lex)
    assert [w.claim for w in b.words] == ["EI A3-A2", "EI A6-A5"]


def test_empty_grid_scores_nothing():
    assert best(Grid.empty(), LEX).score == 0

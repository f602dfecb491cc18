"""Monoscrabble validation and scoring (bot/games/monoscrabble/engine.py, board.py;
seed 001; shared/RULES.md, NOTATION.md "Monoscrabble"; shared/conformance/)."""

from __future__ import annotations

import json

import pytest

from bot.games.monoscrabble.board import PREMIUM_MAP, Board, Placement, premium, premium_name
from bot.games.monoscrabble.engine import REASONS, evaluate, evaluate_tiles, move_from_tiles
from bot.games.monoscrabble.game import MonoscrabbleRules
from bot.games.monoscrabble.notation import format_move
from bot.lexicon import Lexicon
from tests.helpers import CASES_DIR

CASES = json.loads((CASES_DIR / "monoscrabble.json").read_text(encoding="utf-8"))
RULES = MonoscrabbleRules()

WORDS = ["STERN", "STERNE", "RUHE", "SPIELEN", "SPIELENDE", "NEU", "ER", "AUS", "ADERIGE", "ADERIGES", "REMUS",
         "ÄRGER", "TÄNZER", "ÖL", "ÜBER", "RUHES", "ES"]
LEX = Lexicon.from_words(WORDS, "monoscrabble")
EMPTY = ["." * 15] * 15


def board(*words):
    """Board rows with ``(coord row, col, direction, letters)`` written on it."""
    g = [["."] * 15 for _ in range(15)]
    for r, c, d, w in words:
        for i, ch in enumerate(w):
            rr, cc = (r, c + i) if d == "w" else (r + i, c)
            g[rr - 1][cc - 1] = ch
    return ["".join(x) for x in g]


STERN = board((8, 4, "w", "STERN"))       # D8-H8, N on the centre


# -- the conformance cases -----------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_conformance_case(case):
    lex = Lexicon.from_words(case["words"], "monoscrabble")
    got = RULES.run_case(case, lex)
    want = case["expect"]
    assert got["valid"] == want["valid"]
    for key in ("score", "tiles", "reason"):
        if key in want:
            assert got[key] == want[key], key
    if "words" in want:   # main word first, cross words in any order
        assert got["words"][0] == want["words"][0] and sorted(got["words"][1:]) == sorted(want["words"][1:])


def test_conformance_seed_case_points_note():
    case = next(c for c in CASES if c["id"] == "mono-08-seed-notation")
    out = evaluate(case["board"], case["rack"], case["move"], Lexicon.from_words(case["words"], "monoscrabble"))
    assert out.valid and out.score == 19
    assert "Angegeben 25 Punkte, gezählt 19 Punkte." in out.note_texts
    assert out.notation == "A12w RE*MUS" and out.full_notation == "A12w RE*MUS +aderigeS"


def test_verdicts_are_public_data_in_every_language():
    """Issue 31: Monoscrabble has no private state, so every verdict and note is public
    (rendered for everybody, in the recipient's language from the catalog)."""
    from bot.games.verdict import PUBLIC
    case = next(c for c in CASES if c["id"] == "mono-08-seed-notation")
    out = evaluate(case["board"], case["rack"], case["move"], Lexicon.from_words(case["words"], "monoscrabble"))
    assert out.verdict.code == "scored" and out.verdict.render("de", PUBLIC) == "REMUS: 19 Punkte"
    assert out.verdict.render("nl", PUBLIC) == "REMUS: 19 punten"
    assert [n.render("nl", PUBLIC) for n in out.notes if n.code == "claimed"] == [
        "Opgegeven 25 punten, geteld 19 punten."]
    bad = evaluate(STERN, "RUHEAILT", "H8w QUARK", LEX)
    assert bad.reason == "rack" and bad.verdict.code == "rack"
    assert bad.verdict.render("nl", PUBLIC).startswith("Niet in de opgave RUHEAILT: ")


# -- the board -------------------------------------------------------------------------------

def test_premium_map_as_in_the_conformance_readme():
    text = (CASES_DIR / "README.md").read_text(encoding="utf-8")
    block = [ln.strip() for ln in text.splitlines() if ln.startswith("    ") and len(ln.strip()) == 15]
    assert tuple(block) == PREMIUM_MAP
    assert premium(8, 8) == (1, 2) and premium_name(8, 8) == "DW"
    assert premium(1, 1) == (1, 3) and premium_name(1, 1) == "TW"
    assert premium(2, 6) == (3, 1) and premium_name(2, 6) == "TL"
    assert premium(1, 4) == (2, 1) and premium_name(1, 4) == "DL"
    assert premium(2, 2) == (1, 2) and premium_name(1, 2) == ""


def test_board_code_round_trip_with_blanks_and_umlauts():
    rows = board((8, 4, "w", "STeRN"), (1, 1, "w", "ÄÖÜäöü"))
    b = Board.from_rows(rows)
    assert b.rows == rows
    assert b.get(8, 6).blank and b.get(8, 6).letter == "E" and b.get(8, 6).value == 0
    assert b.get(1, 1).letter == "Ä" and not b.get(1, 1).blank and b.get(1, 1).value == 6
    assert b.get(1, 4).letter == "Ä" and b.get(1, 4).blank
    assert b.get(0, 1) is None and b.get(16, 1) is None
    with pytest.raises(ValueError):
        Board.from_rows(["." * 15] * 14)
    with pytest.raises(ValueError):
        Board.from_rows(["1" + "." * 14] + ["." * 15] * 14)


# -- reason codes --------------------------------------------------------------------------

def reason(rows, rack, move):
    out = evaluate(rows, rack, move, LEX)
    assert not out.valid and out.message, out
    return out.reason


def test_reason_codes_are_the_readme_list_in_order():
    assert list(REASONS) == ["syntax", "rack", "off-board", "mismatch", "gap", "not-connected", "no-tile", "word"]


def test_syntax():
    assert reason(STERN, "RUHEAILT", "Ruhe bitte") == "syntax"


def test_rack():
    assert reason(STERN, "RUEAILTS", "I5s RUHE") == "rack"
    assert reason(STERN, "RUHEAILT", "I5s RU*HE") == "rack"        # no Blanko in the rack
    assert reason(EMPTY, "STERNAI", "D8w STERNE") == "rack"        # only one E
    out = evaluate(STERN, "RUE?AILT", "I5s RUHE", LEX)            # H missing, a Blanko unused: hint
    assert out.reason == "rack" and "*H" in out.message


def test_off_board():
    assert reason(STERN, "RUHEAILT", "O8w RUHE") == "off-board"
    assert reason(STERN, "RUHEAILT", "H13s RUHE") == "off-board"
    assert reason(STERN, "RUHEAILT", "H16w R") == "off-board"


def test_rack_is_checked_before_off_board():
    assert reason(STERN, "AILT", "O8w RUHE") == "rack"


def test_mismatch():
    assert reason(STERN, "RUHEAILT", "I5s RUHe") == "mismatch"      # lower case on an empty square
    assert reason(STERN, "TERNAAAA", "H8w sTERN") == "mismatch"     # lower case, another letter there
    assert reason(STERN, "RUHEAILT", "H5s RUHE") == "mismatch"      # upper case on a tile of another letter
    assert reason(STERN, "RUHEAILT", "D8w s.ERN") == "mismatch"     # '.' on an occupied square


def test_gap():
    assert reason(STERN, "RUHEAILT", "I5s RU.E") == "gap"
    out = evaluate_tiles(STERN, "RUHEAILT", [(5, 9, "R", False), (6, 9, "U", False), (8, 9, "E", False)], LEX)
    assert out.reason == "gap"
    out = evaluate_tiles(STERN, "RUHEAILT", [(5, 9, "R", False), (6, 10, "U", False)], LEX)
    assert out.reason == "gap"


def test_not_connected():
    assert reason(STERN, "RUHEAILT", "A1w RUHE") == "not-connected"
    assert reason(STERN, "RUHEAILT", "I9w RUHE") == "not-connected"   # only diagonal to N on H8
    assert reason(EMPTY, "ENRSTAI", "A1w STERN") == "not-connected"   # first move misses H8
    assert reason(EMPTY, "ENRSTAI", "H9s STERN") == "not-connected"


def test_no_tile():
    assert reason(STERN, "RUHEAILT", "D8w stern") == "no-tile"
    # upper case on the same letters is read as the board tiles: still nothing placed
    assert reason(STERN, "RUHEAILT", "D8w STERN") == "no-tile"


def test_word():
    assert reason(EMPTY, "ENRSTAI", "H8w NEST") == "word"              # main word unknown
    assert reason(STERN, "ERXXXXXX", "I7s ER") == "word"               # main word fine, cross STERNR unknown
    assert reason(EMPTY, "ENRSTAI", "H8w E") == "word"                 # a lone letter is no word
    out = evaluate(STERN, "ERXXXXXX", "I7s ER", LEX)
    assert "STERNR" in out.message and "ER " not in out.message


# -- scoring ---------------------------------------------------------------------------------

def test_premium_only_under_new_tiles():
    # N on the centre (DW) is an old tile: NEU scores 3, not 6
    out = evaluate(STERN, "EUAAAAA", "H8s nEU", LEX)
    assert out.valid and out.score == 3 and out.words == ["NEU"] and out.tiles == 2
    # S on D8 (DL) is old, N lands on D12 (DW): (1+1+1+1+1) x 2
    out = evaluate(STERN, "TERNAAA", "D8s sTERN", LEX)
    assert out.valid and out.score == 10


def test_cross_word_takes_the_word_premium_of_the_new_tile():
    rows = board((5, 4, "s", "ADERIGE"))               # D5-D11
    out = evaluate(rows, "AUSXXXX", "B12w AUS", LEX)  # S on D12 (DW) makes ADERIGES
    assert out.valid and out.words == ["AUS", "ADERIGES"]
    assert out.score == (1 + 1 + 1) * 2 + (1 + 1 + 1 + 1 + 1 + 2 + 1 + 1) * 2 == 24
    assert out.full_notation == "B12w AUS +aderigeS"


def test_cross_word_takes_the_letter_premium_of_the_new_tile():
    rows = board((7, 4, "w", "STERN"))                 # D7-H7
    out = evaluate(rows, "ERXXXXX", "I7s ER", LEX)     # E on I7 (DL) makes STERNE
    assert out.valid and out.words == ["ER", "STERNE"]
    assert out.score == (2 + 1) + (5 + 2) == 10


def test_blank_scores_zero_even_on_a_premium():
    full = evaluate(STERN, "RUHEAILT", "I5s RUHE", LEX)
    blank = evaluate(STERN, "RUE?AILT", "I5s RU*HE", LEX)
    assert full.score - blank.score == 2 * 2    # H (2) on I7 (DL)
    assert blank.placements[2] == Placement(7, 9, "H", True)


def test_bingo_for_seven_tiles_not_six():
    out = evaluate(EMPTY, "SPIELEN", "D8w SPIELEN", LEX)
    assert out.valid and out.tiles == 7 and out.bingo and out.score == (2 + 4 + 1 + 1 + 2 + 1 + 1) * 2 + 50
    out = evaluate(EMPTY, "TÄNZERX", "H8w TÄNZER", LEX)
    assert out.valid and out.tiles == 6 and not out.bingo and out.score == (1 + 6 + 1 + 3 + 2 + 1) * 2 == 28


def test_bingo_with_eight_tiles_from_an_eight_letter_rack():
    out = evaluate(EMPTY, "ADERIGES", "D8w ADERIGES", LEX)
    assert out.valid and out.tiles == 8 and out.bingo
    assert out.score == (2 + 1 + 1 + 1 + 1 + 2 + 1 + 1) * 2 + 50 == 70


def test_umlaut_words():
    out = evaluate(EMPTY, "ÄRGERXX", "D8w ÄRGER", LEX)
    assert out.valid and out.words == ["ÄRGER"] and out.score == (6 * 2 + 1 + 2 + 1 + 1) * 2 == 34
    rows = board((8, 4, "w", "TäNZER"))                # a Blanko as Ä on E8
    out = evaluate(rows, "RGERXXXX", "E8s äRGER", LEX)
    assert out.valid and out.words == ["ÄRGER"] and out.tiles == 4
    assert out.score == (0 + 1 + 2 + 1 + 1) * 2 == 10   # the old Blanko 0, E on E11 (DW)
    assert evaluate(rows, "RGERXXXX", "E8s aRGER", LEX).reason == "mismatch"   # A is not Ä
    out = evaluate(EMPTY, "ÖL", "H8w ÖL", LEX)
    assert out.valid and out.score == (8 + 2) * 2


def test_pass_is_a_valid_zero_point_move():
    out = evaluate(STERN, "RUHEAILT", "PASSE", LEX)
    assert out.valid and out.passe and out.score == 0 and out.tiles == 0 and out.words == []
    assert out.message == "gepasst" and out.notation == "PASSE"
    out = evaluate(STERN, "RUHEAILT", "passe 5 Punkte", LEX)
    assert out.valid and out.score == 0 and out.note_texts


# -- lenient readings and notes ----------------------------------------------------------------

def test_upper_case_on_its_own_letter_is_the_board_tile():
    strict = evaluate(STERN, "EUAAAAA", "H8s nEU", LEX)
    lenient = evaluate(STERN, "EUAAAAA", "H8s NEU", LEX)
    assert lenient.valid and (lenient.score, lenient.tiles, lenient.words) == (strict.score, strict.tiles, strict.words)
    assert any("H8" in n and "vom Brett" in n for n in lenient.note_texts) and not strict.note_texts
    assert lenient.notation == "H8s nEU"
    # the rack need not hold the N
    assert "N" not in "EUAAAAA"


def test_part_of_the_word_formed_scores_the_whole_word():
    rows = board((8, 4, "w", "SPIELEN"))               # D8-J8
    out = evaluate(rows, "DEXXXXXX", "K8w DE", LEX)
    assert out.valid and out.words == ["SPIELENDE"] and out.tiles == 2
    assert out.score == 11 + 1 + 1 * 2 == 14           # E on L8 (DL)
    assert out.notation == "D8w spielenDE" and (out.row, out.col) == (8, 4)
    assert any("SPIELENDE" in n for n in out.note_texts)
    # extension before the written word too
    out = evaluate(STERN, "EXXXXXXX", "I8w E", LEX)
    assert out.valid and out.words == ["STERNE"] and out.notation == "D8w sternE"


def test_single_tile_across_the_written_direction():
    out = evaluate(STERN, "EXXXXXXX", "I8s E", LEX)
    assert out.valid and out.words == ["STERNE"] and out.score == 6 and out.direction == "w"


def test_plus_word_difference_is_a_note_never_a_failure():
    ok = evaluate(STERN, "RUHEAILT", "I5s RUHE +sternE 13 Punkte", LEX)
    assert ok.valid and ok.note_texts == []
    wrong = evaluate(STERN, "RUHEAILT", "I5s RUHE +sternA", LEX)
    assert wrong.valid and wrong.score == 13
    assert any("+STERNA" in n for n in wrong.note_texts) and any("STERNE" in n for n in wrong.note_texts)
    missing = evaluate(STERN, "RUHEAILT", "I5s RUHE", LEX)
    assert missing.valid and missing.note_texts == []       # no + words given: nothing to compare


def test_claimed_points_note():
    assert evaluate(STERN, "RUHEAILT", "I5s RUHE 13 Punkte", LEX).note_texts == []
    out = evaluate(STERN, "RUHEAILT", "I5s RUHE = 20 P.", LEX)
    assert out.valid and out.score == 13 and out.note_texts == ["Angegeben 20 Punkte, gezählt 13 Punkte."]


def test_direction_rule_applies_in_evaluation():
    # letter first, no direction: senkrecht
    assert evaluate(STERN, "RUHEAILT", "I5 RUHE", LEX).words == ["RUHE", "STERNE"]
    # number first: waagerecht -> RUHE on I5-L5 touches nothing
    out = evaluate(STERN, "RUHEAILT", "5I RUHE", LEX)
    assert out.reason == "not-connected" and any("waagerecht" in n for n in out.note_texts)


# -- tiles-based moves (for the move generator) ------------------------------------------------

def test_move_from_tiles_and_evaluate_tiles_agree_with_notation():
    tiles = [(5, 9, "R", False), (6, 9, "U", False), (7, 9, "H", True), (8, 9, "E", False)]
    m = move_from_tiles(STERN, tiles)
    assert format_move(m) == "I5s RU*HE"
    out = evaluate_tiles(STERN, "RUE?AILT", tiles, LEX)
    assert out.valid and out.score == 9 and out.words == ["RUHE", "STERNE"]
    one = move_from_tiles(STERN, [(8, 9, "E", False)])
    assert format_move(one) == "I8w E"
    out = evaluate_tiles(STERN, "EXX", [Placement(8, 9, "E")], LEX)
    assert out.valid and out.notation == "D8w sternE"
    assert evaluate_tiles(STERN, "EXX", [], LEX).reason == "no-tile"


def test_apply_places_the_tiles():
    out = evaluate(STERN, "RUE?AILT", "I5s RU*HE", LEX)
    after = out.apply(Board.from_rows(STERN))
    assert [after.rows[r][8] for r in range(4, 8)] == ["R", "U", "h", "E"]

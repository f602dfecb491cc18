"""Crossword notation (shared/NOTATION.md "Crossword"): lenient reading, precise German
errors, symmetric parse/format; and the game's own and shared rule cases."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from bot.conformance import read_cases, run_conformance
from bot.games.base import NotationError
from bot.games.crossword.grid import Field
from bot.games.crossword.notation import (BadClaim, Claim, GridForm, Move, Pairs, Wish, format_move, parse_claim,
                                          parse_line, parse_move)

CASES = Path(__file__).resolve().parent / "cases"


@pytest.mark.parametrize("text", ["Wunsch: Q", "wunsch q", "Wunsch=Q", "Wunschbuchstabe: q", "WISH: Q",
                                  "  Wunsch :  Q "])
def test_wish_forms(text):
    assert parse_line(text) == Wish("Q")


@pytest.mark.parametrize("text", ["B3 E, C4 R, A1 X", "b3 e, c4 r, a1 x", "B3=E C4=R A1=X", "B3: E; C4: R; A1: X",
                                  "B3E C4R A1X", "B3 E C4 R A1 X", "B3 E, C4 R, A1 X,"])
def test_pair_forms(text):
    assert parse_line(text) == Pairs(((Field(1, 2), "E"), (Field(2, 3), "R"), (Field(0, 0), "X")))


@pytest.mark.parametrize("text", ["HAUS A1-A4", "haus a1-a4", "HAUS: A1-A4", "HAUS A1 - A4", "HAUS (A1-A4)",
                                  "HAUS A1–A4", "A1-A4 HAUS", "A1-A4: HAUS"])
def test_claim_forms(text):
    assert parse_claim(text) == Claim("HAUS", Field(0, 0), Field(0, 3))


def test_claim_with_points_and_umlaut():
    assert parse_claim("BÄR A1-A4 5 Punkte") == Claim("BÄR", Field(0, 0), Field(0, 3), 5)
    assert parse_claim("Straße A1-A6").word == "STRASSE"


@pytest.mark.parametrize("text,fragment", [
    ("B1 O, C1", "Nach dem Feld C1 fehlt der Buchstabe"),
    ("B1 OT", "genau einen"),
    ("B1 Ä", "AE"),
    ("Wunsch:", "fehlt der Buchstabe"),
    ("Wunsch: QX", "genau ein Buchstabe"),
    ("HAUS A1", "Zeile nicht lesbar"),
    ("HAUS A1-", "WORT VON-BIS"),
    ("HAUS.", "genau 6 Felder"),
])
def test_precise_errors(text, fragment):
    with pytest.raises(NotationError) as exc:
        parse_line(text)
    assert fragment in exc.value.message


def test_whole_move_round_two():
    move = parse_move("B1 O, C1 T\nD1 E\nWunsch: N")
    assert move == Move(Pairs(((Field(1, 0), "O"), (Field(2, 0), "T"), (Field(3, 0), "E"))), Wish("N"), ())


def test_whole_move_grid_and_words():
    text = "Gitter:\nHAUS..\nO.....\nT.....\nE..T..\nL.....\nS.....\nWörter:\nHAUS A1-A4\nHOTELS A1-F1\nHAUS"
    move = parse_move(text)
    assert isinstance(move.placement, GridForm) and move.placement.rows[0] == "HAUS.."
    assert move.claims[:2] == (Claim("HAUS", Field(0, 0), Field(0, 3)), Claim("HOTELS", Field(0, 0), Field(5, 0)))
    assert isinstance(move.claims[2], BadClaim) and "fehlen die Felder" in move.claims[2].message


def test_a_broken_claim_does_not_lose_the_placement():
    move = parse_move("A5 E\nHAUSE A1-A")
    assert move.placement == Pairs(((Field(0, 4), "E"),))
    assert isinstance(move.claims[0], BadClaim)


@pytest.mark.parametrize("text,fragment", [
    ("HAUS..\nOBEN..\nT.....", "Das Gitter hat 3 Zeilen"),
    ("B1 O\nHAUS..\nO.....\nT.....\nE..T..\nL.....\nS.....", "Paare und ganzes Gitter"),
    ("Wunsch: Q\nWunsch: X", "Zwei Wünsche"),
    ("Hallo, hier mein Zug", "Zeile 'Hallo, hier mein Zug'"),
])
def test_move_errors(text, fragment):
    with pytest.raises(NotationError) as exc:
        parse_move(text)
    assert fragment in exc.value.message


fields = st.builds(Field, st.integers(0, 5), st.integers(0, 5))
letters = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
pairs = st.builds(lambda ps: Pairs(tuple(ps)), st.lists(st.tuples(fields, letters), min_size=1, max_size=6))
grids = st.builds(lambda rows: GridForm(tuple(rows)),
                  st.lists(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ.", min_size=6, max_size=6)
                           .filter(lambda r: any(c == "." for c in r)), min_size=6, max_size=6))
claims = st.builds(Claim, st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=6), fields, fields,
                   st.one_of(st.none(), st.integers(0, 30)))
moves = st.builds(Move, st.one_of(st.none(), pairs, grids), st.one_of(st.none(), st.builds(Wish, letters)),
                  st.lists(claims, max_size=4).map(tuple)).filter(
    lambda m: m.placement is not None or m.wish is not None or m.claims)


@settings(max_examples=200, deadline=None)
@given(moves)
def test_parse_format_symmetric(move):
    assert parse_move(format_move(move)) == move


def test_own_and_shared_case_files_pass():
    files = [CASES / "crossword.json", CASES / "crossword_own.json"]
    out = io.StringIO()
    assert run_conformance(files, out) == 0, out.getvalue()
    own = read_cases([CASES / "crossword_own.json"])
    reasons = {c["expect"].get("reason") for c in own} | {
        cl.get("reason") for c in own for cl in c["expect"].get("claims", [])}
    assert {"syntax", "off-board", "occupied", "letters", "position", "length", "overlap", "word"} <= reasons


# -- the generic submission reader with Crossword lines ------------------------------------

def test_submission_reader_keeps_crossword_lines():
    from bot.games import get_game
    from bot.submission import read_submission
    text = ("Hallo Spielleiter,\n\nA1: X, B2 Y\nDIE...\n......\nDIE A1-A3\nB1 O, C1\nHAUS\nWunsch: Q\n\n"
            "Viele Grüße\nAnna")
    read = read_submission(text, get_game("crossword"), ["P1"], player_names=["Anna Albers"])
    assert [s.partie for s in read.sections] == ["P1"]
    assert read.sections[0].moves == ["A1: X, B2 Y", "DIE...", "......", "DIE A1-A3", "B1 O, C1", "HAUS",
                                      "Wunsch: Q"]
    assert read.ignored == ["Hallo Spielleiter,", "Viele Grüße", "Anna"]
    # the broken pair line makes the whole move answer precisely
    with pytest.raises(NotationError) as exc:
        parse_move("\n".join(read.sections[0].moves))
    assert exc.value.message == "Zeile 'B1 O, C1': Nach dem Feld C1 fehlt der Buchstabe (z. B. 'C1 E')."


def test_a_pasted_back_acknowledgement_with_a_multiline_move_is_not_read():
    from bot.mail.replies import new_text
    text = ("B3 E\nWunsch: N\n\nHallo Anna Albers,\n\n"
            "Partie P1 (Runde 2 von 7, Buchstaben A E H O S U):\n"
            "  Hauptzug: A1 H, A2 A\n    Wunsch: T\n    -> gültig: Gelegt: A1 H, A2 A.\n")
    assert new_text(text) == "B3 E\nWunsch: N"


def test_top_gives_the_best_score_and_its_words():
    import json
    from bot.conformance import run_top
    out = io.StringIO()
    assert run_top([CASES / "crossword.json"], out) == 0
    lines = {d["id"]: d for d in map(json.loads, out.getvalue().splitlines())}
    assert lines["cw-score-14-best-not-greedy"] == {"id": "cw-score-14-best-not-greedy",
                                                    "move": ["WEH A1-A3", "REH A4-A6", "WAND A1-D1"], "score": 11}
    assert lines["cw-score-11-forward-backward-overlap"]["score"] == 49

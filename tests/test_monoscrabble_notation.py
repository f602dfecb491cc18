"""Monoscrabble move notation (bot/games/monoscrabble/notation.py,
grammar/monoscrabble_move.lark; shared/NOTATION.md "Monoscrabble"; seed 001)."""

from __future__ import annotations

import random

import pytest

from bot.games.base import NotationError
from bot.games.monoscrabble.notation import Move, Token, format_move, parse_move


def T(kind, letter=None):
    return Token(kind, letter)


def test_seed_example():
    m = parse_move("A12w RE*MUS+aderigeS 25 Punkte")
    assert (m.row, m.col, m.direction) == (12, 1, "w")
    assert m.tokens == (T("new", "R"), T("new", "E"), T("blank", "M"), T("new", "U"), T("new", "S"))
    assert m.extras == ((T("old", "A"), T("old", "D"), T("old", "E"), T("old", "R"), T("old", "I"),
                         T("old", "G"), T("old", "E"), T("new", "S")),)
    assert m.claimed == 25 and not m.passe
    assert m.word == "REMUS" and m.text == "RE*MUS"
    assert format_move(m) == "A12w RE*MUS +aderigeS 25 Punkte"


def test_brief_example_with_spaced_plus():
    m = parse_move("I5s RUHE +sternE 13 Punkte")
    assert (m.row, m.col, m.direction, m.word, m.claimed) == (5, 9, "s", "RUHE", 13)
    assert [x[-1] for x in m.extras] == [T("new", "E")]
    assert parse_move("I5s RUHE+sternE") == parse_move("I5s RUHE + sternE") == parse_move("I5s RUHE +sternE")


@pytest.mark.parametrize("a,b", [("A12w REMUS", "12Aw REMUS"), ("h8s STERN", "8Hs STERN"), ("O15w X", "15Ow X"),
                                 ("A12 w REMUS", "A12w REMUS"), ("H8W STERN", "H8w STERN")])
def test_both_coordinate_orders_and_case(a, b):
    assert parse_move(a) == parse_move(b)


def test_direction_rule_without_dir():
    letter_first = parse_move("H8 STERN")
    number_first = parse_move("8H STERN")
    assert letter_first.direction == "s" and not letter_first.direction_given and not letter_first.number_first
    assert number_first.direction == "w" and not number_first.direction_given and number_first.number_first
    assert (letter_first.row, letter_first.col) == (number_first.row, number_first.col) == (8, 8)
    # written direction wins over the order
    assert parse_move("8Hs STERN").direction == "s" and parse_move("H8w STERN").direction == "w"
    # canonical form always writes letter first and the direction
    assert format_move(number_first) == "H8w STERN"
    assert format_move(letter_first) == "H8s STERN"


@pytest.mark.parametrize("text,points", [
    ("H8w STERN 12", 12), ("H8w STERN 12 Punkte", 12), ("H8w STERN = 12 P.", 12), ("H8w STERN 12 Pkt.", 12),
    ("H8w STERN 12 punkt", 12), ("H8w STERN 12P", 12), ("H8w STERN =12 Pkt", 12), ("H8w STERN", None),
])
def test_points_forms(text, points):
    m = parse_move(text)
    assert m.claimed == points and m.word == "STERN"


def test_question_mark_blank_equals_star_blank():
    assert parse_move("I5s RU?HE") == parse_move("I5s RU*HE")
    assert parse_move("I5s RU*hE").tokens[2] == T("blank", "H")  # the letter after * may be lower case


def test_umlauts_are_letters_and_sharp_s_is_ss():
    m = parse_move("D8w ÄRGER")
    assert m.tokens[0] == T("new", "Ä") and m.word == "ÄRGER"
    assert parse_move("D8w tänZER").tokens[1] == T("old", "Ä")
    assert parse_move("D8w *Öl").tokens[0] == T("blank", "Ö")
    assert parse_move("D8w GRÜßE").word == "GRÜSSE"
    assert [t.kind for t in parse_move("D8w GRÜßE").tokens] == ["new"] * 6
    assert [t.kind for t in parse_move("D8w grüßE").tokens] == ["old"] * 5 + ["new"]
    # decomposed umlaut from a mail client (U+0308)
    assert parse_move("D8w A\u0308RGER") == m


@pytest.mark.parametrize("text", ["PASSE", "passe", "Passe.", "PASS", "passen", "  PASSE  "])
def test_passe(text):
    m = parse_move(text)
    assert m.passe and m.tokens == () and format_move(m) == "PASSE"


def test_passe_with_points_round_trips():
    m = parse_move("PASSE 0 Punkte")
    assert m.passe and m.claimed == 0 and parse_move(format_move(m)) == m


def test_trailing_full_stop_and_gap_token():
    assert parse_move("H8w STERN.") == parse_move("H8w STERN")
    m = parse_move("H8w ST.RN")
    assert m.tokens[2] == T("empty") and m.word == "STRN" and format_move(m) == "H8w ST.RN"
    assert parse_move("H8w ST_RN") == m


def test_row_off_the_board_is_read_and_left_to_the_engine():
    m = parse_move("H16w STERN")
    assert (m.row, m.col) == (16, 8)


@pytest.mark.parametrize("canonical", [
    "H8w STERN", "A12w RE*MUS +aderigeS 25 Punkte", "I5s RUHE +sternE 13 Punkte", "D8w spielenDE", "D8w ÄRGER",
    "O1s *X", "PASSE", "A1w ab*CD +xY +Ä 0 Punkte",
])
def test_format_parse_round_trip_canonical(canonical):
    assert format_move(parse_move(canonical)) == canonical


def test_format_switches():
    m = parse_move("A12w RE*MUS+aderigeS 25 Punkte")
    assert format_move(m, points=False) == "A12w RE*MUS +aderigeS"
    assert format_move(m, extras=False, points=False) == "A12w RE*MUS"


def test_property_format_then_parse_is_identity():
    rng = random.Random(1)
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"

    def word():
        toks = []
        for _ in range(rng.randint(1, 9)):
            kind = rng.choice(["new", "old", "blank"])
            toks.append(Token(kind, rng.choice(letters)))
        return tuple(toks)

    for _ in range(300):
        m = Move(rng.randint(1, 15), rng.randint(1, 15), rng.choice("ws"), word(),
                 tuple(word() for _ in range(rng.randint(0, 2))), rng.choice([None, 0, 7, 123]))
        assert parse_move(format_move(m)) == m


@pytest.mark.parametrize("text", ["", "   ", "STERN", "H8w", "H8w 12", "Hallo Welt", "H8w RU HE", "12w STERN",
                                  "H8w STERN 12 Punkte extra", "H8w ST-ERN", "H8x STERN"])
def test_garbage_raises_german_notation_error(text):
    with pytest.raises(NotationError) as exc:
        parse_move(text)
    assert exc.value.message and exc.value.text == text
    assert any(w in exc.value.message for w in ("Zug", "Zeile", "Spalte"))


@pytest.mark.parametrize("text", ["P8w STERN", "8Pw STERN", "Z1 STERN"])
def test_column_outside_a_to_o(text):
    with pytest.raises(NotationError, match="Spalten heißen A bis O"):
        parse_move(text)

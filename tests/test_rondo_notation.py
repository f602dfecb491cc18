"""Rondo move notation (shared/NOTATION.md, "Rondo"; grammar/rondo_move.lark)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.base import NotationError
from bot.games.rondo.notation import Move, Token, format_move, parse_move


def toks(cards: str) -> tuple[tuple[str, str | None], ...]:
    """(kind, letter) of every token of ``parse_move(cards)`` (values ignored)."""
    return tuple((t.kind, t.letter) for t in parse_move(cards).tokens)


# -- every form of NOTATION.md ------------------------------------------------------------

def test_main_example_with_points_word():
    m = parse_move("mo*NDES 24 Punkte")
    assert m.field is None
    assert m.claimed == 24
    assert [(t.kind, t.letter) for t in m.tokens] == [
        ("old", "M"), ("old", "O"), ("joker", "N"), ("new", "D"), ("new", "E"), ("new", "S")]
    assert all(t.value is None for t in m.tokens)


def test_feld_prefix():
    m = parse_move("Feld 2: ST*And/")
    assert m.field == 2
    assert m.claimed is None
    assert [(t.kind, t.letter) for t in m.tokens] == [
        ("new", "S"), ("new", "T"), ("joker", "A"), ("old", "N"), ("old", "D"), ("loescher", None)]


@pytest.mark.parametrize("text", ["Feld2:ST*And/", "feld 2 ST*And/", "FELD 2 : ST*And/", "  Feld 2:  ST*And/  "])
def test_feld_prefix_lenient_spacing_and_case(text):
    m = parse_move(text)
    assert m.field == 2
    assert m.cards == "ST*And/"


def test_card_values_of_the_seed_table():
    m = parse_move("S3 T3 *A1 n2 d5 /-2")
    assert m.cards == "ST*And/"
    assert [t.value for t in m.tokens] == [3, 3, 1, 2, 5, -2]
    assert m.claimed is None


@pytest.mark.parametrize("dash", ["\u2013", "\u2212", "\u2014"])
def test_en_dash_and_minus_sign_read_as_minus(dash):
    m = parse_move(f"S3 T3 *A1 n2 d5 /{dash}2")
    assert m.tokens[-1] == Token("loescher", None, -2)


@pytest.mark.parametrize("text,points", [
    ("mondES = 24 P.", 24), ("mondES 24 Pkt.", 24), ("mondES 24 Pkt", 24), ("mondES 24 Punkte", 24),
    ("mondES 24 punkte", 24), ("mondES 24 P", 24), ("mondES 24", 24), ("mondES 24P", 24),
    ("mondES 19 Punkte", 19), ("mondES =19", 19), ("mondES 7 Punkt", 7), ("mondES 7 Pt.", 7),
])
def test_points_forms(text, points):
    m = parse_move(text)
    assert m.cards == "mondES"
    assert m.claimed == points
    assert all(t.value is None for t in m.tokens)


def test_question_mark_joker_equals_star_joker():
    assert parse_move("mo?NDES") == parse_move("mo*NDES")
    assert toks("?x") == (("joker", "X"),)   # the meaning letter is read upper case


def test_spaces_between_tokens():
    assert parse_move("m o n d E S") == parse_move("mondES")
    assert parse_move("mo *N DES") == parse_move("mo*NDES")
    assert parse_move("mond ES 19 Punkte").claimed == 19


def test_values_and_points_are_kept_apart():
    # "mondES 19": 19 are points; "S3": 3 is the value of the S card
    m = parse_move("mondES 19")
    assert m.claimed == 19 and m.tokens[-1].value is None
    m = parse_move("mondES3")
    assert m.claimed is None and m.tokens[-1] == Token("new", "S", 3)
    m = parse_move("m5 o3 n2 d5 E1 S3 19 Punkte")
    assert [t.value for t in m.tokens] == [5, 3, 2, 5, 1, 3]
    assert m.claimed == 19
    m = parse_move("S 3")          # whitespace is significant: points, not a value
    assert m.cards == "S" and m.claimed == 3 and m.tokens[0].value is None


def test_old_loescher_and_new_loescher_are_one_token_kind():
    assert toks("tor//") == (("old", "T"), ("old", "O"), ("old", "R"), ("loescher", None), ("loescher", None))


# -- round trip -------------------------------------------------------------------------

@pytest.mark.parametrize("canonical", [
    "mo*NDES", "Feld 2: ST*And/", "DEo///", "/o*RTES", "To*R//", "mondE", "Feld 3: SE*ND/", "TOR",
    "Feld 4: TOR", "m/nd/", "*A*B*C", "Feld 9: X",
])
def test_format_parse_round_trip_canonical(canonical):
    m = parse_move(canonical)
    assert format_move(m) == canonical
    assert parse_move(format_move(m)) == m


def test_format_with_points_and_field_switches():
    m = parse_move("Feld 2: ST*And/ 15 Punkte")
    assert format_move(m) == "Feld 2: ST*And/"
    assert format_move(m, points=True) == "Feld 2: ST*And/ 15 Punkte"
    assert format_move(m, with_field=False) == "ST*And/"
    assert parse_move(format_move(m, points=True)) == m


def test_values_are_dropped_by_format_but_cards_survive():
    m = parse_move("S3 T3 *A1 n2 d5 /-2 = 15 P.")
    assert format_move(m, points=True) == "ST*And/ 15 Punkte"


# -- errors -----------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "mond!", "12", "Feld : abc", "Feld 3:", "mondES 19 Punkte extra", "TOR -3", "**A", "mo*",
    "Hallo, hier mein Zug", "S3 T3 *A1 n2 d5 /-2 = = 15", "#TOR",
])
def test_garbage_raises_german_notation_error(text):
    with pytest.raises(NotationError) as exc:
        parse_move(text)
    assert "Zug nicht lesbar" in exc.value.message
    assert exc.value.text == text


@pytest.mark.parametrize("text", ["MÖND", "mondÄ", "STRAßE", "grüN"])
def test_umlauts_rejected_with_hint(text):
    with pytest.raises(NotationError) as exc:
        parse_move(text)
    assert "AE, OE, UE" in exc.value.message and "SS" in exc.value.message


@pytest.mark.parametrize("n", [0, 10, 12, 99])
def test_field_outside_1_to_9(n):
    with pytest.raises(NotationError) as exc:
        parse_move(f"Feld {n}: mondE")
    assert f"Feld {n} gibt es nicht" in exc.value.message


@pytest.mark.parametrize("text", ["", "   ", "\t", "\u00a0"])
def test_empty_line(text):
    with pytest.raises(NotationError) as exc:
        parse_move(text)
    assert "Leere Zeile" in exc.value.message


# -- the word FELD is a move, not the field keyword ------------------------------------------

@pytest.mark.parametrize("text,cards,points", [
    ("feLD 12 Punkte", "feLD", 12),   # FELD with old f, e and new L, D; 12 claimed points
    ("FELD 5 Punkte", "FELD", 5),
    ("fELD 9 P.", "fELD", 9),
    ("FELD 7", "FELD", 7),
])
def test_word_feld_with_points_is_cards_and_points(text, cards, points):
    """FELD is a German word (igerman98 has it). With no colon after the number, the line
    'feLD 12 Punkte' must read as the cards feLD and 12 claimed points; it is what
    format_move writes for that move, so it must parse back."""
    m = parse_move(text)
    assert (m.field, m.cards, m.claimed) == (None, cards, points)


def test_format_of_word_feld_with_points_parses_back():
    move = Move(tuple(Token("new", ch) for ch in "FELD"), None, 5)
    assert format_move(move, points=True) == "FELD 5 Punkte"
    assert parse_move(format_move(move, points=True)) == move


# -- property: generated token sequences format and parse back ------------------------------

LETTERS = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
TOKEN = st.one_of(
    st.builds(Token, st.just("new"), LETTERS),
    st.builds(Token, st.just("old"), LETTERS),
    st.builds(Token, st.just("joker"), LETTERS),
    st.just(Token("loescher")),
)
MOVES = st.builds(
    Move,
    st.lists(TOKEN, min_size=1, max_size=9).map(tuple),
    st.one_of(st.none(), st.integers(1, 9)),
    st.one_of(st.none(), st.integers(0, 200)),
)


@settings(max_examples=400, deadline=None)
@given(MOVES)
def test_property_format_then_parse_is_identity(move):
    text = format_move(move, points=True)
    assert parse_move(text) == move
    # and without the points
    bare = Move(move.tokens, move.field, None)
    assert parse_move(format_move(bare)) == bare

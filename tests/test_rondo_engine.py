"""Rondo validation and scoring (bot/games/rondo/engine.py) and its verdicts as data. Move
generation: tests/test_rondo_movegen.py.

Rule source: seed 000 II.1-II.3 with shared/RULES.md "Rondo"; reason codes and their order
from shared/conformance/README.md (documented at the top of engine.py).
"""

from __future__ import annotations

import pytest

from bot.games.rondo.engine import REASONS, Position, evaluate
from bot.lexicon import Lexicon

WORDS = ["MOND", "MONDE", "MONDES", "MONDSEE", "DEO", "STAND", "STANDE", "STOER", "ORT", "ORTES",
         "TOR", "SEND", "TORE", "MON", "OND", "TORT", "TOT", "TOTE", "ROT", "ROTE", "ORTE", "TORTE",
         "ORE", "TON", "TONE", "STOT", "RORE", "TORS", "ROTT", "ESTE", "OSTE", "TOSE", "ROSE"]
LEX = Lexicon.from_words(WORDS, "rondo")


def ev(row: str, vorgabe: str, move, rnd: int = 2, lex=LEX):
    return evaluate(Position.from_codes(row, vorgabe, rnd), move, lex)


def invalid(row, vorgabe, move, rnd=2):
    o = ev(row, vorgabe, move, rnd)
    assert not o.valid, (move, o.row and o.row.code)
    assert o.reason in REASONS
    assert o.score is None and o.row is None
    assert o.message  # a German explanation
    return o.reason


def valid(row, vorgabe, move, rnd=2):
    o = ev(row, vorgabe, move, rnd)
    assert o.valid, (move, o.reason, o.message)
    return o


# -- reason codes beyond the conformance file ------------------------------------------------

@pytest.mark.parametrize("move", ["", "mond!", "Feld 12: mondE", "MÖND", "12 Punkte"])
def test_syntax(move):
    assert invalid("..MOND/..", "DEST?/", move) == "syntax"


def test_position_all_upper_case_fits_two_ways():
    # 6 new cards over a 5-field Auslage (fields 3-7) fit at field 2 and at field 3
    o = ev("..MOND/..", "DEST?/", "STANDE")
    assert (o.valid, o.reason) == (False, "position")
    assert "2, 3" in o.message and "Feld" in o.message


def test_position_ambiguity_resolved_by_feld():
    # with the field named the move is judged on: it covers every old letter
    assert invalid("..MOND/..", "STANDE/", "Feld 2: STANDE") == "no-old-letter"
    assert invalid("..MOND/..", "STANDE/", "Feld 3: STANDE") == "no-old-letter"


@pytest.mark.parametrize("move", ["Feld 2: mondE", "Feld 4: mondE", "Feld 3: onDE", "Feld 1: DEo///"])
def test_position_wrong_feld(move):
    assert invalid("..MOND/..", "DEST?/", move) == "position"


@pytest.mark.parametrize("move", [
    "onDE",      # does not cover field 3 (the whole new Auslage must be written)
    "mondeS",    # lower-case e where no E lies
    "toR",       # letters not on the row
    "mOnD/x",    # lower-case x on an empty field
])
def test_position_no_fit(move):
    assert invalid("..MOND/..", "DEST?/", move) == "position"


def test_position_lower_case_must_match_old_joker_letter():
    assert valid("..MOnD/..", "DEST?/", "monDE").row.code == "..MOnDE.."
    assert invalid("..MOnD/..", "DEST?/", "moxDE") == "position"


@pytest.mark.parametrize("move", ["mondEE", "mondSS", "mo*N*DE", "mondTX"])
def test_vorgabe(move):
    assert invalid("..MOND/..", "DEST?/", move) == "vorgabe"


def test_vorgabe_no_loescher_without_loescher_card():
    assert invalid("..TORE/..", "DEST?", "tor//") == "vorgabe"
    # an old Loescher left lying needs no Loescher card
    o = valid("..TOR//..", "EST?", "torE/")
    assert (o.score, o.new_cards) == (3 + 3 + 2 + 1 - 2, "E")


def test_vorgabe_loescher_usable_several_times():
    o = valid("..MOND/..", "DEST?/", "DEo///")
    assert o.row.code == ".DEO///.."


def test_unchanged_stacking_same_letters_only():
    assert invalid("..MOND/..", "DEST?/", "monD/") == "unchanged"
    # a Joker replaced by its own letter is no change either (seed: "m o N D /" ungueltig)
    assert invalid("..MOnD/..", "DENST?/", "moNd/") == "unchanged"


def test_unchanged_before_loescher_on_empty_field():
    # the word TOR is unchanged; reason order: unchanged comes before loescher
    assert invalid("...TOR...", "DEST?/", "tor/") == "unchanged"


def test_no_old_letter_when_every_letter_is_covered():
    assert invalid("...TOR...", "ROT/", "Feld 4: ROT") == "no-old-letter"
    assert invalid("...TOR...", "OST?/", "Feld 4: TO*T") == "no-old-letter"


def test_no_old_letter_kept_joker_counts_as_old_letter():
    # engine reading: an old Joker left lying is an old letter card
    o = valid("...tOR...", "OTE?/", "tOTE")
    assert o.row.code == "...tOTE.."


def test_extension_growth_by_two():
    assert invalid("...TOR...", "DEST?/", "StorE") == "extension"
    assert invalid("...TOR...", "DEST?/", "torES") == "extension"


@pytest.mark.parametrize("row,move", [
    ("MOND/....", "Smond/"),   # would need field 0
    ("....MOND/", "mond/S"),   # would need field 10
    ("....MONDE", "mondeS"),
])
def test_extension_outside_the_nine_fields(row, move):
    assert invalid(row, "DEST?/", move) == "extension"


def test_loescher_on_empty_field():
    o = ev("...TOR...", "DEST?/", "toT/")
    assert (o.valid, o.reason) == (False, "loescher")
    assert "Feld 7" in o.message


def test_loescher_on_empty_field_at_start():
    assert invalid("...TOR...", "DEST?/", "/toT") == "loescher"


@pytest.mark.parametrize("row,move", [
    ("..TORE...", "t/re"),       # new Loescher in the middle
    ("..TORE/..", "t/re/"),
    ("..TOR//..", "tor/E"),      # old Loescher would end up inside the word
    ("../TOR...", "Feld 2: S/tor"),
    ("..MOND/..", "m/nd/"),
])
def test_loescher_splitting_the_word(row, move):
    assert invalid(row, "DEST?/", move) == "loescher"


def test_too_short():
    assert invalid("..MOND/..", "DEST?/", "mo///") == "too-short"
    assert invalid("..TORE/..", "DEST?/", "//rE/") == "too-short"


def test_word():
    o = ev("..TORE...", "DEST?/", "Feld 3: /orD")
    assert (o.valid, o.reason) == (False, "word")
    assert "ORD" in o.message   # the message names the word
    # the same move is valid when the word list has the word
    assert ev("..TORE...", "DEST?/", "Feld 3: /orD", lex=Lexicon.from_words(["ORD"], "rondo")).valid


# -- round 1 -------------------------------------------------------------------------------

def test_round1_three_letters_on_fields_4_to_6():
    o = valid(".........", "TOREAS", "TOR", rnd=1)
    assert o.row.code == "...TOR..."
    assert o.field == 4
    assert (o.score, o.bonus) == (3 + 3 + 2 + 3, 3)
    assert valid(".........", "TOREAS", "Feld 4: TOR", rnd=1).row.code == "...TOR..."


def test_round1_joker():
    o = valid(".........", "TO?EAS", "TO*R", rnd=1)
    assert o.row.code == "...TOr..."
    assert (o.score, o.bonus) == (3 + 3 + 1 + 3, 3)


def test_round1_two_letters_too_short():
    assert invalid(".........", "TOREAS", "TO", rnd=1) == "too-short"


def test_round1_four_letters_extension():
    assert invalid(".........", "TOREAS", "TORE", rnd=1) == "extension"


def test_round1_lower_case_is_position():
    assert invalid(".........", "TOREAS", "tor", rnd=1) == "position"
    assert invalid(".........", "TOREAS", "Tor", rnd=1) == "position"


@pytest.mark.parametrize("f", [1, 3, 5, 7])
def test_round1_other_field_is_position(f):
    assert invalid(".........", "TOREAS", f"Feld {f}: TOR", rnd=1) == "position"


def test_round1_needs_vorgabe_letters():
    assert invalid(".........", "TOREAS", "TOT", rnd=1) == "vorgabe"


# -- scoring -----------------------------------------------------------------------------

def test_seed_example_scores_by_rule_text():
    o = valid("..MOND/..", "DEST?/", "mo*NDES")
    assert (o.score, o.bonus, o.row.code, o.word, o.new_cards) == (24, 6, "..MOnDES.", "MONDES", "DES?")


def test_bonus_counts_joker():
    # two new cards (D and a Joker) -> no bonus; three (D, E, Joker) -> 3
    o = valid("..MOND/..", "DEST?/", "mo*NdE")
    assert (o.bonus, o.score) == (0, 5 + 3 + 1 + 5 + 1)
    o = valid("..MOND/..", "DEST?/", "mo*NDE")
    assert (o.bonus, o.score) == (3, 5 + 3 + 1 + 5 + 1 + 3)


def test_bonus_at_most_one_loescher():
    # D, E and three Loescher (two new, one old): bonus counts D, E and one Loescher
    o = valid("..MOND/..", "DEST?/", "DEo///")
    assert o.bonus == 3
    assert o.score == 5 + 1 + 3 - 2 - 2 - 2 + 3
    assert o.new_cards == "DE/"


def test_bonus_old_loescher_not_a_new_card():
    # only the E is new; the old Loescher at the end is not placed again
    o = valid("..TOR//..", "DEST?/", "torE/")
    assert (o.bonus, o.score) == (0, 3 + 3 + 2 + 1 - 2)
    assert o.new_cards == "E"


def test_old_loescher_at_the_ends_count_minus_two():
    o = valid("//TOR//..", "OTE?/", "//toT//")
    assert o.row.code == "//TOT//.." and o.word == "TOT"
    assert (o.score, o.bonus, o.new_cards) == (3 + 3 + 3 - 2 * 4, 0, "T")


def test_old_loescher_covered_stops_counting():
    o = valid("..MOND/..", "DEST?/", "mondE")
    assert o.score == 5 + 3 + 2 + 5 + 1   # the -2 is gone under the E


def test_old_joker_keeps_value_one():
    o = valid("..MOnD/..", "DEST?/", "monDE")
    assert o.score == 5 + 3 + 1 + 5 + 1 + 0


def test_stacked_letters_earn_bonus():
    plain = valid("..MOND/..", "DEST?/", "mondES")
    stacked = valid("..MOND/..", "DEST?/", "monDES")
    assert plain.row == stacked.row
    assert (plain.score, plain.bonus) == (19, 0)
    assert (stacked.score, stacked.bonus) == (22, 3)
    assert stacked.new_cards == "DES"


def test_score_is_row_value_plus_bonus():
    for mv in ["mondE", "mondES", "monDES", "mo*NDES", "DEo///", "ST*And/", "ST*AnDE", "SToE*R/", "/o*RT/",
               "/o*RTES", "To*R//", "SEnD/"]:
        o = ev("..MOND/..", "DEST?/", mv)
        assert o.valid, mv
        assert o.score == o.row.value + o.bonus
        counted = len(o.new_cards)
        assert o.bonus == 3 * max(0, counted - 2)


# -- notes: never change validity or score --------------------------------------------------

def test_note_wrong_card_value():
    o = valid("..MOND/..", "DEST?/", "m5 o3 n2 d5 E2 S3")
    assert o.score == 19
    assert len(o.notes) == 1 and "Feld 7" in o.note_texts[0] and "1" in o.note_texts[0] and "2" in o.note_texts[0]


def test_note_wrong_value_of_old_joker_and_loescher():
    o = valid("..MOnD/..", "DEST?/", "m5 o3 n2 D5 E1")
    assert o.score == 5 + 3 + 1 + 5 + 1
    assert len(o.notes) == 1 and "Feld 5" in o.note_texts[0]
    o = valid("..MOND/..", "DEST?/", "S3 E1 n2 D5 /2")
    assert len(o.notes) == 1 and "-2" in o.note_texts[0]


def test_note_wrong_claimed_points():
    o = valid("..MOND/..", "DEST?/", "mondES 20 Punkte")
    assert o.score == 19
    assert o.note_texts == ["Angegeben 20 Punkte, gezählt 19 Punkte."]


def test_no_notes_when_everything_matches():
    o = valid("..MOND/..", "DEST?/", "S3 T3 *A1 n2 d5 /-2 = 15 P.")
    assert o.score == 15 and o.notes == []


def test_notes_never_change_outcome():
    a = ev("..MOND/..", "DEST?/", "mo*NDES")
    b = ev("..MOND/..", "DEST?/", "m9 o9 *N9 D9 E9 S9 99 Punkte")
    assert (a.valid, a.score, a.bonus, a.row) == (b.valid, b.score, b.bonus, b.row)
    assert len(b.notes) == 7
    c = ev("..MOND/..", "DEST?/", "mondX 99 Punkte")
    assert (c.valid, c.reason) == (False, "vorgabe")


# -- verdicts as data (issue 31) ---------------------------------------------------------------

def test_verdicts_are_public_data_in_both_languages():
    """Rondo has no private state: every verdict renders for the public, in German and in
    the Dutch of the catalog; the code is the reason."""
    from bot.games.verdict import PUBLIC
    o = ev("..MOND/..", "DEST?/", "mondX 99 Punkte")
    assert o.verdict.code == "vorgabe" and o.missing == "X"
    assert o.verdict.render("de", PUBLIC) == "Nicht in der Vorgabe DEST?/: X."
    assert o.verdict.render("nl", PUBLIC) == "Niet in de voorgift DEST?/: X."
    o = ev("..MOND/..", "DEST?/", "mondES 20 Punkte")
    assert [n.render("nl", PUBLIC) for n in o.notes] == ["Opgegeven 20 punten, geteld 19 punten."]
    o = ev("..MOND/..", "DEST?/", "Ä")
    assert o.reason == "syntax" and o.verdict.code == "syntax" and "AE, OE" in o.verdict.render("de", PUBLIC)

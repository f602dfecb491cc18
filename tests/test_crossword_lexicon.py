"""The crossword word set (seed 003, section 3; the game's word rules,
bot/games/crossword/words.py, on the ``crossword`` alphabet): igerman98 with its
proper names and two-letter words, without abbreviations and Latin phrase fragments;
the GM lists win over it."""

from __future__ import annotations

import pytest

from bot.games.crossword.engine import best, score_claims
from bot.games.crossword.grid import Grid
from bot.games import get_game
from bot.lexicon import load


@pytest.fixture(scope="module")
def lex():
    game = get_game("crossword")  # the game names its word list and its rules; the lexicon knows no game
    return load(game.alphabet, rules=game.word_rules)


@pytest.mark.parametrize("word", ["ANNA", "OTTO", "BERLIN", "RHEIN", "GOETHE", "KOELN", "ISAR", "KITA", "KRIPO",
                                  "OB", "SO", "EI", "ZU", "ES"])
def test_names_short_words_and_kurzworte_count(lex, word):
    assert word in lex


@pytest.mark.parametrize("word", ["AD", "DE", "EO", "ET", "CO", "ZDF", "CDU", "LKW", "KM"])
def test_fragments_and_abbreviations_do_not(lex, word):
    assert word not in lex
    assert not lex.check(word).valid


def test_other_games_keep_their_set():
    assert "DE" in load("rondo") and "DE" in load("crossword")  # the alphabet alone: no rules


def test_gm_lists_win_over_the_word_rules(lex):
    view = lex.with_lists(allow=["de", "ZDF"], deny=["Otto"])
    assert "DE" in view and "ZDF" in view and "OTTO" not in view and "ANNA" in view
    assert view.check("de").code == "allowed"
    assert "AD" not in view and "AD" not in set(view.words())


def test_word_list_export_leaves_the_fragments_out(lex):
    two = {w for w in lex.words() if len(w) == 2}
    assert {"OB", "SO", "EI"} <= two and not two & {"AD", "DE", "EO", "ET", "CO"}
    assert len(lex) == sum(1 for _ in lex.words())


def test_a_real_grid_with_names(lex):
    grid = Grid(["OTTOAB", "......", "......", "......", "......", "......"])
    assert score_claims(grid, ["OTTO A1-A4", "AB A5-A6"], lex).score == 6
    assert best(grid, lex).score >= 6

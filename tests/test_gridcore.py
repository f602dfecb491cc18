"""The compiled search core (``bot.games._gridcore``, issue 25) against the pure-Python
reference (:func:`bot.games.gridgen.search_reference`) for Monoscrabble, on seeded random
positions: the same set of moves with the same scores, words, cross words and tiles
(listing), the same best move (the top, with the score pruning of the core), two blanks
and letters outside the alphabet; and the core itself (it is what search runs, its
compiled graph, its limits, its multiset index). Typ-Dom: tests/test_gridcore_typdom.py;
Presto's crossword search: tests/test_gridcore_presto.py; what they share (the word lists,
the random positions, the comparison): tests/gridcore_cases.py.

Positions: boards made by a seeded random self-play (each turn a random move of the
compiled generator, so the boards hold blanks/Jollys and joined words), racks of 0 to 19
tiles drawn from the game's bag with its blanks or Jollys.  The suite runs a few hundred;
``SPIELLEITER_GRIDCORE_CASES=N`` runs N positions per game (thousands: about a minute per
thousand Monoscrabble positions, longer for Typ-Dom's large racks)."""

from __future__ import annotations

import random

import pytest

from bot.games import _gridcore, gridgen
from bot.games.monoscrabble import movegen as ms
from bot.games.monoscrabble.tiles import LETTERS as MS_LETTERS
from bot.games.typdom import movegen as td

from tests.gridcore_cases import (CASES, MS_BAG, _listing, _positions, _random_board,  # noqa: F401 (fixture)
                                  _same, ms_lex)


def test_the_compiled_core_is_what_search_runs():
    """No silent fallback: gridgen imports the compiled module, and search runs it."""
    assert _gridcore.__file__.endswith((".so", ".pyd"))
    assert gridgen._ACTIVE[0] is _gridcore.search
    with gridgen.reference_search():
        assert gridgen._ACTIVE[0] is gridgen.search_reference
    assert gridgen._ACTIVE[0] is _gridcore.search


def test_monoscrabble_listing_and_top_equal_the_reference(ms_lex):
    """Every move (set, scores, words) and the top move, compiled vs reference, on random
    boards with racks of 0-8 tiles (and up to 19 in the long run) with Blankos."""
    root = gridgen.graph_root(ms_lex)
    bag = [ch for ch, k in MS_BAG.items() for _ in range(k)]
    n = CASES or 150
    blanks = 0
    for i, rows, rack in _positions(25, n, ms_lex, ms.SPEC, bag, 19 if CASES else 8, 8, "?"):
        if CASES == 0 and rack.count("?") == 2 and len(rack) > 7:
            rack = rack.replace("?", "E", 1)  # the suite: one two-blank 8-rack is slow in the reference
        out, ref = _listing(rows, rack, root, ms.SPEC)
        _same(out, ref)
        best = gridgen.best_move(rows, rack, ms_lex, ms.SPEC)
        with gridgen.reference_search():
            best_ref = gridgen.best_move(rows, rack, ms_lex, ms.SPEC)
        assert best == best_ref, (i, rows, rack)
        if ref:
            assert best.score == max(r[0] for r in ref)
        blanks += "?" in rack
    assert blanks >= n // 10


def test_monoscrabble_threshold_queries_at_the_top_equal_the_reference(ms_lex):
    """Fixed thresholds at the top score, just above and below it, and half of it: the
    moves found are exactly the reference's moves of that score or more (the score
    bounds of the anchors, the left-part lengths and every extension step cut only
    moves below the threshold; issue 35)."""
    root = gridgen.graph_root(ms_lex)
    bag = [ch for ch, k in MS_BAG.items() for _ in range(k)]
    n = CASES // 2 or 40
    queries = 0
    for i, rows, rack in _positions(35, n, ms_lex, ms.SPEC, bag, 10 if CASES else 8, 8, "?"):
        if rack.count("?") == 2 and len(rack) > 6:
            rack = rack.replace("?", "N", 1)  # keeps the reference's listing quick
        ref: list = []
        gridgen.search_reference(rows, rack, root, ref.append, [-1], ms.SPEC)
        if not ref:
            continue
        top = max(r[0] for r in ref)
        for thr in (top, top + 1, top - 1, top // 2):
            if thr < 1:
                continue
            out: list = []
            gridgen.search(rows, rack, root, out.append, [thr], ms.SPEC)
            _same(out, [r for r in ref if r[0] >= thr])
            queries += 1
    assert queries >= n


def test_monoscrabble_two_blanks_and_letters_outside_the_alphabet(ms_lex):
    root = gridgen.graph_root(ms_lex)
    rng = random.Random(7)
    bag = [ch for ch, k in MS_BAG.items() for _ in range(k)]
    rows = _random_board(rng, ms_lex, ms.SPEC, bag, 6, 8)
    for rack in ("AEOQRU??", "??", "?", "ß1E", "EEEEEEEE", "XYQÄÖÜ?"):
        out, ref = _listing(rows, rack, root, ms.SPEC)
        _same(out, ref)
        for thr in (10, 40, 80):
            out, ref = _listing(rows, rack, root, ms.SPEC, threshold=thr)
            _same(out, ref)


def test_compiled_graph_is_memoised_and_matches_the_dict_graph(ms_lex):
    root = gridgen.graph_root(ms_lex)
    g = _gridcore.compiled_graph(root)
    assert _gridcore.compiled_graph(root) is g
    assert set(g.letters) == set(MS_LETTERS)
    assert g.n == gridgen.graph_for(ms_lex).node_count()


def test_a_board_larger_than_the_core_allows_is_an_error():
    spec = gridgen.GridSpec(size=40, centre=(20, 20), values={"A": 1})
    root = {"A": {"A": {"$": 1}}}
    with pytest.raises(ValueError):
        gridgen.search(["." * 40] * 40, "AA", root, lambda raw: None, [-1], spec)


def test_multiset_index_finds_the_groups_a_rack_holds():
    rng = random.Random(4)
    kinds = "ABCDEFGHIJKLMNOPQRSTUVWXY#?"
    fields = {ch: i for i, ch in enumerate(kinds)}
    uses = ["".join(rng.choices(kinds, k=rng.randrange(0, 8))) for _ in range(300)]
    from collections import Counter
    index = _gridcore.MultisetIndex([td._multiset_code(Counter(u), fields) for u in uses], len(fields))
    for _ in range(50):
        rack = Counter(rng.choices(kinds, k=rng.randrange(0, 19)))
        index.set_have(td._multiset_code(rack, fields))
        got, i = [], index.next_fit(0)
        while i >= 0:
            got.append(i)
            i = index.next_fit(i + 1)
        assert got == [j for j, u in enumerate(uses) if not Counter(u) - rack]


"""What the tests of the compiled search core share (tests/test_gridcore.py,
tests/test_gridcore_typdom.py, tests/test_gridcore_presto.py): the word lists as module
fixtures (``ms_lex``, ``td_lex``; a test module imports them by name), seeded random
boards and racks, and the comparison of the compiled core's records with the pure-Python
reference (:func:`bot.games.gridgen.search_reference`). ``SPIELLEITER_GRIDCORE_CASES=N``
runs N positions per game (:data:`CASES`)."""

from __future__ import annotations

import os
import random

import pytest

from bot.games import gridgen
from bot.lexicon import load
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES  # the typdom list's build layer

CASES = int(os.environ.get("SPIELLEITER_GRIDCORE_CASES", "0"))

MS_BAG = {  # the 102 German Monoscrabble tiles (bench/monoscrabble_bench.py)
    "E": 15, "N": 9, "S": 7, "I": 6, "R": 6, "T": 6, "U": 6, "A": 5, "D": 4, "H": 4, "G": 3, "L": 3,
    "O": 3, "M": 4, "B": 2, "W": 1, "Z": 1, "C": 2, "F": 2, "K": 2, "P": 1, "Ä": 1, "J": 1, "Ü": 1,
    "V": 1, "Ö": 1, "X": 1, "Q": 1, "Y": 1, "?": 2,
}


@pytest.fixture(scope="module")
def ms_lex():
    return load("monoscrabble")


@pytest.fixture(scope="module")
def td_lex():
    return load("typdom", rules=TYPDOM_RULES)


def _board_after(rows, moves):
    grid = [list(r) for r in rows]
    for m in moves:
        for r, c, ch, b in m.tiles:
            grid[r - 1][c - 1] = ch.lower() if b else ch
    return ["".join(r) for r in grid]


def _random_board(rng, lexicon, spec, bag, turns, rack_len):
    """A board after ``turns`` random moves (racks of ``rack_len`` from ``bag``)."""
    n = spec.size
    rows = ["." * n] * n
    for _ in range(turns):
        rack = "".join(rng.sample(bag, rack_len))
        moves = gridgen.all_moves(rows, rack, lexicon, spec)
        if not moves:
            continue
        rows = _board_after(rows, [rng.choice(moves)])
    return rows


def _listing(rows, rack, root, spec, touch=None, threshold=-1, min_tiles=0):
    """(compiled, reference) raw records of one query."""
    out: list = []
    gridgen.search(rows, rack, root, out.append, [threshold], spec, touch, min_tiles=min_tiles)
    ref: list = []
    gridgen.search_reference(rows, rack, root, ref.append, [threshold], spec, touch, min_tiles=min_tiles)
    return out, ref


def _same(out, ref):
    a = sorted(r[:7] for r in out)
    b = sorted(r[:7] for r in ref)
    assert len(a) == len(set(a)), "a move reported twice"
    assert a == b
    # the cross words and groups of table tiles too (to_move reads the pass's cross parts)
    assert {gridgen.to_move(r) for r in out} == {gridgen.to_move(r) for r in ref}


def _positions(seed, n, lexicon, spec, bag, max_rack, rack_len, blanks):
    """``n`` random (index, board, rack); about four racks in ten get one of ``blanks``
    in place of a letter, one in ten two."""
    rng = random.Random(seed)
    for i in range(n):
        rows = _random_board(rng, lexicon, spec, bag, rng.randrange(0, 9), rack_len)
        k = rng.randrange(0, max_rack + 1)
        rack = rng.sample(bag, min(k, len(bag)))
        x = rng.random()
        for j in range(2 if x < 0.1 else 1 if x < 0.4 else 0):
            if j < len(rack):
                rack[j] = rng.choice(blanks)
        yield i, rows, "".join(rack)


def _lays(word_counts, n, counts, red, black, vowels):
    """The most rack tiles (``counts``, ``red``/``black`` Jollys) one word can hold, at
    most ``n - 1`` (one letter must be a table tile)."""
    used, miss_v, miss_c = 0, 0, 0
    for ch, k in word_counts.items():
        have = counts.get(ch, 0)
        used += min(k, have)
        if k > have:
            if ch in vowels:
                miss_v += k - have
            else:
                miss_c += k - have
    used += min(red, miss_v) + min(black, miss_c)
    return min(used, n - 1)


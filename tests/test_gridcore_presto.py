"""Presto's crossword search (:mod:`bot.games.typdom.search`) in the compiled core
(``bot.games._gridcore``, issue 25) against the pure-Python reference, on seeded racks: the
spellings, the spines, the whole search and the tree search. The shared helpers:
tests/gridcore_cases.py."""

from __future__ import annotations

import random

import pytest

from bot.games import _gridcore, gridgen
from bot.games.typdom.tiles import BLACK_JOLLY, RED_JOLLY, full_set

from tests.gridcore_cases import CASES, td_lex  # noqa: F401 (td_lex: a fixture)


def test_presto_spellings_equal_the_reference(td_lex):
    """The compiled spelling of words (``_gridcore.spellings``) lists the same
    ``(word, k, red, black)`` as the pure-Python ``search._spellings_reference``, on
    random tiles (0-12, with Jollys), crossable letters and required letters."""
    from collections import Counter

    from bot.games.typdom import search

    root = gridgen.graph_root(td_lex)
    rng = random.Random(12)
    letters = [c for c in full_set() if c.isalpha()]
    for _ in range(CASES * 4 or 150):
        counts = Counter(rng.sample(letters, rng.randrange(0, 13)))
        red, black = rng.randrange(0, 3), rng.randrange(0, 3)
        cross = frozenset(rng.sample(letters, rng.randrange(1, 6))) if rng.random() < 0.5 else None
        must = rng.choice(sorted(counts) + ["Q", "X"]) if counts and rng.random() < 0.4 else None
        got = search._spellings(root, counts, red, black, cross, must)
        ref = search._spellings_reference(root, counts, red, black, cross, must)
        assert sorted(got, key=repr) == sorted(ref, key=repr), (counts, red, black, cross, must)
        assert bool(search._spellings(root, counts, red, black, cross, must, first_only=True)) == bool(ref)


def test_presto_spines_equal_the_python_sort(td_lex):
    """The compiled spine order (``_gridcore.presto_spines``: listed, keyed and taken
    off a heap in C) is the reference's: ``_spellings_reference`` sorted by
    ``(-hardness, -len, word)`` and deduplicated with ``dict.fromkeys``; on dealt sets
    of 4-6 players and random sets (0-19 tiles, 0-2 Jollys of each colour), read by
    iteration, by index (also past the end) and after a partial read (phase 1 stops
    early, phase 2 reads the same object again)."""
    from collections import Counter

    from bot.games.typdom import search
    from bot.games.typdom.deal import deal
    from bot.games.typdom.presto_game import SETS
    from bot.games.typdom.tiles import VOWELS

    root = gridgen.graph_root(td_lex)
    rng = random.Random(35)
    letters = [c for c in full_set() if c.isalpha()]
    racks = []
    for n, (black, red) in SETS.items():
        racks += list(deal(f"spines/{n}", "P1", [str(i) for i in range(n)], black, red)[0].values())[:3]
    for _ in range(CASES or 25):
        racks.append("".join(rng.sample(letters, rng.randrange(0, 20)))
                     + RED_JOLLY * rng.randrange(0, 3) + BLACK_JOLLY * rng.randrange(0, 3))
    sizes = set()
    for rack in racks:
        counts = Counter(ch for ch in rack if ch not in (RED_JOLLY, BLACK_JOLLY))
        red, black = rack.count(RED_JOLLY), rack.count(BLACK_JOLLY)
        ref = search._spellings_reference(root, counts, red, black, None, None)
        ref.sort(key=lambda s: (-search._hardness(s[0]), -len(s[0]), s[0]))
        ref = list(dict.fromkeys(ref))
        spines = _gridcore.presto_spines(root, counts, red, black, VOWELS, search._HARD)
        k = rng.randrange(0, 4)
        head = [spines[i] for i in range(min(k, len(ref)))]  # a partial read first
        assert head == ref[:k], rack
        assert list(spines) == ref, rack
        assert list(spines) == ref and len(spines) == len(ref), rack  # read again
        if ref:
            assert spines[-1] == ref[-1]
        with pytest.raises(IndexError):
            spines[len(ref)]
        sizes.add(min(len(ref), 1000) // 1000)
    assert sizes == {0, 1}  # small and large spine lists both occur


def test_presto_search_equals_the_reference(td_lex):
    """``find_crossword`` with the compiled spelling gives the reference's whole answer
    (status, crossword, words, steps, lonely letter) on dealt sets of 4-6 players and on
    random sets, with the full budget and with small ones (where it ends ``open``)."""
    from bot.games.typdom import search
    from bot.games.typdom.deal import deal
    from bot.games.typdom.presto_game import SETS

    rng = random.Random(13)
    bag = full_set()
    racks = []
    for n, (black, red) in SETS.items():
        racks += list(deal(f"gridcore/{n}", "P1", [str(i) for i in range(n)], black, red)[0].values())[:2]
    for _ in range(CASES or 8):
        racks.append("".join(sorted(rng.sample(bag, rng.randrange(6, 20)))))
    racks.append("#BDHLNPPUUW")  # open even with the full budget (some CASES draw no open set)
    statuses = set()
    for rack in racks:
        for budget in (search.STEPS, rng.randrange(1, 200)):
            got = search.find_crossword(rack, td_lex, budget=budget)
            with search.reference_spellings():
                ref = search.find_crossword(rack, td_lex, budget=budget)
            assert got.to_json() == ref.to_json(), (rack, budget)
            statuses.add(got.status)
    assert statuses >= {"found", "open"}


def test_presto_tree_search_equals_the_python_grow(td_lex):
    """The compiled tree search (``_gridcore.PrestoTree``) takes the Python ``grow``'s
    steps: ``find_crossword`` gives the reference's whole answer (status, crossword,
    words, steps, lonely letter) on sets that need the exhaustive phase to end
    ``none`` (``?HILRTUWY``: 3,576 steps), that spend the whole budget (two dealt
    6-player sets, 4,000 steps), dealt sets and random sets of 3-19 tiles, each with
    the full budget and a small random one."""
    from bot.games.typdom import search
    from bot.games.typdom.deal import deal
    from bot.games.typdom.presto_game import SETS

    rng = random.Random(3535)
    bag = full_set()
    racks = ["?HILRTUWY", "#BDHLNPPUUW", "AABEEGHMPQUWX", "?DEEMOPQRSVYZ"]
    for n, (black, red) in SETS.items():
        racks += list(deal(f"tree/{n}", "P1", [str(i) for i in range(n)], black, red)[0].values())[:2]
    for _ in range(CASES or 16):
        racks.append("".join(sorted(rng.sample(bag, rng.randrange(3, 20)))))
    seen = set()
    for rack in racks:
        for budget in (search.STEPS, rng.randrange(1, 300)):
            got = search.find_crossword(rack, td_lex, budget=budget)
            with search.reference_spellings():
                ref = search.find_crossword(rack, td_lex, budget=budget)
            assert got.to_json() == ref.to_json(), (rack, budget)
            seen.add((got.status, got.lonely is None, got.steps > 1000))
    assert {("found", True, False), ("none", True, True), ("open", True, True), ("open", True, False)} <= seen



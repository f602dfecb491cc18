"""Typ-Dom's plan search, phase (b) (issue 35): :class:`bot.games.typdom.movegen._Seconds`,
one compiled :class:`bot.games._gridcore.TouchSearcher` per plan (the table parsed once,
each first placement laid in place, lines that found nothing remembered), answers
exactly as the search it replaced (:func:`bot.games.typdom.movegen._seconds_reference`:
a whole ``gridgen.search`` with ``touch`` on the table after the first placement), and
its raw records are those of that search, on self-played tables with the dealt racks
and with large racks holding both Jollys."""

from __future__ import annotations

import random

import pytest

from bot.games import _gridcore, gridgen
from bot.games.typdom import movegen as mg
from bot.games.typdom.tiles import full_set, jolly_for, sort_rack
from tests import typdom_tables
from tests.typdom_tables import _against_reference, _laid, _large_racks, _queries

lexicon, tables = typdom_tables.lexicon, typdom_tables.tables  # (the module fixtures)


@pytest.mark.parametrize("variant", ["point", "kreuzwort"])
def test_seconds_equal_the_reference(lexicon, tables, variant):
    root = gridgen.graph_root(lexicon)
    rng = random.Random(f"seconds-{variant}")
    asked = found = memo_hits = 0
    for rows, dealt in tables[4::2]:
        for rack in [dealt] + _large_racks(dealt, rng):
            seconds = mg._Seconds(rows, rack, root, variant, {})
            a, f = _against_reference(seconds, rows, rack, root, variant, rng, 6)
            asked, found = asked + a, found + f
            if seconds.searcher is not None:
                memo_hits += seconds.searcher.lines_skipped
    assert asked >= 500 and found >= 50 and memo_hits >= 50


def test_touch_searcher_lists_the_touch_search(lexicon, tables):
    """Without cuts, the records (score, tiles, line, word, new tiles, cross words) of the
    TouchSearcher are those of ``gridgen.search`` with ``touch`` on the table after the
    first placement, and the table is unchanged afterwards."""
    root = gridgen.graph_root(lexicon)
    rng = random.Random("touch-searcher")
    seen = 0
    for rows, dealt in tables[4::3]:
        for rack in [dealt] + _large_racks(dealt, rng)[:1]:
            ts = _gridcore.TouchSearcher(rows, root, mg.SPEC)
            for m_tiles, _s, _n, rack2 in _queries(rows, rack, root, rng, 4):
                rows2, touch = _laid(rows, m_tiles)
                for thr, k in ((-1, 0), (-1, 2), (12, 0)):
                    want = mg._search(rows2, rack2, root, touch, threshold=thr, min_tiles=k)
                    got = ts.search(m_tiles, rack2, thr, k, None)
                    assert sorted(map(gridgen.to_move, got), key=repr) == sorted(map(gridgen.to_move, want), key=repr)
                    seen += len(want)
            # laid and taken back: an untouched search of the table is as before
            assert sorted(ts.search([], rack, -1, 0, None)) == []
    assert seen >= 200


def test_touch_searcher_skips_racks_a_failed_search_dominates(lexicon, tables):
    """With every move counting (threshold -1), a query whose tiles lie on the same squares
    with the same letters as one that found nothing, with a rack that rack can lay every
    move of (here: a first placement laying a Jolly where the other laid the letter, so
    the rack left holds the letter instead of the Jolly), is answered without a search
    (issue 35); the answers stay those of ``gridgen.search`` with ``touch`` (also for
    racks in between that no other dominates: one tile another letter), and such skips
    happen."""
    root = gridgen.graph_root(lexicon)
    rng = random.Random("dominated")
    asked = found = skipped = 0
    for rows, dealt in tables[4::3]:
        for rack in _large_racks(dealt, rng)[:2]:
            ts = _gridcore.TouchSearcher(rows, root, mg.SPEC)
            for m_tiles, _s, m_nt, rack2 in _queries(rows, rack, root, rng, 8):
                variants = [(m_tiles, rack2)]
                for i, (r, c, ch, b) in enumerate(m_tiles):
                    if not b and jolly_for(ch) in rack2:
                        left = list(rack2)
                        left.remove(jolly_for(ch))
                        tiles2 = list(m_tiles)
                        tiles2[i] = (r, c, ch, True)
                        variants.append((tiles2, sort_rack(left + [ch])))
                letters = [c for c in full_set() if c.isalpha()]
                for _ in range(3):  # (racks neither dominates: one tile another letter)
                    left = list(rack2)
                    left[rng.randrange(len(left))] = rng.choice(letters)
                    variants.append((m_tiles, sort_rack(left)))
                for k in (len(rack2) - 2, len(rack2) - 4, 3):
                    # (either order: the rack with the Jolly can lay the other's moves,
                    # not the other way round)
                    rng.shuffle(variants)
                    for tiles, left in variants:
                        rows2 = list(rows)
                        for r, c, ch, b in tiles:
                            rows2[r] = rows2[r][:c] + (ch.lower() if b else ch) + rows2[r][c + 1:]
                        touch = [(r + 1, c + 1) for r, c, _ch, _b in tiles]
                        want = mg._search(rows2, left, root, touch, threshold=-1, min_tiles=max(k, 0))
                        got = ts.search(tiles, left, -1, max(k, 0), None)
                        assert sorted(map(gridgen.to_move, got), key=repr) == \
                            sorted(map(gridgen.to_move, want), key=repr), (rows, tiles, left, k)
                        asked += 1
                        found += bool(want)
            skipped += ts.queries_skipped
    assert asked >= 100 and found >= 20 and skipped >= 5, (asked, found, skipped)


def test_touch_searcher_long_left_parts_equal_the_search(lexicon, tables):
    """Racks of 17-19 tiles with both Jollys (the ``--big`` bench's largest): left parts up
    to the whole free stretch before an anchor, cut by the letters a word must hold at
    exact depths (``_left_touch``), list the records of ``gridgen.search`` with ``touch``
    (its ``with_left`` enumerates them without that cut), with the Kreuzwort-Spiel's
    tile counts and Point-Typ-Dom's thresholds."""
    root = gridgen.graph_root(lexicon)
    rng = random.Random("long-left")
    letters = [c for c in full_set() if c.isalpha()]
    asked = found = 0
    for rows, _dealt in tables[4::4]:
        for n in (17, 19):
            rack = sort_rack(["?", "#"] + rng.sample(letters, n - 2))
            ts = _gridcore.TouchSearcher(rows, root, mg.SPEC)
            for m_tiles, _s, m_nt, rack2 in _queries(rows, rack, root, rng, 5):
                rows2, touch = _laid(rows, m_tiles)
                for thr, k in ((-1, 5), (-1, 8), (-1, 11), (30, 0), (60, 0), (90, 0)):
                    want = mg._search(rows2, rack2, root, touch, threshold=thr, min_tiles=k)
                    got = ts.search(m_tiles, rack2, thr, k, None)
                    assert sorted(map(gridgen.to_move, got), key=repr) == \
                        sorted(map(gridgen.to_move, want), key=repr), (rows, m_tiles, rack2, thr, k)
                    asked += 1
                    found += bool(want)
    assert asked >= 60 and found >= 20, (asked, found)


def test_reference_path(lexicon, tables):
    """Inside ``gridgen.reference_search()`` the pure-Python search answers (the same)."""
    root = gridgen.graph_root(lexicon)
    rng = random.Random("ref")
    for rows, dealt in tables[6:]:
        rack = sort_rack([c for c in dealt if c.isalpha()][:5] + ["?"])
        qs = _queries(rows, rack, root, rng, 2)
        if qs:
            break
    for variant in ("point", "kreuzwort"):
        want = [mg._Seconds(rows, rack, root, variant, {}).best(m, s, n, r2, (s, 0) if variant == "point" else (n, 0))
                for m, s, n, r2 in qs]
        with gridgen.reference_search():
            sec = mg._Seconds(rows, rack, root, variant, {})
            assert not sec.compiled
            got = [sec.best(m, s, n, r2, (s, 0) if variant == "point" else (n, 0)) for m, s, n, r2 in qs]
        assert [g and (g[0], g[2]) for g in got] == [w and (w[0], w[2]) for w in want]
    assert any(w is not None for w in want)

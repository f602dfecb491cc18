"""The count of rack tiles in phase (b)'s GADDAG cut (issue 35, branch i35-big19;
``_gd_cut`` in bot/games/gridcore/touch_gaddag.pxi, the masks in touch_counts.pxi):
with racks that hold letters two, three and more than three times and the Kreuzwort-
Spiel's tile counts close to the whole rack left (where the count decides), and with
Point-Typ-Dom's thresholds, the TouchSearcher over the GADDAG lists exactly the records
of ``gridgen.search`` with ``touch`` (the search by anchors, which has no such cut)."""

from __future__ import annotations

import random

from bot.games import _gridcore, gridgen
from bot.games.gaddag import compiled_gaddag_for
from bot.games.typdom import movegen as mg
from bot.games.typdom.tiles import sort_rack
from tests import typdom_tables
from tests.typdom_tables import _laid, _queries

lexicon, tables = typdom_tables.lexicon, typdom_tables.tables  # (the module fixtures)


def _moves(raws):
    return sorted(map(gridgen.to_move, raws), key=repr)


def _repeating_racks(rng):
    """Racks of 11-16 tiles with both Jollys and letters held 2, 3 and 4 times (the
    count's masks for twice and three times, and its loop for more)."""
    common = "EEEENNNRRRSSSIIITTAAUUDDHHLL"
    out = []
    for reps in ((2, 2, 2), (3, 2), (3, 3, 2), (4, 2), (2, 2, 3, 1)):
        letters = rng.sample(sorted(set(common)), len(reps))
        tiles = ["?", "#"] + [ch for ch, k in zip(letters, reps) for _ in range(k)]
        tiles += rng.sample("BCFGKMOPWZ", rng.randrange(3, 6))
        out.append(sort_rack(tiles))
    return out


def test_gaddag_cut_counts_repeated_letters_exactly(lexicon, tables):
    root = gridgen.graph_root(lexicon)
    gd = compiled_gaddag_for(lexicon)
    rng = random.Random("gdcut")
    asked = found = tight = 0
    steps0 = _gridcore.gaddag_steps()
    for rows, _dealt in tables[4::3]:
        for rack in _repeating_racks(rng):
            tg = _gridcore.TouchSearcher(rows, root, mg.SPEC)
            tg.use_gaddag(gd)
            for m_tiles, _s, _nt, rack2 in _queries(rows, rack, root, rng, 3):
                rows2, touch = _laid(rows, m_tiles)
                n = len(rack2)
                needs = [(-1, k) for k in range(max(1, n - 4), n + 1)] + [(t, 0) for t in (20, 35)]
                for thr, k in needs:
                    want = _moves(mg._search(rows2, rack2, root, touch, threshold=thr, min_tiles=k))
                    got = _moves(tg.search(m_tiles, rack2, thr, k, None))
                    assert got == want, (rows, m_tiles, rack2, thr, k)
                    asked += 1
                    found += bool(want)
                    tight += bool(want) and k >= n - 3
    assert _gridcore.gaddag_steps() > steps0
    assert asked >= 100 and found >= 20 and tight >= 3, (asked, found, tight)

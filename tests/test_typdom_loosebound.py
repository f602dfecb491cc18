"""The Kreuzwort-Spiel's plan loop bounds phase (b)'s candidates by the first bound's value
while no plan lays every tile (``_gridcore.kreuz_loose_bound``, issue 35, branch
i35-k19): the whole best turn equals the one with the touch bound and the reference's,
on self-played tables with small racks, where the best plan often lays every tile (then
the bounds cut phase (b)'s candidates, and a bound set too low would lose the best)."""

from __future__ import annotations

import random

from bot.games import _gridcore, gridgen
from bot.games.typdom import movegen as mg
from bot.games.typdom.tiles import full_set, sort_rack
from tests import typdom_tables

lexicon, tables = typdom_tables.lexicon, typdom_tables.tables  # (the module fixtures)


def _turn(rows, rack, lexicon, loose):
    was = _gridcore.kreuz_loose_bound()
    _gridcore.kreuz_loose_bound(loose)
    try:
        got = mg.best_turn(rows, rack, lexicon, "kreuzwort")
    finally:
        _gridcore.kreuz_loose_bound(was)
    return got and got.to_json()


def test_kreuzwort_loose_bound_keeps_the_best_turn(lexicon, tables):
    rng = random.Random("loose-bound")
    compared = whole = 0
    for rows, dealt in tables[2:]:
        tiles = list(dealt)
        for n in (3, 4, 5, 6):
            if n > len(tiles):
                continue
            rack = "".join(sort_rack(rng.sample(tiles, n)))
            got = _turn(rows, rack, lexicon, True)
            assert got == _turn(rows, rack, lexicon, False), (rows, rack)
            with gridgen.reference_search():
                want = mg.best_turn(rows, rack, lexicon, "kreuzwort")
            assert got == (want and want.to_json()), (rows, rack)
            compared += 1
            # (the best plan lays every tile: the case the bound's value decides)
            whole += bool(want) and want.tiles == n
    assert compared >= 40 and whole >= 5



def test_kreuzwort_loose_bound_is_at_least_the_touch_bound(lexicon, tables):
    """Every phase (b) candidate of the plan loop (``movegen._first``'s ``later``, the
    Kreuzwort-Spiel) is bounded at least as high as the touch bound would bound it (the
    first placement's score plus ``TouchBound.bound``: the most a second placement
    touching it can score), so no candidate the touch bound keeps is passed over; racks
    of 8-10 tiles with Jollys, where no plan lays every tile for a while (the loose
    bound is taken)."""
    root = gridgen.graph_root(lexicon)
    rng = random.Random("loose-candidates")
    bag = [t for t in full_set() if t.isalpha()]
    checked = 0
    for rows, _dealt in tables[2::2]:
        bounder = _gridcore.TouchBound(rows, mg.VALUES)
        for n, jollys in ((8, ["?"]), (9, ["#"]), (10, ["?", "#"])):
            rack = "".join(sort_rack(jollys + rng.sample(bag, n - len(jollys))))
            found = mg._first(rows, rack, root, "kreuzwort", [], None, None)
            if found is None:
                continue
            for ub, m_tiles, m_score, _m_nt, rack2, _ref in found[1]:
                tiles = [(r, c, 0 if b else mg.VALUES.get(ch, 0)) for r, c, ch, b in m_tiles]
                tb = bounder.bound(tiles, [mg.VALUES.get(ch, 0) for ch in rack2])
                assert ub[0] == len(rack) and ub[1] >= m_score + tb, (rows, rack, m_tiles)
                checked += 1
    assert checked >= 50

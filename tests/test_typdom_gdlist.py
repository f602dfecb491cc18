"""Typ-Dom's plan listing over the GADDAG (issue 35, branch i35-gdlist:
``_gridcore.search(..., gaddag=...)`` into a ``PlanListing``,
``bot/games/gridcore/list_gaddag.pxi``): every line read from its table tiles outwards
lists exactly the anchors' records, each once and field by field (``raw`` and
``detail``), on self-played and random tables (Jollys on the table too) with racks of
5-19 tiles holding one, two or three Jollys, in every pass of the listing and with
thresholds; the best turns stay the same with the listing over the GADDAG."""

from __future__ import annotations

import random

import pytest

from bot.games import _gridcore, gridgen
from bot.games.gaddag import compiled_gaddag_for
from bot.games.typdom import movegen as td
from bot.games.typdom.tiles import BLACK_JOLLY, RED_JOLLY, full_set, sort_rack
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES
from bot.lexicon import load
from tests.test_typdom_listing import _board, _joining, _key
from tests.typdom_tables import self_played


@pytest.fixture(scope="module")
def lexicon():
    return load("typdom", rules=TYPDOM_RULES)


@pytest.fixture(scope="module")
def gd(lexicon):
    return compiled_gaddag_for(lexicon)


@pytest.fixture(scope="module")
def tables(lexicon):
    """Random tables (random placements of random racks: Jollys on the table) and the
    later tables of a self-played Partie (40-70 tiles)."""
    rng = random.Random("gdlist-tables")
    out = [_board(rng, lexicon, rng.randrange(2, 12)) for _ in range(10)]
    out += [rows for rows, _dealt in self_played(lexicon, seed="gdl", partie="G1", rounds=6)[12::3]]
    assert sum(any(ch.islower() for ch in "".join(rows)) for rows in out) >= 3  # (tables with Jollys)
    return out


def _rack(rng, n, jollys):
    letters = [c for c in full_set() if c.isalpha()]
    return sort_rack(([RED_JOLLY, BLACK_JOLLY, BLACK_JOLLY] if jollys == 3 else [RED_JOLLY, BLACK_JOLLY][:jollys])
                     + rng.sample(letters, n - jollys))


def _listing(rows, rack, root, gaddag, kreuz, thr=-1, mode=0, need=None):
    lst = _gridcore.PlanListing(rack, kreuz, td.VALUES, td.VOWELS)
    if mode:
        lst.set_pass(mode, need)
    n0 = _gridcore.gaddag_listings()
    gridgen.search(list(rows), rack, root, lst, [thr], td.SPEC) if gaddag is None else \
        _gridcore.search(list(rows), rack, root, lst, [thr], td.SPEC, gaddag=gaddag)
    over = _gridcore.gaddag_listings() > n0
    recs = [(lst.raw(i), lst.detail(i)) for i in range(len(lst))]
    return lst, sorted(recs), over


def _same(rows, rack, root, gd, kreuz, thr=-1, mode=0, need=None):
    """The listing over the GADDAG equals the anchors' (each record once); returns the
    anchors' PlanListing and the number of records."""
    want_l, want, _ = _listing(rows, rack, root, None, kreuz, thr, mode, need)
    got_l, got, over = _listing(rows, rack, root, gd, kreuz, thr, mode, need)
    assert over  # (read over the GADDAG: a table with tiles)
    keys = [(r[:7], d) for r, d in got]
    assert len(set(keys)) == len(keys), (rows, rack, thr, mode)  # each record once
    assert got == want, (rows, rack, thr, mode, len(got), len(want))
    assert got_l.join_max() == want_l.join_max() and got_l.joining() == want_l.joining()
    return want_l, len(want)


@pytest.mark.parametrize("sizes", [(5, 7, 9), (12, 16, 19)])
def test_listing_over_the_gaddag_equals_the_anchors(lexicon, gd, tables, sizes):
    """Every pass of the plan's listing: all records (threshold -1, and thresholds as
    Point's), the joining ones (pass 1) and the rest reaching a need per tiles laid
    (pass 2, from a random best key, as ``movegen._first``)."""
    root = gridgen.graph_root(lexicon)
    rng = random.Random(f"gdlist-{sizes}")
    seen = joined = 0
    # (the large racks on every other table: their listings hold up to 300,000 records)
    for t, rows in enumerate(tables if sizes[0] < 10 else tables[1::2]):
        n = sizes[t % 3]
        jollys = 1 + (t + n) % 3
        rack = _rack(rng, n, jollys)
        kreuz = bool(t % 2)
        variant = "kreuzwort" if kreuz else "point"
        full, k = _same(rows, rack, root, gd, kreuz)
        seen += k
        _same(rows, rack, root, gd, kreuz, thr=rng.choice([0, 8, 20, 35]))
        p1, k1 = _same(rows, rack, root, gd, kreuz, mode=1)
        joined += k1
        raws = [full.raw(i) for i in range(len(full))]
        top = max((_key(r, variant) for r in raws), default=(0, 0))
        best = (top[0] + rng.randrange(0, 4), top[1] + rng.randrange(-3, 20))
        if kreuz:
            best = (min(best[0], len(rack)), best[1])
        need = td._listing_need(variant, len(rack), best, p1.join_max())
        lows = [v for v in need if v is not None]
        _same(rows, rack, root, gd, kreuz, thr=max(0, min(lows, default=0)), mode=2, need=need)
        assert k1 == sum(_joining(r, len(rack)) for r in raws)
    assert seen > 2000 and joined > 100, (seen, joined)


def test_empty_table_and_other_sinks_stay_with_the_anchors(lexicon, gd):
    """The first move (an empty table: no table tile to read from) and a sink that is not
    a PlanListing are searched by anchors, with the same records; a GADDAG whose letters
    are not the word graph's is refused."""
    root = gridgen.graph_root(lexicon)
    empty = ["." * td.SIZE] * td.SIZE
    want_l, want, _ = _listing(empty, "#?AEINRST", root, None, False)
    got_l, got, over = _listing(empty, "#?AEINRST", root, gd, False)
    assert not over and got == want and len(want) > 100
    rows = _board(random.Random("gdlist-sink"), lexicon, 4)
    a, b = [], []
    n0 = _gridcore.gaddag_listings()
    _gridcore.search(rows, "#?AEINRST", root, a.append, [-1], td.SPEC, gaddag=gd)
    gridgen.search(rows, "#?AEINRST", root, b.append, [-1], td.SPEC)
    assert _gridcore.gaddag_listings() == n0 and sorted(a) == sorted(b) and a
    lst = _gridcore.PlanListing("AEIN", False, td.VALUES, td.VOWELS)
    with pytest.raises(ValueError):
        _gridcore.search(rows, "AEIN", root, lst, [-1], td.SPEC, gaddag=root)


@pytest.mark.parametrize("variant", ["point", "kreuzwort"])
def test_best_turn_with_the_listing_over_the_gaddag(lexicon, gd, tables, variant, monkeypatch):
    """``movegen.LIST_GADDAG``: the best turns (with Jolly takes, and the Kreuzwort-Spiel's
    two passes forced on) are those of the listing by anchors, and the listing went over
    the GADDAG."""
    monkeypatch.setattr(td, "_KREUZ_TWO_PASS_TILES", 0)
    rng = random.Random(f"gdlist-best-{variant}")
    used = takes = 0
    for rows in tables:
        letters = [letter for _r, _c, letter in td._jollys(rows)]
        rack = _rack(rng, rng.randrange(6, 12), 1 + rng.randrange(2))
        if letters:
            rack = sort_rack(list(rack[1:]) + [rng.choice(letters)])  # (a Jolly to take)
            takes += 1
        monkeypatch.setattr(td, "LIST_GADDAG", False)
        want = td.best_turn(rows, rack, lexicon, variant)
        monkeypatch.setattr(td, "LIST_GADDAG", True)
        n0 = _gridcore.gaddag_listings()
        got = td.best_turn(rows, rack, lexicon, variant)
        used += _gridcore.gaddag_listings() > n0
        assert (got and got.to_json()) == (want and want.to_json()), (rows, rack)
    assert used >= len(tables) - 1 and takes >= 2, (used, takes)

"""The best turn's glue written for less work (issue 35, branch i35-med): the notation of
a raw search record (``genbase.raw_notation``), ``gen_notation``, ``gen_placement``,
``gridgen.to_move``, ``_best_of`` (only the winner becomes a GenMove) and
``movegen._jollys`` against the implementations they replaced, kept here as the
reference, on every record of self-played tables (Jollys laid and on the table, both
directions, ties)."""

from __future__ import annotations

import random
from itertools import groupby
from operator import itemgetter

from bot.games import _gridcore, gridgen
from bot.games.gridgen import GenMove
from bot.games.typdom import genbase
from bot.games.typdom import movegen as mg
from bot.games.typdom.notation import Placement, format_placement, shared_token
from bot.games.typdom.plan_ref import _raw_runs
from bot.games.typdom.table import Table
from bot.games.typdom.tiles import full_set
from tests.typdom_tables import lexicon, tables  # noqa: F401 (fixtures)


# -- the replaced implementations (main at 8d82cb0), the reference of the tests ----------

def _old_to_move(raw) -> GenMove:
    score, nt, transposed, r, start, word, placed, parts_g = raw
    cross, tiles = [], []
    for p, ch, isb in placed:
        pr = parts_g[r][p]
        if pr is not None:
            cross.append(pr[0] + ch + pr[1])
        tiles.append((p + 1, r + 1, ch, isb) if transposed else (r + 1, p + 1, ch, isb))
    runs = _raw_runs(raw)  # (the reference's count of the groups: the replaced to_move's loop)
    if transposed:
        row, col, d = start + 1, r + 1, "s"
    else:
        row, col, d = r + 1, start + 1, "w"
    return GenMove(row, col, d, tuple(tiles), word, (word, *cross), score, runs)


def _old_gen_notation(m: GenMove) -> str:
    new = {(r, c): b for r, c, _ch, b in m.tiles}
    dr, dc = (0, 1) if m.direction == "w" else (1, 0)
    r, c = m.row, m.col
    out = []
    for ch in m.word:
        b = new.get((r, c))
        out.append(ch.lower() if b is None else ("*" + ch if b else ch))
        r += dr
        c += dc
    return f"{Table.coord(m.row, m.col)}{m.direction} {''.join(out)}"


def _old_gen_placement(m: GenMove) -> Placement:
    new = {(r, c): b for r, c, _ch, b in m.tiles}
    dr, dc = (0, 1) if m.direction == "w" else (1, 0)
    r, c = m.row, m.col
    toks = []
    for ch in m.word:
        b = new.get((r, c))
        toks.append(shared_token("old" if b is None else "blank" if b else "new", ch))
        r += dr
        c += dc
    return Placement(m.row, m.col, m.direction, tuple(toks))


def _old_best_of(raws, variant):
    if not raws:
        return None
    keyget = itemgetter(1, 0) if variant == "kreuzwort" else itemgetter(0, 1)
    top = max(map(keyget, raws))
    tied = [_old_to_move(r) for r in raws if keyget(r) == top]
    if len(tied) == 1:
        return top, tied[0], _old_gen_notation(tied[0])
    notation, best = min(((_old_gen_notation(m), m) for m in tied), key=itemgetter(0))
    return top, best, notation


def _old_jollys(rows):
    table = Table.from_rows(rows)
    return [(r, c, letter) for r, c, letter in table.jollys() if table.neighbours(r, c) < 3]


# -- the tests ----------------------------------------------------------------------------

def _records(rows, rack, lexicon):
    found: list = []
    _gridcore.search(rows, rack, gridgen.graph_root(lexicon), found.append, [-1], genbase.SPEC)
    return found


def test_raw_notation_and_moves_equal_the_replaced_code(lexicon, tables):  # noqa: F811
    """Every record of the self-played tables, with racks holding both Jollys too: the
    GenMove, its notation (from the raw record and from the GenMove) and its Placement
    are the replaced code's."""
    rng = random.Random(35)
    bag = full_set()
    n = jolly = across = 0
    for rows, rack in tables[::2]:
        for rk in (rack, "?#" + "".join(rng.sample(bag, 4))):
            for raw in _records(rows, rk, lexicon):
                m = gridgen.to_move(raw)
                assert m == _old_to_move(raw)
                text = _old_gen_notation(m)
                assert genbase.raw_notation(raw) == text
                assert genbase.gen_notation(m, rows) == text
                assert genbase.gen_placement(m) == _old_gen_placement(m)
                assert format_placement(genbase.gen_placement(m)) == text
                n += 1
                jolly += any(b for *_x, b in m.tiles)
                across += m.direction == "w"
    assert n > 2000 and jolly > 200 and 0 < across < n


def test_best_of_equals_the_replaced_code_on_ties(lexicon, tables):  # noqa: F811
    """``_best_of`` on groups of records sharing a key (ties broken by the notation) and
    on whole listings, in both variants and in both orders of the records."""
    rng = random.Random(36)
    bag = full_set()
    groups = 0
    for rows, rack in tables[::3]:
        raws = _records(rows, "?" + "".join(rng.sample(bag, 5)), lexicon)
        for variant in ("point", "kreuzwort"):
            assert genbase._best_of(raws, variant) == _old_best_of(raws, variant)
            assert genbase._best_of(raws[::-1], variant) == _old_best_of(raws[::-1], variant)
        for _key, grp in groupby(sorted(raws, key=itemgetter(0, 1)), key=itemgetter(0, 1)):
            grp = list(grp)
            if len(grp) > 1:
                groups += 1
                rng.shuffle(grp)
                assert genbase._best_of(grp, "point") == _old_best_of(grp, "point")
    assert genbase._best_of([], "point") is None
    assert groups > 20


def test_jollys_read_from_the_codes_equal_the_table(lexicon, tables):  # noqa: F811
    """``_jollys`` (read from the row codes) is the table's
    Jollys with fewer than three neighbours, with Jollys on the edges and corners and in
    every kind of neighbourhood."""
    rng = random.Random(37)
    n = 0
    for rows, _rack in tables:
        for _ in range(3):
            grid = [list(line) for line in rows]
            for _k in range(rng.randrange(1, 30)):
                r, c = rng.randrange(25), rng.choice([0, 24, rng.randrange(25)])
                grid[r][c] = rng.choice("abcxyz")
            rows2 = ["".join(line) for line in grid]
            want = _old_jollys(rows2)
            assert mg._jollys(rows2) == want
            n += len(want)
    assert mg._jollys(["." * 25] * 25) == []
    assert n > 500

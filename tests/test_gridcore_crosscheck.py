"""The search's set-up (issue 35, branch i35-med): a plan's listing over the GADDAG reads
the cross-checks of squares with more tiles after them than before over the GADDAG
(rev(after), then per letter rev(before)), and the reused search sets back only the
cross-checks it wrote. Tables made for it: a tile (or two) above a word with one empty
square between, and beside runs of tiles in the other direction, so many squares have
tiles on both sides across the line; the listing over the GADDAG must equal the anchors'
(DAWG cross-checks) record by record; each search follows one on another table, so
cross-checks left from there would show too (seen failing with rev(before) read one square
short; the reset left out fails tests/test_gridcore.py at once)."""

from __future__ import annotations

import random

from bot.games import gridgen
from bot.games.typdom.tiles import full_set
from tests.test_typdom_gdlist import _rack, _same, gd, lexicon  # noqa: F401 (fixtures)
from tests.test_typdom_listing import _board
from tests.typdom_tables import self_played


def _dotted(rows: list[str], rng: random.Random) -> tuple[list[str], int]:
    """``rows`` with one or two random tiles put before runs of two or more tiles (down
    the columns and along the rows), one empty square between: the squares between
    then have a short run of tiles before them and a longer one after. Returns the new
    rows and how many such squares were made."""
    grid = [list(line) for line in rows]
    letters = [c for c in full_set() if c.isalpha()]
    made = 0
    for transposed in (False, True):
        for a in range(25):
            for b in range(3, 24):
                at = (lambda i, j: grid[j][i]) if transposed else (lambda i, j: grid[i][j])

                def put(i, j, ch):
                    if transposed:
                        grid[j][i] = ch
                    else:
                        grid[i][j] = ch

                # b: the first tile of a run of two or more (in line a, along b)
                if at(a, b) == "." or at(a, b - 1) != "." or at(a, b + 1) == ".":
                    continue
                k = rng.choice((1, 1, 2))
                if b - 1 - k < 0 or any(at(a, x) != "." for x in range(b - 1 - k - (b - 1 - k > 0), b)):
                    continue
                for x in range(b - 1 - k, b - 1):
                    put(a, x, rng.choice(letters))
                made += 1
    return ["".join(line) for line in grid], made


def test_crosschecks_over_the_gaddag_equal_the_graphs(lexicon, gd):  # noqa: F811
    root = gridgen.graph_root(lexicon)
    rng = random.Random("crosscheck")
    made = seen = 0
    tables = [rows for rows, _dealt in self_played(lexicon, seed="xc", partie="X1", rounds=6)[4::2]]
    tables += [_board(rng, lexicon, rng.randrange(6, 14)) for _ in range(8)]
    for t, rows in enumerate(tables):
        rows2, k = _dotted(rows, rng)
        made += k
        for n in (4, 7, 10):
            rack = _rack(rng, n, 1 + (t + n) % 2)
            _lst, count = _same(rows2, rack, root, gd, bool(t % 2))
            seen += count
    assert made > 40 and seen > 2000, (made, seen)

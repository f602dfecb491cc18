"""Crossword move generation: where to put the round's letters, which letter to wish,
which words to list. Used by the simulated players of the demo (``bot/demo.py``); pure.

A grid is judged by :func:`value`: ten times its exact best score (seed 003, section 3,
:func:`bot.games.crossword.engine.best`) plus a small potential, the number of letter
runs in its lines that read forwards or backwards as the start of a word. A ``strength``
between 0 and 1 decides how often a player takes the best field for a letter rather
than a random one.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from bot.games.crossword.engine import best
from bot.games.crossword.grid import EMPTY, LINES, SIZE, Field, Grid

#: Letters a player considers wishing, most useful first (frequent German letters).
WISH_CHOICES = "ENRSTIADHULGOMB"


def potential(grid: Grid, lexicon: Any) -> int:
    """Letter runs of 2 or more in the 14 lines that read (either way) as the start of a
    word of the lexicon (``has_prefix``)."""
    n = 0
    for line in LINES:
        for run in grid.line_text(line).split(EMPTY):
            if len(run) >= 2 and (lexicon.has_prefix(run) or lexicon.has_prefix(run[::-1])):
                n += 1
    return n


def value(grid: Grid, lexicon: Any) -> int:
    """10 x the exact best score plus :func:`potential`."""
    return 10 * best(grid, lexicon).score + potential(grid, lexicon)


def place(grid_rows: Sequence[str], letters: str, lexicon: Any, rng: random.Random,
          strength: float = 1.0) -> list[tuple[str, str]]:
    """A placement of the round's ``letters`` on the grid as ``[(field, letter), ...]``
    (e.g. ``[("B3", "E")]``): letter by letter, each on the field that raises
    :func:`value` most (with probability ``strength``) or on a random empty field.
    Every letter is placed while there is an empty field."""
    grid = Grid(grid_rows)
    out: list[tuple[str, str]] = []
    for ch in sorted(letters, key=lambda c: (c in "AEIOU", c)):
        empty = [Field(r, c) for r in range(SIZE) for c in range(SIZE) if grid.get(Field(r, c)) is None]
        if not empty:
            break
        if rng.random() < strength:
            scored = [(value(grid.place({f: ch}), lexicon), rng.random(), f) for f in empty]
            f = max(scored)[2]
        else:
            f = rng.choice(empty)
        grid = grid.place({f: ch})
        out.append((f.name, ch))
    return out


def wish(grid_rows: Sequence[str], lexicon: Any, rng: random.Random, strength: float = 1.0) -> str:
    """The letter to wish: the one of :data:`WISH_CHOICES` whose best placement raises
    :func:`value` most (with probability ``strength``), else a random frequent letter."""
    if rng.random() >= strength:
        return rng.choice(WISH_CHOICES)
    grid = Grid(grid_rows)
    empty = [Field(r, c) for r in range(SIZE) for c in range(SIZE) if grid.get(Field(r, c)) is None]
    if not empty:
        return rng.choice(WISH_CHOICES)
    sample = rng.sample(empty, min(8, len(empty)))
    scored = [(max(value(grid.place({f: ch}), lexicon) for f in sample), rng.random(), ch) for ch in WISH_CHOICES[:8]]
    return max(scored)[2]


def word_list(grid_rows: Sequence[str], lexicon: Any, rng: random.Random, strength: float = 1.0) -> list[str]:
    """The word list a player sends: the best solution's words (``WORD FROM-TO``), each
    kept with probability ``strength`` (a weaker player overlooks some)."""
    b = best(Grid(grid_rows), lexicon)
    return [w.claim for w in b.words if rng.random() < max(strength, 0.3)]

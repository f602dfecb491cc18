"""Benchmark of Crossword's exact best score (``bot.games.crossword.engine.best``) on
full 6x6 grids of the igerman98 crossword lexicon.

Run: ``python bench/crossword_bench.py``. Prints ``name: value unit`` lines; no figure
is asserted anywhere. Grids: ``GRIDS`` full grids made reproducibly by six simulated
strong players (``bot.games.crossword.movegen``, seed ``bench/<n>``) and as many
random grids of German letter frequencies.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GRIDS = 20


def _print(name: str, value: float, unit: str) -> None:
    print(f"{name}: {value:.3f} {unit}" if isinstance(value, float) else f"{name}: {value} {unit}", flush=True)


def grids(lexicon) -> list:
    from bot.games.crossword import movegen
    from bot.games.crossword.game import WISH_WEIGHTS
    from bot.games.crossword.grid import Field, Grid

    out = []
    for n in range(GRIDS):
        rng = random.Random(f"bench/{n}")
        g = Grid.empty()
        for _ in range(6):
            letters = "".join(movegen.wish(g.rows, lexicon, rng) for _ in range(6))
            g = g.place({Field.parse(f): ch for f, ch in movegen.place(g.rows, letters, lexicon, rng)})
        out.append(("played", g))
    letters = sorted(WISH_WEIGHTS)
    weights = [WISH_WEIGHTS[c] for c in letters]
    for n in range(GRIDS):
        rng = random.Random(f"bench/random/{n}")
        out.append(("random", Grid(["".join(rng.choices(letters, weights=weights, k=6)) for _ in range(6)])))
    return out


def main() -> None:
    from bot.games.crossword.engine import best
    from bot.games import get_game
    from bot.lexicon import load

    lexicon = load("crossword", rules=get_game("crossword").word_rules)
    t0 = time.perf_counter()
    sample = grids(lexicon)
    _print("crossword_grid_setup", time.perf_counter() - t0, "s")
    for kind in ("played", "random"):
        times, scores = [], []
        for k, g in sample:
            if k != kind:
                continue
            t = time.perf_counter()
            b = best(g, lexicon)
            times.append(time.perf_counter() - t)
            scores.append(b.score)
        _print(f"crossword_best_{kind}_median", statistics.median(times) * 1e3, "ms")
        _print(f"crossword_best_{kind}_worst", max(times) * 1e3, "ms")
        _print(f"crossword_best_{kind}_score_mean", statistics.mean(scores), "points")


if __name__ == "__main__":
    main()

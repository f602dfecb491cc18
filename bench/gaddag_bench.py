"""Typ-Dom's phase (b) by anchors against over the GADDAG (issue 35:
docs/development/gaddag-plan.md): the ``--big`` racks of 16 and 19 tiles on position 20
(as ``bench/typdom_bench.py --big`` deals them), both variants; per turn the CPU time of
the whole turn and of phase (b) (``_Seconds.best``), the search steps, and the turn
(which must be the same). Run: ``.venv/bin/python -m bench.gaddag_bench``."""

from __future__ import annotations

import random
import time

from bench.typdom_bench import BIG_EXPECTED, load_average, positions
from bot.games.gaddag import compiled_gaddag_for
from bot.games import _gridcore
from bot.games.typdom import movegen as mg
from bot.games.typdom.movegen import best_turn
from bot.games.typdom.tiles import full_set, sort_rack
from bot.games.typdom.words import WORD_RULES
from bot.lexicon import load


def main() -> None:
    lex = load("typdom", rules=WORD_RULES)
    t = time.process_time()
    groot = compiled_gaddag_for(lex)
    print(f"gaddag_ready: {time.process_time() - t:.2f} s")
    pos = positions(lex, 6)
    rng = random.Random(5)
    letters = [c for c in full_set() if c.isalpha()]
    racks = {}
    for n, jollys in ((12, "?"), (14, "#"), (16, "?#"), (19, "?#")):
        for pi in (5, 20):
            racks[n, pi] = sort_rack(list(jollys) + rng.sample(letters, n - len(jollys)))
    spent = [0.0, 0]
    orig = mg._Seconds.best

    def timed(self, *a):
        t0 = time.process_time()
        s0 = _gridcore.steps()
        try:
            return orig(self, *a)
        finally:
            spent[0] += time.process_time() - t0
            spent[1] += _gridcore.steps() - s0

    mg._Seconds.best = timed
    print(f"load_average: {load_average()}")
    for n in (16, 19):
        rows, rack = pos[20][0], racks[n, 20]
        for variant in ("point", "kreuzwort"):
            for use, memo in ((None, 1), (groot, 1), (groot, 0), (None, 1), (groot, 1), (groot, 0)):
                mg.USE_GADDAG = use is not None
                mg.GADDAG_MEMO = memo
                spent[0], spent[1] = 0.0, 0
                s0 = _gridcore.steps()
                t = time.process_time()
                b = best_turn(rows, rack, lex, variant)
                dt = time.process_time() - t
                got = b.notation if b else "KAUFEN"
                ok = got == BIG_EXPECTED[(n, 20, variant)]
                print(f"{n} {variant:9} {('gaddag' + ' nomemo' * (1 - memo)) if use is not None else 'anchors':13}: turn {dt:.2f} s, "
                      f"phase (b) {spent[0]:.2f} s ({spent[1] / 1e6:.1f} M steps), steps {(_gridcore.steps() - s0) / 1e6:.1f} M, "
                      f"{'same turn' if ok else 'DIFFERENT: ' + got}")
    mg.USE_GADDAG = False
    print(f"load_average_after: {load_average()}")


if __name__ == "__main__":
    main()

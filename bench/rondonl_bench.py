"""Benchmark of RONDO's move search (the best word a hand allows, shown to each mover
after their turn) on the Dutch word list (OpenTaal).

Run: ``python bench/rondonl_bench.py``. Prints ``name: value unit`` lines; nothing is
asserted. Positions come from self-play: a three-player table (``RondoNLRules``, seeds
``bench/1`` .. ``bench/4``) where every mover plays its best word, so rows and hands
are those of real games; for each turn the best-word search is timed (best of 3), also
with the beginners' rule (every card tried face down).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.games import get_game  # noqa: E402
from bot.games.rondo.cards import Row  # noqa: E402
from bot.games.rondonl.engine import best_word  # noqa: E402
from bot.games.rondonl.game import mover, side_of  # noqa: E402
from bot.lexicon import load  # noqa: E402


def positions(lex, tables: int = 4, turns: int = 24) -> list[tuple[Row, str]]:
    game = get_game("rondonl")
    out = []
    for t in range(1, tables + 1):
        st = game.new_partie(seed=f"bench/{t}", partie="T1", players=["1", "2", "3"], options={})
        subs = {}
        for k in st["players"]:
            b = best_word(Row.empty(), st["hands"][k].replace("/", ""), lex)
            subs[k] = [b["notation"]] if b else ["PAS"]
        st = game.adjudicate(st, subs, lex, seed="b", partie="T1").state_after
        for _ in range(turns):
            if st.get("finished"):
                break
            m = mover(st)
            row, hand = Row.from_code(st["row"]), st["hands"][side_of(st, m)]
            out.append((row, hand))
            b = best_word(row, hand, lex)
            st = game.adjudicate(st, {m: [b["notation"]] if b else ["PAS"]}, lex, seed="b",
                                 partie="T1").state_after
    return out


def timed(fn) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    t0 = time.perf_counter()
    lex = load("nl")
    print(f"rondonl_lexicon_load: {1000 * (time.perf_counter() - t0):.1f} ms")
    pos = positions(lex)
    plain = [timed(lambda r=r, h=h: best_word(r, h, lex)) * 1000 for r, h in pos]
    beg = [timed(lambda r=r, h=h: best_word(r, h, lex, beginners=True)) * 1000 for r, h in pos]
    print(f"rondonl_positions: {len(pos)} turns")
    print(f"rondonl_best_word_median: {statistics.median(plain):.1f} ms")
    print(f"rondonl_best_word_worst: {max(plain):.1f} ms")
    print(f"rondonl_best_word_beginners_median: {statistics.median(beg):.1f} ms")
    print(f"rondonl_best_word_beginners_worst: {max(beg):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

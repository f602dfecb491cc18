"""Benchmark of the Typ-Dom race variants on the whole ``typdom`` lexicon.

Run: ``python bench/race_bench.py [--deals N] [--no-compare] [--presto-only]``. Prints ``name: value unit`` lines; no
figure is asserted anywhere.

- Presto: the existence search (``bot.games.typdom.search.find_crossword``) for every set
  of ``N`` deals (seeds ``bench/<n>``) at 4, 5 and 6 players (12 + 7, 10 + 6, 8 + 5
  tiles): median and worst CPU time, steps, and how many sets got a crossword, a proof that
  none exists, or no answer within the step budget; then (unless ``--no-compare``) the
  pure-Python reference on the same sets and the ratios (issue 25); the load average
  before and after. A full garbage collection runs before the timing (the first one
  after loading walks the word graph's dicts and would land in one set's time).
- "Wer behält recht?": three simulated players (``bot.games.typdom.wbrgen``) play games
  of at most 60 turns; the median and worst time to find a player's turns and to
  adjudicate a turn.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _print(name: str, value, unit: str) -> None:
    print(f"{name}: {value:.3f} {unit}" if isinstance(value, float) else f"{name}: {value} {unit}", flush=True)


def presto(lexicon, deals: int, compare: bool = True) -> None:
    """Per player count: the compiled search (CPU time), then with ``compare`` the
    pure-Python reference (``search.reference_spellings``) as its own pass over the same
    sets; the ratios of the medians, worsts and totals; sets with a different answer."""
    from bot.games.typdom import search
    from bot.games.typdom.deal import deal
    from bot.games.typdom.presto_game import SETS
    from bot.games.typdom.search import find_crossword
    from bot.games import _gridcore
    from bot.wordgraph import graph_for
    _gridcore.compiled_graph(graph_for(lexicon).root)  # the flat-array graph built before timing
    # the first full collection after loading walks the word graph's dicts (some 25 ms):
    # done before timing, as it is once per process, not per search
    gc.collect()
    _print("load_average_before", os.getloadavg()[0], "")
    all_c, all_r, diff = [], [], 0
    for n, (black, red) in SETS.items():
        times, steps, status = [], [], {"found": 0, "none": 0, "open": 0}
        sets = []
        for d in range(deals):
            racks, _ = deal(f"bench/{d}", "P1", [str(i) for i in range(n)], black, red)
            sets += list(racks.values())
        answers = []
        for rack in sets:
            t = time.process_time()
            proof = find_crossword(rack, lexicon)
            times.append(time.process_time() - t)
            steps.append(proof.steps)
            status[proof.status] += 1
            answers.append(proof.to_json())
        _print(f"presto_{n}p_search_median", statistics.median(times) * 1e3, "ms")
        _print(f"presto_{n}p_search_worst", max(times) * 1e3, "ms")
        _print(f"presto_{n}p_steps_median", int(statistics.median(steps)), "steps")
        for k, v in status.items():
            _print(f"presto_{n}p_sets_{k}", v, "sets")
        all_c += times
        if compare:
            ref = []
            with search.reference_spellings():
                for rack, answer in zip(sets, answers):
                    t = time.process_time()
                    proof = find_crossword(rack, lexicon)
                    ref.append(time.process_time() - t)
                    diff += proof.to_json() != answer
            all_r += ref
            _print(f"presto_{n}p_reference_median", statistics.median(ref) * 1e3, "ms")
            _print(f"presto_{n}p_reference_worst", max(ref) * 1e3, "ms")
            _print(f"presto_{n}p_speedup_median", statistics.median(ref) / statistics.median(times), "x")
    if compare:
        _print("presto_speedup_total", sum(all_r) / sum(all_c), "x")
        _print("presto_speedup_worst_to_worst", max(all_r) / max(all_c), "x")
        ratios = sorted(r / c for r, c in zip(all_r, all_c))
        _print("presto_speedup_per_set_median", statistics.median(ratios), "x")
        _print("presto_speedup_per_set_min", ratios[0], "x")
        _print("presto_different_answers", diff, "sets")
    _print("load_average_after", os.getloadavg()[0], "")


def wbr(lexicon, games: int) -> None:
    from bot.games import get_game
    from bot.games.typdom import wbrgen
    words = sorted(w for w in lexicon.words() if 2 <= len(w) <= 7)
    game = get_game("typdom-wbr")
    find, judge, turns = [], [], 0
    for g in range(games):
        st = game.new_partie(seed=f"bench/{g}", partie="W1", players=["a", "b", "c"], options={"rounds": 60})
        while not st["finished"]:
            mover = st["mover"]
            t = time.perf_counter()
            lines = wbrgen.turns(st, mover, lexicon, words, limit=3)
            find.append(time.perf_counter() - t)
            lines = lines or ["KAUFEN" if st["duty"] != "after_buy" and st["pool"] else "PASSE"]
            t = time.perf_counter()
            st = game.adjudicate(st, {mover: lines}, lexicon, seed=f"bench/{g}", partie="W1").state_after
            judge.append(time.perf_counter() - t)
            turns += 1
    _print("wbr_turns", turns, "turns")
    _print("wbr_find_turns_median", statistics.median(find), "s")
    _print("wbr_find_turns_worst", max(find), "s")
    _print("wbr_adjudicate_median", statistics.median(judge), "s")
    _print("wbr_adjudicate_worst", max(judge), "s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=5)
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--no-compare", action="store_true", help="Presto: skip the reference pass")
    ap.add_argument("--presto-only", action="store_true")
    args = ap.parse_args()
    from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES  # the typdom list's build layer
    from bot.lexicon import load
    t = time.perf_counter()
    lexicon = load("typdom", rules=TYPDOM_RULES)
    from bot.wordgraph import graph_for
    graph_for(lexicon)
    _print("lexicon_and_graph_load", time.perf_counter() - t, "s")
    presto(lexicon, args.deals, not args.no_compare)
    if not args.presto_only:
        wbr(lexicon, args.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the project: the shared lexicon, then Rondo move generation.

Run: ``python bench/run.py`` (``--regenerate`` rebuilds the fixed Rondo position set).
Prints ``name: value unit`` lines; no figure is asserted anywhere.

Rondo: a fixed set of positions (``bench/rondo_positions.json``), made reproducibly by
self-play (``RondoRules().new_partie(seed, partie)``, then every round adjudicated with the
best move as the only submission). For each position the time to list every valid move
(``list(generate_moves(position, lexicon))``) is measured; the best of ``REPEAT`` runs counts.
Issue 25: the compiled listing (``list_moves``, raw records) on the same positions and the
ratio of the totals (the move sets are compared in ``bench/rondonl_bench.py`` and the tests).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

POSITIONS_FILE = HERE / "rondo_positions.json"
SELF_PLAY = [("bench", "R1"), ("bench", "R2"), ("bench", "R3")]   # 3 Partien x 20 rounds = 60 positions
REPEAT = 3


def _print(name: str, value: float, unit: str) -> None:
    integral = isinstance(value, int) or float(value).is_integer()
    shown = f"{value:.0f}" if integral or unit in ("1/s", "words") or abs(value) >= 1000 else f"{value:.3f}"
    print(f"{name}: {shown} {unit}", flush=True)


def make_positions(lexicon) -> list[dict]:
    """Self-play positions: one per round of each Partie in :data:`SELF_PLAY`."""
    from bot.games.rondo.game import RondoRules

    rules = RondoRules()
    positions = []
    for seed, partie in SELF_PLAY:
        state = rules.new_partie(seed=seed, partie=partie)
        while True:
            positions.append({"seed": seed, "partie": partie, "round": state["round"], "row": state["row"],
                              "vorgabe": state["vorgabe"]})
            top = rules.top(state, lexicon)
            report = rules.adjudicate(state, {"bench": [top["notation"]] if top else None}, lexicon,
                                      seed=seed, partie=partie)
            state = report.state_after
            if state["finished"]:
                break
    return positions


def load_positions(lexicon, regenerate: bool = False) -> list[dict]:
    if POSITIONS_FILE.exists() and not regenerate:
        return json.loads(POSITIONS_FILE.read_text(encoding="utf-8"))["positions"]
    positions = make_positions(lexicon)
    POSITIONS_FILE.write_text(json.dumps({
        "about": "Rondo benchmark positions: self-play of RondoRules (best move only), see bench/run.py",
        "self_play": SELF_PLAY, "positions": positions}, indent=1) + "\n", encoding="utf-8")
    return positions


def rondo_bench(regenerate: bool = False) -> dict:
    from bot.games.rondo.engine import Position
    from bot.games.rondo.movegen import generate_moves
    from bot.lexicon import load

    results: dict[str, tuple[float, str]] = {}
    t = time.perf_counter()
    lexicon = load("rondo")
    results["rondo_lexicon_load"] = ((time.perf_counter() - t) * 1e3, "ms")
    positions = load_positions(lexicon, regenerate)
    times, counts = [], []
    for p in positions:
        position = Position.from_codes(p["row"], p["vorgabe"], p["round"])
        best = None
        for _ in range(REPEAT):
            t = time.perf_counter()
            moves = list(generate_moves(position, lexicon))
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        times.append(best)
        counts.append(len(moves))
    # issue 25: the compiled listing (list_moves) on the same positions, and the ratio
    from bot.games import _gridcore
    from bot.games.rondo.movegen import list_moves
    from bot.wordgraph import graph_for
    _gridcore.compiled_graph(graph_for(lexicon).root)
    fast = []
    for p in positions:
        position = Position.from_codes(p["row"], p["vorgabe"], p["round"])
        best = None
        for _ in range(REPEAT):
            t = time.perf_counter()
            list_moves(position, lexicon)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        fast.append(best)
    results["rondo_list_moves_median"] = (statistics.median(fast) * 1e3, "ms")
    results["rondo_list_moves_worst"] = (max(fast) * 1e3, "ms")
    results["rondo_list_moves_speedup_total"] = (sum(times) / sum(fast), "x (generate_moves / list_moves)")
    total = sum(times)
    worst = max(range(len(times)), key=times.__getitem__)
    results["rondo_positions"] = (len(positions), "positions")
    results["rondo_generate_median"] = (statistics.median(times) * 1e3, "ms")
    results["rondo_generate_mean"] = (statistics.mean(times) * 1e3, "ms")
    results["rondo_generate_worst"] = (times[worst] * 1e3,
                                       f"ms (row {positions[worst]['row']} vorgabe {positions[worst]['vorgabe']}"
                                       f" round {positions[worst]['round']}, {counts[worst]} moves)")
    results["rondo_moves_per_second"] = (sum(counts) / total if total else 0.0, "1/s")
    results["rondo_moves_per_position_mean"] = (statistics.mean(counts), "moves")
    results["rondo_moves_per_position_max"] = (max(counts), "moves")
    results["rondo_positions_without_move"] = (sum(1 for c in counts if c == 0), "positions")
    return results


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    t0 = time.perf_counter()
    import lexicon_bench

    for name, (value, unit) in lexicon_bench.run().items():
        _print(f"lexicon_{name}", value, unit)
    for name, (value, unit) in rondo_bench(regenerate="--regenerate" in argv).items():
        _print(name, value, unit)
    _print("bench_total", time.perf_counter() - t0, "s")


if __name__ == "__main__":
    main()

"""Benchmark of the Monoscrabble move generator (bot/games/monoscrabble/movegen.py).

Positions: ``bench/monoscrabble_positions.json``, made by self-play (``--regenerate``):
a seeded shuffle of the 102 German tiles, a rack of 7 then refilled to 8, the best move
played each turn, the board cleared and a new bag started when fewer than 8 tiles are
left in the bag.  Each position keeps its board rows, rack and the top score found when
it was made.

Measures: graph build time (fresh, in a temporary directory), graph load time from the
disk cache, RSS after loading; per position the CPU time of ``best_move`` with the
compiled search core and with the pure-Python reference (``gridgen.reference_search``)
on the same positions, graph loaded (checking the score against the saved one and the
two moves against each other, printing mismatches), median, p95 and worst, and the
ratios (issue 25: at least 10x at the median, 20x at p95, worst under 10 ms); moves per
second of ``count_moves`` over all positions.

Run: ``python bench/monoscrabble_bench.py [--regenerate] [--positions N] [--no-reference]``.  Prints
``name: value unit`` lines; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot import wordgraph  # noqa: E402
from bot.games import gridgen  # noqa: E402
from bot.games.monoscrabble import movegen  # noqa: E402
from bot.lexicon import default_cache_dir, load  # noqa: E402

POSITIONS = Path(__file__).resolve().parent / "monoscrabble_positions.json"
SEED = 20240601

#: The 102 German tiles: letter, count ("?" = Blanko).
TILE_COUNTS = {
    "E": 15, "N": 9, "S": 7, "I": 6, "R": 6, "T": 6, "U": 6, "A": 5, "D": 4,
    "H": 4, "G": 3, "L": 3, "O": 3, "M": 4, "B": 2, "W": 1, "Z": 1, "C": 2, "F": 2,
    "K": 2, "P": 1, "Ä": 1, "J": 1, "Ü": 1, "V": 1, "Ö": 1, "X": 1, "Q": 1, "Y": 1,
    "?": 2,
}
assert sum(TILE_COUNTS.values()) == 102


def _p95(sorted_values: list[float]) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * 0.95))]


def _rss_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def self_play(lexicon, n_positions: int, seed: int = SEED) -> list[dict]:
    """Positions from self-played games (see module doc), ``n_positions`` of them."""
    rng = random.Random(seed)
    out: list[dict] = []

    def new_bag():
        bag = [ch for ch, n in TILE_COUNTS.items() for _ in range(n)]
        rng.shuffle(bag)
        return bag

    bag = new_bag()
    board = [["."] * 15 for _ in range(15)]
    rack: list[str] = [bag.pop() for _ in range(7)]
    game = 0
    while len(out) < n_positions:
        rows = ["".join(r) for r in board]
        rack_s = "".join(rack)
        m = movegen.best_move(rows, rack_s, lexicon)
        out.append({"game": game, "board": rows, "rack": rack_s,
                    "top": None if m is None else m.score,
                    "move": None if m is None else
                    f"{m.row},{m.col},{m.direction},{m.word}"})
        if m is not None:
            for r, c, ch, isb in m.tiles:
                board[r - 1][c - 1] = ch.lower() if isb else ch
                rack.remove("?" if isb else ch)
        if m is None or len(bag) < 8:  # fewer than 8 left (or stuck): clear, new bag
            bag = new_bag()
            board = [["."] * 15 for _ in range(15)]
            rack = [bag.pop() for _ in range(7)]
            game += 1
            continue
        while len(rack) < 8:
            rack.append(bag.pop())
    return out


_CHILD = r"""
import json, time
from bench.monoscrabble_bench import _rss_mib
from bot import wordgraph
from bot.lexicon import load
lex = load("monoscrabble")
rss0 = _rss_mib()
t0 = time.perf_counter()
wordgraph.graph_for(lex)
ms = (time.perf_counter() - t0) * 1e3
print(json.dumps({"load_ms": ms, "rss0": rss0, "rss1": _rss_mib()}))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--positions", type=int, default=120)
    ap.add_argument("--no-reference", action="store_true", help="skip the pure-Python reference timings")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    lex = load("monoscrabble")
    print(f"lexicon_load: {(time.perf_counter() - t0) * 1e3:.1f} ms")
    print(f"lexicon_words: {len(lex)} words")

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        g = wordgraph.WordGraph(wordgraph.build(lex.words()), "x")
        print(f"graph_build: {time.perf_counter() - t0:.2f} s")
        print(f"graph_nodes: {g.node_count()} nodes")
        wordgraph.save(g, Path(tmp) / "g.dawg")
        print(f"graph_file: {(Path(tmp) / 'g.dawg').stat().st_size / 1024:.0f} KiB")
        del g
    wordgraph.graph_for(lex)  # make sure the disk cache exists
    child = json.loads(subprocess.run([sys.executable, "-c", _CHILD], check=True,
                                      stdout=subprocess.PIPE, text=True, cwd=ROOT).stdout)
    print(f"graph_load: {child['load_ms']:.1f} ms (fresh process, from "
          f"{default_cache_dir()}, content hash checked)")
    print(f"rss_lexicon_only: {child['rss0']:.1f} MiB (fresh process)")
    print(f"rss_after_graph_load: {child['rss1']:.1f} MiB "
          f"(graph: +{child['rss1'] - child['rss0']:.1f} MiB)")

    if args.regenerate or not POSITIONS.exists():
        t0 = time.perf_counter()
        pos = self_play(lex, args.positions)
        POSITIONS.write_text(json.dumps(pos, ensure_ascii=False, indent=0) + "\n",
                             encoding="utf-8")
        print(f"regenerated: {len(pos)} positions in {time.perf_counter() - t0:.1f} s")
    pos = json.loads(POSITIONS.read_text(encoding="utf-8"))
    print(f"positions: {len(pos)}")

    # CPU time per position, graph loaded: the compiled core (what best_move runs) and
    # the pure-Python reference (gridgen.reference_search) on the same positions
    movegen.best_move(pos[0]["board"], pos[0]["rack"], lex)  # graph converted once
    times, ref_times, moves = [], [], []
    mism = 0
    for i, p in enumerate(pos):
        t0 = time.process_time()
        m = movegen.best_move(p["board"], p["rack"], lex)
        times.append(time.process_time() - t0)
        moves.append(m)
        got = None if m is None else m.score
        if got != p["top"]:
            mism += 1
            print(f"MISMATCH position {i}: expected {p['top']}, got {got}")
    if not args.no_reference:  # a second pass: each implementation runs with its own caches warm
        with gridgen.reference_search():
            for i, p in enumerate(pos):
                t0 = time.process_time()
                r = movegen.best_move(p["board"], p["rack"], lex)
                ref_times.append(time.process_time() - t0)
                if r != moves[i]:
                    mism += 1
                    print(f"MISMATCH position {i}: reference {r}, compiled {moves[i]}")
    times_ms = sorted(t * 1e3 for t in times)
    worst = max(range(len(times)), key=times.__getitem__)
    print(f"mismatches: {mism}")
    print(f"best_move_median: {statistics.median(times_ms):.3f} ms (CPU)")
    print(f"best_move_p90: {times_ms[int(len(times_ms) * 0.9)]:.3f} ms")
    print(f"best_move_p95: {_p95(times_ms):.3f} ms")
    print(f"best_move_worst: {times_ms[-1]:.3f} ms (position {worst}, rack "
          f"{pos[worst]['rack']})")
    print(f"best_move_total: {sum(times_ms) / 1e3:.3f} s")
    if ref_times:
        ref_ms = sorted(t * 1e3 for t in ref_times)
        ratios = sorted(r / max(c, 1e-9) for r, c in zip(ref_times, times))
        print(f"reference_median: {statistics.median(ref_ms):.2f} ms (pure Python, same positions)")
        print(f"reference_p95: {_p95(ref_ms):.2f} ms")
        print(f"reference_worst: {ref_ms[-1]:.2f} ms")
        print(f"speedup_median: {statistics.median(ref_ms) / statistics.median(times_ms):.1f}x "
              f"(reference median / compiled median)")
        print(f"speedup_p95: {_p95(ref_ms) / _p95(times_ms):.1f}x (reference p95 / compiled p95)")
        print(f"speedup_worst: {ref_ms[-1] / times_ms[-1]:.1f}x")
        print(f"speedup_per_position: median {statistics.median(ratios):.1f}x, min {ratios[0]:.1f}x")

    total = 0
    t0 = time.perf_counter()
    for p in pos:
        total += movegen.count_moves(p["board"], p["rack"], lex)
    dt = time.perf_counter() - t0
    print(f"moves_total: {total} moves")
    print(f"moves_per_second: {total / dt:.0f} moves/s")
    print(f"rss_end: {_rss_mib():.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

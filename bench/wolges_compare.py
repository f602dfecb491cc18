"""Monoscrabble's top move against wolges (Rust, github.com/andy-k/wolges).

wolges runs through the driver in ``bench/wolges/`` (built from source, see its
README.md; CI has no cargo, so this bench is never part of the tests).  Without the
driver the bench says so and exits 0.

Positions: ``bench/monoscrabble_positions.json`` (self-play, see
``bench/monoscrabble_bench.py``), or ``--self-play N`` fresh self-played positions with
the same seed.  Word list: the project's ``monoscrabble`` lexicon, exported to a word
file from which the driver builds wolges' KWG (once per run, in a temporary directory).

Per position: the CPU time of the best-move search, ``--passes`` times (default 5,
the passes of wolges and of the project alternating, so both see the same load), the
median of the passes; for wolges the driver measures it (CLOCK_PROCESS_CPUTIME_ID
around ``gen_moves_unfiltered`` with max_gen 1, no leave values, no exchanges), for the
project ``time.process_time`` around ``monoscrabble.movegen.best_move`` (the whole
call: parsing, search, the GenMove).  Prints median, p95 and worst for both, the
ratios, the per-position ratio, the machine's load average before and after, and every
position where the best scores differ (there should be none).

Run: ``python bench/wolges_compare.py [--driver PATH] [--self-play N] [--passes K]
[--fresh]``.  ``--fresh``: wolges gets a new generator per position (no cross-sets
carried over from the position before).  Prints ``name: value`` lines; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.monoscrabble_bench import POSITIONS, _p95, self_play  # noqa: E402
from bot.games.monoscrabble import movegen  # noqa: E402
from bot.lexicon import load  # noqa: E402

DRIVER = ROOT / "bench" / "wolges" / "target" / "release" / "wolges-monoscrabble"


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", type=Path, default=Path(os.environ.get("WOLGES_MONO", DRIVER)))
    ap.add_argument("--self-play", type=int, default=0, metavar="N")
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--fresh", action="store_true")
    args = ap.parse_args(argv)
    if not args.driver.is_file():
        print(f"wolges: skipped (driver not built: {args.driver}; see bench/wolges/README.md)")
        return 0

    lex = load("monoscrabble")
    if args.self_play:
        pos = self_play(lex, args.self_play)
    else:
        pos = json.loads(POSITIONS.read_text(encoding="utf-8"))
    print(f"positions: {len(pos)}")
    print(f"load_before: {_load()}")

    with tempfile.TemporaryDirectory() as tmp:
        words, kwg, plist = Path(tmp) / "words.txt", Path(tmp) / "lex.kwg", Path(tmp) / "pos.txt"
        words.write_text("\n".join(sorted(lex.words())) + "\n", encoding="utf-8")
        subprocess.run([args.driver, "build", words, kwg], check=True, capture_output=True)
        plist.write_text("".join("/".join(p["board"]) + " " + p["rack"] + "\n" for p in pos),
                         encoding="utf-8")
        cmd = [args.driver, "time", kwg, plist, "--passes", "1"]
        if args.fresh:
            cmd.append("--fresh")
        # the passes alternate (wolges, then the project) so that both see the same load
        movegen.best_move(pos[0]["board"], pos[0]["rack"], lex)  # graph converted once
        w_times: list[list[float]] = [[] for _ in pos]
        w_score: list = [None] * len(pos)
        times: list[list[float]] = [[] for _ in pos]
        scores: list = [None] * len(pos)
        for _ in range(args.passes):
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                k, sc, *ns = line.split()
                w_score[int(k)] = None if sc == "null" else int(sc)
                w_times[int(k)].extend(int(x) / 1e6 for x in ns)
            for i, p in enumerate(pos):
                t0 = time.process_time()
                m = movegen.best_move(p["board"], p["rack"], lex)
                times[i].append(time.process_time() - t0)
                scores[i] = None if m is None else m.score
    w_ms = [statistics.median(t) for t in w_times]
    o_ms = [statistics.median(t) * 1e3 for t in times]
    print(f"load_after: {_load()}")

    diff = [i for i in range(len(pos)) if scores[i] != w_score[i]]
    for i in diff:
        print(f"SCORE DIFFERS position {i}: spielleiter {scores[i]}, wolges {w_score[i]}")
    print(f"same_best_score: {len(pos) - len(diff)} of {len(pos)}")
    so, sw = sorted(o_ms), sorted(w_ms)
    for name, a, b in (("median", statistics.median(so), statistics.median(sw)),
                       ("p95", _p95(so), _p95(sw)), ("worst", so[-1], sw[-1])):
        print(f"{name}: spielleiter {a:.3f} ms, wolges {b:.3f} ms, ratio {a / b:.2f}x")
    ratios = sorted(o / max(w, 1e-6) for o, w in zip(o_ms, w_ms))
    worst = max(range(len(pos)), key=lambda i: o_ms[i] / max(w_ms[i], 1e-6))
    print(f"per_position_ratio: median {statistics.median(ratios):.2f}x, p95 {_p95(ratios):.2f}x, "
          f"max {ratios[-1]:.2f}x (position {worst}: {o_ms[worst]:.3f} ms vs "
          f"{w_ms[worst]:.3f} ms, rack {pos[worst]['rack']})")
    print(f"total: spielleiter {sum(o_ms):.1f} ms, wolges {sum(w_ms):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark of RONDO's move search (the best word a hand allows, shown to each mover
after their turn) on the Dutch word list (OpenTaal).

Run: ``python bench/rondonl_bench.py``. Prints ``name: value unit`` lines; nothing is
asserted. Positions come from self-play: a three-player table (``RondoNLRules``, seeds
``bench/1`` .. ``bench/4``) where every mover plays its best word, so rows and hands
are those of real games; for each turn the best-word search is timed (best of 3, CPU
time), also with the beginners' rule (every card tried face down).

Issue 25: the same turns again with the pure-Python listing (``reference_listing``) and
the ratios; the answers compared. Then Rondo's move listing on
``bench/rondo_positions.json`` (German list): the compiled ``list_moves`` against the
reference ``generate_moves``, the move sets compared.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.games import _gridcore, get_game  # noqa: E402
from bot.games.rondo.cards import Row  # noqa: E402
from bot.games.rondo.movegen import reference_listing  # noqa: E402
from bot.games.rondonl.engine import best_word  # noqa: E402
from bot.games.rondonl.seats import mover, side_of  # noqa: E402
from bot.lexicon import load  # noqa: E402
from bot.wordgraph import graph_for  # noqa: E402


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
    """Best of 3, CPU time."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def _ratios(name: str, comp: list[float], ref: list[float]) -> None:
    per = sorted(r / c for r, c in zip(ref, comp) if c > 0)
    print(f"{name}_reference_median: {statistics.median(ref):.2f} ms, worst {max(ref):.1f} ms")
    print(f"{name}_speedup_median: {statistics.median(ref) / statistics.median(comp):.1f}x, worst-to-worst "
          f"{max(ref) / max(comp):.1f}x, total {sum(ref) / sum(comp):.1f}x, per position median "
          f"{statistics.median(per):.1f}x, min {per[0]:.1f}x")


def rondo_listing() -> None:
    """Rondo's move listing on ``bench/rondo_positions.json`` (the German list): the
    compiled ``list_moves`` against the reference ``generate_moves``, same positions,
    each as its own pass; the moves compared as sets."""
    import json

    from bot.games.rondo.engine import Position
    from bot.games.rondo.movegen import generate_moves, list_moves
    lex = load("rondo")
    _gridcore.compiled_graph(graph_for(lex).root)
    data = json.loads((ROOT / "bench" / "rondo_positions.json").read_text(encoding="utf-8"))["positions"]
    pos = [Position.from_codes(p["row"], p["vorgabe"], p["round"]) for p in data]
    comp = [timed(lambda p=p: list_moves(p, lex)) * 1000 for p in pos]
    ref = [timed(lambda p=p: list(generate_moves(p, lex))) * 1000 for p in pos]
    diff = 0
    for p in pos:
        a = sorted(tuple(r) for r in list_moves(p, lex))
        b = sorted((o.score, o.row.code, o.move.cards, o.field, o.word, o.bonus, o.new_cards, o.new_loescher)
                   for o in generate_moves(p, lex))
        diff += a != b
    print(f"rondo_listing_positions: {len(pos)} (bench/rondo_positions.json), different move sets: {diff}")
    print(f"rondo_listing_median: {statistics.median(comp):.3f} ms, worst {max(comp):.2f} ms")
    _ratios("rondo_listing", comp, ref)


def main() -> int:
    t0 = time.perf_counter()
    lex = load("nl")
    print(f"rondonl_lexicon_load: {1000 * (time.perf_counter() - t0):.1f} ms")
    _gridcore.compiled_graph(graph_for(lex).root)  # the word graph built before timing
    pos = positions(lex)
    plain = [timed(lambda r=r, h=h: best_word(r, h, lex)) * 1000 for r, h in pos]
    beg = [timed(lambda r=r, h=h: best_word(r, h, lex, beginners=True)) * 1000 for r, h in pos]
    print(f"rondonl_positions: {len(pos)} turns")
    print(f"rondonl_best_word_median: {statistics.median(plain):.2f} ms")
    print(f"rondonl_best_word_worst: {max(plain):.1f} ms")
    print(f"rondonl_best_word_beginners_median: {statistics.median(beg):.2f} ms")
    print(f"rondonl_best_word_beginners_worst: {max(beg):.1f} ms")
    with reference_listing():
        plain_r = [timed(lambda r=r, h=h: best_word(r, h, lex)) * 1000 for r, h in pos]
        beg_r = [timed(lambda r=r, h=h: best_word(r, h, lex, beginners=True)) * 1000 for r, h in pos]
    diff = 0
    for r, h in pos:
        for b in (False, True):
            got = best_word(r, h, lex, beginners=b)
            with reference_listing():
                diff += got != best_word(r, h, lex, beginners=b)
    print(f"rondonl_different_answers: {diff} (of {2 * len(pos)})")
    _ratios("rondonl_best_word", plain, plain_r)
    _ratios("rondonl_best_word_beginners", beg, beg_r)
    rondo_listing()
    return 0


if __name__ == "__main__":
    sys.exit(main())

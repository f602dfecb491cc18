"""Benchmark of the Typ-Dom turn generator (bot/games/typdom/movegen.py).

Positions come from self-play, made fresh each run (seeded, so every run measures the
same positions): a Typ-Dom Partie of four players (8 black + 5 red tiles each, the
seed's 80 tiles) in which every player plays the best single placement of their rack
by Point-Typ-Dom values (or buys a tile), until a player is out or 12 rounds are played.
Each position is a player's table and rack at their turn.

Measures: lexicon load and word-graph build/load; per position the time to list every
single placement (``placements``) and the CPU time of the best turn (``best_turn``:
single placements, second placements, Jolly takes; exhaustive in both variants), median
and worst, split by racks with and without a Jolly; placements per second; the slowest
position (index and rack).

Issue 25 (compiled search core): ``--compare K`` also times the pure-Python reference
(``gridgen.reference_search``) on every K-th position (default 1, all of them; 0: none)
and prints the ratio of the medians, checking both give the same turn. (The default was
4 until 2026-11-27: with four players and the seats in order, every 4th position is the
same seat's, and seat 0 is the round's winner, so that sample held the empty opening
tables and racks of 1-7 tiles, 0.1 ms turns, not the bench's ordinary positions.) Two methods, both printed
(issue 35): ``compare_*`` is the old one, each position once, the compiled turn timed
right after the previous position's reference turn (so it runs with the caches the
reference filled); ``compare_passes_*`` times each implementation in passes of its own
over the compared positions, ``--repeat R`` passes each (default 5; compiled and
reference passes alternate, which goes first alternating too), and takes per position
the median of its R times, for both alike; the printed medians are over positions.
``--big`` times racks of
12-19 tiles with Jollys on self-played tables (the compiled core only: the reference
takes minutes there) and a 10 + 8 Point-Typ-Dom round adjudicated with the best turns
(``game.adjudicate(..., best=True)``).

Run: ``python bench/typdom_bench.py [--games N] [--variant point|kreuzwort] [--compare K]
[--repeat R] [--big]`` (default 6 games, 84 positions). Prints ``name: value unit`` lines; asserts
nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot import wordgraph  # noqa: E402
from bot.games import get_game, gridgen  # noqa: E402
from bot.games.typdom.movegen import best_turn, gen_notation, placements  # noqa: E402
from bot.lexicon import load  # noqa: E402
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES  # the typdom list's build layer


def positions(lexicon, games: int) -> list[tuple[list[str], str]]:
    game = get_game("typdom")
    out = []
    for g in range(games):
        st = game.new_partie(seed="bench", partie=f"B{g}", options={"variant": "point"}, players=["a", "b", "c", "d"])
        for _ in range(12):
            subs = {}
            for p in st["seat_order"]:
                out.append((list(st["board"]), st["racks"][p]))
                ms = placements(st["board"], st["racks"][p], lexicon)
                best = max(ms, key=lambda m: (m.score, len(m.tiles)), default=None)
                subs[p] = [gen_notation(best, st["board"])] if best else ["KAUFEN"]
            st = game.adjudicate(st, subs, lexicon, seed="bench", partie=f"B{g}", best=False).state_after
            if st["finished"]:
                break
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--variant", default="point")
    ap.add_argument("--compare", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--gaddag", action="store_true", help="(the default now: the listing and phase (b) over the GADDAG)")
    ap.add_argument("--anchors", action="store_true", help="the listing and phase (b) by anchors, never over the GADDAG")
    args = ap.parse_args()
    print(f"load_average: {load_average()} (1 / 5 / 15 min; 2 shared cores)")
    t = time.perf_counter()
    lex = load("typdom", rules=TYPDOM_RULES)
    print(f"lexicon_load: {(time.perf_counter() - t) * 1000:.1f} ms")
    t = time.perf_counter()
    wordgraph.graph_for(lex)
    print(f"graph_ready: {time.perf_counter() - t:.2f} s")
    from bot.games.typdom import movegen as mg
    if args.anchors:
        mg.USE_GADDAG = False
        print("gaddag: off (the listing and phase (b) by anchors)")
    else:
        from bot.games.gaddag import prepare

        st = prepare(lex)  # (as `spielleiter lexicon build` does; the turns only load it)
        mg.USE_GADDAG = True
        print(f"gaddag_ready: {st['seconds']:.2f} s CPU ({'built' if st['built'] else 'file current'}, "
              f"{st['nodes']} nodes; the listing and phase (b) over the GADDAG)")
    t = time.perf_counter()
    pos = positions(lex, args.games)
    print(f"positions: {len(pos)} (self-play {time.perf_counter() - t:.1f} s)")
    list_t, best_t, jolly_t, plain_t, n_moves = [], [], [], [], 0
    for rows, rack in pos:
        t = time.perf_counter()
        n_moves += len(placements(rows, rack, lex))
        list_t.append(time.perf_counter() - t)
        t = time.process_time()
        best_turn(rows, rack, lex, args.variant)
        dt = time.process_time() - t
        best_t.append(dt)
        (jolly_t if ("?" in rack or "#" in rack) else plain_t).append(dt)
    print(f"placements_median: {statistics.median(list_t) * 1000:.1f} ms")
    print(f"placements_worst: {max(list_t) * 1000:.1f} ms")
    print(f"placements_per_second: {n_moves / sum(list_t):.0f} moves/s")
    print(f"best_turn_cpu_median: {statistics.median(best_t) * 1000:.1f} ms")
    print(f"best_turn_cpu_worst: {max(best_t) * 1000:.1f} ms")
    if plain_t:
        print(f"best_turn_cpu_median_no_jolly: {statistics.median(plain_t) * 1000:.1f} ms ({len(plain_t)} racks)")
        print(f"best_turn_cpu_worst_no_jolly: {max(plain_t) * 1000:.1f} ms")
    if jolly_t:
        print(f"best_turn_cpu_median_with_jolly: {statistics.median(jolly_t) * 1000:.1f} ms ({len(jolly_t)} racks)")
        print(f"best_turn_cpu_worst_with_jolly: {max(jolly_t) * 1000:.1f} ms")
    worst = max(range(len(pos)), key=lambda i: best_t[i])
    print(f"best_turn_slowest: position {worst}, rack {pos[worst][1]}")
    if args.compare:
        compare(lex, pos, args.variant, args.compare)
        compare_passes(lex, pos, args.variant, args.compare, max(1, args.repeat))
    if args.big:
        big(lex, pos)


def compare(lex, pos, variant: str, every: int) -> None:
    """The compiled core against the pure-Python reference on every ``every``-th position,
    each once, the compiled turn right after the previous position's reference turn (the
    method before issue 35: the compiled turn pays for the caches the reference turn
    filled)."""
    comp, ref, diff = [], [], 0
    for rows, rack in pos[::every]:
        t = time.process_time()
        a = best_turn(rows, rack, lex, variant)
        comp.append(time.process_time() - t)
        with gridgen.reference_search():
            t = time.process_time()
            b = best_turn(rows, rack, lex, variant)
            ref.append(time.process_time() - t)
        diff += (a and a.to_json()) != (b and b.to_json())
    cm, rm = statistics.median(comp), statistics.median(ref)
    print(f"compare_positions: {len(comp)} (every {every}th), different turns: {diff}")
    print(f"compare_compiled_median: {cm * 1000:.2f} ms, worst {max(comp) * 1000:.1f} ms")
    print(f"compare_reference_median: {rm * 1000:.2f} ms, worst {max(ref) * 1000:.1f} ms")
    print(f"compare_speedup_median: {rm / cm:.1f}x, worst-to-worst {max(ref) / max(comp):.1f}x, "
          f"total {sum(ref) / sum(comp):.1f}x")



def compare_passes(lex, pos, variant: str, every: int, repeat: int) -> None:
    """The compiled core against the pure-Python reference on every ``every``-th position,
    each implementation timed in passes of its own over the positions (``repeat`` passes
    each, alternating, which goes first alternating too), per position the median of its
    ``repeat`` times; neither runs right after the other on the same position, and both
    are measured alike. Checks that both give the same turn on every position."""
    sel = pos[::every]
    times: dict[bool, list[list[float]]] = {False: [[] for _ in sel], True: [[] for _ in sel]}
    turns: dict[bool, list] = {False: [None] * len(sel), True: [None] * len(sel)}

    def one_pass(ref: bool) -> None:
        for i, (rows, rack) in enumerate(sel):
            t = time.process_time()
            b = best_turn(rows, rack, lex, variant)
            times[ref][i].append(time.process_time() - t)
            turns[ref][i] = b and b.to_json()

    print(f"compare_passes_load_average: {load_average()}")
    for k in range(repeat):
        for ref in ((False, True) if k % 2 == 0 else (True, False)):
            if ref:
                with gridgen.reference_search():
                    one_pass(True)
            else:
                one_pass(False)
    diff = sum(a != b for a, b in zip(turns[False], turns[True]))
    comp = [statistics.median(x) for x in times[False]]
    ref = [statistics.median(x) for x in times[True]]
    cm, rm = statistics.median(comp), statistics.median(ref)
    print(f"compare_passes_positions: {len(sel)} (every {every}th, {repeat} passes each, per position the "
          f"median), different turns: {diff}")
    print(f"compare_passes_compiled_median: {cm * 1000:.2f} ms, worst {max(comp) * 1000:.1f} ms")
    print(f"compare_passes_reference_median: {rm * 1000:.2f} ms, worst {max(ref) * 1000:.1f} ms")
    print(f"compare_passes_speedup_median: {rm / cm:.1f}x, worst-to-worst {max(ref) / max(comp):.1f}x, "
          f"total {sum(ref) / sum(comp):.1f}x")
    print(f"compare_passes_load_average_after: {load_average()}")

#: The best turns of the ``--big`` racks (rack size, position, variant) as the compiled
#: search gave them on main at 3872bb0; the pure-Python reference gives the same on all
#: 16 (checked once on 2026-11-27: 0.2 s to 5 minutes each). ``--big`` checks every answer.
BIG_EXPECTED = {
    (12, 5, "point"): "N12s TyRANNEI", (12, 5, "kreuzwort"): "R2s RATI*ONIERENs",
    (12, 20, "point"): "K19w V*ErJAGeN; K19w verjagenD", (12, 20, "kreuzwort"): "J19w ZUGr*EIFeND; J14w JAVa",
    (14, 5, "point"): "O12s AbGEGUC*KTEN", (14, 5, "kreuzwort"): "P10s GEPrUEGE*LTEN",
    (14, 20, "point"): "J9w LEXiKoN*S; M6s UNeingepackter", (14, 20, "kreuzwort"): "I16w FLE*CkUNGeN; O10w bOXKALF",
    (16, 5, "point"): "O6s UNFL*EXIbLEM", (16, 5, "kreuzwort"): "R3s UNFL*EXIBELs*T",
    (16, 20, "point"): "G19w QUA*E*KErINNeN; Q10s ABpflueckendes",
    (16, 20, "kreuzwort"): "F19w *A*BONNIErBARe; I17w QUANtOR",
    (19, 5, "point"): "O4s *UNAUFFINDbARKEIT", (19, 5, "kreuzwort"): "O4s *UNAUFFINDbARKEIT",
    (19, 20, "point"): "D16w *AC*HSELZUCkENDe; D16w achselzuckendeM",
    (19, 20, "kreuzwort"): "J16w JUCkENDeM; D18w LETZTL*IC*HeS",
}


def load_average() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def big(lex, pos) -> None:
    """Racks of 12-19 tiles with Jollys, both variants, and a 10 + 8 round (compiled only;
    each answer checked against :data:`BIG_EXPECTED`)."""
    import random

    from bot.games.typdom.tiles import full_set, sort_rack

    rng = random.Random(5)
    letters = [c for c in full_set() if c.isalpha()]
    mismatches = 0
    print(f"big_load_average: {load_average()} (1 / 5 / 15 min)")
    for n, jollys in ((12, "?"), (14, "#"), (16, "?#"), (19, "?#")):
        for pi in (5, 20):
            rows = pos[pi][0]
            rack = sort_rack(list(jollys) + rng.sample(letters, n - len(jollys)))
            for variant in ("point", "kreuzwort"):
                t = time.process_time()
                b = best_turn(rows, rack, lex, variant)
                got = b.notation if b else "KAUFEN"
                want = BIG_EXPECTED.get((n, pi, variant))
                mismatches += want is not None and got != want
                print(f"big_rack_{n}_{variant}: {time.process_time() - t:.2f} s (position {pi}, rack {rack}, "
                      f"{got}{'' if want in (None, got) else ' DIFFERENT from ' + want})")
    print(f"big_different_turns: {mismatches}")
    print(f"big_load_average_after: {load_average()}")
    game = get_game("typdom")
    st = game.new_partie(seed="bench", partie="R1", options={"variant": "point"}, players=["a", "b"])
    for _ in range(3):
        subs = {}
        for p in st["seat_order"]:
            ms = placements(st["board"], st["racks"][p], lex)
            best = max(ms, key=lambda m: (m.score, len(m.tiles)), default=None)
            subs[p] = [gen_notation(best, st["board"])] if best else ["KAUFEN"]
        st = game.adjudicate(st, subs, lex, seed="bench", partie="R1", best=False).state_after
    st = dict(st)
    rr = random.Random(8)
    st["racks"] = {"a": sort_rack(["?"] + rr.sample(letters, 9)), "b": sort_rack(["#"] + rr.sample(letters, 7))}
    t = time.process_time()
    game.adjudicate(st, {"a": ["KAUFEN"], "b": ["KAUFEN"]}, lex, seed="bench", partie="R1", best=True)
    print(f"round_10_8_point: {time.process_time() - t:.2f} s (racks {st['racks']['a']}, {st['racks']['b']}; "
          f"adjudicate with best turns)")

if __name__ == "__main__":
    main()

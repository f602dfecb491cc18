"""Typ-Dom's exhaustive best turn (issue 10, item 2): the touch search of
:func:`bot.games.gridgen.search` plus the untouched placements of the first search equal a
full search after a joining placement, and ``best_turn(..., exhaustive=True)`` equals a
brute force (a full search after every joining placement, every Jolly take) on
self-played tables, both variants, racks with and without Jollys; the cuts of the
second searches keep every answer (large racks, ``tests/regression/typdom_big_best.json``)."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.games import gridgen
from bot.games.typdom import movegen as mg
from bot.games.typdom.table import Table
from bot.games.typdom.tiles import jolly_for, sort_rack
from bot.lexicon import load
from tests.typdom_tables import self_played
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES  # the typdom list's build layer


@pytest.fixture(scope="module")
def lexicon():
    return load("typdom", rules=TYPDOM_RULES)


@pytest.fixture(scope="module")
def tables(lexicon):
    """Tables of a self-played Point-Typ-Dom Partie (four players, each laying the best
    single placement), one per turn, with the rack the player had."""
    return self_played(lexicon, seed="exh", partie="X1", rounds=6)


def racks(rack: str) -> list[str]:
    """Small racks from a dealt one (a brute force must stay quick): six of its letters,
    and five of them with a red or a black Jolly."""
    letters = [ch for ch in rack if ch.isalpha()]
    return [sort_rack(letters[:6]), sort_rack(letters[:5] + ["?"]), sort_rack(letters[:5] + ["#"])]


def ident(raw):
    return raw[:7]


def test_untouched_plus_touch_search_is_the_full_search(lexicon, tables):
    root = gridgen.graph_root(lexicon)
    seen = jolly_seen = 0
    for rows, dealt in tables:
        for rack in racks(dealt) + [dealt]:
            raws = mg._search(rows, rack, root)
            joining = [r for r in raws if r[1] < len(rack) and mg._raw_runs(r) >= 2]
            for raw in joining[::max(1, len(joining) // 4)]:
                m = gridgen.to_move(raw)
                rows2, rack2 = mg._after(rows, rack, m)
                full = mg._search(rows2, rack2, root)
                have = Counter(rack2)
                squares = set(mg._squares(raw))
                kept = [r for r in raws if mg._fits(mg._usage(r).items(), have) and squares.isdisjoint(mg._zone(r))]
                touching = mg._search(rows2, rack2, root, [(r + 1, c + 1) for r, c in squares])
                assert len({ident(r) for r in touching}) == len(touching)  # each move once
                assert {ident(r) for r in kept}.isdisjoint({ident(r) for r in touching})
                assert {ident(r) for r in kept} | {ident(r) for r in touching} == {ident(r) for r in full}
                seen += 1
                jolly_seen += any(b for _, _, b in raw[6]) or "?" in rack2 or "#" in rack2
    assert seen >= 30 and jolly_seen >= 10


def _brute_plan(rows, rack, lexicon, variant, prefix):
    root = gridgen.graph_root(lexicon)
    raws = mg._search(rows, rack, root)
    single = mg._best_of(raws, variant)
    if single is None:
        return None
    best = (single[0], prefix + [single[2]])
    for raw in raws:
        if raw[1] >= len(rack) or mg._raw_runs(raw) < 2:
            continue
        m = gridgen.to_move(raw)
        rows2, rack2 = mg._after(rows, rack, m)
        sec = mg._best_of(mg._search(rows2, rack2, root), variant)
        if sec is None:
            continue
        plan = (mg._key(m.score + sec[1].score, len(m.tiles) + len(sec[1].tiles), variant),
                prefix + [mg.gen_notation(m, rows), sec[2]])
        if mg._better(plan, best):
            best = plan
    return best


def brute(rows, rack, lexicon, variant):
    """(key, notation) of the best turn by a full search after every joining placement."""
    best = _brute_plan(rows, rack, lexicon, variant, [])
    table = Table.from_rows(rows)
    for r, c, letter in table.jollys():
        if table.neighbours(r, c) >= 3 or letter not in rack:
            continue
        rows2 = list(rows)
        rows2[r - 1] = rows2[r - 1][:c - 1] + letter + rows2[r - 1][c:]
        left = Counter(rack)
        left[letter] -= 1
        left[jolly_for(letter)] += 1
        plan = _brute_plan(rows2, sort_rack(left.elements()), lexicon, variant, [f"JOLLY {table.coord(r, c)}"])
        if plan is not None and (best is None or mg._better(plan, best)):
            best = plan
    return None if best is None else (best[0], "; ".join(best[1]))


@pytest.mark.parametrize("variant", ["point", "kreuzwort"])
def test_exhaustive_best_turn_equals_brute_force(lexicon, tables, variant):
    n = joined = jolly = 0
    for rows, dealt in tables:
        for rack in racks(dealt):
            got = mg.best_turn(rows, rack, lexicon, variant)
            want = brute(rows, rack, lexicon, variant)
            if want is None:
                assert got is None
                continue
            assert got is not None and got.notation == want[1], (rack, got and got.notation, want)
            key = mg._key(got.score, got.tiles, variant)
            assert key == want[0]
            n += 1
            joined += len([p for p in got.notation.split("; ") if not p.startswith("JOLLY")]) == 2
            jolly += "?" in rack or "#" in rack
    print(f"{variant}: {n} positions, {jolly} with a Jolly, {joined} best turns with two placements")
    assert n >= 30 and jolly >= 20 and joined >= 3


def test_min_tiles_and_the_cache_keep_exactly_the_moves_laying_enough(lexicon, tables):
    """``gridgen.search(..., min_tiles=n, cache=...)`` (the Kreuzwort-Spiel's second
    searches) lists exactly the moves of the plain search that lay at least n tiles,
    with and without ``touch``, racks with one and two Jollys."""
    root = gridgen.graph_root(lexicon)
    cache: dict = {}
    checked = 0
    for rows, dealt in tables[::2]:
        letters = [ch for ch in dealt if ch.isalpha()]
        for rack in (dealt, sort_rack(letters[:6] + ["?", "#"])):
            full = mg._search(rows, rack, root)
            for n in (2, 4, 6):
                got = mg._search(rows, rack, root, min_tiles=n, cache=cache)
                assert sorted(map(ident, got)) == sorted(ident(r) for r in full if r[1] >= n)
            joining = [r for r in full if r[1] < len(rack) and mg._raw_runs(r) >= 2]
            for raw in joining[::max(1, len(joining) // 4)]:
                m = gridgen.to_move(raw)
                rows2, rack2 = mg._after(rows, rack, m)
                touch = [(r + 1, c + 1) for r, c in mg._squares(raw)]
                touching = mg._search(rows2, rack2, root, touch)
                for n in (1, 3, len(rack2)):
                    got = mg._search(rows2, rack2, root, touch, min_tiles=n, cache=cache)
                    assert sorted(map(ident, got)) == sorted(ident(r) for r in touching if r[1] >= n)
                checked += 1
    assert checked >= 10



def test_large_racks_keep_the_exhaustive_answer(lexicon):
    """Large racks with Jollys (13-16 tiles, bench self-play): the answer of the version
    proven against the brute force, ties included (``tests/regression/typdom_big_best.json``)."""
    import json
    from pathlib import Path
    cases = json.loads((Path(__file__).parent / "regression" / "typdom_big_best.json").read_text())["cases"]
    assert len(cases) >= 8
    for case in cases:
        got = mg.best_turn(case["board"], case["rack"], lexicon, case["variant"])
        assert (got.notation, got.tiles, got.score) == (case["best"], case["tiles"], case["score"]), case["bench_position"]

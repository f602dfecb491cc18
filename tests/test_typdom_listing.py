"""The listing of a Typ-Dom plan after a Jolly take in two passes (issue 35,
``movegen._first`` and ``_listing_need``; ``bot/games/gridcore/plan_pass.pxi``): the
joining placements, then only the records that can still be part of a plan as good as
the best known. Compared with the full listing filtered in Python, with a brute force
over the plans each record can enter, and the whole best turn with the reference."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bot.games import _gridcore, gridgen
from bot.games.typdom import movegen as td
from bot.games.typdom import plan_ref
from bot.games.typdom.tiles import BLACK_JOLLY, RED_JOLLY, full_set, jolly_for
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES
from bot.lexicon import load


@pytest.fixture(scope="module")
def td_lex():
    return load("typdom", rules=TYPDOM_RULES)


def _board(rng, lexicon, turns):
    rows = ["." * td.SIZE] * td.SIZE
    bag = full_set()
    for _ in range(turns):
        moves = gridgen.all_moves(rows, "".join(rng.sample(bag, 8)), lexicon, td.SPEC)
        if moves:
            grid = [list(r) for r in rows]
            for r, c, ch, b in rng.choice(moves).tiles:
                grid[r - 1][c - 1] = ch.lower() if b else ch
            rows = ["".join(r) for r in grid]
    return rows


def _joining(raw, n_rack):
    return raw[1] < n_rack and len(raw[5]) - raw[1] >= 2 and plan_ref._raw_runs(raw) >= 2


def _key(raw, variant):
    return (raw[1], raw[0]) if variant == "kreuzwort" else (raw[0], raw[1])


def _cases(td_lex, seed, n):
    rng = random.Random(seed)
    bag = [t for t in full_set() if t.isalpha()]
    root = gridgen.graph_root(td_lex)
    for i in range(n):
        rows = _board(rng, td_lex, rng.randrange(3, 9))
        rack = "".join(sorted([RED_JOLLY, BLACK_JOLLY][: 1 + i % 2] + rng.sample(bag, rng.randrange(5, 10))))
        raws = td._search(rows, rack, root)
        yield rng, root, rows, rack, raws


def test_two_passes_list_the_joining_records_then_those_reaching_their_need(td_lex):
    """Pass 1 holds exactly the full listing's joining records (the search cuts words that
    cannot join two groups of table tiles: ``_join_reach``), ``join_max`` their best
    score per tiles, and pass 2 exactly the other records reaching ``need[tiles]`` (the
    search cuts by the need of the tiles a word would lay), for random best keys."""
    seen1 = seen2 = 0
    for rng, root, rows, rack, raws in _cases(td_lex, 3501, 30):
        n = len(rack)
        for variant in ("point", "kreuzwort"):
            lst = _gridcore.PlanListing(rack, variant == "kreuzwort", td.VALUES, td.VOWELS)
            lst.set_pass(1)
            gridgen.search(list(rows), rack, root, lst, [-1], td.SPEC)
            n1 = len(lst)
            join = [r for r in raws if _joining(r, n)]
            assert sorted(lst.raw(i) for i in range(n1)) == sorted(join)
            jm = [-1] * (n + 1)
            for r in join:
                jm[r[1]] = max(jm[r[1]], r[0])
            assert lst.join_max() == jm
            top = max((_key(r, variant) for r in raws), default=(0, 0))
            best = (top[0] + rng.randrange(0, 4), top[1] + rng.randrange(-3, 20))
            if variant == "kreuzwort":
                best = (min(best[0], n), best[1])
            need = td._listing_need(variant, n, best, jm)
            lows = [v for v in need if v is not None]
            lst.set_pass(2, need)
            gridgen.search(list(rows), rack, root, lst, [max(0, min(lows, default=0))], td.SPEC)
            want = [r for r in raws if not _joining(r, n) and need[r[1]] is not None and r[0] >= need[r[1]]]
            assert sorted(lst.raw(i) for i in range(n1, len(lst))) == sorted(want), (rows, rack, variant, best)
            seen1 += n1
            seen2 += len(want)
    assert seen1 > 200 and seen2 > 200


def _usage(raw):
    return Counter(jolly_for(ch) if b else ch for _p, ch, b in raw[6])


def test_every_record_that_enters_a_plan_reaches_its_need(td_lex):
    """Brute force over the plans a record can enter (alone, or after a joining placement
    using other tiles of the rack, the keys added), for best keys just at and below the
    records' own: each record of such a plan reaching the best key reaches
    ``_listing_need``'s score for its tiles. A bound one point too strict fails here
    (seen with ``b0 - s + 1`` and ``b1 - s + 1``)."""
    checked = tight = 0
    for rng, root, rows, rack, raws in _cases(td_lex, 3502, 14):
        n = len(rack)
        have = Counter(rack)
        join = [r for r in raws if _joining(r, n)]
        for variant in ("point", "kreuzwort"):
            jm = [-1] * (n + 1)
            for r in join:
                jm[r[1]] = max(jm[r[1]], r[0])
            # plan keys: singles and (joining m, r2) pairs whose tiles the rack holds
            plans = [(_key(r, variant), r) for r in raws]
            for m in join:
                left = have - _usage(m)
                km = _key(m, variant)
                for r in raws:
                    if not _usage(r) - left:
                        kr = _key(r, variant)
                        plans.append(((km[0] + kr[0], km[1] + kr[1]), r))
            for best in {k for k, _r in rng.sample(plans, min(60, len(plans)))}:
                need = td._listing_need(variant, n, best, jm)
                for k, r in plans:
                    if k >= best:
                        checked += 1
                        assert need[r[1]] is not None and r[0] >= need[r[1]], (rows, rack, variant, best, r)
                        tight += r[0] == need[r[1]]
    assert checked > 1000 and tight > 10


def test_best_turn_after_jolly_takes_equals_the_reference(td_lex, monkeypatch):
    """The whole best turn, compiled (two-pass listing after each Jolly take, in the
    Kreuzwort-Spiel on small racks too) vs the reference (every record listed), on
    tables with Jollys the rack can take."""
    monkeypatch.setattr(td, "_KREUZ_TWO_PASS_TILES", 0)
    passes = []
    real = td._two_passes
    monkeypatch.setattr(td, "_two_passes", lambda *a: passes.append((a[0], real(*a))) or passes[-1][1])
    rng = random.Random(3503)
    bag = [t for t in full_set() if t.isalpha()]
    takes = 0
    while takes < 12:
        rows = _board(rng, td_lex, rng.randrange(4, 9))
        letters = [letter for _r, _c, letter in td._jollys(rows)]
        if not letters:
            continue
        rack = "".join(sorted([rng.choice(letters), RED_JOLLY] + rng.sample(bag, rng.randrange(5, 9))))
        takes += 1
        for variant in ("point", "kreuzwort"):
            got = td.best_turn(rows, rack, td_lex, variant)
            with gridgen.reference_search():
                want = td.best_turn(rows, rack, td_lex, variant)
            assert (got and got.to_json()) == (want and want.to_json()), (rows, rack, variant)
    assert passes.count(("point", True)) >= 8 and ("kreuzwort", True) in passes

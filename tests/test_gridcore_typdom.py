"""The compiled search core (``bot.games._gridcore``, issue 25) for Typ-Dom against the
pure-Python reference, on seeded random positions (tests/gridcore_cases.py): the listing and
the second-placement queries (``touch``, ``min_tiles``, a fixed ``threshold``) with large
racks, ``can_lay`` against a scan of the word list, the best turn (Point and Kreuzwort),
the compiled bound of the second placements, and the plan of a turn (its scans, its
listing, its notation read back). Monoscrabble and the core itself: tests/test_gridcore.py;
Presto's crossword search: tests/test_gridcore_presto.py."""

from __future__ import annotations

import random


from bot.games import _gridcore, gridgen
from bot.games.typdom import movegen as td
from bot.games.typdom.tiles import BLACK_JOLLY, RED_JOLLY, full_set

from tests.gridcore_cases import (CASES, _lays, _listing, _positions, _random_board,  # noqa: F401 (fixture)
                                  _same, td_lex)


def test_typdom_listing_and_second_placement_queries_equal_the_reference(td_lex):
    """Typ-Dom's four kinds of query (all placements; touching given tiles; laying at
    least n tiles; worth at least a threshold) on random tables with racks of 0-9 tiles
    (up to 19 in the long run) with red and black Jollys."""
    root = gridgen.graph_root(td_lex)
    bag = full_set()
    rng = random.Random(2025)
    n = CASES or 60
    jollys = 0
    for i, rows, rack in _positions(2025, n, td_lex, td.SPEC, bag, 19 if CASES else 9, 8, RED_JOLLY + BLACK_JOLLY):
        out, ref = _listing(rows, rack, root, td.SPEC)
        _same(out, ref)
        jollys += RED_JOLLY in rack or BLACK_JOLLY in rack
        tiles = [(r + 1, c + 1) for r in range(td.SIZE) for c in range(td.SIZE) if rows[r][c] != "."]
        if not tiles or not rack:
            continue
        touch = rng.sample(tiles, min(len(tiles), rng.randrange(1, 4)))
        for kw in ({"touch": touch}, {"touch": touch, "min_tiles": rng.randrange(1, len(rack) + 1)},
                   {"min_tiles": rng.randrange(1, len(rack) + 1)},
                   {"touch": touch, "threshold": rng.randrange(0, 40)}, {"threshold": rng.randrange(0, 60)},
                   {"touch": touch, "min_tiles": rng.randrange(1, len(rack) + 1), "threshold": rng.randrange(0, 40)}):
            out, ref = _listing(rows, rack, root, td.SPEC, **kw)
            _same(out, ref)
    assert jollys >= n // 10


def test_typdom_touch_queries_with_large_racks_equal_the_reference(td_lex):
    """The second-placement queries of the large racks (12-14 tiles with both Jollys,
    a single touch square, the Kreuzwort-Spiel's ``min_tiles`` of all tiles but 0-3):
    the left parts cut because the word could not reach the touch square any more
    (issue 35) keep exactly the reference's moves."""
    root = gridgen.graph_root(td_lex)
    bag = [t for t in full_set() if t.isalpha()]
    rng = random.Random(35)
    cases = 0
    for _ in range(CASES // 20 or 6):
        rows = _random_board(rng, td_lex, td.SPEC, full_set(), rng.randrange(3, 9), 8)
        tiles = [(r + 1, c + 1) for r in range(td.SIZE) for c in range(td.SIZE) if rows[r][c] != "."]
        rack = "".join(sorted([RED_JOLLY, BLACK_JOLLY] + rng.sample(bag, rng.randrange(10, 13))))
        for touch in ([rng.choice(tiles)], [max(tiles)], [min(tiles)]):
            for drop in (0, 1, 3):
                out, ref = _listing(rows, rack, root, td.SPEC, touch, min_tiles=len(rack) - drop)
                _same(out, ref)
                cases += 1
    assert cases >= 54


def test_can_lay_equals_a_scan_of_the_word_list(td_lex):
    """``_gridcore.can_lay`` (issue 35: Typ-Dom's second placements with ``min_tiles`` are
    not searched when it says no) against a scan of the whole word list: some word of 2-25
    letters holds ``min_tiles`` of the rack's tiles (Jollys for their letters) and one
    letter more. Racks of 6-16 tiles with and without Jollys, ``min_tiles`` all of them
    or up to four fewer; both answers occur."""
    from collections import Counter

    from bot.games.typdom.tiles import VOWELS
    root = gridgen.graph_root(td_lex)
    words = [(len(w), Counter(w)) for w in td_lex.words() if 2 <= len(w) <= td.SIZE]
    bag = full_set()
    rng = random.Random(350)
    racks = [("AAINNOOQRU", 10), ("AINNOOQRU", 9), ("CCEGJLLMTUXZ", 10), ("?#ABEINNR", 9)]
    for _ in range(CASES // 5 or 14):
        rack = "".join(sorted(rng.sample(bag, rng.randrange(6, 17))))
        racks.append((rack, max(1, len(rack) - rng.randrange(0, 5))))
    seen = set()
    for rack, k in racks:
        counts = Counter(ch for ch in rack if ch.isalpha())
        red, black = rack.count(RED_JOLLY), rack.count(BLACK_JOLLY)
        want = any(n > k and _lays(wc, n, counts, red, black, VOWELS) >= k for n, wc in words)
        assert _gridcore.can_lay(root, rack, k, td.SPEC) is want, (rack, k)
        cache: dict = {}
        assert _gridcore.can_lay(root, rack, k, td.SPEC, cache) is want
        assert _gridcore.can_lay(root, rack, k, td.SPEC, cache) is want  # (memoised)
        seen.add(want)
    assert seen == {True, False}
    # the search's own use of it (it returns at once when can_lay says no), also on an
    # empty table, where no table tile is needed: the same moves as the reference
    empty = ["." * td.SIZE] * td.SIZE
    found = 0
    for rack, k in racks[:8]:
        for rows in (empty, _random_board(rng, td_lex, td.SPEC, bag, 3, 8)):
            for mt in (k, max(1, k - 3), 2):
                out, ref = _listing(rows, rack, root, td.SPEC, min_tiles=mt)
                _same(out, ref)
                found += bool(ref)
    assert found


def test_can_lay_with_a_shared_cache_equals_a_scan_of_the_word_list(td_lex):
    """``_gridcore.can_lay`` with one cache for many racks (issue 35: a plan asks about
    the rack less each first placement's tiles; the words that said yes are tried first,
    before the graph walk): racks of 8-19 tiles with both Jollys and their sub-racks less
    1-6 tiles, ``min_tiles`` all their tiles or up to three fewer, in random order, against
    a scan of the whole word list; both answers occur, and some yes comes from a word
    found for another rack."""
    from collections import Counter

    from bot.games.typdom.tiles import VOWELS
    root = gridgen.graph_root(td_lex)
    words = [(len(w), Counter(w)) for w in td_lex.words() if 2 <= len(w) <= td.SIZE]
    bag = [t for t in full_set() if t.isalpha()]
    rng = random.Random(353)
    queries = []
    for _ in range(3 if CASES < 100 else 6):
        full = [RED_JOLLY, BLACK_JOLLY] + rng.sample(bag, rng.randrange(6, 18))
        for _ in range(12):
            sub = rng.sample(full, len(full) - rng.randrange(1, 7))
            rack = "".join(sorted(sub))
            queries.append((rack, max(1, len(rack) - rng.randrange(0, 4))))
    rng.shuffle(queries)
    cache: dict = {}
    seen = set()
    walks = 0
    real = _gridcore.can_lay
    for rack, k in queries:
        counts = Counter(ch for ch in rack if ch.isalpha())
        red, black = rack.count(RED_JOLLY), rack.count(BLACK_JOLLY)
        want = any(n > k and _lays(wc, n, counts, red, black, VOWELS) >= k for n, wc in words)
        before = len(cache.get(("can_lay witnesses", True, td.SIZE), ()))
        assert real(root, rack, k, td.SPEC, cache) is want, (rack, k)
        walks += len(cache.get(("can_lay witnesses", True, td.SIZE), ())) > before
        seen.add(want)
    assert seen == {True, False}
    yes = sum(1 for key, v in cache.items() if key[0] == "can_lay" and v)
    assert yes > walks  # (some yes answered by a word found for another rack)


def test_can_lay_no_for_a_sub_rack_equals_a_scan_of_the_word_list(td_lex):
    """``_gridcore.can_lay``'s memo of racks that said no (issue 35: a no for a rack
    whose tiles lie within this one's, with at least this query's slack, answers without
    a walk; ``_no_implies``): chains of racks of 5-17 tiles with hard letters (Q, X, Y,
    J, C) and Jollys, each less 0-5 tiles, asked with slacks 0-3 in random order through
    one cache, then racks holding a letter 4-5 times and, after them, once; against a scan
    of the whole word list. Both answers occur, and some no comes from the memo (no walk
    for it)."""
    from collections import Counter

    from bot.games.typdom.tiles import VOWELS
    root = gridgen.graph_root(td_lex)
    words = [(len(w), Counter(w)) for w in td_lex.words() if 2 <= len(w) <= td.SIZE]
    bag = [t for t in full_set() if t.isalpha()]
    rng = random.Random(3535)
    queries = []
    for _ in range(4 if CASES < 100 else 10):
        full = rng.sample([RED_JOLLY, BLACK_JOLLY], rng.randrange(0, 3)) + rng.sample("QXYJCQUV", 2) + \
            rng.sample(bag, rng.randrange(5, 14))
        for _ in range(8):
            rack = "".join(sorted(rng.sample(full, len(full) - rng.randrange(0, 6))))
            for slack in rng.sample(range(4), 2):
                queries.append((rack, max(1, len(rack) - slack)))
    rng.shuffle(queries)
    # then, through a cache of their own (no word that said yes answers first), racks
    # that say no with many copies of a letter, then as many tiles with fewer copies
    # (yes): a no implies another only when each letter is held at least as often
    fresh = len(queries)
    queries += [("XXXX", 4), ("AEIX", 4), ("CCCCC", 5), ("ACEHI", 5), ("VVVV", 4), ("AEIV", 4)]
    cache: dict = {}
    seen = set()
    implied = 0
    for i, (rack, k) in enumerate(queries):
        if i == fresh:
            cache = {}
        counts = Counter(ch for ch in rack if ch.isalpha())
        red, black = rack.count(RED_JOLLY), rack.count(BLACK_JOLLY)
        want = any(n > k and _lays(wc, n, counts, red, black, VOWELS) >= k for n, wc in words)
        asked = ("can_lay", rack, k, True, td.SIZE) in cache
        s0 = _gridcore.lay_steps()
        assert _gridcore.can_lay(root, rack, k, td.SPEC, cache) is want, (rack, k)
        implied += not want and not asked and _gridcore.lay_steps() == s0
        seen.add(want)
    assert seen == {True, False}
    assert implied  # (some no without a walk: a sub-rack said no before)


def test_typdom_kreuzwort_best_turn_with_large_racks_equals_the_reference(td_lex, monkeypatch):
    """The Kreuzwort-Spiel's whole best turn with racks of 9-11 tiles holding a Q (no U)
    or both Jollys, compiled vs reference: the plan search skips the second placements for which
    ``can_lay`` says no (issue 35), and that happens here."""
    answers = []
    real = _gridcore.can_lay

    def counted(*args, **kwargs):
        answers.append(real(*args, **kwargs))
        return answers[-1]

    monkeypatch.setattr(_gridcore, "can_lay", counted)
    bag = [t for t in full_set() if t.isalpha() and t not in "QU"]
    rng = random.Random(352)
    for i in range(CASES // 20 or 4):
        rows = _random_board(rng, td_lex, td.SPEC, full_set(), rng.randrange(5, 9), 8)
        extra = ["Q"] if i % 2 == 0 else [RED_JOLLY, BLACK_JOLLY]
        rack = "".join(sorted(extra + rng.sample(bag, rng.randrange(8, 10))))
        got = td.best_turn(rows, rack, td_lex, "kreuzwort")
        with gridgen.reference_search():
            want = td.best_turn(rows, rack, td_lex, "kreuzwort")
        assert (got and got.to_json()) == (want and want.to_json()), (rows, rack)
    assert answers


def test_typdom_best_turn_equals_the_reference(td_lex):
    """The whole best turn (single, joining plus second placement, Jolly takes) in both
    variants, compiled vs reference, on random tables and racks of up to 8 tiles."""
    rng = random.Random(11)
    bag = full_set()
    for i in range(CASES // 10 or 12):
        rows = _random_board(rng, td_lex, td.SPEC, bag, rng.randrange(1, 8), 8)
        rack = "".join(sorted(rng.sample(bag, rng.randrange(1, 9))))
        for variant in ("point", "kreuzwort"):
            got = td.best_turn(rows, rack, td_lex, variant)
            with gridgen.reference_search():
                ref = td.best_turn(rows, rack, td_lex, variant)
            assert (got and got.to_json()) == (ref and ref.to_json()), (rows, rack, variant)


def test_typdom_touch_bound_compiled_equals_python(td_lex):
    """The compiled bound of the second placements (``TouchBound``) gives
    ``movegen._touch_bound``'s numbers after random joining and plain placements."""
    rng = random.Random(3)
    bag = full_set()
    seen = 0
    for _ in range(15):
        rows = _random_board(rng, td_lex, td.SPEC, bag, rng.randrange(1, 8), 8)
        rack = "".join(sorted(rng.sample(bag, rng.randrange(2, 12))))
        moves = td.placements(rows, rack, td_lex)
        bounder = _gridcore.TouchBound(rows, td.VALUES)
        for m in rng.sample(moves, min(20, len(moves))):
            rows2, rack2 = td._after(rows, rack, m)
            squares = [(r - 1, c - 1) for r, c, _ch, _b in m.tiles]
            got = bounder.bound([(r - 1, c - 1, 0 if b else td.VALUES.get(ch, 0)) for r, c, ch, b in m.tiles],
                                [td.VALUES.get(ch, 0) for ch in rack2])
            assert got == td._touch_bound(rows2, squares, rack2)
            seen += 1
    assert seen > 100


def test_typdom_plan_scans_equal_python(td_lex):
    """The compiled scans of the first listing in ``_best_plan`` (``joining``,
    ``usage_codes``) give what the Python definitions give (``_raw_runs``, the usage
    as ``_multiset_code``)."""
    from collections import Counter

    from bot.games.typdom.tiles import jolly_for

    rng = random.Random(6)
    bag = full_set()
    root = gridgen.graph_root(td_lex)
    seen = 0
    for _ in range(25):
        rows = _random_board(rng, td_lex, td.SPEC, bag, rng.randrange(1, 8), 8)
        rack = "".join(sorted(rng.sample(bag, rng.randrange(2, 13))))
        raws = td._search(rows, rack, root)
        want = [r for r in raws if r[1] < len(rack) and len(r[5]) - r[1] >= 2 and td._raw_runs(r) >= 2]
        assert _gridcore.joining(raws, len(rack)) == want
        fields = {ch: i for i, ch in enumerate(sorted(set(rack)))}
        inc = {ch: 1 << (6 * fields[ch]) if ch in fields else 0 for ch in td.VALUES}
        inc_blank = {ch: 1 << (6 * fields[jolly_for(ch)]) if jolly_for(ch) in fields else 0 for ch in td.VALUES}
        assert _gridcore.usage_codes(raws, inc, inc_blank) == [td._multiset_code(Counter(td._usage(r)), fields)
                                                               for r in raws]
        seen += len(want)
    assert seen > 20


def test_typdom_plan_listing_holds_the_search_records(td_lex):
    """The first listing of a plan in C arrays (``PlanListing``, issue 35) gives back the
    records the search passes to a Python sink (``raw``; the same records, in another
    order: a plan's listing takes the anchors in board order, without the bound order,
    which cannot cut there), counts the joining placements as ``plan_ref._raw_runs``
    does, and names the records of the best key (``top``) in both variants."""
    from bot.games.typdom import plan_ref

    rng = random.Random(35)
    bag = full_set()
    root = gridgen.graph_root(td_lex)
    seen = joined = 0
    for _ in range(30):
        rows = _random_board(rng, td_lex, td.SPEC, bag, rng.randrange(1, 8), 8)
        rack = "".join(sorted(rng.sample(bag, rng.randrange(1, 13))))
        raws = td._search(rows, rack, root)
        for kreuz in (False, True):
            lst = _gridcore.PlanListing(rack, kreuz, td.VALUES, td.VOWELS)
            gridgen.search(list(rows), rack, root, lst, [-1], td.SPEC)
            assert len(lst) == len(raws)
            lst.finish()
            got = [lst.raw(i) for i in range(len(lst))]
            assert sorted(got, key=repr) == sorted(raws, key=repr)
            want = sum(1 for r in raws if r[1] < len(rack) and len(r[5]) - r[1] >= 2 and plan_ref._raw_runs(r) >= 2)
            assert lst.joining() == want
            key = (lambda r: (r[1], r[0])) if kreuz else (lambda r: (r[0], r[1]))
            if raws:
                top = max(map(key, raws))
                assert sorted(map(repr, (got[i] for i in lst.top()))) == sorted(repr(r) for r in raws if key(r) == top)
                assert lst.top_score() == max(r[0] for r in raws)
            seen += len(raws)
            joined += want
    assert seen > 1000 and joined > 20


def test_typdom_generated_notation_reads_back_as_its_placement(td_lex):
    """``gen_notation`` (written directly) is ``format_placement`` of ``gen_placement``,
    and the notation parser reads it back as that Placement: the best turn is judged
    from the Placements without parsing (issue 35). The takeable Jollys read from the
    row codes are ``Table.jollys`` with fewer than three neighbours."""
    from bot.games.typdom.notation import format_placement, parse_turn
    from bot.games.typdom.table import Table

    rng = random.Random(36)
    bag = full_set()
    n = jollys = 0
    for _ in range(12):
        rows = _random_board(rng, td_lex, td.SPEC, bag, rng.randrange(1, 8), 8)
        rack = "".join(sorted(rng.sample(bag, 8)))
        for m in td.placements(rows, rack, td_lex)[::7]:
            text = td.gen_notation(m, rows)
            assert text == format_placement(td.gen_placement(m))
            assert parse_turn(text).placements == (td.gen_placement(m),)
            n += 1
        table = Table.from_rows(rows)
        want = [(r, c, letter) for r, c, letter in table.jollys() if table.neighbours(r, c) < 3]
        assert td._jollys(rows) == want
        assert td._table(rows) == table
        jollys += len(want)
    assert n > 100 and jollys > 0


def test_typdom_plan_loop_with_large_racks_equals_the_reference(td_lex):
    """The compiled plan loop (``PlanListing.plan_loop``: phase (a) by scanning the usage
    groups or looking up the rack's sub-multisets, the choice of phase (b)'s joining
    placements) against the pure-Python ``plan_ref.first``: the whole best turn with
    racks of 9-11 tiles with a Jolly, both variants."""
    rng = random.Random(353)
    bag = [t for t in full_set() if t.isalpha()]
    for i in range(CASES // 20 or 3):
        rows = _random_board(rng, td_lex, td.SPEC, full_set(), rng.randrange(6, 10), 8)
        rack = "".join(sorted([(RED_JOLLY, BLACK_JOLLY)[i % 2]] + rng.sample(bag, rng.randrange(8, 11))))
        for variant in ("point", "kreuzwort"):
            got = td.best_turn(rows, rack, td_lex, variant)
            with gridgen.reference_search():
                want = td.best_turn(rows, rack, td_lex, variant)
            assert (got and got.to_json()) == (want and want.to_json()), (rows, rack, variant)

"""Exhaustive Typ-Dom turn generator: the best turn a rack allows on a table.

Rule sources: seed 002 and shared/RULES.md "Typ-Dom" (via :mod:`.tiles` and
:mod:`.table`): a word must contain a tile of the table (the first covers M13), every
contact forms a word, the red Jolly stands for vowels and the black one for consonants,
a joining placement allows a second one, a Jolly not enclosed on three sides may be taken
by laying the letter it shows.

Search: the shared Appel-Jacobson generator of :mod:`bot.games.gridgen` with Typ-Dom's
:data:`SPEC` (25 x 25, no premiums, the placed word's letters scoring with old ones
included, no cross-word points, two Jolly kinds, the word must use a table tile, a single
tile forming words both ways counting once per direction) lists every single placement.
A turn is then one of:

* one placement;
* a joining placement (two or more groups of table tiles in its word) followed by the
  best second placement on the table it leaves, with the rack it leaves. Exhaustive: for
  every joining placement m, the best second placement is the best of (a) the placements
  of the first search that m leaves untouched (:func:`.plan_ref._zone`: m fills no square of their
  word's span with one square beyond each end, nor of the perpendicular runs through
  their new tiles with one square beyond) whose tiles are still in the rack, and (b) the
  placements whose word or contact word holds a tile of m (``gridgen.search`` with
  ``touch``). All (a) are tried first; then (b), the joining placements best bound
  first, skipped when :func:`.plan_ref._touch_bound` shows they cannot reach the best plan, and
  listing only second placements that can: Point-Typ-Dom by their value
  (``threshold``), the Kreuzwort-Spiel by the tiles they lay (``min_tiles``, which also
  cuts the search where no word can still lay enough tiles: by the longest continuation
  in the word graph and, per letter, the most times a continuation holds it; not
  searched at all when no word of the list holds that many of the tiles left and a
  table tile, ``_gridcore.can_lay``, issue 35). Phase (b) is :class:`_Seconds`: one
  compiled ``_gridcore.TouchSearcher`` per plan parses the table and computes its
  cross-checks once, lays each joining placement's tiles in place (recomputing only the
  cross-checks next to them), searches only the lines a touching word can lie in, prunes
  words that cannot hold the square they must reach (per graph node and depth, the
  letters a path to a word's end holds there), and remembers the lines that found
  nothing (with the rack left and the cut), so the same line after another joining
  placement is not searched again (issue 35; tested equal to the search it replaced,
  ``_seconds_reference``, in ``tests/test_typdom_seconds.py``). Tested
  equal to a full search after every joining placement (``tests/test_typdom_exhaustive.py``);
* the same after taking a Jolly (``JOLLY M13; ...``) for every Jolly on the table with at
  most two occupied neighbours whose letter the rack holds.

Where it runs (issue 35): the first listing of a plan stays in C arrays
(:class:`bot.games._gridcore.PlanListing`, the search's sink); the best single
placement, the joining placements, the usage groups, the zones, phase (a) and the
choice of the joining placements phase (b) must search run there (:func:`_first`).
Python objects are made only for phase (b)'s joining placements and for plans that can
win; phase (b) is :class:`_Seconds`. After a Jolly take (a best plan known) Point-Typ-Dom
lists in two passes: the joining placements, then only the records that can still be
part of a plan as good as the best (:func:`_listing_need`, cut inside the search). With the
lexicon's compiled GADDAG at hand (the same condition as phase (b): :data:`USE_GADDAG`,
``compiled_gaddag_if_cached``; not for league views, a missing file or inside
``gridgen.reference_search()``) the listing reads each line over it from the first tile
of each run of table tiles outwards instead of by anchors and left parts (every word must
hold a table tile; ``bot/games/gridcore/list_gaddag.pxi`` proves each record comes out
once; the records are the anchors', tested in ``tests/test_typdom_gdlist.py``; the empty
table stays with the anchors). :mod:`.plan_ref` is the pure-Python reference of
the compiled part (it runs inside ``gridgen.reference_search()``; the tests compare the
two). The winner is re-judged from its own Placements (:func:`gen_placement`, no
notation parse). CPU time per rack in ``bench/typdom_bench.py`` (84 self-played
positions; ``docs/development/performance-movegen.md``): median about 1 ms, worst 0.15-0.3 s;
racks of 16-19 tiles with both Jollys 0.02-0.45 s (``--big``, 2026-11-27; on the slowest, the
Kreuzwort-Spiel's 19 tiles, phase (b)'s touch searches take most of it).

"Best" is, for Point-Typ-Dom, the most points (then more
tiles), for the Kreuzwort-Spiel the most tiles laid (then more points); then the
lexicographically smallest notation, so the answer is reproducible. The winner is
re-judged by :func:`bot.games.typdom.engine.evaluate`, so its notation and score are the
rules' own.
"""

from __future__ import annotations

import gc
from collections import Counter
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Sequence

from bot.games import _gridcore, gridgen
from bot.games.gaddag import compiled_gaddag_if_cached
from bot.games.gridgen import GenMove
from bot.games.typdom import plan_ref
from bot.games.typdom.engine import Outcome, evaluate
from bot.games.typdom.genbase import SPEC, _best_of, _better, _key, _search, gen_notation, gen_placement
from bot.games.typdom.notation import Turn
from bot.games.typdom.table import SIZE, Table
from bot.games.typdom.tiles import VALUES, VOWELS, jolly_for, sort_rack

# the reference's helpers, which the tests use through this module
from bot.games.typdom.plan_ref import (_after, _fits, _multiset_code, _raw_runs, _squares,  # noqa: F401
                                       _touch_bound, _usage, _zone)

__all__ = ["SPEC", "BestTurn", "placements", "best_turn", "gen_notation"]


@dataclass(frozen=True)
class BestTurn:
    """The best turn found: ``notation`` (player notation), ``score`` (Point-Typ-Dom
    points), ``tiles`` (tiles laid), ``words`` (placed words with their contact words),
    ``outcome`` (the engine's judgement of it)."""

    notation: str
    score: int
    tiles: int
    words: tuple[str, ...]
    outcome: Outcome

    def to_json(self) -> dict:
        return {"notation": self.notation, "score": self.score, "tiles": self.tiles, "words": list(self.words)}


def placements(rows: Sequence[str], rack: str, lexicon: Any) -> list[GenMove]:
    """Every valid single placement of ``rack`` on the table ``rows`` (each placement
    once per direction; ``GenMove.score`` is the Point-Typ-Dom value, ``runs`` >= 2
    marks a joining placement)."""
    return gridgen.all_moves(list(rows), rack, lexicon, SPEC)


def _two_passes(variant: str, n_rack: int, best_key: tuple[int, int]) -> bool:
    """Whether a plan's listing runs in two passes (``_first``; the answer is the same
    either way): when a best plan is known, in Point-Typ-Dom always (its value bound
    leaves few records besides the joining ones: 15,500 instead of 360,000 on the
    ``--big`` rack of 16 tiles), in the Kreuzwort-Spiel only when the best plan lays
    every tile of a rack of at least ``_KREUZ_TWO_PASS_TILES`` (off: there the need is
    by tiles, a value bound hardly cuts, and the second pass cost about what it saved,
    measured on the ``--big`` racks and the bench's positions; issue 35)."""
    return variant != "kreuzwort" or best_key[0] >= n_rack >= _KREUZ_TWO_PASS_TILES


_KREUZ_TWO_PASS_TILES = 99  # (off; the tests set it to 0 to run the two passes there too)


def _first(rows: Sequence[str], rack: str, root: dict, variant: str, prefix: list[str], best, jolly,
           gaddag=None):
    """:func:`bot.games.typdom.plan_ref.first` (same arguments and answers) on the
    compiled core: the listing's records stay in C arrays
    (:class:`bot.games._gridcore.PlanListing`); Python objects only for the placements
    phase (b) searches after and for plans that can win.  ``gaddag``: the compiled
    GADDAG of ``root``'s words, or None; with it the listing reads each line from its
    table tiles over the GADDAG (``_gridcore.search``'s ``gaddag``: the same records)."""
    lst = _gridcore.PlanListing(rack, variant == "kreuzwort", VALUES, VOWELS)
    gd = gaddag if LIST_GADDAG else None
    # (the compiled search itself: _first runs only while it is active; it copies rows)
    if best is None or not _two_passes(variant, len(rack), best[0]):
        _gridcore.search(rows, rack, root, lst, [-1], SPEC, gaddag=gd)
    else:
        # two passes (issue 35): the joining placements, then only what can still be
        # part of a plan as good as the best known (_listing_need)
        lst.set_pass(1)
        _gridcore.search(rows, rack, root, lst, [-1], SPEC, gaddag=gd)
        need = _listing_need(variant, len(rack), best[0], lst.join_max())
        lows = [v for v in need if v is not None]
        if lows:
            # (the search cuts by the need of the tiles each word would lay)
            lst.set_pass(2, need)
            _gridcore.search(rows, rack, root, lst, [max(0, min(lows))], SPEC, gaddag=gd)
    if not len(lst):
        return None
    single = _best_of([lst.raw(i) for i in lst.top()], variant)
    plan = (single[0], prefix + [single[2]], (single[1],), jolly)
    if best is None or _better(plan, best):
        best = plan
    cache: dict = {}

    def on_plan(i: int, tied: list[int]):
        nonlocal best
        raw = lst.raw(i)
        sec = _best_of([lst.raw(j) for j in tied], variant)
        m = gridgen.to_move(raw)
        plan = (_key(raw[0] + sec[1].score, raw[1] + len(sec[1].tiles), variant),
                prefix + [gen_notation(m, rows), sec[2]], (m, sec[1]), jolly)
        if _better(plan, best):
            best = plan
        return best[0]

    if not lst.joining():
        return best, [], cache, None
    lst.finish()  # (the groups and zones of phase (a): only with a joining placement)
    later = lst.plan_loop(best[0][0], best[0][1], sum(VALUES.get(ch, 0) for ch in rack), root, SPEC, cache,
                          _gridcore.TouchBound(rows, VALUES), on_plan)
    return best, later, cache, lambda i: gridgen.to_move(lst.raw(i))


def _listing_need(variant: str, n_rack: int, best_key: tuple[int, int], join_max: list[int]) -> list[int | None]:
    """Per number of tiles laid ``k`` (0 .. ``n_rack``), the least score a placement that
    is not joining must reach to be part of a plan whose key is at least ``best_key``
    (None: no such plan), given ``join_max[j]``, the best score of a joining placement
    laying ``j`` tiles (-1: none). The listing after the Jolly take lists only these
    besides the joining placements (``_first``, issue 35).

    Why this never changes the answer: a placement r laying k tiles with score s enters
    a plan only (1) alone, with key(r) >= best_key, or (2) as phase (a)'s second placement
    after a joining placement m (j tiles, score at most ``join_max[j]``, j + k at most
    the rack, the two using different tiles), with key(m) + key(r) >= best_key (phase
    (a) passes over every second placement below the limit best_key - key(m), and the
    best key only grows). Phase (b) searches its own placements; the joining ones are all
    listed. Point-Typ-Dom's key starts with the score: (1) needs s >= best, (2) needs
    s >= best - join_max[j]. The Kreuzwort-Spiel's starts with the tiles: (1) needs
    k > best tiles, or k = best tiles and s >= best score; (2) the same with j + k for k
    and s + join_max[j] for s. Ties (equal keys, decided by the notation) are kept: every
    bound is ``>=``. ``tests/test_typdom_listing.py`` checks the two passes hold every
    record these rules keep and the turns stay the reference's."""
    b0, b1 = best_key
    out: list[int | None] = []
    for k in range(n_rack + 1):
        opts = []
        if variant == "kreuzwort":
            if k > b0:
                opts.append(0)
            elif k == b0:
                opts.append(b1)
        else:
            opts.append(b0)
        for j in range(1, n_rack - k + 1):
            s = join_max[j]
            if s < 0:
                continue
            if variant != "kreuzwort":
                opts.append(b0 - s)
            elif j + k > b0:
                opts.append(0)
            elif j + k == b0:
                opts.append(b1 - s)
        out.append(min(opts) if opts and k > 0 else None)
    return out


def _best_plan(rows: Sequence[str], rack: str, lexicon: Any, variant: str, prefix: list[str], best=None,
               jolly: tuple[int, int] | None = None):
    """The better of ``best`` (a plan or None) and the best turn without a Jolly taken on
    ``rows`` with ``rack`` (after the Jolly take written in ``prefix``, of the Jolly at
    ``jolly``, 1-based). A plan is ``(key, notation parts, placements as GenMove,
    jolly)``.

    Exhaustive: for every joining first placement m the best second placement on the
    table m leaves, with the rack it leaves, is the best of (a) the single placements of
    the first search that m leaves untouched (:func:`.plan_ref._zone`) and whose tiles are still in
    the rack, and (b) the placements touching m's tiles (``gridgen.search`` with
    ``touch``). First placements are taken by an upper bound of their plan, best first;
    the search stops when the bound is below the best plan found, and (b) is skipped for
    an m whose bound for (b) is below it (:func:`.plan_ref._touch_bound`)."""
    root = gridgen.graph_root(lexicon)
    gaddag = None
    if USE_GADDAG and gridgen.compiled_active():
        gaddag = compiled_gaddag_if_cached(lexicon)
    if gridgen.compiled_active():
        found = _first(rows, rack, root, variant, prefix, best, jolly, gaddag)
    else:
        found = plan_ref.first(rows, rack, root, variant, prefix, best, jolly)
    if found is None:
        return best
    best, later, cache, move_of = found
    if not later:
        return best
    # best bound first (the order does not change the answer: a joining placement is
    # only passed over when its bound is below the best plan, and every search lists
    # all the second placements that tie with it)
    later.sort(key=itemgetter(0), reverse=True)
    seconds = _Seconds(rows, rack, root, variant, cache, gaddag)
    for ub_b, m_tiles, m_score, m_nt, rack2, ref in later:
        if ub_b < best[0]:
            break
        sec_b = seconds.best(m_tiles, m_score, m_nt, rack2, best[0])
        if sec_b is None:
            continue
        _, m2, n2 = sec_b
        m = move_of(ref)
        plan = (_key(m.score + m2.score, len(m.tiles) + len(m2.tiles), variant), prefix + [gen_notation(m, rows), n2],
                (m, m2), jolly)
        if _better(plan, best):
            best = plan
    return best


#: True (the default): phase (b)'s touch searches read their lines over the lexicon's
#: compiled GADDAG (``TouchSearcher.use_gaddag``) when it is in memory or its file is in
#: the cache and current (:func:`bot.games.gaddag.compiled_gaddag_if_cached`; written by
#: ``spielleiter lexicon build``, never built in a turn), else by anchors and left parts,
#: with the same answer: a league view (allow/deny words), a small list, no file yet.
#: False: always by anchors (benches, tests).  Issue 35; docs/development/performance-movegen.md.
USE_GADDAG = True
GADDAG_MEMO = 1  # (0: over the GADDAG without the line memo; for benches)
#: True (the default): with :data:`USE_GADDAG` and a GADDAG at hand, the plan's listing
#: (:func:`_first`) reads its lines over it too, from their table tiles
#: (``bot/games/gridcore/list_gaddag.pxi``); False: by anchors (benches, tests).
LIST_GADDAG = True


class _Seconds:
    """Phase (b) of :func:`_best_plan`: the best second placement touching a joining first
    placement, on one table ``rows`` with one rack ``rack`` (the plan's, before the first
    placement) in ``variant``; ``root`` the word graph, ``cache`` the ``can_lay`` memo.

    With the compiled core, one :class:`bot.games._gridcore.TouchSearcher` per plan: the
    table is parsed and its cross-checks computed once, each first placement's tiles are
    laid in place and only the lines a touching word can lie in are searched; a line
    that found nothing is remembered (its state, the rack left, ``min_tiles`` and
    ``threshold``), so the same line after another first placement with the same rack
    left is not searched again (issue 35).  With ``gaddag`` (the compiled GADDAG of the
    same words) the lines are read over it.  Inside ``gridgen.reference_search()`` it
    builds the table after each first placement and runs ``gridgen.search`` with
    ``touch`` (:func:`_seconds_reference`): the same answers."""

    def __init__(self, rows: Sequence[str], rack: str, root: dict, variant: str, cache: dict, gaddag=None) -> None:
        self.rows, self.rack, self.root, self.variant, self.cache = list(rows), rack, root, variant, cache
        self.gaddag = gaddag  # (the compiled GADDAG of root's words, or None: by anchors)
        self.compiled = gridgen.compiled_active()
        self.searcher = None  # (the TouchSearcher, made on the first query)

    def best(self, m_tiles: list, m_score: int, m_nt: int, rack2: str, best_key: tuple[int, int]):
        """``(key, GenMove, notation)`` of the best placement of ``rack2`` (the rack the
        first placement leaves) on the table after the first placement (``m_tiles``: its
        new tiles as ``(row, col, letter, jolly)``, 0-based; ``m_score`` its value,
        ``m_nt`` its tiles) whose word or a contact word holds one of its tiles, among
        those with which the plan can reach ``best_key`` (the best plan's key); ties by the
        smallest notation. None when there is no such placement."""
        if not self.compiled:
            return _seconds_reference(self.rows, self.rack, self.root, self.variant, self.cache, m_tiles, m_score,
                                      m_nt, rack2, best_key)
        variant = self.variant
        threshold, min_tiles = _second_need(variant, len(self.rack), m_score, m_nt, best_key)
        if min_tiles > 0 and not _gridcore.can_lay(self.root, rack2, min_tiles, SPEC, self.cache):
            return None  # no word holds enough of the tiles left (the search would say so too)
        if self.searcher is None:
            self.searcher = _gridcore.TouchSearcher(self.rows, self.root, SPEC)
            if self.gaddag is not None:
                self.searcher.use_gaddag(self.gaddag)
                self.searcher.gd_memo = GADDAG_MEMO
        raws = self.searcher.search(m_tiles, rack2, threshold, min_tiles, self.cache)
        return _best_of(raws, variant)


def _second_need(variant: str, n_rack: int, m_score: int, m_nt: int, best_key: tuple[int, int]) -> tuple[int, int]:
    """``(threshold, min_tiles)`` of the second placements that can make a plan (first
    placement of value ``m_score`` laying ``m_nt`` tiles, from a rack of ``n_rack``) as
    good as ``best_key``: Point-Typ-Dom by value; the Kreuzwort-Spiel by tiles, and by
    value too when the best plan lays every tile (a second placement must then lay all
    the tiles left and reach its score)."""
    if variant == "kreuzwort":
        if best_key[0] >= n_rack:
            return best_key[1] - m_score, max(0, best_key[0] - m_nt)
        return -1, max(0, best_key[0] - m_nt)
    return best_key[0] - m_score, 0


def _seconds_reference(rows: Sequence[str], rack: str, root: dict, variant: str, cache: dict, m_tiles: list,
                       m_score: int, m_nt: int, rack2: str, best_key: tuple[int, int]):
    """:meth:`_Seconds.best` by a whole ``gridgen.search`` with ``touch`` on the table after
    the first placement (the way it was done before issue 35; the property test's
    reference, and what runs inside ``gridgen.reference_search()``)."""
    if variant == "kreuzwort" and gridgen.compiled_active() and best_key[0] - m_nt > 0 and \
            not _gridcore.can_lay(root, rack2, best_key[0] - m_nt, SPEC, cache):
        return None  # no word holds enough of the tiles left (the search would say so too)
    # the table and rack m leaves (as _after, from the raw record)
    rows2 = list(rows)
    for r, c, ch, b in m_tiles:
        line = rows2[r]
        rows2[r] = line[:c] + (ch.lower() if b else ch) + line[c + 1:]
    touch = [(r + 1, c + 1) for r, c, _ch, _b in m_tiles]
    # only second placements that can make a plan as good as the best are listed
    if variant == "kreuzwort":
        need = {"min_tiles": max(0, best_key[0] - m_nt)}
        if best_key[0] >= len(rack):
            # the best plan lays every tile: a second placement must lay all the
            # tiles left and reach its score
            need["threshold"] = best_key[1] - m_score
    else:
        need = {"threshold": best_key[0] - m_score}
    return _best_of(_search(rows2, rack2, root, touch, cache=cache, **need), variant)


def best_turn(rows: Sequence[str], rack: str, lexicon: Any, variant: str = "point") -> BestTurn | None:
    """The best turn ``rack`` allows on the table ``rows`` (25 row codes) in ``variant``
    (``"point"``: most points; ``"kreuzwort"``: most tiles laid), or None when no word
    can be laid (the player has to buy). Exhaustive (see the module docstring for what is
    searched and how long it takes)."""
    rows = list(rows)
    if not rack:
        return None
    # The cyclic garbage collector is off meanwhile: a large rack lists hundreds of
    # thousands of placements (tuples), and every collection walked them and the word
    # graph's dicts again (a sixth of the time). Cycles made meanwhile are collected
    # after; if the collector was off already, it stays off.
    was = gc.isenabled()
    gc.disable()
    try:
        return _best_turn(rows, rack, lexicon, variant)
    finally:
        if was:
            gc.enable()


def _jollys(rows: list[str]) -> list[tuple[int, int, str]]:
    """The Jollys of the table ``rows`` that can be taken (``Table.jollys`` with at most
    two occupied neighbours, ``Table.neighbours``): (row, col, letter), 1-based."""
    out = []
    n = len(rows)
    whole = "".join(rows)
    if whole == whole.upper():
        return out  # (no lower-case code: no Jolly)
    for r, line in enumerate(rows):
        if line == line.upper():
            continue  # (no lower-case code: no Jolly)
        w = len(line)
        for c, ch in enumerate(line):
            if ch.islower():
                occ = ((r > 0 and rows[r - 1][c] not in _EMPTY) + (r + 1 < n and rows[r + 1][c] not in _EMPTY) +
                       (c > 0 and line[c - 1] not in _EMPTY) + (c + 1 < w and line[c + 1] not in _EMPTY))
                if occ < 3:
                    out.append((r + 1, c + 1, ch.upper()))
    return out


_EMPTY = frozenset(". ")
_TILES: dict[str, Any] = {}
_ROWS: dict[str, tuple] = {}  # row code -> its squares (Tile or None); bounded below


def _table(rows: list[str]) -> Table:
    """``Table.from_rows(rows)`` with one Tile object per row code (tiles are frozen) and
    one tuple per row code (most rows of a table are empty or seen before). The shape is
    checked here (ValueError as ``Table.from_rows``): a cached row has SIZE squares, so
    the Table is made without checking every row again."""
    if len(rows) != SIZE:
        raise ValueError(f"ein Brettcode hat {SIZE} Zeilen zu {SIZE} Zeichen")
    try:
        grid = tuple(map(_ROWS.__getitem__, rows))
    except KeyError:
        if len(_ROWS) > 4096:
            _ROWS.clear()
        for line in rows:
            if line not in _ROWS:
                if len(line) != SIZE:
                    raise ValueError(f"ein Brettcode hat {SIZE} Zeilen zu {SIZE} Zeichen") from None
                for ch in line:
                    if ch not in _TILES:
                        _TILES[ch] = Table.tile_from_code(ch)  # (ValueError for a bad code)
                _ROWS[line] = tuple(map(_TILES.__getitem__, line))
        grid = tuple(map(_ROWS.__getitem__, rows))
    return _EMPTY_TABLE._same_shape(grid)


_EMPTY_TABLE = Table.empty()  # (its _same_shape makes a Table without the shape check)


def _best_turn(rows: list[str], rack: str, lexicon: Any, variant: str) -> BestTurn | None:
    best = _best_plan(rows, rack, lexicon, variant, [])
    for r, c, letter in _jollys(rows):
        if letter not in rack:
            continue
        rows2 = list(rows)
        rows2[r - 1] = rows2[r - 1][:c - 1] + letter + rows2[r - 1][c:]
        left = Counter(rack)
        left[letter] -= 1
        left[jolly_for(letter)] += 1
        best = _best_plan(rows2, sort_rack(left.elements()), lexicon, variant, [f"JOLLY {Table.coord(r, c)}"], best,
                          (r, c))
    if best is None:
        return None
    notation = "; ".join(best[1])
    # the plan's own Placements (what parse_turn would read from the notation: no parse)
    turn = Turn(placements=tuple(gen_placement(m) for m in best[2]), jolly=best[3])
    out = evaluate(_table(rows), rack, turn, lexicon, variant)
    if not out.valid:
        raise RuntimeError(f"move generator and rules disagree: {notation} is {out.reason} ({out.message})")
    return BestTurn(out.notation, out.score, out.tiles, tuple(out.words), out)

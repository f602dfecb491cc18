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
  of the first search that m leaves untouched (:func:`_zone`: m fills no square of their
  word's span with one square beyond each end, nor of the perpendicular runs through
  their new tiles with one square beyond) whose tiles are still in the rack, and (b) the
  placements whose word or contact word holds a tile of m (``gridgen.search`` with
  ``touch``). All (a) are tried first; then (b), the joining placements best bound
  first, skipped when :func:`_touch_bound` shows they cannot reach the best plan, and
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
  equal to a full search after every joining placement (``tests/test_typdom_exhaustive.py``).
  CPU time per rack in ``bench/typdom_bench.py`` (84 self-played positions) with the
  compiled search core (issue 25, ``docs/development/performance-movegen.md``): median 6-8 ms, worst
  0.3 s (Point-Typ-Dom) and 0.8 s (Kreuzwort-Spiel: a 15-tile rack with a Jolly); a
  16-tile rack with both Jollys 0.1-4.5 s (the pure-Python search: about 2.5 minutes);
* the same after taking a Jolly (``JOLLY M13; ...``) for every Jolly on the table with at
  most two occupied neighbours whose letter the rack holds.

"Best" is, for Point-Typ-Dom, the most points (then more
tiles), for the Kreuzwort-Spiel the most tiles laid (then more points); then the
lexicographically smallest notation, so the answer is reproducible. The winner is
re-judged by :func:`bot.games.typdom.engine.evaluate`, so its notation and score are the
rules' own.
"""

from __future__ import annotations

import contextlib
import gc
from collections import Counter
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Sequence

from bot.games import _gridcore, gridgen
from bot.games.gridgen import GenMove, GridSpec
from bot.games.typdom.engine import Outcome, evaluate
from bot.games.typdom.notation import Placement, Token, format_placement
from bot.games.typdom.table import CENTRE, SIZE, Table
from bot.games.typdom.tiles import BLACK_JOLLY, CONSONANTS, RED_JOLLY, VALUES, VOWELS, jolly_for, sort_rack

__all__ = ["SPEC", "BestTurn", "placements", "best_turn", "gen_notation"]

#: Typ-Dom's parameters of the shared generator (seed 002; RULES.md "Typ-Dom").
SPEC = GridSpec(size=SIZE, centre=CENTRE, values=VALUES, premiums=None, blanks={RED_JOLLY: VOWELS,
                BLACK_JOLLY: CONSONANTS}, cross_score=False, require_old=True, single_both_ways=True)


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


def gen_notation(m: GenMove, rows: Sequence[str]) -> str:
    """The player notation of a generated placement on the table ``rows``
    (``M11s TEx*AS``)."""
    new = {(r, c): (ch, b) for r, c, ch, b in m.tiles}
    dr, dc = (0, 1) if m.direction == "w" else (1, 0)
    toks = []
    for i, ch in enumerate(m.word):
        sq = (m.row + i * dr, m.col + i * dc)
        if sq in new:
            toks.append(Token("blank" if new[sq][1] else "new", ch))
        else:
            toks.append(Token("old", ch))
    return format_placement(Placement(m.row, m.col, m.direction, tuple(toks)))


def placements(rows: Sequence[str], rack: str, lexicon: Any) -> list[GenMove]:
    """Every valid single placement of ``rack`` on the table ``rows`` (each placement
    once per direction; ``GenMove.score`` is the Point-Typ-Dom value, ``runs`` >= 2
    marks a joining placement)."""
    return gridgen.all_moves(list(rows), rack, lexicon, SPEC)


def _after(rows: Sequence[str], rack: str, m: GenMove) -> tuple[list[str], str]:
    grid = [list(r) for r in rows]
    left = Counter(rack)
    for r, c, ch, b in m.tiles:
        grid[r - 1][c - 1] = ch.lower() if b else ch
        left[jolly_for(ch) if b else ch] -= 1
    return ["".join(r) for r in grid], sort_rack(left.elements())


def _key(score: int, tiles: int, variant: str) -> tuple[int, int]:
    return (tiles, score) if variant == "kreuzwort" else (score, tiles)


def _raw_runs(raw) -> int:
    """Groups of table tiles in the main word of a raw search record."""
    _score, _nt, _tr, _r, start, word, placed, _parts = raw
    new = {p for p, _, _ in placed}
    runs, prev = 0, False
    for p in range(start, start + len(word)):
        old = p not in new
        if old and not prev:
            runs += 1
        prev = old
    return runs


def _search(rows: Sequence[str], rack: str, root: dict, touch=None, *, threshold: int = -1,
            min_tiles: int = 0, cache: dict | None = None) -> list:
    found: list = []
    gridgen.search(list(rows), rack, root, found.append, [threshold], SPEC, touch, min_tiles=min_tiles,
                   cache=cache)
    return found


def _best_of(raws: list, rows: Sequence[str], variant: str):
    """(key, GenMove, notation) of the best raw record (ties: smallest notation)."""
    if not raws:
        return None
    keyget = itemgetter(1, 0) if variant == "kreuzwort" else itemgetter(0, 1)  # _key of a record
    top = max(map(keyget, raws))
    tied = [gridgen.to_move(r) for r in raws if keyget(r) == top]
    best = min(tied, key=lambda m: gen_notation(m, rows))
    return top, best, gen_notation(best, rows)


def _squares(raw) -> list[tuple[int, int]]:
    """The squares (0-based row, col) of a raw record's new tiles."""
    _s, _n, tr, r, _st, _w, placed, _p = raw
    return [(p, r) if tr else (r, p) for p, _, _ in placed]


def _usage(raw) -> dict[str, int]:
    """The rack characters a raw record uses (a Jolly laid as a letter counts as that Jolly)."""
    out: dict[str, int] = {}
    for _p, ch, b in raw[6]:
        k = jolly_for(ch) if b else ch
        out[k] = out.get(k, 0) + 1
    return out


def _zone(raw) -> frozenset:
    """The squares (0-based) whose filling could change a raw record's words: its word's
    span with one square before and after, and for each new tile the perpendicular run
    through it with one square beyond each end. A placement of the first search stays
    valid, with the same words and value, after a first placement that fills none of
    these squares (and leaves its tiles in the rack)."""
    _s, _n, tr, r, start, word, placed, parts = raw
    sq = [(r, p) for p in range(start - 1, start + len(word) + 1)]
    for p, _ch, _b in placed:
        pr = parts[r][p]
        up, down = (len(pr[0]), len(pr[1])) if pr is not None else (0, 0)
        sq.extend((ln, p) for ln in range(r - up - 1, r + down + 2))
    return frozenset((b, a) if tr else (a, b) for a, b in sq)


def _touch_bound(rows2: Sequence[str], squares: list[tuple[int, int]], rack2: str) -> int:
    """An upper bound of the Point-Typ-Dom value of any placement of ``rack2`` on
    ``rows2`` whose word or a contact word holds one of ``squares`` (0-based): such a
    word lies in a line :func:`bot.games.gridspec._touch_lines` names; its value is the
    table tiles of a stretch of that line holding at most ``len(rack2)`` empty squares
    plus the best values of as many rack tiles."""
    vals = sorted((VALUES.get(ch, 0) for ch in rack2), reverse=True)
    top = [0]
    for v in vals:
        top.append(top[-1] + v)
    k = len(vals)
    best = 0
    for tr in (False, True):
        L = ["".join(c) for c in zip(*rows2)] if tr else list(rows2)
        need = set()
        for r, c in squares:
            ln, pos = (c, r) if tr else (r, c)
            need.add(ln)
            i = ln - 1
            while i >= 0 and L[i][pos] not in _EMPTY:
                i -= 1
            if i >= 0:
                need.add(i)
            i = ln + 1
            while i < SIZE and L[i][pos] not in _EMPTY:
                i += 1
            if i < SIZE:
                need.add(i)
        for ln in need:
            line = L[ln]
            pre = [0]
            empties = []
            for i, ch in enumerate(line):
                if ch in _EMPTY:
                    empties.append(i)
                    pre.append(pre[-1])
                else:
                    pre.append(pre[-1] + (VALUES.get(ch, 0) if ch.isupper() else 0))
            if len(empties) <= k:
                best = max(best, pre[SIZE] + top[len(empties)])
                continue
            for i in range(len(empties) - k + 1):
                lo = empties[i - 1] + 1 if i else 0
                hi = empties[i + k] if i + k < len(empties) else SIZE
                best = max(best, pre[hi] - pre[lo] + top[k])
    return best


_EMPTY = frozenset(". ")


def _multiset_code(tiles: dict[str, int], fields: dict[str, int]) -> int:
    """The tile counts ``tiles`` as one integer, 6 bits a tile kind (``fields``: kind ->
    field index; counts up to 31): :class:`bot.games._gridcore.MultisetIndex` finds the
    ones a rack holds, with a guard bit 32 per field (a count below zero clears it)."""
    out = 0
    for ch, n in tiles.items():
        out |= n << (6 * fields[ch])
    return out


def _fits(use, have: dict[str, int]) -> bool:
    """Whether the rack ``have`` holds the tiles ``use`` (``(tile, count)`` pairs)."""
    return all(have.get(ch, 0) >= n for ch, n in use)


def _best_plan(rows: Sequence[str], rack: str, lexicon: Any, variant: str, prefix: list[str], best=None):
    """The better of ``best`` (a plan or None) and the best turn without a Jolly taken on
    ``rows`` with ``rack`` (after the Jolly take written in ``prefix``). A plan is
    ``(key, notation parts)``.

    Exhaustive: for every joining first placement m the best second placement on the
    table m leaves, with the rack it leaves, is the best of (a) the single placements of
    the first search that m leaves untouched (:func:`_zone`) and whose tiles are still in
    the rack, and (b) the placements touching m's tiles (``gridgen.search`` with
    ``touch``). First placements are taken by an upper bound of their plan, best first;
    the search stops when the bound is below the best plan found, and (b) is skipped for
    an m whose bound for (b) is below it (:func:`_touch_bound`)."""
    root = gridgen.graph_root(lexicon)
    raws = _search(rows, rack, root)
    single = _best_of(raws, rows, variant)
    if single is None:
        return best
    plan = (single[0], prefix + [single[2]])
    if best is None or _better(plan, best):
        best = plan
    n_rack = len(rack)
    joining = _gridcore.joining(raws, n_rack)  # (the compiled scan of _raw_runs >= 2)
    if not joining:
        return best
    keyget = itemgetter(1, 0) if variant == "kreuzwort" else itemgetter(0, 1)
    ranked = sorted(raws, key=keyget, reverse=True)
    # the placements of the first search grouped by the rack tiles they use (as one
    # integer, _multiset_code), the groups in the order of their best placement: a
    # group's tiles are checked once per m
    fields = {ch: i for i, ch in enumerate(sorted(set(rack)))}
    inc = {ch: 1 << (6 * fields[ch]) if ch in fields else 0 for ch in VALUES}
    inc_blank = {ch: 1 << (6 * fields[jolly_for(ch)]) if jolly_for(ch) in fields else 0 for ch in VALUES}
    groups: dict[int, list[int]] = {}
    for i, code in enumerate(_gridcore.usage_codes(ranked, inc, inc_blank)):
        groups.setdefault(code, []).append(i)
    group_members = list(groups.values())
    index = _gridcore.MultisetIndex(list(groups), len(fields))
    keys = list(map(keyget, ranked))
    zones: dict[int, frozenset] = {}
    top_score = max(map(itemgetter(0), raws))
    rack_values = sorted((VALUES.get(ch, 0) for ch in rack), reverse=True)
    line_best = _line_bound(rows)
    bounder = _gridcore.TouchBound(rows, VALUES)
    cache: dict = {}
    cands = []
    for raw in joining:
        left = len(rack) - raw[1]
        # (a) scores at most the best single placement; (b) at most the table tiles of a
        # line plus the values of the tiles left and of m's (a cheap first bound)
        ub = _key(raw[0] + max(top_score, line_best + sum(rack_values)), raw[1] + left, variant)
        cands.append((ub, raw))
    cands.sort(key=lambda t: t[0], reverse=True)
    later = []
    rack_counts = Counter(rack)
    compiled = gridgen.compiled_active()  # (the reference runs its own search only)
    for ub, raw in cands:
        if ub < best[0]:
            break
        s1, nt1, placed = raw[0], raw[1], raw[6]
        left = rack_counts.copy()
        for _p, ch, b in placed:
            left[jolly_for(ch) if b else ch] -= 1
        left_elements = list(left.elements())
        have = _multiset_code(left, fields)
        m_sq = _squares(raw)
        m_set = set(m_sq)
        # (a) the best placement of the first search that m leaves untouched
        sec = None
        mk = _key(s1, nt1, variant)
        lim = (best[0][0] - mk[0], best[0][1] - mk[1])  # key(m + r2) < best  <=>  key(r2) < lim
        index.set_have(have)
        gi = index.next_fit(0)  # only the groups whose tiles the rack left holds
        while gi >= 0:
            members = group_members[gi]
            k_top = keys[members[0]]
            if k_top < lim or (sec is not None and k_top < sec[0]):
                break  # groups in the order of their best placement: no later one is better
            for i in members:
                k2 = keys[i]
                if k2 < lim or (sec is not None and k2 < sec[0]):
                    break
                z = zones.get(i)
                if z is None:
                    r2 = ranked[i]
                    z = zones[i] = _zone(r2)
                if not m_set.isdisjoint(z):
                    continue
                r2 = ranked[i]
                n2 = gen_notation(gridgen.to_move(r2), rows)
                if sec is None or k2 > sec[0] or n2 < sec[3]:
                    sec = (k2, r2[0], r2[1], n2)
            gi = index.next_fit(gi + 1)
        if sec is not None:
            key = _key(s1 + sec[1], nt1 + sec[2], variant)
            if not key < best[0]:  # (m's notation only for a plan that can win)
                plan = (key, prefix + [gen_notation(gridgen.to_move(raw), rows), sec[3]])
                if _better(plan, best):
                    best = plan
        # (b) the placements using m's tiles: searched below, best bound first, once
        # every (a) has been tried (the best plan is then as good as it gets cheaply)
        if compiled and variant == "kreuzwort" and best[0][0] - nt1 > 0 and \
                not _gridcore.can_lay(root, sort_rack(left_elements), best[0][0] - nt1, SPEC, cache):
            continue  # no word holds enough of the tiles left, nor will (the best plan only grows)
        # (_touch_bound, compiled: the same numbers)
        tb = bounder.bound([(r, c, 0 if b else VALUES.get(ch, 0)) for (r, c), (_p, ch, b) in zip(m_sq, placed)],
                           [VALUES.get(ch, 0) for ch in left_elements])
        ub_b = _key(s1 + tb, len(rack), variant)
        if not ub_b < best[0]:
            later.append((ub_b, raw, m_sq, left_elements))
    # best bound first (the order does not change the answer: a joining placement is
    # only passed over when its bound is below the best plan, and every search lists
    # all the second placements that tie with it)
    later.sort(key=itemgetter(0), reverse=True)
    seconds = _Seconds(rows, rack, root, variant, cache)
    for ub_b, raw, m_sq, left_elements in later:
        if ub_b < best[0]:
            break
        m_score, m_nt = raw[0], raw[1]
        sec_b = seconds.best([(r, c, ch, b) for (r, c), (_p, ch, b) in zip(m_sq, raw[6])], m_score, m_nt,
                             sort_rack(left_elements), best[0])
        if sec_b is None:
            continue
        _, m2, n2 = sec_b
        m = gridgen.to_move(raw)
        plan = (_key(m.score + m2.score, len(m.tiles) + len(m2.tiles), variant), prefix + [gen_notation(m, rows), n2])
        if _better(plan, best):
            best = plan
    return best


class _Seconds:
    """Phase (b) of :func:`_best_plan`: the best second placement touching a joining first
    placement, on one table ``rows`` with one rack ``rack`` (the plan's, before the first
    placement) in ``variant``; ``root`` the word graph, ``cache`` the ``can_lay`` memo.

    With the compiled core, one :class:`bot.games._gridcore.TouchSearcher` per plan: the
    table is parsed and its cross-checks computed once, each first placement's tiles are
    laid in place and only the lines a touching word can lie in are searched; a line
    that found nothing is remembered (its state, the rack left, ``min_tiles`` and
    ``threshold``), so the same line after another first placement with the same rack
    left is not searched again (issue 35).  Inside ``gridgen.reference_search()`` it
    builds the table after each first placement and runs ``gridgen.search`` with
    ``touch`` (:func:`_seconds_reference`): the same answers."""

    def __init__(self, rows: Sequence[str], rack: str, root: dict, variant: str, cache: dict) -> None:
        self.rows, self.rack, self.root, self.variant, self.cache = list(rows), rack, root, variant, cache
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
        raws = self.searcher.search(m_tiles, rack2, threshold, min_tiles, self.cache)
        return _best_of(raws, self.rows, variant)


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
    return _best_of(_search(rows2, rack2, root, touch, cache=cache, **need), rows2, variant)


def _line_bound(rows: Sequence[str]) -> int:
    """The most the table tiles of one row or column are worth."""
    cols = ["".join(c) for c in zip(*rows)]
    return max(sum(VALUES.get(ch, 0) for ch in line if ch.isupper()) for line in list(rows) + cols)


def _better(a, b) -> bool:
    """Plan ``a`` beats ``b``: higher key, then the smaller notation."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return "; ".join(a[1]) < "; ".join(b[1])


def best_turn(rows: Sequence[str], rack: str, lexicon: Any, variant: str = "point") -> BestTurn | None:
    """The best turn ``rack`` allows on the table ``rows`` (25 row codes) in ``variant``
    (``"point"``: most points; ``"kreuzwort"``: most tiles laid), or None when no word
    can be laid (the player has to buy). Exhaustive (see the module docstring for what is
    searched and how long it takes)."""
    rows = list(rows)
    if not rack:
        return None
    with _gc_paused():
        return _best_turn(rows, rack, lexicon, variant)


@contextlib.contextmanager
def _gc_paused():
    """The cyclic garbage collector off for a block: a large rack lists hundreds of
    thousands of placements (tuples), and every collection walked them and the word
    graph's dicts again (a sixth of the time). Cycles made meanwhile are collected
    after the block; if the collector was off already, it stays off."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _best_turn(rows: list[str], rack: str, lexicon: Any, variant: str) -> BestTurn | None:
    best = _best_plan(rows, rack, lexicon, variant, [])
    table = Table.from_rows(rows)
    for r, c, letter in table.jollys():
        if table.neighbours(r, c) >= 3 or letter not in rack:
            continue
        rows2 = list(rows)
        rows2[r - 1] = rows2[r - 1][:c - 1] + letter + rows2[r - 1][c:]
        left = Counter(rack)
        left[letter] -= 1
        left[jolly_for(letter)] += 1
        best = _best_plan(rows2, sort_rack(left.elements()), lexicon, variant, [f"JOLLY {table.coord(r, c)}"], best)
    if best is None:
        return None
    notation = "; ".join(best[1])
    out = evaluate(table, rack, notation, lexicon, variant)
    if not out.valid:
        raise RuntimeError(f"move generator and rules disagree: {notation} is {out.reason} ({out.message})")
    return BestTurn(out.notation, out.score, out.tiles, tuple(out.words), out)

"""The pure-Python reference of Typ-Dom's plan search (:func:`.movegen._best_plan`):
what the compiled :class:`bot.games._gridcore.PlanListing` computes on its C arrays,
written on the raw search records, with the helpers the tests check it with.

:func:`first` runs inside :func:`bot.games.gridgen.reference_search` (the whole turn
search in Python, for tests and benches); ``tests/test_gridcore.py`` and
``tests/test_typdom_exhaustive.py`` compare the two. Rule sources as
:mod:`.movegen` (seed 002; shared/RULES.md "Typ-Dom").
"""

from __future__ import annotations

from collections import Counter
from operator import itemgetter
from typing import Sequence

from bot.games import gridgen
from bot.games.gridgen import GenMove
from bot.games.typdom.genbase import _best_of, _better, _key, _search, gen_notation
from bot.games.typdom.table import SIZE
from bot.games.typdom.tiles import VALUES, jolly_for, sort_rack

__all__ = ["first"]

_EMPTY = frozenset(". ")


def _after(rows: Sequence[str], rack: str, m: GenMove) -> tuple[list[str], str]:
    """The table and rack a placement ``m`` leaves."""
    grid = [list(r) for r in rows]
    left = Counter(rack)
    for r, c, ch, b in m.tiles:
        grid[r - 1][c - 1] = ch.lower() if b else ch
        left[jolly_for(ch) if b else ch] -= 1
    return ["".join(r) for r in grid], sort_rack(left.elements())


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


def _line_bound(rows: Sequence[str]) -> int:
    """The most the table tiles of one row or column are worth."""
    cols = ["".join(c) for c in zip(*rows)]
    return max(sum(VALUES.get(ch, 0) for ch in line if ch.isupper()) for line in list(rows) + cols)


def first(rows: Sequence[str], rack: str, root: dict, variant: str, prefix: list[str], best, jolly):
    """The first part of :func:`.movegen._best_plan`, in Python on the raw records: the
    best single placement and phase (a) for every joining placement, best bound first.
    Returns None when the rack lays nothing, else ``(best plan, phase (b) candidates,
    can_lay cache, GenMove of a candidate's last item)``; the candidates as
    ``(bound key, m_tiles, m_score, m_nt, rack left, raw record)``."""
    raws = _search(rows, rack, root)
    single = _best_of(raws, variant)
    if single is None:
        return None
    plan = (single[0], prefix + [single[2]], (single[1],), jolly)
    if best is None or _better(plan, best):
        best = plan
    n_rack = len(rack)
    joining = [r for r in raws if r[1] < n_rack and len(r[5]) - r[1] >= 2 and _raw_runs(r) >= 2]
    if not joining:
        return best, [], {}, gridgen.to_move
    keyget = itemgetter(1, 0) if variant == "kreuzwort" else itemgetter(0, 1)
    ranked = sorted(raws, key=keyget, reverse=True)
    # the placements grouped by the rack tiles they use, the groups in the order of
    # their best placement: a group's tiles are checked once per m
    groups: dict[tuple, list[int]] = {}
    for i, raw in enumerate(ranked):
        groups.setdefault(tuple(sorted(_usage(raw).items())), []).append(i)
    keys = list(map(keyget, ranked))
    zones: dict[int, frozenset] = {}
    extra = max(max(map(itemgetter(0), raws)), _line_bound(rows) + sum(VALUES.get(ch, 0) for ch in rack))
    # (a) scores at most the best single placement; (b) at most the table tiles of a
    # line plus the values of the tiles left and of m's (a cheap first bound)
    cands = sorted(((_key(raw[0] + extra, n_rack, variant), raw) for raw in joining), key=itemgetter(0),
                   reverse=True)
    later = []
    rack_counts = Counter(rack)
    for ub, raw in cands:
        if ub < best[0]:
            break
        s1, nt1, placed = raw[0], raw[1], raw[6]
        left = rack_counts.copy()
        left.subtract(_usage(raw))
        m_sq = _squares(raw)
        m_set = set(m_sq)
        sec = None
        mk = _key(s1, nt1, variant)
        lim = (best[0][0] - mk[0], best[0][1] - mk[1])  # key(m + r2) < best  <=>  key(r2) < lim
        for use, members in groups.items():
            k_top = keys[members[0]]
            if k_top < lim or (sec is not None and k_top < sec[0]):
                break  # groups in the order of their best placement: no later one is better
            if not _fits(use, left):
                continue
            for i in members:
                k2 = keys[i]
                if k2 < lim or (sec is not None and k2 < sec[0]):
                    break
                z = zones.get(i)
                if z is None:
                    z = zones[i] = _zone(ranked[i])
                if not m_set.isdisjoint(z):
                    continue
                r2 = ranked[i]
                n2 = gen_notation(gridgen.to_move(r2), rows)
                if sec is None or k2 > sec[0] or n2 < sec[3]:
                    sec = (k2, r2[0], r2[1], n2, r2)
        if sec is not None:
            key = _key(s1 + sec[1], nt1 + sec[2], variant)
            if not key < best[0]:
                m = gridgen.to_move(raw)
                plan = (key, prefix + [gen_notation(m, rows), sec[3]], (m, gridgen.to_move(sec[4])), jolly)
                if _better(plan, best):
                    best = plan
        # (b) when a placement touching m can still make a plan as good as the best
        rows2 = list(rows)
        for (r, c), (_p, ch, b) in zip(m_sq, placed):
            rows2[r] = rows2[r][:c] + (ch.lower() if b else ch) + rows2[r][c + 1:]
        rack2 = sort_rack(left.elements())
        ub_b = _key(s1 + _touch_bound(rows2, m_sq, rack2), n_rack, variant)
        if not ub_b < best[0]:
            later.append((ub_b, [(r, c, ch, b) for (r, c), (_p, ch, b) in zip(m_sq, placed)], s1, nt1, rack2, raw))
    return best, later, {}, gridgen.to_move

"""The pure-Python reference of the word-grid search (:func:`search_reference`).

It is the executable reference the compiled core (:mod:`bot.games._gridcore`) is tested
against (``tests/test_gridcore.py``) and the benches measure it with;
:func:`bot.games.gridgen.reference_search` switches :func:`bot.games.gridgen.search` to
it for a block.  The algorithm and the rules' sources: :mod:`bot.games.gridgen`'s module
doc; the tables it builds: :mod:`bot.games.gridspec`.
"""

from __future__ import annotations

from typing import Callable, Collection, Sequence

from bot.games.gridspec import (GridSpec, _cross_info, _heights, _kind_of, _left_parts, _letters_memo,
                                _parse, _parse_rack, _rack_cap, _touch_lines)
from bot.wordgraph import END

__all__ = ["search_reference"]


def search_reference(board_rows: Sequence[str], rack: str, root: dict, sink: Callable, threshold: list,
                     spec: GridSpec, touch: Collection[tuple[int, int]] | None = None, *, min_tiles: int = 0,
                     cache: dict | None = None) -> None:
    """The pure-Python reference of the search. Run both passes, calling ``sink(raw)`` for each move whose score is >= the
    current ``threshold[0]`` (``sink`` may raise the threshold).

    ``raw`` = ``(score, ntiles, transposed, line_index, start, word, placed, xparts)``
    with ``placed`` a tuple of ``(pos, letter, is_blank)`` along the line and
    ``xparts`` the cross-word parts of the pass (filled in for the searched lines).

    ``touch``: board squares ``(row, col)``, 1-based, all holding tiles, or None. When
    given, only the moves whose main word or one of whose cross words holds one of these
    squares are reported (Typ-Dom: the second placements that use the tiles of the first
    one); only the lines such a move can lie in are searched. Each move is still
    reported once, by its leftmost anchor (the anchors are those of the whole board).

    ``min_tiles``: only the moves laying at least that many tiles are reported (branches
    that cannot reach it are cut: by the tiles left, the longest continuation in the
    graph, and per letter the most times a continuation holds it). ``cache``: a dict the caller keeps across calls with the same ``root``
    (the rack's left parts are memoised in it).
    """
    size = spec.size
    letters, values = _parse(board_rows, spec)
    counts, blanks0 = _parse_rack(rack, spec)
    ntotal = sum(counts.values()) + sum(blanks0)
    if ntotal == 0:
        return
    kind_of = _kind_of(spec)
    empty = all(x is None for row in letters for x in row)
    if min_tiles > ntotal:
        return
    maxlen = min(ntotal - 1, size - 1)
    heights = _heights(root) if (touch is not None or min_tiles) else None
    most = _letters_memo(root) if min_tiles else None
    lkey = ("lps", tuple(sorted(counts.items())), tuple(blanks0), maxlen, min_tiles)
    lps = cache.get(lkey) if cache is not None else None
    if lps is None:
        lps = _left_parts(root, dict(counts), list(blanks0), kind_of, maxlen, min_tiles, heights, most)
        if cache is not None:
            cache[lkey] = lps
    lps_by_len = None
    if heights is not None:
        hkey = ("lps_by_len",) + lkey[1:]
        lps_by_len = cache.get(hkey) if cache is not None else None
        if lps_by_len is None:
            lps_by_len = _left_parts_by_length(lps, heights)
            if cache is not None:
                cache[hkey] = lps_by_len
    lm, wm, lm_t, wm_t = spec.tables()
    cr, cc = spec.centre[0] - 1, spec.centre[1] - 1

    t_letters = [list(col) for col in zip(*letters)]
    t_values = [list(col) for col in zip(*values)]
    if touch is not None:
        touch = [(r - 1, c - 1) for r, c in touch]
        if any(letters[r][c] is None for r, c in touch):
            raise ValueError("touch squares must hold tiles")
        if empty or not touch:
            return
    for transposed in (False, True):
        if transposed:
            L, V, LMs, WMs = t_letters, t_values, lm_t, wm_t
            centre_line, centre_pos = cc, cr
        else:
            L, V, LMs, WMs = letters, values, lm, wm
            centre_line, centre_pos = cr, cc
        if touch is None:
            need = None
            line_range = range(size)
        else:
            need = _touch_lines(L, size, [(c, r) if transposed else (r, c) for r, c in touch])
            line_range = sorted(need)
        allowed_g, xsum_g, parts_g = _cross_info(L, V, root, size, None if need is None else line_range)
        for r in line_range:
            line = L[r]
            if empty:
                if r != centre_line:
                    continue
                anchors = [centre_pos]
            else:
                above = L[r - 1] if r > 0 else None
                below = L[r + 1] if r < size - 1 else None
                anchors = []
                for c in range(size):
                    if line[c] is not None:
                        continue
                    if ((c > 0 and line[c - 1] is not None)
                            or (c < size - 1 and line[c + 1] is not None)
                            or (above is not None and above[c] is not None)
                            or (below is not None and below[c] is not None)):
                        anchors.append(c)
                if not anchors:
                    continue
            nxt = None
            if need is not None:
                # nxt[p]: the first position >= p the main word must reach (size: none)
                nxt = [size] * (size + 1)
                ps = set(need[r])
                for p in range(size - 1, -1, -1):
                    nxt[p] = p if p in ps else nxt[p + 1]
            _row(r, line, V[r], allowed_g[r], xsum_g[r], parts_g, LMs[r], WMs[r], anchors,
                 transposed, counts, blanks0, kind_of, lps, root, sink, threshold, spec, empty, nxt,
                 min_tiles, heights, most, lps_by_len)


def _left_parts_by_length(lps, heights):
    """The left parts ``lps`` per length as ``(height, tiles, node, edges)``, sorted by the
    height of their node (the most letters a word can still add), highest first. (With
    ``min_tiles`` every left part of :func:`_left_parts` can already still lay enough.)"""
    out: dict[int, list] = {}
    for length, tiles, node, edges in lps:
        out.setdefault(length, []).append((heights[id(node)], tiles, node, edges))
    for bucket in out.values():
        bucket.sort(key=lambda e: e[0], reverse=True)
    return out


def _row(r, line, vals, allowed, xsum, parts_g, lm, wm, anchors, transposed, counts,
         blanks0, kind_of, lps, root, sink, threshold, spec, empty, nxt=None, min_tiles=0, heights=None,
         most=None, lps_by_len=None):
    size = spec.size
    VAL = spec.values
    bingo_tiles = spec.bingo_tiles
    bingo_bonus = spec.bingo_bonus
    cross_score = spec.cross_score
    require_old = spec.require_old and not empty
    dedupe_single = not spec.single_both_ways
    line = list(line)
    blank_at = [False] * size
    placed: list = []  # positions of newly placed tiles, in order of placement
    bl = list(blanks0)  # blanks left per kind
    state = [sum(bl), 0, 0]  # blanks left in all, anchor, start
    anchor_set = set(anchors)
    # tiles in the rack (with blanks) when the search of this line starts
    total = sum(counts.values()) + sum(bl)

    def record(end, msum, wmul, xs, nt):
        start = state[2]
        if end - start < 2:
            return
        if require_old and nt == end - start:
            return  # the main word uses no board tile
        if nt < min_tiles:
            return
        if dedupe_single and transposed and nt == 1 and xsum[placed[0]] is not None:
            return  # reported by the across pass
        if nxt is not None and nxt[start] >= end:
            return  # touches none of the squares asked for
        score = msum * wmul + (xs if cross_score else 0) + (bingo_bonus if bingo_tiles and nt >= bingo_tiles else 0)
        if score < threshold[0]:
            return
        word = "".join(line[start:end])
        pl = tuple(sorted((p, line[p], blank_at[p]) for p in placed))
        sink((score, nt, transposed, r, start, word, pl, parts_g))

    def extend(node, col, msum, wmul, xs, nt):
        # walk over board tiles
        while col < size:
            t = line[col]
            if t is None:
                break
            node = node.get(t)
            if node is None:
                return
            msum += vals[col]
            col += 1
        if col > state[1] and END in node:
            record(col, msum, wmul, xs, nt)
        if col >= size:
            return
        if heights is not None:
            h = heights[id(node)]
            if nxt is not None and col + h <= nxt[state[2]]:
                return  # no word from here reaches a square asked for
            if min_tiles:
                if nt + min(h, total - nt) < min_tiles:
                    return  # no word from here lays enough tiles
                if nt + _rack_cap(most, node, counts, state[0]) < min_tiles:
                    return  # the rack tiles a word from here can hold are too few
        ok = allowed[col]
        lmc = lm[col]
        wmc = wm[col]
        xc = xsum[col]
        nb = state[0]
        placed.append(col)
        if nb:
            for ch, child in node.items():
                if ch == END or (ok is not None and ch not in ok):
                    continue
                line[col] = ch
                if counts.get(ch):
                    counts[ch] -= 1
                    v = VAL[ch] * lmc
                    extend(child, col + 1, msum + v, wmul * wmc,
                           xs if xc is None else xs + (xc + v) * wmc, nt + 1)
                    counts[ch] += 1
                k = kind_of.get(ch)
                if k is not None and bl[k]:
                    bl[k] -= 1
                    state[0] = nb - 1
                    blank_at[col] = True
                    extend(child, col + 1, msum, wmul * wmc,
                           xs if xc is None else xs + xc * wmc, nt + 1)
                    blank_at[col] = False
                    state[0] = nb
                    bl[k] += 1
        else:
            for ch, k in counts.items():
                if not k:
                    continue
                child = node.get(ch)
                if child is None or (ok is not None and ch not in ok):
                    continue
                line[col] = ch
                counts[ch] = k - 1
                v = VAL[ch] * lmc
                extend(child, col + 1, msum + v, wmul * wmc,
                       xs if xc is None else xs + (xc + v) * wmc, nt + 1)
                counts[ch] = k
        line[col] = None
        placed.pop()

    def with_left_part(a, length, tiles, node):
        s = a - length
        msum = 0
        wmul = 1
        used_blanks = []
        for i, (ch, isb) in enumerate(tiles):
            c = s + i
            if isb:
                k = kind_of[ch]
                bl[k] -= 1
                used_blanks.append(k)
            else:
                counts[ch] -= 1
                msum += VAL[ch] * lm[c]
            line[c] = ch
            blank_at[c] = isb
            placed.append(c)
            wmul *= wm[c]
        state[0] = sum(bl)
        state[2] = s
        extend(node, a, msum, wmul, 0, length)
        for i, (ch, isb) in enumerate(tiles):
            c = s + i
            if not isb:
                counts[ch] += 1
            line[c] = None
            blank_at[c] = False
        for k in used_blanks:
            bl[k] += 1
        state[0] = sum(bl)
        del placed[-length:]

    for a in anchors:
        state[1] = a
        if a > 0 and line[a - 1] is not None:
            s = a - 1
            while s > 0 and line[s - 1] is not None:
                s -= 1
            node = root
            msum = 0
            for c in range(s, a):
                node = node.get(line[c])
                if node is None:
                    break
                msum += vals[c]
            if node is None or (nxt is not None and nxt[s] >= size):
                continue
            state[2] = s
            extend(node, a, msum, 1, 0, 0)
            continue
        limit = 0
        c = a - 1
        while c >= 0 and line[c] is None and c not in anchor_set:
            limit += 1
            c -= 1
        if nxt is not None and nxt[a - limit] >= size:
            continue  # no word from this anchor can reach a square asked for
        state[2] = a
        extend(root, a, 0, 1, 0, 0)
        if not limit:
            continue
        ok = allowed[a]
        if lps_by_len is None:
            for length, tiles, node, edges in lps:
                if length > limit:
                    break
                if ok is not None and edges.isdisjoint(ok):
                    continue
                with_left_part(a, length, tiles, node)
            continue
        # touch or min_tiles: per length only the left parts whose longest continuation
        # reaches the first square asked for and can hold enough tiles (sorted by it)
        for length in range(1, limit + 1):
            bucket = lps_by_len.get(length)
            if not bucket:
                continue
            s = a - length
            reach = 0
            if nxt is not None:
                if nxt[s] >= size:
                    continue  # the word would start after every square asked for
                reach = nxt[s] - a + 1
            for h, tiles, node, edges in bucket:
                if h < reach:
                    break  # sorted: no later one reaches a square asked for
                if ok is not None and edges.isdisjoint(ok):
                    continue
                with_left_part(a, length, tiles, node)
        state[0] = sum(bl)


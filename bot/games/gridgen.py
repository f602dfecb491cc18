"""Exhaustive move generator for word-grid games (Monoscrabble, Typ-Dom).

One Appel-Jacobson search ("The world's fastest Scrabble program", 1988) over the DAWG
of :mod:`bot.wordgraph`, parameterised by a :class:`GridSpec` that holds what differs
between the games: the board size and centre, letter values, letter and word premiums,
the bingo, the kinds of blank (Monoscrabble: one Blanko for every letter; Typ-Dom: a red
Jolly for vowels and a black one for consonants), whether cross words score, whether the
main word must contain a tile already on the board (Typ-Dom: "mit den bereits
bestehenden Worten mindestens einen Buchstaben gemeinsam", seed 002), and whether a
single tile forming words both ways counts once or once per direction.  The games'
modules (``bot.games.monoscrabble.movegen``, ``bot.games.typdom.movegen``) hold their
specs; the rules' own validators re-judge what this module finds.

Across moves are generated on the board, down moves on the transposed board.  Per pass:

* cross-checks: for every empty square with tiles above or below, the set of letters
  that make a valid perpendicular word, the perpendicular word's parts and the sum of
  its board tiles' values (the "cross score");
* anchors: empty squares next to a tile (the centre on an empty board);
* left parts: when the square left of an anchor is empty, every prefix the rack can
  spell (enumerated once per position, blanks included) of at most as many letters as
  there are free non-anchor squares to its left; when it holds a tile, the tiles there
  are the left part;
* extend-right from the anchor, placing rack tiles allowed by the graph edge and the
  cross-check and walking over board tiles, scoring incrementally.

A move is generated once: by its leftmost anchor in its pass.

Two implementations of the search, with the same answers: the compiled core
:mod:`bot.games._gridcore` (Cython, built by ``pip install``; it also prunes by score,
branch and bound, see its module doc) is what :func:`search` and everything built on it
run; the pure-Python :func:`search_reference` below is the executable reference the
tests compare it with (``tests/test_gridcore.py``) and the benches measure it against.
The compiled core is no optional speed-up: if it fails to import, importing this
module fails (reinstall with ``pip install -e .``).  :func:`reference_search` switches
:func:`search` to the reference for a block (tests and benches only).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Callable, Collection, Iterator, Mapping, Sequence

from bot.games import _gridcore
from bot.wordgraph import END, WordGraph, graph_for

__all__ = ["GridSpec", "GenMove", "move_key", "search", "search_reference", "reference_search",
           "all_moves", "generate", "count_moves", "best_move", "graph_root", "to_move"]


@dataclass(frozen=True)
class GridSpec:
    """What a word-grid game's move generator needs to know.

    ``size``: squares per side; ``centre``: (row, col), 1-based, the square the first
    move must cover; ``values``: letter -> points; ``premiums``: ``size`` strings with the
    conformance README's codes (``T`` ``D`` ``*`` word, ``t`` ``d`` letter premiums,
    ``.`` none) or None; ``bingo_tiles``/``bingo_bonus``: extra points for that many placed
    tiles (0: none); ``blanks``: rack character -> the letters that blank may stand for;
    ``cross_score``: cross words add their points; ``require_old``: the main word must
    contain a tile already on the board (on a non-empty board); ``single_both_ways``: a
    single placed tile forming words in both directions is one move per direction
    (else reported once, across).
    """

    size: int
    centre: tuple[int, int]
    values: Mapping[str, int]
    premiums: Sequence[str] | None = None
    bingo_tiles: int = 0
    bingo_bonus: int = 0
    blanks: Mapping[str, str] = field(default_factory=dict)
    cross_score: bool = True
    require_old: bool = False
    single_both_ways: bool = False

    def tables(self):
        """(lm, wm, lm transposed, wm transposed): per-square multipliers."""
        cached = _TABLES.get(id(self))
        if cached is not None and cached[0] is self:
            return cached[1]
        n = self.size
        rows = self.premiums or ["." * n] * n
        lm = tuple(tuple({"t": 3, "d": 2}.get(ch, 1) for ch in row) for row in rows)
        wm = tuple(tuple({"T": 3, "D": 2, "*": 2}.get(ch, 1) for ch in row) for row in rows)
        lm_t = tuple(tuple(lm[r][c] for r in range(n)) for c in range(n))
        wm_t = tuple(tuple(wm[r][c] for r in range(n)) for c in range(n))
        out = (lm, wm, lm_t, wm_t)
        _TABLES[id(self)] = (self, out)
        return out


_TABLES: dict[int, tuple] = {}


@dataclass(frozen=True)
class GenMove:
    """One valid move.

    ``row``/``col`` (1-based) is the first square of the main word, ``direction``
    ``"w"`` (across) or ``"s"`` (down); ``tiles`` the newly placed tiles as
    ``(row, col, letter, is_blank)`` in word order; ``word`` the whole main word;
    ``words`` the main word then the cross words; ``score`` the points; ``runs`` the
    number of separate groups of board tiles inside the main word (Typ-Dom: 2 or more
    means the move joins words).
    """

    row: int
    col: int
    direction: str
    tiles: tuple[tuple[int, int, str, bool], ...]
    word: str
    words: tuple[str, ...]
    score: int
    runs: int = 0


def move_key(m: GenMove):
    """Sort key, best first: score desc, tiles desc, then row, col, direction, word,
    tiles (so blank/non-blank variants of one word are ordered too)."""
    return (-m.score, -len(m.tiles), m.row, m.col, m.direction, m.word, m.tiles)


# ---------------------------------------------------------------------------------------
# Board parsing


def _parse(board_rows: Sequence[str], spec: GridSpec):
    n = spec.size
    if len(board_rows) != n or any(len(r) != n for r in board_rows):
        raise ValueError(f"board must be {n} strings of {n} characters")
    values = spec.values
    letters = []
    vals = []
    for row in board_rows:
        lr = []
        vr = []
        for ch in row:
            if ch == "." or ch == " ":
                lr.append(None)
                vr.append(0)
            elif ch.isupper():
                lr.append(ch)
                vr.append(values.get(ch, 0))
            elif ch.islower():
                lr.append(ch.upper())
                vr.append(0)
            else:
                raise ValueError(f"bad board character {ch!r}")
        letters.append(lr)
        vals.append(vr)
    return letters, vals


def _parse_rack(rack: str, spec: GridSpec) -> tuple[dict[str, int], list[int]]:
    counts: dict[str, int] = {}
    kinds = list(spec.blanks)
    blanks = [0] * len(kinds)
    for ch in rack:
        if ch in spec.blanks:
            blanks[kinds.index(ch)] += 1
        elif ch == "*" and kinds:
            blanks[0] += 1
        elif ch.isalpha():
            u = ch.upper()
            counts[u] = counts.get(u, 0) + 1
    return counts, blanks


def _kind_of(spec: GridSpec) -> dict[str, int]:
    """letter -> index of the blank kind that may stand for it (first kind wins)."""
    out: dict[str, int] = {}
    for i, letters in enumerate(spec.blanks.values()):
        for ch in letters:
            out.setdefault(ch, i)
    return out


def _cross_info(letters, values, root, size, rows=None):
    """Per square of ``letters`` (rows), the vertical cross-check data.

    Returns ``(allowed, xsum, parts)``: for an empty square with a tile above or below,
    ``allowed[r][c]`` is the set of letters forming a word with them, ``xsum[r][c]``
    the sum of their values, ``parts[r][c]`` ``(above, below)``; else ``None``.
    ``rows``: only these rows are filled in (None: all).
    """
    allowed = [[None] * size for _ in range(size)]
    xsum = [[None] * size for _ in range(size)]
    parts = [[None] * size for _ in range(size)]
    row_list = range(size) if rows is None else sorted(rows)
    for c in range(size):
        for r in row_list:
            if letters[r][c] is not None:
                continue
            up = r > 0 and letters[r - 1][c] is not None
            down = r < size - 1 and letters[r + 1][c] is not None
            if not up and not down:
                continue
            s = 0
            i = r - 1
            while i >= 0 and letters[i][c] is not None:
                s += values[i][c]
                i -= 1
            above = "".join(letters[k][c] for k in range(i + 1, r))
            j = r + 1
            while j < size and letters[j][c] is not None:
                s += values[j][c]
                j += 1
            below = "".join(letters[k][c] for k in range(r + 1, j))
            ok = set()
            node = root
            for ch in above:
                node = node.get(ch)
                if node is None:
                    break
            if node is not None:
                for ch, child in node.items():
                    if ch == END:
                        continue
                    n = child
                    for b in below:
                        n = n.get(b)
                        if n is None:
                            break
                    if n is not None and END in n:
                        ok.add(ch)
            allowed[r][c] = ok
            xsum[r][c] = s
            parts[r][c] = (above, below)
    return allowed, xsum, parts


def _left_parts(root, counts, blanks, kind_of, maxlen, min_tiles=0, heights=None, most=None):
    """Every rack-spellable prefix (length 1..maxlen) whose node has an outgoing edge.

    Returns a list of ``(length, tiles, node, edges)`` sorted by length, with
    ``tiles`` a tuple of ``(letter, is_blank)`` and ``edges`` the node's letters.
    With ``min_tiles`` (and the graph's ``heights`` and ``most`` memos) only the prefixes
    with which a word can still lay that many tiles (:func:`_rack_cap`, the node's height;
    the bound only falls along a path, so a failing prefix's longer ones are skipped too).
    """
    out = []
    tiles: list = []

    def rec(node, depth):
        if min_tiles and depth:
            h = heights[id(node)]
            if depth + h < min_tiles:
                return
            if depth + _rack_cap(most, node, counts, sum(blanks)) < min_tiles:
                return
        if depth:
            edges = frozenset(k for k in node if k != END)
            if edges:
                out.append((depth, tuple(tiles), node, edges))
        if depth >= maxlen:
            return
        for ch, child in node.items():
            if ch == END:
                continue
            if counts.get(ch):
                counts[ch] -= 1
                tiles.append((ch, False))
                rec(child, depth + 1)
                tiles.pop()
                counts[ch] += 1
            k = kind_of.get(ch)
            if k is not None and blanks[k]:
                blanks[k] -= 1
                tiles.append((ch, True))
                rec(child, depth + 1)
                tiles.pop()
                blanks[k] += 1

    rec(root, 0)
    out.sort(key=lambda t: t[0])
    return out


# ---------------------------------------------------------------------------------------
# The search


def _touch_lines(L, size, squares):
    """For a pass over the lines ``L`` and the board squares ``squares`` (``(line, pos)``
    in the pass's coordinates), per line the positions a move's main word must cover to
    touch one of them: the squares themselves, and each empty square at either end of
    the perpendicular run of tiles through one (a tile laid there forms a cross word
    holding it). Returns ``{line: sorted positions}``."""
    out: dict[int, set] = {}
    for ln, pos in squares:
        out.setdefault(ln, set()).add(pos)
        i = ln - 1
        while i >= 0 and L[i][pos] is not None:
            i -= 1
        if i >= 0:
            out.setdefault(i, set()).add(pos)
        i = ln + 1
        while i < size and L[i][pos] is not None:
            i += 1
        if i < size:
            out.setdefault(i, set()).add(pos)
    return {ln: sorted(ps) for ln, ps in out.items()}


def _heights(root: dict) -> dict[int, int]:
    """``id(node)`` -> the most letters a path from ``node`` to a word's end can still
    add (0 at a node without edges), for every node of ``root``'s graph; memoised per
    graph (the graph is a minimised DAWG: about 55,000 nodes for the German list)."""
    memo = _HEIGHTS.get(id(root))
    if memo is not None and memo[0] is root:
        return memo[1]
    out: dict[int, int] = {}

    def h(node):
        v = out.get(id(node))
        if v is None:
            v = 0
            for ch, child in node.items():
                if ch != END:
                    x = 1 + h(child)
                    if x > v:
                        v = x
            out[id(node)] = v
        return v

    h(root)
    _HEIGHTS[id(root)] = (root, out)
    return out


_HEIGHTS: dict[int, tuple[dict, dict[int, int]]] = {}


def _most_letters(memo: dict, node: dict) -> dict[str, int]:
    """letter -> the most times it occurs on one path from ``node`` to a word's end
    (memoised in ``memo`` by ``id(node)``)."""
    out = memo.get(id(node))
    if out is None:
        out = {}
        for ch, child in node.items():
            if ch == END:
                continue
            for k, v in _most_letters(memo, child).items():
                if v > out.get(k, 0):
                    out[k] = v
            v = _most_letters(memo, child).get(ch, 0) + 1
            if v > out.get(ch, 0):
                out[ch] = v
        memo[id(node)] = out
    return out


def _letters_memo(root: dict) -> dict:
    memo = _MOST.get(id(root))
    if memo is None or memo[0] is not root:
        memo = _MOST[id(root)] = (root, {})
    return memo[1]


_MOST: dict[int, tuple[dict, dict]] = {}


def search(board_rows: Sequence[str], rack: str, root: dict, sink: Callable, threshold: list,
           spec: GridSpec, touch: Collection[tuple[int, int]] | None = None, *, min_tiles: int = 0,
           cache: dict | None = None) -> None:
    """The move search: the compiled core (:func:`bot.games._gridcore.search`), or the
    reference inside :func:`reference_search`.  Arguments, records and errors as
    :func:`search_reference`; the order of the ``sink`` calls may differ."""
    _ACTIVE[0](board_rows, rack, root, sink, threshold, spec, touch, min_tiles=min_tiles, cache=cache)


_ACTIVE: list[Callable] = [_gridcore.search]


def compiled_active() -> bool:
    """Whether :func:`search` runs the compiled core (False inside
    :func:`reference_search`)."""
    return _ACTIVE[0] is _gridcore.search


@contextlib.contextmanager
def reference_search():
    """Within the block, :func:`search` (and so every game's move generation) runs the
    pure-Python :func:`search_reference` instead of the compiled core.  For tests and
    benches: it switches the whole process (not thread-safe)."""
    old = _ACTIVE[0]
    _ACTIVE[0] = search_reference
    try:
        yield
    finally:
        _ACTIVE[0] = old


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


def _rack_cap(most: dict, node: dict, counts: dict[str, int], blanks: int) -> int:
    """The most of the rack tiles ``counts`` (and ``blanks`` blanks) a word can hold on
    from ``node``: per letter at most as many as one path on holds, and the blanks."""
    mc = _most_letters(most, node)
    usable = blanks
    for ch, k in counts.items():
        if k:
            x = mc.get(ch, 0)
            usable += k if k < x else x
    return usable


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


# ---------------------------------------------------------------------------------------
# Public API


def graph_root(lexicon) -> dict:
    """The root node of ``lexicon``'s word graph (a :class:`WordGraph` or a lexicon)."""
    if isinstance(lexicon, WordGraph):
        return lexicon.root
    return graph_for(lexicon).root


def to_move(raw) -> GenMove:
    """A :class:`GenMove` from a raw record of :func:`search`."""
    score, nt, transposed, r, start, word, placed, parts_g = raw
    cross = []
    tiles = []
    new = set()
    for p, ch, isb in placed:
        new.add(p)
        pr = parts_g[r][p]
        if pr is not None:
            cross.append(pr[0] + ch + pr[1])
        if transposed:
            tiles.append((p + 1, r + 1, ch, isb))
        else:
            tiles.append((r + 1, p + 1, ch, isb))
    runs = 0
    prev_old = False
    for p in range(start, start + len(word)):
        old = p not in new
        if old and not prev_old:
            runs += 1
        prev_old = old
    if transposed:
        row, col, d = start + 1, r + 1, "s"
    else:
        row, col, d = r + 1, start + 1, "w"
    return GenMove(row, col, d, tuple(tiles), word, (word, *cross), score, runs)


def all_moves(board_rows: Sequence[str], rack: str, lexicon, spec: GridSpec) -> list[GenMove]:
    """Every valid move, as a list (see :func:`generate`)."""
    out: list = []
    search(board_rows, rack, graph_root(lexicon), out.append, [-1], spec)
    return [to_move(raw) for raw in out]


def generate(board_rows: Sequence[str], rack: str, lexicon, spec: GridSpec) -> Iterator[GenMove]:
    """Every valid move for ``rack`` on ``board_rows``, each placement once.

    ``lexicon``: a :class:`bot.lexicon.Lexicon` (its word graph is built or loaded and
    memoised, see :func:`bot.wordgraph.graph_for`) or a :class:`bot.wordgraph.WordGraph`.
    """
    return iter(all_moves(board_rows, rack, lexicon, spec))


def count_moves(board_rows: Sequence[str], rack: str, lexicon, spec: GridSpec) -> int:
    """How many valid moves there are (without building :class:`GenMove` objects)."""
    n = [0]

    def sink(raw):
        n[0] += 1

    search(board_rows, rack, graph_root(lexicon), sink, [-1], spec)
    return n[0]


def best_move(board_rows: Sequence[str], rack: str, lexicon, spec: GridSpec) -> GenMove | None:
    """The highest-scoring move; ties: more tiles, then the lowest
    ``(row, col, direction, word, tiles)``.  ``None`` if there is no valid move."""
    threshold = [-1]
    best: list = []

    def sink(raw):
        score = raw[0]
        if score > threshold[0]:
            threshold[0] = score
            best.clear()
        best.append(raw)

    search(board_rows, rack, graph_root(lexicon), sink, threshold, spec)
    if not best:
        return None
    return to_move(min(best, key=_raw_key))


def _raw_key(raw):
    """:func:`move_key` of a raw record without building the :class:`GenMove` (ties of
    the best score can be hundreds: a word in many places, blanks in many letters).
    The tiles compare as ``placed``: the same word at the same place has its new tiles
    on the same squares, so only letters and blank flags differ, in the same order."""
    score, nt, transposed, r, start, word, placed, _parts = raw
    if transposed:
        return (-score, -nt, start + 1, r + 1, "s", word, placed)
    return (-score, -nt, r + 1, start + 1, "w", word, placed)

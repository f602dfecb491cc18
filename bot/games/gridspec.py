"""The data of the word-grid search (Monoscrabble, Typ-Dom): :class:`GridSpec` (a game's
geometry and scoring), :class:`GenMove` (one move) and :func:`move_key`, the board and
rack parsing, and the tables the pure-Python reference search builds per position or
per graph (cross-checks, left parts, the lines a touching move must reach, node heights,
the most of each letter a path holds).  The search itself: :mod:`bot.games.gridgen`
(compiled core) and :mod:`bot.games.gridref` (the reference); the rules' sources are
in :mod:`bot.games.gridgen`'s module doc.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from bot.wordgraph import END

__all__ = ["GridSpec", "GenMove", "move_key"]


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

"""Exhaustive Monoscrabble move generator (the "top" of an Auswertung).

Rule source: ``shared/RULES.md`` section "Monoscrabble" and the premium map in
``shared/conformance/README.md``.  It takes the tile values and premium squares from
:mod:`.tiles` and :mod:`.board`, and words from :mod:`bot.wordgraph`; it does not use the
validator in :mod:`.engine` (it scores incrementally for speed; tests check that both agree).

Algorithm: Appel & Jacobson ("The world's fastest Scrabble program", 1988) over the
DAWG of :mod:`bot.wordgraph`.  Across moves are generated on the board, down moves on
the transposed board.  Per pass:

* cross-checks: for every empty square with tiles above or below, the set of letters
  that make a valid perpendicular word, the perpendicular word's parts and the sum of
  its board tiles' values (the "cross score");
* anchors: empty squares next to a tile (H8 on an empty board);
* left parts: when the square left of an anchor is empty, every prefix the rack can
  spell (enumerated once per position, blanks included) of at most as many letters as
  there are free non-anchor squares to its left; when it holds a tile, the tiles there
  are the left part;
* extend-right from the anchor, placing rack tiles allowed by the graph edge and the
  cross-check and walking over board tiles, scoring incrementally (letter premiums,
  word multiplier, cross words, bingo +50 for 7+ tiles).

A move is generated once: by its leftmost anchor in its pass; a single tile forming
words both ways is reported as an across move only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from bot.wordgraph import END, WordGraph, graph_for
from bot.games.monoscrabble.board import PREMIUM_MAP
from bot.games.monoscrabble.tiles import LETTER_VALUES

__all__ = ["GenMove", "VALUES", "PREMIUMS", "generate", "best_move", "count_moves",
           "all_moves", "move_key"]

SIZE = 15
BINGO_TILES = 7
BINGO_BONUS = 50

#: Tile values and premium squares come from the rules modules (one source of truth).
VALUES: dict[str, int] = dict(LETTER_VALUES)
PREMIUMS = PREMIUM_MAP
_LM = tuple(tuple({"t": 3, "d": 2}.get(ch, 1) for ch in row) for row in PREMIUMS)
_WM = tuple(tuple({"T": 3, "D": 2, "*": 2}.get(ch, 1) for ch in row) for row in PREMIUMS)
_LM_T = tuple(tuple(_LM[r][c] for r in range(SIZE)) for c in range(SIZE))
_WM_T = tuple(tuple(_WM[r][c] for r in range(SIZE)) for c in range(SIZE))


@dataclass(frozen=True)
class GenMove:
    """One valid move.

    ``row``/``col`` (1-15) is the first square of the main word, ``direction`` ``"w"``
    (across) or ``"s"`` (down); ``tiles`` the newly placed tiles as
    ``(row, col, letter, is_blank)`` in word order; ``word`` the whole main word;
    ``words`` the main word then the cross words; ``score`` the points.
    """

    row: int
    col: int
    direction: str
    tiles: tuple[tuple[int, int, str, bool], ...]
    word: str
    words: tuple[str, ...]
    score: int


def move_key(m: GenMove):
    """Sort key, best first: score desc, tiles desc, then row, col, direction, word,
    tiles (so blank/non-blank variants of one word are ordered too)."""
    return (-m.score, -len(m.tiles), m.row, m.col, m.direction, m.word, m.tiles)


# ---------------------------------------------------------------------------------------
# Board parsing


def _parse(board_rows: list[str]):
    if len(board_rows) != SIZE or any(len(r) != SIZE for r in board_rows):
        raise ValueError("board must be 15 strings of 15 characters")
    letters = []
    values = []
    for row in board_rows:
        lr = []
        vr = []
        for ch in row:
            if ch == "." or ch == " ":
                lr.append(None)
                vr.append(0)
            elif ch.isupper():
                lr.append(ch)
                vr.append(VALUES.get(ch, 0))
            elif ch.islower():
                lr.append(ch.upper())
                vr.append(0)
            else:
                raise ValueError(f"bad board character {ch!r}")
        letters.append(lr)
        values.append(vr)
    return letters, values


def _parse_rack(rack: str) -> tuple[dict[str, int], int]:
    counts: dict[str, int] = {}
    blanks = 0
    for ch in rack:
        if ch == "?":
            blanks += 1
        elif ch.isalpha():
            u = ch.upper()
            counts[u] = counts.get(u, 0) + 1
    return counts, blanks


def _cross_info(letters, values, root):
    """Per square of ``letters`` (rows), the vertical cross-check data.

    Returns ``(allowed, xsum, parts)``: for an empty square with a tile above or below,
    ``allowed[r][c]`` is the set of letters forming a word with them, ``xsum[r][c]``
    the sum of their values, ``parts[r][c]`` ``(above, below)``; else ``None``.
    """
    allowed = [[None] * SIZE for _ in range(SIZE)]
    xsum = [[None] * SIZE for _ in range(SIZE)]
    parts = [[None] * SIZE for _ in range(SIZE)]
    for c in range(SIZE):
        for r in range(SIZE):
            if letters[r][c] is not None:
                continue
            up = r > 0 and letters[r - 1][c] is not None
            down = r < SIZE - 1 and letters[r + 1][c] is not None
            if not up and not down:
                continue
            s = 0
            i = r - 1
            while i >= 0 and letters[i][c] is not None:
                s += values[i][c]
                i -= 1
            above = "".join(letters[k][c] for k in range(i + 1, r))
            j = r + 1
            while j < SIZE and letters[j][c] is not None:
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


def _left_parts(root, counts, blanks, maxlen):
    """Every rack-spellable prefix (length 1..maxlen) whose node has an outgoing edge.

    Returns a list of ``(length, tiles, node, edges)`` sorted by length, with
    ``tiles`` a tuple of ``(letter, is_blank)`` and ``edges`` the node's letters.
    """
    out = []
    tiles: list = []

    def rec(node, depth):
        if depth:
            edges = frozenset(k for k in node if k != END)
            if edges:
                out.append((depth, tuple(tiles), node, edges))
        if depth >= maxlen:
            return
        nonlocal blanks
        for ch, child in node.items():
            if ch == END:
                continue
            if counts.get(ch):
                counts[ch] -= 1
                tiles.append((ch, False))
                rec(child, depth + 1)
                tiles.pop()
                counts[ch] += 1
            if blanks:
                blanks -= 1
                tiles.append((ch, True))
                rec(child, depth + 1)
                tiles.pop()
                blanks += 1

    rec(root, 0)
    out.sort(key=lambda t: t[0])
    return out


# ---------------------------------------------------------------------------------------
# The search


def _search(board_rows, rack, root, sink, threshold):
    """Run both passes, calling ``sink(raw)`` for each move whose score is >= the
    current ``threshold[0]`` (``sink`` may raise the threshold).

    ``raw`` = ``(score, ntiles, transposed, line_index, start, word, placed, xparts)``
    with ``placed`` a tuple of ``(pos, letter, is_blank)`` along the line and
    ``xparts`` the cross-word parts of the pass.
    """
    letters, values = _parse(board_rows)
    counts, blanks0 = _parse_rack(rack)
    ntotal = sum(counts.values()) + blanks0
    if ntotal == 0:
        return
    empty = all(x is None for row in letters for x in row)
    lps = _left_parts(root, dict(counts), blanks0, min(ntotal - 1, SIZE - 1))

    t_letters = [list(col) for col in zip(*letters)]
    t_values = [list(col) for col in zip(*values)]
    for transposed in (False, True):
        if transposed:
            L, V, LMs, WMs = t_letters, t_values, _LM_T, _WM_T
        else:
            L, V, LMs, WMs = letters, values, _LM, _WM
        allowed_g, xsum_g, parts_g = _cross_info(L, V, root)
        for r in range(SIZE):
            line = L[r]
            if empty:
                if r != 7:
                    continue
                anchors = [7]
            else:
                above = L[r - 1] if r > 0 else None
                below = L[r + 1] if r < SIZE - 1 else None
                anchors = []
                for c in range(SIZE):
                    if line[c] is not None:
                        continue
                    if ((c > 0 and line[c - 1] is not None)
                            or (c < SIZE - 1 and line[c + 1] is not None)
                            or (above is not None and above[c] is not None)
                            or (below is not None and below[c] is not None)):
                        anchors.append(c)
                if not anchors:
                    continue
            _row(r, line, V[r], allowed_g[r], xsum_g[r], parts_g, LMs[r], WMs[r], anchors,
                 transposed, counts, blanks0, lps, root, sink, threshold)


def _row(r, line, vals, allowed, xsum, parts_g, lm, wm, anchors, transposed, counts,
         blanks0, lps, root, sink, threshold):
    line = list(line)
    blank_at = [False] * SIZE
    placed: list = []  # positions of newly placed tiles, in order of placement
    state = [blanks0, 0, 0]  # blanks left, anchor, start
    anchor_set = set(anchors)
    VAL = VALUES

    def record(end, msum, wmul, xs, nt):
        start = state[2]
        if end - start < 2:
            return
        if transposed and nt == 1 and xsum[placed[0]] is not None:
            return  # reported by the across pass
        score = msum * wmul + xs + (BINGO_BONUS if nt >= BINGO_TILES else 0)
        if score < threshold[0]:
            return
        word = "".join(line[start:end])
        pl = tuple(sorted((p, line[p], blank_at[p]) for p in placed))
        sink((score, nt, transposed, r, start, word, pl, parts_g))

    def extend(node, col, msum, wmul, xs, nt):
        # walk over board tiles
        while col < SIZE:
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
        if col >= SIZE:
            return
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
                state[0] = nb - 1
                blank_at[col] = True
                extend(child, col + 1, msum, wmul * wmc,
                       xs if xc is None else xs + xc * wmc, nt + 1)
                blank_at[col] = False
                state[0] = nb
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
            if node is None:
                continue
            state[2] = s
            extend(node, a, msum, 1, 0, 0)
            continue
        limit = 0
        c = a - 1
        while c >= 0 and line[c] is None and c not in anchor_set:
            limit += 1
            c -= 1
        state[2] = a
        extend(root, a, 0, 1, 0, 0)
        if not limit:
            continue
        ok = allowed[a]
        nb0 = blanks0
        for length, tiles, node, edges in lps:
            if length > limit:
                break
            if ok is not None and edges.isdisjoint(ok):
                continue
            s = a - length
            msum = 0
            wmul = 1
            nblank = 0
            for i, (ch, isb) in enumerate(tiles):
                c = s + i
                if isb:
                    nblank += 1
                else:
                    k = counts[ch]
                    counts[ch] = k - 1
                    msum += VAL[ch] * lm[c]
                line[c] = ch
                blank_at[c] = isb
                placed.append(c)
                wmul *= wm[c]
            state[0] = nb0 - nblank
            state[2] = s
            extend(node, a, msum, wmul, 0, length)
            for i, (ch, isb) in enumerate(tiles):
                c = s + i
                if not isb:
                    counts[ch] += 1
                line[c] = None
                blank_at[c] = False
            del placed[-length:]
        state[0] = nb0


# ---------------------------------------------------------------------------------------
# Public API


def _graph_root(lexicon) -> dict:
    if isinstance(lexicon, WordGraph):
        return lexicon.root
    return graph_for(lexicon).root


def _to_move(raw) -> GenMove:
    score, nt, transposed, r, start, word, placed, parts_g = raw
    cross = []
    tiles = []
    for p, ch, isb in placed:
        pr = parts_g[r][p]
        if pr is not None:
            cross.append(pr[0] + ch + pr[1])
        if transposed:
            tiles.append((p + 1, r + 1, ch, isb))
        else:
            tiles.append((r + 1, p + 1, ch, isb))
    if transposed:
        row, col, d = start + 1, r + 1, "s"
    else:
        row, col, d = r + 1, start + 1, "w"
    return GenMove(row, col, d, tuple(tiles), word, (word, *cross), score)


def all_moves(board_rows: list[str], rack: str, lexicon) -> list[GenMove]:
    """Every valid move, as a list (see :func:`generate`)."""
    out: list = []
    _search(board_rows, rack, _graph_root(lexicon), out.append, [-1])
    return [_to_move(raw) for raw in out]


def generate(board_rows: list[str], rack: str, lexicon) -> Iterator[GenMove]:
    """Every valid move for ``rack`` on ``board_rows``, each placement once.

    ``lexicon``: a :class:`bot.lexicon.Lexicon` (its word graph is built or loaded and
    memoised, see :func:`bot.wordgraph.graph_for`) or a :class:`bot.wordgraph.WordGraph`.
    """
    return iter(all_moves(board_rows, rack, lexicon))


def count_moves(board_rows: list[str], rack: str, lexicon) -> int:
    """How many valid moves there are (without building :class:`GenMove` objects)."""
    n = [0]

    def sink(raw):
        n[0] += 1

    _search(board_rows, rack, _graph_root(lexicon), sink, [-1])
    return n[0]


def best_move(board_rows: list[str], rack: str, lexicon) -> GenMove | None:
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

    _search(board_rows, rack, _graph_root(lexicon), sink, threshold)
    if not best:
        return None
    return min((_to_move(raw) for raw in best), key=move_key)

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
run; the pure-Python :func:`search_reference` (:mod:`bot.games.gridref`) is the
executable reference the tests compare it with (``tests/test_gridcore.py``) and the benches measure it against.
The compiled core is no optional speed-up: if it fails to import, importing this
module fails (reinstall with ``pip install -e .``).  :func:`reference_search` switches
:func:`search` to the reference for a block (tests and benches only).

Modules: this one (the entry points), :mod:`bot.games.gridspec` (:class:`GridSpec`,
:class:`GenMove`, parsing and the reference's tables), :mod:`bot.games.gridref` (the
reference search).
"""

from __future__ import annotations

import contextlib
from typing import Callable, Collection, Iterator, Sequence

from bot.games import _gridcore
from bot.games.gridref import search_reference
from bot.games.gridspec import GenMove, GridSpec, move_key
from bot.wordgraph import WordGraph, graph_for

__all__ = ["GridSpec", "GenMove", "move_key", "search", "search_reference", "reference_search",
           "all_moves", "generate", "count_moves", "best_move", "graph_root", "to_move"]


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
    line = parts_g[r]
    cross = []
    tiles = []
    for p, ch, isb in placed:
        pr = line[p]
        if pr is not None:
            cross.append(pr[0] + ch + pr[1])
        tiles.append((p + 1, r + 1, ch, isb) if transposed else (r + 1, p + 1, ch, isb))
    # the groups of board tiles in the word: the gaps between the new tiles' squares
    # (the same count as walking the word's squares)
    runs = 0
    prev = start - 1
    for p in sorted(p for p, _ch, _b in placed):
        if p > prev + 1:
            runs += 1
        prev = p
    if prev < start + len(word) - 1:
        runs += 1
    if transposed:
        return GenMove(start + 1, r + 1, "s", tuple(tiles), word, (word, *cross), score, runs)
    return GenMove(r + 1, start + 1, "w", tuple(tiles), word, (word, *cross), score, runs)


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

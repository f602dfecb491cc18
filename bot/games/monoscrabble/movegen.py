"""Exhaustive Monoscrabble move generator (the "top" of an Auswertung).

Rule source: ``shared/RULES.md`` section "Monoscrabble" and the premium map in
``shared/conformance/README.md``.  It takes the tile values and premium squares from
:mod:`.tiles` and :mod:`.board`, and words from :mod:`bot.wordgraph`; it does not use the
validator in :mod:`.engine` (it scores incrementally for speed; tests check that both agree).

The search itself is the shared Appel-Jacobson generator of :mod:`bot.games.gridgen`
(also used by Typ-Dom); this module holds Monoscrabble's :data:`SPEC`: 15 x 15 squares,
centre H8, the premium squares, one kind of Blanko standing for every letter, cross
words scoring, bingo +50 for 7 or more tiles, and a single tile forming words both ways
reported once (as an across move).
"""

from __future__ import annotations

from typing import Iterator

from bot.games import gridgen
from bot.games.gridgen import GenMove, GridSpec, move_key
from bot.games.monoscrabble.board import CENTRE, PREMIUM_MAP, SIZE
from bot.games.monoscrabble.tiles import BINGO_BONUS, BINGO_TILES, BLANK, LETTERS, LETTER_VALUES

__all__ = ["GenMove", "VALUES", "PREMIUMS", "SPEC", "generate", "best_move", "count_moves",
           "all_moves", "move_key"]

#: Tile values and premium squares come from the rules modules (one source of truth).
VALUES: dict[str, int] = dict(LETTER_VALUES)
PREMIUMS = PREMIUM_MAP

#: Monoscrabble's parameters of the shared generator (RULES.md "Monoscrabble").
SPEC = GridSpec(size=SIZE, centre=CENTRE, values=VALUES, premiums=PREMIUMS, bingo_tiles=BINGO_TILES,
                bingo_bonus=BINGO_BONUS, blanks={BLANK: LETTERS}, cross_score=True, require_old=False,
                single_both_ways=False)


def all_moves(board_rows: list[str], rack: str, lexicon) -> list[GenMove]:
    """Every valid move, as a list (see :func:`generate`)."""
    return gridgen.all_moves(board_rows, rack, lexicon, SPEC)


def generate(board_rows: list[str], rack: str, lexicon) -> Iterator[GenMove]:
    """Every valid move for ``rack`` on ``board_rows``, each placement once.

    ``lexicon``: a :class:`bot.lexicon.Lexicon` (its word graph is built or loaded and
    memoised, see :func:`bot.wordgraph.graph_for`) or a :class:`bot.wordgraph.WordGraph`.
    """
    return gridgen.generate(board_rows, rack, lexicon, SPEC)


def count_moves(board_rows: list[str], rack: str, lexicon) -> int:
    """How many valid moves there are (without building :class:`GenMove` objects)."""
    return gridgen.count_moves(board_rows, rack, lexicon, SPEC)


def best_move(board_rows: list[str], rack: str, lexicon) -> GenMove | None:
    """The highest-scoring move; ties: more tiles, then the lowest
    ``(row, col, direction, word, tiles)``.  ``None`` if there is no valid move."""
    return gridgen.best_move(board_rows, rack, lexicon, SPEC)

"""Monoscrabble, the play-by-mail Scrabble of the zine (seed 001).

The game is listed in :mod:`bot.games.registry`. The move generator ``bot.games.monoscrabble.movegen`` is a
separate module, imported lazily by :meth:`MonoscrabbleRules.top`.
"""

from bot.games.monoscrabble.tiles import (LETTERS, LETTER_COUNTS, LETTER_VALUES, BLANK, BLANK_COUNT,
                                          BLANK_VALUE, BAG_SIZE, full_bag)
from bot.games.monoscrabble.board import Board, Placement, Tile, PREMIUM_MAP, premium, coord_name
from bot.games.monoscrabble.notation import Move, Token, parse_move, format_move
from bot.games.monoscrabble.engine import (Outcome, evaluate, evaluate_tiles, move_from_tiles, canonical_move,
                                           REASONS)
from bot.games.monoscrabble.game import MonoscrabbleRules, MovegenUnavailable

__all__ = [
    "LETTERS", "LETTER_COUNTS", "LETTER_VALUES", "BLANK", "BLANK_COUNT", "BLANK_VALUE", "BAG_SIZE", "full_bag",
    "Board", "Placement", "Tile", "PREMIUM_MAP", "premium", "coord_name",
    "Move", "Token", "parse_move", "format_move",
    "Outcome", "evaluate", "evaluate_tiles", "move_from_tiles", "canonical_move", "REASONS",
    "MonoscrabbleRules", "MovegenUnavailable",
]


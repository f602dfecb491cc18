"""Rondo, the play-by-mail rules of the zine Dottendorfer Soccer (seed 000)."""

from bot.games.rondo.cards import Card, Row, Vorgabe, LETTER_VALUES, LETTER_COUNTS, JOKER_VALUE, LOESCHER_VALUE
from bot.games.rondo.notation import Move, Token, parse_move, format_move
from bot.games.rondo.engine import Outcome, evaluate, REASONS
from bot.games.rondo.movegen import generate_moves, best_moves


__all__ = [
    "Card", "Row", "Vorgabe", "LETTER_VALUES", "LETTER_COUNTS", "JOKER_VALUE", "LOESCHER_VALUE",
    "Move", "Token", "parse_move", "format_move",
    "Outcome", "evaluate", "generate_moves", "best_moves", "REASONS",
]
from bot.games.rondo.game import RondoRules  # noqa: E402, F401

__all__.append("RondoRules")

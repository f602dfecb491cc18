"""RONDO, the original card game (seed 004, I. Abrahami & E. Netz), by mail: private
hands of 7, one turn per round, exchanges, marks; on the Rondo engine (:mod:`bot.games.rondo`)."""

from bot.games.rondonl.cards import DECK_SIZE, EXCHANGE_PENALTY, HAND_SIZE, WIS_COUNT, full_deck
from bot.games.rondonl.notation import Exchange, FaceDown, Pass, Word, format_line, parse_line
from bot.games.rondonl.engine import LineResult, Opening, Turn, best_word, judge_opening, judge_turn

__all__ = [
    "DECK_SIZE", "EXCHANGE_PENALTY", "HAND_SIZE", "WIS_COUNT", "full_deck",
    "Exchange", "FaceDown", "Pass", "Word", "format_line", "parse_line",
    "LineResult", "Opening", "Turn", "best_word", "judge_opening", "judge_turn",
]
from bot.games.rondonl.game import RondoNLRules  # noqa: E402, F401

__all__.append("RondoNLRules")

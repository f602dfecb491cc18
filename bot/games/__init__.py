"""Game rules engines. Each game is one module implementing :class:`bot.games.base.GameRules`,
listed in :mod:`bot.games.registry`.

Rules engines are pure: state, moves, validation, scoring and move generation,
with no I/O, no database and no mail.
"""

from bot.games.base import GameRules, NotationError
from bot.games.registry import GAMES, get_game, load_games

__all__ = ["GameRules", "NotationError", "get_game", "load_games", "GAMES"]

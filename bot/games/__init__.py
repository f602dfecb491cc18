"""Game rules engines. Each game is one module implementing :class:`bot.games.base.GameRules`.

Rules engines are pure: state, moves, validation, scoring and move generation,
with no I/O, no database and no mail.
"""

from bot.games.base import GameRules, NotationError, get_game, load_games, GAMES

__all__ = ["GameRules", "NotationError", "get_game", "load_games", "GAMES"]

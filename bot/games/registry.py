"""The registry of games: one line per game, ``key -> "module:Class"``.

The base module (:mod:`bot.games.base`) knows no game, and no game module registers
itself on import: :func:`get_game` imports a game's module the first time it is asked
for. Registering a game is one line in :data:`GAME_CLASSES` (the other files a game adds:
docs/development/adding-a-game.md; tests/test_game_contract.py checks each registered game).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from bot.games.verdict import N_, Visibility, verdict

if TYPE_CHECKING:
    from bot.games.base import GameRules

#: Every game the bot plays: league-file key -> ``"module:Class"`` of its rules.
GAME_CLASSES: dict[str, str] = {
    "rondo": "bot.games.rondo.game:RondoRules",
    "monoscrabble": "bot.games.monoscrabble.game:MonoscrabbleRules",
    "crossword": "bot.games.crossword.game:CrosswordRules",
    "typdom": "bot.games.typdom.game:TypdomRules",
    "typdom-presto": "bot.games.typdom.presto_game:PrestoRules",
    "typdom-wbr": "bot.games.typdom.wbr_game:WbrRules",
    "rondonl": "bot.games.rondonl.game:RondoNLRules",
}

#: Rules instances created so far (one per game, created on first use).
GAMES: dict[str, "GameRules"] = {}


class UnknownGame(KeyError):
    """A game key not in :data:`GAME_CLASSES` (a typo in a league file). ``verdict``
    says so for the game master (:mod:`bot.games.verdict`); ``str()`` is its German text."""

    def __init__(self, name: str) -> None:
        self.verdict = verdict("game", N_("Unbekanntes Spiel '{name}'; bekannt sind: {known}."), seen=Visibility.GM,
                               name=name, known=", ".join(sorted(GAME_CLASSES)))
        super().__init__(name)

    def __str__(self) -> str:
        return self.verdict.text("de")


def get_game(name: str) -> "GameRules":
    """The rules of game ``name`` (one shared, stateless instance); raises
    :class:`UnknownGame` (a ``KeyError``) naming the known games otherwise."""
    game = GAMES.get(name)
    if game is not None:
        return game
    try:
        module, _, cls = GAME_CLASSES[name].partition(":")
    except KeyError:
        raise UnknownGame(name) from None
    game = getattr(import_module(module), cls)()
    GAMES[name] = game
    return game


def load_games() -> dict[str, "GameRules"]:
    """Every registered game, instantiated: ``{key: rules}`` in registry order."""
    return {name: get_game(name) for name in GAME_CLASSES}


def register(game: "GameRules") -> "GameRules":
    """Put an extra rules instance into the registry (tests, plug-ins); returns it."""
    GAMES[game.name] = game
    return game

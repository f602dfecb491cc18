"""The interface every game implements, and the registry of games.

A game module is pure: it holds a Partie's state as a JSON-compatible ``dict``,
reads and writes its move notation, validates and scores moves, adjudicates a
round and generates moves. The service layer (storage, mail, scheduling,
rendering) only calls these methods and never contains game rules.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence


class NotationError(ValueError):
    """A move line that cannot be read. ``message`` is a German sentence for the player."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.text = text


@dataclass
class MoveReport:
    """What the rules made of one submitted move line.

    ``index`` 0 is the main move, 1.. the Ersatzzuege in order. ``score`` is None for
    an invalid move. ``reason`` is a conformance reason code (``syntax``, ``word``, ...),
    ``message`` the German explanation, ``notes`` German remarks that do not change the
    outcome (a wrong claimed score, a wrong card value, a lenient reading).
    """

    index: int
    text: str
    valid: bool
    score: int | None = None
    bonus: int | None = None
    reason: str | None = None
    message: str = ""
    notes: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index, "text": self.text, "valid": self.valid, "score": self.score,
            "bonus": self.bonus, "reason": self.reason, "message": self.message,
            "notes": list(self.notes), "detail": dict(self.detail),
        }


@dataclass
class PlayerRound:
    """One player's result in one round of one Partie.

    ``counted`` is the index of the move that counts (the first valid one) or None
    (NMR: nothing sent, or nothing valid); ``score`` is the counted move's score (0 for
    NMR); ``points`` is what goes into the standings (the score in Rondo; the
    Besser-Wertung points, 0 or negative, in Monoscrabble).
    """

    player: str
    submitted: bool
    moves: list[MoveReport]
    counted: int | None
    points: int
    score: int | None = None

    def __post_init__(self) -> None:
        if self.score is None:
            self.score = self.points

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player, "submitted": self.submitted, "counted": self.counted,
            "points": self.points, "score": self.score, "moves": [m.to_json() for m in self.moves],
        }


@dataclass
class RoundReport:
    """The adjudication of one round of one Partie: every player's result, the move
    that went on the table, the best possible move (the "top"), and the state after."""

    round: int
    players: list[PlayerRound]
    board_move: dict[str, Any] | None
    top: dict[str, Any] | None
    state_before: dict[str, Any]
    state_after: dict[str, Any]
    lot: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round, "players": [p.to_json() for p in self.players],
            "board_move": self.board_move, "top": self.top, "lot": self.lot,
            "state_before": self.state_before, "state_after": self.state_after,
        }


class GameRules(ABC):
    """One game's rules. Implementations are stateless; all state is passed in.

    Words reach the rules through a lexicon object with ``__contains__(word)`` and
    ``has_prefix(prefix)`` on words normalised to the game's alphabet
    (see :mod:`bot.lexicon`).
    """

    #: Game key used in league files and the database, e.g. ``"rondo"``.
    name: str
    #: Lexicon alphabet name (see ``bot.lexicon.ALPHABETS``).
    alphabet: str
    #: German display name.
    title: str
    #: Whether players may join a running league by mail (ANMELDEN); late joiners are
    #: scored as NMR for the rounds before (shared/RULES.md, Monoscrabble).
    open_join: bool = False

    @abstractmethod
    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None) -> dict:
        """State of a new Partie with the Vorgabe of round 1 drawn; JSON-compatible."""

    @abstractmethod
    def read_move(self, text: str) -> Any:
        """Parse one move line in the game's notation; raises :class:`NotationError`."""

    @abstractmethod
    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0) -> MoveReport:
        """Read and judge one move line against ``state`` (never raises for bad moves)."""

    @abstractmethod
    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False) -> RoundReport:
        """Adjudicate the open round: ``submissions`` maps every player key to their move
        lines (main move first) or None when nothing arrived (NMR)."""

    @abstractmethod
    def public_view(self, state: Mapping[str, Any]) -> dict:
        """The public part of the state (for ``show --json`` and the templates)."""


GAMES: dict[str, GameRules] = {}


def register(game: GameRules) -> GameRules:
    GAMES[game.name] = game
    return game


def load_games() -> dict[str, GameRules]:
    """Register every game the bot plays (idempotent) and return the registry."""
    import bot.games.rondo  # noqa: F401  (registers itself)
    from bot.games.monoscrabble import register_game as register_monoscrabble
    if "monoscrabble" not in GAMES:
        register_monoscrabble()
    return GAMES


def get_game(name: str) -> GameRules:
    """The rules of game ``name``; KeyError with the known names otherwise."""
    load_games()
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}") from None

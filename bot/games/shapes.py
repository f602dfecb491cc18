"""The shapes the service reads of a game (re-exported by :mod:`bot.games.base`): a
Partie's :data:`State`, the stored :data:`Submissions`, the :class:`WordList` the rules
judge words against, the :class:`PublicView` keys the service itself reads, and the
move type :data:`MoveT` of ``GameRules[Move]``."""

from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence, TypedDict, TypeVar


#: A Partie's state: JSON-compatible, owned by the game (the service stores it whole and
#: reads it only through the game's methods).
State = Mapping[str, Any]
#: A player's move lines for one Partie and round as the service stores them (main move
#: first, then the Ersatzzüge; one text of ``\n``-joined lines for a multiline game), or
#: None when nothing arrived (NMR).
Submissions = Mapping[str, "Sequence[str] | None"]


class WordList(Protocol):
    """The lexicon a game judges words against: :class:`bot.lexicon.words.Lexicon` (or a
    union of them, with the league's lists and the game's :attr:`GameRules.word_rules`),
    words normalised to the game's alphabet. Tests may pass a ``set`` of words."""

    def __contains__(self, word: object) -> bool: ...


class PublicView(TypedDict, total=False):
    """The keys of a game's :meth:`GameRules.public_view` the service itself reads (the
    rest is for the game's templates; the contract test checks these keys' types)."""

    #: A :attr:`GameRules.turn_rounds` game: the turn a player sees (subjects, bodies).
    turn: int
    #: The key of the player whose turn it is (``STAND`` names them while ``phase`` is
    #: ``"play"``).
    mover: str | None
    #: The Partie's phase (``"play"``; RONDO: ``"opening"`` before the first turn).
    phase: str
    #: A board picture (:meth:`GameRules.gm_picture`'s default), left out of ``show --json``.
    grid_text: str
    finished: bool


#: The move type a game's :meth:`GameRules.read_move` returns.
MoveT = TypeVar("MoveT")

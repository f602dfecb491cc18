"""The wrappers that keep a private text out of a view that may not show it
(docs/development/privacy.md): :class:`Withheld` stands in for a text, :class:`Redacted`
is another player's ``private`` round dict, :class:`Sealed` a player's raw round data that
opens only for an audience. Each raises :class:`~bot.games.visibility.PrivacyError` when
read where it may not be."""

from __future__ import annotations

from typing import Any, Mapping, Protocol

from bot.games.visibility import Audience, PrivacyError


class RoundViewer(Protocol):
    """What :class:`Sealed` needs of a game (:meth:`bot.games.base.GameRules.seen_by`)."""

    def seen_by(self, pl: Mapping[str, Any], audience: Audience, state: Mapping[str, Any],
                lang: str = "de") -> dict[str, Any]: ...


class Withheld:
    """The stand-in for a text that the audience of a projection may not see. Rendering
    it (``str``, ``__html__``, iterating, indexing) raises :class:`PrivacyError`; it is
    false in a condition, so ``{% if m.private %}`` simply skips it."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def _refuse(self, *_: Any) -> Any:
        raise PrivacyError(f"privater Inhalt ({self.what}) in einer Ansicht, die ihn nicht zeigen darf")

    __str__ = __html__ = __iter__ = __getitem__ = __len__ = __format__ = _refuse  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        self._refuse()

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"Withheld({self.what!r})"


class Redacted(dict):
    """A player's ``private`` round dict as someone else sees it: only the keys the game
    declares public (:attr:`GameRules.public_round_keys`, e.g. RONDO's ``partner_turn``);
    reading any other key it had raises :class:`PrivacyError`."""

    def __init__(self, shown: Mapping[str, Any], hidden: set[str]) -> None:
        super().__init__(shown)
        self._hidden = frozenset(hidden)

    def _check(self, key: Any) -> None:
        if key in self._hidden:
            raise PrivacyError(f"privater Eintrag {key!r} in einer Ansicht, die ihn nicht zeigen darf")

    def get(self, key: Any, default: Any = None) -> Any:
        self._check(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self._check(key)
        return super().__getitem__(key)


class Sealed:
    """A player's raw round data (the :class:`PlayerRound` JSON) that can only be read
    through :meth:`open` for an :class:`Audience`; every other access (an attribute, an
    item, a template rendering it) raises :class:`PrivacyError`. The service keeps
    round data sealed, so a public context cannot reach a private text by mistake."""

    __slots__ = ("_raw", "_game", "_state")

    def __init__(self, raw: Mapping[str, Any], game: RoundViewer, state: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_raw", raw)
        object.__setattr__(self, "_game", game)
        object.__setattr__(self, "_state", state)

    def open(self, audience: "Audience", lang: str = "de") -> dict[str, Any]:
        """The round data as ``audience`` may see it, rendered in ``lang``
        (:meth:`GameRules.seen_by`)."""
        return self._game.seen_by(self._raw, audience, self._state, lang)

    @property
    def owner(self) -> str:
        return str(self._raw["player"])

    def _refuse(self, *_: Any) -> Any:
        raise PrivacyError("versiegelte Runden-Daten ohne Empfänger gelesen (Sealed.open(audience) benutzen)")

    __getitem__ = __iter__ = __str__ = __html__ = __len__ = _refuse  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        self._refuse()


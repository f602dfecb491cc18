"""Rondo cards, the Auslage (row) and the Vorgabe.

Source: seed 000 (Rondo-Postspielregel), section II.1 a)-c); shared/RULES.md, "Rondo".
Row codes follow shared/conformance/README.md: 9 characters, ``.`` empty field,
``/`` Loescher, ``A``-``Z`` letter card, ``a``-``z`` Joker fixed as that letter.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Literal

#: Card values, seed 000 II.1 a) ("Wertigkeit").
LETTER_VALUES: dict[str, int] = {
    "A": 2, "B": 5, "C": 7, "D": 5, "E": 1, "F": 7, "G": 5, "H": 5, "I": 2, "J": 8, "K": 7,
    "L": 5, "M": 5, "N": 2, "O": 3, "P": 5, "Q": 10, "R": 2, "S": 3, "T": 3, "U": 2, "V": 8,
    "W": 8, "X": 10, "Y": 10, "Z": 10,
}
#: Card counts, seed 000 II.1 a) ("Anzahl"): 94 letter cards.
LETTER_COUNTS: dict[str, int] = {
    "A": 8, "B": 2, "C": 2, "D": 4, "E": 11, "F": 2, "G": 2, "H": 3, "I": 5, "J": 2, "K": 2,
    "L": 4, "M": 4, "N": 6, "O": 6, "P": 2, "Q": 1, "R": 4, "S": 5, "T": 4, "U": 6, "V": 2,
    "W": 2, "X": 1, "Y": 2, "Z": 2,
}
#: Seed 000 II.1 b): six Joker worth 1.
JOKER_COUNT = 6
JOKER_VALUE = 1
#: Seed 000 II.1 c): the Loescher is worth -2.
LOESCHER_VALUE = -2
#: Seed 000 II.2 d): vowels for the "at least two vowels or Joker" rule.
VOWELS = frozenset("AEIOU")
FIELDS = 9
#: Round 1 word lies on the three middle fields (seed 000 II.2 a).
MIDDLE = (4, 5, 6)

JOKER = "?"
LOESCHER = "/"

CardKind = Literal["letter", "joker", "loescher"]


@dataclass(frozen=True, slots=True)
class Card:
    """One card lying on a field.

    ``kind`` is ``"letter"``, ``"joker"`` (with the fixed ``letter`` it stands for)
    or ``"loescher"`` (``letter`` is None).
    """

    kind: CardKind
    letter: str | None = None

    @property
    def value(self) -> int:
        """Points of the card: letter value, 1 for a Joker, -2 for a Loescher (seed 000 II.3 a)."""
        if self.kind == "letter":
            return LETTER_VALUES[self.letter]  # type: ignore[index]
        if self.kind == "joker":
            return JOKER_VALUE
        return LOESCHER_VALUE

    @property
    def is_letter(self) -> bool:
        """True for a letter card or a Joker (both read as a letter of the word)."""
        return self.kind != "loescher"

    @property
    def code(self) -> str:
        """One character as in the conformance row code."""
        if self.kind == "letter":
            return self.letter  # type: ignore[return-value]
        if self.kind == "joker":
            return self.letter.lower()  # type: ignore[union-attr]
        return LOESCHER

    @classmethod
    def from_code(cls, ch: str) -> "Card | None":
        """Card for one row-code character; None for ``.``; ValueError for anything else."""
        if ch == ".":
            return None
        if ch == LOESCHER:
            return cls("loescher")
        if "A" <= ch <= "Z":
            return cls("letter", ch)
        if "a" <= ch <= "z":
            return cls("joker", ch.upper())
        raise ValueError(f"not a Rondo row code: {ch!r}")


@dataclass(frozen=True, slots=True)
class Row:
    """The Auslage: 9 fields, each a :class:`Card` or None. Fields are numbered 1-9."""

    cards: tuple[Card | None, ...]

    def __post_init__(self) -> None:
        if len(self.cards) != FIELDS:
            raise ValueError(f"a Rondo row has {FIELDS} fields, not {len(self.cards)}")

    @classmethod
    def empty(cls) -> "Row":
        return cls((None,) * FIELDS)

    @classmethod
    def from_code(cls, code: str) -> "Row":
        """Row from its 9-character code, e.g. ``"..MOND/.."``. ValueError on a bad code."""
        if len(code) != FIELDS:
            raise ValueError(f"a Rondo row code has {FIELDS} characters: {code!r}")
        return cls(tuple(Card.from_code(ch) for ch in code))

    @property
    def code(self) -> str:
        return "".join("." if c is None else c.code for c in self.cards)

    def __getitem__(self, field: int) -> Card | None:
        """Card on field 1-9; None for an empty field or a field outside 1-9."""
        if 1 <= field <= FIELDS:
            return self.cards[field - 1]
        return None

    def occupied(self) -> tuple[int, int] | None:
        """(first, last) occupied field, Loescher included; None when the row is empty."""
        fields = [i + 1 for i, c in enumerate(self.cards) if c is not None]
        return (fields[0], fields[-1]) if fields else None

    def is_empty(self) -> bool:
        return self.occupied() is None

    @property
    def word(self) -> str:
        """The word of the row: its letter and Joker cards read left to right (seed 000 II)."""
        return "".join(c.letter for c in self.cards if c is not None and c.is_letter)  # type: ignore[misc]

    @property
    def value(self) -> int:
        """Sum of the values of every card on the row (Loescher included)."""
        return sum(c.value for c in self.cards if c is not None)

    def pretty(self) -> str:
        """The row with card values as in the seed's tables, e.g. ``m5 o3 n2 d5 /-2``."""
        parts = []
        for c in self.cards:
            if c is None:
                parts.append("–")
            elif c.kind == "joker":
                parts.append(f"{c.letter.lower()}*{c.value}")  # type: ignore[union-attr]
            else:
                parts.append(f"{c.code}{c.value}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Vorgabe:
    """The cards a move may place: letters, ``?`` Joker, ``/`` Loescher.

    In Rondo (seed 000 II.1 c, II.2 d) these are the round's Vorgabe and its Loescher may
    be used several times (``loescher_reusable``). In RONDO, the original (seed 004), they
    are a player's hand, where every wis-kaart is one card (``loescher_reusable=False``:
    as many new Loescher as ``/`` in ``cards``).
    """

    cards: str
    loescher_reusable: bool = True

    @classmethod
    def parse(cls, text: str, *, loescher_reusable: bool = True) -> "Vorgabe":
        """Vorgabe from ``"DEST?/"``; spaces ignored, ``*`` read as ``?``. ValueError on other chars."""
        s = text.replace(" ", "").upper().replace("*", JOKER)
        for ch in s:
            if ch not in LETTER_VALUES and ch not in (JOKER, LOESCHER):
                raise ValueError(f"not a Rondo card: {ch!r}")
        return cls(s, loescher_reusable)

    @property
    def loeschers(self) -> float:
        """How many new Loescher a move may place: unbounded (``inf``) for a reusable
        Loescher, else the number of ``/`` cards (0 without any)."""
        n = self.cards.count(LOESCHER)
        if self.loescher_reusable:
            return float("inf") if n else 0
        return n

    @property
    def letters(self) -> Counter:
        return Counter(ch for ch in self.cards if ch in LETTER_VALUES)

    @property
    def jokers(self) -> int:
        return self.cards.count(JOKER)

    @property
    def has_loescher(self) -> bool:
        return LOESCHER in self.cards

    def pretty(self) -> str:
        """With values as in the seed: ``D5 E1 S3 T3 ?1 /-2``."""
        out = []
        for ch in self.cards:
            v = LETTER_VALUES.get(ch, JOKER_VALUE if ch == JOKER else LOESCHER_VALUE)
            out.append(f"{ch}{v}")
        return " ".join(out)

    def __str__(self) -> str:
        return self.cards


def full_deck() -> list[str]:
    """The 100 cards of the deck: 94 letter cards and 6 Joker (seed 000 II.1 a-b); sorted."""
    deck = [ch for ch, n in LETTER_COUNTS.items() for _ in range(n)]
    deck += [JOKER] * JOKER_COUNT
    return deck


def count_vowels(cards: Iterable[str]) -> int:
    """Vowels (A E I O U) and Joker among ``cards`` (seed 000 II.2 d)."""
    return sum(1 for ch in cards if ch in VOWELS or ch == JOKER)

"""Monoscrabble tiles: letters, counts, values, the bag and the rack.

Source: shared/RULES.md "Monoscrabble" (German Scrabble, fixed): 102 tiles,
E 15x1, N 9x1, S 7x1, I 6x1, R 6x1, T 6x1, U 6x1, A 5x1, D 4x1, H 4x2, G 3x2, L 3x2,
O 3x2, M 4x3, B 2x3, W 1x3, Z 1x3, C 2x4, F 2x4, K 2x4, P 1x4, Ä 1x6, J 1x6, Ü 1x6,
V 1x6, Ö 1x8, X 1x8, Q 1x10, Y 1x10, 2 Blanko x0 (count x value).

The alphabet is the lexicon's ``"monoscrabble"`` alphabet: A-Z plus Ä Ö Ü as letters of
their own, ß spelled SS (RULES.md "Common to all games"). A Blanko is written ``?`` in a
rack or a bag (``*`` is read as ``?`` on input).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

#: Letters a tile can show (lexicon alphabet ``monoscrabble``).
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"
BLANK = "?"

#: (count, value) per letter, RULES.md "Monoscrabble".
_TABLE: dict[str, tuple[int, int]] = {
    "E": (15, 1), "N": (9, 1), "S": (7, 1), "I": (6, 1), "R": (6, 1), "T": (6, 1), "U": (6, 1),
    "A": (5, 1), "D": (4, 1), "H": (4, 2), "G": (3, 2), "L": (3, 2), "O": (3, 2), "M": (4, 3),
    "B": (2, 3), "W": (1, 3), "Z": (1, 3), "C": (2, 4), "F": (2, 4), "K": (2, 4), "P": (1, 4),
    "Ä": (1, 6), "J": (1, 6), "Ü": (1, 6), "V": (1, 6), "Ö": (1, 8), "X": (1, 8), "Q": (1, 10),
    "Y": (1, 10),
}
LETTER_COUNTS: dict[str, int] = {k: n for k, (n, _) in _TABLE.items()}
LETTER_VALUES: dict[str, int] = {k: v for k, (_, v) in _TABLE.items()}
BLANK_COUNT = 2
BLANK_VALUE = 0
BAG_SIZE = 102

#: Vorgabe sizes (seed 001): seven letters in the first round, eight afterwards.
FIRST_RACK = 7
RACK = 8
#: RULES.md decision: 50 extra points when a move places 7 or more tiles (seed 001:
#: "Werden in einem Zug alle Buchstaben eines Racks verbaut, gibt es 50 Extrapunkte").
BINGO_TILES = 7
BINGO_BONUS = 50

_ORDER = {ch: i for i, ch in enumerate(LETTERS + BLANK)}


def value(letter: str, blank: bool = False) -> int:
    """Points of one tile: the letter's value, 0 for a Blanko."""
    return BLANK_VALUE if blank else LETTER_VALUES[letter]


def full_bag() -> list[str]:
    """The 102 tiles in a fixed order (letters as in :data:`LETTERS`, then two ``?``)."""
    return [ch for ch in LETTERS for _ in range(LETTER_COUNTS[ch])] + [BLANK] * BLANK_COUNT


def sort_tiles(tiles: Iterable[str]) -> str:
    """Tiles in display order: A-Z, Ä Ö Ü, then ``?``."""
    return "".join(sorted(tiles, key=lambda ch: _ORDER.get(ch, 99)))


def parse_rack(text: str) -> str:
    """A rack string from ``"RUE?AILT"``: upper-cased, ``*`` read as ``?``, spaces ignored,
    ß as SS. ValueError on a character that is no tile."""
    s = text.replace(" ", "").replace("ß", "SS").replace("ẞ", "SS").upper().replace("*", BLANK)
    for ch in s:
        if ch not in LETTER_VALUES and ch != BLANK:
            raise ValueError(f"kein Monoscrabble-Stein: {ch!r}")
    return s


def rack_counter(rack: str) -> Counter:
    return Counter(parse_rack(rack))


def rack_pretty(rack: str) -> str:
    """With values: ``A1 E1 ?0``."""
    return " ".join(f"{ch}{BLANK_VALUE if ch == BLANK else LETTER_VALUES[ch]}" for ch in rack)

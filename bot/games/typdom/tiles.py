"""Typ-Dom tiles: letters, counts, colours, Jollys, point values and racks.

Source: seed 002 ("Spielstein-Verzeichnis" and "Buchstabenwerte"), read with
shared/RULES.md "Typ-Dom": 80 tiles, 50 black consonants and 30 red vowels (Y is a
vowel), one Jolly of each colour; a red Jolly stands only for a vowel (A E I O U Y), a
black one only for a consonant ("wobei der rote Stein nur für einen Selbstlaut und der
schwarze Stein nur für einen Mitlaut verwendet werden darf").

Counts (seed table): A 7, B 2, C 2, D 3, E 9, F 3, G 2, H 3, I 4, J 1, K 2, L 4, M 3,
N 6, O 4, P 2, Q 1, R 4, S 4, T 3, U 4, V 1, W 1, X 1, Y 1, Z 1, Jolly 2.

Point values (Point-Typ-Dom, seed table): A 1, B 4, C 4, D 3, E 1, F 3, G 4, H 3, I 1,
J 6, K 4, L 2, M 3, N 2, O 1, P 4, Q 9, R 2, S 2, T 3, U 1, V 6, W 6, X 9, Y 9, Z 6,
Jolly 0 on the table.

Left-over values at the end (seed 002, Kreuzwort-Spiel): black tile 1, red tile 3,
Jolly 10; Point-Typ-Dom: a left-over tile counts minus its point value, a Jolly -10.

Rack code (shared/conformance/README.md "Typ-Dom"): letters, ``?`` the red Jolly, ``#``
the black Jolly; a rack is kept sorted (``#`` and ``?`` first, then A-Z).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from bot.games.verdict import N_, Visibility, verdict

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Vowels (red tiles; RULES.md: Y is a vowel).
VOWELS = "AEIOUY"
CONSONANTS = "".join(ch for ch in LETTERS if ch not in VOWELS)
RED_JOLLY = "?"
BLACK_JOLLY = "#"
JOLLYS = RED_JOLLY + BLACK_JOLLY

#: Tiles per letter (seed 002, Spielstein-Verzeichnis).
COUNTS: dict[str, int] = {
    "A": 7, "B": 2, "C": 2, "D": 3, "E": 9, "F": 3, "G": 2, "H": 3, "I": 4, "J": 1, "K": 2, "L": 4, "M": 3,
    "N": 6, "O": 4, "P": 2, "Q": 1, "R": 4, "S": 4, "T": 3, "U": 4, "V": 1, "W": 1, "X": 1, "Y": 1, "Z": 1,
}
#: Point-Typ-Dom values (seed 002, Buchstabenwerte); a Jolly on the table is 0.
VALUES: dict[str, int] = {
    "A": 1, "B": 4, "C": 4, "D": 3, "E": 1, "F": 3, "G": 4, "H": 3, "I": 1, "J": 6, "K": 4, "L": 2, "M": 3,
    "N": 2, "O": 1, "P": 4, "Q": 9, "R": 2, "S": 2, "T": 3, "U": 1, "V": 6, "W": 6, "X": 9, "Y": 9, "Z": 6,
}
JOLLY_VALUE = 0
#: Point-Typ-Dom: a Jolly left in the rack at the end (seed: "10 Minuspunkte").
JOLLY_LEFT_POINT = 10
#: Kreuzwort-Spiel: what a left-over tile pays (seed: black 1, red 3, Jolly 10).
LEFT_BLACK, LEFT_RED, LEFT_JOLLY = 1, 3, 10
TOTAL = 80


def is_vowel(letter: str) -> bool:
    return letter in VOWELS


def colour(tile: str) -> str:
    """``"rot"`` or ``"schwarz"`` for a rack character (letter, ``?``, ``#``)."""
    if tile == RED_JOLLY or tile in VOWELS:
        return "rot"
    return "schwarz"


def jolly_for(letter: str) -> str:
    """The Jolly that may stand for ``letter``: ``?`` (red) for a vowel, ``#`` (black) else."""
    return RED_JOLLY if letter in VOWELS else BLACK_JOLLY


def full_set() -> list[str]:
    """The 80 tiles in a fixed order: letters A-Z by count, then ``?`` and ``#``."""
    return [ch for ch in LETTERS for _ in range(COUNTS[ch])] + [RED_JOLLY, BLACK_JOLLY]


def red_tiles(tiles: Iterable[str]) -> list[str]:
    return [t for t in tiles if colour(t) == "rot"]


def black_tiles(tiles: Iterable[str]) -> list[str]:
    return [t for t in tiles if colour(t) == "schwarz"]


def sort_rack(tiles: Iterable[str]) -> str:
    """A rack in its code order: ``#``, ``?``, then A-Z."""
    return "".join(sorted(tiles))


def parse_rack(text: str) -> str:
    """A rack code from ``"#abe eee"``: upper-cased, spaces ignored, ``*`` is not
    accepted (say which Jolly); ValueError naming a character that is no tile."""
    s = text.replace(" ", "").upper()
    for ch in s:
        if ch not in COUNTS and ch not in JOLLYS:
            raise ValueError(f"tile={ch!r}")
    return sort_rack(s)


def rack_counter(rack: str) -> Counter:
    return Counter(rack)


def point_value(tile: str) -> int:
    """Point-Typ-Dom value of a rack tile left at the end (Jolly 10)."""
    return JOLLY_LEFT_POINT if tile in JOLLYS else VALUES[tile]


def left_value(tile: str) -> int:
    """Kreuzwort-Spiel: what one left-over tile pays the winner (black 1, red 3, Jolly 10)."""
    if tile in JOLLYS:
        return LEFT_JOLLY
    return LEFT_RED if tile in VOWELS else LEFT_BLACK


def rack_verdict(rack: str):
    """A rack for mails as a public-typed verdict (:mod:`bot.games.verdict`; put it in a
    parameter typed by who may see the rack): ``"rot: A E E; schwarz: B H M *"``, red
    tiles, then black, Jollys written ``*`` in their colour's group, with the key
    ``(* = Jolly)`` after a rack that holds one; ``"(leer)"``."""
    red = [t for t in rack if colour(t) == "rot"]
    black = [t for t in rack if colour(t) == "schwarz"]

    def show(tiles: list[str]) -> str:
        return " ".join("*" if t in JOLLYS else t for t in sorted(tiles, key=lambda t: (t in JOLLYS, t)))
    seen = Visibility.PUBLIC
    if red and black:
        text = verdict("rack_text", N_("rot: {red}; schwarz: {black}"), seen=seen, red=show(red), black=show(black))
    elif red:
        text = verdict("rack_text", N_("rot: {red}"), seen=seen, red=show(red))
    elif black:
        text = verdict("rack_text", N_("schwarz: {black}"), seen=seen, black=show(black))
    else:
        return verdict("rack_text", N_("(leer)"), seen=seen)
    if any(t in JOLLYS for t in rack):  # the key, where a Jolly is shown (issue 32)
        return verdict("rack_text", N_("{rack} (* = Jolly)"), seen=seen, rack=text)
    return text


def rack_text(rack: str, lang: str = "de") -> str:
    """Rack for mails in ``lang``: ``"rot: A E E; schwarz: B H M *"`` (:func:`rack_verdict`)."""
    return rack_verdict(rack).text(lang)

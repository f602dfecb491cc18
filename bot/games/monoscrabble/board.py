"""The Monoscrabble board: 15x15 squares with the standard premium squares.

Source: shared/RULES.md "Monoscrabble" (German Scrabble board, fixed) and the premium
map of shared/conformance/README.md ("Monoscrabble"), row 1 first: ``T`` triple word,
``D`` double word, ``t`` triple letter, ``d`` double letter, ``*`` the centre H8 (a
double word).

Board code (conformance README): 15 strings of 15 characters, row 1 first; ``.`` an
empty square, an upper-case letter a tile, a lower-case letter a Blanko standing for
that letter (Ä Ö Ü / ä ö ü are letters).

Coordinates: ``row`` 1-15 (row 1 at the top), ``col`` 1-15 written A-O (A = column 1);
H8 = (8, 8) is the centre. The board, tile and placement types are those of
:mod:`bot.games.grid`, shared with Typ-Dom.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.games.grid import Grid, Placement as _Placement, Tile as _Tile, coord_name as _coord_name
from bot.games.monoscrabble.tiles import LETTERS, value

SIZE = 15
COLUMNS = "ABCDEFGHIJKLMNO"
CENTRE = (8, 8)

PREMIUM_MAP: tuple[str, ...] = (
    "T..d...T...d..T",
    ".D...t...t...D.",
    "..D...d.d...D..",
    "d..D...d...D..d",
    "....D.....D....",
    ".t...t...t...t.",
    "..d...d.d...d..",
    "T..d...*...d..T",
    "..d...d.d...d..",
    ".t...t...t...t.",
    "....D.....D....",
    "d..D...d...D..d",
    "..D...d.d...D..",
    ".D...t...t...D.",
    "T..d...T...d..T",
)
#: map code -> (letter multiplier, word multiplier, name for the templates)
_PREMIUM = {".": (1, 1, ""), "d": (2, 1, "DL"), "t": (3, 1, "TL"), "D": (1, 2, "DW"), "*": (1, 2, "DW"),
            "T": (1, 3, "TW")}


def premium(row: int, col: int) -> tuple[int, int]:
    """(letter multiplier, word multiplier) of square (row, col)."""
    lm, wm, _ = _PREMIUM[PREMIUM_MAP[row - 1][col - 1]]
    return lm, wm


def premium_name(row: int, col: int) -> str:
    """``"TW"``, ``"DW"``, ``"TL"``, ``"DL"`` or ``""`` (the centre is a ``"DW"``)."""
    return _PREMIUM[PREMIUM_MAP[row - 1][col - 1]][2]


def on_board(row: int, col: int) -> bool:
    return 1 <= row <= SIZE and 1 <= col <= SIZE


def coord_name(row: int, col: int) -> str:
    """``"H8"`` for (8, 8); squares off the board are written as well as possible."""
    return _coord_name(row, col, SIZE)


@dataclass(frozen=True, slots=True)
class Tile(_Tile):
    """A tile on the board: its ``letter`` (upper case) and whether it is a Blanko;
    ``value`` its points (Blanko 0)."""

    @property
    def value(self) -> int:
        return value(self.letter, self.blank)

    @classmethod
    def from_code(cls, ch: str) -> "Tile | None":
        return Board.tile_from_code(ch)


@dataclass(frozen=True, slots=True)
class Placement(_Placement):
    """A tile placed by a move: square (row, col), its letter and whether it is a Blanko."""

    @property
    def tile(self) -> Tile:
        return Tile(self.letter, self.blank)

    @property
    def rack_letter(self) -> str:
        """What the tile takes from the rack: its letter, or ``?`` for a Blanko."""
        return "?" if self.blank else self.letter


@dataclass(frozen=True, slots=True)
class Board(Grid):
    """15x15 squares, each a :class:`Tile` or None; ``grid[row-1][col-1]`` (the shared
    :class:`bot.games.grid.Grid` with Monoscrabble's size and letters)."""

    SIZE: ClassVar[int] = SIZE
    COLUMNS: ClassVar[str] = COLUMNS
    LETTERS: ClassVar[str] = LETTERS
    NAME: ClassVar[str] = "Monoscrabble-Brett"
    TILE: ClassVar[type] = Tile

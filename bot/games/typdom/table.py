"""The Typ-Dom table: 25 x 25 squares, columns A-Y, rows 1-25, centre M13.

Source: shared/NOTATION.md "Typ-Dom" (the table is a grid of 25 x 25 squares, the first
word covers the centre M13) and the board code of shared/conformance/README.md "Typ-Dom"
(25 strings of 25, row 1 first: ``.`` empty, upper case a tile, lower case a Jolly
standing for that letter). The grid type is the shared :class:`bot.games.grid.Grid`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.games.grid import COLUMN_LETTERS, Grid, Placement, Tile, coord_name as _coord_name
from bot.games.typdom.tiles import LETTERS, VOWELS

SIZE = 25
COLUMNS = COLUMN_LETTERS[:SIZE]
CENTRE = (13, 13)
#: Rows and columns printed around the occupied part in an Auswertung.
MARGIN = 1


def coord_name(row: int, col: int) -> str:
    """``"M13"`` for (13, 13)."""
    return _coord_name(row, col, SIZE)


@dataclass(frozen=True, slots=True)
class Table(Grid):
    """The 25 x 25 table (the shared grid type with Typ-Dom's size and letters); a
    Jolly on it is a blank tile (``blank`` True), red for a vowel, black otherwise."""

    SIZE: ClassVar[int] = SIZE
    COLUMNS: ClassVar[str] = COLUMNS
    LETTERS: ClassVar[str] = LETTERS
    NAME: ClassVar[str] = "Typ-Dom-Tisch"

    def neighbours(self, row: int, col: int) -> int:
        """How many of the four squares beside (row, col) hold a tile."""
        return sum(1 for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if self.get(row + dr, col + dc) is not None)

    def jollys(self) -> list[tuple[int, int, str]]:
        """Every Jolly on the table: (row, col, letter it shows)."""
        return [(r, c, t.letter) for r, c, t in self.tiles() if t.blank]

    def cells(self, box: tuple[int, int, int, int] | None = None) -> list[list[dict]]:
        """For the HTML templates: the rows of ``box`` (default: the occupied part plus
        :data:`MARGIN`), each a list of ``{"coord", "letter", "jolly", "red"}``."""
        r0, r1, c0, c1 = box or self.bounds(MARGIN)
        out = []
        for r in range(r0, r1 + 1):
            row = []
            for c in range(c0, c1 + 1):
                t = self.get(r, c)
                row.append({"coord": coord_name(r, c), "letter": t.letter if t else "", "jolly": bool(t and t.blank),
                            "red": bool(t and t.letter in VOWELS)})
            out.append(row)
        return out


__all__ = ["SIZE", "COLUMNS", "CENTRE", "MARGIN", "Table", "Tile", "Placement", "coord_name"]

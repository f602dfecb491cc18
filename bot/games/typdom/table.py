"""The Typ-Dom table: 25 x 25 squares, columns A-Y, rows 1-25, centre M13.

Source: shared/NOTATION.md "Typ-Dom" (the table is a grid of 25 x 25 squares, the first
word covers the centre M13) and the board code of shared/conformance/README.md "Typ-Dom"
(25 strings of 25, row 1 first: ``.`` empty, upper case a tile, lower case a Jolly
standing for that letter). The grid type is the shared :class:`bot.games.grid.Grid`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from bot.games.grid import COLUMN_LETTERS, Grid, Placement, Tile, coord_name as _coord_name
from bot.games.typdom.tiles import COUNTS, LETTERS, VOWELS

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


#: Words an example may show, first that fits (seed 002 tile counts; chosen to be common,
#: not strong: the example shows the notation, it is no suggestion).
EXAMPLE_WORDS = ("EXAMEN", "KINO", "HAUS", "TOR", "ESEL", "OBST", "RAD")


def _available(table: Table, word: str) -> bool:
    """Whether the tiles of ``word`` can still exist: the set's count of each letter
    (seed 002) less the tiles showing it on the table (a Jolly there is no such tile)."""
    on_table = Counter(t.letter for _, _, t in table.tiles() if not t.blank)
    need = Counter(word)
    return all(COUNTS.get(ch, 0) - on_table[ch] >= n for ch, n in need.items())


def example_spot(table: Table, length: int) -> tuple[int, int] | None:
    """The first square (row, col), reading rows from A1, from which ``length`` squares
    across are free and touch no tile (so an example there names no occupied square and
    is no playable move on a table with tiles); the centre M13 on an empty table; None
    when there is no such room."""
    if table.is_empty():
        return CENTRE
    for r in range(1, SIZE + 1):
        for c in range(1, SIZE - length + 2):
            if all(table.get(r, c + i) is None and table.neighbours(r, c + i) == 0 for i in range(length)) \
                    and table.get(r, c - 1) is None and table.get(r, c + length) is None:
                return r, c
    return None


def example(table: Table) -> dict | None:
    """Notation data for an example placement that fits ``table``: ``{"coord": "B2",
    "word": "HAUS", "empty": False}`` (across; ``empty``: the table is empty, the example
    covers M13), or None. The word's tiles still exist (:func:`_available`) and its
    squares are free and touch nothing (:func:`example_spot`): an example, not a move
    worth playing (issue 32)."""
    for word in EXAMPLE_WORDS:
        if not _available(table, word):
            continue
        spot = example_spot(table, len(word))
        if spot is not None:
            return {"coord": coord_name(*spot), "word": word, "empty": table.is_empty()}
    return None


__all__ = ["SIZE", "COLUMNS", "CENTRE", "MARGIN", "Table", "Tile", "Placement", "coord_name", "example", "example_spot"]

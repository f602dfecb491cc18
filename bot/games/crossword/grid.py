"""The Crossword grid: fields, the grid itself, its lines and the points table.

Sources: seed 003 (Crossword, Markus Steffl, December 2002), section 1 ("6x6
Quadraten") and section 3 ("Es gelten Wörter in allen Zeilen und Spalten und in den
beiden langen Diagonalen", the points table); shared/NOTATION.md "Crossword" (rows A-F,
columns 1-6, ``A1`` top left) and conformance/README.md "Crossword" (row codes: ``.``
empty, ``A``-``Z`` a letter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

#: Grid size (seed 003, section 1: 6x6 fields).
SIZE = 6
#: Row names, top to bottom (NOTATION.md "Crossword").
ROWS = "ABCDEF"
#: The letters a field may hold (the crossword alphabet spells Ä Ö Ü as AE OE UE).
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: The empty field in row codes.
EMPTY = "."
#: Points per word length (seed 003, section 3: 2/3/4/5/6 letters -> 1/3/5/7/10).
POINTS: dict[int, int] = {2: 1, 3: 3, 4: 5, 5: 7, 6: 10}


def points(length: int) -> int:
    """Points of a word of ``length`` letters (seed 003, section 3); 0 below 2 letters."""
    return POINTS.get(length, 0)


@dataclass(frozen=True, slots=True, order=True)
class Field:
    """One field of the grid: ``row`` 0-5 (A-F) and ``col`` 0-5 (1-6). A field read from
    notation may lie off the grid (``on_board`` is then False); ``name`` writes it back."""

    row: int
    col: int

    @property
    def on_board(self) -> bool:
        return 0 <= self.row < SIZE and 0 <= self.col < SIZE

    @property
    def name(self) -> str:
        """``A1`` .. ``F6`` (a row beyond Z or a column below 1 shows as ``?``)."""
        r = chr(ord("A") + self.row) if 0 <= self.row < 26 else "?"
        return f"{r}{self.col + 1}"

    @classmethod
    def parse(cls, text: str) -> "Field":
        """``"B3"``/``"b3"`` -> ``Field(1, 2)``; any letter A-Z and number are accepted
        (``G1``, ``A7`` lie off the grid). Raises ValueError for other text."""
        t = text.strip().upper()
        if len(t) < 2 or not ("A" <= t[0] <= "Z") or not t[1:].isdigit():
            raise ValueError(f"kein Feld: {text!r}")
        return cls(ord(t[0]) - ord("A"), int(t[1:]) - 1)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Line:
    """One of the 14 lines words are read in (seed 003, section 3): ``kind`` ``"row"``,
    ``"col"`` or ``"diag"``, a German ``name`` (``Zeile A``, ``Spalte 3``, ``Diagonale
    A1-F6``) and its ``fields`` in reading order (left to right, top to bottom)."""

    kind: str
    name: str
    fields: tuple[Field, ...]

    def index(self, field: Field) -> int:
        return self.fields.index(field)


def _lines() -> tuple[Line, ...]:
    out = [Line("row", f"Zeile {ROWS[r]}", tuple(Field(r, c) for c in range(SIZE))) for r in range(SIZE)]
    out += [Line("col", f"Spalte {c + 1}", tuple(Field(r, c) for r in range(SIZE))) for c in range(SIZE)]
    out.append(Line("diag", "Diagonale A1-F6", tuple(Field(i, i) for i in range(SIZE))))
    out.append(Line("diag", "Diagonale A6-F1", tuple(Field(i, SIZE - 1 - i) for i in range(SIZE))))
    return tuple(out)


#: The 14 lines: 6 rows, 6 columns, the 2 long diagonals (seed 003, section 3).
LINES: tuple[Line, ...] = _lines()


def segment(start: Field, end: Field) -> tuple[Line, tuple[Field, ...]] | None:
    """The line and the fields from ``start`` to ``end`` (both included, in that order),
    or None when the two fields are not on one row, column or long diagonal of the grid
    (a short diagonal, a knight's jump, a field off the grid). For ``start == end`` the
    line is the field's row."""
    if not (start.on_board and end.on_board):
        return None
    for line in LINES:
        if start in line.fields and end in line.fields:
            i, j = line.index(start), line.index(end)
            step = 1 if j >= i else -1
            return line, tuple(line.fields[k] for k in range(i, j + step, step))
    return None


class Grid:
    """A player's 6x6 grid, immutable: ``rows`` are 6 strings of 6 characters, row A
    first, ``.`` an empty field, ``A``-``Z`` a letter (conformance/README.md)."""

    __slots__ = ("rows",)

    def __init__(self, rows: Sequence[str]) -> None:
        rows = tuple(str(r).upper() for r in rows)
        if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
            raise ValueError(f"ein Gitter hat {SIZE} Zeilen zu {SIZE} Zeichen: {list(rows)!r}")
        for r in rows:
            for ch in r:
                if ch != EMPTY and ch not in LETTERS:
                    raise ValueError(f"Zeichen {ch!r} im Gitter; erlaubt sind '.' und A-Z")
        self.rows = rows

    @classmethod
    def empty(cls) -> "Grid":
        return cls([EMPTY * SIZE] * SIZE)

    def get(self, field: Field) -> str | None:
        """The letter on ``field``, or None when it is empty."""
        ch = self.rows[field.row][field.col]
        return None if ch == EMPTY else ch

    def filled(self) -> int:
        """Number of fields holding a letter."""
        return sum(1 for r in self.rows for ch in r if ch != EMPTY)

    def place(self, letters: dict[Field, str]) -> "Grid":
        """A new grid with ``letters`` (field -> letter) added; no checks (see
        :func:`bot.games.crossword.engine.check_placement`)."""
        rows = [list(r) for r in self.rows]
        for f, ch in letters.items():
            rows[f.row][f.col] = ch
        return Grid(["".join(r) for r in rows])

    def line_text(self, line: Line) -> str:
        """The line's characters in reading order, ``.`` for an empty field."""
        return "".join(self.rows[f.row][f.col] for f in line.fields)

    def text(self, fields: Sequence[Field]) -> str:
        return "".join(self.rows[f.row][f.col] for f in fields)

    def picture(self, empty: str = "·") -> list[str]:
        """The grid as monospace text lines with row letters and column numbers, for
        mails (``empty`` marks an empty field)::

               1 2 3 4 5 6
            A  H A U S · ·
        """
        out = ["   " + " ".join(str(c + 1) for c in range(SIZE))]
        for r, row in enumerate(self.rows):
            out.append(f"{ROWS[r]}  " + " ".join(empty if ch == EMPTY else ch for ch in row))
        return out

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and other.rows == self.rows

    def __hash__(self) -> int:
        return hash(self.rows)

    def __repr__(self) -> str:
        return f"Grid({list(self.rows)!r})"

"""The Monoscrabble board: 15x15 squares with the standard premium squares.

Source: shared/RULES.md "Monoscrabble" (German Scrabble board, fixed) and the premium
map of shared/conformance/README.md ("Monoscrabble"), row 1 first: ``T`` triple word,
``D`` double word, ``t`` triple letter, ``d`` double letter, ``*`` the centre H8 (a
double word).

Board code (conformance README): 15 strings of 15 characters, row 1 first; ``.`` an
empty square, an upper-case letter a tile, a lower-case letter a Blanko standing for
that letter (Ä Ö Ü / ä ö ü are letters).

Coordinates: ``row`` 1-15 (row 1 at the top), ``col`` 1-15 written A-O (A = column 1);
H8 = (8, 8) is the centre.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

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
    c = COLUMNS[col - 1] if 1 <= col <= SIZE else f"[{col}]"
    return f"{c}{row}"


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile on the board: its ``letter`` (upper case) and whether it is a Blanko."""

    letter: str
    blank: bool = False

    @property
    def value(self) -> int:
        return value(self.letter, self.blank)

    @property
    def code(self) -> str:
        return self.letter.lower() if self.blank else self.letter

    @classmethod
    def from_code(cls, ch: str) -> "Tile | None":
        if ch == ".":
            return None
        if ch in LETTERS:
            return cls(ch, False)
        if ch.upper() in LETTERS and ch.islower():
            return cls(ch.upper(), True)
        raise ValueError(f"kein Feldcode: {ch!r}")


@dataclass(frozen=True, slots=True)
class Placement:
    """A tile placed by a move: square (row, col), its letter and whether it is a Blanko."""

    row: int
    col: int
    letter: str
    blank: bool = False

    @property
    def tile(self) -> Tile:
        return Tile(self.letter, self.blank)

    @property
    def rack_letter(self) -> str:
        """What the tile takes from the rack: its letter, or ``?`` for a Blanko."""
        return "?" if self.blank else self.letter

    def to_json(self) -> list:
        return [self.row, self.col, self.letter, self.blank]

    @classmethod
    def from_json(cls, data: Sequence) -> "Placement":
        return cls(int(data[0]), int(data[1]), str(data[2]).upper(), bool(data[3]))


@dataclass(frozen=True, slots=True)
class Board:
    """15x15 squares, each a :class:`Tile` or None; ``grid[row-1][col-1]``."""

    grid: tuple[tuple[Tile | None, ...], ...]

    def __post_init__(self) -> None:
        if len(self.grid) != SIZE or any(len(r) != SIZE for r in self.grid):
            raise ValueError("ein Monoscrabble-Brett hat 15 x 15 Felder")

    @classmethod
    def empty(cls) -> "Board":
        return cls(tuple((None,) * SIZE for _ in range(SIZE)))

    @classmethod
    def from_rows(cls, rows: Sequence[str]) -> "Board":
        """Board from 15 row codes (row 1 first). ValueError on a bad code."""
        rows = list(rows)
        if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
            raise ValueError("ein Brettcode hat 15 Zeilen zu 15 Zeichen")
        return cls(tuple(tuple(Tile.from_code(ch) for ch in r) for r in rows))

    @property
    def rows(self) -> list[str]:
        return ["".join("." if t is None else t.code for t in r) for r in self.grid]

    def get(self, row: int, col: int) -> Tile | None:
        """Tile on (row, col); None when empty or off the board."""
        if on_board(row, col):
            return self.grid[row - 1][col - 1]
        return None

    def __getitem__(self, rc: tuple[int, int]) -> Tile | None:
        return self.get(*rc)

    def is_empty(self) -> bool:
        return all(t is None for r in self.grid for t in r)

    def tiles(self) -> Iterator[tuple[int, int, Tile]]:
        for r in range(1, SIZE + 1):
            for c in range(1, SIZE + 1):
                t = self.grid[r - 1][c - 1]
                if t is not None:
                    yield r, c, t

    def count(self) -> int:
        return sum(1 for _ in self.tiles())

    def place(self, placements: Iterable[Placement]) -> "Board":
        """A new board with ``placements`` added (ValueError on an occupied or off-board square)."""
        grid = [list(r) for r in self.grid]
        for p in placements:
            if not on_board(p.row, p.col) or grid[p.row - 1][p.col - 1] is not None:
                raise ValueError(f"{coord_name(p.row, p.col)} ist nicht frei")
            grid[p.row - 1][p.col - 1] = p.tile
        return Board(tuple(tuple(r) for r in grid))

    def grid_text(self) -> str:
        """A monospace grid with coordinates (A-O, 1-15) for plain-text Auswertungen:
        tiles as letters (a Blanko in lower case), ``·`` for an empty square."""
        lines = ["    " + " ".join(COLUMNS)]
        for r in range(1, SIZE + 1):
            cells = " ".join("·" if t is None else t.code for t in self.grid[r - 1])
            lines.append(f"{r:>2}  {cells}")
        return "\n".join(lines)

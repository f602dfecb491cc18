"""Square word-game boards shared by Monoscrabble (15 x 15) and Typ-Dom (25 x 25).

Board code (shared/conformance/README.md): one string per row, row 1 first; ``.`` an
empty square, an upper-case letter a tile, a lower-case letter a Blanko (Monoscrabble)
or a Jolly (Typ-Dom) standing for that letter.

Coordinates: ``row`` 1..SIZE (row 1 at the top), ``col`` 1..SIZE written as a column
letter (A = column 1). A game's board is a subclass of :class:`Grid` that sets
``SIZE``, ``COLUMNS`` and ``LETTERS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable, Iterator, Sequence

#: Column letters of the largest board (Typ-Dom: A-Y); smaller boards use a prefix.
COLUMN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"


def coord_name(row: int, col: int, size: int) -> str:
    """``"H8"`` for (8, 8); a column off a board of ``size`` columns is written ``[n]``."""
    c = COLUMN_LETTERS[col - 1] if 1 <= col <= size else f"[{col}]"
    return f"{c}{row}"


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile on the board: its ``letter`` (upper case) and whether it is a blank
    (a Monoscrabble Blanko, a Typ-Dom Jolly) standing for that letter."""

    letter: str
    blank: bool = False

    @property
    def code(self) -> str:
        return self.letter.lower() if self.blank else self.letter


@dataclass(frozen=True, slots=True)
class Placement:
    """A tile placed by a move: square (row, col), its letter and whether it is a blank."""

    row: int
    col: int
    letter: str
    blank: bool = False

    @property
    def tile(self) -> Tile:
        return Tile(self.letter, self.blank)

    def to_json(self) -> list:
        return [self.row, self.col, self.letter, self.blank]

    @classmethod
    def from_json(cls, data: Sequence) -> "Placement":
        return cls(int(data[0]), int(data[1]), str(data[2]).upper(), bool(data[3]))


@dataclass(frozen=True, slots=True)
class Grid:
    """SIZE x SIZE squares, each a :class:`Tile` or None; ``grid[row-1][col-1]``.
    Subclasses set ``SIZE``, ``COLUMNS`` (the column letters) and ``LETTERS`` (the
    letters a tile may show) and ``NAME`` (German, for error messages)."""

    grid: tuple[tuple[Tile | None, ...], ...]

    SIZE: ClassVar[int] = 15
    COLUMNS: ClassVar[str] = COLUMN_LETTERS[:15]
    LETTERS: ClassVar[str] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    NAME: ClassVar[str] = "Brett"
    TILE: ClassVar[type] = Tile

    def __post_init__(self) -> None:
        n = self.SIZE
        if len(self.grid) != n or any(len(r) != n for r in self.grid):
            raise ValueError(f"ein {self.NAME} hat {n} x {n} Felder")

    @classmethod
    def tile_from_code(cls, ch: str) -> Tile | None:
        if ch == ".":
            return None
        if ch in cls.LETTERS:
            return cls.TILE(ch, False)
        if ch.upper() in cls.LETTERS and ch.islower():
            return cls.TILE(ch.upper(), True)
        raise ValueError(f"kein Feldcode: {ch!r}")

    @classmethod
    def on_board(cls, row: int, col: int) -> bool:
        return 1 <= row <= cls.SIZE and 1 <= col <= cls.SIZE

    @classmethod
    def coord(cls, row: int, col: int) -> str:
        return coord_name(row, col, cls.SIZE)

    @classmethod
    def empty(cls):
        n = cls.SIZE
        return cls(tuple((None,) * n for _ in range(n)))

    @classmethod
    def from_rows(cls, rows: Sequence[str]):
        """Board from SIZE row codes (row 1 first). ValueError on a bad code."""
        rows = list(rows)
        n = cls.SIZE
        if len(rows) != n or any(len(r) != n for r in rows):
            raise ValueError(f"ein Brettcode hat {n} Zeilen zu {n} Zeichen")
        return cls(tuple(tuple(cls.tile_from_code(ch) for ch in r) for r in rows))

    @property
    def rows(self) -> list[str]:
        return ["".join("." if t is None else t.code for t in r) for r in self.grid]

    def get(self, row: int, col: int) -> Tile | None:
        """Tile on (row, col); None when empty or off the board."""
        if 1 <= row <= self.SIZE and 1 <= col <= self.SIZE:
            return self.grid[row - 1][col - 1]
        return None

    def __getitem__(self, rc: tuple[int, int]) -> Tile | None:
        return self.get(*rc)

    def is_empty(self) -> bool:
        return not any(map(any, self.grid))  # (C loops only; a Tile is always true)

    def tiles(self) -> Iterator[tuple[int, int, Tile]]:
        n = self.SIZE
        for r in range(1, n + 1):
            for c in range(1, n + 1):
                t = self.grid[r - 1][c - 1]
                if t is not None:
                    yield r, c, t

    def count(self) -> int:
        return sum(1 for _ in self.tiles())

    def place(self, placements: Iterable[Placement]):
        """A new board with ``placements`` added (ValueError on an occupied or off-board square)."""
        grid = list(self.grid)
        changed: dict[int, list] = {}  # (only the rows that change are copied)
        n = self.SIZE
        for p in placements:
            r, c = p.row, p.col
            line = changed.get(r)
            if line is None and 1 <= r <= n:
                line = changed[r] = list(grid[r - 1])
            if line is None or not 1 <= c <= n or line[c - 1] is not None:
                raise ValueError(f"{self.coord(r, c)} ist nicht frei")
            line[c - 1] = self.TILE(p.letter, p.blank)
        for r, line in changed.items():
            grid[r - 1] = tuple(line)
        return self._same_shape(tuple(grid))

    def replace(self, row: int, col: int, tile: Tile | None):
        """A new board with square (row, col) set to ``tile`` (or emptied)."""
        grid = list(self.grid)
        line = list(grid[row - 1])
        line[col - 1] = tile
        grid[row - 1] = tuple(line)
        return self._same_shape(tuple(grid))

    def _same_shape(self, grid: tuple):
        """A board of this type on ``grid``, which has this board's shape (rows of this
        board with squares changed), without the shape check of ``__post_init__``."""
        out = object.__new__(type(self))
        object.__setattr__(out, "grid", grid)
        return out

    def bounds(self, margin: int = 0) -> tuple[int, int, int, int]:
        """(first row, last row, first col, last col) of the occupied squares widened by
        ``margin`` and clipped to the board; the whole board when it is empty."""
        cells = [(r, c) for r, c, _ in self.tiles()]
        n = self.SIZE
        if not cells:
            return 1, n, 1, n
        r0 = max(1, min(r for r, _ in cells) - margin)
        r1 = min(n, max(r for r, _ in cells) + margin)
        c0 = max(1, min(c for _, c in cells) - margin)
        c1 = min(n, max(c for _, c in cells) + margin)
        return r0, r1, c0, c1

    def grid_text(self, box: tuple[int, int, int, int] | None = None) -> str:
        """A monospace grid with coordinates for plain-text Auswertungen: tiles as
        letters (a blank in lower case), ``·`` for an empty square; ``box`` = (first
        row, last row, first col, last col) prints that part only (default: all)."""
        r0, r1, c0, c1 = box or (1, self.SIZE, 1, self.SIZE)
        lines = ["    " + " ".join(COLUMN_LETTERS[c - 1] for c in range(c0, c1 + 1))]
        for r in range(r0, r1 + 1):
            cells = " ".join("·" if (t := self.grid[r - 1][c - 1]) is None else t.code for c in range(c0, c1 + 1))
            lines.append(f"{r:>2}  {cells}")
        return "\n".join(lines)


def run(board: Grid, placed: dict[tuple[int, int], object], r: int, c: int, dr: int, dc: int) -> list[tuple[int, int]]:
    """The squares of the word through (r, c) in direction (dr, dc): the run of
    occupied squares (board tiles and the keys of ``placed``) around it."""
    grid, n = board.grid, board.SIZE
    # (a square is filled when it is a key of ``placed`` or holds a board tile; written
    # out twice instead of a helper: the engines call this for every word they judge)
    sr, sc = r - dr, c - dc
    while (sr, sc) in placed or (0 < sr <= n and 0 < sc <= n and grid[sr - 1][sc - 1] is not None):
        sr, sc = sr - dr, sc - dc
    out = []
    rr, cc = sr + dr, sc + dc  # (the first square of the run, or (r, c) when none is filled)
    while (rr, cc) in placed or (0 < rr <= n and 0 < cc <= n and grid[rr - 1][cc - 1] is not None):
        out.append((rr, cc))
        rr, cc = rr + dr, cc + dc
    return out


__all__ = ["COLUMN_LETTERS", "coord_name", "Tile", "Placement", "Grid", "run"]

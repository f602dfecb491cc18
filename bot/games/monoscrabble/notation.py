"""Monoscrabble move notation: parse and format (shared/NOTATION.md, "Monoscrabble";
seed 001, "Die Zugabgabe sollte wie folgt aussehen ...").

``parse_move("A12w RE*MUS+aderigeS 25 Punkte")`` gives a :class:`Move`;
``format_move(move)`` writes it back in the canonical form (``H8w STERN``: column
letter first, the direction always written, a Blanko as ``*X``, further words as
`` +word``, claimed points as ``N Punkte``). Parsing uses the lark grammar
``grammar/monoscrabble_move.lark``.

Readings (NOTATION.md): the coordinate may be written letter-number or number-letter
(``A12`` = ``12A`` = column A, row 12); without ``w``/``s`` the Scrabble convention
applies: number first is waagerecht, letter first senkrecht. ``?X`` is read as ``*X``.
ß is spelled SS (upper or lower case like the letter before it, or after it at the start
of a word). ``PASSE`` (any case; also ``PASS``, ``PASSEN``) is a deliberate pass
(decision: a valid move of 0 points that places nothing; see ``engine``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from lark import Lark, Transformer, UnexpectedInput

from bot.games.base import NotationError
from bot.games.verdict import N_, Visibility, verdict
from bot.games.grammar import error_column, lalr_parser
from bot.games.monoscrabble.board import COLUMNS, coord_name

TokenKind = Literal["new", "old", "blank", "empty"]
Direction = Literal["w", "s"]


@dataclass(frozen=True, slots=True)
class Token:
    """One square of a written word: ``new`` tile placed now, ``old`` tile already on
    the board, ``blank`` Blanko placed now standing for ``letter``, or ``empty`` (a
    square the player marked as left empty, ``.``; ``letter`` is None)."""

    kind: TokenKind
    letter: str | None = None

    def text(self) -> str:
        if self.kind == "new":
            return self.letter  # type: ignore[return-value]
        if self.kind == "old":
            return self.letter.lower()  # type: ignore[union-attr]
        if self.kind == "blank":
            return "*" + self.letter  # type: ignore[operator]
        return "."

    @property
    def placed(self) -> bool:
        """True for a tile the player places now (``new`` or ``blank``)."""
        return self.kind in ("new", "blank")


def tokens_text(tokens: tuple[Token, ...]) -> str:
    return "".join(t.text() for t in tokens)


def tokens_word(tokens: tuple[Token, ...]) -> str:
    """The letters of the tokens, upper case (empty squares left out)."""
    return "".join(t.letter for t in tokens if t.letter)  # type: ignore[misc]


@dataclass(frozen=True, slots=True)
class Move:
    """A Monoscrabble move as written.

    ``row``/``col`` (1-based; may lie off the board, the engine says ``off-board``) of the
    first written square, ``direction`` ``"w"`` or ``"s"``, the ``tokens`` of the main
    word, ``extras`` (the ``+WORD`` words, kept to compare with the computed words),
    ``claimed`` points or None, ``passe`` for a pass. ``direction_given`` and
    ``number_first`` record how it was written and do not take part in equality.
    """

    row: int
    col: int
    direction: Direction
    tokens: tuple[Token, ...]
    extras: tuple[tuple[Token, ...], ...] = ()
    claimed: int | None = None
    passe: bool = False
    direction_given: bool = field(default=True, compare=False)
    number_first: bool = field(default=False, compare=False)

    @classmethod
    def make_pass(cls, claimed: int | None = None) -> "Move":
        return cls(0, 0, "w", (), (), claimed, True)

    @property
    def coord(self) -> str:
        return coord_name(self.row, self.col)

    @property
    def word(self) -> str:
        """The main word's letters as written, upper case."""
        return tokens_word(self.tokens)

    @property
    def text(self) -> str:
        """The written main word (``RE*MUS``)."""
        return tokens_text(self.tokens)

    def squares(self) -> list[tuple[int, int]]:
        """The square of each main-word token, in order."""
        dr, dc = (0, 1) if self.direction == "w" else (1, 0)
        return [(self.row + i * dr, self.col + i * dc) for i in range(len(self.tokens))]


_SPACES = str.maketrans({"\u00a0": " ", "\u2009": " ", "\u202f": " "})
_SHARP = re.compile("[ßẞ]")
_BAD_COL = re.compile(r"^\s*(?:[P-Zp-z][0-9]{1,2}|[0-9]{1,2}[P-RT-VX-Zp-rt-vx-z])")


def sharp_s(src: str) -> str:
    """ß -> SS or ss, in the case of the neighbouring letter (ẞ -> SS)."""
    def repl(m: re.Match) -> str:
        if m.group(0) == "ẞ":
            return "SS"
        i = m.start()
        before = src[i - 1] if i > 0 else ""
        after = src[i + 1] if i + 1 < len(src) else ""
        ref = before if before.isalpha() else after
        return "SS" if ref.isalpha() and ref.isupper() else "ss"
    return _SHARP.sub(repl, src)


class MoveTransformer(Transformer):
    """Builds the :class:`Move` for the placement rules of ``monoscrabble_move.lark``
    (also imported by the Typ-Dom grammar): inline while the LALR parser reads the line
    (no parse tree), or from a tree; ``COLUMNS`` are the board's column letters and
    ``MOVE`` the class built."""

    COLUMNS = COLUMNS
    MOVE = Move

    def start(self, items):
        return items[0]

    def passe(self, items):
        claimed = next((it for it in items if isinstance(it, int)), None)
        return Move.make_pass(claimed)

    def play(self, items):
        coord = items[0]
        direction = None
        tokens: tuple[Token, ...] = ()
        extras = []
        claimed = None
        for it in items[1:]:
            if isinstance(it, int):
                claimed = it
            elif isinstance(it, _Extra):
                extras.append(it.tokens)
            elif isinstance(it, tuple):
                tokens = it
            else:  # DIR, with the spaces before it
                direction = str(it).strip().lower()
        row, col, number_first = coord
        given = direction is not None
        if direction is None:
            direction = "w" if number_first else "s"
        return self.MOVE(row, col, direction, tokens, tuple(extras), claimed, False, given, number_first)

    def letter_first(self, items):
        return (int(items[1]), self.COLUMNS.index(str(items[0]).upper()) + 1, False)

    def number_first(self, items):
        return (int(items[0]), self.COLUMNS.index(str(items[1]).upper()) + 1, True)

    def extra(self, items):
        return _Extra(items[0])

    def word(self, items):
        return tuple(items)

    def letter(self, items):
        ch = str(items[0])
        return Token("new" if ch.isupper() else "old", ch.upper())

    def blank(self, items):
        return Token("blank", str(items[1]).upper())

    def gap(self, items):
        return Token("empty", None)

    def points(self, items):
        return int(_DIGITS.search(items[0]).group(0))  # type: ignore[union-attr]


@dataclass(frozen=True, slots=True)
class _Extra:
    """A ``+WORD`` while the line is read."""

    tokens: tuple[Token, ...]


_DIGITS = re.compile("[0-9]+")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR(1) parser of ``grammar/monoscrabble_move.lark`` (contextual lexer, linear
    time), building the :class:`Move` as it parses."""
    return lalr_parser("monoscrabble_move.lark", MoveTransformer())


def parse_move(text: str) -> Move:
    """Read one Monoscrabble move line (shared/NOTATION.md "Monoscrabble"; seed 001).

    Raises :class:`NotationError` with a verdict (code ``syntax``, public: Monoscrabble
    has no private state) when the line is not a move.

    The result is remembered per line (moves are immutable values, and the same line
    is read when the mail arrives, at the ZAT, and from many players).
    """
    res = _parse_cached(text)
    if isinstance(res, NotationError):
        raise NotationError(res.verdict, text)
    return res


@lru_cache(maxsize=8192)
def _parse_cached(text: str) -> "Move | NotationError":
    try:
        return _parse(text)
    except NotationError as exc:
        return exc


def _parse(text: str) -> Move:
    """:func:`parse_move` without remembering."""
    src = unicodedata.normalize("NFC", text).translate(_SPACES).strip()
    if not src:
        raise NotationError(verdict("syntax", N_("Leere Zeile: kein Zug."), seen=Visibility.PUBLIC), text)
    src = sharp_s(src)
    try:
        return _parser().parse(src)
    except UnexpectedInput as exc:
        if _BAD_COL.match(src):
            raise NotationError(verdict("syntax", N_("Diese Spalte gibt es nicht: die Spalten heißen A bis O, die "
                                                     "Zeilen 1 bis 15 (z. B. 'H8w STERN')."), seen=Visibility.PUBLIC),
                                text) from None
        col = error_column(exc, src)
        if col:
            raise NotationError(verdict("syntax", N_("Zug nicht lesbar (bei Zeichen {col}): erwartet wird KOORDINATE "
                                                     "RICHTUNG WORT [+WORT ...] [PUNKTE], z. B. 'A12w "
                                                     "RE*MUS+aderigeS 25 Punkte'."), seen=Visibility.PUBLIC, col=col),
                                text) from None
        raise NotationError(verdict("syntax", N_("Zug nicht lesbar: erwartet wird KOORDINATE RICHTUNG WORT "
                                                 "[+WORT ...] [PUNKTE], z. B. 'A12w RE*MUS+aderigeS 25 Punkte'."),
                                    seen=Visibility.PUBLIC), text) from None


def format_move(move: Move, *, points: bool = True, extras: bool = True) -> str:
    """Write ``move`` in the canonical player notation; inverse of :func:`parse_move`
    (``parse_move(format_move(m)) == m``). ``points``/``extras`` drop the claimed
    points or the ``+WORD`` words when False."""
    if move.passe:
        out = "PASSE"
    else:
        out = f"{move.coord}{move.direction} {move.text}"
        if extras:
            out += "".join(f" +{tokens_text(x)}" for x in move.extras)
    if points and move.claimed is not None:
        out += f" {move.claimed} Punkte"
    return out

"""Typ-Dom "Wer behält recht?": a turn line read and written (pure).

Sources: shared/NOTATION.md "Typ-Dom" (``COORD LETTER WORD``, ``FERTIG WORD``) and seed
002, "4. Wer behält recht?" (the kinds of turn: see :mod:`.wbr`); the grammar is
``grammar/typdom_wbr.lark``. :func:`parse_turn` reads a line into a :class:`WbrTurn`
(Ä Ö Ü ß spelled AE OE UE SS by the shared :func:`bot.lexicon.alphabet.spell_line`,
issue 33), :func:`format_turn` writes its canonical notation; whether the turn is
allowed is :mod:`.wbr_judge`'s.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from lark import Lark, Transformer, UnexpectedInput

from bot import GRAMMAR_DIR
from bot.games.base import NotationError
from bot.games.grid import Placement as Tiled
from bot.games.typdom.table import COLUMNS, coord_name
from bot.games.verdict import N_, verdict
from bot.lexicon.alphabet import spell_line

__all__ = ["Lay", "WbrTurn", "parse_turn", "format_turn"]

@dataclass(frozen=True, slots=True)
class Lay:
    """One tile laid: square (row, col), its letter, whether it is a Jolly."""

    row: int
    col: int
    letter: str
    jolly: bool = False

    @property
    def coord(self) -> str:
        return coord_name(self.row, self.col)

    @property
    def tile(self) -> Tiled:
        return Tiled(self.row, self.col, self.letter, self.jolly)

    def text(self) -> str:
        return f"{self.coord} {'*' if self.jolly else ''}{self.letter}"


@dataclass(frozen=True, slots=True)
class WbrTurn:
    """A "Wer behält recht?" turn as written.

    ``kind``: ``"lay"``, ``"fertig"``, ``"kaufen"`` or ``"passe"``. ``lays``: the tiles
    written (one, or two with a premium); ``word``: the word named (upper case; None: the
    announcement is kept); for ``"fertig"`` ``word`` is the word to complete and
    ``jollys`` the positions written as ``*X``, ``at`` its first square and direction when
    written; ``take``: (row, col) of a Jolly taken first; ``colour``: ``"rot"`` /
    ``"schwarz"`` of a purchase, or None."""

    kind: str
    lays: tuple[Lay, ...] = ()
    word: str | None = None
    jollys: tuple[int, ...] = ()
    at: tuple[int, int, str | None] | None = None
    take: tuple[int, int] | None = None
    colour: str | None = None


class _ToTurn(Transformer):
    def start(self, items):
        return items[0]

    def letter_first(self, items):
        return (int(items[1]), COLUMNS.index(str(items[0]).upper()) + 1)

    def number_first(self, items):
        return (int(items[0]), COLUMNS.index(str(items[1]).upper()) + 1)

    def tile(self, items):
        return (str(items[-1]).upper(), len(items) == 2)

    def word(self, items):
        return "".join(str(t).upper() for t in items)

    def lay(self, items):
        (r, c), (letter, jolly) = items[0], items[1]
        return Lay(r, c, letter, jolly), (items[2] if len(items) > 2 else None)

    def lays(self, items):
        words = [w for _, w in items if w]
        if len(set(words)) > 1:
            raise NotationError(verdict("syntax", N_("Ein Zug sagt ein Wort an, nicht {words}."),
                                        words=list(dict.fromkeys(words))))
        return WbrTurn("lay", tuple(lay for lay, _ in items), words[0] if words else None)

    def fword(self, items):
        return "".join(letter for letter, _ in items), tuple(i for i, (_, j) in enumerate(items) if j)

    def fertig(self, items):
        at = None
        rest = items[1:]
        if len(rest) > 1:
            (r, c) = rest[0]
            d = str(rest[1]).lower() if len(rest) > 2 else None
            at = (r, c, d)
        word, jollys = rest[-1]
        return WbrTurn("fertig", word=word, jollys=jollys, at=at)

    def kaufen(self, items):
        colour = None
        if len(items) > 1:
            colour = "rot" if str(items[1]).lower().startswith("rot") else "schwarz"
        return WbrTurn("kaufen", colour=colour)

    def passe(self, _items):
        return WbrTurn("passe")

    def jolly_turn(self, items):
        turn: WbrTurn = items[2]
        return WbrTurn(turn.kind, turn.lays, turn.word, turn.jollys, turn.at, take=items[1])


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark((GRAMMAR_DIR / "typdom_wbr.lark").read_text(encoding="utf-8"), parser="earley", lexer="dynamic",
                ambiguity="resolve")


_SPACES = str.maketrans({"\u00a0": " ", "\u2009": " ", "\u202f": " "})


def parse_turn(text: str) -> WbrTurn:
    """Read one turn line (see ``grammar/typdom_wbr.lark``); raises
    :class:`NotationError` with a verdict (code ``syntax``) for the mover."""
    src = unicodedata.normalize("NFC", text).translate(_SPACES).strip()
    src = spell_line(src, "typdom").text  # Ä Ö Ü ß as AE OE UE SS (issue 33; the service spells first)
    if not src:
        raise NotationError(verdict("syntax", N_("Leere Zeile: kein Zug.")), text)
    try:
        tree = _parser().parse(src)
    except UnexpectedInput as exc:
        col = getattr(exc, "column", None)
        meant = bool(re.match(r"(?i)\s*(fertig|jolly)\b|\s*[a-y][0-9]{1,2}\s+\S", src))
        if isinstance(col, int) and col > 0:
            said = verdict("syntax", N_("Zug nicht lesbar (bei Zeichen {col}): erwartet wird KOORDINATE BUCHSTABE "
                                        "WORT (z. B. 'M13 E ESEL'), 'FERTIG WORT', 'KAUFEN' oder 'PASSE'."), col=col)
        else:
            said = verdict("syntax", N_("Zug nicht lesbar: erwartet wird KOORDINATE BUCHSTABE WORT (z. B. "
                                        "'M13 E ESEL'), 'FERTIG WORT', 'KAUFEN' oder 'PASSE'."))
        raise NotationError(said, text, meant=meant) from None
    try:
        turn = _ToTurn().transform(tree)
    except Exception as exc:  # a NotationError raised inside the transformer arrives wrapped
        inner = getattr(exc, "orig_exc", exc)
        if isinstance(inner, NotationError):
            raise NotationError(inner.verdict, text, meant=True) from None
        raise
    if len(turn.lays) > 2:
        raise NotationError(verdict("syntax", N_("Höchstens zwei Steine in einem Zug (der zweite nur als Prämie).")),
                            text, meant=True)
    return turn


def format_turn(turn: WbrTurn) -> str:
    """The canonical notation of ``turn``; inverse of :func:`parse_turn`."""
    if turn.kind == "kaufen":
        out = "KAUFEN" + (f" {turn.colour}" if turn.colour else "")
    elif turn.kind == "passe":
        out = "PASSE"
    elif turn.kind == "fertig":
        word = "".join(("*" if i in turn.jollys else "") + ch for i, ch in enumerate(turn.word or ""))
        at = ""
        if turn.at:
            at = f" {coord_name(turn.at[0], turn.at[1])}{turn.at[2] or ''}"
        out = f"FERTIG{at} {word}"
    else:
        parts = [lay.text() for lay in turn.lays]
        if turn.word:
            parts[0] += f" {turn.word}"
        out = "; ".join(parts)
    if turn.take:
        out = f"JOLLY {coord_name(*turn.take)}; {out}"
    return out

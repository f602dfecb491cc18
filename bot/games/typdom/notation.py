"""Typ-Dom turn notation: parse and format (shared/NOTATION.md "Typ-Dom"; seed 002).

A turn is one line:

- one placement, written as in Monoscrabble: ``COORD DIR WORD`` (``M13w EXAMEN``,
  ``K10s naHT``): upper case = a tile laid now, lower case = a tile on the table,
  ``*X`` (or ``?X``) = a Jolly laid as X; ``.`` inside WORD is an empty square (a gap);
  optional points (``19``, ``19 Punkte``) as the player's own count;
- two placements separated by ``;`` (the second is allowed when the first joins words);
- ``JOLLY M13; PLACEMENT`` takes the Jolly at M13 first by laying the letter it shows;
- ``KAUFEN`` (buy one tile) or ``KAUFEN 2`` (Point-Typ-Dom: 1-3 tiles); decision beyond
  the notation file: a colour may follow (``KAUFEN rot``, ``KAUFEN 2 schwarz``), since
  the seed's players see the tiles' colours face down ("jeder Teilnehmer nimmt 5 rote und
  8 schwarze Steine"); without one the tiles come from the mixed pool.

Columns A-Y, rows 1-25, in either order (``M13`` = ``13M``); without ``w``/``s`` the
Monoscrabble convention holds (number first waagerecht, letter first senkrecht). Ä Ö Ü
are spelled AE OE UE and ß SS (RULES.md "Common to all games"). The placement rules of
the grammar (``grammar/typdom_move.lark``) are imported from the Monoscrabble grammar, and
placements are the Monoscrabble :class:`~bot.games.monoscrabble.notation.Move` type.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from lark import Lark, UnexpectedInput

from bot import GRAMMAR_DIR
from bot.games.base import NotationError
from bot.games.verdict import N_, Verdict, Visibility, about_mover, mover, verdict
from bot.games.monoscrabble.notation import Move, MoveTransformer, Token, sharp_s, tokens_text, tokens_word
from bot.games.typdom.table import COLUMNS, coord_name

__all__ = ["Placement", "Turn", "parse_turn", "format_turn", "format_placement", "Token", "tokens_text",
           "tokens_word", "shared_token"]


@dataclass(frozen=True, slots=True)
class Placement(Move):
    """One placement as written (the Monoscrabble move type on the 25 x 25 table)."""

    @property
    def coord(self) -> str:
        return coord_name(self.row, self.col)


_TOKENS: dict[tuple[str, str], Token] = {}


def shared_token(kind: str, letter: str) -> Token:
    """``Token(kind, letter)``, one object per kind and letter (tokens are frozen): for
    the move generator and the engine, which build many."""
    t = _TOKENS.get((kind, letter))
    if t is None:
        t = _TOKENS[kind, letter] = Token(kind, letter)  # type: ignore[arg-type]
    return t


@dataclass(frozen=True, slots=True)
class Turn:
    """A Typ-Dom turn as written.

    ``placements``: one or two :class:`Placement` (empty for a purchase); ``jolly``:
    (row, col) of a Jolly taken first, or None; ``buy``: the number of tiles to buy
    (None: no purchase; ``KAUFEN`` alone is 1); ``buy_colour``: ``"rot"``,
    ``"schwarz"`` or None (from the mixed pool); ``count_given``: whether the number was
    written.
    """

    placements: tuple[Placement, ...] = ()
    jolly: tuple[int, int] | None = None
    buy: int | None = None
    buy_colour: str | None = None
    count_given: bool = False

    @property
    def is_buy(self) -> bool:
        return self.buy is not None


class _ToTurn(MoveTransformer):
    COLUMNS = COLUMNS
    MOVE = Placement

    def start(self, items):
        return items[0]

    def kaufen(self, items):
        n, colour, given = 1, None, False
        for it in items[1:]:
            if it.type == "COUNT":
                n, given = int(it), True
            elif it.type == "COLOUR":
                colour = "rot" if str(it).lower().startswith("rot") else "schwarz"
        return Turn(buy=n, buy_colour=colour, count_given=given)

    def placements(self, items):
        return Turn(placements=tuple(items))

    def jolly_turn(self, items):
        coord = items[1]
        turn = items[2]
        return Turn(placements=turn.placements, jolly=(coord[0], coord[1]))


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark((GRAMMAR_DIR / "typdom_move.lark").read_text(encoding="utf-8"), parser="earley",
                lexer="dynamic", ambiguity="resolve", import_paths=[GRAMMAR_DIR])


_SPACES = str.maketrans({"\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2013": "-"})
_UMLAUT = {"Ä": "AE", "Ö": "OE", "Ü": "UE", "ä": "ae", "ö": "oe", "ü": "ue"}

# What the game master's copy reads instead (bot.games.verdict.about_mover).
JOLLY_NEEDS_WORD = about_mover(
    N_("Nach 'JOLLY M13;' muss ein Wort folgen, das du in diesem Zug legst (z. B. 'JOLLY M13; N12s HeRZ')."),
    N_("Nach 'JOLLY M13;' muss ein Wort folgen, das im selben Zug gelegt wird (z. B. 'JOLLY M13; N12s HeRZ')."))


def _syntax(msgid: str, **params: object) -> Verdict:
    """The verdict of an unreadable line, to its mover (code ``syntax``)."""
    return verdict("syntax", msgid, seen=Visibility.MOVER, **{k: mover(v) for k, v in params.items()})


_UNREADABLE = N_("Zug nicht lesbar: erwartet wird KOORDINATE RICHTUNG WORT (z. B. 'M13w EXAMEN'), zwei davon mit "
                 "';' getrennt, 'JOLLY M13; ...' oder 'KAUFEN'.")
_UNREADABLE_AT = N_("Zug nicht lesbar (bei Zeichen {col}): erwartet wird KOORDINATE RICHTUNG WORT (z. B. "
                    "'M13w EXAMEN'), zwei davon mit ';' getrennt, 'JOLLY M13; ...' oder 'KAUFEN'.")
_BAD_COL = re.compile(r"^\s*(?:[Zz][0-9]{1,2}|[0-9]{1,2}[Zz])")
_ROW_RE = re.compile(r"(?:^|[;\s])(?:[A-Ya-y]([0-9]{1,2})|([0-9]{1,2})[A-Ya-y])(?=[wsWS]?\s)")


def _umlauts(src: str) -> str:
    """Ä -> AE (upper case) or ae (lower case: a tile on the table), as in seed 000."""
    return "".join(_UMLAUT.get(ch, ch) for ch in src)


def parse_turn(text: str) -> Turn:
    """Read one Typ-Dom turn line (shared/NOTATION.md "Typ-Dom").

    Returns a :class:`Turn`; raises :class:`NotationError` with a ``syntax`` verdict for
    the mover when the line is not a turn (also for a row outside 1-25 or a Jolly taken
    without a placement after it).
    """
    src = unicodedata.normalize("NFC", text).translate(_SPACES).strip()
    if not src:
        raise NotationError(_syntax(N_("Leere Zeile: kein Zug.")), text)
    src = _umlauts(sharp_s(src))
    if re.fullmatch(r"(?i)jolly\s*[A-Ya-y0-9]{2,3}\s*;?\s*\.?", src):
        raise NotationError(_syntax(JOLLY_NEEDS_WORD), text)
    try:
        tree = _parser().parse(src)
    except UnexpectedInput as exc:
        if _BAD_COL.match(src):
            raise NotationError(_syntax(N_("Diese Spalte gibt es nicht: die Spalten heißen A bis Y, die Zeilen 1 "
                                           "bis 25 (z. B. 'M13w EXAMEN').")), text) from None
        col = getattr(exc, "column", None)
        if isinstance(col, int) and col > 0:
            raise NotationError(_syntax(_UNREADABLE_AT, col=col), text) from None
        raise NotationError(_syntax(_UNREADABLE), text) from None
    turn: Turn = _ToTurn().transform(tree)
    for p in turn.placements:
        if p.extras:
            raise NotationError(_syntax(N_("'+WORT' gibt es bei Typ-Dom nicht: ein zweites Wort wird mit ';' "
                                           "abgetrennt (z. B. 'R13s nAHt; N11s TExT').")), text)
        if not 1 <= p.row <= 99:
            raise NotationError(_syntax(_UNREADABLE), text)
    if turn.jolly is not None and not turn.placements:
        raise NotationError(_syntax(N_("Nach 'JOLLY M13;' muss ein Wort folgen.")), text)
    return turn


def format_placement(p: Move, *, points: bool = True) -> str:
    """``M13w EXAMEN`` (column letter first, direction written, a Jolly as ``*X``)."""
    out = f"{coord_name(p.row, p.col)}{p.direction} {tokens_text(p.tokens)}"
    if points and p.claimed is not None:
        out += f" {p.claimed} Punkte"
    return out


def format_turn(turn: Turn, *, points: bool = True) -> str:
    """Write ``turn`` in the canonical notation; inverse of :func:`parse_turn`
    (``parse_turn(format_turn(t)) == t`` up to how the coordinates were written)."""
    if turn.is_buy:
        out = "KAUFEN"
        if turn.count_given or turn.buy != 1:
            out += f" {turn.buy}"
        if turn.buy_colour:
            out += f" {turn.buy_colour}"
        return out
    parts = [format_placement(p, points=points) for p in turn.placements]
    if turn.jolly is not None:
        parts.insert(0, f"JOLLY {coord_name(*turn.jolly)}")
    return "; ".join(parts)

"""Rondo move notation: parse and format (shared/NOTATION.md, "Rondo"; seed 000, III).

``parse_move("Feld 2: ST*And/ 15 Punkte")`` gives a :class:`Move`;
``format_move(move)`` writes it back. Parsing uses the lark grammar
``grammar/rondo_move.lark``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from lark import Lark, Token as LarkToken, Transformer, UnexpectedInput

from bot.games.base import NotationError
from bot.games.grammar import error_column, lalr_parser
from bot.games.verdict import N_, Visibility, verdict

TokenKind = Literal["new", "old", "joker", "loescher"]


@dataclass(frozen=True, slots=True)
class Token:
    """One field of a move: ``new`` letter card, ``old`` card left lying (its letter in
    ``letter``), new ``joker`` meaning ``letter``, or ``loescher`` (new or old, decided
    against the Auslage). ``value`` is the card value the player wrote, if any."""

    kind: TokenKind
    letter: str | None = None
    value: int | None = None

    def text(self) -> str:
        if self.kind == "new":
            return self.letter  # type: ignore[return-value]
        if self.kind == "old":
            return self.letter.lower()  # type: ignore[union-attr]
        if self.kind == "joker":
            return "*" + self.letter  # type: ignore[operator]
        return "/"


@dataclass(frozen=True, slots=True)
class Move:
    """A Rondo move as written: ``field`` of the first token (1-9) or None when the
    player left it to alignment, the ``tokens``, and the ``claimed`` points or None."""

    tokens: tuple[Token, ...]
    field: int | None = None
    claimed: int | None = None

    @property
    def cards(self) -> str:
        return "".join(t.text() for t in self.tokens)


_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})
_UMLAUT = re.compile("[ÄÖÜäöüßẞ]")
# "Feld 2 ST*And/" (colon forgotten) means "Feld 2: ST*And/"; but in "FELD 5 Punkte"
# the word FELD scores 5 points, so no colon is added when only a points word follows.
_FELD_NO_COLON = re.compile(r"^((?:feld|veld)\s*[0-9]+)\s+(?!(?:punkte|punkt|punten|pkt|pnt|pt|p)\.?\s*$)(?=[^\s:])", re.I)


class _ToMove(Transformer):
    """Builds the :class:`Move` while the LALR parser reads the line (no parse tree)."""

    def start(self, items):
        field = claimed = None
        tokens: tuple[Token, ...] = ()
        for it in items:
            if isinstance(it, LarkToken):  # FELD, "Feld 2:"
                field = int(_DIGITS.search(it).group(0))  # type: ignore[union-attr]
            elif isinstance(it, int):
                claimed = it
            else:
                tokens = it
        return Move(tokens=tokens, field=field, claimed=claimed)

    def points(self, items):
        return int(_DIGITS.search(items[0]).group(0))  # type: ignore[union-attr]

    def cards(self, items):
        return tuple(items)

    def value(self, items):
        return int(items[0])

    def letter_card(self, items):
        ch = str(items[0])
        value = items[1] if len(items) > 1 else None
        return Token("new" if ch.isupper() else "old", ch.upper(), value)

    def joker_card(self, items):
        value = items[2] if len(items) > 2 else None
        return Token("joker", str(items[1]).upper(), value)

    def loescher(self, items):
        return Token("loescher", None, items[0] if items else None)


_DIGITS = re.compile("[0-9]+")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR(1) parser of ``grammar/rondo_move.lark`` (contextual lexer, linear time),
    building the :class:`Move` as it parses."""
    return lalr_parser("rondo_move.lark", _ToMove())


def parse_move(text: str) -> Move:
    """Read one Rondo move line.

    Accepts ``[Feld N:] CARDS [POINTS]`` as in shared/NOTATION.md; en dashes and the
    minus sign count as ``-``. Raises :class:`NotationError` (its verdict, code
    ``syntax``, public: it says only what the line itself shows) when the line is not a move, e.g. for umlauts (seed 000 II.1 a: "Umlaute sind durch AE usw.
    zu bilden").

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
    src = text.translate(_DASHES).strip()
    if not src:
        raise NotationError(_syntax(N_("Leere Zeile: kein Zug.")), text)
    if _UMLAUT.search(src):
        raise NotationError(_syntax(N_("Umlaute und ß bitte als AE, OE, UE und SS schreiben (ein Feld je "
                                       "Buchstabe).")), text)
    src = _FELD_NO_COLON.sub(r"\1: ", src)
    try:
        move = _parser().parse(src)
    except UnexpectedInput as exc:
        col = error_column(exc, src)
        if col:
            v = _syntax(N_("Zug nicht lesbar (bei Zeichen {col}): erwartet wird [Feld N:] KARTEN [PUNKTE], z. B. "
                           "'mo*NDES 24 Punkte'."), col=col)
        else:
            v = _syntax(N_("Zug nicht lesbar: erwartet wird [Feld N:] KARTEN [PUNKTE], z. B. 'mo*NDES 24 Punkte'."))
        raise NotationError(v, text) from None
    if move.field is not None and not 1 <= move.field <= 9:
        raise NotationError(_syntax(N_("Feld {field} gibt es nicht: die Auslage hat die Felder 1 bis 9."),
                                    field=move.field), text)
    return move


def _syntax(msgid: str, **params: object):
    """A ``syntax`` verdict: public, it names only what the line shows."""
    return verdict("syntax", msgid, seen=Visibility.PUBLIC, **params)


def format_move(move: Move, *, with_field: bool | None = None, points: bool = False) -> str:
    """Write ``move`` in the player notation; inverse of :func:`parse_move`.

    ``with_field`` forces (True) or suppresses (False) the ``Feld N:`` prefix; by
    default it is written when ``move.field`` is set. ``points`` appends the claimed points.
    """
    show_field = move.field is not None if with_field is None else with_field
    out = move.cards
    if show_field and move.field is not None:
        out = f"Feld {move.field}: {out}"
    if points and move.claimed is not None:
        out = f"{out} {move.claimed} Punkte"
    return out

"""Crossword move notation: parse and format (shared/NOTATION.md, "Crossword"; seed 003).

A Crossword move is a whole Partie section (the game is ``multiline``): the placement
of the round's letters, the wish for the next round and, with the last placement, the
word list. :func:`parse_move` reads such a section into a :class:`Move`;
:func:`format_move` writes it back in the canonical form, and
``parse_move(format_move(m)) == m``. :func:`parse_line` reads one line (the lark
grammar ``grammar/crossword_move.lark``); :func:`parse_claim` one word-list line.

Forms (NOTATION.md):

- wish: ``Wunsch: Q`` (also ``Wunsch Q``, ``Wunsch=Q``, ``Wunschbuchstabe: Q``,
  ``Wish: Q``); canonical ``Wunsch: Q``;
- placement by pairs: ``B3 E, C4 R, A1 X`` over one or several lines, separated by
  commas, semicolons or spaces; ``a1 x``, ``A1=X``, ``A1: X`` and ``A1X`` read the same;
  canonical ``B3 E, C4 R, A1 X`` in the order written;
- placement as the whole grid: 6 consecutive lines of 6 fields, ``.``, ``-``, ``_`` or
  ``·`` for an empty field, optionally a space between the fields; canonical 6 lines
  with ``.``;
- word list: one ``WORD FROM-TO`` per line (``HAUS A1-A4``; ``HAUS: A1-A4``,
  ``HAUS A1 - A4``, ``HAUS (A1-A4)``, ``A1-A4 HAUS`` and an en dash read the same;
  claimed points after the range are kept and compared by the engine).

Labels on a line of their own (``Wörter:``, ``Wortliste:``, ``Gitter:``, ``Legen:``)
are skipped. A letter is one of A-Z: ``Ä`` ``Ö`` ``Ü`` ``ß`` cannot stand on one field
(the crossword alphabet spells them AE OE UE SS) and get a precise German error; in a
word-list word they are spelled that way (``BÄR`` = ``BAER``).

Errors raise :class:`bot.games.base.NotationError` carrying a verdict (code ``syntax``,
the mover's: it quotes the line; :mod:`bot.games.verdict`); the engine maps them to the
reason code ``syntax``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Union

from lark import Lark, Transformer, UnexpectedInput, Token as LarkToken
from lark.exceptions import VisitError

from bot import GRAMMAR_DIR
from bot.games.base import NotationError
from bot.games.verdict import N_, Verdict, verdict
from bot.games.crossword.grid import EMPTY, LETTERS, SIZE, Field

_SPACES = str.maketrans({"\u00a0": " ", "\u2009": " ", "\u202f": " ", "\t": " "})
_EMPTY_CELLS = ".-_·"
_UMLAUT = {"Ä": "AE", "Ö": "OE", "Ü": "UE", "ß": "SS", "ẞ": "SS"}
_LABEL = re.compile(r"^(w[öo]e?rter|wortliste|worte|liste|gitter|feld|spielfeld|legen|platzierung|"
                    r"placement|words|grid|setzen|buchstaben)\s*:?\s*$", re.IGNORECASE)


# -- value types ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Wish:
    """The wish for the next round: one ``letter`` A-Z."""

    letter: str


@dataclass(frozen=True, slots=True)
class Pairs:
    """A placement as ``FIELD LETTER`` pairs, in the order written; a field may lie off
    the grid or be named twice (the engine judges that)."""

    pairs: tuple[tuple[Field, str], ...]


@dataclass(frozen=True, slots=True)
class GridForm:
    """A placement as the whole grid: 6 row codes (``.`` empty, ``A``-``Z``)."""

    rows: tuple[str, ...]


Placement = Union[Pairs, GridForm]


@dataclass(frozen=True, slots=True)
class Claim:
    """One word-list line: the ``word`` as written (upper case, Ä Ö Ü ß kept), its
    ``start`` and ``end`` fields, and ``claimed`` points if given."""

    word: str
    start: Field
    end: Field
    claimed: int | None = None

    @property
    def text(self) -> str:
        return format_claim(self)


@dataclass(frozen=True, slots=True)
class BadClaim:
    """A word-list line that cannot be read: the ``text`` as written and why, a
    :class:`~bot.games.verdict.Verdict` (the mover's: it quotes the line); it stays in
    the list (reason ``syntax``)."""

    text: str
    verdict: Verdict

    @property
    def message(self) -> str:
        """The reason in German (tests, logs)."""
        return self.verdict.text("de")


@dataclass(frozen=True, slots=True)
class Move:
    """One Crossword move (a Partie section): ``placement`` (None: nothing placed),
    ``wish`` (None: no wish) and ``claims`` (the word list, :class:`Claim` or
    :class:`BadClaim` in the order written)."""

    placement: Placement | None = None
    wish: Wish | None = None
    claims: tuple[Claim | BadClaim, ...] = ()


# -- one line ----------------------------------------------------------------------------

class _ToLine(Transformer):
    def start(self, items):
        return items[0]

    def wish(self, items):
        return Wish(_letter(str(items[-1])))

    def pairs(self, items):
        return Pairs(tuple(items))

    def pair(self, items):
        f = Field.parse(str(items[0]))
        return (f, _letter(str(items[-1]), f.name))

    def claim(self, items):
        word = next(str(t) for t in items if isinstance(t, LarkToken) and t.type == "WORD")
        rng = next(t for t in items if isinstance(t, tuple) and t[0] == "range")
        pts = next((t[1] for t in items if isinstance(t, tuple) and t[0] == "points"), None)
        return Claim(_word(word), rng[1], rng[2], pts)

    def range(self, items):
        fields = [Field.parse(str(t)) for t in items if isinstance(t, LarkToken) and t.type == "FIELD"]
        return ("range", fields[0], fields[1])

    def points(self, items):
        return ("points", int(next(str(t) for t in items if t.type == "INT")))

    def gridrow(self, items):
        return _GridRow("".join(_cell(str(t)) for t in items))


@dataclass(frozen=True, slots=True)
class _GridRow:
    code: str


def _letter(ch: str, where: str = "") -> str:
    up = ch.upper()
    if up in LETTERS and len(up) == 1:
        return up
    spelled = _UMLAUT.get(up, _UMLAUT.get(ch, ""))
    if spelled and where:
        raise NotationError(verdict("syntax", N_("'{ch}' auf {field} geht nicht: ein Feld hält genau einen "
                                                 "Buchstaben A-Z, {ch} wird als {spelled} geschrieben (zwei Felder)."),
                                    ch=ch, field=where, spelled=spelled))
    if spelled:
        raise NotationError(verdict("syntax", N_("'{ch}' geht nicht: ein Feld hält genau einen Buchstaben A-Z, "
                                                 "{ch} wird als {spelled} geschrieben (zwei Felder)."),
                                    ch=ch, spelled=spelled))
    if where:
        raise NotationError(verdict("syntax", N_("'{ch}' auf {field} ist kein Buchstabe A-Z."), ch=ch, field=where))
    raise NotationError(verdict("syntax", N_("'{ch}' ist kein Buchstabe A-Z."), ch=ch))


def _cell(ch: str) -> str:
    if ch in _EMPTY_CELLS:
        return EMPTY
    return _letter(ch)


def _word(word: str) -> str:
    return word.upper().replace("ß", "SS") if "ß" in word else word.upper()


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark((GRAMMAR_DIR / "crossword_move.lark").read_text(encoding="utf-8"), parser="earley",
                lexer="dynamic", ambiguity="resolve")


_FIELD_RE = re.compile(r"[A-Za-z][0-9]{1,2}(?![0-9])")


def _clean(text: str) -> str:
    return unicodedata.normalize("NFC", text).translate(_SPACES).strip()


def _no_fields(line: str) -> Verdict:
    return verdict("syntax", N_("Zu '{line}' fehlen die Felder: eine Wortzeile ist WORT VON-BIS, z. B. 'HAUS A1-A4'."),
                   line=line)


def _diagnose(src: str) -> tuple[Verdict, bool]:
    """Why the grammar does not read a line (a precise verdict, code ``syntax``, the
    mover's: it quotes the line), and whether the line is clearly meant as a Crossword
    line (:attr:`NotationError.meant`)."""
    if re.match(r"^(wunsch|wish)", src, re.IGNORECASE):
        rest = re.sub(r"^(wunsch(buchstabe)?|wish)\s*[:=]?\s*", "", src, flags=re.IGNORECASE)
        if not rest:
            return verdict("syntax", N_("Beim Wunsch fehlt der Buchstabe: 'Wunsch: Q'.")), True
        return verdict("syntax", N_("Wunsch '{wish}' nicht lesbar: gewünscht wird genau ein Buchstabe A-Z, "
                                    "z. B. 'Wunsch: Q'."), wish=rest), True
    if _FIELD_RE.match(src) and not re.search(r"[-–—]", src):
        parts = [p for p in re.split(r"\s*[,;]\s*", src) if p]
        for p in parts:
            m = re.fullmatch(r"([A-Za-z][0-9]{1,2})\s*[:=]?\s*(\S*)", p)
            if m is None:
                return verdict("syntax", N_("'{pair}' ist kein Paar FELD BUCHSTABE: erwartet wird z. B. 'B3 E, C4 R' "
                                            "(Zeile A-F, Spalte 1-6, dann der Buchstabe)."), pair=p), True
            if not m.group(2):
                return verdict("syntax", N_("Nach dem Feld {field} fehlt der Buchstabe (z. B. '{field} E')."),
                               field=m.group(1).upper()), True
            if len(m.group(2)) > 1:
                return verdict("syntax", N_("Auf {field} steht '{what}': ein Feld hält genau einen Buchstaben; "
                                            "mehrere Buchstaben brauchen mehrere Paare, z. B. 'B3 E, B4 R'."),
                               field=m.group(1).upper(), what=m.group(2)), True
        return verdict("syntax", N_("Paare nicht lesbar: erwartet wird z. B. 'B3 E, C4 R, A1 X'.")), True
    if re.search(r"[A-Za-z][0-9]{1,2}\s*[-–—]", src):
        return verdict("syntax", N_("Wortzeile nicht lesbar: erwartet wird WORT VON-BIS, z. B. 'HAUS A1-A4'.")), True
    compact = src.replace(" ", "")
    if compact and all(c.isalpha() or c in _EMPTY_CELLS for c in compact):
        if any(c in _EMPTY_CELLS for c in compact):
            return verdict("syntax", N_("Gitterzeile '{row}' hat {n} Felder: jede Zeile des Gitters hat genau "
                                        "{size} Felder ('.' oder '-' für leer)."),
                           row=src, n=len(compact), size=SIZE), True
        return _no_fields(src), len(compact) >= 2 and compact.isupper() and " " not in src
    return verdict("syntax", N_("Zeile nicht lesbar: erwartet wird 'Wunsch: Q', Paare 'B3 E, C4 R', eine "
                                "Gitterzeile wie 'HAUS..' oder eine Wortzeile 'HAUS A1-A4'.")), False


def parse_line(text: str) -> Wish | Pairs | Claim | _GridRow:
    """Read one line (the grammar ``grammar/crossword_move.lark``): a :class:`Wish`,
    :class:`Pairs`, a :class:`Claim` or one grid row. Raises :class:`NotationError`
    with a verdict (code ``syntax``) when the line is none of these."""
    src = _clean(text)
    if not src:
        raise NotationError(verdict("syntax", N_("Leere Zeile: kein Zug.")), text)
    try:
        tree = _parser().parse(src)
    except UnexpectedInput:
        message, meant = _diagnose(src)
        raise NotationError(message, text, meant=meant) from None
    try:
        return _ToLine().transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, NotationError):
            raise NotationError(exc.orig_exc.verdict, text, meant=True) from None
        raise


def parse_claim(text: str) -> Claim:
    """Read one word-list line ``WORD FROM-TO`` (NOTATION.md "Crossword"). Raises
    :class:`NotationError` for anything else."""
    got = parse_line(text)
    if isinstance(got, Claim):
        return got
    if isinstance(got, _GridRow) and EMPTY not in got.code:
        raise NotationError(_no_fields(_clean(text)), text)
    raise NotationError(verdict("syntax", N_("'{line}' ist keine Wortzeile: erwartet wird WORT VON-BIS, "
                                             "z. B. 'HAUS A1-A4'."), line=_clean(text)), text)


def is_label(text: str) -> bool:
    """True for a label line such as ``Wörter:`` or ``Gitter:`` (skipped)."""
    return bool(_LABEL.match(_clean(text)))


# -- a whole section ---------------------------------------------------------------------

def parse_move(text: str) -> Move:
    """Read a whole Crossword move (the section's lines joined by ``\\n``).

    Raises :class:`NotationError` with a verdict naming the line for: a line
    that is neither wish, pair, grid row nor word-list line; a grid of other than 6
    rows; both pairs and a grid; two different wishes. A word-list line that cannot be
    read (``HAUS`` without a range, a lone word) does not stop the move: it stays in
    :attr:`Move.claims` as a :class:`BadClaim` (reason ``syntax`` at the scoring).
    """
    lines = [ln for ln in (_clean(x) for x in text.splitlines()) if ln and not is_label(ln)]
    if not lines:
        raise NotationError(verdict("syntax", N_("Leerer Zug: weder Wunsch noch Buchstaben noch Wörter.")), text)
    parsed: list[object] = []
    for ln in lines:
        try:
            parsed.append(parse_line(ln))
        except NotationError as exc:
            if _looks_like_claim(ln):
                parsed.append(BadClaim(ln, exc.verdict))
            else:
                raise NotationError(verdict("syntax", N_("Zeile '{line}': {reason}"), line=ln, reason=exc.verdict),
                                    text) from None
    pairs: list[tuple[Field, str]] = []
    grid_rows: list[str] | None = None
    wish: Wish | None = None
    claims: list[Claim | BadClaim] = []
    i = 0
    while i < len(parsed):
        item = parsed[i]
        if isinstance(item, _GridRow):
            j = i
            while j < len(parsed) and isinstance(parsed[j], _GridRow):
                j += 1
            run = [p.code for p in parsed[i:j]]  # type: ignore[attr-defined]
            if len(run) == SIZE and grid_rows is None:
                grid_rows = run
            elif all(EMPTY not in r for r in run) and len(run) < SIZE:
                # lone words: a word list line without its fields
                claims.extend(BadClaim(lines[k], _no_fields(lines[k])) for k in range(i, j))
            else:
                raise NotationError(verdict("syntax", N_("Das Gitter hat {n} Zeilen: es braucht genau {size} Zeilen "
                                                         "zu je {size} Feldern ('.' oder '-' für leer), ohne "
                                                         "Leerzeile dazwischen."), n=len(run), size=SIZE), text)
            i = j
            continue
        if isinstance(item, Wish):
            if wish is not None and wish != item:
                raise NotationError(verdict("syntax", N_("Zwei Wünsche ({first} und {second}): gewünscht wird "
                                                         "genau ein Buchstabe."),
                                            first=wish.letter, second=item.letter), text)
            wish = item
        elif isinstance(item, Pairs):
            pairs.extend(item.pairs)
        else:
            claims.append(item)  # type: ignore[arg-type]
        i += 1
    if pairs and grid_rows is not None:
        raise NotationError(verdict("syntax", N_("Paare und ganzes Gitter zugleich: bitte nur eine Form der "
                                                 "Legung (entweder 'B3 E, C4 R' oder die 6 Gitterzeilen).")), text)
    placement: Placement | None = None
    if grid_rows is not None:
        placement = GridForm(tuple(grid_rows))
    elif pairs:
        placement = Pairs(tuple(pairs))
    return Move(placement, wish, tuple(claims))


def _looks_like_claim(line: str) -> bool:
    """A line meant as a word-list entry (a word and something field-like), kept as a
    :class:`BadClaim` rather than failing the whole move."""
    if re.fullmatch(r"[A-Za-zÄÖÜäöüß]{2,}", line):
        return True  # a lone word: its fields are missing
    return bool(re.search(r"[A-Za-zÄÖÜäöüß]{2,}", line)) and bool(
        re.search(r"[A-Za-z][0-9]{1,2}\s*[-–—]|[-–—]\s*[A-Za-z][0-9]{1,2}", line))


def parse_placement(text: str) -> Placement:
    """Read a placement alone (pairs or the 6-line grid), as in a conformance case
    ``move``. Raises :class:`NotationError` when the text is not exactly a placement."""
    move = parse_move(text)
    if move.placement is None or move.wish is not None or move.claims:
        raise NotationError(verdict("syntax", N_("Erwartet wird eine Legung: Paare 'B3 E, C4 R' oder "
                                                 "6 Gitterzeilen.")), text)
    return move.placement


# -- formatting ------------------------------------------------------------------------

def format_claim(claim: Claim) -> str:
    """``HAUS A1-A4`` (claimed points as `` 5 Punkte``)."""
    out = f"{claim.word} {claim.start.name}-{claim.end.name}"
    if claim.claimed is not None:
        out += f" {claim.claimed} Punkte"
    return out


def format_placement(placement: Placement) -> str:
    """Pairs as ``B3 E, C4 R``; a grid as 6 lines with ``.`` for empty."""
    if isinstance(placement, GridForm):
        return "\n".join(placement.rows)
    return ", ".join(f"{f.name} {ch}" for f, ch in placement.pairs)


def format_move(move: Move) -> str:
    """The canonical notation of ``move``: placement, then ``Wunsch: Q``, then one line
    per claim; inverse of :func:`parse_move` (a :class:`BadClaim` is written as given)."""
    out: list[str] = []
    if move.placement is not None:
        out.append(format_placement(move.placement))
    if move.wish is not None:
        out.append(f"Wunsch: {move.wish.letter}")
    for c in move.claims:
        out.append(c.text if isinstance(c, BadClaim) else format_claim(c))
    return "\n".join(out)


#: What :meth:`CrosswordRules.read_move <bot.games.crossword.game.CrosswordRules.read_move>`
#: returns: a whole move (a section) or one of its lines.
Reading = Move | Wish | Pairs | Claim | _GridRow

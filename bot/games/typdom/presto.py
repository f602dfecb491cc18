"""Typ-Dom Presto: the finished crossword of a player, read and judged (pure).

Rule sources: seed 002, "2. Presto" ("jeder für sich ein Spiel zusammenzusetzen, das in
der gleichen Weise fehlerfrei und sinnvoll aufgebaut wird, wie dies vom Kreuzwort-Spiel
bekannt ist ... wer zuerst ein Spiel unter Verwendung aller seiner Steine fertig hat";
the option "wenn er nur mehr einen Buchstaben Rest hat"), shared/RULES.md "Typ-Dom"
(Presto by mail) and shared/NOTATION.md "Typ-Dom" ("Presto: the whole finished crossword
as lines of letters (`.` empty)"); the word rules are the Kreuzwort-Spiel's (the
``typdom`` lexicon: verbs only in the infinitive, no family, company or brand names).

Notation (``grammar/typdom_presto.lark``): one line per row of the crossword, top to
bottom; a letter is a tile, ``.`` (or ``-``, ``_``, ``·``) an empty square, ``*X`` or
``?X`` a Jolly laid as X; either no spaces in a line or every square separated by one
space (``H A U S``). Leading empty squares must be written (a mail line's leading
spaces are lost), trailing ones may be left out. The first square of the first line is
A1 (columns A-Y, rows 1-25: a crossword fits the 25 x 25 Typ-Dom table). Ä Ö Ü are
spelled AE OE UE and ß SS (two squares), as on the tiles.

A crossword is checked in this order, and every problem found is named (the first is
the reason code), so the immediate answer says exactly what is wrong:

``syntax`` -> ``foreign`` -> ``jolly`` -> ``unused`` -> ``disconnected`` -> ``word``.

- ``syntax``: a line that is no crossword line; more than 25 rows or columns; no tile.
- ``foreign``: tiles the set does not hold (a letter not in it, or more often than
  held, or more Jollys than the set has; a Jolly of either colour counts here).
- ``jolly``: a Jolly for the wrong kind of letter (seed: the red one only for a vowel
  A E I O U Y, the black one only for a consonant).
- ``unused``: tiles of the set left out (with the league option ``one_left``: more than
  one; exactly one left is a finish "mit einem Stein Rest").
- ``disconnected``: the tiles form more than one part (squares joined side by side;
  touching corners do not join).
- ``word``: a row or column run of two or more tiles that is not a valid word (seed:
  "überall, wo die Steine einander berühren, ein sinnvoller Begriff"). Every run counts,
  so two tiles side by side must read as a word both ways they touch.

Every problem is a verdict for the mover (:class:`Problem`, :mod:`bot.games.verdict`): it
names their set and the tiles they wrote, so no other player ever sees it (issue 31).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field as dc_field
from functools import lru_cache
from typing import Iterable, Protocol

from lark import Lark, Transformer, UnexpectedInput

from bot import GRAMMAR_DIR
from bot.games.base import NotationError
from bot.games.verdict import N_, Verdict as Said, about_mover, verdict
from bot.games.grid import Placement as Tiled
from bot.games.typdom.table import SIZE, Table, coord_name
from bot.games.typdom.tiles import BLACK_JOLLY, JOLLYS, RED_JOLLY, VOWELS, jolly_for, sort_rack

__all__ = ["REASONS", "Crossword", "Problem", "Judgement", "Verdict", "parse_line", "parse_crossword",
           "format_crossword", "judge", "runs"]

# What the game master's copy reads instead of the sentences written to the mover
# (bot.games.verdict.about_mover).
FOREIGN_JOLLY = about_mover(
    N_("Steine, die nicht in deinem Satz ({rack}) sind: {tiles}. Ein Jolly wird mit Stern geschrieben, z. B. *E."),
    N_("Steine, die nicht im Satz ({rack}) sind: {tiles}. Ein Jolly wird mit Stern geschrieben, z. B. *E."))
FOREIGN = about_mover(
    N_("Steine, die nicht in deinem Satz ({rack}) sind: {tiles}."),
    N_("Steine, die nicht im Satz ({rack}) sind: {tiles}."))
JOLLY_KIND = about_mover(
    N_("Der rote Jolly steht nur für einen Selbstlaut (A E I O U Y), der schwarze nur für einen Mitlaut: {tiles} "
       "geht mit deinem Satz nicht."),
    N_("Der rote Jolly steht nur für einen Selbstlaut (A E I O U Y), der schwarze nur für einen Mitlaut: {tiles} "
       "geht mit dem Satz nicht."))

#: Reason codes in checking order, with their public gloss (a German msgid, :func:`N_`).
REASONS: dict[str, str] = {
    "syntax": N_("nicht lesbar"),
    "foreign": N_("fremde Steine"),
    "jolly": N_("Jolly nicht erlaubt"),
    "unused": N_("Steine nicht verbaut"),
    "disconnected": N_("nicht zusammenhängend"),
    "word": N_("kein gültiges Wort"),
}
#: The words of the verdicts below that stand in for a tile or a set.
_EMPTY_SET = verdict("empty", N_("leer"))
_TILE_NAMES = {"?": verdict("tile", N_("roter Jolly")), "#": verdict("tile", N_("schwarzer Jolly"))}
_JOLLY = verdict("tile", N_("Jolly"))
EMPTY = "."
_UMLAUT = {"Ä": "AE", "Ö": "OE", "Ü": "UE", "ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "ẞ": "SS"}
_SPACES = str.maketrans({"\u00a0": " ", "\u2009": " ", "\u202f": " ", "\t": " "})


class WordList(Protocol):
    def __contains__(self, word: object) -> bool: ...


@dataclass(frozen=True, slots=True)
class Crossword:
    """A crossword as written: ``rows`` in the board code (row 1 first; ``.`` empty,
    upper case a tile, lower case a Jolly standing for that letter), each row as long as
    the widest. Coordinates: row 1.., column A.. from the top left of what was written."""

    rows: tuple[str, ...]

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)

    def tiles(self) -> list[tuple[int, int, str, bool]]:
        """Every tile: (row, col, letter, is a Jolly), 1-based, row by row."""
        return [(r, c, ch.upper(), ch.islower()) for r, row in enumerate(self.rows, 1)
                for c, ch in enumerate(row, 1) if ch != EMPTY]

    def used(self) -> Counter:
        """The tiles the crossword needs, as rack codes (a Jolly as ``?`` or ``#`` by the
        kind of letter it stands for)."""
        return Counter(jolly_for(letter) if j else letter for _, _, letter, j in self.tiles())

    def table(self) -> Table:
        """The crossword on the 25 x 25 table, its first square on A1."""
        return Table.empty().place(Tiled(r, c, letter, j) for r, c, letter, j in self.tiles())

    def picture(self) -> list[str]:
        """The crossword with coordinates (text lines, a Jolly in lower case)."""
        return self.table().grid_text((1, self.height, 1, self.width)).splitlines()


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a crossword: ``code`` (a key of :data:`REASONS`) and
    ``verdict``, what the player is told (:class:`bot.games.verdict.Verdict`, seen by
    the mover: it names their set or the lines they wrote; others learn only that the
    crossword was invalid, docs/development/privacy.md)."""

    code: str
    verdict: Said

    @property
    def message(self) -> str:
        """The German text of :attr:`verdict`."""
        return self.verdict.text("de")


def joined(verdicts: list[Said]) -> Said | None:
    """Several verdicts as one, each sentence after the other (the first one's code);
    None for none."""
    if not verdicts:
        return None
    out = verdicts[-1]
    for v in reversed(verdicts[:-1]):
        out = verdict(v.code, N_("{first} {rest}"), first=v, rest=out)
    return out


@dataclass
class Judgement:
    """The judgement of a crossword against a player's set.

    ``valid``; ``reason`` (the first problem's code, None when valid); ``problems`` (all
    of them, in checking order); ``crossword`` (None when unreadable); ``words``
    (``(word, "A1-D1")`` of every run of two or more tiles, row runs first); ``left``
    (rack code of the set's tiles not used); ``finish`` (``"alle"``: every tile used,
    ``"einer"``: one left, allowed by the league option; None when invalid); ``tiles``
    (tiles laid)."""

    valid: bool
    reason: str | None = None
    problems: list[Problem] = dc_field(default_factory=list)
    crossword: Crossword | None = None
    words: list[tuple[str, str]] = dc_field(default_factory=list)
    left: str = ""
    finish: str | None = None
    tiles: int = 0

    @property
    def verdict(self) -> Said | None:
        """Every problem as one verdict, for the mover (None when valid)."""
        return joined([p.verdict for p in self.problems])

    @property
    def message(self) -> str:
        """Every problem in one German text (empty when valid)."""
        v = self.verdict
        return v.text("de") if v is not None else ""


#: The name this class had before verdicts were data (issue 31).
Verdict = Judgement


class _Cells(Transformer):
    def start(self, items):
        return items[0]

    def tight(self, items):
        return "".join(items)

    spaced = tight

    def letter(self, items):
        return str(items[0]).upper()

    def jolly(self, items):
        return str(items[1]).lower()

    def empty(self, _items):
        return EMPTY


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark((GRAMMAR_DIR / "typdom_presto.lark").read_text(encoding="utf-8"), parser="lalr")


def _spell(line: str) -> str:
    src = unicodedata.normalize("NFC", line).translate(_SPACES).strip()
    return "".join(_UMLAUT.get(ch, ch) for ch in src)


def parse_line(line: str) -> str:
    """One crossword line as board codes (``"HAUS..t"``: ``t`` a Jolly as T).
    Raises :class:`NotationError` when the line is no crossword line."""
    src = _spell(line)
    if not src:
        raise NotationError(verdict("syntax", N_("Leere Zeile: keine Kreuzwortzeile.")), line)
    try:
        return _Cells().transform(_parser().parse(src))
    except UnexpectedInput as exc:
        col = getattr(exc, "column", None)
        if isinstance(col, int) and col > 0:
            said = verdict("syntax", N_("Keine Kreuzwortzeile (bei Zeichen {col}): erwartet werden Buchstaben, '.' "
                                        "für leere Felder und '*E' für einen Jolly als E, ohne Leerzeichen (oder "
                                        "jedes Feld durch ein Leerzeichen getrennt)."), col=col)
        else:
            said = verdict("syntax", N_("Keine Kreuzwortzeile: erwartet werden Buchstaben, '.' für leere Felder und "
                                        "'*E' für einen Jolly als E, ohne Leerzeichen (oder jedes Feld durch ein "
                                        "Leerzeichen getrennt)."))
        raise NotationError(said, line) from None


def parse_crossword(text: str) -> Crossword:
    """The crossword of a whole Partie section (its lines, top to bottom; empty lines
    are skipped). Raises :class:`NotationError` for an unreadable line (naming it), more
    than 25 rows or columns, or no tile at all."""
    rows = []
    for n, line in enumerate((ln for ln in text.splitlines() if ln.strip()), 1):
        try:
            rows.append(parse_line(line))
        except NotationError as exc:
            raise NotationError(verdict("syntax", N_("Zeile {n} ({line}): {why}"), n=n, line=line.strip(),
                                        why=exc.verdict), text) from None
    if not any(ch != EMPTY for r in rows for ch in r):
        raise NotationError(verdict("syntax", N_("Kein Stein im Kreuzwort: schreib es Zeile für Zeile, '.' für "
                                                 "leere Felder.")), text)
    width = max(len(r) for r in rows)
    if len(rows) > SIZE or width > SIZE:
        raise NotationError(verdict("syntax", N_("Das Kreuzwort ist {width} Spalten breit und {height} Zeilen hoch; "
                                                 "auf den Typ-Dom-Tisch passen höchstens {size} x {size}."),
                                    width=width, height=len(rows), size=SIZE), text)
    return Crossword(tuple(r.ljust(width, EMPTY) for r in rows))


def format_crossword(cw: Crossword) -> list[str]:
    """The crossword as a player writes it: one line per row, ``.`` empty, a Jolly as
    ``*X``, trailing empty squares left out; inverse of :func:`parse_crossword`."""
    return ["".join("*" + ch.upper() if ch.islower() else ch for ch in r.rstrip(EMPTY)) for r in cw.rows]


def runs(rows: Iterable[str]) -> list[tuple[str, str]]:
    """Every run of two or more tiles in board-code ``rows``: ``(WORD, "A1-D1")``, the
    rows' runs top to bottom, then the columns' left to right."""
    grid = [r for r in rows]
    out: list[tuple[str, str]] = []
    height = len(grid)
    width = max((len(r) for r in grid), default=0)
    grid = [r.ljust(width, EMPTY) for r in grid]
    for transposed in (False, True):
        lines = grid if not transposed else ["".join(grid[r][c] for r in range(height)) for c in range(width)]
        for i, line in enumerate(lines, 1):
            j = 0
            while j < len(line):
                if line[j] == EMPTY:
                    j += 1
                    continue
                k = j
                while k < len(line) and line[k] != EMPTY:
                    k += 1
                if k - j >= 2:
                    a, b = ((i, j + 1), (i, k)) if not transposed else ((j + 1, i), (k, i))
                    out.append((line[j:k].upper(), f"{coord_name(*a)}-{coord_name(*b)}"))
                j = k
    return out


def _parts(cw: Crossword) -> list[list[tuple[int, int]]]:
    """The connected parts of the crossword (squares joined side by side), largest first."""
    todo = {(r, c) for r, c, _, _ in cw.tiles()}
    parts = []
    while todo:
        start = min(todo)
        stack, part = [start], []
        todo.discard(start)
        while stack:
            r, c = stack.pop()
            part.append((r, c))
            for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if q in todo:
                    todo.discard(q)
                    stack.append(q)
        parts.append(sorted(part))
    parts.sort(key=lambda p: (-len(p), p[0]))
    return parts


def _tiles(counter: Counter) -> list[str | Said]:
    """The tiles of ``counter`` for a verdict's parameter (letters, then the Jollys by
    colour; joined by ", " when rendered)."""
    shown: list[str | Said] = []
    for ch in sorted(counter, key=lambda t: (t in JOLLYS, t)):
        shown += [_TILE_NAMES.get(ch, ch)] * counter[ch]
    return shown


def _count(n: int) -> Said:
    """``n`` tiles, singular or plural (two msgids: German and Dutch tell one from many)."""
    return verdict("count", N_("{n} Stein") if n == 1 else N_("{n} Steine"), n=n)


def judge(crossword: Crossword | str, rack: str, lexicon: WordList, *, one_left: bool = False) -> Judgement:
    """Judge a crossword (a :class:`Crossword` or the section's text) against the
    player's set ``rack`` (letters, ``?`` red Jolly, ``#`` black Jolly).

    ``one_left``: the league option of seed 002 ("Schluß machen ..., wenn er nur mehr
    einen Buchstaben Rest hat"): exactly one tile left is a valid finish. Returns a
    :class:`Judgement` with every problem in the order of the module docstring (each a
    verdict for the mover); never raises for a bad crossword."""
    if isinstance(crossword, str):
        try:
            crossword = parse_crossword(crossword)
        except NotationError as exc:
            return Judgement(False, "syntax", [Problem("syntax", exc.verdict)])
    cw = crossword
    problems: list[Problem] = []
    have = Counter(rack)
    used = cw.used()
    letters_used = Counter({ch: n for ch, n in used.items() if ch not in JOLLYS})
    foreign = letters_used - have
    jollys_needed = used[RED_JOLLY] + used[BLACK_JOLLY]
    jollys_have = have[RED_JOLLY] + have[BLACK_JOLLY]
    if jollys_needed > jollys_have:
        foreign["*"] = jollys_needed - jollys_have
    if foreign:
        shown = _tiles(Counter({k: v for k, v in foreign.items() if k != "*"})) + [_JOLLY] * foreign["*"]
        own = sort_rack(rack) or _EMPTY_SET
        if jollys_have and not foreign["*"]:
            said = verdict("foreign", FOREIGN_JOLLY, rack=own, tiles=shown)
        else:
            said = verdict("foreign", FOREIGN,
                           rack=own, tiles=shown)
        problems.append(Problem("foreign", said))
    elif used[RED_JOLLY] > have[RED_JOLLY] or used[BLACK_JOLLY] > have[BLACK_JOLLY]:
        bad = [f"*{letter}" for _, _, letter, j in cw.tiles() if j
               and ((letter in VOWELS and used[RED_JOLLY] > have[RED_JOLLY])
                    or (letter not in VOWELS and used[BLACK_JOLLY] > have[BLACK_JOLLY]))]
        problems.append(Problem("jolly", verdict("jolly", JOLLY_KIND, tiles=bad)))
    # what is left: the set less the tiles used; a Jolly used for the wrong kind of
    # letter is taken from the other colour, so it is not reported twice
    left = Counter(have)
    for ch, n in letters_used.items():
        left[ch] -= min(n, have[ch])
    need = {RED_JOLLY: used[RED_JOLLY], BLACK_JOLLY: used[BLACK_JOLLY]}
    for own, other in ((RED_JOLLY, RED_JOLLY), (BLACK_JOLLY, BLACK_JOLLY), (RED_JOLLY, BLACK_JOLLY),
                       (BLACK_JOLLY, RED_JOLLY)):
        k = min(need[own], left[other])
        left[other] -= k
        need[own] -= k
    left = +left
    allowed = 1 if one_left else 0
    if sum(left.values()) > allowed:
        count = _count(sum(left.values()))
        if one_left:
            said = verdict("unused", N_("Nicht verbaut: {tiles} ({count}). Erlaubt ist höchstens ein Stein Rest."),
                           tiles=_tiles(left), count=count)
        else:
            said = verdict("unused", N_("Nicht verbaut: {tiles} ({count}). Alle Steine müssen verbaut sein."),
                           tiles=_tiles(left), count=count)
        problems.append(Problem("unused", said))
    parts = _parts(cw)
    if len(parts) > 1:
        rest = []
        for part in parts[1:]:
            letters = "".join(cw.rows[r - 1][c - 1].upper() for r, c in part)
            rest.append(verdict("part", N_("{letters} ab {coord}"), letters=letters, coord=coord_name(*part[0])))
        problems.append(Problem("disconnected", verdict("disconnected", N_(
            "Das Kreuzwort hängt nicht zusammen: {parts} berührt den Rest nicht (Steine müssen Seite an Seite "
            "liegen)."), parts=rest)))
    words = runs(cw.rows)
    bad: list[str | Said] = [f"{w} ({span})" for w, span in words if w not in lexicon]
    if len(cw.tiles()) == 1:
        bad = [verdict("single", N_("ein einzelner Buchstabe ist kein Wort"))]
    if bad:
        problems.append(Problem("word", verdict("word", N_(
            "Kein gültiges Wort: {words}. Überall, wo sich Steine berühren, muss ein Wort entstehen "
            "(Typ-Dom-Wortregeln: Zeitwörter nur in der Grundform, keine Familien-, Firmen- oder Markennamen)."),
            words=bad)))
    valid = not problems
    n_left = sum(left.values())
    return Judgement(valid, problems[0].code if problems else None, problems, cw, words, sort_rack(left.elements()),
                   ("alle" if n_left == 0 else "einer") if valid else None, len(cw.tiles()))

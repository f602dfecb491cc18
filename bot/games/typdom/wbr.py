"""Typ-Dom "Wer behält recht?": turn notation, validation and the course of a game (pure).

Rule sources: seed 002, "4. Wer behält recht?" (quoted below), with the Kreuzwort-Spiel's
tiles, Jolly rules and word rules ("Für die Verteilung der Spielsteine, die Funktion des
Steines* (Jolly), sowie der Gattung der Wörter ... gelten die Regeln des
Kreuzwort-Spieles") and its end scoring ("Hinsichtlich des Gewinnes und dessen
Errechnung gelten die Spielregeln des Kreuzwort-Spieles"); shared/RULES.md "Typ-Dom"
("one tile per turn in seat order, each turn with its own ZAT") and shared/NOTATION.md
"Typ-Dom" (``COORD LETTER WORD``, ``FERTIG WORD``).

The game, as the bot runs it
----------------------------
One word is built at a time ("Es darf nur an einem Wort gebaut werden, bis dieses
vollendet ist"): its *fragment* is the run of tiles laid so far (with any tiles of
other words it runs through), its *announcement* (Ansage) the word someone named, whose
*author* (Urheber) that player is. A turn is one of:

- ``COORD LETTER [WORD]``: lay one tile at either end of the fragment ("setzt ... einen
  Stein vorne oder rückwärts dazu") and name a word that holds the grown fragment
  unbroken ("welches die wachsende Buchstabenverbindung geschlossen beinhaltet"): a new
  word makes the player its author; the same word (or none written) keeps the
  announcement and its author ("setzt er die Buchstaben in das Wortgebilde seines
  Vorgängers").
- Starting a word: the first tile of the game lies on the centre M13 ("legt einen
  Buchstaben in der Mitte des Tisches sichtbar auf"); a later word starts with a tile
  beside a tile of the word just finished, across it, so that the new word crosses it
  ("so an, daß das neu entstehende Wort das beendete kreuzt").
- ``FERTIG WORD``: the author lays every missing tile of their announcement. This is
  due, and the only turn allowed, when the announcement comes back to its author
  unchanged ("Hat ein genanntes Wort eine Runde unverändert hinter sich ... so muß der
  Urheber dieses Wortes dieses zur Gänze vollenden und ein neues beginnen").
- ``KAUFEN``: buy a tile; the buyer then has a second turn (its own ZAT) to lay a tile
  or pass ("kauft einen Buchstaben und kann, wenn die Möglichkeit gegeben ist,
  ansetzen, andernfalls weitermelden"). ``PASSE`` is that pass (or a turn when the pool
  is empty).
- ``JOLLY COORD; ...``: first take a Jolly not enclosed on three sides by laying the
  letter it shows (Kreuzwort-Spiel rule); the taker may use it in the same turn.

Checks, in this order (the first broken rule is the reason code):
``syntax`` -> ``duty`` -> ``rack`` -> ``off-board`` -> ``position`` -> ``jolly`` ->
``premium`` -> ``fragment`` -> ``room`` -> ``word``.

- ``duty``: not the kind of turn due now (``FERTIG`` due but not sent; ``FERTIG``
  without an own announcement come round; ``KAUFEN`` twice; ``PASSE`` before buying
  while the pool has tiles).
- ``rack``: tiles written as laid are not in the rack (a ``*X`` needs a Jolly of either
  colour here; the colour is ``jolly``); for ``FERTIG`` the missing letters.
- ``off-board``: a square outside A1-Y25.
- ``position``: the tile's square is taken, or not at an end of the fragment, or (a new
  word) not beside a tile of the finished word across it, or (the first tile) not M13;
  ``JOLLY`` where no Jolly lies; ``FERTIG`` at a square where the word does not fit.
- ``jolly``: a Jolly for the wrong kind of letter (red: vowels A E I O U Y, black:
  consonants); a Jolly taken that is enclosed on three sides.
- ``premium``: a second tile without a premium (seed: "Kann ein zum Zug kommender
  Spieler einen Stein so einsetzen, daß ein Quadrat entsteht, so darf er als Prämie
  einen weiteren Stein im Sinne des eigenen oder fremden Wortes einsetzen. Ebenso kann
  ein Spieler dann zwei Steine einsetzen, wenn sein neues Wort die bereits liegenden
  Wörter in einem Selbstlaut (A E I O U Y) kreuzt"), or after the word was finished.
- ``fragment``: no word named where one is needed, or the word does not hold the
  fragment unbroken; ``FERTIG`` with another word than the announcement.
- ``room``: the word does not fit on the table around the fragment ("daß für das Wort
  genügend Platz vorhanden ist und nicht Wortverbindungen entstehen, die keinen Sinn
  ergeben"): off the table, a square holding another letter, a tile right after its
  end, or a square where its letter would form a non-word with the tiles beside it.
- ``word``: the named word is not a valid Typ-Dom word, or a tile laid now forms a
  non-word with the tiles beside it (this is also the seed's "Ein Buchstabe darf niemals
  so angesetzt werden, daß er mit zwei nebeneinander liegenden Seiten in das Gebilde
  eingreift und dadurch zwei verschiedene Wörter unvollendet bleiben": the second side
  must already be a finished word).

What the rules say is data (issue 31, :mod:`bot.games.verdict`): an invalid turn's
:class:`Outcome` carries a verdict for the mover (code = the reason, parameters typed by who
may see them: the rack, the letters written); a valid one's :meth:`Outcome.summary` is a
public verdict. Nothing here writes a sentence; others learn of a line that was not played
only that it failed (the turn record's ``failed``: indexes).

Decisions where the seed is silent (also in docs/rules/typdom-wbr.md):

- Premiums: a square is a 2 x 2 block of tiles that the first tile completes; "crosses
  in a vowel" is read as: the first tile makes the fragment take in a vowel tile of
  another word (starting a word across a vowel, or growing onto one); one premium tile
  per turn at most, laid at an end of the fragment in the same direction, and none once
  the word is finished.
- Who goes next: seat order among the players still in. A finished word is followed by
  a new one from its author, skipping the seats between ("auch wenn er nicht an der
  Reihe wäre ... Die übergangenen Mitspieler werden dabei ausgelassen"); a word finished
  by the tile of the player who named it is followed by the next seat ("so beginnt der
  nächste in der Runde ein neues Wort"); after ``FERTIG`` the author starts the next word
  in a turn of their own.
- Dropping out: when the completion falls due and the author's rack (Jollys included)
  cannot lay the missing tiles anywhere the word fits, the author drops out at once
  ("Sollte ihm aber dabei ein nötiger Buchstabe fehlen, so scheidet der betreffende
  Spieler aus und zahlt jedem Mitspieler die ihm verbleibenden Punkte"): they pay every
  player still in the value of their rack (black 1, red 3, Jolly 10). The unfinished
  word stays on the table as it is; the next seat starts a new word across it.
- No move by the ZAT (or none valid): the player buys a tile and is skipped (issue 12);
  in the turn after a purchase nothing more is bought (the player passes). The pool
  empty: nothing is bought.
- End (Kreuzwort-Spiel scoring): the first player with an empty rack wins at once and
  receives from every other player still in 1 per black, 3 per red tile and 10 per
  Jolly left. A game that cannot end so (the pool empty and a whole round of turns
  without a tile laid, or the league's turn cap): the lowest rest wins and is paid the
  same way; equal lowest: nobody wins, nobody pays ("Bei gleicher Punkteanzahl ist kein
  Gewinner"). A player left alone after the others dropped out wins (already paid).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field as dc_field
from functools import lru_cache
from typing import Any, Iterable, Mapping, Protocol, Sequence

from lark import Lark, Transformer, UnexpectedInput

from bot import GRAMMAR_DIR
from bot.games.base import NotationError
from bot.games.verdict import N_, Verdict, Visibility, verdict
from bot.games.grid import Placement as Tiled, run
from bot.games.typdom.game import _draw, end_scores
from bot.games.typdom.table import CENTRE, COLUMNS, Table, coord_name
from bot.games.typdom.tiles import BLACK_JOLLY, JOLLYS, RED_JOLLY, VOWELS, jolly_for, left_value, sort_rack
from bot.lexicon.alphabet import spell_line

__all__ = ["REASONS", "DUTIES", "Lay", "WbrTurn", "Outcome", "parse_turn", "format_turn", "evaluate", "apply",
           "skip", "leave", "fits", "can_complete", "new_state", "finish_over_limit"]

#: Reason codes in checking order, with their gloss (German msgids, :func:`N_`).
REASONS: dict[str, str] = {
    "syntax": N_("nicht lesbar"),
    "duty": N_("jetzt nicht erlaubt"),
    "rack": N_("Steine nicht auf der Bank"),
    "off-board": N_("außerhalb des Tisches"),
    "position": N_("falscher Platz"),
    "jolly": N_("Jolly nicht erlaubt"),
    "premium": N_("kein zweiter Stein erlaubt"),
    "fragment": N_("Wort passt nicht zum Wortteil"),
    "room": N_("kein Platz für das Wort"),
    "word": N_("kein gültiges Wort"),
}
#: What the player to move has to do (German msgids, :func:`N_`; the mails translate them).
DUTIES: dict[str, str] = {
    "start": N_("beginnt ein neues Wort"),
    "continue": N_("baut weiter (Stein anlegen und Wort ansagen) oder kauft"),
    "complete": N_("muss das angesagte Wort jetzt vollenden (FERTIG)"),
    "after_buy": N_("hat gekauft und darf jetzt legen oder passen"),
}
#: The duty of the very first turn (the table is empty).
FIRST_DUTY = N_("legt den ersten Stein auf M13 und sagt ein Wort an")
_PUBLIC = Visibility.PUBLIC
_EMPTY = verdict("empty", N_("leer"))
_COLOURS = {"rot": verdict("colour", N_("rot"), seen=_PUBLIC),
            "schwarz": verdict("colour", N_("schwarz"), seen=_PUBLIC)}
_PREMIUMS = {"quadrat": verdict("premium", N_("Quadrat"), seen=_PUBLIC),
             "selbstlaut": verdict("premium", N_("Kreuzung im Selbstlaut"), seen=_PUBLIC)}
_STEPS = {"w": (0, 1), "s": (1, 0)}


class WordList(Protocol):
    def __contains__(self, word: object) -> bool: ...


# ---------------------------------------------------------------------------------------
# Notation


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


# ---------------------------------------------------------------------------------------
# The state


def new_state(*, racks: Mapping[str, str], pool: str, seat_order: Sequence[str], start: Mapping[str, Any],
              rounds: int) -> dict:
    """A new game: the empty table, the first seat to lay on M13."""
    return {"variant": "wbr", "round": 1, "rounds": rounds, "board": Table.empty().rows, "racks": dict(racks),
            "pool": pool, "seat_order": list(seat_order), "start": dict(start), "active": list(seat_order),
            "out": [], "mover": seat_order[0], "duty": "start", "base_duty": None, "word": None, "cross": None,
            "quiet": 0, "finished": False, "end": None, "words_done": [], "history": []}


def _next(state: Mapping[str, Any], player: str) -> str:
    """The next seat after ``player`` among those still in."""
    order = state["seat_order"]
    active = set(state["active"])
    i = order.index(player)
    for k in range(1, len(order) + 1):
        q = order[(i + k) % len(order)]
        if q in active:
            return q
    return player


def _sq(squares: Iterable[Sequence[int]]) -> list[tuple[int, int]]:
    return [(int(r), int(c)) for r, c in squares]


def _text(table: Table, squares: Sequence[tuple[int, int]]) -> str:
    return "".join(table.get(r, c).letter for r, c in squares)  # type: ignore[union-attr]


def _span(squares: Sequence[tuple[int, int]]) -> str:
    if not squares:
        return ""
    if len(squares) == 1:
        return coord_name(*squares[0])
    return f"{coord_name(*squares[0])}-{coord_name(*squares[-1])}"


# ---------------------------------------------------------------------------------------
# Where a word fits


@dataclass(frozen=True)
class Fit:
    """One way a named word fits over the fragment: its squares (first to last), its
    direction, and the tiles it still needs (row, col, letter)."""

    squares: tuple[tuple[int, int], ...]
    direction: str
    missing: tuple[tuple[int, int, str], ...]


def _contact(table: Table, r: int, c: int, letter: str, direction: str) -> str | None:
    """The word formed across ``direction`` through (r, c) with ``letter`` there, or None
    when no tile lies beside it that way."""
    dr, dc = _STEPS[direction]
    across = run(table, {(r, c): letter}, r, c, dc, dr)
    if len(across) < 2:
        return None
    return "".join(letter if (rr, cc) == (r, c) else table.get(rr, cc).letter for rr, cc in across)  # type: ignore[union-attr]


def fits(table: Table, fragment: Sequence[tuple[int, int]], direction: str | None, word: str,
         lexicon: WordList) -> tuple[list[Fit], Verdict | None]:
    """Every way ``word`` fits on ``table`` over ``fragment`` (its squares in reading
    order; ``direction`` None for a single tile: both ways), and, when none does, why
    (a verdict, None when it fits or nothing was tried). See the module docstring, ``room``."""
    frag = _text(table, fragment)
    out: list[Fit] = []
    why: Verdict | None = None
    for d in ([direction] if direction else ["w", "s"]):
        dr, dc = _STEPS[d]
        r0, c0 = fragment[0]
        k = word.find(frag)
        while k >= 0:
            start = (r0 - k * dr, c0 - k * dc)
            squares = [(start[0] + i * dr, start[1] + i * dc) for i in range(len(word))]
            before = (start[0] - dr, start[1] - dc)
            after = (squares[-1][0] + dr, squares[-1][1] + dc)
            problem: Verdict | None = None
            if not all(table.on_board(r, c) for r, c in squares):
                problem = verdict("edge", N_("{word} ginge über den Rand des Tisches"), word=word)
            elif table.get(*before) is not None or table.get(*after) is not None:
                problem = verdict("touch", N_("{word} stieße an einen Stein ({coord})"), word=word,
                                  coord=coord_name(*before) if table.get(*before) else coord_name(*after))
            missing = []
            for i, (r, c) in enumerate(squares):
                if problem:
                    break
                t = table.get(r, c)
                if t is not None:
                    if t.letter != word[i]:
                        problem = verdict("taken", N_("auf {coord} liegt {letter}, {word} bräuchte dort {need}"),
                                          coord=coord_name(r, c), letter=t.letter, word=word, need=word[i])
                    continue
                cw = _contact(table, r, c, word[i], d)
                if cw is not None and cw not in lexicon:
                    problem = verdict("contact", N_("{letter} auf {coord} ergäbe {cross}, kein Wort"),
                                      letter=word[i], coord=coord_name(r, c), cross=cw)
                missing.append((r, c, word[i]))
            if problem:
                why = why or problem
            else:
                out.append(Fit(tuple(squares), d, tuple(missing)))
            k = word.find(frag, k + 1)
    return out, why


def _cover(missing: Sequence[tuple[int, int, str]], rack: str, marked: Iterable[tuple[int, int]] = ()) -> tuple[list[Tiled], Counter] | None:
    """The tiles that lay ``missing`` from ``rack`` (letters first, a Jolly of the right
    colour for a letter the rack lacks, or where ``marked``), and the rack left; None when
    the rack cannot."""
    left = Counter(rack)
    marked = set(marked)
    tiles = []
    for r, c, letter in missing:
        if (r, c) not in marked and left[letter]:
            left[letter] -= 1
            tiles.append(Tiled(r, c, letter, False))
        elif left[jolly_for(letter)]:
            left[jolly_for(letter)] -= 1
            tiles.append(Tiled(r, c, letter, True))
        else:
            return None
    return tiles, left


def can_complete(state: Mapping[str, Any], lexicon: WordList) -> bool:
    """Whether the author of the word in progress can lay all its missing tiles now
    (their rack with Jollys; anywhere the word fits)."""
    word = state.get("word")
    if not word:
        return True
    table = Table.from_rows(state["board"])
    ways, _ = fits(table, _sq(word["squares"]), word.get("direction"), word["announced"], lexicon)
    rack = state["racks"].get(word["author"], "")
    return any(_cover(f.missing, rack) is not None for f in ways)


# ---------------------------------------------------------------------------------------
# Judging a turn


@dataclass
class Outcome:
    """The judgement of one turn.

    Valid: ``kind`` (``"lay"``, ``"fertig"``, ``"kaufen"``, ``"passe"``), ``tiles`` (laid,
    in order), ``take`` (a Jolly taken: ``{"row", "col", "coord", "letter"}``),
    ``fragment`` and ``direction`` (the word being built after the turn), ``announced``
    and ``author`` after the turn, ``new`` (a new announcement), ``premium``
    (``"quadrat"``, ``"selbstlaut"`` or None), ``completed`` (the word is finished),
    ``contacts`` (words the tiles formed across), ``rack_after``, ``colour`` (of a
    purchase), ``notation``. Invalid: ``reason`` and ``verdict`` (for the mover: it may
    name the rack and the line; others learn only that the line was invalid, issue 31).
    ``notes``: verdicts that never change the outcome (a public one may be shown to all
    with the counted turn)."""

    valid: bool
    kind: str = ""
    reason: str | None = None
    verdict: Verdict | None = None
    notes: list[Verdict] = dc_field(default_factory=list)
    tiles: list[Tiled] = dc_field(default_factory=list)
    take: dict | None = None
    fragment: list[tuple[int, int]] = dc_field(default_factory=list)
    direction: str | None = None
    announced: str | None = None
    author: str | None = None
    new: bool = False
    premium: str | None = None
    completed: bool = False
    contacts: list[str] = dc_field(default_factory=list)
    rack_after: str = ""
    colour: str | None = None
    notation: str = ""

    @property
    def message(self) -> str:
        """The verdict of an invalid turn in German, as the mover reads it ("" when valid)."""
        return self.verdict.text("de") if self.verdict is not None else ""

    def summary(self, table_before: Table | None = None) -> Verdict:
        """What a valid turn does, as a public verdict (code ``turn``): a sentence part
        after the player's name ("legt E auf M13, sagt ESEL an")."""
        if self.kind == "kaufen":
            if self.colour:
                return verdict("turn", N_("kauft einen Stein ({colour})"), seen=_PUBLIC, colour=_COLOURS[self.colour])
            return verdict("turn", N_("kauft einen Stein"), seen=_PUBLIC)
        if self.kind == "passe":
            return verdict("turn", N_("passt"), seen=_PUBLIC)
        laid = [verdict("tile", N_("Jolly als {letter} auf {coord}") if t.blank else N_("{letter} auf {coord}"),
                        seen=_PUBLIC, letter=t.letter, coord=coord_name(t.row, t.col)) for t in self.tiles]
        word = self.announced or ""
        if self.kind == "fertig":
            out = verdict("turn", N_("vollendet {word} ({laid})"), seen=_PUBLIC, word=word, laid=laid) if laid \
                else verdict("turn", N_("vollendet {word}"), seen=_PUBLIC, word=word)
        else:
            if self.premium:
                why = _PREMIUMS[self.premium]
                premium = verdict("premium", N_("zweiter Stein als Prämie: {why}"), seen=_PUBLIC, why=why) \
                    if len(self.tiles) > 1 else \
                    verdict("premium", N_("Prämie nicht genutzt: {why}"), seen=_PUBLIC, why=why)
                msgid = N_("legt {laid} ({premium}), sagt {word} an") if self.new else \
                    N_("legt {laid} ({premium}), baut an {word} weiter")
                out = verdict("turn", msgid, seen=_PUBLIC, laid=laid, premium=premium, word=word)
            else:
                msgid = N_("legt {laid}, sagt {word} an") if self.new else N_("legt {laid}, baut an {word} weiter")
                out = verdict("turn", msgid, seen=_PUBLIC, laid=laid, word=word)
            if self.completed:
                out = verdict("turn", N_("{turn}; {word} ist fertig"), seen=_PUBLIC, turn=out, word=word)
        if self.take:
            out = verdict("turn", N_("tauscht den Jolly auf {coord}, {turn}"), seen=_PUBLIC,
                          coord=self.take["coord"], turn=out)
        return out


def _invalid(reason: str, said: Verdict, notes: Iterable[Verdict] = ()) -> Outcome:
    """An invalid turn: ``said`` is for the mover (its ``seen`` is the mover's)."""
    return Outcome(valid=False, reason=reason, verdict=said, notes=list(notes))


def _say(code: str, msgid: str, **params: Any) -> Verdict:
    """A verdict for the mover alone (every parameter the mover's)."""
    return verdict(code, msgid, **params)


def _no_jolly_square(take: tuple[int, int]) -> Verdict:
    return _say("off-board", N_("JOLLY {coord}: dieses Feld gibt es nicht."), coord=coord_name(*take))


def _no_jolly_there(take: tuple[int, int]) -> Verdict:
    return _say("position", N_("JOLLY {coord}: dort liegt kein Jolly."), coord=coord_name(*take))


def _no_room(word: str, why: Verdict | None) -> Verdict:
    if why is None:
        return _say("room", N_("Für {word} ist kein Platz."), word=word)
    return _say("room", N_("Für {word} ist kein Platz: {why}."), word=word, why=why)


def _neighbours(r: int, c: int) -> list[tuple[tuple[int, int], str]]:
    return [((r, c - 1), "w"), ((r, c + 1), "w"), ((r - 1, c), "s"), ((r + 1, c), "s")]


def _square_premium(table: Table, r: int, c: int) -> bool:
    """The tile on (r, c) completes a 2 x 2 block of tiles."""
    for dr in (-1, 0):
        for dc in (-1, 0):
            block = [(r + dr + i, c + dc + j) for i in (0, 1) for j in (0, 1)]
            if all(table.get(*q) is not None for q in block):
                return True
    return False


def evaluate(state: Mapping[str, Any], player: str, turn: WbrTurn | str, lexicon: WordList) -> Outcome:
    """Judge ``turn`` (a :class:`WbrTurn` or a line) by ``player`` in ``state`` (whose
    ``mover`` is expected to be ``player``). Never raises for a bad turn; the checks
    follow the module docstring."""
    if isinstance(turn, str):
        try:
            turn = parse_turn(turn)
        except NotationError as exc:
            return _invalid("syntax", exc.verdict)
    table = Table.from_rows(state["board"])
    rack = state["racks"].get(player, "")
    duty = state["duty"]
    base = (state.get("base_duty") or "continue") if duty == "after_buy" else duty
    word = state.get("word")
    pool = state.get("pool", "")
    notes: list[Verdict] = []

    # -- duty ------------------------------------------------------------------------------
    if duty == "complete" and turn.kind != "fertig":
        return _invalid("duty", _say("duty", N_("Dein Wort {word} ist eine Runde lang unverändert geblieben: du musst "
                                                "es jetzt vollenden ('FERTIG {word}')."), word=word['announced']))
    if turn.kind == "fertig" and duty != "complete":
        return _invalid("duty", _say("duty", N_("FERTIG gibt es nur für dein eigenes angesagtes Wort, wenn es eine "
                                                "Runde lang unverändert geblieben ist.")))
    swap_first = _say("duty", N_("Einen Jolly tauschen kannst du nur, wenn du danach anlegst."))
    if turn.kind == "kaufen":
        if duty == "after_buy":
            return _invalid("duty", _say("duty", N_("Du hast schon gekauft: leg jetzt einen Stein an oder schreib "
                                                    "PASSE.")))
        if turn.take:
            return _invalid("duty", swap_first)
        if not pool:
            notes.append(_say("pool", N_("Der Vorrat ist leer: du kannst nichts kaufen und passt.")))
            return Outcome(True, "passe", notes=notes, rack_after=rack, notation="PASSE")
        return Outcome(True, "kaufen", colour=turn.colour, rack_after=rack, notation=format_turn(turn))
    if turn.kind == "passe":
        if duty != "after_buy" and pool:
            return _invalid("duty", _say("duty", N_("Passen kannst du erst, wenn du gekauft hast (KAUFEN) oder der "
                                                    "Vorrat leer ist.")))
        if turn.take:
            return _invalid("duty", swap_first)
        return Outcome(True, "passe", rack_after=rack, notation="PASSE")

    # -- a Jolly taken first -------------------------------------------------------------------
    take = None
    have = Counter(rack)
    if turn.take is not None:
        jr, jc = turn.take
        jt = table.get(jr, jc) if table.on_board(jr, jc) else None
        if jt is not None and jt.blank:
            take = {"row": jr, "col": jc, "coord": coord_name(jr, jc), "letter": jt.letter}
            if not have[jt.letter]:
                return _invalid("rack", _say("rack", N_("Für den Jolly auf {coord} musst du ein {letter} legen; das "
                                                        "hast du nicht."), coord=coord_name(jr, jc), letter=jt.letter))
            have[jt.letter] -= 1
            have[jolly_for(jt.letter)] += 1

    if turn.kind == "fertig":
        return _fertig(state, table, turn, have, take, lexicon, notes)

    # -- rack ------------------------------------------------------------------------------
    need = Counter(lay.letter for lay in turn.lays if not lay.jolly)
    jollys_need = sum(1 for lay in turn.lays if lay.jolly)
    missing = need - Counter({k: v for k, v in have.items() if k not in JOLLYS})
    if missing or jollys_need > have[RED_JOLLY] + have[BLACK_JOLLY]:
        shown = " ".join(sorted(missing.elements())) + (" *" * max(0, jollys_need - have[RED_JOLLY]
                                                                  - have[BLACK_JOLLY]))
        return _invalid("rack", _say("rack", N_("Nicht auf deiner Bank ({rack}): {missing}."),
                                     rack=rack or _EMPTY, missing=shown.strip()))

    # -- off-board -----------------------------------------------------------------------------
    if turn.take is not None and not table.on_board(*turn.take):
        return _invalid("off-board", _no_jolly_square(turn.take))
    for lay in turn.lays:
        if not table.on_board(lay.row, lay.col):
            return _invalid("off-board", _say("off-board", N_("{coord}: dieses Feld gibt es nicht (Spalten A-Y, "
                                                              "Zeilen 1-25)."), coord=lay.coord))

    # -- position ------------------------------------------------------------------------------
    if turn.take is not None and take is None:
        return _invalid("position", _no_jolly_there(turn.take))
    board = table if take is None else table.replace(take["row"], take["col"], Table.TILE(take["letter"], False))
    first = turn.lays[0]
    if board.get(first.row, first.col) is not None:
        return _invalid("position", _say("position", N_("Auf {coord} liegt schon ein Stein."), coord=first.coord))
    if base == "start":
        if board.is_empty():
            if (first.row, first.col) != CENTRE:
                return _invalid("position", _say("position", N_("Das erste Wort beginnt mit einem Stein in der Mitte "
                                                                "des Tisches, M13.")))
            direction = None
            frag0: list[tuple[int, int]] = []
        else:
            cross = state.get("cross") or {}
            csq = set(_sq(cross.get("squares", [])))
            cd = cross.get("direction")
            hits = [d for (q, d) in _neighbours(first.row, first.col) if q in csq and (cd is None or d != cd)]
            if not hits:
                span = _span(_sq(cross.get('squares', [])))
                if cross.get("word"):
                    said = _say("position", N_("Ein neues Wort muss das fertige Wort {word} ({span}) kreuzen: leg "
                                               "seinen ersten Stein quer daneben."), word=cross["word"], span=span)
                else:
                    said = _say("position", N_("Ein neues Wort muss den aufgegebenen Wortteil ({span}) kreuzen: leg "
                                               "seinen ersten Stein quer daneben."), span=span)
                return _invalid("position", said)
            direction = hits[0]
            frag0 = []
    else:
        frag0 = _sq(word["squares"])
        direction = word.get("direction")
        ends = []
        for d in ([direction] if direction else ["w", "s"]):
            dr, dc = _STEPS[d]
            ends += [((frag0[0][0] - dr, frag0[0][1] - dc), d), ((frag0[-1][0] + dr, frag0[-1][1] + dc), d)]
        hit = [d for q, d in ends if q == (first.row, first.col)]
        if not hit:
            return _invalid("position", _say("position", N_("{coord} liegt nicht an einem Ende des Wortteils {part} "
                                                            "({span}); angelegt wird vorne oder hinten."),
                                             coord=first.coord, part=_text(board, frag0), span=_span(frag0)))
        direction = hit[0]

    placed = {(first.row, first.col): first.letter}
    dr, dc = _STEPS[direction] if direction else (0, 1)
    frag1 = run(board, placed, first.row, first.col, dr, dc) if direction else [(first.row, first.col)]
    second = turn.lays[1] if len(turn.lays) > 1 else None
    if second is not None:
        if not board.on_board(second.row, second.col) or board.get(second.row, second.col) is not None \
                or (second.row, second.col) in placed:
            return _invalid("position", _say("position", N_("Auf {coord} kann kein Stein liegen (besetzt)."),
                                             coord=second.coord))
        sdir = direction
        if sdir is None:  # the second tile of the game fixes the direction
            sdir = next((d for q, d in _neighbours(first.row, first.col) if q == (second.row, second.col)), None)
        ok = False
        if sdir is not None:
            sr, sc = _STEPS[sdir]
            frag_s = run(board, placed, first.row, first.col, sr, sc)
            ok = (second.row, second.col) in ((frag_s[0][0] - sr, frag_s[0][1] - sc),
                                              (frag_s[-1][0] + sr, frag_s[-1][1] + sc))
        if not ok:
            return _invalid("position", _say("position", N_("Der zweite Stein ({coord}) muss an einem Ende des "
                                                            "Wortteils liegen."), coord=second.coord))

    # -- jolly -----------------------------------------------------------------------------
    if take is not None and table.neighbours(take["row"], take["col"]) >= 3:
        return _invalid("jolly", _say("jolly", N_("Der Jolly auf {coord} ist schon an drei Seiten verbaut und kann "
                                                  "nicht mehr getauscht werden."), coord=take['coord']))
    red = sum(1 for lay in turn.lays if lay.jolly and lay.letter in VOWELS)
    black = sum(1 for lay in turn.lays if lay.jolly and lay.letter not in VOWELS)
    if red > have[RED_JOLLY] or black > have[BLACK_JOLLY]:
        return _invalid("jolly", _say("jolly", N_("Der rote Jolly steht nur für einen Selbstlaut (A E I O U Y), der "
                                                  "schwarze nur für einen Mitlaut.")))

    # -- premium ---------------------------------------------------------------------------
    after1 = board.place([first.tile])
    taken = [q for q in frag1 if q not in frag0 and q != (first.row, first.col)]
    premium = None
    if _square_premium(after1, first.row, first.col):
        premium = "quadrat"
    elif any(after1.get(*q).letter in VOWELS for q in taken):  # type: ignore[union-attr]
        premium = "selbstlaut"
    named = turn.word or (word["announced"] if word and base == "continue" else None)
    if second is not None:
        if premium is None:
            return _invalid("premium", _say("premium", N_("Einen zweiten Stein legt nur, wer ein Quadrat bildet oder "
                                                          "mit dem neuen Wort ein liegendes in einem Selbstlaut "
                                                          "kreuzt.")))
        if named and _text(after1, frag1) == named and direction is not None:
            return _invalid("premium", _say("premium", N_("{word} ist mit dem ersten Stein schon fertig; ein zweiter "
                                                          "Stein gehört zu keinem Wort."), word=named))

    # -- the grown fragment and the word named -------------------------------------------------
    tiles = [lay.tile for lay in turn.lays]
    after = board.place(tiles)
    if second is not None and direction is None:
        direction = "w" if second.row == first.row else "s"
    if direction is None:
        frag = [(first.row, first.col)]
    else:
        dr, dc = _STEPS[direction]
        frag = run(after, {}, first.row, first.col, dr, dc)
    text = _text(after, frag)
    if not named:
        return _invalid("fragment", _say("fragment", N_("Sag ein Wort an, das {part} enthält (z. B. '{example} "
                                                        "WORT')."), part=text,
                                         example=f"{first.coord} {'*' if first.jolly else ''}{first.letter}"))
    if text not in named:
        return _invalid("fragment", _say("fragment", N_("{word} enthält den Wortteil {part} ({span}) nicht in einem "
                                                        "Stück."), word=named, part=text, span=_span(frag)))

    # -- room ------------------------------------------------------------------------------
    ways, why = fits(after, frag, direction, named, lexicon)
    if not ways:
        return _invalid("room", _no_room(named, why))

    # -- words -----------------------------------------------------------------------------
    if named not in lexicon:
        return _invalid("word", _say("word", N_("{word} ist kein gültiges Wort. Typ-Dom-Wortregeln: Zeitwörter nur "
                                                "in der Grundform, keine Familien-, Firmen- oder Markennamen."),
                                     word=named))
    contacts = []
    for t in tiles:
        for d in (["w", "s"] if direction is None else [direction]):
            cw = _contact(board.place([x for x in tiles if x != t]), t.row, t.col, t.letter, d)
            if cw is not None:
                if cw not in lexicon:
                    return _invalid("word", _say("word", N_("{letter} auf {coord} bildet {cross}: kein Wort (wo sich "
                                                            "Steine berühren, muss ein fertiges Wort entstehen)."),
                                                 letter=t.letter, coord=coord_name(t.row, t.col), cross=cw))
                contacts.append(cw)
    keep = bool(word) and base == "continue" and named == word["announced"]
    if turn.word is None and keep:
        notes.append(verdict("kept", N_("Kein Wort angesagt: es bleibt bei {word}."), seen=_PUBLIC, word=named))
    left = Counter(have)
    for lay in turn.lays:
        left[jolly_for(lay.letter) if lay.jolly else lay.letter] -= 1
    completed = text == named
    author = word["author"] if keep else player
    canon = WbrTurn("lay", tuple(turn.lays), None if keep else named, take=turn.take)
    return Outcome(True, "lay", notes=notes, tiles=tiles, take=take, fragment=frag, direction=direction,
                   announced=named, author=author, new=not keep, premium=premium, completed=completed,
                   contacts=contacts, rack_after=sort_rack((+left).elements()), notation=format_turn(canon))


def _fertig(state: Mapping[str, Any], table: Table, turn: WbrTurn, have: Counter, take: dict | None,
            lexicon: WordList, notes: list[Verdict]) -> Outcome:
    word = state["word"]
    named = word["announced"]
    if turn.take is not None and take is None:
        if not table.on_board(*turn.take):
            return _invalid("off-board", _no_jolly_square(turn.take))
        return _invalid("position", _no_jolly_there(turn.take))
    if turn.word != named:
        return _invalid("fragment", _say("fragment", N_("Vollenden musst du dein angesagtes Wort {word}, nicht "
                                                        "{written}."), word=named, written=turn.word or ""))
    board = table if take is None else table.replace(take["row"], take["col"], Table.TILE(take["letter"], False))
    ways, why = fits(board, _sq(word["squares"]), word.get("direction"), named, lexicon)
    if turn.at is not None:
        r, c, d = turn.at
        if not board.on_board(r, c):
            return _invalid("off-board", _say("off-board", N_("{coord}: dieses Feld gibt es nicht."),
                                              coord=coord_name(r, c)))
        chosen = [f for f in ways if f.squares[0] == (r, c) and (d is None or f.direction == d)]
        if not chosen:
            if d:
                said = _say("position", N_("{word} passt nicht ab {coord} (waagerecht).") if d == "w" else
                            N_("{word} passt nicht ab {coord} (senkrecht)."), word=named, coord=coord_name(r, c))
            else:
                said = _say("position", N_("{word} passt nicht ab {coord}."), word=named, coord=coord_name(r, c))
            return _invalid("position", said)
        ways = chosen
    if not ways:
        return _invalid("room", _no_room(named, why))
    rack = sort_rack(have.elements())
    best = None
    for f in ways:
        marked = [f.squares[i] for i in turn.jollys if i < len(f.squares)]
        got = _cover(f.missing, rack, marked)
        if got is not None:
            best = (f, got)
            break
    if best is None:
        need = Counter(letter for _, _, letter in ways[0].missing)
        lack = need - Counter({k: v for k, v in have.items() if k not in JOLLYS})
        return _invalid("rack", _say("rack", N_("Für {word} fehlen dir Steine: {missing}."), word=named,
                                     missing=" ".join(sorted(lack.elements())) or verdict("tile", N_("Jolly"))))
    f, (tiles, left) = best
    for t in tiles:
        if t.blank and f.squares.index((t.row, t.col)) not in turn.jollys:
            notes.append(_say("jolly_taken", N_("{letter} auf {coord}: dafür nimmt der Bot deinen Jolly."),
                              letter=t.letter, coord=coord_name(t.row, t.col)))
    for i in turn.jollys:
        if i < len(f.squares) and board.get(*f.squares[i]) is not None:
            notes.append(_say("star", N_("{letter} auf {coord} liegt schon; der Stern dort zählt nicht."),
                              letter=named[i], coord=coord_name(*f.squares[i])))
    if len(ways) > 1 and turn.at is None:
        notes.append(verdict("placed", N_("{word} passte mehrfach; gelegt ab {coord}."), seen=_PUBLIC, word=named,
                             coord=coord_name(*f.squares[0])))
    contacts = []
    for t in tiles:
        cw = _contact(board, t.row, t.col, t.letter, f.direction)
        if cw is not None:
            contacts.append(cw)
    canon = WbrTurn("fertig", word=named, jollys=tuple(f.squares.index((t.row, t.col)) for t in tiles if t.blank),
                    at=(f.squares[0][0], f.squares[0][1], f.direction), take=turn.take)
    return Outcome(True, "fertig", notes=notes, tiles=tiles, take=take, fragment=list(f.squares),
                   direction=f.direction, announced=named, author=word["author"], completed=True, contacts=contacts,
                   rack_after=sort_rack((+left).elements()), notation=format_turn(canon))


# ---------------------------------------------------------------------------------------
# The course of the game


def _record(state: Mapping[str, Any], player: str, kind: str, **kw: Any) -> dict:
    rec = {"turn": int(state["round"]), "player": player, "kind": kind, "duty": state["duty"], "notation": None,
           "summary": "", "tiles": [], "take": None, "announced": None, "new": False, "author": None,
           "fragment": "", "span": "", "premium": None, "completed": None, "contacts": [], "bought": 0,
           "pool_empty": False, "dropouts": [], "failed": []}
    rec.update(kw)
    return rec


def apply(state: Mapping[str, Any], player: str, out: Outcome, lexicon: WordList) -> tuple[dict, dict]:
    """The state after ``player``'s valid turn ``out`` (the next mover set, purchases
    drawn from the front of the pool, dropouts and the end scored), and the turn's public
    record."""
    st = _copy(state)
    table = Table.from_rows(st["board"])
    rec = _record(st, player, out.kind, notation=out.notation, summary=out.summary().to_json())
    st["base_duty"] = None
    if out.kind == "kaufen":
        got, st["pool"] = _draw(st["pool"], 1, out.colour)
        st["racks"][player] = sort_rack(st["racks"][player] + got)
        st["bought"] = got  # private: the buyer's (the record says only how many)
        rec.update(bought=len(got))
        st["quiet"] = st.get("quiet", 0) + (0 if got else 1)
        st["base_duty"] = st["duty"]
        st["duty"] = "after_buy"
        return _advance(st, rec, player, lexicon, stay=True)
    if out.kind == "passe":
        if not st["pool"]:
            st["quiet"] = st.get("quiet", 0) + 1
        return _advance(st, rec, player, lexicon)
    # tiles laid (a lay or FERTIG)
    if out.take:
        table = table.replace(out.take["row"], out.take["col"], Table.TILE(out.take["letter"], False))
    table = table.place(out.tiles)
    st["board"] = table.rows
    st["racks"][player] = out.rack_after
    st["quiet"] = 0
    rec.update(tiles=[{"coord": coord_name(t.row, t.col), "letter": t.letter, "jolly": t.blank} for t in out.tiles],
               take=out.take, announced=out.announced, new=out.new, author=out.author,
               fragment=_text(table, out.fragment), span=_span(out.fragment), premium=out.premium,
               contacts=out.contacts)
    word = {"announced": out.announced, "author": out.author, "squares": [list(q) for q in out.fragment],
            "direction": out.direction, "since": st["round"] if out.new else (st.get("word") or {}).get("since")}
    if out.completed:
        rec["completed"] = out.announced
        st["words_done"] = st.get("words_done", []) + [{"word": out.announced, "author": out.author,
                                                        "squares": word["squares"], "direction": out.direction}]
        st["word"] = None
        st["cross"] = {"word": out.announced, "squares": word["squares"], "direction": out.direction}
    else:
        st["word"] = word
    if not st["racks"][player]:
        return _finish(st, rec, first_out=player)
    if out.completed:
        if out.kind == "fertig":
            nxt = player  # "muß ... vollenden und ein neues beginnen"
        elif out.new:
            nxt = _next(st, player)  # "so beginnt der nächste in der Runde ein neues Wort"
        else:
            nxt = out.author if out.author in st["active"] else _next(st, player)  # "der Urheber ... beginnt"
        st["mover"], st["duty"] = nxt, "start"
        return _settle(st, rec, lexicon)
    return _advance(st, rec, player, lexicon)


def skip(state: Mapping[str, Any], player: str, lexicon: WordList, *, kind: str = "nmr",
         failed: Sequence[dict] = ()) -> tuple[dict, dict]:
    """No valid move by the ZAT: the player buys a tile and is skipped (after a purchase:
    passes). Returns the state after and the turn's record."""
    st = _copy(state)
    rec = _record(st, player, kind, failed=list(failed))
    if st["duty"] != "after_buy":
        got, st["pool"] = _draw(st["pool"], 1, None)
        st["racks"][player] = sort_rack(st["racks"][player] + got)
        st["bought"] = got  # private: the buyer's (the record says only how many)
        rec.update(bought=len(got), pool_empty=not got)
        if not got:
            st["quiet"] = st.get("quiet", 0) + 1
    elif not st["pool"]:
        st["quiet"] = st.get("quiet", 0) + 1
    st["base_duty"] = None
    return _advance(st, rec, player, lexicon)


def leave(state: Mapping[str, Any], player: str, lexicon: WordList) -> tuple[dict, dict]:
    """The player to move has left the league (removed by the game master): out of the
    game without paying; a word of theirs in progress is given up like a dropout's."""
    st = _copy(state)
    rec = _record(st, player, "removed")
    nxt = _next(st, player)
    st["active"].remove(player)
    st["out"].append(player)
    word = st.get("word")
    if word and word["author"] == player:
        st["words_done"] = st.get("words_done", []) + [_given_up(word)]
        st["cross"] = {"word": None, "squares": word["squares"], "direction": word.get("direction")}
        st["word"] = None
    st["mover"] = nxt
    st["duty"] = "complete" if st.get("word") and st["word"]["author"] == nxt else ("continue" if st.get("word")
                                                                                      else "start")
    if len(st["active"]) == 1:
        return _finish(st, rec, first_out=None, alone=st["active"][0])
    return _settle(st, rec, lexicon)


def _given_up(word: Mapping[str, Any]) -> dict:
    """The record of an unfinished word left on the table (its author dropped out)."""
    return {"word": word["announced"], "author": word["author"], "squares": word["squares"],
            "direction": word.get("direction"), "abandoned": True}


def _copy(state: Mapping[str, Any]) -> dict:
    st = dict(state)
    st["racks"] = dict(state["racks"])
    st["active"] = list(state["active"])
    st["out"] = list(state.get("out", []))
    return st


def _advance(st: dict, rec: dict, player: str, lexicon: WordList, stay: bool = False) -> tuple[dict, dict]:
    """Move on to the next seat (``stay``: the same player, after a purchase) and settle."""
    if not stay:
        nxt = _next(st, player)
        st["mover"] = nxt
        word = st.get("word")
        if word and word["author"] == nxt:
            st["duty"] = "complete"
        else:
            st["duty"] = "continue" if word else "start"
    return _settle(st, rec, lexicon)


def _settle(st: dict, rec: dict, lexicon: WordList) -> tuple[dict, dict]:
    """Drop out every author who cannot complete a due word, then check the end."""
    while st["duty"] == "complete" and not can_complete(st, lexicon):
        gone = st["mover"]
        rest = st["racks"].get(gone, "")
        pay = sum(left_value(t) for t in rest)
        others = [p for p in st["active"] if p != gone]
        word = st["word"]
        rec["dropouts"].append({"player": gone, "word": word["announced"], "rest": rest, "pays": pay,
                                "to": others})
        nxt = _next(st, gone)
        st["active"].remove(gone)
        st["out"].append(gone)
        st.setdefault("payments", []).append({"turn": st["round"], "from": gone, "to": others, "each": pay,
                                             "word": word["announced"]})
        st["words_done"] = st.get("words_done", []) + [_given_up(word)]
        st["cross"] = {"word": None, "squares": word["squares"], "direction": word.get("direction")}
        st["word"] = None
        st["mover"], st["duty"] = nxt, "start"
        if len(st["active"]) == 1:
            return _finish(st, rec, first_out=None, alone=st["active"][0])
    if not st["pool"] and st.get("quiet", 0) >= len(st["active"]):
        return _finish(st, rec, first_out=None, blocked=True)
    st["round"] = int(st["round"]) + 1
    rec["next"] = {"player": st["mover"], "duty": st["duty"]}
    st["history"] = list(st.get("history", [])) + [rec]
    return st, rec


def _finish(st: dict, rec: dict, *, first_out: str | None, blocked: bool = False, alone: str | None = None,
            over_limit: bool = False) -> tuple[dict, dict]:
    """The end: the Kreuzwort-Spiel's scoring among the players still in."""
    order = [p for p in st["seat_order"] if p in st["active"]]
    if alone is not None:
        scores = {alone: {"rest": st["racks"].get(alone, ""), "paid": 0, "received": 0, "points": 0, "winner": True}}
    else:
        scores = end_scores("kreuzwort", {p: st["racks"][p] for p in order}, order, first_out)
    st["finished"] = True
    st["end"] = {"first_out": first_out, "blocked": blocked, "alone": alone, "over_limit": over_limit,
                 "scores": scores}
    rec["next"] = None
    st["history"] = list(st.get("history", [])) + [rec]
    return st, rec


def finish_over_limit(state: Mapping[str, Any]) -> dict:
    """The state of a game stopped by the league's turn cap (the turn just played is
    the last), scored like a blocked one."""
    st = _copy(state)
    hist = list(st.get("history", []))
    rec = dict(hist.pop()) if hist else _record(st, st["mover"], "limit")
    st["history"] = hist
    st["round"] = max(1, int(st["round"]) - 1) if rec.get("next") else st["round"]
    st, _ = _finish(st, rec, first_out=None, over_limit=True)
    return st

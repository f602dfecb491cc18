"""Typ-Dom turn validation and scoring (pure).

Rule sources: seed 002 (Typ-Dom, Kreuzwort-Spiel and Point-Typ-Dom), read with
shared/RULES.md "Typ-Dom" and shared/NOTATION.md "Typ-Dom"; reason codes and their order
from shared/conformance/README.md "Typ-Dom".

A turn is checked in the order of the reason codes, and the first rule it breaks is its
reason (each code is checked for the Jolly taken first, then the first placement, then
the second, before the next code):

``syntax`` -> ``rack`` -> ``off-board`` -> ``mismatch`` -> ``gap`` -> ``jolly`` ->
``not-connected`` -> ``no-tile`` -> ``second`` -> ``word``.

- ``syntax``: the line cannot be read (:func:`~bot.games.typdom.notation.parse_turn`);
  a purchase of other than 1-3 tiles in Point-Typ-Dom.
- ``rack``: the tiles written as laid now (upper case, ``*X``; both placements and the
  letter laid for a Jolly taken) are not all in the rack; a ``*X`` needs a Jolly of
  either colour here (the colour is the ``jolly`` check). A Jolly taken first is in the
  rack for the placements after it (seed: "Der geraubte Jolly kann vom neuen Besitzer
  wieder nach Belieben verwendet werden").
- ``off-board``: a written square lies outside A1-Y25.
- ``mismatch``: a lower-case letter on a square that does not hold that letter; an
  upper-case letter (or ``*X``) on a square holding another letter; ``JOLLY M13`` where
  no Jolly lies.
- ``gap``: the word is written with an empty square inside.
- ``jolly``: a Jolly for the wrong kind of letter (seed: the red one only for a vowel
  A E I O U Y, the black one only for a consonant); taking a Jolly that is enclosed on
  three or four sides (seed: "Schon angesetzte, aber an drei Seiten noch nicht verbaute
  Jolly-Steine können ... ausgetauscht werden"; decision: "enclosed on a side" means the
  square beside it holds a tile).
- ``not-connected``: on an empty table the word misses M13; otherwise the word uses no
  tile already on the table (seed: "mit den bereits bestehenden Worten mindestens einen
  Buchstaben gemeinsam"; touching side by side is not enough).
- ``no-tile``: a placement lays nothing.
- ``second``: a second placement without a joining first one, or a third placement
  (seed: "darf der betreffende Spieler noch ein 2. Wort ansetzen": one more, decision).
- ``word``: a placed word or a word formed where tiles touch ("Es muß aber überall, wo die
  Steine einander berühren, ein sinnvoller Begriff entstehen") is not in the lexicon.

Joining (NOTATION.md): the tiles of the table a placement uses (those inside its word)
do not all belong to one word on the table. Inside one straight word the table tiles
fall into groups separated by newly laid tiles; one group lies in one word, and two groups
can share no word (a word across the placement holds one square of it), so a placement
joins exactly when its word holds two or more such groups (EIS -> REISE: one group, no
join; NAHT through the N of EXAMEN and the T of TAT: two groups, a join).

Verdicts are data (issue 31, :mod:`bot.games.verdict`; the judgement as data, its reason
codes and their gloss are :mod:`.outcome`): an invalid turn's ``verdict``
is written to the mover (``seen`` MOVER, its parameters the mover's: the rack, the
letters of a line that was not played); others only ever learn that a line was invalid
(:meth:`bot.games.base.GameRules.seen_by`). The notes of a valid turn name nothing but the
line and the table, and are public; the notes of an invalid one are the mover's.

Lenient readings, each a note and never a failure (as in Monoscrabble): an
upper-case letter on a square holding that letter is the tile on the table; a WORD that is
only part of the word formed is extended over the table tiles at both ends and the whole
word counts; a single laid tile that forms no word in the written direction but one
across it is read across; points written that differ from the bot's count are noted.

Point-Typ-Dom score of a placement (seed: "Dabei werden alle Buchstaben des neu
angesetzten Wortes gezählt, also auch diejenigen, die bereits auf dem Tisch gelegen sind"):
the values of every letter of the placed word, old ones included, a Jolly (new or old) 0;
the contact words and the +10 for going out are not part of it. A turn's score is the sum
of its placements.

Purchases (``KAUFEN``): always a valid turn here (which tiles come is the game's draw,
see :mod:`bot.games.typdom.deal`); Kreuzwort-Spiel buys one tile (``KAUFEN 2`` is read as
``KAUFEN`` with a note), Point-Typ-Dom 1-3.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Protocol, Sequence

from bot.games.base import NotationError
from bot.games.grid import Placement as Tiled, run
from bot.games.typdom.notation import Token, Turn, format_placement, format_turn, parse_turn, tokens_text
from bot.games.typdom.outcome import Laid, Outcome, as_mover
from bot.games.typdom.table import CENTRE, Table, coord_name
from bot.games.typdom.tiles import BLACK_JOLLY, RED_JOLLY, VALUES, VOWELS, jolly_for, sort_rack
from bot.games.verdict import N_, Param, Verdict, Visibility, about_mover, mover, public, verdict

VARIANTS = ("kreuzwort", "point")

# What the game master's copy reads instead of the sentences written to the mover
# (bot.games.verdict.about_mover): about the player's rack, not "deine Bank".
NOT_ON_RACK = about_mover(
    N_("Nicht auf deiner Bank ({rack}): {missing}."),
    N_("Nicht auf der Bank ({rack}): {missing}."))
NOT_ON_RACK_JOLLY = about_mover(
    N_("Nicht auf deiner Bank ({rack}): {missing}. Ein Jolly wird mit Stern geschrieben, z. B. *E."),
    N_("Nicht auf der Bank ({rack}): {missing}. Ein Jolly wird mit Stern geschrieben, z. B. *E."))
JOLLY_KIND = about_mover(
    N_("Der rote Jolly steht nur für einen Selbstlaut (A E I O U Y), der schwarze nur für einen Mitlaut; deine "
       "Bank hat {jollys} für {wanted}."),
    N_("Der rote Jolly steht nur für einen Selbstlaut (A E I O U Y), der schwarze nur für einen Mitlaut; die Bank "
       "hat {jollys} für {wanted}."))
BUY_COUNT = about_mover(
    N_("Kaufen kannst du 1 bis {top} Steine, nicht {n}."),
    N_("Kaufen kann man 1 bis {top} Steine, nicht {n}."))
#: The word rules in one sentence, added to a ``word`` verdict (seed 002).
WORD_RULES = verdict("word_rules", N_("Typ-Dom-Wortregeln: Zeitwörter nur in der Grundform, keine Familien-, "
                                      "Firmen- oder Markennamen; Orts- und Vornamen sind erlaubt."),
                     seen=Visibility.PUBLIC)
#: The directions as words, for verdicts.
DIRECTIONS = {"w": verdict("waagerecht", N_("waagerecht"), seen=Visibility.PUBLIC),
              "s": verdict("senkrecht", N_("senkrecht"), seen=Visibility.PUBLIC)}
#: Point-Typ-Dom: a purchase is 1 to 3 tiles (seed: "darf er 1 bis 3 Steine nach eigener Wahl kaufen").
MAX_BUY = {"kreuzwort": 1, "point": 3}



class WordList(Protocol):
    def __contains__(self, word: object) -> bool: ...



def _invalid(reason: str, v: Verdict, turn: Turn | None = None, notes: Iterable[Verdict] = ()) -> Outcome:
    """An invalid turn: ``v`` and ``notes`` are the mover's (nothing of a line that was not
    played is public)."""
    return Outcome(valid=False, turn=turn, reason=reason, verdict=as_mover(v), notes=[as_mover(n) for n in notes])


def _bad(code: str, msgid: str, **params: object) -> Verdict:
    """A verdict about a line to its mover (every parameter the mover's)."""
    return verdict(code, msgid, seen=Visibility.MOVER, **{k: v if isinstance(v, Param) else mover(v)
                                                          for k, v in params.items()})


def _note(code: str, msgid: str, **params: object) -> Verdict:
    """A note that names only the line and the table (public once the line is played)."""
    return verdict(code, msgid, seen=Visibility.PUBLIC, **params)


def _step(direction: str) -> tuple[int, int]:
    return (0, 1) if direction == "w" else (1, 0)


def _dir_name(direction: str) -> Verdict:
    return DIRECTIONS["w" if direction == "w" else "s"]


def _letters(table: Table, placed: dict, squares: list[tuple[int, int]]) -> str:
    return "".join(placed[s].letter if s in placed else table.get(*s).letter for s in squares)  # type: ignore[union-attr]


#: The token kinds of a tile laid now (``Token.placed``, without the property call).
_PLACED = frozenset(("new", "blank"))


def _count(s: str) -> dict[str, int]:
    """How often each character occurs in ``s`` (a Counter's counts, as a plain dict)."""
    out: dict[str, int] = {}
    for ch in s:
        out[ch] = out.get(ch, 0) + 1
    return out


def old_groups(placed: dict, squares: Sequence[tuple[int, int]]) -> int:
    """How many separate groups of table tiles the word on ``squares`` holds (2 or more:
    the placement joins words, NOTATION.md "Typ-Dom")."""
    groups, prev_old = 0, False
    for s in squares:
        old = s not in placed
        if old and not prev_old:
            groups += 1
        prev_old = old
    return groups


def _as_table(table: Table | Sequence[str]) -> Table:
    return table if isinstance(table, Table) else Table.from_rows(table)


def evaluate(table: Table | Sequence[str], rack: str, turn: Turn | str, lexicon: WordList,
             variant: str = "kreuzwort") -> Outcome:
    """Judge ``turn`` (a :class:`Turn` or a turn line) on ``table`` with ``rack``
    (letters, ``?`` red Jolly, ``#`` black Jolly) in ``variant`` (``"kreuzwort"`` or
    ``"point"``).

    Returns an :class:`Outcome`; never raises for a bad turn (an unreadable line gives
    reason ``syntax``). Checks in the order of the module docstring (seed 002; RULES.md,
    NOTATION.md and the conformance README, "Typ-Dom").
    """
    if not isinstance(table, Table):
        table = Table.from_rows(table)
    if variant not in VARIANTS:
        raise ValueError(f"variant={variant!r}")
    if isinstance(turn, str):
        try:
            turn = parse_turn(turn)
        except NotationError as exc:
            return _invalid("syntax", exc.verdict)
    notes: list[Verdict] = []
    have = _count(rack)

    # -- a purchase ------------------------------------------------------------------------
    if turn.buy is not None:  # (Turn.is_buy)
        n = turn.buy or 1
        top = MAX_BUY[variant]
        if variant == "kreuzwort" and n != 1:
            notes.append(_note("buy_one", N_("Im Kreuzwort-Spiel wird genau ein Stein gekauft.")))
            n = 1
        elif not 1 <= n <= top:
            return _invalid("syntax", _bad("syntax", BUY_COUNT,
                                           top=public(top), n=n), turn)
        return Outcome(valid=True, turn=turn, buy=n, buy_colour=turn.buy_colour, rack_after=sort_rack(rack),
                       notes=notes, notation=format_turn(Turn(buy=n, buy_colour=turn.buy_colour,
                                                              count_given=variant == "point")))

    placements = list(turn.placements)
    hints: list[Verdict] = []
    for p in placements:
        if not p.direction_given:
            hints.append(_note("direction", N_("{move}: ohne Richtung gelesen als waagerecht (Zahl zuerst).")
                               if p.number_first else
                               N_("{move}: ohne Richtung gelesen als senkrecht (Buchstabe zuerst)."),
                               move=format_placement(p, points=False)))

    # -- the Jolly taken first --------------------------------------------------------------
    base = table
    take: dict | None = None
    if turn.jolly is not None:
        jr, jc = turn.jolly
        jt = table.get(jr, jc)
        if jt is not None and jt.blank:
            take = {"row": jr, "col": jc, "coord": coord_name(jr, jc), "letter": jt.letter,
                    "jolly": jolly_for(jt.letter)}
            base = table.replace(jr, jc, Table.TILE(jt.letter, False))

    # -- lenient reading: an upper-case letter on its own letter is the table tile -------
    token_lists: list[list[Token]] = []
    squares_list: list[list[tuple[int, int]]] = []
    provisional: dict[tuple[int, int], str] = {}
    bgrid, n = base.grid, base.SIZE  # (squares read in place: base.get, inlined)

    def inside(r: int, c: int) -> bool:
        """Whether (r, c) (1-based) is a square of the table."""
        return 0 < r <= n and 0 < c <= n

    for p in placements:
        sq = p.squares()
        toks = list(p.tokens)
        for i, ((r, c), t) in enumerate(zip(sq, toks)):
            if t.kind not in _PLACED:
                continue
            tile = bgrid[r - 1][c - 1] if inside(r, c) else None
            letter_there = tile.letter if tile is not None else provisional.get((r, c))
            if letter_there is not None and letter_there == t.letter:
                toks[i] = Token("old", t.letter)
                notes.append(_note("table_tile", N_("Auf {coord} liegt schon {letter}: als Stein vom Tisch gelesen."),
                                   coord=coord_name(r, c), letter=t.letter))
        for (r, c), t in zip(sq, toks):
            if t.kind in _PLACED and inside(r, c) and bgrid[r - 1][c - 1] is None:
                provisional.setdefault((r, c), t.letter)  # type: ignore[arg-type]
        token_lists.append(toks)
        squares_list.append(sq)

    # -- rack -------------------------------------------------------------------------------
    # (counts in plain dicts: a missing key is 0, as in a Counter)
    pool = dict(have)
    need: dict[str, int] = {}
    if take is not None:
        need[take["letter"]] = 1
    for toks in token_lists:
        for t in toks:
            if t.kind == "new":
                need[t.letter] = need.get(t.letter, 0) + 1
            elif t.kind == "blank":
                need["*"] = need.get("*", 0) + 1
    if take is not None:
        pool[take["jolly"]] = pool.get(take["jolly"], 0) + 1
    jollys_have = pool.get(RED_JOLLY, 0) + pool.get(BLACK_JOLLY, 0)
    missing = {ch: k - pool.get(ch, 0) for ch, k in need.items() if ch != "*" and k > pool.get(ch, 0)}
    blanks_need = need.get("*", 0)
    if blanks_need > jollys_have:
        missing["*"] = blanks_need - jollys_have
    if missing:
        # the rack and what is missing are the mover's alone: this verdict is never public
        # (a line written to probe the rack learns nothing but "ungültig"; issue 31)
        shown = " ".join(ch * k for ch, k in sorted(missing.items()))
        held = rack or verdict("empty", N_("leer"), seen=Visibility.PUBLIC)
        if "*" not in missing and jollys_have > blanks_need:
            msg = _bad("rack", NOT_ON_RACK_JOLLY, rack=held, missing=shown)
        else:
            msg = _bad("rack", NOT_ON_RACK, rack=held, missing=shown)
        return _invalid("rack", msg, turn, notes + hints)

    # -- off-board --------------------------------------------------------------------------
    if turn.jolly is not None and not inside(*turn.jolly):
        return _invalid("off-board", _bad("off-board", N_("JOLLY {coord}: dieses Feld gibt es nicht (Spalten A-Y, "
                                                          "Zeilen 1-25)."), coord=coord_name(*turn.jolly)),
                        turn, notes + hints)
    for p, sq in zip(placements, squares_list):
        if sq and not (inside(*sq[0]) and inside(*sq[-1])):  # (a straight line: its ends)
            return _invalid("off-board", _bad("off-board", N_("Das Wort ab {coord} ({direction}) geht über den Rand "
                                                              "des Tisches hinaus (Spalten A-Y, Zeilen 1-25)."),
                                              coord=p.coord, direction=_dir_name(p.direction)), turn, notes + hints)

    # -- mismatch ---------------------------------------------------------------------------
    if turn.jolly is not None and take is None:
        jt = table.get(*turn.jolly)
        where = coord_name(*turn.jolly)
        there = (_bad("mismatch", N_("JOLLY {coord}: dort liegt kein Stein."), coord=where) if jt is None else
                 _bad("mismatch", N_("JOLLY {coord}: dort liegt {letter}, kein Jolly."), coord=where, letter=jt.letter))
        return _invalid("mismatch", there, turn, notes + hints)
    boards = []
    placed_list: list[dict[tuple[int, int], Tiled]] = []  # per placement: its tiles by square
    board = base
    last = len(token_lists) - 1
    for k, (toks, sq) in enumerate(zip(token_lists, squares_list)):
        boards.append(board)
        bgrid = board.grid
        for (r, c), t in zip(sq, toks):
            tile = bgrid[r - 1][c - 1]  # (on the table: the off-board check passed)
            if t.kind == "old" and (tile is None or tile.letter != t.letter):
                where = coord_name(r, c)
                if tile is None:
                    v = _bad("mismatch", N_("Auf {coord} liegt kein Stein, also auch kein {letter} (kleine Buchstaben "
                                            "stehen für Steine, die schon auf dem Tisch liegen)."),
                             coord=where, letter=t.letter)
                else:
                    v = _bad("mismatch", N_("Auf {coord} liegt {there}, nicht {letter} (kleine Buchstaben stehen für "
                                            "Steine, die schon auf dem Tisch liegen)."),
                             coord=where, there=tile.letter, letter=t.letter)
                return _invalid("mismatch", v, turn, notes + hints)
            if t.kind in _PLACED and tile is not None:
                return _invalid("mismatch", _bad("mismatch", N_("Auf {coord} liegt schon {there}; dort kann kein "
                                                                "{letter} gelegt werden."),
                                                 coord=coord_name(r, c), there=tile.letter, letter=t.letter),
                                turn, notes + hints)
            if t.kind == "empty" and tile is not None:
                return _invalid("mismatch", _bad("mismatch", N_("Auf {coord} liegt {there}; der Punkt steht für ein "
                                                                "leeres Feld."), coord=coord_name(r, c),
                                                 there=tile.letter), turn, notes + hints)
        placed = {(r, c): Tiled(r, c, t.letter, t.kind == "blank")  # type: ignore[arg-type]
                  for (r, c), t in zip(sq, toks) if t.kind in _PLACED}
        placed_list.append(placed)
        if k < last:  # (the table the next placement is read on; none after the last)
            board = board.place(placed.values())

    # -- gap --------------------------------------------------------------------------------
    for toks, sq in zip(token_lists, squares_list):
        gaps = [coord_name(r, c) for (r, c), t in zip(sq, toks) if t.kind == "empty"]
        if gaps:
            return _invalid("gap", _bad("gap", N_("Das Wort hat eine Lücke ({squares} bleibt leer).") if len(gaps) == 1
                                        else N_("Das Wort hat Lücken ({squares} bleiben leer)."),
                                        squares=", ".join(gaps)), turn, notes + hints)

    # -- jolly ------------------------------------------------------------------------------
    if take is not None and table.neighbours(take["row"], take["col"]) >= 3:
        return _invalid("jolly", _bad("jolly", N_("Der Jolly auf {coord} ist schon an drei Seiten verbaut und kann "
                                                  "nicht mehr getauscht werden."), coord=take["coord"]),
                        turn, notes + hints)
    blanks = [t.letter for toks in token_lists for t in toks if t.kind == "blank"]
    red_need = sum(1 for b in blanks if b in VOWELS)
    black_need = len(blanks) - red_need
    if red_need > pool.get(RED_JOLLY, 0) or black_need > pool.get(BLACK_JOLLY, 0):
        return _invalid("jolly", _bad("jolly", JOLLY_KIND,
                                      jollys=_jolly_words(Counter(pool)), wanted=", ".join("*" + b for b in blanks)),
                        turn, notes + hints)

    # -- lines ------------------------------------------------------------------------------
    lines = []
    for p, placed, sq, bd in zip(placements, placed_list, squares_list, boards):
        dr, dc = _step(p.direction)
        line = run(bd, placed, sq[0][0], sq[0][1], dr, dc)
        direction = p.direction
        if len(line) == 1 and placed:
            across = run(bd, placed, line[0][0], line[0][1], dc, dr)
            if len(across) > 1:
                line, (dr, dc) = across, (dc, dr)
                direction = "w" if direction == "s" else "s"
                notes.append(_note("across", N_("{move}: ein einzelner Stein, gelesen {direction}."),
                                   move=format_placement(p, points=False), direction=_dir_name(direction)))
        lines.append((p, placed, line, direction, (dr, dc), bd))

    # -- not-connected ----------------------------------------------------------------------
    for p, placed, line, direction, _, bd in lines:
        if any(s not in placed for s in line):
            continue  # (the word holds a tile of the table: not empty, and connected)
        if bd.is_empty():
            if CENTRE not in placed:
                return _invalid("not-connected", _bad("not-connected", N_("Das erste Wort muss das Mittelfeld M13 "
                                                                          "bedecken.")), turn, notes + hints)
        else:
            return _invalid("not-connected", _bad("not-connected", N_("{move} benutzt keinen Stein, der schon auf dem "
                                                                      "Tisch liegt: jedes Wort muss mindestens einen "
                                                                      "Buchstaben mit den Wörtern auf dem Tisch "
                                                                      "gemeinsam haben."),
                                                  move=format_placement(p, points=False)), turn, notes + hints)

    # -- no-tile ----------------------------------------------------------------------------
    for p, placed, *_ in lines:
        if not placed:
            return _invalid("no-tile", _bad("no-tile", N_("{move} legt keinen Stein: alle Buchstaben liegen schon auf "
                                                          "dem Tisch (neue Steine in Großbuchstaben schreiben)."),
                                            move=format_placement(p, points=False)), turn, notes + hints)

    # -- second -----------------------------------------------------------------------------
    joins = [old_groups(placed, line) >= 2 for _, placed, line, *_ in lines]
    if len(lines) > 2:
        return _invalid("second", _bad("second", N_("Mehr als zwei Wörter in einem Zug gibt es nicht.")), turn,
                        notes + hints)
    if len(lines) == 2 and not joins[0]:
        return _invalid("second", _bad("second", N_("Ein zweites Wort darf nur ansetzen, wer mit dem ersten "
                                                    "Buchstaben von zwei oder mehr Wörtern auf dem Tisch verbindet; "
                                                    "das erste Wort verbindet nicht.")), turn, notes + hints)

    # -- words ------------------------------------------------------------------------------
    laid: list[Laid] = []
    for (p, placed, line, direction, (dr, dc), bd), jn in zip(lines, joins):
        if len(line) > len(p.tokens):
            notes.append(_note("extended", N_("Geschrieben {written}; das Wort auf dem Tisch ist {word} "
                                              "({start}-{end}), es zählt das ganze Wort."),
                               written=tokens_text(p.tokens), word=_letters(bd, placed, line),
                               start=coord_name(*line[0]), end=coord_name(*line[-1])))
        if len(line) < 2:
            return _invalid("word", _bad("word", N_("Ein einzelner Buchstabe ist kein Wort.")), turn, notes + hints)
        # the word's letters, its value and its canonical notation in one pass (the
        # notation as format_placement writes a Placement of the line's tokens; every
        # square of the line is a tile laid now or a tile of the table, both on it)
        grid, n = bd.grid, bd.SIZE
        letters, written, score = [], [], 0
        for s in line:
            t = placed.get(s)
            if t is None:
                t = grid[s[0] - 1][s[1] - 1]
                written.append(t.letter.lower())
            else:
                written.append("*" + t.letter if t.blank else t.letter)
            letters.append(t.letter)
            if not t.blank:
                score += VALUES[t.letter]
        main = "".join(letters)
        contacts = []
        order = sorted(placed)
        for s in order:
            r, c = s[0] - 1, s[1] - 1  # (0-based; a contact word needs a tile beside s, across the word)
            if not ((0 <= r - dc and 0 <= c - dr and grid[r - dc][c - dr] is not None) or
                    (r + dc < n and c + dr < n and grid[r + dc][c + dr] is not None)):
                continue
            cl = run(bd, placed, s[0], s[1], dc, dr)
            if len(cl) >= 2:
                contacts.append(_letters(bd, placed, cl))
        words = [main] + contacts
        bad = [w for w in words if w not in lexicon]
        if bad:
            shown = ", ".join(dict.fromkeys(bad))
            one, only_main = len(set(bad)) == 1, bad == [main]
            if only_main:
                msgid = N_("{words} ist kein gültiges Wort. {rules}")
            elif one:
                msgid = N_("{words} ist kein gültiges Wort (wo sich die Steine berühren, muss überall ein Wort "
                           "entstehen). {rules}")
            else:
                msgid = N_("{words} sind keine gültigen Wörter (wo sich die Steine berühren, muss überall ein Wort "
                           "entstehen). {rules}")
            return _invalid("word", _bad("word", msgid, words=shown, rules=WORD_RULES), turn, notes + hints)
        if p.claimed is not None and p.claimed != score:
            notes.append(_note("claimed", N_("{word}: angegeben {claimed}, gezählt {score} Punkte.")
                               if score != 1 else N_("{word}: angegeben {claimed}, gezählt 1 Punkt."),
                               word=main, claimed=p.claimed, score=score))
        laid.append(Laid(f"{coord_name(*line[0])}{direction} {''.join(written)}", main, words,
                         [placed[s] for s in order], score, jn, line[0][0], line[0][1], direction))

    left = dict(have)
    if take is not None:
        left[take["letter"]] = left.get(take["letter"], 0) - 1
        left[take["jolly"]] = left.get(take["jolly"], 0) + 1
    for lp in laid:
        for t in lp.tiles:
            k = jolly_for(t.letter) if t.blank else t.letter
            left[k] = left.get(k, 0) - 1
    canon_turn = "; ".join(([f"JOLLY {take['coord']}"] if take else []) + [lp.notation for lp in laid])
    return Outcome(valid=True, turn=turn, laid=laid, jolly_take=take,
                   rack_after=sort_rack("".join(ch * k for ch, k in left.items() if k > 0)),
                   notes=notes, notation=canon_turn)


def _jolly_words(pool: Counter) -> Verdict:
    """The Jollys of a rack in words ("den roten Jolly und 2 schwarze Jollys"), the mover's."""
    parts = []
    if pool[RED_JOLLY]:
        parts.append(_bad("jollys", N_("den roten Jolly")) if pool[RED_JOLLY] == 1 else
                     _bad("jollys", N_("{n} rote Jollys"), n=pool[RED_JOLLY]))
    if pool[BLACK_JOLLY]:
        parts.append(_bad("jollys", N_("den schwarzen Jolly")) if pool[BLACK_JOLLY] == 1 else
                     _bad("jollys", N_("{n} schwarze Jollys"), n=pool[BLACK_JOLLY]))
    if len(parts) == 2:
        return _bad("jollys", N_("{first} und {second}"), first=parts[0], second=parts[1])
    return parts[0] if parts else _bad("jollys", N_("keinen Jolly"))


__all__ = ["VARIANTS", "MAX_BUY", "WORD_RULES", "DIRECTIONS", "evaluate", "old_groups"]

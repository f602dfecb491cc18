"""Monoscrabble move validation and scoring (pure).

Rule sources: seed 001 (Monoscrabble-Regeln: the board-game rules of Scrabble apply,
"Gewertet werden die Züge wie üblich", 50 extra points for a whole rack), read with
shared/RULES.md "Monoscrabble" (German Scrabble board and tiles, fixed; the first move
covers H8; premiums only under newly placed tiles; decision: the bingo of 50 points for
7 or more placed tiles) and shared/NOTATION.md "Monoscrabble" (the move notation and its
lenient readings). Reason codes are those of shared/conformance/README.md.

Check order. A move is checked in the order in which the conformance README lists the
codes, and the first rule it breaks is its reason:

``syntax`` -> ``rack`` -> ``off-board`` -> ``mismatch`` -> ``gap`` -> ``not-connected``
-> ``no-tile`` -> ``word``.

- ``syntax``: the line cannot be read (:func:`~bot.games.monoscrabble.notation.parse_move`).
- ``rack``: the tiles written as placed now (upper case, ``*X``; after the lenient
  reading below) are not all in the Vorgabe; a ``*X`` needs a ``?``.
- ``off-board``: a written square lies outside A1-O15.
- ``mismatch``: a lower-case letter on a square that does not hold that letter; an
  upper-case letter (or ``*X``) on a square holding another letter; a ``.`` on an
  occupied square.
- ``gap``: the word has an empty square inside (written ``.``, or, for
  :func:`evaluate_tiles`, placed tiles with an empty square between them or not in one
  row or column).
- ``not-connected``: on an empty board the move does not cover the centre H8; otherwise
  it neither uses a tile on the board nor places a tile next to one.
- ``no-tile``: the move places nothing (every letter written is already on the board).
- ``word``: the main word or a cross word is not in the lexicon (a lone letter is no word).

Lenient readings (NOTATION.md), each reported as a note and never a failure:
- an upper-case letter (or ``*X``) on a square that already holds that letter is read
  as the tile on the board;
- a WORD that is only part of the word the move forms (``K8w DE`` after SPIELEN on
  D8-J8) places its tiles where written; the main word is extended in its direction
  over the adjacent board tiles at both ends and the whole word (SPIELENDE) is scored;
- a single placed tile that forms no word in the written direction but one across it:
  that word is the main word;
- ``+WORD`` words and claimed points are compared with what the bot computes; a
  difference is a note.

``PASSE`` (decision): a deliberate pass is a valid move of 0 points that places nothing;
it is reported as "gepasst", counts as the player's move (so no Ersatzzug after it is
tried) and never goes on the board.

Scoring ("wie üblich", standard Scrabble): every word the move forms (the main word and
each cross word through a newly placed tile) scores the values of its tiles, a Blanko 0;
letter and word premiums count only on squares of newly placed tiles (a cross word gets
the premium of its new tile's square); plus 50 when 7 or more tiles are placed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field as dc_field
from typing import Any, Iterable, Protocol, Sequence

from bot.games.base import NotationError
from bot.games.verdict import N_, Verdict, VerdictText, Visibility, verdict
from bot.games.verdict import PLURALS as _P
from bot.games.monoscrabble.board import (CENTRE, Board, Placement, coord_name, on_board, premium)
from bot.games.monoscrabble.notation import Move, Token, format_move, parse_move, tokens_text, tokens_word
from bot.games.monoscrabble.tiles import BINGO_BONUS, BINGO_TILES, BLANK, parse_rack

#: Reason codes (shared/conformance/README.md), in checking order, with a German gloss
#: (a msgid: ``texts(lang).gettext(REASONS[code])``).
REASONS: dict[str, str] = {
    "syntax": N_("nicht lesbar"),
    "rack": N_("Steine nicht in der Vorgabe"),
    "off-board": N_("außerhalb des Bretts"),
    "mismatch": N_("passt nicht zum Brett"),
    "gap": N_("Lücke im Wort"),
    "not-connected": N_("nicht angelegt"),
    "no-tile": N_("kein Stein gelegt"),
    "word": N_("kein gültiges Wort"),
}


def _pub(code: str, msgid: str, **params: Any) -> Verdict:
    """A Monoscrabble verdict: the game has no private state (the Vorgabe and the board
    are everybody's, seed 001), so every verdict and parameter is public."""
    return verdict(code, msgid, seen=Visibility.PUBLIC, **params)


_SCORED = _P.ngettext("{word}: {n} Punkt", "{word}: {n} Punkte")
_SCORED_BINGO = _P.ngettext("{word}: {n} Punkt (mit {bonus} Extrapunkten)", "{word}: {n} Punkte (mit {bonus} Extrapunkten)")


class WordList(Protocol):
    def __contains__(self, word: object) -> bool: ...
    def has_prefix(self, prefix: str) -> bool: ...


@dataclass
class Outcome(VerdictText):
    """The judgement of one move.

    Valid: ``score`` (total points, bingo included), ``tiles`` (number of tiles placed),
    ``words`` (the main word first, then the cross words, upper case), ``placements``
    (the tiles placed), ``row``/``col``/``direction`` (start and direction of the whole
    main word), ``notation`` (the canonical notation of the whole main word,
    e.g. ``D8w spielenDE``), ``bingo``. Not valid: ``reason`` (a code of
    :data:`REASONS`). ``verdict`` says what the rules made of the move and ``notes``
    are remarks that never change the outcome (lenient readings, ``+WORD``
    differences, claimed points), as public :class:`~bot.games.verdict.Verdict` values
    (:mod:`bot.games.verdict`; ``message`` and ``note_texts`` their German text).
    ``passe`` marks a pass (valid, 0 points, nothing placed).
    """

    valid: bool
    move: Move | None = None
    score: int | None = None
    tiles: int = 0
    words: list[str] = dc_field(default_factory=list)
    placements: list[Placement] = dc_field(default_factory=list)
    reason: str | None = None
    verdict: Verdict | None = None
    notes: list[Verdict] = dc_field(default_factory=list)
    row: int | None = None
    col: int | None = None
    direction: str | None = None
    notation: str = ""
    full_notation: str = ""
    bingo: bool = False
    passe: bool = False


    @property
    def word(self) -> str:
        """The main word ("" for a pass or an invalid move)."""
        return self.words[0] if self.words else ""

    def apply(self, board: Board) -> Board:
        """The board after this move (unchanged for a pass)."""
        return board.place(self.placements)

    def placements_json(self) -> list[list]:
        return [p.to_json() for p in self.placements]


def _invalid(reason: str, why: Verdict, move: Move | None = None, notes: Iterable[Verdict] = ()) -> Outcome:
    return Outcome(valid=False, move=move, reason=reason, verdict=why, notes=list(notes))


def _as_board(board: Board | Sequence[str]) -> Board:
    return board if isinstance(board, Board) else Board.from_rows(board)


def _step(direction: str) -> tuple[int, int]:
    return (0, 1) if direction == "w" else (1, 0)


def _line(board: Board, placed: dict[tuple[int, int], Placement], r: int, c: int,
          dr: int, dc: int) -> list[tuple[int, int]]:
    """The squares of the word through (r, c) in direction (dr, dc): the run of
    occupied squares (board tiles and ``placed``) around it."""
    def filled(rr: int, cc: int) -> bool:
        return (rr, cc) in placed or board.get(rr, cc) is not None
    sr, sc = r, c
    while filled(sr - dr, sc - dc):
        sr, sc = sr - dr, sc - dc
    out = []
    rr, cc = sr, sc
    while filled(rr, cc):
        out.append((rr, cc))
        rr, cc = rr + dr, cc + dc
    return out


def _letters(board: Board, placed: dict[tuple[int, int], Placement], squares: list[tuple[int, int]]) -> str:
    return "".join(placed[s].letter if s in placed else board.get(*s).letter for s in squares)  # type: ignore[union-attr]


def _tokens(board: Board, placed: dict[tuple[int, int], Placement], squares: list[tuple[int, int]]) -> tuple[Token, ...]:
    out = []
    for s in squares:
        if s in placed:
            p = placed[s]
            out.append(Token("blank" if p.blank else "new", p.letter))
        else:
            out.append(Token("old", board.get(*s).letter))  # type: ignore[union-attr]
    return tuple(out)


def score_word(board: Board, placed: dict[tuple[int, int], Placement], squares: list[tuple[int, int]]) -> int:
    """Points of one word: tile values (Blanko 0), letter and word premiums only under
    newly placed tiles (standard Scrabble; RULES.md "Monoscrabble")."""
    total, word_mult = 0, 1
    for s in squares:
        if s in placed:
            lm, wm = premium(*s)
            total += placed[s].tile.value * lm
            word_mult *= wm
        else:
            total += board.get(*s).value  # type: ignore[union-attr]
    return total * word_mult


def evaluate(board: Board | Sequence[str], rack: str, move: Move | str | NotationError,
             lexicon: WordList) -> Outcome:
    """Judge ``move`` (a :class:`Move`, a move line, or the :class:`NotationError` reading
    the line gave) on ``board`` with the Vorgabe ``rack``.

    Returns an :class:`Outcome`; never raises for a bad move (an unreadable line gives
    reason ``syntax``). Checks in the order of the module docstring (seed 001;
    RULES.md and NOTATION.md "Monoscrabble"; conformance README reason codes).
    """
    board = _as_board(board)
    if isinstance(move, str):
        try:
            move = parse_move(move)
        except NotationError as exc:
            return _invalid("syntax", exc.verdict)
    elif isinstance(move, NotationError):
        return _invalid("syntax", move.verdict)
    have = Counter(parse_rack(rack))

    if move.passe:
        notes = []
        if move.claimed not in (None, 0):
            notes.append(_pub("claimed", N_("Angegeben {claimed} Punkte, gezählt 0 Punkte (gepasst)."),
                              claimed=move.claimed))
        return Outcome(valid=True, move=move, score=0, tiles=0, verdict=_pub("passe", N_("gepasst")), notes=notes,
                       notation="PASSE", full_notation="PASSE", passe=True)

    notes: list[Verdict] = []
    hints: list[Verdict] = []  # shown with an invalid move only
    if not move.direction_given:
        hints.append(_pub("direction", N_("Ohne Richtung gelesen als waagerecht (Zahl zuerst).")) if move.number_first
                     else _pub("direction", N_("Ohne Richtung gelesen als senkrecht (Buchstabe zuerst).")))

    squares = move.squares()
    tokens = list(move.tokens)
    # -- lenient reading: an upper-case letter on its own letter is the board tile ------
    for i, ((r, c), t) in enumerate(zip(squares, tokens)):
        tile = board.get(r, c)
        if t.placed and tile is not None and tile.letter == t.letter:
            tokens[i] = Token("old", t.letter)
            if tile.blank:
                notes.append(_pub("lenient", N_("Auf {square} liegt schon ein Blanko als {letter}: als Stein vom "
                                                "Brett gelesen."), square=coord_name(r, c), letter=t.letter))
            else:
                notes.append(_pub("lenient", N_("Auf {square} liegt schon {letter}: als Stein vom Brett gelesen."),
                                  square=coord_name(r, c), letter=t.letter))

    # -- rack -----------------------------------------------------------------------------
    need = Counter(t.letter if t.kind == "new" else BLANK for t in tokens if t.placed)
    missing = need - have
    if missing:
        shown = " ".join(ch * n for ch, n in sorted(missing.items()))
        if BLANK not in missing and have[BLANK] > need[BLANK]:
            msg = _pub("rack", N_("Nicht in der Vorgabe {rack}: {missing}. Ein Blanko wird mit Stern geschrieben, "
                                  "z. B. *H."), rack=rack, missing=shown)
        else:
            msg = _pub("rack", N_("Nicht in der Vorgabe {rack}: {missing}."), rack=rack, missing=shown)
        return _invalid("rack", msg, move, notes + hints)

    # -- off-board ------------------------------------------------------------------------
    off = [(r, c) for r, c in squares if not on_board(r, c)]
    if off:
        if move.direction == "w":
            why = _pub("off-board", N_("Das Wort ab {coord} (waagerecht) geht über den Rand des Bretts hinaus "
                                       "(Spalten A-O, Zeilen 1-15)."), coord=move.coord)
        else:
            why = _pub("off-board", N_("Das Wort ab {coord} (senkrecht) geht über den Rand des Bretts hinaus "
                                       "(Spalten A-O, Zeilen 1-15)."), coord=move.coord)
        return _invalid("off-board", why, move, notes + hints)

    # -- mismatch -------------------------------------------------------------------------
    for (r, c), t in zip(squares, tokens):
        tile = board.get(r, c)
        where = coord_name(r, c)
        if t.kind == "old" and tile is None:
            return _invalid("mismatch", _pub("mismatch", N_("{square} ist leer, nicht {letter} (kleine Buchstaben "
                                                            "stehen für Steine, die schon auf dem Brett liegen)."),
                                             square=where, letter=t.letter), move, notes + hints)
        if t.kind == "old" and tile is not None and tile.letter != t.letter:
            return _invalid("mismatch", _pub("mismatch", N_("Auf {square} liegt {tile}, nicht {letter} (kleine "
                                                            "Buchstaben stehen für Steine, die schon auf dem Brett "
                                                            "liegen)."), square=where, tile=tile.letter,
                                             letter=t.letter), move, notes + hints)
        if t.placed and tile is not None:
            return _invalid("mismatch", _pub("mismatch", N_("Auf {square} liegt schon {tile}; dort kann kein {letter} "
                                                            "gelegt werden."), square=where, tile=tile.letter,
                                             letter=t.letter), move, notes + hints)
        if t.kind == "empty" and tile is not None:
            return _invalid("mismatch", _pub("mismatch", N_("Auf {square} liegt {tile}; der Punkt steht für ein "
                                                            "leeres Feld."), square=where, tile=tile.letter),
                            move, notes + hints)

    # -- gap ------------------------------------------------------------------------------
    gaps = [coord_name(r, c) for (r, c), t in zip(squares, tokens) if t.kind == "empty"]
    if gaps:
        return _invalid("gap", _pub("gap", N_("Das Wort hat eine Lücke ({squares} bleibt leer)."),
                                    squares=", ".join(gaps)), move, notes + hints)

    placed: dict[tuple[int, int], Placement] = {
        (r, c): Placement(r, c, t.letter, t.kind == "blank")  # type: ignore[arg-type]
        for (r, c), t in zip(squares, tokens) if t.placed}

    # -- not-connected --------------------------------------------------------------------
    dr, dc = _step(move.direction)
    line = _line(board, placed, squares[0][0], squares[0][1], dr, dc)  # every written square is filled now
    if board.is_empty():
        if CENTRE not in placed:
            return _invalid("not-connected", _pub("not-connected", N_("Der erste Zug muss das Mittelfeld H8 "
                                                                      "bedecken.")), move, notes + hints)
    else:
        uses_board = any(t.kind == "old" for t in tokens) or len(line) > len(squares)
        touches = any(board.get(r + a, c + b) is not None for (r, c) in placed
                      for a, b in ((1, 0), (-1, 0), (0, 1), (0, -1)))
        if not (uses_board or touches):
            return _invalid("not-connected", _pub("not-connected", N_(
                "Das Wort berührt keinen Stein auf dem Brett: es muss an ein Wort angelegt werden oder einen Stein "
                "des Bretts benutzen.")), move, notes + hints)

    # -- no-tile --------------------------------------------------------------------------
    if not placed:
        return _invalid("no-tile", _pub("no-tile", N_("Der Zug legt keinen Stein: alle Buchstaben liegen schon auf "
                                                      "dem Brett (neue Steine in Großbuchstaben schreiben).")),
                        move, notes + hints)

    # -- words ----------------------------------------------------------------------------
    direction = move.direction
    if len(line) > len(squares):
        # lenient reading: only part of the word formed was written
        first, last = line[0], line[-1]
        notes.append(_pub("lenient", N_("Geschrieben {written}; der Zug bildet {word} ({start}-{end}), gewertet "
                                        "wird das ganze Wort."), written=move.text,
                          word=_letters(board, placed, line), start=coord_name(*first), end=coord_name(*last)))
    if len(line) == 1:
        odr, odc = dc, dr
        across = _line(board, placed, line[0][0], line[0][1], odr, odc)
        if len(across) < 2:
            return _invalid("word", _pub("word", N_("Ein einzelner Buchstabe ist kein Wort.")), move, notes + hints)
        line, (dr, dc) = across, (odr, odc)
        direction = "w" if direction == "s" else "s"
    main_word = _letters(board, placed, line)
    cross_lines = []
    for (r, c) in sorted(placed):
        cl = _line(board, placed, r, c, dc, dr)
        if len(cl) >= 2:
            cross_lines.append(cl)
    words = [main_word] + [_letters(board, placed, cl) for cl in cross_lines]
    bad = [w for w in words if w not in lexicon]
    if bad:
        shown = ", ".join(dict.fromkeys(bad))
        if len(set(bad)) == 1:
            why = _pub("word", N_("{words} ist kein gültiges Wort."), words=shown)
        else:
            why = _pub("word", N_("{words} sind keine gültigen Wörter."), words=shown)
        return _invalid("word", why, move, notes + hints)

    # -- score ----------------------------------------------------------------------------
    score = score_word(board, placed, line) + sum(score_word(board, placed, cl) for cl in cross_lines)
    bingo = len(placed) >= BINGO_TILES
    if bingo:
        score += BINGO_BONUS

    canon = Move(line[0][0], line[0][1], direction, _tokens(board, placed, line))  # type: ignore[arg-type]
    full = Move(canon.row, canon.col, canon.direction, canon.tokens,
                tuple(_tokens(board, placed, cl) for cl in cross_lines))

    # -- notes: +WORD and claimed points --------------------------------------------------
    if move.extras:
        listed = [tokens_word(x) for x in move.extras]
        formed = Counter(words[1:])
        for w in listed:
            if formed[w] > 0:
                formed[w] -= 1
            elif w != main_word:
                notes.append(_pub("extra", N_("+{word}: dieses Wort bildet der Zug nicht."), word=w))
        rest = sorted(formed.elements())
        if rest:
            notes.append(_pub("extra", N_("Der Zug bildet außerdem: {words}."), words=", ".join(rest)))
    if move.claimed is not None and move.claimed != score:
        notes.append(_pub("claimed", N_("Angegeben {claimed} Punkte, gezählt {score} Punkte."),
                          claimed=move.claimed, score=score))

    forms = _SCORED_BINGO if bingo else _SCORED
    msg = verdict("scored", forms[0], plural=forms[1], seen=Visibility.PUBLIC, word=main_word, n=score,
                  **({"bonus": BINGO_BONUS} if bingo else {}))
    return Outcome(valid=True, move=move, score=score, tiles=len(placed), words=words,
                   placements=[placed[s] for s in sorted(placed, key=lambda s: (s[0], s[1]))],
                   verdict=msg, notes=notes, row=canon.row, col=canon.col, direction=direction,
                   notation=format_move(canon), full_notation=format_move(full), bingo=bingo)


def move_from_tiles(board: Board | Sequence[str], tiles: Iterable[Any], direction: str | None = None) -> Move:
    """A :class:`Move` from placed tiles, each a :class:`Placement` or a
    ``(row, col, letter, is_blank)`` tuple: the squares from the first to the last tile,
    board tiles as lower case, empty squares between them as ``.`` (a gap).
    A single tile is read in ``direction`` if given, else in the direction in which it
    touches a board tile (waagerecht if both or neither). ValueError when the tiles are
    not in one row or column, or none.
    """
    board = _as_board(board)
    ps = [t if isinstance(t, Placement) else Placement(int(t[0]), int(t[1]), str(t[2]).upper(), bool(t[3]))
          for t in tiles]
    if not ps:
        raise ValueError("keine Steine")
    rows = {p.row for p in ps}
    cols = {p.col for p in ps}
    if len(ps) == 1 and direction in ("w", "s"):
        pass
    elif len(ps) == 1:
        p = ps[0]
        horiz = board.get(p.row, p.col - 1) is not None or board.get(p.row, p.col + 1) is not None
        vert = board.get(p.row - 1, p.col) is not None or board.get(p.row + 1, p.col) is not None
        direction = "s" if vert and not horiz else "w"
    elif len(rows) == 1:
        direction = "w"
    elif len(cols) == 1:
        direction = "s"
    else:
        raise ValueError("die Steine liegen nicht in einer Reihe oder Spalte")
    by_sq = {(p.row, p.col): p for p in ps}
    if len(by_sq) != len(ps):
        raise ValueError("zwei Steine auf einem Feld")
    dr, dc = _step(direction)
    r0, c0 = min(by_sq)
    r1, c1 = max(by_sq)
    toks = []
    r, c = r0, c0
    while (r, c) <= (r1, c1):
        if (r, c) in by_sq:
            p = by_sq[(r, c)]
            toks.append(Token("blank" if p.blank else "new", p.letter))
        elif board.get(r, c) is not None:
            toks.append(Token("old", board.get(r, c).letter))  # type: ignore[union-attr]
        else:
            toks.append(Token("empty"))
        r, c = r + dr, c + dc
    return Move(r0, c0, direction, tuple(toks))  # type: ignore[arg-type]


def canonical_move(board: Board | Sequence[str], tiles: Iterable[Any], direction: str | None = None) -> Move:
    """The canonical :class:`Move` of placed tiles without judging it: the whole main word
    (extended over adjacent board tiles at both ends) from its first square, board tiles
    in lower case, a Blanko as ``*X``; a single tile that forms no word in its direction
    is written across. Gaps stay (``.``). ValueError as :func:`move_from_tiles`."""
    board = _as_board(board)
    m = move_from_tiles(board, tiles, direction)
    if any(t.kind == "empty" for t in m.tokens):
        return m
    placed = {(r, c): Placement(r, c, t.letter, t.kind == "blank")  # type: ignore[arg-type]
              for (r, c), t in zip(m.squares(), m.tokens) if t.placed}
    dr, dc = _step(m.direction)
    line = _line(board, placed, m.row, m.col, dr, dc)
    d = m.direction
    if len(line) == 1:
        across = _line(board, placed, m.row, m.col, dc, dr)
        if len(across) > 1:
            line, d = across, ("w" if d == "s" else "s")
    return Move(line[0][0], line[0][1], d, _tokens(board, placed, line))  # type: ignore[arg-type]


def evaluate_tiles(board: Board | Sequence[str], rack: str, tiles: Iterable[Any], lexicon: WordList,
                   direction: str | None = None) -> Outcome:
    """Judge a move given as placed tiles (e.g. from a move generator) like :func:`evaluate`;
    tiles not in one row or column give ``gap``, no tiles ``no-tile``. ``direction``
    only matters for a single tile."""
    board = _as_board(board)
    tiles = list(tiles)
    if not tiles:
        return _invalid("no-tile", _pub("no-tile", N_("Der Zug legt keinen Stein.")))
    try:
        move = move_from_tiles(board, tiles, direction)
    except ValueError:
        return _invalid("gap", _pub("gap", N_("Die Steine bilden kein zusammenhängendes Wort.")))
    return evaluate(board, rack, move, lexicon)


__all__ = ["REASONS", "Outcome", "evaluate", "evaluate_tiles", "move_from_tiles", "canonical_move", "score_word", "tokens_text"]

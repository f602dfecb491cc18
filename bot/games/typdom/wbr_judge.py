"""Typ-Dom "Wer behält recht?": a turn judged against the table and the rack (pure).

Rule sources: seed 002, "4. Wer behält recht?" (quoted below; the kinds of turn are in
:mod:`.wbr`), with the Kreuzwort-Spiel's tiles, Jolly rules and word rules; shared/RULES.md
and shared/NOTATION.md "Typ-Dom".

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
:class:`~.wbr_outcome.Outcome` carries a verdict for the mover (code = the reason, parameters
typed by who may see them: the rack, the letters written); a valid one's
:meth:`~.wbr_outcome.Outcome.summary` is a
public verdict. Nothing here writes a sentence; others learn of a line that was not played
only that it failed (the turn record's ``failed``: indexes).

Decisions where the seed is silent (also in docs/rules/typdom-wbr.md):

- Premiums: a square is a 2 x 2 block of tiles that the first tile completes; "crosses
  in a vowel" is read as: the first tile makes the fragment take in a vowel tile of
  another word (starting a word across a vowel, or growing onto one); one premium tile
  per turn at most, laid at an end of the fragment in the same direction, and none once
  the word is finished.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

from bot.games.base import NotationError
from bot.games.grid import run
from bot.games.typdom.table import CENTRE, Table, coord_name
from bot.games.typdom.tiles import BLACK_JOLLY, JOLLYS, RED_JOLLY, VOWELS, jolly_for, sort_rack
from bot.games.typdom.wbr_fit import STEPS, WordList, contact, cover, fits, letters_on, span_of, squares_of
from bot.games.typdom.wbr_notation import WbrTurn, format_turn, parse_turn
from bot.games.typdom.wbr_outcome import Outcome
from bot.games.verdict import N_, Verdict, Visibility, about_mover, verdict

__all__ = ["REASONS", "evaluate"]

# What the game master's copy reads instead of the sentences written to the mover
# (bot.games.verdict.about_mover).
NOT_ON_RACK = about_mover(
    N_("Nicht auf deiner Bank ({rack}): {missing}."),
    N_("Nicht auf der Bank ({rack}): {missing}."))
DUTY_FINISH = about_mover(
    N_("Dein Wort {word} ist eine Runde lang unverändert geblieben: du musst es jetzt vollenden "
       "('FERTIG {word}')."),
    N_("Das angesagte Wort {word} ist eine Runde lang unverändert geblieben: es muss jetzt vollendet werden "
       "('FERTIG {word}')."))
FINISH_OWN_ONLY = about_mover(
    N_("FERTIG gibt es nur für dein eigenes angesagtes Wort, wenn es eine Runde lang unverändert geblieben ist."),
    N_("FERTIG gibt es nur für das eigene angesagte Wort, wenn es eine Runde lang unverändert geblieben ist."))
SWAP_FIRST = about_mover(
    N_("Einen Jolly tauschen kannst du nur, wenn du danach anlegst."),
    N_("Einen Jolly tauschen kann man nur, wenn man danach anlegt."))
BOUGHT = about_mover(
    N_("Du hast schon gekauft: leg jetzt einen Stein an oder schreib PASSE."),
    N_("Schon gekauft: jetzt muss ein Stein angelegt werden, sonst PASSE."))
POOL_EMPTY = about_mover(
    N_("Der Vorrat ist leer: du kannst nichts kaufen und passt."),
    N_("Der Vorrat ist leer: es gibt nichts zu kaufen, also gilt PASSE."))
PASS_AFTER_BUYING = about_mover(
    N_("Passen kannst du erst, wenn du gekauft hast (KAUFEN) oder der Vorrat leer ist."),
    N_("Passen kann man erst nach dem Kaufen (KAUFEN) oder wenn der Vorrat leer ist."))
JOLLY_LETTER = about_mover(
    N_("Für den Jolly auf {coord} musst du ein {letter} legen; das hast du nicht."),
    N_("Für den Jolly auf {coord} muss ein {letter} gelegt werden; das ist nicht auf der Bank."))
MISSING_FOR = about_mover(
    N_("Für {word} fehlen dir Steine: {missing}."),
    N_("Für {word} fehlen Steine auf der Bank: {missing}."))
JOLLY_TAKEN = about_mover(
    N_("{letter} auf {coord}: dafür nimmt der Bot deinen Jolly."),
    N_("{letter} auf {coord}: dafür nimmt der Bot den Jolly von der Bank."))
FINISH_WHICH = about_mover(
    N_("Vollenden musst du dein angesagtes Wort {word}, nicht {written}."),
    N_("Vollendet werden muss das angesagte Wort {word}, nicht {written}."))

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
_PUBLIC = Visibility.PUBLIC
_EMPTY = verdict("empty", N_("leer"))


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
        return _invalid("duty", _say("duty", DUTY_FINISH, word=word['announced']))
    if turn.kind == "fertig" and duty != "complete":
        return _invalid("duty", _say("duty", FINISH_OWN_ONLY))
    swap_first = _say("duty", SWAP_FIRST)
    if turn.kind == "kaufen":
        if duty == "after_buy":
            return _invalid("duty", _say("duty", BOUGHT))
        if turn.take:
            return _invalid("duty", swap_first)
        if not pool:
            notes.append(_say("pool", POOL_EMPTY))
            return Outcome(True, "passe", notes=notes, rack_after=rack, notation="PASSE")
        return Outcome(True, "kaufen", colour=turn.colour, rack_after=rack, notation=format_turn(turn))
    if turn.kind == "passe":
        if duty != "after_buy" and pool:
            return _invalid("duty", _say("duty", PASS_AFTER_BUYING))
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
                return _invalid("rack", _say("rack", JOLLY_LETTER, coord=coord_name(jr, jc), letter=jt.letter))
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
        return _invalid("rack", _say("rack", NOT_ON_RACK,
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
            csq = set(squares_of(cross.get("squares", [])))
            cd = cross.get("direction")
            hits = [d for (q, d) in _neighbours(first.row, first.col) if q in csq and (cd is None or d != cd)]
            if not hits:
                span = span_of(squares_of(cross.get('squares', [])))
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
        frag0 = squares_of(word["squares"])
        direction = word.get("direction")
        ends = []
        for d in ([direction] if direction else ["w", "s"]):
            dr, dc = STEPS[d]
            ends += [((frag0[0][0] - dr, frag0[0][1] - dc), d), ((frag0[-1][0] + dr, frag0[-1][1] + dc), d)]
        hit = [d for q, d in ends if q == (first.row, first.col)]
        if not hit:
            return _invalid("position", _say("position", N_("{coord} liegt nicht an einem Ende des Wortteils {part} "
                                                            "({span}); angelegt wird vorne oder hinten."),
                                             coord=first.coord, part=letters_on(board, frag0), span=span_of(frag0)))
        direction = hit[0]

    placed = {(first.row, first.col): first.letter}
    dr, dc = STEPS[direction] if direction else (0, 1)
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
            sr, sc = STEPS[sdir]
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
        if named and letters_on(after1, frag1) == named and direction is not None:
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
        dr, dc = STEPS[direction]
        frag = run(after, {}, first.row, first.col, dr, dc)
    text = letters_on(after, frag)
    if not named:
        return _invalid("fragment", _say("fragment", N_("Sag ein Wort an, das {part} enthält (z. B. '{example} "
                                                        "WORT')."), part=text,
                                         example=f"{first.coord} {'*' if first.jolly else ''}{first.letter}"))
    if text not in named:
        return _invalid("fragment", _say("fragment", N_("{word} enthält den Wortteil {part} ({span}) nicht in einem "
                                                        "Stück."), word=named, part=text, span=span_of(frag)))

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
            cw = contact(board.place([x for x in tiles if x != t]), t.row, t.col, t.letter, d)
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
        return _invalid("fragment", _say("fragment", FINISH_WHICH, word=named, written=turn.word or ""))
    board = table if take is None else table.replace(take["row"], take["col"], Table.TILE(take["letter"], False))
    ways, why = fits(board, squares_of(word["squares"]), word.get("direction"), named, lexicon)
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
        got = cover(f.missing, rack, marked)
        if got is not None:
            best = (f, got)
            break
    if best is None:
        need = Counter(letter for _, _, letter in ways[0].missing)
        lack = need - Counter({k: v for k, v in have.items() if k not in JOLLYS})
        return _invalid("rack", _say("rack", MISSING_FOR, word=named,
                                     missing=" ".join(sorted(lack.elements())) or verdict("tile", N_("Jolly"))))
    f, (tiles, left) = best
    for t in tiles:
        if t.blank and f.squares.index((t.row, t.col)) not in turn.jollys:
            notes.append(_say("jolly_taken", JOLLY_TAKEN,
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
        cw = contact(board, t.row, t.col, t.letter, f.direction)
        if cw is not None:
            contacts.append(cw)
    canon = WbrTurn("fertig", word=named, jollys=tuple(f.squares.index((t.row, t.col)) for t in tiles if t.blank),
                    at=(f.squares[0][0], f.squares[0][1], f.direction), take=turn.take)
    return Outcome(True, "fertig", notes=notes, tiles=tiles, take=take, fragment=list(f.squares),
                   direction=f.direction, announced=named, author=word["author"], completed=True, contacts=contacts,
                   rack_after=sort_rack((+left).elements()), notation=format_turn(canon))

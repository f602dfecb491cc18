"""Rondo move validation and scoring (pure).

Rule source: seed 000 (Rondo-Postspielregel) sections II.1-II.3, read with
shared/RULES.md ("Rondo"). Reason codes and their order follow
shared/conformance/README.md; a move is checked in that order and the first
rule it breaks is its reason:

``syntax`` -> ``position`` -> ``vorgabe`` -> ``unchanged`` -> ``no-old-letter``
-> ``extension`` -> ``loescher`` -> ``too-short`` -> ``word``.

Readings where the texts are silent (documented in docs/rules/rondo.md):
- an old Joker counts as a letter card of the old Auslage for ``no-old-letter``
  (RULES.md: "a placed Joker keeps its letter"; NOTATION.md writes it like any old letter);
- ``unchanged`` means the new word equals the old word letter for letter (so
  TORE -> TOR by a Loescher is a change, MOND -> MOND by stacking is not);
- an empty Auslage (round 1, or no word was ever placed) takes a 3-letter word on
  fields 4-6; a longer word there is ``extension``, a shorter one ``too-short``.

The move search (every valid move of a position, the best ones) is :mod:`.movegen`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field as dc_field
from typing import Protocol

from bot.games.base import NotationError
from bot.games.rondo.cards import (FIELDS, LETTER_VALUES, LOESCHER_VALUE, JOKER_VALUE, MIDDLE, Card, Row,
                                   Vorgabe)
from bot.games.rondo.notation import Move, Token, format_move, parse_move
from bot.games.verdict import N_, Verdict, VerdictText, Visibility, verdict

#: Reason codes (shared/conformance/README.md) with their German gloss (a gettext msgid).
REASONS: dict[str, str] = {
    "syntax": N_("nicht lesbar"),
    "position": N_("Lage unklar"),
    "vorgabe": N_("Karten nicht in der Vorgabe"),
    "unchanged": N_("Wort unverändert"),
    "no-old-letter": N_("keine alte Buchstabenkarte bleibt liegen"),
    "extension": N_("Auslage zu stark verlängert"),
    "loescher": N_("Löscher nicht erlaubt"),
    "too-short": N_("Wort zu kurz"),
    "word": N_("kein gültiges Wort"),
}

BONUS_PER_CARD = 3  # seed 000 II.3 a): 3 points for the third and every further new card
MIN_WORD = 3


class WordList(Protocol):
    def __contains__(self, word: object) -> bool: ...
    def has_prefix(self, prefix: str) -> bool: ...


@dataclass(frozen=True)
class Position:
    """What a move is played against: the Auslage, the Vorgabe and the round number."""

    row: Row
    vorgabe: Vorgabe
    round: int = 2

    @classmethod
    def from_codes(cls, row: str, vorgabe: str, round: int = 2) -> "Position":
        return cls(Row.from_code(row), Vorgabe.parse(vorgabe), round)


@dataclass
class Outcome(VerdictText):
    """The judgement of one move.

    ``valid`` with ``score`` (total points), ``bonus`` (its bonus part), ``row`` (the
    Auslage after the move), ``word`` and ``new_cards`` (cards placed, as Vorgabe
    characters, at most one ``/``), ``new_loescher`` (how many new Loescher the move
    lays: the cards a hand gives up, seed 004); or not valid with ``reason`` (a code of :data:`REASONS`),
    ``verdict`` (why, as data: :mod:`bot.games.verdict`; its code is the reason) and, for
    ``vorgabe``, ``missing`` (the cards lacking, as ``"Q ?"``). ``field`` is the field of
    the first token, ``notes`` are verdicts (claimed points, card values) that never
    change the outcome. Every verdict is public: in Rondo the Auslage and the Vorgabe are
    on the table (a game that judges against a private hand, RONDO, types them anew).
    """

    valid: bool
    move: Move | None = None
    field: int | None = None
    score: int | None = None
    bonus: int | None = None
    row: Row | None = None
    word: str | None = None
    new_cards: str = ""
    new_loescher: int = 0
    reason: str | None = None
    verdict: Verdict | None = None
    notes: list[Verdict] = dc_field(default_factory=list)
    missing: str = ""


    def notation(self, position: "Position | None" = None) -> str:
        """The move in player notation, with ``Feld N:`` when alignment alone is not unique."""
        if self.move is None:
            return ""
        need_field = True
        if position is not None and self.field is not None:
            need_field = _align(position.row, self.move.tokens) != [self.field]
        return format_move(Move(self.move.tokens, self.field), with_field=need_field)


def _invalid(reason: str, why: Verdict, move: Move | None = None, fld: int | None = None) -> Outcome:
    return Outcome(valid=False, move=move, field=fld, reason=reason, verdict=why)


def _why(reason: str, msgid: str, **params: object) -> Verdict:
    """A public verdict with code ``reason`` (every parameter is on the table)."""
    return verdict(reason, msgid, seen=Visibility.PUBLIC, **params)


def valid_verdict(word: str, score: int) -> Verdict:
    """The verdict of a valid move as every player reads it: ``MONDES: 24 Punkte``."""
    return _why("valid", N_("{word}: {score} Punkte"), word=word, score=score)


def _align(row: Row, tokens: tuple[Token, ...]) -> list[int]:
    """Every start field at which the tokens fit the old Auslage: lower-case tokens lie on
    old letter or Joker cards of that letter, and the tokens span the whole old Auslage
    (NOTATION.md: CARDS is the whole new Auslage). On an empty row only field 4 fits."""
    occ = row.occupied()
    n = len(tokens)
    if occ is None:
        return [MIDDLE[0]] if all(t.kind != "old" for t in tokens) else []
    first, last = occ
    fits = []
    for s in range(last - n + 1, first + 1):
        ok = True
        for i, t in enumerate(tokens):
            if t.kind == "old":
                card = row[s + i]
                if card is None or not card.is_letter or card.letter != t.letter:
                    ok = False
                    break
        if ok:
            fits.append(s)
    return fits


def evaluate(position: Position, move: Move | str | NotationError, lexicon: WordList) -> Outcome:
    """Judge ``move`` (a :class:`Move`, a move line, or the :class:`NotationError` reading
    the line gave) on ``position``.

    Returns an :class:`Outcome`; never raises for a bad move (a line that cannot be
    read gives reason ``syntax``). Rules: seed 000 II.1 c), II.2 a)-b), II.3 a).
    """
    if isinstance(move, str):
        try:
            move = parse_move(move)
        except NotationError as exc:
            return _invalid("syntax", exc.verdict)
    elif isinstance(move, NotationError):
        return _invalid("syntax", move.verdict)
    row, vorgabe = position.row, position.vorgabe
    tokens = move.tokens
    n = len(tokens)
    occ = row.occupied()

    # -- position ---------------------------------------------------------------------
    fits = _align(row, tokens)
    if move.field is not None:
        if move.field not in fits:
            if occ is None:
                why = _why("position", N_("In der ersten Runde liegt das Wort auf den Feldern 4 bis 6 (also "
                                          "'Feld 4:')."))
            else:
                why = _why("position", N_("Ab Feld {field} passen die Karten nicht auf die Auslage {row}: kleine "
                                          "Buchstaben müssen auf denselben alten Karten liegen, und die Karten "
                                          "müssen die ganze neue Auslage angeben."),
                           field=move.field, row=row.code.strip("."))
            return _invalid("position", why, move, move.field)
        start = move.field
    else:
        if not fits and occ is None:
            return _invalid("position", _why("position", N_(
                "Die Auslage ist noch leer: es gibt keine alten Karten (kleine Buchstaben). Das erste Wort aus drei "
                "neuen Karten liegt auf den Feldern 4 bis 6.")), move)
        if not fits:
            return _invalid("position", _why("position", N_(
                "Die Karten passen an keine Stelle der Auslage. Bitte das Feld angeben, z. B. 'Feld 3: {cards}'."),
                cards=move.cards), move)
        if len(fits) != 1:
            return _invalid("position", _why("position", N_(
                "Die Karten passen an mehrere Stellen (Felder {fields}) der Auslage. Bitte das Feld angeben, "
                "z. B. 'Feld 3: {cards}'."), fields=[str(f) for f in fits], cards=move.cards), move)
        start = fits[0]

    # Build the new row on a padded field range so out-of-range tokens still read.
    new: dict[int, Card] = {}
    new_letters: Counter = Counter()
    new_jokers = new_loescher = 0
    loescher_on_empty = []
    old_kept = False
    for i, t in enumerate(tokens):
        f = start + i
        old = row[f]
        if t.kind == "old":
            new[f] = old  # type: ignore[assignment]
            old_kept = True
        elif t.kind == "new":
            new[f] = Card("letter", t.letter)
            new_letters[t.letter] += 1
        elif t.kind == "joker":
            new[f] = Card("joker", t.letter)
            new_jokers += 1
        else:  # Loescher: old where one already lay, new where it covers a card
            new[f] = Card("loescher")
            if old is None or old.kind != "loescher":
                new_loescher += 1
                if old is None:
                    loescher_on_empty.append(f)
    for f in range(1, FIELDS + 1):  # old cards outside the tokens stay (cannot happen after _align)
        if f not in new and row[f] is not None:
            new[f] = row[f]  # type: ignore[assignment]
    fields = sorted(new)
    word = "".join(new[f].letter for f in fields if new[f].is_letter)  # type: ignore[misc]

    # -- vorgabe ----------------------------------------------------------------------
    missing = []
    have = vorgabe.letters
    for letter, cnt in sorted(new_letters.items()):
        if cnt > have.get(letter, 0):
            missing.append(letter * (cnt - have.get(letter, 0)))
    if new_jokers > vorgabe.jokers:
        missing.append("?" * (new_jokers - vorgabe.jokers))
    if new_loescher > vorgabe.loeschers:
        missing.append("/" * (new_loescher - int(vorgabe.loeschers)) if not vorgabe.loescher_reusable else "/")
    if missing:
        bad = _invalid("vorgabe", _why("vorgabe", N_("Nicht in der Vorgabe {vorgabe}: {missing}."),
                                       vorgabe=vorgabe.cards, missing=" ".join(missing)), move, start)
        bad.missing = " ".join(missing)
        return bad

    # -- unchanged --------------------------------------------------------------------
    if occ is not None and word == row.word:
        return _invalid("unchanged", _why("unchanged", N_(
            "Das Wort {word} ist unverändert: mindestens ein Buchstabe muss sich ändern oder dazukommen "
            "(seed II.3c)."),
            word=word), move, start)

    # -- no-old-letter ----------------------------------------------------------------
    if occ is not None and not old_kept:
        return _invalid("no-old-letter", _why("no-old-letter", N_(
            "Keine Buchstabenkarte der bisherigen Auslage bleibt unverdeckt (mindestens eine muss liegen "
            "bleiben).")), move, start)

    # -- extension --------------------------------------------------------------------
    lo, hi = fields[0], fields[-1]
    if lo < 1 or hi > FIELDS:
        return _invalid("extension", _why("extension", N_("Die Auslage hat nur die Felder 1 bis 9.")), move, start)
    if occ is None:
        if n > len(MIDDLE):
            return _invalid("extension", _why("extension", N_(
                "In der ersten Runde wird ein Wort aus drei Karten auf die Felder 4 bis 6 gelegt.")), move, start)
    elif (hi - lo) - (occ[1] - occ[0]) > 1:
        return _invalid("extension", _why("extension", N_("Die Auslage darf pro Runde um höchstens ein Feld "
                                                          "wachsen.")), move, start)

    # -- loescher ---------------------------------------------------------------------
    if loescher_on_empty:
        return _invalid("loescher", _why("loescher", N_(
            "Ein Löscher muss eine Buchstaben- oder Jokerkarte abdecken (Feld {field} ist leer)."),
            field=loescher_on_empty[0]), move, start)
    kinds = [new[f].kind for f in fields]
    letters_at = [i for i, k in enumerate(kinds) if k != "loescher"]
    if letters_at and any(kinds[i] == "loescher" for i in range(letters_at[0], letters_at[-1] + 1)):
        return _invalid("loescher", _why("loescher", N_(
            "Löscher dürfen das Wort nicht teilen: nur am Anfang oder Ende des alten Wortes.")), move, start)

    # -- too-short / word -------------------------------------------------------------
    if len(word) < MIN_WORD:
        if word:
            why = _why("too-short", N_("{word} hat weniger als drei Buchstaben."), word=word)
        else:
            why = _why("too-short", N_("Das Wort hat weniger als drei Buchstaben."))
        return _invalid("too-short", why, move, start)
    if word not in lexicon:
        bad = _invalid("word", _why("word", N_("{word} ist kein gültiges Wort."), word=word), move, start)
        bad.word = word
        return bad

    new_row = Row(tuple(new.get(f) for f in range(1, FIELDS + 1)))
    counted = sum(new_letters.values()) + new_jokers + min(1, new_loescher)
    bonus = BONUS_PER_CARD * max(0, counted - 2)
    score = new_row.value + bonus
    placed = "".join(sorted(new_letters.elements())) + "?" * new_jokers + "/" * min(1, new_loescher)
    out = Outcome(valid=True, move=move, field=start, score=score, bonus=bonus, row=new_row, word=word,
                  new_cards=placed, new_loescher=new_loescher)
    out.notes = _notes(move, start, row, score)
    return out


def _notes(move: Move, start: int, row: Row, score: int) -> list[Verdict]:
    """Remarks on written card values and claimed points (never punished, NOTATION.md)."""
    notes = []
    for i, t in enumerate(move.tokens):
        if t.value is None:
            continue
        if t.kind == "new":
            actual = LETTER_VALUES[t.letter]  # type: ignore[index]
        elif t.kind == "joker":
            actual = JOKER_VALUE
        elif t.kind == "loescher":
            actual = LOESCHER_VALUE
        else:
            old = row[start + i]
            actual = old.value if old is not None else 0
        if actual != t.value:
            notes.append(_why("value", N_("Feld {field}: {card} ist {actual} Punkte wert, nicht {written}."),
                              field=start + i, card=t.text(), actual=actual, written=t.value))
    if move.claimed is not None and move.claimed != score:
        notes.append(_why("claimed", N_("Angegeben {claimed} Punkte, gezählt {score} Punkte."),
                          claimed=move.claimed, score=score))
    return notes

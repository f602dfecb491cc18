"""Crossword rules: placements, the round's letters, scoring of word lists and the exact
best score of a grid. Pure functions on value types; no I/O.

Sources: seed 003 (Crossword), section 2 (the six wished letters are placed anywhere;
a letter need not be used), section 3 (points 2/3/4/5/6 letters -> 1/3/5/7/10; rows,
columns and the two long diagonals, read either way; several words per line if they do
not overlap; only the listed words count, the GM verifies them); shared/RULES.md
"Crossword"; reason codes and their order: shared/conformance/README.md "Crossword".

Placement reasons, checked in this order: ``syntax`` (not readable), ``off-board`` (a
field outside A1-F6), ``occupied`` (a field already holds a letter, is named twice, or
the whole-grid form changes or removes an old letter), ``letters`` (a letter not among
the round's, or used more often than wished).

Claim reasons, in this order: ``syntax``, ``position`` (not a straight piece of a row,
column or long diagonal, or the letters there do not spell the word; an empty field
spells nothing), ``length`` (shorter than 2), ``overlap`` (shares a field with an
earlier valid claim of the same line), ``word`` (not in the lexicon).

Best score (:func:`best`): per line the maximum-weight set of pairwise disjoint
intervals whose letters read a word forwards or backwards, weight = points of the
length -- a weighted interval scheduling problem, solved exactly by dynamic programming
over the line's positions; the grid's best is the sum over the 14 lines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from bot.games.base import NotationError
from bot.games.verdict import N_, Param, Verdict, Visibility, verdict
from bot.games.crossword.grid import EMPTY, LINES, SIZE, Field, Grid, Line, points, segment
from bot.games.crossword.notation import BadClaim, Claim, GridForm, Placement, parse_claim, parse_placement
from bot.lexicon.alphabet import normalise

#: The game's alphabet for claim words (Ä Ö Ü ß spelled AE OE UE SS; RULES.md
#: "Common to all games").
ALPHABET = "crossword"

PLACE_REASONS = ("syntax", "off-board", "occupied", "letters")
CLAIM_REASONS = ("syntax", "position", "length", "overlap", "word")


# -- placement --------------------------------------------------------------------------

@dataclass(frozen=True)
class PlaceOutcome:
    """What the rules make of a placement: ``valid``; ``reason`` (one of
    :data:`PLACE_REASONS`) and ``verdict`` (why, the mover's: it names fields and letters
    of their private grid) when invalid; ``grid`` after the placement and ``placed``
    (field -> letter, in field order) when valid; ``unused``: the round's letters left
    unused (sorted)."""

    valid: bool
    reason: str | None = None
    verdict: Verdict | None = None
    grid: Grid | None = None
    placed: tuple[tuple[Field, str], ...] = ()
    unused: str = ""

    @property
    def message(self) -> str:
        """The reason in German ("" when valid; tests, logs)."""
        return self.verdict.text("de") if self.verdict is not None else ""

    def placed_text(self) -> str:
        return ", ".join(f"{f.name} {ch}" for f, ch in self.placed)


def _bad(reason: str, why: Verdict) -> PlaceOutcome:
    return PlaceOutcome(False, reason, why)


def round_letters(wishes: Iterable[str]) -> str:
    """The round's letters from the six wishes, sorted A-Z, so the Auswertung does not
    tell who wished which (RULES.md "Crossword")."""
    return "".join(sorted(w.upper() for w in wishes))


def check_placement(grid: Grid, letters: str, placement: Placement | str) -> PlaceOutcome:
    """Judge ``placement`` (a parsed :data:`Placement` or its notation) on ``grid`` with
    the round's ``letters`` (e.g. ``"EELNOT"``; may repeat). Never raises for bad moves.
    Seed 003, section 2; reason order of conformance/README.md "Crossword"."""
    if isinstance(placement, str):
        try:
            placement = parse_placement(placement)
        except NotationError as exc:
            return _bad("syntax", exc.verdict)
    if isinstance(placement, GridForm):
        new: dict[Field, str] = {}
        for r in range(SIZE):
            for c in range(SIZE):
                f = Field(r, c)
                old, ch = grid.get(f), placement.rows[r][c]
                if old is not None and ch != old:
                    if ch == EMPTY:
                        why = verdict("occupied", N_("Auf {field} steht schon {old}; im Gitter ist es leer "
                                                     "gelassen. Das Gitter muss jeden alten Buchstaben behalten."),
                                      field=f.name, old=old)
                    else:
                        why = verdict("occupied", N_("Auf {field} steht schon {old}; im Gitter ist es mit {new} "
                                                     "überschrieben. Das Gitter muss jeden alten Buchstaben "
                                                     "behalten."), field=f.name, old=old, new=ch)
                    return _bad("occupied", why)
                if old is None and ch != EMPTY:
                    new[f] = ch
        pairs = sorted(new.items())
    else:
        pairs = list(placement.pairs)
        off = [f for f, _ in pairs if not f.on_board]
        if off:
            return _bad("off-board", verdict("off-board", N_("Das Feld {field} gibt es nicht: Zeilen A-F, "
                                                             "Spalten 1-6."), field=off[0].name))
        seen: set[Field] = set()
        for f, ch in pairs:
            if f in seen:
                return _bad("occupied", verdict("occupied", N_("Das Feld {field} ist zweimal genannt."),
                                                field=f.name))
            seen.add(f)
            old = grid.get(f)
            if old is not None:
                return _bad("occupied", verdict("occupied", N_("Auf {field} steht schon {old}."),
                                                field=f.name, old=old))
    have = Counter(letters.upper())
    want = Counter(ch for _, ch in pairs)
    for ch, n in sorted(want.items()):
        if have[ch] == 0:
            return _bad("letters", verdict("letters", N_("{letter} ist nicht unter den Buchstaben dieser Runde "
                                                         "({letters})."), letter=ch, letters=_spaced(letters)))
        if n > have[ch] and have[ch] == 1:
            return _bad("letters", verdict("letters", N_("{letter} ist {n}-mal gelegt, aber nur einmal gewünscht "
                                                         "(Buchstaben dieser Runde: {letters})."),
                                           letter=ch, n=n, letters=_spaced(letters)))
        if n > have[ch]:
            return _bad("letters", verdict("letters", N_("{letter} ist {n}-mal gelegt, aber nur {have}-mal "
                                                         "gewünscht (Buchstaben dieser Runde: {letters})."),
                                           letter=ch, n=n, have=have[ch], letters=_spaced(letters)))
    unused = have - want
    placed = tuple(sorted(pairs))
    return PlaceOutcome(True, grid=grid.place(dict(pairs)), placed=placed,
                        unused="".join(sorted(unused.elements())))


def _spaced(letters: str) -> str:
    return " ".join(letters.upper())


# -- claims -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ClaimVerdict:
    """The judgement of one listed word: ``text`` as written, ``valid``, ``points`` (0
    when invalid), ``reason`` (one of :data:`CLAIM_REASONS`) and ``verdict`` (what the
    rules say of it, :mod:`bot.games.verdict`); ``word`` normalised (None when
    unreadable), ``fields`` (names, reading order), ``line`` (German line name) when the
    position was found.

    The verdict names the word and fields of the player's grid; it is written
    ``PUBLIC`` because a word list is only scored on the final grid, which every
    player sees once the Partie is over (seed 003; RULES.md "Crossword"). Before the end
    the game hands it only to the mover, inside a note that is the mover's."""

    text: str
    valid: bool
    points: int = 0
    reason: str | None = None
    verdict: Verdict | None = None
    word: str | None = None
    fields: tuple[str, ...] = ()
    line: str | None = None
    claimed: int | None = None

    @property
    def message(self) -> str:
        """The verdict in German (tests, logs)."""
        return self.verdict.text("de") if self.verdict is not None else ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "valid": self.valid, "points": self.points}
        if not self.valid:
            out["reason"] = self.reason
        out.update(verdict=self.verdict.to_json() if self.verdict is not None else None, word=self.word,
                   fields=list(self.fields), line=self.line)
        return out


@dataclass(frozen=True)
class ScoreOutcome:
    """The scoring of a word list: ``score`` (sum of the valid claims' points) and a
    :class:`ClaimVerdict` per claim, in the order listed."""

    score: int
    claims: tuple[ClaimVerdict, ...]


def _claim_from(item: str | Claim | BadClaim) -> Claim | BadClaim:
    if isinstance(item, (Claim, BadClaim)):
        return item
    try:
        return parse_claim(item)
    except NotationError as exc:
        return BadClaim(item.strip(), exc.verdict)


def _public(code: str, msgid: str, **params: Any) -> Verdict:
    """A claim verdict (public once the Partie is over: see :class:`ClaimVerdict`)."""
    return verdict(code, msgid, seen=Visibility.PUBLIC, **params)


def _made_public(v: Verdict) -> Verdict:
    """The notation's verdict on an unreadable word-list line (the mover's) as a claim
    verdict, public once the Partie is over (it quotes only the listed line)."""
    return Verdict(v.code, v.msgid, {k: Param(p.value, Visibility.PUBLIC) for k, p in v.params.items()},
                   v.plural, Visibility.PUBLIC)


def _line_name(line: Line) -> Verdict:
    """The line's name in a sentence (``Zeile A``, ``Spalte 3``, ``Diagonale A1-F6``)."""
    where = line.name.split(" ", 1)[1]
    if line.kind == "row":
        return _public("line", N_("Zeile {name}"), name=where)
    if line.kind == "col":
        return _public("line", N_("Spalte {name}"), name=where)
    return _public("line", N_("Diagonale {name}"), name=where)


def judge_position(grid: Grid, claim: Claim) -> tuple[str | None, Verdict | None, str | None, tuple[Field, ...],
                                                      Line | None]:
    """(reason or None, its verdict, normalised word, fields, line) for the position
    part of a claim: straight piece of one of the 14 lines, spelling the word."""
    word = normalise(claim.word, ALPHABET)
    if word is None:
        return "syntax", _public("syntax", N_("{word} ist nicht mit A-Z schreibbar."), word=claim.word), None, (), None
    seg = segment(claim.start, claim.end)
    rng = f"{claim.start.name}-{claim.end.name}"
    if seg is None:
        off = [f.name for f in (claim.start, claim.end) if not f.on_board]
        if off:
            return ("position", _public("position", N_("{range}: das Feld {field} gibt es nicht."),
                                        range=rng, field=off[0]), word, (), None)
        return ("position", _public("position", N_("{range} liegt nicht gerade in einer Zeile, Spalte oder langen "
                                                   "Diagonale (A1-F6, A6-F1)."), range=rng), word, (), None)
    line, fields = seg
    spelled = grid.text(fields)
    if len(fields) != len(word) or spelled != word:
        shown = spelled.replace(EMPTY, "·")
        if EMPTY in spelled:
            why = _public("position", N_("Auf {range} steht {shown} (ein leeres Feld), nicht {word}."),
                          range=rng, shown=shown, word=word)
        else:
            why = _public("position", N_("Auf {range} steht {shown}, nicht {word}."), range=rng, shown=shown,
                          word=word)
        return "position", why, word, fields, line
    return None, None, word, fields, line


def score_claims(grid: Grid, claims: Sequence[str | Claim | BadClaim], lexicon: Any) -> ScoreOutcome:
    """Judge a player's word list on their final ``grid`` (seed 003, section 3; reasons
    and order of conformance/README.md "Crossword"). ``lexicon`` supports ``in`` on
    normalised words. Returns a :class:`ScoreOutcome`; never raises for bad claims."""
    verdicts: list[ClaimVerdict] = []
    taken: dict[str, set[Field]] = {}
    total = 0
    for item in claims:
        claim = _claim_from(item)
        if isinstance(claim, BadClaim):
            verdicts.append(ClaimVerdict(claim.text, False, 0, "syntax",
                                         _made_public(claim.verdict)))
            continue
        text = claim.text
        reason, msg, word, fields, line = judge_position(grid, claim)
        names = tuple(f.name for f in fields)
        lname = line.name if line else None
        if reason is not None:
            verdicts.append(ClaimVerdict(text, False, 0, reason, msg, word, names, lname, claim.claimed))
            continue
        assert word is not None and line is not None
        if len(word) < 2:
            verdicts.append(ClaimVerdict(text, False, 0, "length",
                                         _public("length", N_("{word}: ein Wort hat mindestens 2 Buchstaben."),
                                                 word=word), word, names, lname, claim.claimed))
            continue
        used = taken.get(line.name, set())
        shared = [f.name for f in fields if f in used]
        if shared:
            verdicts.append(ClaimVerdict(text, False, 0, "overlap",
                                         _public("overlap", N_("{word} teilt {fields} mit einem schon gewerteten "
                                                               "Wort der {line}; Wörter einer Linie dürfen sich "
                                                               "nicht überschneiden."),
                                                 word=word, fields=", ".join(shared), line=_line_name(line)),
                                         word, names, lname, claim.claimed))
            continue
        if word not in lexicon:
            verdicts.append(ClaimVerdict(text, False, 0, "word",
                                         _public("word", N_("{word} ist kein gültiges Wort."), word=word),
                                         word, names, lname, claim.claimed))
            continue
        pts = points(len(word))
        if pts == 1:
            msg = _public("points", N_("{word}: {length} Buchstaben, 1 Punkt."), word=word, length=len(word))
        else:
            msg = _public("points", N_("{word}: {length} Buchstaben, {points} Punkte."), word=word,
                          length=len(word), points=pts)
        if claim.claimed is not None and claim.claimed != pts:
            msg = _public("points", N_("{verdict} (Angegeben waren {claimed}.)"), verdict=msg, claimed=claim.claimed)
        taken.setdefault(line.name, set()).update(fields)
        total += pts
        verdicts.append(ClaimVerdict(text, True, pts, None, msg, word, names, lname, claim.claimed))
    return ScoreOutcome(total, tuple(verdicts))


# -- the best score ---------------------------------------------------------------------

@dataclass(frozen=True, order=True)
class Found:
    """One word of a best solution: ``word`` as read, ``start``/``end`` fields (reading
    order), ``points``, German ``line`` name. ``claim`` is its word-list notation."""

    line: str
    start: str
    end: str
    word: str
    points: int

    @property
    def claim(self) -> str:
        return f"{self.word} {self.start}-{self.end}"

    def to_json(self) -> dict[str, Any]:
        return {"word": self.word, "from": self.start, "to": self.end, "points": self.points,
                "line": self.line, "claim": self.claim}


@dataclass(frozen=True)
class Best:
    """The exact best score of a grid and one set of words reaching it (line by line,
    left to right); ``per_line`` maps each line's German name to its best points."""

    score: int
    words: tuple[Found, ...]
    per_line: dict[str, int] = field(default_factory=dict)


def line_candidates(text: str, lexicon: Any) -> list[tuple[int, int, str]]:
    """Every interval ``(i, j, word)`` (``text[i:j]``, at least 2 letters, no empty
    field) of a line's ``text`` that reads a word forwards or, failing that, backwards;
    ``word`` in the reading direction (reversed when read backwards)."""
    out = []
    n = len(text)
    for i in range(n):
        for j in range(i + 2, n + 1):
            piece = text[i:j]
            if EMPTY in piece:
                break
            if piece in lexicon:
                out.append((i, j, piece))
            elif piece[::-1] in lexicon:
                out.append((i, j, piece[::-1]))
    return out


def best_line(text: str, lexicon: Any) -> tuple[int, list[tuple[int, int, str]]]:
    """The maximum points of pairwise disjoint words on one line (weighted interval
    scheduling, exact): ``(points, [(i, j, word), ...])`` with the chosen intervals in
    order. Among equal totals the first found (fewer, longer words from the left)."""
    n = len(text)
    ending: list[list[tuple[int, int, str]]] = [[] for _ in range(n + 1)]
    for cand in line_candidates(text, lexicon):
        ending[cand[1]].append(cand)
    best = [0] * (n + 1)
    pick: list[tuple[int, int, str] | None] = [None] * (n + 1)
    for k in range(1, n + 1):
        best[k], pick[k] = best[k - 1], None
        for cand in ending[k]:
            v = best[cand[0]] + points(cand[1] - cand[0])
            if v > best[k]:
                best[k], pick[k] = v, cand
    chosen: list[tuple[int, int, str]] = []
    k = n
    while k > 0:
        cand = pick[k]
        if cand is None:
            k -= 1
        else:
            chosen.append(cand)
            k = cand[0]
    return best[n], chosen[::-1]


def best(grid: Grid, lexicon: Any) -> Best:
    """The exact best score of ``grid`` (RULES.md "Crossword": each grid's best possible
    score, found by the bot) and the words reaching it, over the 14 lines."""
    total = 0
    words: list[Found] = []
    per_line: dict[str, int] = {}
    for line in LINES:
        text = grid.line_text(line)
        pts, chosen = best_line(text, lexicon)
        per_line[line.name] = pts
        total += pts
        for i, j, word in chosen:
            a, b = line.fields[i], line.fields[j - 1]
            if word != text[i:j]:  # read backwards
                a, b = b, a
            words.append(Found(line.name, a.name, b.name, word, points(j - i)))
    return Best(total, tuple(words), per_line)


def grid_from_rows(rows: Sequence[str] | Mapping[str, Any]) -> Grid:
    """A :class:`Grid` from 6 row codes (conformance/README.md "Crossword")."""
    return Grid(list(rows))

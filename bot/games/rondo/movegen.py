"""Rondo move search: every valid move of a position, and the best ones (pure).

Rule source: seed 000 (Rondo-Postspielregel) sections II.1-II.3 as :mod:`.engine` judges
them; this module decides nothing about the rules: every move it hands out is judged by
:func:`.engine.evaluate`. Used for the best move of a round (Rondo's Auswertung), RONDO's
best word of a hand (:mod:`bot.games.rondonl.engine`) and the demo players.

How (issue 25, ``docs/development/performance-movegen.md``): :func:`list_moves` lists every
valid move in the compiled core (:func:`bot.games._gridcore.rondo_moves`, over the
lexicon's word graph); :func:`best_moves` / :func:`ranked_moves` rank its records and
judge each move they hand out by :func:`evaluate`. :func:`generate_moves` (candidates
pruned by word prefixes, each judged by :func:`evaluate`) stays as the executable
reference (:func:`reference_listing`).
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Iterator, NamedTuple

from bot.games.rondo.cards import FIELDS, LETTER_VALUES, LOESCHER_VALUE, JOKER_VALUE, MIDDLE, Row
from bot.games.rondo.engine import BONUS_PER_CARD, MIN_WORD, Outcome, Position, WordList, evaluate
from bot.games.rondo.notation import Move, Token

__all__ = ["generate_moves", "RawMove", "list_moves", "ranked_moves", "reference_listing", "best_moves"]


def _windows(row: Row) -> list[tuple[int, int]]:
    occ = row.occupied()
    if occ is None:
        return [(MIDDLE[0], MIDDLE[-1])]
    a, b = occ
    out = []
    for s in (a - 1, a):
        for e in (b, b + 1):
            if s >= 1 and e <= FIELDS and (e - s) - (b - a) <= 1:
                out.append((s, e))
    return out


def _candidates(position: Position, lexicon: WordList) -> Iterator[Move]:
    """Token sequences that may be valid, pruned by word prefixes (not yet judged)."""
    row, vorgabe = position.row, position.vorgabe
    letters = dict(vorgabe.letters)
    jokers = vorgabe.jokers
    erasers = vorgabe.loeschers  # new Loescher the cards allow (inf: the reusable one)
    alphabet = [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    need_old = not row.is_empty()  # an empty Auslage has no old card to keep

    for s, e in _windows(row):
        toks: list[Token] = []

        def rec(f: int, phase: int, prefix: str, jok: int, kept: bool, er: float) -> Iterator[Move]:
            # phase 0: leading Loescher run, 1: word letters, 2: trailing Loescher run
            if f > e:
                if (kept or not need_old) and len(prefix) >= MIN_WORD and prefix in lexicon:
                    yield Move(tuple(toks), s)
                return
            old = row[f]
            if phase != 2:  # a letter: the old card kept, a new letter card, or a new Joker
                if old is not None and old.is_letter:
                    p = prefix + old.letter  # type: ignore[operator]
                    if lexicon.has_prefix(p):
                        toks.append(Token("old", old.letter))
                        yield from rec(f + 1, 1, p, jok, True, er)
                        toks.pop()
                for letter, cnt in letters.items():
                    p = prefix + letter
                    if cnt > 0 and lexicon.has_prefix(p):
                        letters[letter] -= 1
                        toks.append(Token("new", letter))
                        yield from rec(f + 1, 1, p, jok, kept, er)
                        toks.pop()
                        letters[letter] += 1
                if jok > 0:
                    for letter in alphabet:
                        p = prefix + letter
                        if lexicon.has_prefix(p):
                            toks.append(Token("joker", letter))
                            yield from rec(f + 1, 1, p, jok - 1, kept, er)
                            toks.pop()
            # a Loescher (the old one lying there, or a new one covering a letter or Joker);
            # after the word has begun only once it is a whole word (trailing run)
            word_done = phase != 1 or (len(prefix) >= MIN_WORD and prefix in lexicon)
            if word_done and old is not None and (old.kind == "loescher" or (old.is_letter and er > 0)):
                toks.append(Token("loescher"))
                yield from rec(f + 1, 0 if phase == 0 else 2, prefix, jok, kept,
                               er if old.kind == "loescher" else er - 1)
                toks.pop()

        yield from rec(s, 0, "", jokers, False, erasers)


def generate_moves(position: Position, lexicon: WordList) -> Iterator[Outcome]:
    """Every valid move of ``position``, judged by :func:`evaluate` (so the generator can
    never disagree with validation). Moves that lead to the same Auslage but place
    different cards (stacking a letter on itself earns bonus) are distinct moves.

    The pure-Python listing: the executable reference of the compiled
    :func:`list_moves` (``tests/test_rondo_movegen.py`` compares both)."""
    for move in _candidates(position, lexicon):
        out = evaluate(position, move, lexicon)
        if out.valid:
            yield out


class RawMove(NamedTuple):
    """A valid move as the compiled listing gives it (the fields of its :class:`Outcome`):
    ``score``, ``row`` (the Auslage's code after it), ``cards`` (the notation without the
    field), ``field``, ``word``, ``bonus``, ``new_cards``, ``new_loescher``."""

    score: int
    row: str
    cards: str
    field: int
    word: str
    bonus: int
    new_cards: str
    new_loescher: int

    def move(self) -> Move:
        return Move(_tokens(self.cards), self.field)


#: The most new Loescher a reusable Loescher allows in one move (more than the fields).
_MANY = 99


def list_moves(position: Position, lexicon: WordList) -> list[RawMove]:
    """Every valid move of ``position`` (the moves :func:`generate_moves` yields, in no
    particular order) as :class:`RawMove` records, listed by the compiled core
    (:func:`bot.games._gridcore.rondo_moves`) over the lexicon's word graph. Issue 25."""
    # deferred on purpose: the compiled core and the word graph load only when moves are listed
    from bot.games import _gridcore
    from bot.wordgraph import graph_for
    vorgabe = position.vorgabe
    er = vorgabe.loeschers
    raws = _gridcore.rondo_moves(graph_for(lexicon).root, position.row.code, vorgabe.letters, vorgabe.jokers,
                                 _MANY if er == float("inf") else int(er), _windows(position.row), LETTER_VALUES,
                                 JOKER_VALUE, LOESCHER_VALUE, BONUS_PER_CARD, MIN_WORD)
    return [RawMove(*r) for r in raws]


def _rank(o: Outcome) -> tuple:
    return (-o.score, o.row.code, o.move.cards)  # type: ignore[union-attr]


def ranked_moves(position: Position, lexicon: WordList) -> Iterator[Outcome]:
    """Every valid move, best first (most points, then the row code, then the cards), each
    judged by :func:`evaluate` as it is taken: listed by the compiled :func:`list_moves`
    (with a lexicon that has a word graph), else (or inside :func:`reference_listing`)
    by the pure-Python :func:`generate_moves`."""
    if _REFERENCE[0] or not hasattr(lexicon, "words"):
        yield from sorted(generate_moves(position, lexicon), key=_rank)
        return
    raws = list_moves(position, lexicon)
    raws.sort(key=lambda r: (-r.score, r.row, r.cards))
    for r in raws:
        out = evaluate(position, r.move(), lexicon)
        if not out.valid or out.score != r.score or out.row.code != r.row:  # type: ignore[union-attr]
            raise RuntimeError(f"Zuggenerator und Regeln widersprechen sich: {r}")
        yield out


def _tokens(cards: str) -> tuple[Token, ...]:
    """The tokens of a move's card string as the listing writes it (``ST*And/``)."""
    out: list[Token] = []
    i = 0
    while i < len(cards):
        ch = cards[i]
        if ch == "*":
            out.append(Token("joker", cards[i + 1]))
            i += 2
            continue
        if ch == "/":
            out.append(Token("loescher"))
        elif ch.islower():
            out.append(Token("old", ch.upper()))
        else:
            out.append(Token("new", ch))
        i += 1
    return tuple(out)


_REFERENCE = [False]


@contextlib.contextmanager
def reference_listing():
    """Within the block, :func:`best_moves` and :func:`ranked_moves` list moves with the
    pure-Python :func:`generate_moves` (tests and benches; switches the whole process)."""
    old = _REFERENCE[0]
    _REFERENCE[0] = True
    try:
        yield
    finally:
        _REFERENCE[0] = old


def best_moves(position: Position, lexicon: WordList, limit: int | None = 1) -> list[Outcome]:
    """The highest-scoring valid moves, best first (ties in a stable order of the row code)."""
    return list(itertools.islice(ranked_moves(position, lexicon), limit))

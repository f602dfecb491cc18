"""The shared pieces of Typ-Dom's turn generator (:mod:`.movegen`) and its pure-Python
reference (:mod:`.plan_ref`): the generator's :data:`SPEC`, the notation of a generated
placement, the key of a plan and its order, and the listing of raw search records.
Rule sources as :mod:`.movegen` (seed 002; shared/RULES.md "Typ-Dom", NOTATION.md).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Sequence

from bot.games import gridgen
from bot.games.gridgen import GenMove, GridSpec
from bot.games.typdom.notation import Placement, shared_token
from bot.games.typdom.table import CENTRE, SIZE, Table
from bot.games.typdom.tiles import BLACK_JOLLY, CONSONANTS, RED_JOLLY, VALUES, VOWELS

__all__ = ["SPEC", "gen_notation", "gen_placement", "raw_notation"]

#: Typ-Dom's parameters of the shared generator (seed 002; RULES.md "Typ-Dom").
SPEC = GridSpec(size=SIZE, centre=CENTRE, values=VALUES, premiums=None, blanks={RED_JOLLY: VOWELS,
                BLACK_JOLLY: CONSONANTS}, cross_score=False, require_old=True, single_both_ways=True)


def gen_notation(m: GenMove, rows: Sequence[str]) -> str:
    """The player notation of a generated placement on the table ``rows``
    (``M11s TEx*AS``): ``format_placement(gen_placement(m))``, written directly."""
    # (the word's letters in lower case, the new tiles written over them: upper case,
    # ``*X`` for a Jolly; every new tile lies on the word's squares)
    word = m.word
    out = list(word.lower())
    r0, c0 = m.row, m.col
    across = m.direction == "w"
    for r, c, _ch, b in m.tiles:
        i = c - c0 if across else r - r0
        out[i] = "*" + word[i] if b else word[i]
    return f"{_COORDS[r0][c0]}{m.direction} {''.join(out)}"


def raw_notation(raw) -> str:
    """``gen_notation(gridgen.to_move(raw), rows)`` of a raw search record, without the
    :class:`GenMove` (the best of tied records is chosen by its notation, issue 35)."""
    _score, _nt, transposed, r, start, word, placed, _parts = raw
    out = list(word.lower())
    for p, _ch, b in placed:
        i = p - start
        out[i] = "*" + word[i] if b else word[i]
    if transposed:
        return f"{_COORDS[start + 1][r + 1]}s {''.join(out)}"
    return f"{_COORDS[r + 1][start + 1]}w {''.join(out)}"


#: ``Table.coord(row, col)`` for 1-based squares on the table (``_COORDS[13][13]`` is
#: ``"M13"``); index 0 unused.
_COORDS = [[""] * (SIZE + 1)] + [[""] + [Table.coord(r, c) for c in range(1, SIZE + 1)] for r in range(1, SIZE + 1)]


def gen_placement(m: GenMove) -> Placement:
    """The :class:`Placement` a generated placement is written as (what
    :func:`bot.games.typdom.notation.parse_turn` reads from its :func:`gen_notation`)."""
    word = m.word
    toks = [shared_token("old", ch) for ch in word]  # (then the new tiles over them)
    r0, c0 = m.row, m.col
    across = m.direction == "w"
    for r, c, _ch, b in m.tiles:
        i = c - c0 if across else r - r0
        toks[i] = shared_token("blank" if b else "new", word[i])
    return Placement(r0, c0, m.direction, tuple(toks))


def _key(score: int, tiles: int, variant: str) -> tuple[int, int]:
    return (tiles, score) if variant == "kreuzwort" else (score, tiles)


def _search(rows: Sequence[str], rack: str, root: dict, touch=None, *, threshold: int = -1,
            min_tiles: int = 0, cache: dict | None = None) -> list:
    found: list = []
    gridgen.search(list(rows), rack, root, found.append, [threshold], SPEC, touch, min_tiles=min_tiles,
                   cache=cache)
    return found


def _best_of(raws: list, variant: str):
    """(key, GenMove, notation) of the best raw record (ties: smallest notation). Only
    the winner becomes a :class:`GenMove`; tied records are compared by
    :func:`raw_notation`."""
    if not raws:
        return None
    keyget = itemgetter(1, 0) if variant == "kreuzwort" else itemgetter(0, 1)  # _key of a record
    top = max(map(keyget, raws))
    tied = [r for r in raws if keyget(r) == top]
    if len(tied) == 1:
        raw = tied[0]
        return top, gridgen.to_move(raw), raw_notation(raw)
    notation, raw = min(((raw_notation(r), r) for r in tied), key=itemgetter(0))
    return top, gridgen.to_move(raw), notation


def _better(a, b) -> bool:
    """Plan ``a`` beats ``b``: higher key, then the smaller notation."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return "; ".join(a[1]) < "; ".join(b[1])



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

__all__ = ["SPEC", "gen_notation", "gen_placement"]

#: Typ-Dom's parameters of the shared generator (seed 002; RULES.md "Typ-Dom").
SPEC = GridSpec(size=SIZE, centre=CENTRE, values=VALUES, premiums=None, blanks={RED_JOLLY: VOWELS,
                BLACK_JOLLY: CONSONANTS}, cross_score=False, require_old=True, single_both_ways=True)


def gen_notation(m: GenMove, rows: Sequence[str]) -> str:
    """The player notation of a generated placement on the table ``rows``
    (``M11s TEx*AS``): ``format_placement(gen_placement(m))``, written directly."""
    new = {(r, c): b for r, c, _ch, b in m.tiles}
    dr, dc = (0, 1) if m.direction == "w" else (1, 0)
    r, c = m.row, m.col
    out = []
    for ch in m.word:
        b = new.get((r, c))
        out.append(ch.lower() if b is None else ("*" + ch if b else ch))
        r += dr
        c += dc
    return f"{Table.coord(m.row, m.col)}{m.direction} {''.join(out)}"


def gen_placement(m: GenMove) -> Placement:
    """The :class:`Placement` a generated placement is written as (what
    :func:`bot.games.typdom.notation.parse_turn` reads from its :func:`gen_notation`)."""
    new = {(r, c): b for r, c, _ch, b in m.tiles}
    dr, dc = (0, 1) if m.direction == "w" else (1, 0)
    r, c = m.row, m.col
    toks = []
    for ch in m.word:
        b = new.get((r, c))
        toks.append(shared_token("old" if b is None else "blank" if b else "new", ch))
        r += dr
        c += dc
    return Placement(m.row, m.col, m.direction, tuple(toks))


def _key(score: int, tiles: int, variant: str) -> tuple[int, int]:
    return (tiles, score) if variant == "kreuzwort" else (score, tiles)


def _search(rows: Sequence[str], rack: str, root: dict, touch=None, *, threshold: int = -1,
            min_tiles: int = 0, cache: dict | None = None) -> list:
    found: list = []
    gridgen.search(list(rows), rack, root, found.append, [threshold], SPEC, touch, min_tiles=min_tiles,
                   cache=cache)
    return found


def _best_of(raws: list, rows: Sequence[str], variant: str):
    """(key, GenMove, notation) of the best raw record (ties: smallest notation)."""
    if not raws:
        return None
    keyget = itemgetter(1, 0) if variant == "kreuzwort" else itemgetter(0, 1)  # _key of a record
    top = max(map(keyget, raws))
    tied = [gridgen.to_move(r) for r in raws if keyget(r) == top]
    if len(tied) == 1:
        return top, tied[0], gen_notation(tied[0], rows)
    notation, best = min(((gen_notation(m, rows), m) for m in tied), key=itemgetter(0))
    return top, best, notation



def _better(a, b) -> bool:
    """Plan ``a`` beats ``b``: higher key, then the smaller notation."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return "; ".join(a[1]) < "; ".join(b[1])



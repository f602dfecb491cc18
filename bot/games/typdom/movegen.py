"""Exhaustive Typ-Dom turn generator: the best turn a rack allows on a table.

Rule sources: seed 002 and shared/RULES.md "Typ-Dom" (via :mod:`.tiles` and
:mod:`.table`): a word must contain a tile of the table (the first covers M13), every
contact forms a word, the red Jolly stands for vowels and the black one for consonants,
a joining placement allows a second one, a Jolly not enclosed on three sides may be taken
by laying the letter it shows.

Search: the shared Appel-Jacobson generator of :mod:`bot.games.gridgen` with Typ-Dom's
:data:`SPEC` (25 x 25, no premiums, the placed word's letters scoring with old ones
included, no cross-word points, two Jolly kinds, the word must use a table tile, a single
tile forming words both ways counting once per direction) lists every single placement.
A turn is then one of:

* one placement;
* a joining placement (two or more groups of table tiles in its word) followed by the
  best second placement on the table it leaves, with the rack it leaves; the second
  placement is searched after the :data:`SECOND_SEARCHES` best joining placements (with
  two Jollys in a rack there can be thousands, each needing a search of its own, which
  would take minutes; the single placements are always all searched);
* the same after taking a Jolly (``JOLLY M13; ...``) for every Jolly on the table with at
  most two occupied neighbours whose letter the rack holds.

"Best" is, for Point-Typ-Dom, the most points (then more
tiles), for the Kreuzwort-Spiel the most tiles laid (then more points); then the
lexicographically smallest notation, so the answer is reproducible. The winner is
re-judged by :func:`bot.games.typdom.engine.evaluate`, so its notation and score are the
rules' own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from bot.games import gridgen
from bot.games.gridgen import GenMove, GridSpec
from bot.games.typdom.engine import Outcome, evaluate
from bot.games.typdom.notation import Placement, Token, format_placement
from bot.games.typdom.table import CENTRE, SIZE, Table
from bot.games.typdom.tiles import BLACK_JOLLY, CONSONANTS, RED_JOLLY, VALUES, VOWELS, jolly_for, sort_rack

__all__ = ["SPEC", "BestTurn", "placements", "best_turn", "gen_notation"]

#: Typ-Dom's parameters of the shared generator (seed 002; RULES.md "Typ-Dom").
SPEC = GridSpec(size=SIZE, centre=CENTRE, values=VALUES, premiums=None, blanks={RED_JOLLY: VOWELS,
                BLACK_JOLLY: CONSONANTS}, cross_score=False, require_old=True, single_both_ways=True)


@dataclass(frozen=True)
class BestTurn:
    """The best turn found: ``notation`` (player notation), ``score`` (Point-Typ-Dom
    points), ``tiles`` (tiles laid), ``words`` (placed words with their contact words),
    ``outcome`` (the engine's judgement of it)."""

    notation: str
    score: int
    tiles: int
    words: tuple[str, ...]
    outcome: Outcome

    def to_json(self) -> dict:
        return {"notation": self.notation, "score": self.score, "tiles": self.tiles, "words": list(self.words)}


def gen_notation(m: GenMove, rows: Sequence[str]) -> str:
    """The player notation of a generated placement on the table ``rows``
    (``M11s TEx*AS``)."""
    new = {(r, c): (ch, b) for r, c, ch, b in m.tiles}
    dr, dc = (0, 1) if m.direction == "w" else (1, 0)
    toks = []
    for i, ch in enumerate(m.word):
        sq = (m.row + i * dr, m.col + i * dc)
        if sq in new:
            toks.append(Token("blank" if new[sq][1] else "new", ch))
        else:
            toks.append(Token("old", ch))
    return format_placement(Placement(m.row, m.col, m.direction, tuple(toks)))


def placements(rows: Sequence[str], rack: str, lexicon: Any) -> list[GenMove]:
    """Every valid single placement of ``rack`` on the table ``rows`` (each placement
    once per direction; ``GenMove.score`` is the Point-Typ-Dom value, ``runs`` >= 2
    marks a joining placement)."""
    return gridgen.all_moves(list(rows), rack, lexicon, SPEC)


def _after(rows: Sequence[str], rack: str, m: GenMove) -> tuple[list[str], str]:
    grid = [list(r) for r in rows]
    left = Counter(rack)
    for r, c, ch, b in m.tiles:
        grid[r - 1][c - 1] = ch.lower() if b else ch
        left[jolly_for(ch) if b else ch] -= 1
    return ["".join(r) for r in grid], sort_rack(left.elements())


#: How many joining first placements (best first) get a search for the second placement.
SECOND_SEARCHES = 20


def _key(score: int, tiles: int, variant: str) -> tuple[int, int]:
    return (tiles, score) if variant == "kreuzwort" else (score, tiles)


def _raw_runs(raw) -> int:
    """Groups of table tiles in the main word of a raw search record."""
    _score, _nt, _tr, _r, start, word, placed, _parts = raw
    new = {p for p, _, _ in placed}
    runs, prev = 0, False
    for p in range(start, start + len(word)):
        old = p not in new
        if old and not prev:
            runs += 1
        prev = old
    return runs


def _search(rows: Sequence[str], rack: str, root: dict) -> list:
    found: list = []
    gridgen.search(list(rows), rack, root, found.append, [-1], SPEC)
    return found


def _best_of(raws: list, rows: Sequence[str], variant: str):
    """(key, GenMove, notation) of the best raw record (ties: smallest notation)."""
    if not raws:
        return None
    top = max(_key(r[0], r[1], variant) for r in raws)
    tied = [gridgen.to_move(r) for r in raws if _key(r[0], r[1], variant) == top]
    best = min(tied, key=lambda m: gen_notation(m, rows))
    return top, best, gen_notation(best, rows)


def _best_plan(rows: Sequence[str], rack: str, lexicon: Any, variant: str, prefix: list[str]):
    """(key, notation parts) of the best turn without a Jolly taken, or None."""
    root = gridgen.graph_root(lexicon)
    raws = _search(rows, rack, root)
    single = _best_of(raws, rows, variant)
    if single is None:
        return None
    best = (single[0], prefix + [single[2]])
    # second placements after joining ones, best first placements first
    joining = [r for r in raws if r[1] < len(rack) and _raw_runs(r) >= 2]
    joining.sort(key=lambda r: _key(r[0], r[1], variant), reverse=True)
    for raw in joining[:SECOND_SEARCHES]:
        m = gridgen.to_move(raw)
        rows2, rack2 = _after(rows, rack, m)
        sec = _best_of(_search(rows2, rack2, root), rows2, variant)
        if sec is None:
            continue
        _, m2, n2 = sec
        plan = (_key(m.score + m2.score, len(m.tiles) + len(m2.tiles), variant),
                prefix + [gen_notation(m, rows), n2])
        if _better(plan, best):
            best = plan
    return best


def _better(a, b) -> bool:
    """Plan ``a`` beats ``b``: higher key, then the smaller notation."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return "; ".join(a[1]) < "; ".join(b[1])


def best_turn(rows: Sequence[str], rack: str, lexicon: Any, variant: str = "point") -> BestTurn | None:
    """The best turn ``rack`` allows on the table ``rows`` (25 row codes) in ``variant``
    (``"point"``: most points; ``"kreuzwort"``: most tiles laid), or None when no word
    can be laid (the player has to buy). See the module docstring for what is searched."""
    rows = list(rows)
    if not rack:
        return None
    best = _best_plan(rows, rack, lexicon, variant, [])
    table = Table.from_rows(rows)
    for r, c, letter in table.jollys():
        if table.neighbours(r, c) >= 3 or letter not in rack:
            continue
        rows2 = list(rows)
        rows2[r - 1] = rows2[r - 1][:c - 1] + letter + rows2[r - 1][c:]
        left = Counter(rack)
        left[letter] -= 1
        left[jolly_for(letter)] += 1
        plan = _best_plan(rows2, sort_rack(left.elements()), lexicon, variant, [f"JOLLY {table.coord(r, c)}"])
        if plan is not None and (best is None or _better(plan, best)):
            best = plan
    if best is None:
        return None
    notation = "; ".join(best[1])
    out = evaluate(table, rack, notation, lexicon, variant)
    if not out.valid:
        raise RuntimeError(f"Zuggenerator und Regeln widersprechen sich: {notation} ist {out.reason} ({out.message})")
    return BestTurn(out.notation, out.score, out.tiles, tuple(out.words), out)

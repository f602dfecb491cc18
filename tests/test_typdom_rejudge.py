"""The safety check of Typ-Dom's best turn (issue 35): :func:`bot.games.typdom.movegen.best_turn`
re-judges the winning plan with the rules engine (:func:`bot.games.typdom.engine.evaluate`,
from the plan's own Placements, no notation parse) and refuses a turn the rules reject.
Here the plan search is made to hand over a deliberately corrupted winner (a tile the
rack does not hold, the word moved off its square, a letter changed into a non-word, a
second word after a first that joins nothing) on self-played tables: every one must be
caught (RuntimeError), and the uncorrupted winner must pass."""

from __future__ import annotations

import dataclasses

import pytest

from bot.games.typdom import movegen as mg
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES
from bot.lexicon import load
from tests.typdom_tables import self_played


@pytest.fixture(scope="module")
def lexicon():
    return load("typdom", rules=TYPDOM_RULES)


@pytest.fixture(scope="module")
def positions(lexicon):
    """(table, rack) of a self-played Point-Typ-Dom Partie, turns 5-12 (tables with tiles)."""
    return self_played(lexicon, seed="rejudge", partie="J1", rounds=3)[4:]


def _other_letter(rack: str, avoid: str) -> str:
    """A plain letter that is not in ``rack`` (and not ``avoid``)."""
    return next(ch for ch in "QXYJVZWKPFCM" if ch not in rack and ch != avoid)


def _corruptions(plan, rack: str, rows):
    """Wrong versions of ``plan`` (key, notation parts, GenMoves, jolly), each with what
    was changed."""
    key, parts, moves, jolly = plan
    m = moves[0]
    out = []
    # a tile the rack does not hold
    r, c, ch, b = m.tiles[0]
    bad = _other_letter(rack, ch)
    tiles = ((r, c, bad, False),) + m.tiles[1:]
    i = (r - m.row) + (c - m.col)
    word = m.word[:i] + bad + m.word[i + 1:]
    out.append(("tile not on the rack", (key, parts, (dataclasses.replace(m, tiles=tiles, word=word),) + moves[1:],
                                         jolly)))
    # the word moved one square across (its table tiles no longer under it)
    dr, dc = (1, 0) if m.direction == "w" else (0, 1)
    moved = dataclasses.replace(m, row=m.row + dr, col=m.col + dc,
                                tiles=tuple((tr + dr, tc + dc, tch, tb) for tr, tc, tch, tb in m.tiles))
    out.append(("word moved", (key, parts, (moved,) + moves[1:], jolly)))
    # a laid letter changed into another laid letter of the rack (no word any more)
    letters = sorted({t[2] for t in m.tiles if not t[3]})
    if len(m.tiles) >= 2 and len(letters) >= 2 and m.tiles[0][2] != m.tiles[1][2] and not m.tiles[1][3]:
        r, c, ch, b = m.tiles[0]
        new = m.tiles[1][2]
        i = (r - m.row) + (c - m.col)
        word = m.word[:i] + new + m.word[i + 1:]
        swapped = ((r, c, new, b),) + m.tiles[1:2] + m.tiles[2:]
        out.append(("no word", (key, parts, (dataclasses.replace(m, tiles=swapped, word=word),) + moves[1:], jolly)))
    # a second word after a first one that joins nothing: the winner laid twice
    if len(moves) == 1 and m.runs < 2:
        out.append(("second without a join", (key, parts + parts, (m, m), jolly)))
    return out


def test_best_turn_refuses_a_corrupted_winner(lexicon, positions, monkeypatch):
    real = mg._best_plan
    checked, kinds = 0, set()
    for rows, rack in positions:
        plan = real(rows, rack, lexicon, "point", [])
        if plan is None or any(ch in rack for ch in "?#"):
            continue
        assert mg.best_turn(rows, rack, lexicon, "point") is not None  # the real winner passes
        for what, wrong in _corruptions(plan, rack, rows):
            monkeypatch.setattr(mg, "_best_plan", lambda *a, _w=wrong, **k: _w)
            with pytest.raises(RuntimeError, match="move generator and rules disagree"):
                mg.best_turn(rows, rack, lexicon, "point")
            monkeypatch.setattr(mg, "_best_plan", real)
            checked += 1
            kinds.add(what)
    assert checked >= 10
    assert kinds == {"tile not on the rack", "word moved", "no word", "second without a join"}

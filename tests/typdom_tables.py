"""Self-played Typ-Dom tables for the tests of the move generation (issue 35): a Partie
of four players, each laying the best single placement of the dealt rack (score, then
tiles) or buying, turn after turn (:func:`self_played`). For the tests of phase (b) of
the plan search (tests/test_typdom_seconds.py, tests/test_typdom_gaddag.py): the word
list and the tables of one such Partie as module fixtures (``lexicon``, ``tables``; a
test module imports them by name), first placements to ask with (:func:`_queries`), large
racks, and the comparison of ``movegen._Seconds`` with ``movegen._seconds_reference``
(:func:`_against_reference`)."""

from __future__ import annotations

import pytest

from bot.games import _gridcore, get_game
from bot.games.typdom import movegen as mg
from bot.games.typdom.tiles import full_set, jolly_for, sort_rack
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES
from bot.lexicon import load


def self_played(lexicon, *, seed: str, partie: str, rounds: int, variant: str = "point") -> list[tuple[list[str], str]]:
    """``(table rows, rack)`` before every turn of ``rounds`` rounds (fewer when the Partie
    ends), in seat order; the same Partie for the same ``seed`` and ``partie``."""
    game = get_game("typdom")
    st = game.new_partie(seed=seed, partie=partie, options={"variant": variant}, players=["a", "b", "c", "d"])
    out = []
    for _ in range(rounds):
        subs = {}
        for p in st["seat_order"]:
            out.append((list(st["board"]), st["racks"][p]))
            ms = mg.placements(st["board"], st["racks"][p], lexicon)
            best = max(ms, key=lambda m: (m.score, len(m.tiles)), default=None)
            subs[p] = [mg.gen_notation(best, st["board"])] if best else ["KAUFEN"]
        st = game.adjudicate(st, subs, lexicon, seed=seed, partie=partie, best=False).state_after
        if st["finished"]:
            break
    return out


@pytest.fixture(scope="module")
def lexicon():
    return load("typdom", rules=TYPDOM_RULES)


@pytest.fixture(scope="module")
def tables(lexicon):
    """Tables of a self-played Point-Typ-Dom Partie, one per turn, with the dealt rack."""
    return self_played(lexicon, seed="sec", partie="S1", rounds=5)


def _laid(rows, m_tiles):
    """The table's rows with a first placement's tiles ``(row, col, letter, table
    letter?)`` laid (0-based), and its squares 1-based: the touch squares of phase (b)."""
    rows2 = list(rows)
    for r, c, ch, b in m_tiles:
        rows2[r] = rows2[r][:c] + (ch.lower() if b else ch) + rows2[r][c + 1:]
    return rows2, [(r + 1, c + 1) for r, c, _ch, _b in m_tiles]


def _queries(rows, rack, root, rng, n):
    """Up to ``n`` joining placements of ``rack`` on ``rows`` as ``(m_tiles, score, tiles,
    rack left)``, some of them twice (the memo's second look at the same lines)."""
    raws = mg._search(rows, rack, root)
    joining = _gridcore.joining(raws, len(rack))
    rng.shuffle(joining)
    out = []
    for raw in joining[:n]:
        left = list(rack)
        for _p, ch, b in raw[6]:
            left.remove(jolly_for(ch) if b else ch)
        m_tiles = [(r, c, ch, b) for (r, c), (_p, ch, b) in zip(mg._squares(raw), raw[6])]
        out.append((m_tiles, raw[0], raw[1], sort_rack(left)))
    return out + out[: n // 4]


def _keys(variant, rack, m_score, m_nt, rng):
    """Best-plan keys from nothing to more than the rack can do: the searches with no cut,
    cuts that keep some second placements, and ones that keep none."""
    if variant == "point":
        return [(m_score + t, rng.randrange(20)) for t in (-1, 0, 8, 16, 24, 40, 80)]
    n = len(rack)
    return [(m_nt + k, rng.randrange(60)) for k in (0, 1, 2, 3, 5, 8)] + [(n, m_score + t) for t in (0, 10, 25, 50)]


def _large_racks(dealt, rng):
    letters = [c for c in full_set() if c.isalpha()]
    return [sort_rack(["?", "#"] + rng.sample(letters, 10)), sort_rack(["?", "#"] + rng.sample(letters, 14)),
            sort_rack([c for c in dealt if c.isalpha()][:6] + ["?", "#"])]


def _against_reference(seconds, rows, rack, root, variant, rng, n):
    """Asks ``seconds`` (a ``movegen._Seconds`` of ``rows`` and ``rack``) ``n`` random
    first placements' queries with their best keys and asserts each answer (key,
    notation, move) equals ``_seconds_reference``'s; returns (queries asked, answers
    found)."""
    ref_cache: dict = {}
    asked = found = 0
    for m_tiles, m_score, m_nt, rack2 in _queries(rows, rack, root, rng, n):
        for key in _keys(variant, rack, m_score, m_nt, rng):
            want = mg._seconds_reference(rows, rack, root, variant, ref_cache, m_tiles, m_score, m_nt, rack2, key)
            got = seconds.best(m_tiles, m_score, m_nt, rack2, key)
            assert (got is None) == (want is None), (rows, rack, m_tiles, rack2, key)
            if want is not None:
                assert (got[0], got[2], got[1]) == (want[0], want[2], want[1])
                found += 1
            asked += 1
    return asked, found

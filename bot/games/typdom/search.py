"""Does a Presto set allow a complete crossword? A search that shows one (pure).

Beyond seed 002 ("2. Presto"): for every player's set the Auswertung says whether a
crossword using all its tiles exists under the Kreuzwort-Spiel's word rules, and shows
one (issue 12). A crossword found is a proof of existence; it is re-judged by
:func:`bot.games.typdom.presto.judge`, the rules' own check of a player's crossword.

What is searched: *tree crosswords*, in which every word after the first crosses
exactly one tile of the words before it and touches nothing else (no side-by-side
contacts, so every run of tiles is one of the placed words). The first word (the
"spine") is any word the set spells; each further word is spelled from the tiles left
plus the letter it crosses. Jollys stand for a letter the remaining tiles lack (red:
vowel, black: consonant).

First a proof for every shape of crossword: each tile lies in a word, and every word
on the table is spelled from the set's own tiles; so when no word the set spells holds
some letter of it (a Q without a U), no crossword exists (status ``"none"``, ``lonely``
names the letter). Then two phases over the word graph of the lexicon
(:mod:`bot.wordgraph`):

1. heuristic: spines with the hardest letters first (the seed's advice for the first
   word: "mit seinen am schwersten anzubringenden Buchstaben (J, V, X, Y)"), each with
   at most :data:`SPINE_STEPS` steps; each step lays a word holding the rarest letter
   left (Q X Y J V ... E, German letter frequency), longest words first;
2. exhaustive, when phase 1 found nothing: every spine, every word at every free
   crossing. If phase 2 ends without a crossword, no tree crossword exists for the set
   (status ``"none"``).

The words are spelled by the compiled core (:func:`bot.games._gridcore.spellings`, over
the flat-array word graph; issue 25, ``docs/development/performance-movegen.md``); the
spines come sorted from :func:`bot.games._gridcore.presto_spines`, which sorts them as
they are taken, and the tree search of each spine is
:class:`bot.games._gridcore.PrestoTree` (the same steps as :meth:`_Search.grow`; issue
35). The pure-Python :func:`_spellings_reference`, the Python sort and
:meth:`_Search.grow` stay as the executable reference: :func:`reference_spellings`
switches to them, and ``tests/test_gridcore.py`` compares both, and the whole search
with each, on seeded random and dealt sets.

Both phases count steps (one step = one crossword extended) against a budget, never
wall-clock time, so the answer is the same on every machine and every re-run of an
Auswertung. A set whose search ends at the budget is ``"open"``: none found, none
excluded. Crosswords with words lying side by side (two-letter contacts) are not
searched; a player may well find one (and it is judged by the full rules).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.games import _gridcore

from bot.games.typdom.presto import Crossword, judge
from bot.games.typdom.table import SIZE
from bot.games.typdom.tiles import BLACK_JOLLY, RED_JOLLY, VOWELS
from bot.wordgraph import END, graph_for

__all__ = ["Proof", "find_crossword", "STEPS", "reference_spellings"]

#: Letters from rarest to most frequent in German text (the order a search lays them in).
RARITY = {ch: i for i, ch in enumerate("QXYJVCPZWKBFGMOHULDAITSRNE")}
#: Step budget of a search (phase 1 and 2 together), and of one spine in phase 1.
STEPS = 4000
SPINE_STEPS = 60


#: The weight of each letter in :func:`_hardness` (upper-case letters; the rest weigh 0).
_HARD = {ch: (12 - r) ** 2 for ch, r in RARITY.items() if r < 12}


def _hardness(word: str) -> int:
    """How much a word helps with hard letters (seed 002: the first player lays "ein Wort
    mit seinen am schwersten anzubringenden Buchstaben (J, V, X, Y)"): rare letters weigh
    most."""
    return sum(max(0, 12 - RARITY.get(ch, 99)) ** 2 for ch in word if ch.isupper())


@dataclass
class Proof:
    """The answer for one set: ``status`` ``"found"`` (``rows``: the crossword in board
    codes, ``words``: its words, spine first), ``"none"`` (no crossword: ``lonely`` is a
    letter that no word spelled from the set contains, so no crossword of any shape
    exists; without it, the exhaustive phase found no tree crossword) or ``"open"`` (the
    step budget ran out); ``steps`` used."""

    status: str
    rows: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    steps: int = 0
    lonely: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "rows": list(self.rows), "words": list(self.words), "steps": self.steps,
                "lonely": self.lonely}


class _Budget(Exception):
    pass


def _spellings(root: dict, counts: Counter, red: int, black: int, cross: frozenset[str] | None,
               must: str | None, first_only: bool = False) -> list[tuple[str, int | None, int, int]]:
    """Every word the tiles spell: ``(word, k, red left, black left)``; a Jolly's letter is
    lower case. With ``cross`` (letters that may be crossed) exactly one letter, at
    position ``k``, is a crossed tile from that set (not from the tiles). ``must``: the
    word must use that letter from the tiles. The compiled core
    (:func:`bot.games._gridcore.spellings`), or inside :func:`reference_spellings` the
    pure-Python :func:`_spellings_reference`; the order of the list differs, which the
    callers' sorts do not see (their keys tell every two different entries apart).
    ``first_only``: the compiled core stops at the first word (the list is empty
    exactly when the full one is; the reference ignores it)."""
    if _ACTIVE[0] is _spellings_reference:
        return _spellings_reference(root, counts, red, black, cross, must)
    return _gridcore.spellings(root, counts, red, black, cross, must, VOWELS, first_only)


def _spellings_compiled(root: dict, counts: Counter, red: int, black: int, cross: frozenset[str] | None,
                        must: str | None) -> list[tuple[str, int | None, int, int]]:
    return _gridcore.spellings(root, counts, red, black, cross, must, VOWELS)


_ACTIVE = [_spellings_compiled]


@contextlib.contextmanager
def reference_spellings():
    """Within the block, the search spells words with the pure-Python reference
    :func:`_spellings_reference`, sorts the spines in Python instead of
    :func:`bot.games._gridcore.presto_spines` and searches with :meth:`_Search.grow`
    instead of :class:`bot.games._gridcore.PrestoTree` (tests and benches; switches the
    whole process)."""
    old = _ACTIVE[0]
    _ACTIVE[0] = _spellings_reference
    try:
        yield
    finally:
        _ACTIVE[0] = old


def _spellings_reference(root: dict, counts: Counter, red: int, black: int, cross: frozenset[str] | None,
                         must: str | None) -> list[tuple[str, int | None, int, int]]:
    """The pure-Python reference of :func:`_spellings` (the executable specification)."""
    out: list[tuple[str, int | None, int, int]] = []
    word: list[str] = []
    cnt = dict(counts)

    def rec(node: dict, red: int, black: int, k: int | None, got: bool) -> None:
        if END in node and len(word) >= 2 and (cross is None or k is not None) and got:
            out.append(("".join(word), k, red, black))
        for ch, child in node.items():
            if ch == END:
                continue
            if cnt.get(ch, 0) > 0:
                cnt[ch] -= 1
                word.append(ch)
                rec(child, red, black, k, got or ch == must)
                word.pop()
                cnt[ch] += 1
            elif ch in VOWELS and red:
                word.append(ch.lower())
                rec(child, red - 1, black, k, got)
                word.pop()
            elif ch not in VOWELS and black:
                word.append(ch.lower())
                rec(child, red, black - 1, k, got)
                word.pop()
            if cross is not None and k is None and ch in cross:
                word.append(ch)
                rec(child, red, black, len(word) - 1, got)
                word.pop()

    rec(root, red, black, None, must is None)
    return out


class _Search:
    def __init__(self, root: dict, budget: int) -> None:
        self.root = root
        self.budget = budget
        self.steps = 0
        self.seen: set = set()
        self.spines = None  # the compiled spine order, kept for phase 2 (the same set)
        # the compiled tree search (the same steps as grow), or None: grow
        self.tree = None if _ACTIVE[0] is _spellings_reference else _gridcore.PrestoTree(root, VOWELS, RARITY)

    def step(self) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise _Budget

    def run(self, counts: Counter, red: int, black: int, heuristic: bool):
        """Phase 1 (``heuristic``: each spine gets at most :data:`SPINE_STEPS` steps,
        hard letters first) or phase 2 (every spine, every word, to the end)."""
        if _ACTIVE[0] is _spellings_reference:
            spines = _spellings(self.root, counts, red, black, None, None)
            spines.sort(key=lambda s: (-_hardness(s[0]), -len(s[0]), s[0]))
            spines = dict.fromkeys(spines)
        else:  # the same spines in the same order, listed and sorted in C as they are taken
            if self.spines is None:
                self.spines = _gridcore.presto_spines(self.root, counts, red, black, VOWELS, _HARD)
            spines = self.spines
        for word, _, r, b in spines:
            left = counts - Counter(ch for ch in word if ch.isupper())
            budget = self.budget
            if heuristic:
                self.budget = min(budget, self.steps + SPINE_STEPS)
            try:
                if self.tree is not None:  # the same steps as grow, in C
                    code, self.steps, found = self.tree.grow(word, left, r, b, heuristic, self.steps, self.budget,
                                                             self.seen)
                    if code == 2:
                        raise _Budget
                else:
                    grid = {(0, i): ch for i, ch in enumerate(word)}
                    words = [(word.upper(), [(0, i) for i in range(len(word))], "w")]
                    found = self.grow(grid, words, left, r, b, heuristic)
            except _Budget:
                if not heuristic or self.steps > budget:
                    raise
                found = None
            finally:
                self.budget = budget
            if found is not None:
                return found
        return None

    def grow(self, grid: dict, words: list, left: Counter, red: int, black: int, heuristic: bool):
        """One step: extend the crossword ``grid`` (``(row, column) -> letter``) of
        ``words`` with every word the tiles ``left`` and the Jollys spell across a free
        crossing, longest first; ``(grid, words)`` when no tile is left, else None.
        The reference of :class:`bot.games._gridcore.PrestoTree` (the same steps)."""
        self.step()
        if not left and not red and not black:
            return grid, words
        key = frozenset(grid.items())
        if key in self.seen:
            return None
        self.seen.add(key)
        free: dict[str, list[tuple[tuple[int, int], str]]] = {}
        for _, squares, d in words:
            p = "s" if d == "w" else "w"
            dr, dc = (1, 0) if p == "s" else (0, 1)
            for r, c in squares:
                if (r - dr, c - dc) in grid or (r + dr, c + dc) in grid:
                    continue  # already crossed
                free.setdefault(grid[(r, c)].upper(), []).append(((r, c), p))
        if not free:
            return None
        must = None
        if heuristic and left:
            must = min(left, key=lambda ch: (RARITY.get(ch, 99), ch))
        cands = _spellings(self.root, left, red, black, frozenset(free), must)
        cands.sort(key=lambda s: (-len(s[0]), s[0], s[1]))
        for word, k, r, b in cands:
            for (sr, sc), p in free[word[k]]:
                dr, dc = (1, 0) if p == "s" else (0, 1)
                squares = [(sr + (i - k) * dr, sc + (i - k) * dc) for i in range(len(word))]
                if not self.fits(grid, squares, k, dr, dc):
                    continue
                g2 = dict(grid)
                for i, q in enumerate(squares):
                    if i != k:
                        g2[q] = word[i]
                used = Counter(ch for i, ch in enumerate(word) if i != k and ch.isupper())
                found = self.grow(g2, words + [(word.upper(), squares, p)], left - used, r, b, heuristic)
                if found is not None:
                    return found
        return None

    @staticmethod
    def fits(grid: dict, squares: list, k: int, dr: int, dc: int) -> bool:
        """The new word on ``squares`` (crossing at index ``k``) touches nothing else and
        the whole crossword stays within 25 x 25 squares."""
        first, last = squares[0], squares[-1]
        if (first[0] - dr, first[1] - dc) in grid or (last[0] + dr, last[1] + dc) in grid:
            return False
        for i, (r, c) in enumerate(squares):
            if i == k:
                continue
            if (r, c) in grid or (r + dc, c + dr) in grid or (r - dc, c - dr) in grid:
                return False
        rows = [r for r, _ in grid] + [first[0], last[0]]
        cols = [c for _, c in grid] + [first[1], last[1]]
        return max(rows) - min(rows) < SIZE and max(cols) - min(cols) < SIZE


def _rows(grid: dict) -> list[str]:
    r0 = min(r for r, _ in grid)
    c0 = min(c for _, c in grid)
    h = max(r for r, _ in grid) - r0 + 1
    w = max(c for _, c in grid) - c0 + 1
    out = [["."] * w for _ in range(h)]
    for (r, c), ch in grid.items():
        out[r - r0][c - c0] = ch
    return ["".join(row) for row in out]


def find_crossword(rack: str, lexicon: Any, *, budget: int = STEPS) -> Proof:
    """Search a crossword using every tile of ``rack`` (letters, ``?`` red Jolly, ``#``
    black Jolly) with the words of ``lexicon`` (see the module docstring); ``budget``:
    steps of both phases together. The crossword found is checked by the rules
    (:func:`bot.games.typdom.presto.judge`); a disagreement raises RuntimeError."""
    counts = Counter(ch for ch in rack if ch not in (RED_JOLLY, BLACK_JOLLY))
    red, black = rack.count(RED_JOLLY), rack.count(BLACK_JOLLY)
    root = graph_for(lexicon).root
    for letter in sorted(counts, key=lambda ch: (RARITY.get(ch, 99), ch)):
        if not _spellings(root, counts, red, black, None, letter, first_only=True):
            # every tile lies in a word spelled from the set's own tiles: a proof for
            # every crossword, not only tree-shaped ones
            return Proof("none", lonely=letter)
    search = _Search(root, budget)
    status = "none"
    found = None
    try:
        found = search.run(counts, red, black, heuristic=True)
        if found is None:
            search.seen.clear()
            found = search.run(counts, red, black, heuristic=False)
    except _Budget:
        status = "open"
    if found is None:
        return Proof(status, steps=min(search.steps, budget))
    grid, words = found
    rows = _rows(grid)
    verdict = judge(Crossword(tuple(rows)), rack, lexicon)
    if not verdict.valid:
        raise RuntimeError(f"Suche und Regeln widersprechen sich: {rows} ist {verdict.reason} ({verdict.message})")
    return Proof("found", rows, [w for w, _, _ in words], search.steps)

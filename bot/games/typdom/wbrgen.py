"""Turns a "Wer behält recht?" player can make: for the demo's simulated players (pure).

Rule source: :mod:`.wbr` and :mod:`.wbr_judge` (seed 002, "4. Wer behält recht?"); every
turn listed is judged valid by :func:`.wbr_judge.evaluate` before it is returned, so this
module decides nothing about the rules. For the turn due (see :data:`.wbr.DUTIES`) it lists:

- ``complete``: ``FERTIG WORD`` (the only turn allowed);
- ``start``: one tile beside a tile of the word to cross (or on M13 at the beginning),
  with a word that holds the new fragment and fits;
- ``continue`` (and after a purchase): the tile that grows the announced word, then a
  tile at either end with a new word;

new words that the rest of the rack could finish alone come first (their author has to
finish them when they come round), the longest of them first;

words come from ``words`` (the lexicon's words, as a list, so a game's turns search one
list), each tried on the table by the rules' own room check.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from bot.games.typdom import wbr_fit, wbr_judge, wbr_notation
from bot.games.typdom.table import CENTRE, Table
from bot.games.typdom.tiles import CONSONANTS, VOWELS

__all__ = ["turns"]


def _letters(rack: str) -> list[tuple[str, str]]:
    """(letter, written tile) for every letter the rack can lay: its letters, and what
    its Jollys may stand for (``*E``)."""
    out = [(t, t) for t in dict.fromkeys(rack) if t.isalpha()]
    for jolly, letters in (("?", VOWELS), ("#", CONSONANTS)):
        if jolly in rack:
            out += [(ch, "*" + ch) for ch in letters if ch not in rack]
    return out


_INDEX: dict[int, tuple[Sequence[str], dict[str, list[str]]]] = {}


def _bucket(words: Sequence[str], part: str) -> list[str]:
    """The words holding ``part``'s first two letters (or its letter), from an index built
    once per word list."""
    cached = _INDEX.get(id(words))
    if cached is None or cached[0] is not words:
        index: dict[str, list[str]] = {}
        for w in words:
            for key in {w[i:i + 2] for i in range(len(w) - 1)} | set(w):
                index.setdefault(key, []).append(w)
        _INDEX.clear()
        _INDEX[id(words)] = cached = (words, index)
    return cached[1].get(part[:2], [])


def _words_with(words: Sequence[str], part: str, rack: str, limit: int = 40, bluff: bool = True) -> list[str]:
    """Words holding ``part``: those the rest of ``rack`` could finish alone first (its
    author must finish it when it comes round), longer ones first among them; the others
    only with ``bluff``."""
    have = Counter(rack)

    def finishable(w: str) -> bool:
        need = Counter(w.replace(part, "", 1)) - have
        return sum(need.values()) <= have["?"] + have["#"]
    hits = [(w, f) for w in _bucket(words, part) if part in w and ((f := finishable(w)) or bluff)]
    hits.sort(key=lambda x: (not x[1], -len(x[0]) if x[1] else len(x[0]), x[0]))
    return [w for w, _ in hits[:limit]]


def turns(state: Mapping[str, Any], player: str, lexicon: Any, words: Sequence[str], *,
          limit: int = 6, bluff: bool = False) -> list[str]:
    """Up to ``limit`` valid turn lines for ``player`` (the mover) in ``state``, best
    first (see the module docstring); new words the rack could not finish alone only with
    ``bluff``. Empty when only ``KAUFEN``/``PASSE`` remain."""
    duty = state["duty"]
    word = state.get("word")
    rack = state["racks"].get(player, "")
    out: list[str] = []

    def ok(turn: wbr_notation.WbrTurn) -> bool:
        line = wbr_notation.format_turn(turn)
        if line in out:
            return False
        if wbr_judge.evaluate(state, player, turn, lexicon).valid:
            out.append(line)
        return len(out) >= limit

    def lay(q: tuple[int, int], tile: str, w: str | None = None) -> wbr_notation.WbrTurn:
        return wbr_notation.WbrTurn("lay", (wbr_notation.Lay(q[0], q[1], tile[-1], tile.startswith("*")),), w)

    if duty == "complete":
        ok(wbr_notation.WbrTurn("fertig", word=word["announced"]))
        return out
    base = (state.get("base_duty") or "continue") if duty == "after_buy" else duty
    table = Table.from_rows(state["board"])
    if base == "start":
        if table.is_empty():
            for letter, tile in _letters(rack):
                for w in _words_with(words, letter, rack.replace(letter, '', 1), 8, bluff):
                    if ok(lay(CENTRE, tile, w)):
                        return out
            return out
        cross = state.get("cross") or {}
        for r, c in wbr_fit.squares_of(cross.get("squares", [])):
            for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if not table.on_board(*q) or table.get(*q) is not None:
                    continue
                for letter, tile in _letters(rack):
                    before = q < (r, c)
                    part = letter + table.get(r, c).letter if before else table.get(r, c).letter + letter  # type: ignore[union-attr]
                    for w in _words_with(words, part, rack.replace(letter, '', 1), 6, bluff):
                        if ok(lay(q, tile, w)):
                            return out
        return out
    # continue: grow the announced word, then a new word at either end
    squares = wbr_fit.squares_of(word["squares"])
    frag = wbr_fit.letters_on(table, squares)
    ends = _ends(squares, word.get("direction"))
    for q, front in ends:
        for letter, tile in _letters(rack):
            grown = letter + frag if front else frag + letter
            if grown in word["announced"] and ok(lay(q, tile)):
                return out
    for q, front in ends:
        if not table.on_board(*q) or table.get(*q) is not None:
            continue
        for letter, tile in _letters(rack):
            grown = letter + frag if front else frag + letter
            for w in _words_with(words, grown, rack.replace(letter, '', 1), 6, bluff):
                if w != word["announced"] and ok(lay(q, tile, w)):
                    return out
    return out


def _ends(squares: Sequence[tuple[int, int]], direction: str | None) -> Iterable[tuple[tuple[int, int], bool]]:
    """The squares before and after a fragment: ((row, col), is in front)."""
    out = []
    for d in ([direction] if direction else ["w", "s"]):
        dr, dc = (0, 1) if d == "w" else (1, 0)
        out.append(((squares[0][0] - dr, squares[0][1] - dc), True))
        out.append(((squares[-1][0] + dr, squares[-1][1] + dc), False))
    return out


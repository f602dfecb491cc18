"""Typ-Dom "Wer behält recht?": where a named word fits on the table (pure).

Sources: seed 002, "4. Wer behält recht?": the word named must have room on the table
around the word being built ("daß für das Wort genügend Platz vorhanden ist und nicht
Wortverbindungen entstehen, die keinen Sinn ergeben"), and when its completion falls due
its author must lay every missing tile (with Jollys, the Kreuzwort-Spiel's rule). The
word being built is a run of squares (its *fragment*); :func:`fits` lists every way a
word lies over it (the ``room`` check of :mod:`.wbr_judge`), :func:`cover` the tiles of a
rack that lay what is missing, :func:`can_complete` whether the author can (a dropout
otherwise, :mod:`.wbr`). :func:`squares_of`, :func:`letters_on` and :func:`span_of` read a
fragment as the state stores it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Protocol, Sequence

from bot.games.grid import Placement as Tiled, run
from bot.games.typdom.table import Table, coord_name
from bot.games.typdom.tiles import jolly_for
from bot.games.verdict import N_, Verdict, verdict

__all__ = ["STEPS", "WordList", "Fit", "squares_of", "letters_on", "span_of", "contact", "fits", "cover",
           "can_complete"]

#: The step of a direction: ``"w"`` across (waagerecht), ``"s"`` down (senkrecht).
STEPS = {"w": (0, 1), "s": (1, 0)}


class WordList(Protocol):
    def __contains__(self, word: object) -> bool: ...


def squares_of(squares: Iterable[Sequence[int]]) -> list[tuple[int, int]]:
    return [(int(r), int(c)) for r, c in squares]


def letters_on(table: Table, squares: Sequence[tuple[int, int]]) -> str:
    return "".join(table.get(r, c).letter for r, c in squares)  # type: ignore[union-attr]


def span_of(squares: Sequence[tuple[int, int]]) -> str:
    if not squares:
        return ""
    if len(squares) == 1:
        return coord_name(*squares[0])
    return f"{coord_name(*squares[0])}-{coord_name(*squares[-1])}"


@dataclass(frozen=True)
class Fit:
    """One way a named word fits over the fragment: its squares (first to last), its
    direction, and the tiles it still needs (row, col, letter)."""

    squares: tuple[tuple[int, int], ...]
    direction: str
    missing: tuple[tuple[int, int, str], ...]


def contact(table: Table, r: int, c: int, letter: str, direction: str) -> str | None:
    """The word formed across ``direction`` through (r, c) with ``letter`` there, or None
    when no tile lies beside it that way."""
    dr, dc = STEPS[direction]
    across = run(table, {(r, c): letter}, r, c, dc, dr)
    if len(across) < 2:
        return None
    return "".join(letter if (rr, cc) == (r, c) else table.get(rr, cc).letter for rr, cc in across)  # type: ignore[union-attr]


def fits(table: Table, fragment: Sequence[tuple[int, int]], direction: str | None, word: str,
         lexicon: WordList) -> tuple[list[Fit], Verdict | None]:
    """Every way ``word`` fits on ``table`` over ``fragment`` (its squares in reading
    order; ``direction`` None for a single tile: both ways), and, when none does, why
    (a verdict, None when it fits or nothing was tried). See the module docstring, ``room``."""
    frag = letters_on(table, fragment)
    out: list[Fit] = []
    why: Verdict | None = None
    for d in ([direction] if direction else ["w", "s"]):
        dr, dc = STEPS[d]
        r0, c0 = fragment[0]
        k = word.find(frag)
        while k >= 0:
            start = (r0 - k * dr, c0 - k * dc)
            squares = [(start[0] + i * dr, start[1] + i * dc) for i in range(len(word))]
            before = (start[0] - dr, start[1] - dc)
            after = (squares[-1][0] + dr, squares[-1][1] + dc)
            problem: Verdict | None = None
            if not all(table.on_board(r, c) for r, c in squares):
                problem = verdict("edge", N_("{word} ginge über den Rand des Tisches"), word=word)
            elif table.get(*before) is not None or table.get(*after) is not None:
                problem = verdict("touch", N_("{word} stieße an einen Stein ({coord})"), word=word,
                                  coord=coord_name(*before) if table.get(*before) else coord_name(*after))
            missing = []
            for i, (r, c) in enumerate(squares):
                if problem:
                    break
                t = table.get(r, c)
                if t is not None:
                    if t.letter != word[i]:
                        problem = verdict("taken", N_("auf {coord} liegt {letter}, {word} bräuchte dort {need}"),
                                          coord=coord_name(r, c), letter=t.letter, word=word, need=word[i])
                    continue
                cw = contact(table, r, c, word[i], d)
                if cw is not None and cw not in lexicon:
                    problem = verdict("contact", N_("{letter} auf {coord} ergäbe {cross}, kein Wort"),
                                      letter=word[i], coord=coord_name(r, c), cross=cw)
                missing.append((r, c, word[i]))
            if problem:
                why = why or problem
            else:
                out.append(Fit(tuple(squares), d, tuple(missing)))
            k = word.find(frag, k + 1)
    return out, why


def cover(missing: Sequence[tuple[int, int, str]], rack: str, marked: Iterable[tuple[int, int]] = ()) -> tuple[list[Tiled], Counter] | None:
    """The tiles that lay ``missing`` from ``rack`` (letters first, a Jolly of the right
    colour for a letter the rack lacks, or where ``marked``), and the rack left; None when
    the rack cannot."""
    left = Counter(rack)
    marked = set(marked)
    tiles = []
    for r, c, letter in missing:
        if (r, c) not in marked and left[letter]:
            left[letter] -= 1
            tiles.append(Tiled(r, c, letter, False))
        elif left[jolly_for(letter)]:
            left[jolly_for(letter)] -= 1
            tiles.append(Tiled(r, c, letter, True))
        else:
            return None
    return tiles, left


def can_complete(state: Mapping[str, Any], lexicon: WordList) -> bool:
    """Whether the author of the word in progress can lay all its missing tiles now
    (their rack with Jollys; anywhere the word fits)."""
    word = state.get("word")
    if not word:
        return True
    table = Table.from_rows(state["board"])
    ways, _ = fits(table, squares_of(word["squares"]), word.get("direction"), word["announced"], lexicon)
    rack = state["racks"].get(word["author"], "")
    return any(cover(f.missing, rack) is not None for f in ways)

"""What the games' demo players share (:meth:`bot.games.base.GameRules.demo_player`):
the mail a simulated player sends, the styles of play, and how a player of a style picks
from ranked moves. Pure: no service, no mail; the demo (``bot/demo.py``) sends the mails.

Styles (a player's ``style`` in the demo's data; a game reads the ones it knows and plays
any other as ``stark``):

- ``stark``: the best moves, with the next best as Ersatzzüge;
- ``tippfehler``: a good move, often with a typo first (an Ersatzzug must count), or a
  broken first mail that is corrected;
- ``vorsichtig``: a safe, modest move;
- ``unzuverlaessig``: sometimes sends nothing (NMR);
- Crossword's ``anfaengerin`` (weak, claims a word that is not there) and ``wortjaeger``
  (lists a word twice); RONDO's ``sterk``, ``ruiler`` (exchanges a card now and then)
  and ``onbetrouwbaar`` (sometimes nothing).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

__all__ = ["DemoMail", "GERMAN_STYLES", "choose", "with_ersatz"]


#: The styles of the four German players of most demo leagues (``demo_leagues``), in seat
#: order; the demo (:mod:`bot.demo`) gives each style a player's name and address.
GERMAN_STYLES: tuple[str, ...] = ("stark", "tippfehler", "vorsichtig", "unzuverlaessig")


@dataclass(frozen=True)
class DemoMail:
    """One mail of a simulated player for one Partie: ``lines``, the Partie section's move
    lines as the player writes them (main move first, Ersatzzüge as the game writes them);
    ``after``: seconds after the round opened at which the mail reaches the server (its
    ``Received`` time; for games where arrival matters, Presto), None: now."""

    lines: tuple[str, ...]
    after: float | None = None


def with_ersatz(lines: Sequence[str]) -> list[str]:
    """``lines`` (main move first) with every line after the first marked ``Ersatz:``."""
    return list(lines[:1]) + [f"Ersatz: {ln}" for ln in lines[1:]]


def choose(style: str, ranked: Sequence[tuple[str, int]], rng: random.Random, unit: str = "Punkte") -> list[str]:
    """The move lines (main move first) a player of ``style`` sends, from the moves a
    generator found, best first, as ``(notation, score)``; each line says its points
    (``unit``). Empty when nothing was found."""
    if not ranked:
        return []
    notes = [f"{n} {sc} {unit}" for n, sc in ranked]
    if style == "stark":
        return notes[:3]
    if style == "tippfehler":
        pick = rng.randrange(min(8, len(notes)))
        lines = [notes[pick]] + notes[pick + 1:pick + 3]
        if rng.random() < 0.4:  # a typo in the main move: an Ersatzzug must count
            bad = ranked[pick][0]
            lines.insert(0, bad[:-1] + ("Q" if bad[-1] != "Q" else "X"))
        return lines
    if style == "vorsichtig":
        lo = len(notes) // 2
        pick = rng.randrange(lo, len(notes)) if len(notes) > 1 else 0
        return [notes[pick]]
    pick = rng.randrange(min(15, len(notes)))
    return [notes[pick]] + notes[pick + 1:pick + 2]

"""Typ-Dom: the deal, the seat order and purchases from the pool (pure).

Sources: seed 002, "1. Kreuzwort-Spiel" ("Der Spieler, der den Stein gezogen hat, der dem Z
am nächsten liegt, beginnt"; the racks of black and red tiles) with shared/RULES.md
"Typ-Dom"; the decisions (how the tiles are shuffled, ties by lot, which tile a purchase
takes) are in the docstring of :mod:`.game`. Every Typ-Dom game deals so: the
Kreuzwort-Spiel, Point-Typ-Dom, Presto and "Wer behält recht?". Shuffles and lots are
seeded by league seed and Partie, so a Partie is dealt the same every time.
"""

from __future__ import annotations

import random
from typing import Mapping, Sequence

from bot.games.typdom.tiles import LETTERS, black_tiles, colour, full_set, red_tiles, sort_rack

__all__ = ["deal", "seat_order", "draw"]


def _rng(seed: str, partie: str, *parts: object) -> random.Random:
    return random.Random("/".join([str(seed), str(partie), *map(str, parts)]))


def deal(seed: str, partie: str, players: Sequence[str], black: int, red: int) -> tuple[dict[str, str], str]:
    """(racks by player, pool): ``black`` + ``red`` tiles each from the shuffled black and
    red tiles, the rest shuffled into one pool (draw from the front)."""
    tiles = full_set()
    reds, blacks = red_tiles(tiles), black_tiles(tiles)
    _rng(seed, partie, "red").shuffle(reds)
    _rng(seed, partie, "black").shuffle(blacks)
    racks = {}
    for p in players:
        racks[p] = sort_rack(blacks[:black] + reds[:red])
        blacks, reds = blacks[black:], reds[red:]
    pool = blacks + reds
    _rng(seed, partie, "pool").shuffle(pool)
    return racks, "".join(pool)


def seat_order(seed: str, partie: str, players: Sequence[str], racks: Mapping[str, str]) -> tuple[list[str], dict]:
    """Seat order and how it came about: the player with the letter nearest Z begins,
    ties by lot, then league order around the table."""
    def top(p: str) -> str:
        letters = [t for t in racks[p] if t in LETTERS]
        return max(letters) if letters else ""
    best = max(top(p) for p in players)
    tied = [p for p in players if top(p) == best]
    lot = None
    starter = tied[0]
    if len(tied) > 1:
        starter = _rng(seed, partie, "seat").choice(sorted(tied))
        lot = {"candidates": sorted(tied), "chosen": starter}
    i = list(players).index(starter)
    order = list(players[i:]) + list(players[:i])
    return order, {"player": starter, "letter": best, "tied": tied, "lot": lot}


def draw(pool: str, n: int, want: str | None) -> tuple[str, str]:
    """(tiles drawn, pool left): ``n`` tiles from the front, of colour ``want`` first."""
    rest = list(pool)
    got = []
    for _ in range(n):
        if not rest:
            break
        idx = 0
        if want:
            idx = next((i for i, t in enumerate(rest) if colour(t) == want), 0)
        got.append(rest.pop(idx))
    return "".join(got), "".join(rest)

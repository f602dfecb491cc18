"""Rondo's simulated player for ``spielleiter demo`` (:meth:`RondoRules.demo_player
<bot.games.base.GameRules.demo_player>`): the moves the move generator finds on the Auslage
and Vorgabe the player sees, picked by the player's style (:func:`bot.games.demoplay.choose`)."""

from __future__ import annotations

import random
from typing import Any, Mapping

from bot.games.demoplay import DemoMail, choose, with_ersatz
from bot.games.rondo.cards import Row, Vorgabe
from bot.games.rondo.engine import Position
from bot.games.rondo.movegen import best_moves


def play(view: Mapping[str, Any], rng: random.Random, lexicon: Any, style: str) -> list[DemoMail] | None:
    """One mail: the chosen move with Ersatzzüge; None (NMR) for an unreliable player
    now and then, or when no word fits."""
    if style == "unzuverlaessig" and rng.random() < 0.25:
        return None
    pos = Position(Row.from_code(view["row"]), Vorgabe.parse(view["vorgabe"]), int(view["round"]))
    ranked = [(o.notation(pos), o.score or 0) for o in best_moves(pos, lexicon, None)]
    lines = choose(style, ranked, rng)
    return [DemoMail(tuple(with_ersatz(lines)))] if lines else None

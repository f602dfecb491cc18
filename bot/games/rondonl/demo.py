"""RONDO's simulated player for ``spielleiter demo`` (:meth:`RondoNLRules.demo_player
<bot.games.base.GameRules.demo_player>`), from their own hand and the row only, as a
player would: the best word of the hand in the opening and on their turn (``PAS`` when
none); ``ruiler`` exchanges their worst card half of the time first, ``onbetrouwbaar``
sometimes sends nothing."""

from __future__ import annotations

import random
from typing import Any, Mapping

from bot.games.demoplay import DemoMail
from bot.games.rondo.cards import Row
from bot.games.rondonl.cards import take
from bot.games.rondonl.engine import best_word

#: How bad a card is to keep (the exchange's pick); other letters 0.
WORST = {"Q": 9, "X": 8, "Y": 7, "C": 6}


def play(view: Mapping[str, Any], rng: random.Random, lexicon: Any, style: str) -> list[DemoMail] | None:
    """The turn's lines (an exchange and a word, one move), or the opening word; None
    when it is not the player's turn, or now and then for an unreliable player."""
    mine = view.get("mine") or {}
    if view.get("finished") or not mine.get("your_turn"):
        return None
    hand = mine["hand"]
    if view["phase"] == "opening":
        best = best_word(Row.empty(), hand.replace("/", ""), lexicon)
        return [DemoMail((best["notation"],) if best else ("PAS",))]
    if style == "onbetrouwbaar" and rng.random() < 0.3:
        return None
    row = Row.from_code(view["row"])
    if style == "ruiler" and rng.random() < 0.5:
        worst = max((c for c in hand if c not in "?/"), key=lambda c: WORST.get(c, 0), default=None)
        rest = take(hand, worst) if worst else None
        best = best_word(row, rest, lexicon) if rest else None
        if worst and best:
            return [DemoMail((f"RUIL {worst}", f"{best['notation']} {best['score']} punten"))]
    best = best_word(row, hand, lexicon)
    return [DemoMail((f"{best['notation']} {best['score']} punten",) if best else ("PAS",))]

"""Typ-Dom: the end scoring of a Partie (pure).

Sources: seed 002: the Kreuzwort-Spiel (the player out receives from every other player
1 per black tile, 3 per red tile and 10 per Jolly left; "Bei gleicher Punkteanzahl ist
kein Gewinner") and Point-Typ-Dom (+10 for going out first, every tile left counts minus
its value, a Jolly -10); the decisions for a Partie that cannot end so are in the
docstring of :mod:`.game`. "Wer behält recht?" scores as the Kreuzwort-Spiel.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from bot.games.typdom.tiles import left_value, point_value

__all__ = ["FINISH_BONUS", "end_scores"]

#: Point-Typ-Dom: the bonus of the first player out.
FINISH_BONUS = 10


def end_scores(variant: str, racks: Mapping[str, str], order: Sequence[str], first_out: str | None) -> dict[str, dict]:
    """The end scoring per player: ``{"rest": rack left, "points": change of the
    standings, "bonus": +10 for going out first (Point-Typ-Dom), "paid"/"received"
    (Kreuzwort-Spiel), "winner": bool}``; see the module docstring."""
    out: dict[str, dict] = {}
    if variant == "point":
        for p in order:
            rest = racks.get(p, "")
            minus = sum(point_value(t) for t in rest)
            bonus = FINISH_BONUS if p == first_out else 0
            out[p] = {"rest": rest, "minus": minus, "bonus": bonus, "points": bonus - minus, "winner": p == first_out}
        return out
    pay = {p: sum(left_value(t) for t in racks.get(p, "")) for p in order}
    winner = first_out
    if winner is None and pay:
        low = min(pay.values())
        lows = [p for p in order if pay[p] == low]
        winner = lows[0] if len(lows) == 1 else None
    for p in order:
        if winner is None:
            out[p] = {"rest": racks.get(p, ""), "paid": 0, "received": 0, "points": 0, "winner": False}
        elif p == winner:
            got = sum(v for q, v in pay.items() if q != winner)
            out[p] = {"rest": racks.get(p, ""), "paid": 0, "received": got, "points": got, "winner": True}
        else:
            out[p] = {"rest": racks.get(p, ""), "paid": pay[p], "received": 0, "points": -pay[p], "winner": False}
    return out

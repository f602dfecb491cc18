"""RONDO: whose hand a player plays and whose turn it is (pure).

Sources: seed 004 ("Vanaf vier personen kan RONDO gespeeld worden met teams van twee":
partners share one hand and one score) and shared/RULES.md "RONDO, the original" (one
turn per round in seat order from the opener on). A *side* is named by its first
player's key (the state's ``sides``; see the docstring of :mod:`.game`).
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["side_of", "partners", "mover"]

def side_of(state: Mapping[str, Any], player: str) -> str | None:
    """The side (hand owner) of ``player``: their own key, or their team's first key."""
    for side in state.get("sides", []):
        if player in side:
            return side[0]
    return None


def partners(state: Mapping[str, Any], player: str) -> list[str]:
    """Every player of ``player``'s side, ``player`` included (seat order)."""
    for side in state.get("sides", []):
        if player in side:
            return list(side)
    return [player]


def mover(state: Mapping[str, Any]) -> str | None:
    """The player whose turn it is (None in the opening or when the game is over)."""
    if state.get("phase") != "play" or state.get("finished"):
        return None
    order = state["order"]
    return order[state["turn"] % len(order)]

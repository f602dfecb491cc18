"""RONDO: the judged lines of a turn as the service stores them (pure).

Each line's verdict is the mover's alone (it is judged against their hand); only the
counted line has a public verdict (the word laid, PASSE, the opening word), so others
read every other line as "ungültig" or "nicht mehr probiert" (issue 31,
:meth:`bot.games.base.GameRules.seen_by`). Sources: seed 004 with the Rondo scoring
(seed 000 II.3), judged by :mod:`.engine`.
"""

from __future__ import annotations

from typing import Any, Sequence

from bot.games.base import MoveReport
from bot.games.rondo.engine import valid_verdict
from bot.games.rondonl.engine import LineResult, opening_verdict, passed_verdict

__all__ = ["first_reason", "move_reports"]

def first_reason(lines: Sequence[LineResult]) -> str | None:
    """The reason of the main line: the first word line (or PASSE), else the first line."""
    for r in lines:
        if r.kind in ("word", "pass", "syntax") and r.reason != "counted":
            return r.reason
    return lines[0].reason if lines else "empty"


def move_reports(lines: Sequence[LineResult], counted: int | None) -> list[MoveReport]:
    """The judged lines as the service stores them. ``verdict``: the line's verdict, for
    the mover alone (it is judged against their hand); ``public``: what every player may
    read of it, set only on the counted line (the word laid, PASSE, the opening word).
    Every other line others see only as "ungültig" or "nicht mehr probiert"
    (:meth:`GameRules.seen_by`; issue 31): even a valid exchange, whose count the
    Auswertung gives from the state ("1 Karte getauscht"), never its line."""
    out = []
    for r in lines:
        o = r.outcome
        detail: dict[str, Any] = {"kind": r.kind, "cards": r.cards}
        if o is not None and o.valid:
            detail.update(row=o.row.code, word=o.word, notation=o.notation(), pretty=o.row.pretty(),  # type: ignore[union-attr]
                          facedown=r.facedown)
        public = None
        if r.index == counted and r.valid:
            if r.kind == "pass":
                public = passed_verdict()
            elif r.kind == "opening" and o is not None:
                public = opening_verdict(o.word or "", (o.score or 0) - (o.bonus or 0))
            elif o is not None:
                public = valid_verdict(o.word or "", o.score or 0)
        out.append(MoveReport(r.index, r.text, r.valid, score=o.score if (o is not None and o.valid) else None,
                              bonus=o.bonus if (o is not None and o.valid) else None, reason=r.reason,
                              verdict=r.verdict, detail=detail, public=public))
    return out

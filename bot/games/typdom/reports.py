"""Typ-Dom (Kreuzwort-Spiel, Point-Typ-Dom): what a judged turn shows (pure).

A valid turn's public summary (:func:`summary`), the move report of a judged line
(:func:`move_report`) and the public record of a turn (:func:`turn_record`,
:func:`public_turn`). Verdicts are data (issue 31, :mod:`bot.games.verdict`): a counted
turn's summary is public; an invalid line's verdict and notes are the mover's alone, and
the public record keeps only the index of each line that failed (see the docstring of
:mod:`.game`). Sources: seed 002 (the scoring of the summary, :mod:`.engine`).
"""

from __future__ import annotations

from typing import Any, Mapping

from bot.games.base import MoveReport
from bot.games.typdom.outcome import Outcome
from bot.games.verdict import N_, Verdict, Visibility, verdict

__all__ = ["summary", "move_report", "SKIPPED", "turn_record", "public_turn", "to_all"]

def to_all(code: str, msgid: str, **params: object) -> Verdict:
    """A sentence every player may read (about a counted turn or the Partie)."""
    return verdict(code, msgid, seen=Visibility.PUBLIC, **params)


def _stones(n: int) -> Verdict:
    return to_all("stones", N_("1 Stein") if n == 1 else N_("{n} Steine"), n=n)


_COLOURS = {"rot": to_all("red", N_("rot")), "schwarz": to_all("black", N_("schwarz"))}


def summary(out: Outcome, variant: str = "point") -> Verdict:
    """What a valid turn did, as every player may read it: ``kauft 2 Steine (rot)``,
    ``EXAMEN (12 Punkte) + TEXT (5 Punkte); berührt: ES`` (Point-Typ-Dom) or
    ``EXAMEN + TEXT (7 Steine)`` (Kreuzwort-Spiel), a Jolly taken first in front."""
    if out.is_buy:
        n = out.buy or 1
        if out.buy_colour:
            return to_all("buy", N_("kauft {stones} ({colour})"), stones=_stones(n), colour=_COLOURS[out.buy_colour])
        return to_all("buy", N_("kauft {stones}"), stones=_stones(n))
    if variant == "point":
        parts = [to_all("points", N_("{word} (1 Punkt)") if p.score == 1 else N_("{word} ({n} Punkte)"),
                     word=p.word, n=p.score) for p in out.laid]
        msg = parts[0] if len(parts) == 1 else to_all("two", N_("{first} + {second}"), first=parts[0], second=parts[1])
    else:
        msg = to_all("tiles", N_("{words} ({stones})"), words=" + ".join(p.word for p in out.laid),
                      stones=_stones(out.tiles))
    contacts = [w for p in out.laid for w in p.words[1:]]
    if contacts:
        msg = to_all("contacts", N_("{laid}; berührt: {words}"), laid=msg, words=", ".join(contacts))
    if out.jolly_take:
        msg = to_all("jolly_taken", N_("Jolly von {coord} getauscht, {laid}"), coord=out.jolly_take["coord"], laid=msg)
    return msg


def move_report(index: int, text: str, out: Outcome, variant: str = "point") -> MoveReport:
    """The report of one line: an invalid line's verdict and notes are the mover's and it
    has no public verdict (others read "ungültig"); a valid line's summary is public."""
    if not out.valid:
        return MoveReport(index=index, text=text, valid=False, reason=out.reason, verdict=out.verdict,
                          notes=list(out.notes), public_notes=[])
    detail: dict[str, Any] = {"notation": out.notation, "words": out.words, "tiles": out.tiles,
                              "second": out.second, "laid": [p.to_json() for p in out.laid],
                              "jolly": out.jolly_take, "buy": out.buy, "buy_colour": out.buy_colour}
    msg = summary(out, variant)
    detail["summary"] = msg  # the acknowledgement shows this instead of words and points
    return MoveReport(index=index, text=text, valid=True, score=out.score if variant == "point" else 0, verdict=msg,
                      notes=list(out.notes), detail=detail, public=msg, public_notes=list(out.notes))


#: A line of a player whose turn never came (the Kreuzwort-Spiel ended in their round).
SKIPPED = verdict("skipped", N_("nicht mehr am Zug: die Partie war schon zu Ende"), seen=Visibility.PUBLIC)

_TURN_DEFAULTS: dict[str, Any] = {
    "kind": "invalid", "counted": None, "failed": [], "notation": None, "words": [], "laid": [], "score": 0,
    "tiles": 0, "second": False, "jolly": None, "second_missing": False, "bought": 0, "pool_empty": False,
    "out": False, "first_out": False, "rack_size": 0}


def turn_record(**kw: Any) -> dict[str, Any]:
    """One public turn record of a round (every key present, for the templates)."""
    return {**_TURN_DEFAULTS, **kw}


def public_turn(turn: Mapping[str, Any]) -> dict[str, Any]:
    """A turn record as the public view gives it: of each failed line only its index (a
    state stored before issue 31 kept its text, reason and public verdict too)."""
    return dict(turn, failed=[{"index": f.get("index")} for f in turn.get("failed") or []])

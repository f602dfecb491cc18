"""Typ-Dom (Kreuzwort-Spiel, Point-Typ-Dom): the judgement of a turn as data (pure).

What :func:`.engine.evaluate` makes of a turn: an :class:`Outcome` (valid with its
placements, each a :class:`Laid`, or invalid with a reason code and a verdict), the
reason codes in checking order (shared/conformance/README.md "Typ-Dom"; the checks are
in :mod:`.engine`) and their public gloss. Verdicts are data (issue 31,
:mod:`bot.games.verdict`): an invalid turn's verdict is the mover's (:func:`as_mover`).
Sources: seed 002 (the Point-Typ-Dom score of a placement, :mod:`.engine`).
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field

from bot.games.grid import Placement as Tiled
from bot.games.typdom.notation import Turn
from bot.games.typdom.table import Table
from bot.games.verdict import N_, Param, Verdict, VerdictText, Visibility, verdict

__all__ = ["REASONS", "reason_gloss", "as_mover", "Laid", "Outcome"]

#: Reason codes (shared/conformance/README.md "Typ-Dom"), in checking order, with a German
#: gloss (a msgid; :func:`reason_gloss` gives it as a verdict).
REASONS: dict[str, str] = {
    "syntax": N_("nicht lesbar"),
    "rack": N_("Steine nicht auf der Bank"),
    "off-board": N_("außerhalb des Tisches"),
    "mismatch": N_("passt nicht zum Tisch"),
    "gap": N_("Lücke im Wort"),
    "jolly": N_("Jolly nicht erlaubt"),
    "not-connected": N_("nicht angesetzt"),
    "no-tile": N_("kein Stein gelegt"),
    "second": N_("zweites Wort nicht erlaubt"),
    "word": N_("kein gültiges Wort"),
}


def reason_gloss(reason: str | None) -> Verdict | None:
    """The public gloss of a reason code (:data:`REASONS`) as a verdict, or None."""
    gloss = REASONS.get(reason or "")
    return verdict("gloss", gloss, seen=Visibility.PUBLIC) if gloss else None


def as_mover(v: Verdict) -> Verdict:
    """``v`` seen by the mover alone, every parameter too (a note about a line that was not
    played names that line, which others never see)."""
    return Verdict(v.code, v.msgid, {k: Param(p.value, Visibility.MOVER if p.seen is Visibility.PUBLIC else p.seen)
                                     for k, p in v.params.items()},
                   v.plural, Visibility.MOVER if v.seen is Visibility.PUBLIC else v.seen)


@dataclass
class Laid:
    """One valid placement: the canonical ``notation`` of its whole word, ``word``,
    ``words`` (the placed word first, then the contact words), ``tiles`` (the tiles
    laid, :class:`bot.games.grid.Placement`, a Jolly with ``blank`` True), ``score``
    (Point-Typ-Dom value), ``joins`` (it joins words: a second placement may follow),
    ``row``/``col``/``direction`` of the word's first square."""

    notation: str
    word: str
    words: list[str]
    tiles: list[Tiled]
    score: int
    joins: bool
    row: int
    col: int
    direction: str

    def to_json(self) -> dict:
        return {"notation": self.notation, "word": self.word, "words": list(self.words),
                "tiles": [t.to_json() for t in self.tiles], "score": self.score, "joins": self.joins}


@dataclass
class Outcome(VerdictText):
    """The judgement of one turn.

    Valid: ``laid`` (one or two :class:`Laid`), ``jolly_take`` (``{"row", "col",
    "coord", "letter", "jolly"}`` of a Jolly taken, or None), ``buy`` (tiles to buy,
    None unless a purchase), ``buy_colour``, ``rack_after`` (the rack after the turn,
    before any purchase), ``notation`` (canonical). Invalid: ``reason`` (a code of
    :data:`REASONS`) and ``verdict`` (a :class:`~bot.games.verdict.Verdict` for the
    mover; ``message`` is its German text). ``notes``: verdicts that never change the
    outcome (public for a valid turn, the mover's for an invalid one).
    """

    valid: bool
    turn: Turn | None = None
    laid: list[Laid] = dc_field(default_factory=list)
    jolly_take: dict | None = None
    buy: int | None = None
    buy_colour: str | None = None
    rack_after: str = ""
    reason: str | None = None
    verdict: Verdict | None = None
    notes: list[Verdict] = dc_field(default_factory=list)
    notation: str = ""

    @property
    def words(self) -> list[str]:
        """Every word the placements form: each placed word followed by its contact words."""
        return [w for p in self.laid for w in p.words]

    @property
    def second(self) -> bool:
        """True when the first placement joins words (a second placement is allowed)."""
        return bool(self.laid) and self.laid[0].joins

    @property
    def score(self) -> int:
        """Point-Typ-Dom points of the turn (0 for a purchase)."""
        return sum(p.score for p in self.laid)

    @property
    def tiles(self) -> int:
        """Tiles laid from the rack into words (the letter laid for a taken Jolly not counted)."""
        return sum(len(p.tiles) for p in self.laid)

    @property
    def is_buy(self) -> bool:
        return self.buy is not None

    def apply(self, table: Table) -> Table:
        """The table after this turn (unchanged for a purchase)."""
        if self.jolly_take:
            j = self.jolly_take
            table = table.replace(j["row"], j["col"], Table.TILE(j["letter"], False))
        for p in self.laid:
            table = table.place(p.tiles)
        return table

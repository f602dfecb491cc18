"""Typ-Dom "Wer behält recht?": the judgement of a turn as data (pure).

An :class:`Outcome` is what :func:`.wbr_judge.evaluate` makes of a turn (seed 002, "4.
Wer behält recht?"; the checks are in :mod:`.wbr_judge`) and what :func:`.wbr.apply`
plays. What the rules say is data (issue 31, :mod:`bot.games.verdict`): an invalid
turn carries a verdict for the mover; a valid one's :meth:`Outcome.summary` is a public
verdict (``legt E auf M13, sagt ESEL an``).
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field

from bot.games.grid import Placement as Tiled
from bot.games.typdom.table import Table, coord_name
from bot.games.verdict import N_, Verdict, Visibility, verdict

__all__ = ["Outcome"]

_PUBLIC = Visibility.PUBLIC
_COLOURS = {"rot": verdict("colour", N_("rot"), seen=_PUBLIC),
            "schwarz": verdict("colour", N_("schwarz"), seen=_PUBLIC)}
_PREMIUMS = {"quadrat": verdict("premium", N_("Quadrat"), seen=_PUBLIC),
             "selbstlaut": verdict("premium", N_("Kreuzung im Selbstlaut"), seen=_PUBLIC)}


@dataclass
class Outcome:
    """The judgement of one turn.

    Valid: ``kind`` (``"lay"``, ``"fertig"``, ``"kaufen"``, ``"passe"``), ``tiles`` (laid,
    in order), ``take`` (a Jolly taken: ``{"row", "col", "coord", "letter"}``),
    ``fragment`` and ``direction`` (the word being built after the turn), ``announced``
    and ``author`` after the turn, ``new`` (a new announcement), ``premium``
    (``"quadrat"``, ``"selbstlaut"`` or None), ``completed`` (the word is finished),
    ``contacts`` (words the tiles formed across), ``rack_after``, ``colour`` (of a
    purchase), ``notation``. Invalid: ``reason`` and ``verdict`` (for the mover: it may
    name the rack and the line; others learn only that the line was invalid, issue 31).
    ``notes``: verdicts that never change the outcome (a public one may be shown to all
    with the counted turn)."""

    valid: bool
    kind: str = ""
    reason: str | None = None
    verdict: Verdict | None = None
    notes: list[Verdict] = dc_field(default_factory=list)
    tiles: list[Tiled] = dc_field(default_factory=list)
    take: dict | None = None
    fragment: list[tuple[int, int]] = dc_field(default_factory=list)
    direction: str | None = None
    announced: str | None = None
    author: str | None = None
    new: bool = False
    premium: str | None = None
    completed: bool = False
    contacts: list[str] = dc_field(default_factory=list)
    rack_after: str = ""
    colour: str | None = None
    notation: str = ""

    @property
    def message(self) -> str:
        """The verdict of an invalid turn in German, as the mover reads it ("" when valid)."""
        return self.verdict.text("de") if self.verdict is not None else ""

    def summary(self, table_before: Table | None = None) -> Verdict:
        """What a valid turn does, as a public verdict (code ``turn``): a sentence part
        after the player's name ("legt E auf M13, sagt ESEL an")."""
        if self.kind == "kaufen":
            if self.colour:
                return verdict("turn", N_("kauft einen Stein ({colour})"), seen=_PUBLIC, colour=_COLOURS[self.colour])
            return verdict("turn", N_("kauft einen Stein"), seen=_PUBLIC)
        if self.kind == "passe":
            return verdict("turn", N_("passt"), seen=_PUBLIC)
        laid = [verdict("tile", N_("Jolly als {letter} auf {coord}") if t.blank else N_("{letter} auf {coord}"),
                        seen=_PUBLIC, letter=t.letter, coord=coord_name(t.row, t.col)) for t in self.tiles]
        word = self.announced or ""
        if self.kind == "fertig":
            out = verdict("turn", N_("vollendet {word} ({laid})"), seen=_PUBLIC, word=word, laid=laid) if laid \
                else verdict("turn", N_("vollendet {word}"), seen=_PUBLIC, word=word)
        else:
            if self.premium:
                why = _PREMIUMS[self.premium]
                premium = verdict("premium", N_("zweiter Stein als Prämie: {why}"), seen=_PUBLIC, why=why) \
                    if len(self.tiles) > 1 else \
                    verdict("premium", N_("Prämie nicht genutzt: {why}"), seen=_PUBLIC, why=why)
                msgid = N_("legt {laid} ({premium}), sagt {word} an") if self.new else \
                    N_("legt {laid} ({premium}), baut an {word} weiter")
                out = verdict("turn", msgid, seen=_PUBLIC, laid=laid, premium=premium, word=word)
            else:
                msgid = N_("legt {laid}, sagt {word} an") if self.new else N_("legt {laid}, baut an {word} weiter")
                out = verdict("turn", msgid, seen=_PUBLIC, laid=laid, word=word)
            if self.completed:
                out = verdict("turn", N_("{turn}; {word} ist fertig"), seen=_PUBLIC, turn=out, word=word)
        if self.take:
            out = verdict("turn", N_("tauscht den Jolly auf {coord}, {turn}"), seen=_PUBLIC,
                          coord=self.take["coord"], turn=out)
        return out

"""Crossword's verdict wording (seed 003): the public glosses of a placement's reasons
and the mover's counted sentences (singular and plural msgids for Babel), as data for
:mod:`bot.games.crossword.game`."""

from __future__ import annotations

from typing import Sequence

from bot.games.verdict import N_, Verdict, Visibility, verdict
from bot.games.verdict import PLURALS as _P


#: Public glosses of the placement reasons (:meth:`CrosswordRules.reason_gloss`).
GLOSSES = {
    "syntax": verdict("syntax", N_("nicht lesbar"), seen=Visibility.PUBLIC),
    "off-board": verdict("off-board", N_("Feld außerhalb des Spielfelds"), seen=Visibility.PUBLIC),
    "occupied": verdict("occupied", N_("Feld schon belegt"), seen=Visibility.PUBLIC),
    "letters": verdict("letters", N_("nicht die Buchstaben dieser Runde"), seen=Visibility.PUBLIC),
}


PLACED = _P.ngettext("{n} Buchstabe gelegt.", "{n} Buchstaben gelegt.")
LISTED = _P.ngettext("{n} Wort gelistet; ob es gilt, prüft die Auswertung.",
                      "{n} Wörter gelistet; ob sie gelten, prüft die Auswertung.")


def plural(code: str, forms: tuple[str, str], n: int, seen: Visibility = Visibility.MOVER) -> Verdict:
    return verdict(code, forms[0], plural=forms[1], seen=seen, n=n)


def sentences(parts: Sequence[Verdict]) -> Verdict:
    """Sentences one after the other, as one verdict (the mover's)."""
    out = parts[-1]
    for part in reversed(parts[:-1]):
        out = verdict("sentences", N_("{first} {rest}"), first=part, rest=out)
    return out

"""A move line in a game's own spelling (issue 33): ``Ä Ö Ü ß`` as the game's alphabet
writes them, or the public ``syntax`` verdict that names a letter the game cannot take
where it stands (:meth:`bot.games.base.GameRules.spell`)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.verdict import N_, Param, Verdict
from bot.games.visibility import Visibility
from bot.lexicon.alphabet import get_alphabet, spell_line
from bot.lexicon.errors import LexiconError


@dataclass(frozen=True)
class Spelled:
    """A move line in the game's own spelling (:meth:`GameRules.spell`): ``text``, and
    ``verdict`` (None, or why a letter cannot be read where it stands) and ``probe``
    (then: the line with that letter replaced by one the game takes)."""

    text: str
    verdict: "Verdict | None" = None
    probe: str = ""


def spell_for(text: str, alphabet: str, *, one_square: bool = False) -> Spelled:
    """``text`` spelled in the alphabet named ``alphabet`` (:func:`bot.lexicon.alphabet.spell_line`;
    ``one_square``: a lone letter stands on one field, :attr:`GameRules.one_square_letters
    <bot.games.base.GameRules.one_square_letters>`): ``Spelled(text)`` in the game's
    spelling, or the unchanged text with the verdict and the probe. An unknown alphabet (a
    test game's): the text as it is. Never raises."""
    try:
        alpha = get_alphabet(alphabet)
    except LexiconError:  # a test game without a known alphabet: nothing to spell
        return Spelled(text)
    sp = spell_line(text, alpha, one_square=one_square)
    if not sp.problems:
        return Spelled(sp.text)
    ch, spelled, why = sp.problems[0]
    if why == "joker":
        msgid = N_("*{ch} geht nicht: hinter * steht genau ein Buchstabe, und {ch} wird in "
                   "diesem Spiel {spelled} geschrieben (zwei Buchstaben). Bitte die beiden "
                   "Buchstaben einzeln schreiben.")
    elif why == "square":
        msgid = N_("{ch} geht hier nicht: ein Feld hält genau einen Buchstaben, und {ch} wird "
                   "in diesem Spiel {spelled} geschrieben (zwei Felder).")
    elif spelled:
        msgid = N_("Den Buchstaben {ch} kennt dieses Spiel nicht: bitte {spelled} schreiben "
                   "(ohne Akzent).")
    else:
        msgid = N_("Den Buchstaben {ch} kennt dieses Spiel nicht: geschrieben wird mit "
                   "{letters}.")
    letters = "A-Z" + "".join(", " + c for c in alpha.letters if c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return Spelled(text, Verdict("syntax", msgid, {"ch": Param(ch, Visibility.PUBLIC),
                                           "spelled": Param(spelled, Visibility.PUBLIC),
                                           "letters": Param(letters, Visibility.PUBLIC)},
                         None, Visibility.PUBLIC), sp.probe)

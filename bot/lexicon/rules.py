"""A game's word rules on top of the source dictionary (RULES.md "Common to all games":
a language is a source dictionary plus a game's word rules).

:data:`GAME_WORD_RULES` maps an alphabet name (one per game, see
:data:`bot.lexicon.alphabet.ALPHABETS`) to the :class:`WordRules` that
:func:`bot.lexicon.load` puts on top of the shared igerman98 word set for that game.
A league's GM allow- and deny-list still win over these (``Lexicon.with_lists``).

Crossword (seed 003, section 3: "Erlaubt sind alle Wörter, die im Duden stehen, mit
Ausnahme von Abkürzungen. Kurzworte und Namen sind erlaubt"). What igerman98 holds,
measured on hunspell-de-de 2017-01 (README "Crossword"): the shared word set keeps
proper names (igerman98 does not mark them: ANNA, OTTO, BERLIN, RHEIN, GOETHE are in it)
and Kurzwörter written as words (KITA, KRIPO, UNI, ABI, NATO, AIDS); it drops the
all-capital initialisms (CDU, ZDF, UFO, USA: 282 entries) as abbreviations, and forms
without a vowel (LKW, KM). Two-letter words count in Crossword (1 point); of the 33 in
the shared set, AD, DE, EO and ET are only parts of Latin phrases (ad hoc, de facto,
eo ipso, et cetera) and CO is the abbreviation of "& Co.": the crossword word set
leaves these five out.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class WordRules:
    """Words a game leaves out of the source dictionary: ``exclude`` (normalised, upper
    case) and the German ``reason`` a verdict gives for them (after the word)."""

    exclude: frozenset[str] = field(default_factory=frozenset)
    reason: str = "ist nach den Wortregeln des Spiels ungültig."


#: Alphabet name -> the game's word rules (alphabets without an entry: none).
GAME_WORD_RULES: dict[str, WordRules] = {
    "crossword": WordRules(
        frozenset({"AD", "DE", "EO", "ET", "CO"}),
        "ist ungültig: kein eigenes Wort, nur Teil einer fremdsprachigen Wendung (ad hoc, de facto, "
        "eo ipso, et cetera) oder eine Abkürzung (& Co.), seed 003."),
}

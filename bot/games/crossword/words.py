"""Crossword's word rules on top of the German word list (the ``crossword`` alphabet;
declared as :attr:`CrosswordRules.word_rules <bot.games.crossword.game.CrosswordRules>`,
applied by :func:`bot.lexicon.load`).

Crossword (seed 003, section 3: "Erlaubt sind alle Wörter, die im Duden stehen, mit
Ausnahme von Abkürzungen. Kurzworte und Namen sind erlaubt"). What igerman98 holds,
measured on hunspell-de-de 2017-01 (docs/development/lexicon.md): the shared word set keeps
proper names (igerman98 does not mark them: ANNA, OTTO, BERLIN, RHEIN, GOETHE are in it)
and Kurzwörter written as words (KITA, KRIPO, UNI, ABI, NATO, AIDS); it drops the
all-capital initialisms (CDU, ZDF, UFO, USA: 282 entries) as abbreviations, and forms
without a vowel (LKW, KM). Two-letter words count in Crossword (1 point); of the 33 in
the shared set, AD, DE, EO and ET are only parts of Latin phrases (ad hoc, de facto,
eo ipso, et cetera) and CO is the abbreviation of "& Co.": the crossword word set
leaves these five out.
"""

from __future__ import annotations

from bot.games.verdict import N_
from bot.lexicon.rules import WordRules

#: The five two-letter forms the crossword word set leaves out, with the reason a
#: verdict gives after the word (German: the lexicon's verdicts are German).
WORD_RULES = WordRules(
    frozenset({"AD", "DE", "EO", "ET", "CO"}),
    N_("ist ungültig: kein eigenes Wort, nur Teil einer fremdsprachigen Wendung (ad hoc, de facto, "
       "eo ipso, et cetera) oder eine Abkürzung (& Co.), seed 003."))

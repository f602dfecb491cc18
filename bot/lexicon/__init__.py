"""The shared lexicon: which words are valid, per game alphabet.

Rule source: ``shared/RULES.md``, section "Common to all games":

* a word must be a dictionary headword or an inflected form of one; no abbreviations;
  compounds only where the dictionary lists them;
* the free reference is igerman98 (Debian package ``hunspell-de-de``), expanded to all
  its inflected forms;
* every league has a GM allow-list and deny-list that win over the dictionary, and a GM
  can load a word list of their own instead (:meth:`Lexicon.from_words`,
  :meth:`Lexicon.from_file`);
* letters: games are case-insensitive; Rondo, Crossword and Typ-Dom spell Ä Ö Ü as
  AE OE UE and ß as SS (seed 000, "Umlaute sind durch AE usw., ß durch SS zu bilden");
  Monoscrabble has Ä Ö Ü tiles of its own and spells ß as SS.

Modules: :mod:`~bot.lexicon.alphabet` (alphabets, spelling), :mod:`~bot.lexicon.words`
(:class:`Lexicon`, verdicts), :mod:`~bot.lexicon.hunspell` (reading hunspell
dictionaries), :mod:`~bot.lexicon.sources` (one module per source dictionary:
``igerman98`` German, ``opentaal`` Dutch), :mod:`~bot.lexicon.cache` (build and load the
marisa cache), :mod:`~bot.lexicon.cli` (the ``lexicon`` commands), :mod:`~bot.lexicon.rules`
(the generic machinery of a game's word rules on top of the dictionary, which the game
gives and the callers pass down: words left out at load time -- Crossword's Latin phrase
fragments such as DE, ET, :mod:`bot.games.crossword.words` -- and a build layer that
rewrites the igerman98 entries before they are expanded -- Typ-Dom's, verbs only in the
infinitive, no family or brand names, :mod:`bot.games.typdom.words` -- whose entries the
German source expands like the others).

The Dutch list (alphabets ``nl`` and ``nl-namen``, RONDO seed 004) is described in
:mod:`bot.lexicon.sources.opentaal`; its cache lies in the sub-directory ``opentaal/``
with the same layout as below.

How the word list is made (:func:`build`)
-----------------------------------------
``unmunch`` (Debian package ``hunspell-tools``) expands ``de_DE.dic`` with the affix
rules of ``de_DE.aff`` -- hunspell's own expansion.  Before expanding, dictionary
entries are dropped whose flags say they are not words on their own:

* ``ONLYINCOMPOUND`` (igerman98 flag ``o``): compound-end fragments such as ``äbte``;
* ``NEEDAFFIX`` (flag ``h``): compound-begin forms such as ``Leistungs``, ``Abschalt``;
* ``FORBIDDENWORD`` (flag ``d``): known misspellings such as ``Viellicht``; all forms
  expanded from these entries are removed from the result as well.

From the expanded lines we then drop: the licence header, lines containing ``-``,
``/``, ``|``, a digit, ``.`` or white space (compound-fragment and flag junk,
abbreviations such as ``Abb.``), forms with a capital letter after the first character
(acronyms such as ``GmbH``, ``USA``, ``PCs``; the Binnen-I forms such as
``ÄbtissIn`` go too, they are duplicates of ``Äbtissin``), one-letter forms and forms
without a vowel (abbreviations written without a dot: ``Lkw``, ``km``, ``Bsp``).
Finally every form is normalised per alphabet (:func:`normalise`); forms with letters
outside the alphabet (é, ê, ñ, à, â: ``Café``, ``Crêpe``) are dropped -- GMs can
allow-list a spelling such as ``CAFE`` if their league wants it.

Known gaps of the dictionary itself: igerman98 produces many compounds only through
hunspell's free compounding, which the rules exclude, so e.g. ``Werkzeug``,
``Freizeit``, ``Mitarbeiter`` are listed only as compound-begin forms (flag ``h``) and
are therefore not valid here; the GM allow-list is the remedy.  Proper names are not
marked in igerman98 and are kept (Typ-Dom's word rules take family, company and brand
names out of its own list, :mod:`bot.games.typdom.words`).

Cache layout (:func:`default_cache_dir`)
----------------------------------------
Per distinct alphabet (``rondo``, ``monoscrabble`` and ``typdom``, the last with its word
rules, built only when the game's layer is given; ``crossword`` shares rondo's files): ``<alphabet>.marisa`` (all valid forms),
``<alphabet>.heads.marisa`` (the headwords, i.e. the dictionary stems) and
``<alphabet>.prefixes.marisa`` (every prefix of every form, so that
:meth:`Lexicon.has_prefix` is one exact lookup), plus ``manifest.json``.  The tries are
loaded with ``mmap``: loading takes milliseconds and the pages are shared between
processes.
"""

from __future__ import annotations

from bot.lexicon.alphabet import ALPHABETS, Alphabet, get_alphabet, normalise
from bot.lexicon.cache import (DEFAULT_AFF, DEFAULT_DIC, FORMAT_VERSION, _clear_memo, build, build_all,
                               build_source, default_cache_dir, load, source_dir)
from bot.lexicon.sources import SOURCES, get_source
from bot.lexicon.sources.base import Source
from bot.lexicon.cli import cli_build, cli_check
from bot.lexicon.errors import LexiconError
from bot.lexicon.rules import BuildLayer, WordRules
from bot.lexicon.words import DICTIONARY_NAME, VERDICT_CODES, Lexicon, Verdict, union

__all__ = [
    "Alphabet",
    "ALPHABETS",
    "FORMAT_VERSION",
    "DEFAULT_DIC",
    "DEFAULT_AFF",
    "LexiconError",
    "Verdict",
    "VERDICT_CODES",
    "Lexicon",
    "WordRules",
    "BuildLayer",
    "union",
    "normalise",
    "get_alphabet",
    "default_cache_dir",
    "build",
    "build_source",
    "build_all",
    "source_dir",
    "SOURCES",
    "Source",
    "get_source",
    "load",
    "cli_build",
    "cli_check",
    "DICTIONARY_NAME",
    "_clear_memo",
]


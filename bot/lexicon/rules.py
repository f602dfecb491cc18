"""A game's word rules on top of the source dictionary (RULES.md "Common to all games":
a language is a source dictionary plus a game's word rules).

A game declares its rules (``GameRules.word_rules``, a :class:`WordRules`) and the callers
pass them to :func:`bot.lexicon.load` (and, for a build, the layers to
:func:`bot.lexicon.build`); the lexicon knows no game. Two kinds:

- **Exclusions at load time** (:attr:`WordRules.exclude`; Crossword's are in
  :mod:`bot.games.crossword.words`): :func:`bot.lexicon.load` leaves those words out of
  the shared word set, with the German reason a verdict gives.
- **A rewrite at build time** (:attr:`WordRules.layer`, a :data:`BuildLayer`; Typ-Dom's is
  in :mod:`bot.games.typdom.words`): the dictionary entries are rewritten before they are
  expanded, when a rule depends on the dictionary's affix flags (Typ-Dom: verbs only in
  the infinitive). An alphabet whose word list needs one names it (``Alphabet.rules``,
  the key of its cache files and of its figures in the manifest); the source module
  applies the callable it is given to the kept entries and expands the result by its own
  code path (:func:`bot.lexicon.sources.igerman98.read`). An alphabet whose layer is not
  given is not built (:func:`bot.lexicon.build` keeps its files from an earlier build of
  the same dictionary).

A league's GM allow- and deny-list still win over both (``Lexicon.with_lists``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

#: A build-time word-rule layer: the kept dictionary entries (``stem/flags`` lines of the
#: source's .dic) -> ``(rewritten entries, figures)``; the figures (name -> int or bool)
#: are recorded in the cache manifest under ``rules`` and printed by ``lexicon build``.
BuildLayer = Callable[[list[str]], tuple[list[str], dict]]

#: Build layers by the name an :class:`~bot.lexicon.alphabet.Alphabet` gives in ``rules``.
BuildLayers = Mapping[str, BuildLayer]


@dataclass(frozen=True)
class WordRules:
    """A game's word rules: ``exclude`` (words left out at load time, normalised, upper
    case), the German ``reason`` a verdict gives for them (after the word), and ``layer``
    (a :data:`BuildLayer` the word list of the game's alphabet is built with, for an
    alphabet naming one in ``Alphabet.rules``; None: none). The layer takes no part in
    equality: the built word list is the same whoever passes it."""

    exclude: frozenset[str] = field(default_factory=frozenset)
    reason: str = "ist nach den Wortregeln des Spiels ungültig."
    layer: BuildLayer | None = field(default=None, compare=False)


def layers_of(alphabet_rules: str, rules: WordRules | None) -> dict[str, BuildLayer]:
    """``{alphabet_rules: rules.layer}`` when both are given, else ``{}``: the layers
    :func:`bot.lexicon.build` needs for one game's alphabet."""
    if alphabet_rules and rules is not None and rules.layer is not None:
        return {alphabet_rules: rules.layer}
    return {}

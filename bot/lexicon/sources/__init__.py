"""The source dictionaries the word lists are built from, one module each:
:mod:`~bot.lexicon.sources.igerman98` (German, Debian ``hunspell-de-de``) and
:mod:`~bot.lexicon.sources.opentaal` (Dutch, Debian ``hunspell-nl``).

A source turns its dictionary files into :class:`~bot.lexicon.sources.base.Forms` (every valid form as the
dictionary spells it, and the headwords; for each build-time word-rule layer it is
given, :data:`bot.lexicon.rules.BuildLayer`, the forms of the rewritten entries, expanded by
the same code); :mod:`bot.lexicon.cache` spells them in each alphabet of that source
(:attr:`bot.lexicon.alphabet.Alphabet.source`) and writes the tries. German keeps the
original cache layout in the cache directory itself; every other source has a
sub-directory of its own with the same layout (``opentaal/manifest.json``,
``opentaal/nl.marisa`` ...).
"""

from __future__ import annotations

from bot.lexicon.sources import igerman98, opentaal
from bot.lexicon.sources.base import Source


def _sources() -> dict[str, Source]:
    return {s.name: s for s in (igerman98.SOURCE, opentaal.SOURCE)}


#: Every source dictionary by name.
SOURCES: dict[str, Source] = _sources()


def get_source(name: str) -> Source:
    """The :class:`Source` called ``name``; KeyError naming the known ones."""
    try:
        return SOURCES[name]
    except KeyError:
        raise KeyError(f"unknown source dictionary {name!r}; known: {', '.join(SOURCES)}") from None

"""Errors of the lexicon package."""

from __future__ import annotations

class LexiconError(Exception):
    """Any failure to build or load the lexicon, or an unknown game/alphabet name.

    The message is German and English and, where it helps, names the fix (e.g. the apt
    packages ``hunspell-de-de`` and ``hunspell-tools``).
    """

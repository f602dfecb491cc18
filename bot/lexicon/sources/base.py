"""What a source dictionary is (:class:`Source`) and what it yields (:class:`Forms`), in a
module of their own so the source modules and :mod:`bot.lexicon.sources` (which lists
them) do not import each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


@dataclass
class Forms:
    """What a source dictionary yields: ``version`` (of the dictionary, or None),
    ``raw`` (number of expanded lines before filtering), ``forms`` (valid forms, as the
    dictionary spells them), ``heads`` (the dictionary stems among them), ``dropped``
    (reason -> count), ``names`` (forms that are proper names, a subset of ``forms``, for
    sources that mark them; empty otherwise), ``rule_forms`` (word-rule layer name -> the
    valid forms of the entries that layer rewrote, :data:`bot.lexicon.rules.BuildLayer`;
    used instead of ``forms`` by an alphabet naming the layer) and ``rule_stats`` (layer
    name -> the layer's figures, e.g. ``{"verb_entries": int, ...}``)."""

    version: str | None
    raw: int
    forms: set[str]
    heads: set[str]
    dropped: dict[str, int] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    rule_forms: dict[str, set[str]] = field(default_factory=dict)
    rule_stats: dict[str, dict] = field(default_factory=dict)


@dataclass(frozen=True)
class Source:
    """One source dictionary: ``name`` (the key), ``title`` (shown in verdicts, e.g.
    ``igerman98``), ``dic``/``aff`` (the hunspell files), ``packages`` (apt packages it
    needs, named in errors), ``subdir`` (its cache directory below the lexicon cache;
    ``""`` for the German original layout), ``read`` (``read(dic, aff, tmp, layers) ->
    Forms``: ``tmp`` a scratch directory, ``layers`` the word-rule layers to apply to the
    dictionary entries, name -> :data:`bot.lexicon.rules.BuildLayer`; raises :class:`bot.lexicon.LexiconError`)."""

    name: str
    title: str
    dic: Path
    aff: Path
    packages: tuple[str, ...]
    subdir: str
    read: Callable[[Path, Path, Path, tuple[str, ...]], Forms]

    def installed(self) -> bool:
        """Whether the dictionary files are on this machine."""
        return self.dic.is_file() and self.aff.is_file()

"""The German source dictionary: igerman98 from Debian's ``hunspell-de-de``.

Expanded with hunspell's own ``unmunch`` (``hunspell-tools``) after dropping the entries
hunspell marks as compound-only (``ONLYINCOMPOUND``), needing an affix (``NEEDAFFIX``) or
forbidden (``FORBIDDENWORD``); then lines that are no words are dropped (see
:func:`bot.lexicon.hunspell._form_reason` and the package docstring of
:mod:`bot.lexicon`). Proper names are not marked in igerman98 and are kept.

A build-time word-rule layer (:data:`bot.lexicon.rules.BuildLayer`, given by the caller; a
game's, e.g. Typ-Dom's in :mod:`bot.games.typdom.words`) rewrites the kept entries (it
reads igerman98's affix flags); its entries go through the same expansion and filter
(:func:`_expand_words`) as the kept ones.
"""

from __future__ import annotations

from pathlib import Path

from bot.lexicon.errors import LexiconError
from bot.lexicon.hunspell import _Aff, _form_reason, _read_aff, _read_dic, _unmunch
from bot.lexicon.rules import BuildLayers
from bot.lexicon.sources.base import Forms, Source

DIC = Path("/usr/share/hunspell/de_DE.dic")
AFF = Path("/usr/share/hunspell/de_DE.aff")
NAME = "igerman98"


def _expand_words(entries: list[str], aff: Path, affinfo: _Aff, tmp: Path, name: str,
                  forbidden: set[str], dropped: dict[str, int] | None = None) -> tuple[int, set[str]]:
    """Expand the dictionary ``entries`` with ``unmunch`` (scratch files ``tmp/name.*``)
    and keep the lines that are words (:func:`_form_reason`) and not in ``forbidden``.
    Returns ``(number of expanded lines, forms)``; the other lines are counted by reason
    into ``dropped`` (``"forbidden"`` for a form of a forbidden entry) when given."""
    lines = _unmunch(entries, aff, affinfo.encoding, tmp, name)
    forms: set[str] = set()
    for ln in lines:
        why = _form_reason(ln)
        if why is None and ln in forbidden:
            why = "forbidden"
        if why is None:
            forms.add(ln)
        elif dropped is not None:
            dropped[why] = dropped.get(why, 0) + 1
    return len(lines), forms


def read(dic: Path, aff: Path, tmp: Path, layers: BuildLayers | None = None) -> Forms:
    """The valid forms of igerman98 (``dic``/``aff``), expanded by ``unmunch`` in ``tmp``;
    for each word-rule layer in ``layers`` (name -> :data:`~bot.lexicon.rules.BuildLayer`)
    also the forms of the entries it rewrote (:attr:`Forms.rule_forms`, figures in
    :attr:`Forms.rule_stats`).
    Raises :class:`LexiconError` when unmunch is missing or yields nothing."""
    affinfo = _read_aff(aff)
    version, kept, forbidden_entries, stems = _read_dic(dic, affinfo)
    _, forbidden = _expand_words(forbidden_entries, aff, affinfo, tmp, "forbidden", set())
    dropped: dict[str, int] = {}
    raw, forms = _expand_words(kept, aff, affinfo, tmp, "kept", forbidden, dropped)
    if not raw:
        raise LexiconError(
            f"unmunch lieferte keine Wörter / unmunch produced no words for {dic}")
    dropped["forbidden-entries"] = len(forbidden_entries)
    heads = {s for s in stems if _form_reason(s) is None and s not in forbidden}
    got = Forms(version=version, raw=raw, forms=forms, heads=heads, dropped=dropped)
    for rname, layer in sorted((layers or {}).items()):  # a layer expands its own rewritten entries
        entries, got.rule_stats[rname] = layer(list(kept))
        _, got.rule_forms[rname] = _expand_words(entries, aff, affinfo, tmp, f"rules-{rname}", forbidden)
    return got


SOURCE = Source(name=NAME, title="igerman98", dic=DIC, aff=AFF,
                packages=("hunspell-de-de", "hunspell-tools"), subdir="", read=read)

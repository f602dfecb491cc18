"""The German source dictionary: igerman98 from Debian's ``hunspell-de-de``.

Expanded with hunspell's own ``unmunch`` (``hunspell-tools``) after dropping the entries
hunspell marks as compound-only (``ONLYINCOMPOUND``), needing an affix (``NEEDAFFIX``) or
forbidden (``FORBIDDENWORD``); then lines that are no words are dropped (see
:func:`bot.lexicon.hunspell._form_reason` and the package docstring of
:mod:`bot.lexicon`). Proper names are not marked in igerman98 and are kept.
"""

from __future__ import annotations

from pathlib import Path

from bot.lexicon.errors import LexiconError
from bot.lexicon.hunspell import _form_reason, _read_aff, _read_dic, _unmunch
from bot.lexicon.sources import Forms, Source

DIC = Path("/usr/share/hunspell/de_DE.dic")
AFF = Path("/usr/share/hunspell/de_DE.aff")
NAME = "igerman98"


def read(dic: Path, aff: Path, tmp: Path) -> Forms:
    """The valid forms of igerman98 (``dic``/``aff``), expanded by ``unmunch`` in ``tmp``.
    Raises :class:`LexiconError` when unmunch is missing or yields nothing."""
    affinfo = _read_aff(aff)
    version, kept, forbidden_entries, stems = _read_dic(dic, affinfo)
    lines = _unmunch(kept, aff, affinfo.encoding, tmp, "kept")
    forbidden_lines = _unmunch(forbidden_entries, aff, affinfo.encoding, tmp, "forbidden")
    if not lines:
        raise LexiconError(
            f"unmunch lieferte keine Wörter / unmunch produced no words for {dic}")
    forbidden = {ln for ln in forbidden_lines if _form_reason(ln) is None}
    dropped: dict[str, int] = {}
    forms: set[str] = set()
    for ln in lines:
        why = _form_reason(ln)
        if why is None and ln in forbidden:
            why = "forbidden"
        if why is None:
            forms.add(ln)
        else:
            dropped[why] = dropped.get(why, 0) + 1
    dropped["forbidden-entries"] = len(forbidden_entries)
    heads = {s for s in stems if _form_reason(s) is None and s not in forbidden}
    return Forms(version=version, raw=len(lines), forms=forms, heads=heads, dropped=dropped)


SOURCE = Source(name=NAME, title="igerman98", dic=DIC, aff=AFF,
                packages=("hunspell-de-de", "hunspell-tools"), subdir="", read=read)

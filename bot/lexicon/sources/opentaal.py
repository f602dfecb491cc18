"""The Dutch source dictionary: OpenTaal from Debian's ``hunspell-nl`` (RONDO, seed 004;
issue 11).

Built like the German one, with two differences forced by the dictionary:

* ``unmunch`` misreads OpenTaal's affix file (two-character flags, rules followed by
  morphological fields: it forms ``achternaJuliana`` and misses ``loopt``, ``mooie``),
  so the entries are expanded by our own affix expansion
  (:func:`bot.lexicon.hunspell._expand`) and every form is then checked by hunspell
  itself with free compounding switched off (:func:`bot.lexicon.hunspell._hunspell_accepts`,
  Debian package ``hunspell``); forms it does not accept (``zepend``) go.
* OpenTaal writes proper names with a capital (``Amsterdam``, ``Jan``) and common words in
  lower case. Names are kept apart (:attr:`Forms.names`): the alphabet ``nl`` leaves them
  out, ``nl-namen`` has them (seed 004: "Er kunnen echter ook eigennamen ... worden
  toegestaan", when the league agrees).

As for German, entries marked compound-only (``ONLYINCOMPOUND``, OpenTaal's ``Cx``:
``-achtig`` fragments) or forbidden (``FORBIDDENWORD``, ``Fw``) are dropped first, and
forms with a hyphen, digit, dot, slash, apostrophe (``auto's``), an inner capital
(``dvd-speler``, ``achternaJuliana``), one letter or no vowel are no words. The alphabet
spells ĳ as I J and drops accents (:data:`bot.lexicon.alphabet.ALPHABETS`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from bot.lexicon.errors import LexiconError
from bot.lexicon.hunspell import _expand, _form_reason, _hunspell_accepts, _read_aff, _read_dic
from bot.lexicon.sources.base import Forms, Source

DIC = Path("/usr/share/hunspell/nl.dic")
AFF = Path("/usr/share/hunspell/nl.aff")
NAME = "opentaal"
PACKAGES = ("hunspell-nl", "hunspell")

_VERSION = re.compile(r"Date and version:.*?(\d+\.\d+\.\d+)")


def _version(aff: Path) -> str | None:
    with open(aff, encoding="utf-8", errors="replace") as fh:
        for _, line in zip(range(40), fh):
            if m := _VERSION.search(line):
                return m.group(1)
    return None


def _reason(form: str) -> str | None:
    """Why an expanded form is no word (as for German), also for an apostrophe."""
    if "'" in form or "’" in form:
        return "fragment"
    return _form_reason(form)


def read(dic: Path, aff: Path, tmp: Path, layers: Mapping[str, object] | None = None) -> Forms:
    """The valid forms of OpenTaal (``dic``/``aff``); names in :attr:`Forms.names`.
    Raises :class:`LexiconError` when ``hunspell`` is missing or nothing is left, or when
    a word-rule layer is given (``layers``, name -> :data:`bot.lexicon.rules.BuildLayer`:
    the build layers rewrite igerman98's affix flags; no Dutch alphabet names one)."""
    if layers:
        raise LexiconError(f"OpenTaal kennt keine Wortregeln / no word-rule layer for OpenTaal: {', '.join(layers)}")
    info = _read_aff(aff)
    _, kept, forbidden_entries, stems = _read_dic(dic, info)
    lines = _expand(kept, aff, info)
    dropped: dict[str, int] = {}
    candidates: list[str] = []
    for ln in lines:
        why = _reason(ln)
        if why is None:
            candidates.append(ln)
        else:
            dropped[why] = dropped.get(why, 0) + 1
    forms = _hunspell_accepts(candidates, dic, aff, info, tmp, packages=PACKAGES)
    dropped["not-accepted"] = len(candidates) - len(forms)
    dropped["forbidden-entries"] = len(forbidden_entries)
    if not forms:
        raise LexiconError(f"hunspell nahm keine Form an / hunspell accepted no form for {dic}")
    names = {f for f in forms if f[0].isupper()}
    heads = {s for s in stems if s in forms}
    return Forms(version=_version(aff), raw=len(lines), forms=forms, heads=heads, dropped=dropped, names=names)


SOURCE = Source(name=NAME, title="OpenTaal", dic=DIC, aff=AFF, packages=PACKAGES, subdir="opentaal", read=read)

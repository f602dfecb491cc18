"""``spielleiter lexicon build`` and ``lexicon check``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable

from bot.lexicon.cache import _clear_memo, build_all, build_source, load
from bot.lexicon.errors import LexiconError
from bot.lexicon.alphabet import ALPHABETS
from bot.lexicon.rules import BuildLayers, WordRules



def cli_build(cache_dir: Path | None = None, source: str | None = None,
              layers: BuildLayers | None = None) -> int:
    """``spielleiter lexicon build [--source NAME]``: build the cache, print a summary,
    return 0.

    Without ``source`` every installed source dictionary is built (igerman98 always,
    OpenTaal when ``hunspell-nl`` is installed). Prints per source one line per alphabet
    (words, headwords), one line per word-rule layer (forms removed, verb entries, finite
    stems, names; ``Wortregeln typdom: ...``) and the time taken, German with English in
    brackets. ``layers``: the games' build-time word-rule layers by name (the caller asks
    the games: ``GameRules.word_rules``; an alphabet whose layer is missing keeps its
    earlier build).  Raises
    :class:`LexiconError` from the build, KeyError for an unknown source.
    """
    all_stats = (build_all(cache_dir, layers) if source is None
                 else [build_source(source, cache_dir, layers=_layers_for(source, layers))])
    _clear_memo()
    for stats in all_stats:
        ver = stats.get("dictionary_version") or "?"
        print(f"Wörterbuch {stats['dictionary']} {ver} -> {stats['cache_dir']}")
        for name, s in stats["alphabets"].items():
            same = f" (= {s['same_as']})" if "same_as" in s else ""
            print(f"  {name}: {s['words']} Wörter (words), {s['headwords']} Stichwörter "
                  f"(headwords){same}")
        for name, r in (stats.get("rules") or {}).items():
            print(f"  Wortregeln {name}: {r['forms_removed']} Formen entfernt (forms removed): "
                  f"{r['verb_entries']} Verben nur im Infinitiv, {r['finite_stems']} finite Stämme, "
                  f"{r['name_entries']} Namen, {r.get('bare_names', 0)} bloße Namenseinträge (bare name entries)")
        print(f"Fertig in {stats['seconds']:.2f} s (done).")
    return 0


def _layers_for(source: str, layers: BuildLayers | None) -> dict:
    """The ``layers`` an alphabet of ``source`` names."""
    return {n: f for n, f in (layers or {}).items()
            if any(a.rules == n and a.source == source for a in ALPHABETS.values())}


def cli_check(word: str, alphabet: str, allow: Iterable[str] = (), deny: Iterable[str] = (),
              cache_dir: Path | None = None, rules: WordRules | None = None) -> int:
    """``spielleiter lexicon check --game GAME WORD``: print the verdict, return status.

    ``alphabet``: the word list's alphabet (the caller asks the game:
    ``GameRules.alphabet``), ``rules`` the game's word rules on top
    (``GameRules.word_rules``). Prints :attr:`Verdict.reason` (one German line) to stdout.
    Returns 0 if the word is valid (with the given allow-/deny-lists), 1 if not. An
    unknown alphabet prints the error to stderr and returns 2.
    """
    try:
        lex = load(alphabet, cache_dir, rules)
    except LexiconError as exc:
        print(exc, file=sys.stderr)
        return 2
    allow, deny = list(allow), list(deny)
    if allow or deny:
        lex = lex.with_lists(allow, deny)
    verdict = lex.check(word)
    print(verdict.reason)
    return 0 if verdict.valid else 1

"""The lexicon cache: building the marisa tries from a source dictionary, and
loading them memory-mapped (see the package docstring for the layout)."""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterable

import marisa_trie

from bot.lexicon.alphabet import ALPHABETS, Alphabet, _bulk_normaliser, _storage_name, get_alphabet
from bot.lexicon.errors import LexiconError
from bot.lexicon.hunspell import _INSTALL_HINT, install_hint
from bot.lexicon.sources import SOURCES, get_source
from bot.lexicon.sources.base import Source
from bot.lexicon.sources import igerman98 as _german
from bot.lexicon.rules import BuildLayers, WordRules, layers_of
from bot.lexicon.words import DICTIONARY_NAME, Lexicon, _prefixes

#: Version of the cache layout; :func:`load` rebuilds a cache written with another one
#: (2: the Typ-Dom word rules drop bare name entries, issue 24)
#: (a cache without the files of an alphabet, e.g. ``typdom`` with its word rules, is
#: rebuilt too).
FORMAT_VERSION = 2

DEFAULT_DIC = _german.DIC
DEFAULT_AFF = _german.AFF
GERMAN = _german.SOURCE


def default_cache_dir() -> Path:
    """Where the lexicon cache lives.

    ``$SPIELLEITER_LEXICON_DIR`` if set, else ``$XDG_CACHE_HOME/spielleiter/lexicon``,
    else ``~/.cache/spielleiter/lexicon``.  The directory is not created here.
    """
    env = os.environ.get("SPIELLEITER_LEXICON_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "spielleiter" / "lexicon"


def _write_trie(keys: Iterable[str], path: Path) -> int:
    trie = marisa_trie.Trie(keys)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        trie.save(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(trie)


def _write_json(obj: dict, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, ensure_ascii=False, indent=2)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _file_id(path: Path) -> dict:
    st = path.stat()
    return {"path": str(path), "size": st.st_size, "mtime": int(st.st_mtime)}


def build(cache_dir: Path | None = None, dic: Path = DEFAULT_DIC,
          aff: Path = DEFAULT_AFF, layers: BuildLayers | None = None) -> dict:
    """Build the German lexicon cache from igerman98 (``hunspell-de-de``) with ``unmunch``.

    Writes, into ``cache_dir`` (default :func:`default_cache_dir`, created if needed),
    for each distinct alphabet (rondo, monoscrabble, typdom) ``<alphabet>.marisa``,
    ``<alphabet>.heads.marisa`` and ``<alphabet>.prefixes.marisa``, then
    ``manifest.json``; each file is written to a temp file and renamed, so readers
    never see half a file.  See the module docstring for what is filtered and why
    (RULES.md "Common to all games").  An alphabet naming a word-rule layer
    (``Alphabet.rules``, ``typdom``) is built from the forms of the entries the layer of
    that name in ``layers`` rewrote (name -> :data:`bot.lexicon.rules.BuildLayer`; the
    game gives it, ``GameRules.word_rules.layer``); without it the alphabet is not built,
    and its files and manifest entry from an earlier build of the same dictionary stay.
    Takes a few seconds.

    Returns stats: ``{"cache_dir": str, "seconds": float, "source": "igerman98",
    "dictionary": "igerman98", "dictionary_version": str, "raw_forms": int,
    "dropped": {reason: count}, "alphabets": {name: {"words": int, "headwords": int,
    "prefixes": int, "unwritable": int[, "rules": layer][, "same_as": name]}},
    "rules": {layer: {<the layer's figures, e.g. "verb_entries", "finite_stems",
    "name_entries">, "forms": int, "forms_removed": int}}}``; the manifest records
    ``rules`` too.

    Raises :class:`LexiconError` if ``unmunch`` or the dictionary files are missing
    (the message names ``apt-get install hunspell-de-de hunspell-tools``) or the
    expansion yields nothing.
    """
    return build_source(GERMAN, cache_dir, dic=dic, aff=aff, layers=layers)


def source_dir(source: Source, cache_dir: Path | None = None) -> Path:
    """The cache directory of ``source`` below ``cache_dir`` (default :func:`default_cache_dir`)."""
    base = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return base / source.subdir if source.subdir else base


def build_source(source: Source | str, cache_dir: Path | None = None, *, dic: Path | None = None,
                 aff: Path | None = None, layers: BuildLayers | None = None) -> dict:
    """Build the cache of one source dictionary (:data:`bot.lexicon.sources.SOURCES`) into
    its directory (:func:`source_dir`), for every alphabet of that source; as :func:`build`
    (same stats, same layout; the word-rule layers applied are those of ``layers`` the
    source's alphabets name, ``rules`` is ``{}`` without; an alphabet whose layer is not
    given keeps its files and manifest entry of an earlier build of the same dictionary
    file, if any). ``dic``/``aff`` replace the source's files (tests).
    Raises :class:`LexiconError` naming the apt packages when a file or program is missing."""
    t0 = time.perf_counter()
    if isinstance(source, str):
        source = get_source(source)
    out_dir = source_dir(source, cache_dir)
    dic = Path(dic) if dic is not None else source.dic
    aff = Path(aff) if aff is not None else source.aff
    for p in (dic, aff):
        if not p.is_file():
            raise LexiconError(
                f"Wörterbuchdatei fehlt / dictionary file missing: {p}. " + install_hint(*source.packages))
    if source is GERMAN and shutil.which("unmunch") is None:
        raise LexiconError("unmunch nicht gefunden / unmunch not found. " + _INSTALL_HINT)

    out_dir.mkdir(parents=True, exist_ok=True)
    layers = dict(layers or {})
    rule_names = tuple(sorted({a.rules for a in ALPHABETS.values()
                               if a.source == source.name and a.rules and a.rules in layers}))
    with tempfile.TemporaryDirectory(prefix="unmunch-", dir=out_dir) as tmpname:
        got = source.read(dic, aff, Path(tmpname), {r: layers[r] for r in rule_names})
    old = _read_manifest(out_dir) or {}
    if old.get("format_version") != FORMAT_VERSION or old.get("source", {}).get("dic") != _file_id(dic):
        old = {}
    rule_stats: dict[str, dict] = {}
    for rname in rule_names:
        rule_stats[rname] = dict(got.rule_stats[rname], forms=len(got.rule_forms[rname]),
                                 forms_removed=len(got.forms - got.rule_forms[rname]))

    stats_alpha: dict[str, dict] = {}
    manifest_alpha: dict[str, dict] = {}
    for name, alpha in ALPHABETS.items():
        if alpha.source != source.name:
            continue
        store = _storage_name(alpha)
        if store != name:
            manifest_alpha[name] = {"same_as": store}
            continue
        if alpha.rules and alpha.rules not in layers:  # no layer given: keep an earlier build
            prev = old.get("alphabets", {}).get(name)
            if prev and all((out_dir / prev.get(k, "")).is_file() for k in ("file", "heads_file", "prefixes_file")):
                manifest_alpha[name] = prev
                stats_alpha[name] = {k: prev[k] for k in ("words", "headwords", "prefixes", "unwritable", "rules")
                                     if k in prev}
                if alpha.rules in old.get("rules", {}):
                    rule_stats[alpha.rules] = old["rules"][alpha.rules]
            continue
        norm = _bulk_normaliser(alpha)
        forms = got.rule_forms[alpha.rules] if alpha.rules else got.forms
        if got.names and not alpha.names:
            forms = forms - got.names
        normed = list(map(norm, forms))
        unwritable = normed.count(None)
        words = set(normed)
        words.discard(None)
        del normed
        heads = {n for s in got.heads if (n := norm(s)) and n in words}
        prefixes = _prefixes(words)
        _write_trie(words, out_dir / f"{name}.marisa")
        _write_trie(heads, out_dir / f"{name}.heads.marisa")
        _write_trie(prefixes, out_dir / f"{name}.prefixes.marisa")
        entry = {"words": len(words), "headwords": len(heads), "prefixes": len(prefixes),
                 "unwritable": unwritable}
        if alpha.rules:
            entry["rules"] = alpha.rules
        stats_alpha[name] = entry
        manifest_alpha[name] = {
            "file": f"{name}.marisa", "heads_file": f"{name}.heads.marisa",
            "prefixes_file": f"{name}.prefixes.marisa", "letters": alpha.letters,
            "mapping": alpha.mapping, **entry}
    for name, m in manifest_alpha.items():
        if "same_as" in m:
            stats_alpha[name] = dict(stats_alpha[m["same_as"]], same_as=m["same_as"])

    seconds = time.perf_counter() - t0
    manifest = {
        "format_version": FORMAT_VERSION,
        "dictionary": source.title,
        "dictionary_version": got.version,
        "source": {"dic": _file_id(dic), "aff": _file_id(aff),
                   "expander": shutil.which("unmunch") if source is GERMAN else "bot.lexicon.hunspell._expand"},
        "built_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "build_seconds": round(seconds, 3),
        "raw_forms": got.raw,
        "dropped": got.dropped,
        "alphabets": manifest_alpha,
        "rules": rule_stats,
    }
    if got.names:
        manifest["names"] = len(got.names)
    _write_json(manifest, out_dir / "manifest.json")
    return {"cache_dir": str(out_dir), "seconds": seconds, "source": source.name,
            "dictionary": source.title, "dictionary_version": got.version, "raw_forms": got.raw,
            "dropped": got.dropped, "alphabets": stats_alpha, "rules": rule_stats}


def build_all(cache_dir: Path | None = None, layers: BuildLayers | None = None) -> list[dict]:
    """Build every source dictionary that is installed (German always: its absence is an
    error), with the word-rule ``layers`` (as :func:`build`); returns the stats of each,
    German first."""
    out = [build(cache_dir, layers=layers)]
    for source in SOURCES.values():
        if source is not GERMAN and source.installed():
            out.append(build_source(source, cache_dir,
                                    layers={n: f for n, f in (layers or {}).items()
                                            if any(a.rules == n and a.source == source.name
                                                   for a in ALPHABETS.values())}))
    return out


# ---------------------------------------------------------------------------------------
# Loading

_MEMO: dict[tuple[str, str, WordRules | None], Lexicon] = {}
_MEMO_LOCK = threading.Lock()


def _read_manifest(cache_dir: Path) -> dict | None:
    try:
        with open(cache_dir / "manifest.json", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _cache_usable(cache_dir: Path, store: str, dic: Path) -> bool:
    m = _read_manifest(cache_dir)
    if not m or m.get("format_version") != FORMAT_VERSION:
        return False
    entry = m.get("alphabets", {}).get(store)
    if not entry or "file" not in entry:
        return False
    for key in ("file", "heads_file", "prefixes_file"):
        if not (cache_dir / entry[key]).is_file():
            return False
    # Rebuild after a dictionary upgrade; keep using the cache if the package is gone.
    src = m.get("source", {}).get("dic", {})
    if dic.is_file() and src.get("path") == str(dic):
        st = dic.stat()
        if src.get("size") != st.st_size or src.get("mtime") != int(st.st_mtime):
            return False
    return True


def _mmap(path: Path) -> marisa_trie.Trie:
    trie = marisa_trie.Trie()
    trie.mmap(str(path))
    return trie


def is_built(alphabet: str, cache_dir: Path | None = None) -> bool:
    """Whether :func:`load` finds the word list of ``alphabet`` (an alphabet name)
    built and up to date in ``cache_dir``, i.e. loads it without building (a few
    milliseconds rather than seconds). Raises :class:`LexiconError` for an unknown name."""
    alpha = get_alphabet(alphabet)
    cache_dir = (Path(cache_dir) if cache_dir is not None else default_cache_dir()).expanduser().resolve()
    if (alpha.name, str(cache_dir), None) in _MEMO:
        return True
    source = get_source(alpha.source)
    return _cache_usable(source_dir(source, cache_dir), _storage_name(alpha), source.dic)


def load(alphabet: str, cache_dir: Path | None = None, rules: WordRules | None = None) -> Lexicon:
    """The lexicon in ``alphabet`` (an alphabet name: the game names it,
    ``GameRules.alphabet``/``lexicon_alphabets``), from the alphabet's source
    dictionary (igerman98 for the German alphabets, OpenTaal for ``nl``, ``nl-namen``).

    Memory-maps the cached tries from ``cache_dir`` (default :func:`default_cache_dir`;
    a source other than igerman98 uses its sub-directory, :func:`source_dir`),
    building the cache first with :func:`build` when it is missing, has another
    :data:`FORMAT_VERSION`, or the dictionary file changed since (a file lock keeps
    concurrent processes from building twice).  ``rules``: the game's word rules
    (``GameRules.word_rules``, :class:`~bot.lexicon.rules.WordRules`), put on top: their
    words are left out with their reason; their ``layer`` is the build layer of an
    alphabet naming one (``Alphabet.rules``), applied when the list is built here.  Memoised per (alphabet, resolved directory,
    rules) within the process: repeated calls return the same object.
    Loading a built cache takes a few milliseconds.

    Raises :class:`LexiconError` for an unknown alphabet, for an alphabet naming a
    word-rule layer whose list is not built when ``rules`` gives no layer, or from
    :func:`build`.
    """
    alpha = get_alphabet(alphabet)
    layers = layers_of(alpha.rules, rules)
    cache_dir = (Path(cache_dir) if cache_dir is not None else default_cache_dir())
    cache_dir = cache_dir.expanduser().resolve()
    if rules is not None and not rules.exclude:
        rules = None
    key = (alpha.name, str(cache_dir), rules)
    lex = _MEMO.get(key)
    if lex is not None:
        return lex
    if rules is not None:  # the word list itself, then the game's rules on top
        lex = _load_list(alpha, cache_dir, layers).with_rules(rules)
        with _MEMO_LOCK:
            return _MEMO.setdefault(key, lex)
    return _load_list(alpha, cache_dir, layers)


def _load_list(alpha: Alphabet, cache_dir: Path, layers: dict) -> Lexicon:
    """The word list of ``alpha`` alone (memoised, built when needed with ``layers``)."""
    key = (alpha.name, str(cache_dir), None)
    lex = _MEMO.get(key)
    if lex is not None:
        return lex
    with _MEMO_LOCK:
        lex = _MEMO.get(key)
        if lex is not None:
            return lex
        if alpha.rules and alpha.rules not in layers and not _cache_usable(
                source_dir(get_source(alpha.source), cache_dir), _storage_name(alpha), get_source(alpha.source).dic):
            raise LexiconError(
                f"Die Wortliste {alpha.name!r} braucht die Wortregeln {alpha.rules!r} des Spiels / "
                f"the word list {alpha.name!r} needs the game's word-rule layer {alpha.rules!r}: "
                "load it with the game's word_rules")
        store = _storage_name(alpha)
        source = get_source(alpha.source)
        sdir = source_dir(source, cache_dir)
        if not _cache_usable(sdir, store, source.dic):
            sdir.mkdir(parents=True, exist_ok=True)
            with open(sdir / ".build.lock", "w") as lockfh:
                fcntl.flock(lockfh, fcntl.LOCK_EX)
                try:
                    if not _cache_usable(sdir, store, source.dic):
                        if source is GERMAN:
                            build(cache_dir, layers=layers)
                        else:
                            build_source(source, cache_dir, layers=layers)
                finally:
                    fcntl.flock(lockfh, fcntl.LOCK_UN)
        m = _read_manifest(sdir) or {}
        entry = m["alphabets"][store]
        lex = Lexicon(alpha, _mmap(sdir / entry["file"]),
                      _mmap(sdir / entry["prefixes_file"]),
                      _mmap(sdir / entry["heads_file"]),
                      source=m.get("dictionary", DICTIONARY_NAME),
                      version=m.get("dictionary_version"))
        _MEMO[key] = lex
        return lex


def _clear_memo() -> None:
    """Forget memoised lexicons (tests, benchmarks)."""
    with _MEMO_LOCK:
        _MEMO.clear()

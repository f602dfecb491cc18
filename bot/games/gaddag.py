"""A GADDAG (Gordon 1994) over a word graph's words: every word readable from each of its
letters outwards, for searches that must hold a given square (Typ-Dom's phase (b),
issue 35; design and state in ``docs/development/gaddag-plan.md``).

For a word ``w`` of ``n`` letters and each ``i`` in ``1 .. n`` the graph holds the string
``rev(w[:i]) + SEP + w[i:]``, except for ``i = n``, where it holds ``rev(w)`` alone
(Gordon's compressed form: the word ends on the square the reading started from).
Reading starts on a square ``q`` of the word (its letter ``w[i - 1]``), goes left to the
word's first letter, then (after :data:`SEP`) right from the square after ``q``:

* a node reached by letters only, with the word-end flag: the letters read, reversed,
  are a word that ends on ``q``;
* a node reached after ``SEP``, with the flag: the word ends here.

The strings are a plain set of words over the alphabet plus ``SEP``, so the graph is
the minimal automaton of that set.  Two builds give the same graph:

* :func:`build_gaddag`: nested dicts by :func:`bot.wordgraph.build` (Daciuk's incremental
  minimisation over the sorted strings), the same node format as :mod:`bot.wordgraph`
  (``END`` for the flag); for tests and tools (Typ-Dom's list: 21-26 s, +272 MiB);
* ``bot.games._gridcore.build_gaddag_flat``: in C, straight into the core's flat arrays,
  as wolges' KWG builder does (Typ-Dom's list: 0.6 s, +49 MiB); the searches' graph.

:func:`compiled_gaddag_for` caches the compiled graph (the core's flat arrays) of a full
lexicon on disk beside the word graph (``<cache_dir>/<alphabet>.gaddag``), keyed by the
word graph's content hash; loading it takes milliseconds and keeps no dicts (600,000 of
them would slow every garbage collection of the process).  :func:`prepare` writes it
where the word lists are built (``spielleiter lexicon build``, so ``scripts/setup``);
a turn only looks it up (:func:`compiled_gaddag_if_cached`) and never builds it.
"""

from __future__ import annotations

import marshal
import os
import threading
from pathlib import Path
from typing import Iterable, Iterator

from bot.lexicon import default_cache_dir
from bot.wordgraph import END, WordGraph, build, graph_for, write_atomic

__all__ = ["SEP", "gaddag_strings", "build_gaddag", "gaddag_words", "readings", "gaddag_for",
           "compiled_gaddag_for", "compiled_gaddag_if_cached", "load_compiled", "prepare", "gaddag_path"]

#: The separator between the reversed part (the square read first and the letters to its
#: left) and the rest of the word (the letters to its right).  Not a letter of any game.
SEP = "+"
_MAGIC = "spielleiter-gaddag"
_FORMAT = 2  # (1: the dicts, marshalled; 2: the flat arrays)


def _strings_from(words: list[str], letter: str) -> list[str]:
    out = []
    for w in words:
        i = w.find(letter)
        n = len(w)
        while i >= 0:
            left = w[i::-1]
            out.append(left if i == n - 1 else left + SEP + w[i + 1:])
            i = w.find(letter, i + 1)
    out.sort()
    return out


def gaddag_strings(words: Iterable[str]) -> Iterator[str]:
    """The GADDAG strings of ``words`` (see the module doc), sorted by code point, each
    once.  Raises ValueError when a word holds :data:`SEP`."""
    ws = sorted(set(w for w in words if w))
    letters = sorted(set("".join(ws)))
    if SEP in letters:
        raise ValueError(f"a word holds the separator {SEP!r}")
    prev = None
    for letter in letters:  # (every string starts with a letter: the groups come in order)
        for s in _strings_from(ws, letter):
            if s != prev:
                yield s
                prev = s


def build_gaddag(words: Iterable[str]) -> dict:
    """The root of the minimised GADDAG of ``words`` (nested dicts as
    :func:`bot.wordgraph.build`)."""
    return build(gaddag_strings(words))


def readings(root: dict, word: str, i: int) -> bool:
    """True when ``word`` can be read in the GADDAG ``root`` starting from its letter
    ``word[i]`` (0-based): left to its start, then right to its end."""
    node = root
    for ch in word[i::-1]:
        node = node.get(ch)
        if node is None:
            return False
    if i == len(word) - 1:
        return END in node
    node = node.get(SEP)
    if node is None:
        return False
    for ch in word[i + 1:]:
        node = node.get(ch)
        if node is None:
            return False
    return END in node


def gaddag_words(root: dict) -> set[str]:
    """Every word the GADDAG ``root`` spells, each rebuilt from every path that spells it
    (a path's letters before ``SEP`` reversed, then those after): the word set."""
    out: set[str] = set()
    stack = [(root, "", None)]
    while stack:
        node, left, right = stack.pop()
        for k, child in node.items():
            if k == END:
                out.add(left[::-1] if right is None else left[::-1] + right)
            elif k == SEP:
                if right is not None:
                    raise ValueError("a path holds the separator twice")
                stack.append((child, left, ""))
            elif right is None:
                stack.append((child, left + k, None))
            else:
                stack.append((child, left, right + k))
    return out


def gaddag_for(lexicon, cache_dir: str | os.PathLike | None = None) -> WordGraph:
    """The GADDAG of a :class:`bot.lexicon.Lexicon` as nested dicts (a
    :class:`bot.wordgraph.WordGraph` whose ``content_hash`` is that of the lexicon's word
    graph), built in memory and memoised per object: for tests and tools.  A full list
    takes about 20 s and 300 MiB to build this way; searches use the C build,
    :func:`compiled_gaddag_for`."""
    hit = _MEMO.get(id(lexicon))
    if hit is not None and hit[0] is lexicon:
        return hit[1]
    with _LOCK:
        wg = graph_for(lexicon, cache_dir)
        g = WordGraph(build_gaddag(wg.words()), wg.content_hash)
        if len(_MEMO) >= 4:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[id(lexicon)] = (lexicon, g)
        return g


def load_compiled(path: str | os.PathLike, content_hash: str, root: dict):
    """The compiled GADDAG saved at ``path`` for the word graph ``root`` of
    ``content_hash``; ``None`` when missing, unreadable, of another format, built from
    other words or with other letters."""
    from bot.games import _gridcore

    try:
        with open(path, "rb") as fh:
            magic, fmt, h, parts = marshal.loads(fh.read())
        if magic != _MAGIC or fmt != _FORMAT or h != content_hash:
            return None
        return _gridcore.gaddag_load(parts, root, SEP)
    except (OSError, ValueError, EOFError, TypeError):
        return None


_MEMO: dict[int, tuple[object, object]] = {}
_CMEMO: dict[int, tuple[object, object]] = {}
_MISS: dict[int, tuple[object, tuple]] = {}  # (a file found stale, by its size and time)
_LOCK = threading.RLock()


def compiled_gaddag_for(lexicon, cache_dir: str | os.PathLike | None = None):
    """The compiled GADDAG (``bot.games._gridcore``'s flat arrays, the word graph's letter
    indices plus :data:`SEP`; for ``TouchSearcher.use_gaddag``) of a
    :class:`bot.lexicon.Lexicon`, memoised per object.  A full lexicon's is loaded from
    ``<cache_dir>/<alphabet>.gaddag`` (the flat arrays, keyed by the word graph's content
    hash), built (in C, ``_gridcore.build_gaddag_flat``: 0.6 s for Typ-Dom's list) and
    saved there first when missing or stale; a league view's or a small list's is built
    in memory.  A process keeps only the arrays."""
    from bot.games import _gridcore

    hit = _CMEMO.get(id(lexicon))
    if hit is not None and hit[0] is lexicon:
        return hit[1]
    with _LOCK:
        wg = graph_for(lexicon, cache_dir)
        g = None
        path = None
        layers = lexicon.layers() if hasattr(lexicon, "layers") else None
        full = layers is None and getattr(lexicon, "content_hash", lambda: None)() is not None
        if full:
            path = gaddag_path(lexicon, cache_dir)
            g = load_compiled(path, wg.content_hash, wg.root)
        if g is None:
            g = _gridcore.build_gaddag_flat(wg.root, SEP)
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_atomic(marshal.dumps((_MAGIC, _FORMAT, wg.content_hash, _gridcore.gaddag_dump(g)), 4), path)
                except OSError:
                    pass  # read-only cache: keep the in-memory graph
        if len(_CMEMO) >= 4:
            _CMEMO.pop(next(iter(_CMEMO)))
        _CMEMO[id(lexicon)] = (lexicon, g)
        return g


def compiled_gaddag_if_cached(lexicon, cache_dir: str | os.PathLike | None = None):
    """The compiled GADDAG of ``lexicon`` when it costs no build: already in memory
    (:func:`compiled_gaddag_for` ran for this object) or a full lexicon whose file is in
    the cache and current; else ``None`` (a league view, a small list, no file yet, a
    stale or broken file: the caller searches by anchors).  For a turn, which never
    builds the GADDAG: :func:`prepare` does, where the word lists are built.  A file
    found stale is not read again while it stays the same (size and time)."""
    hit = _CMEMO.get(id(lexicon))
    if hit is not None and hit[0] is lexicon:
        return hit[1]
    layers = lexicon.layers() if hasattr(lexicon, "layers") else None
    if layers is not None:
        return None
    path = gaddag_path(lexicon, cache_dir)
    try:
        st = path.stat()
    except OSError:
        return None
    stamp = (str(path), st.st_size, st.st_mtime_ns)
    miss = _MISS.get(id(lexicon))
    if miss is not None and miss[0] is lexicon and miss[1] == stamp:
        return None
    if getattr(lexicon, "content_hash", lambda: None)() is None:
        return None
    with _LOCK:
        hit = _CMEMO.get(id(lexicon))
        if hit is not None and hit[0] is lexicon:
            return hit[1]
        wg = graph_for(lexicon, cache_dir)
        g = load_compiled(path, wg.content_hash, wg.root)
        if g is None:  # stale or broken: by anchors until `lexicon build` writes it anew
            if len(_MISS) >= 4:
                _MISS.pop(next(iter(_MISS)))
            _MISS[id(lexicon)] = (lexicon, stamp)
            return None
        if len(_CMEMO) >= 4:
            _CMEMO.pop(next(iter(_CMEMO)))
        _CMEMO[id(lexicon)] = (lexicon, g)
        return g


def gaddag_path(lexicon, cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the GADDAG file of a full lexicon lives: ``<cache_dir>/<alphabet>.gaddag``,
    beside the word graph's ``.dawg`` (``cache_dir`` as :func:`bot.wordgraph.graph_for`:
    default :func:`bot.lexicon.default_cache_dir`)."""
    name = getattr(getattr(lexicon, "alphabet", None), "name", "words")
    return Path(cache_dir if cache_dir is not None else default_cache_dir()) / f"{name}.gaddag"


def prepare(lexicon, cache_dir: str | os.PathLike | None = None) -> dict:
    """Make sure the GADDAG file of the full ``lexicon`` is in the cache and current
    (and the word graph's, which it is built from), building and saving what is
    missing or stale: for ``spielleiter lexicon build`` and tools, never for a turn.
    Returns ``{"path", "nodes", "built", "seconds"}`` (``built``: False when the file
    was current; ``seconds``: CPU time of this call).  Raises ValueError for a league
    view or an in-memory list (they have no file)."""
    import time

    layers = lexicon.layers() if hasattr(lexicon, "layers") else None
    if layers is not None or getattr(lexicon, "content_hash", lambda: None)() is None:
        raise ValueError("only a full (cached) lexicon has a GADDAG file")
    t0 = time.process_time()
    path = gaddag_path(lexicon, cache_dir)
    wg = graph_for(lexicon, cache_dir)
    built = load_compiled(path, wg.content_hash, wg.root) is None
    with _LOCK:
        if built:
            _CMEMO.pop(id(lexicon), None)
        g = compiled_gaddag_for(lexicon, cache_dir)
    return {"path": str(path), "nodes": g.n, "built": built, "seconds": time.process_time() - t0}

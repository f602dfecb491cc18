"""A word graph (minimised DAWG) for move generators: build, save, load, look up.

The graph is a set of nested Python dicts, one per node: ``node[letter]`` is the child
node reached by ``letter``, and the key :data:`END` (``"$"``) is present when the path
from the root to the node spells a word.  Nodes with equal right languages are shared
(Daciuk's incremental minimisation over sorted input), so the graph is a DAWG, not a
trie.  Plain dicts make the hot loop of a move generator one C-level ``dict.get`` per
step; there is no decoding layer.

Files: ``marshal`` of ``(MAGIC, FORMAT, content_hash, root)``.  ``marshal`` (format 4)
keeps shared objects shared, so the DAWG's node sharing survives a save/load round
trip, and loading is one C call.  :func:`graph_for` caches the graph of the full
lexicon on disk next to the lexicon cache (:func:`bot.lexicon.default_cache_dir`),
keyed by a hash of the lexicon's content, so a changed lexicon is rebuilt.

Small lexicons (``Lexicon.from_words``) are built in memory.  A league view
(``Lexicon.with_lists``) reuses its base's graph and applies the allow- and deny-list
by path copying, leaving the base graph untouched.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
import threading
from pathlib import Path
from typing import Iterable

from bot.lexicon import default_cache_dir

__all__ = ["END", "WordGraph", "build", "save", "load_file", "graph_for", "words_hash"]

#: Key marking a node as the end of a word.
END = "$"
_MAGIC = "spielleiter-dawg"
_FORMAT = 1


class WordGraph:
    """A DAWG over a set of words.  ``root`` is the root node (a dict, see module doc)."""

    __slots__ = ("root", "content_hash")

    def __init__(self, root: dict, content_hash: str = "") -> None:
        self.root = root
        self.content_hash = content_hash

    @classmethod
    def from_words(cls, words: Iterable[str]) -> WordGraph:
        ws = sorted(set(words))
        return cls(build(ws), words_hash(ws))

    def node(self, prefix: str) -> dict | None:
        """The node reached by ``prefix``, or ``None`` if no word starts with it."""
        node = self.root
        for ch in prefix:
            node = node.get(ch)
            if node is None:
                return None
        return node

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word:
            return False
        node = self.node(word)
        return node is not None and END in node

    def has_prefix(self, prefix: str) -> bool:
        """True if some word of the graph starts with ``prefix`` (or equals it).

        After :meth:`with_lists` removed words, may stay True for a prefix whose only
        completions were removed (as :meth:`bot.lexicon.Lexicon.has_prefix` does).
        """
        return self.node(prefix) is not None

    def words(self):
        """Every word of the graph, sorted by code point."""
        out: list[str] = []
        stack = [(self.root, "")]
        while stack:
            node, pre = stack.pop()
            for ch, child in node.items():
                if ch == END:
                    out.append(pre)
                else:
                    stack.append((child, pre + ch))
        out.sort()
        return iter(out)

    def node_count(self) -> int:
        seen = set()
        stack = [self.root]
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            stack.extend(c for k, c in n.items() if k != END)
        return len(seen)

    def with_lists(self, allow: Iterable[str] = (), deny: Iterable[str] = ()) -> WordGraph:
        """A new graph with ``allow`` words added and ``deny`` words removed.

        Path copying: every node on the path of a changed word is copied, everything
        else is shared with this graph, which stays unchanged.
        """
        root = dict(self.root)
        for w in deny:
            _set_word(root, w, False)
        for w in allow:
            _set_word(root, w, True)
        h = hashlib.sha256(self.content_hash.encode())
        h.update(("\0".join(sorted(allow)) + "\1" + "\0".join(sorted(deny))).encode())
        return WordGraph(root, h.hexdigest())


def _set_word(root: dict, word: str, present: bool) -> None:
    """Add/remove ``word`` under ``root`` (already a private copy), copying the path."""
    if not word:
        return
    node = root
    for ch in word:
        child = node.get(ch)
        if child is None:
            if not present:
                return
            child = {}
        else:
            child = dict(child)  # private copy: the original may be shared
        node[ch] = child
        node = child
    if present:
        node[END] = 1
    else:
        node.pop(END, None)


def words_hash(sorted_words: Iterable[str]) -> str:
    h = hashlib.sha256()
    for w in sorted_words:
        h.update(w.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def build(sorted_words: Iterable[str]) -> dict:
    """Root of the minimised DAWG of ``sorted_words`` (sorted, no duplicates).

    Daciuk et al.'s incremental algorithm: after each word, the nodes of the previous
    word below the common prefix are replaced by an equal registered node or registered.
    """
    register: dict = {}
    root: dict = {}
    path = [root]  # nodes along the previous word; path[i] is reached by prev[:i]
    prev = ""

    def minimise(down_to: int) -> None:
        for i in range(len(path) - 1, down_to, -1):
            node = path[i]
            key = tuple(sorted((k, id(v)) for k, v in node.items()))
            same = register.get(key)
            if same is None:
                register[key] = node
            else:
                path[i - 1][prev[i - 1]] = same
        del path[down_to + 1:]

    for w in sorted_words:
        if not w:
            continue
        if w <= prev:
            if w == prev:
                continue
            raise ValueError("words must be sorted")
        cp = 0
        n = min(len(w), len(prev))
        while cp < n and w[cp] == prev[cp]:
            cp += 1
        minimise(cp)
        node = path[cp]
        for ch in w[cp:]:
            child: dict = {}
            node[ch] = child
            path.append(child)
            node = child
        node[END] = 1
        prev = w
    minimise(0)
    return root


def save(graph: WordGraph, path: str | os.PathLike) -> None:
    """Write ``graph`` to ``path`` atomically (marshal, sharing kept)."""
    write_atomic(marshal.dumps((_MAGIC, _FORMAT, graph.content_hash, graph.root), 4), Path(path))


def write_atomic(data: bytes, path: Path) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file beside it, then renamed
    over it (a reader sees the old file or the new one, never a part; the temporary file
    is removed on any error, which is raised)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load_file(path: str | os.PathLike, content_hash: str | None = None) -> WordGraph | None:
    """The graph saved at ``path``; ``None`` if missing, unreadable, of another format,
    or (when ``content_hash`` is given) built from other words."""
    try:
        with open(path, "rb") as fh:
            magic, fmt, h, root = marshal.loads(fh.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if magic != _MAGIC or fmt != _FORMAT:
        return None
    if content_hash is not None and h != content_hash:
        return None
    return WordGraph(root, h)


# ---------------------------------------------------------------------------------------
# Graph for a bot.lexicon.Lexicon

_MEMO: dict[int, tuple[object, WordGraph]] = {}
_MEMO_LOCK = threading.RLock()
_MEMO_MAX = 16


def _build_for(lexicon, cache_dir: Path | None) -> WordGraph:
    # A league view: base graph plus allow/deny by path copying.
    layers = lexicon.layers() if hasattr(lexicon, "layers") else None
    if layers is not None:
        base, allow, deny = layers
        return graph_for(base, cache_dir).with_lists(allow, deny)
    h = lexicon.content_hash() if hasattr(lexicon, "content_hash") else None
    if h is None:  # small in-memory list
        return WordGraph.from_words(lexicon.words())
    if cache_dir is None:
        cache_dir = default_cache_dir()
    name = getattr(getattr(lexicon, "alphabet", None), "name", "words")
    path = Path(cache_dir) / f"{name}.dawg"
    g = load_file(path, h)
    if g is not None:
        return g
    g = WordGraph(build(lexicon.words()), h)
    try:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        save(g, path)
    except OSError:
        pass  # read-only cache: keep the in-memory graph
    return g


def graph_for(lexicon, cache_dir: str | os.PathLike | None = None) -> WordGraph:
    """The :class:`WordGraph` of a :class:`bot.lexicon.Lexicon` (memoised per object).

    Full (cached) lexicon: loaded from ``<cache_dir>/<alphabet>.dawg``, built and saved
    there first when missing or made from other words.  ``cache_dir`` defaults to
    :func:`bot.lexicon.default_cache_dir`.
    """
    key = id(lexicon)
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is lexicon:
        return hit[1]
    with _MEMO_LOCK:
        hit = _MEMO.get(key)
        if hit is not None and hit[0] is lexicon:
            return hit[1]
        g = _build_for(lexicon, Path(cache_dir) if cache_dir is not None else None)
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = (lexicon, g)
        return g

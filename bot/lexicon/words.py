"""The word set: :class:`Lexicon` (valid words of one alphabet, with a league's GM
allow- and deny-list on top) and :class:`Verdict` (why a word is valid or not)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Iterable, Iterator

from bot.lexicon.alphabet import Alphabet, _unwritable, get_alphabet, normalise
from bot.lexicon.rules import WordRules

#: Human name of the German dictionary, used in verdict reasons.
DICTIONARY_NAME = "igerman98"



#: Verdict codes and whether they mean "valid".
VERDICT_CODES: dict[str, bool] = {
    "allowed": True,
    "headword": True,
    "inflected": True,
    "listed": True,
    "denied": False,
    "unknown": False,
    "alphabet": False,
}


@dataclass(frozen=True)
class Verdict:
    """Whether a word is valid, and why.

    ``word``: the word as given.  ``normalised``: its spelling in the lexicon's alphabet,
    or ``None`` if it cannot be written in it.  ``valid``: the outcome.  ``code``: one
    of ``"allowed"`` (GM allow-list), ``"headword"`` (a dictionary stem),
    ``"inflected"`` (an inflected form), ``"listed"`` (in a GM's own word list),
    ``"denied"`` (GM deny-list), ``"unknown"`` (not in the dictionary/list),
    ``"alphabet"`` (cannot be written in the alphabet).  ``reason``: one German
    sentence for players and GMs.
    """

    word: str
    normalised: str | None
    valid: bool
    code: str
    reason: str


class Lexicon:
    """An immutable set of valid words of one alphabet.

    Do not construct directly; use :func:`load` (the igerman98 lexicon, cached),
    :meth:`from_words` / :meth:`from_file` (a small in-memory list) or
    :meth:`with_lists` (a league view with GM allow- and deny-list).

    Hot-path methods (``in``, :meth:`has_prefix`) expect an already normalised word
    (upper case, in the alphabet -- see :func:`normalise`) and do no normalisation.
    Attributes: ``alphabet`` (:class:`Alphabet`), ``source`` (``"igerman98"`` or
    ``"list"``), ``version`` (dictionary version string or ``None``).
    """

    __slots__ = ("alphabet", "source", "version", "_words", "_prefixes", "_heads", "_len")

    def __init__(self, alphabet: Alphabet, words, prefixes, heads, *, source: str,
                 version: str | None = None) -> None:
        self.alphabet = alphabet
        self.source = source
        self.version = version
        # ``words``/``prefixes``/``heads`` are marisa tries or frozensets; both support
        # ``in`` in C.
        self._words = words
        self._prefixes = prefixes
        self._heads = heads
        self._len = None

    # -- construction --------------------------------------------------------------

    @classmethod
    def from_words(cls, words: Iterable[str], alphabet: str | Alphabet) -> Lexicon:
        """An in-memory lexicon (set + prefix set) from a small word list.

        Each word is normalised with :func:`normalise`; words that cannot be written in
        the alphabet are skipped silently.  Verdicts say ``"listed"``.  Meant for the
        conformance cases' own lists and GM word lists (RULES.md: "a GM can load a
        word list file of their own instead").  Memory: a few hundred bytes per word.
        """
        alpha = get_alphabet(alphabet)
        normed = {n for w in words if (n := normalise(w, alpha))}
        return cls(alpha, frozenset(normed), frozenset(_prefixes(normed)), frozenset(),
                   source="list")

    @classmethod
    def from_file(cls, path: str | os.PathLike, alphabet: str | Alphabet) -> Lexicon:
        """Like :meth:`from_words`, reading one word per line (UTF-8) from ``path``.

        Empty lines and lines starting with ``#`` are ignored.  Raises ``OSError`` if
        the file cannot be read.
        """
        with open(path, encoding="utf-8") as fh:
            words = [ln for ln in fh if ln.strip() and not ln.lstrip().startswith("#")]
        return cls.from_words(words, alphabet)

    def with_rules(self, rules: WordRules | None) -> Lexicon:
        """A view of this lexicon without the words a game's word rules leave out
        (``GameRules.word_rules``; Crossword, seed 003 section 3): they are unknown, with
        the rules' reason in the verdict. ``None`` or no words: this lexicon itself."""
        if rules is None or not rules.exclude:
            return self
        return _RulesView(self, rules.exclude, rules.reason)

    def with_lists(self, allow: Iterable[str] = (), deny: Iterable[str] = ()) -> Lexicon:
        """A view of this lexicon with a league's GM allow-list and deny-list.

        Both lists are normalised to the alphabet (unwritable entries are ignored).
        Allow-listed words are valid even if not in the dictionary; deny-listed words
        are invalid even if in the dictionary (RULES.md: the lists "win over the
        dictionary").  A word on both lists counts as denied (the cautious choice).
        ``in`` stays a set lookup plus a trie lookup.  :meth:`has_prefix` may stay
        ``True`` for a prefix whose only completions are denied words: it is meant for
        pruning a search, where a false ``True`` costs a little time and never a word.
        Views can be stacked; the returned object is a new :class:`Lexicon`.
        """
        a = frozenset(n for w in allow if (n := normalise(w, self.alphabet)))
        d = frozenset(n for w in deny if (n := normalise(w, self.alphabet)))
        return _ListedView(self, a - d, d)

    # -- hot path ----------------------------------------------------------------------

    def __contains__(self, word: object) -> bool:
        """``word in lexicon``: ``word`` must already be normalised (upper case)."""
        return word in self._words

    def has_prefix(self, prefix: str) -> bool:
        """True if some word starts with ``prefix`` (a word equal to it counts).

        ``prefix`` must be normalised.  The empty prefix is True for a non-empty
        lexicon.  One exact lookup in a precomputed prefix set/trie (~0.4 µs).
        """
        if not prefix:
            return len(self) > 0
        return prefix in self._prefixes

    # -- the rest ------------------------------------------------------------------

    def __len__(self) -> int:
        """Number of distinct valid words."""
        if self._len is None:
            self._len = len(self._words)
        return self._len

    def content_hash(self) -> str | None:
        """A sha256 of the cached word list this lexicon reads (``"marisa:<hex>"``), so
        structures derived from it (the Scrabble word graph) can be cached and rebuilt
        when it changes; None for an in-memory list (:meth:`from_words`) or a view."""
        tobytes = getattr(self._words, "tobytes", None)
        if tobytes is None or type(self) is not Lexicon:
            return None
        return "marisa:" + hashlib.sha256(tobytes()).hexdigest()

    def layers(self) -> "tuple[Lexicon, frozenset[str], frozenset[str]] | None":
        """For a league view (:meth:`with_lists`): ``(base, allow, deny)``; else None."""
        return None

    def words(self) -> Iterator[str]:
        """All valid words, sorted by code point (so Ä Ö Ü come after Z)."""
        return iter(sorted(self._words))

    def is_headword(self, word: str) -> bool:
        """True if the normalised ``word`` is a dictionary stem (Stichwort)."""
        return word in self._heads

    def check(self, word: str) -> Verdict:
        """Judge ``word`` (any case, unnormalised) and say why, in German.

        Returns a :class:`Verdict`; see there for the codes.  Never raises for odd input.
        """
        n = normalise(word, self.alphabet)
        if n is None:
            bad = _unwritable(word, self.alphabet)
            what = f" ({bad})" if bad else ""
            shown = word.strip() or "Das leere Wort"
            return Verdict(word, None, False, "alphabet",
                           f"{shown} ist ungültig: nicht mit dem Alphabet "
                           f"{self.alphabet.name} schreibbar{what}.")
        return self._judge(word, n)

    def _judge(self, word: str, n: str) -> Verdict:
        shown = _shown(word, n)
        if n in self._words:
            if self.source == "list":
                return Verdict(word, n, True, "listed",
                               f"{shown} ist gültig: steht in der Wortliste.")
            if n in self._heads:
                return Verdict(word, n, True, "headword",
                               f"{shown} ist gültig: Stichwort im Wörterbuch "
                               f"({self.source}).")
            return Verdict(word, n, True, "inflected",
                           f"{shown} ist gültig: Beugungsform eines Stichworts im "
                           f"Wörterbuch ({self.source}).")
        where = "in der Wortliste" if self.source == "list" else "im Wörterbuch"
        return Verdict(word, n, False, "unknown", f"{shown} ist ungültig: nicht {where}.")

    def __repr__(self) -> str:
        return (f"<Lexicon {self.source} alphabet={self.alphabet.name} "
                f"words={len(self)}>")


def union(*lexicons: Lexicon) -> Lexicon:
    """One lexicon accepting every word of ``lexicons`` (all spelled A-Z or in one
    alphabet); verdicts and normalisation use the first one's alphabet. A single
    lexicon is returned as it is. Used for a league that allows the words of a second
    dictionary (RONDO, seed 004: "vreemde woorden", when the league agrees)."""
    if len(lexicons) == 1:
        return lexicons[0]
    return _UnionView(lexicons)


class _UnionView(Lexicon):
    """Several lexicons as one (see :func:`union`)."""

    __slots__ = ("_parts",)

    def __init__(self, parts: tuple[Lexicon, ...]) -> None:
        first = parts[0]
        super().__init__(first.alphabet, first._words, first._prefixes, first._heads,
                         source="+".join(p.source for p in parts), version=first.version)
        self._parts = parts

    def __contains__(self, word: object) -> bool:
        return any(word in p for p in self._parts)

    def has_prefix(self, prefix: str) -> bool:
        return any(p.has_prefix(prefix) for p in self._parts)

    def __len__(self) -> int:
        if self._len is None:
            self._len = sum(1 for _ in self.words())
        return self._len

    def words(self) -> Iterator[str]:
        return iter(sorted(set().union(*(set(p.words()) for p in self._parts))))

    def is_headword(self, word: str) -> bool:
        return any(p.is_headword(word) for p in self._parts)

    def with_lists(self, allow: Iterable[str] = (), deny: Iterable[str] = ()) -> Lexicon:
        a = frozenset(n for w in allow if (n := normalise(w, self.alphabet)))
        d = frozenset(n for w in deny if (n := normalise(w, self.alphabet)))
        return _ListedView(self, a - d, d)

    def _judge(self, word: str, n: str) -> Verdict:
        for p in self._parts:
            if n in p:
                return p._judge(word, n)
        return self._parts[0]._judge(word, n)

    def __repr__(self) -> str:
        return f"<Lexicon {self.source} alphabet={self.alphabet.name} (union)>"


class _ListedView(Lexicon):
    """A :class:`Lexicon` with a GM allow-list and deny-list on top (see ``with_lists``)."""

    __slots__ = ("_base", "_allow", "_deny", "_allow_prefixes")

    def __init__(self, base: Lexicon, allow: frozenset[str], deny: frozenset[str]) -> None:
        super().__init__(base.alphabet, base._words, base._prefixes, base._heads,
                         source=base.source, version=base.version)
        self._base = base
        self._allow = allow
        self._deny = deny
        self._allow_prefixes = frozenset(_prefixes(allow))

    def layers(self) -> "tuple[Lexicon, frozenset[str], frozenset[str]] | None":
        return (self._base, self._allow, self._deny)

    def __contains__(self, word: object) -> bool:
        return word not in self._deny and (word in self._allow or word in self._base)

    def has_prefix(self, prefix: str) -> bool:
        if not prefix:
            return len(self) > 0
        return prefix in self._allow_prefixes or self._base.has_prefix(prefix)

    def __len__(self) -> int:
        if self._len is None:
            base = self._base
            self._len = sum(1 for _ in self._iter_unsorted(base))
        return self._len

    def _iter_unsorted(self, base: Lexicon) -> Iterator[str]:
        deny, allow = self._deny, self._allow
        for w in allow:
            if w not in base:
                yield w
        for w in base.words() if type(base) is not Lexicon else base._words:
            if w not in deny:
                yield w

    def words(self) -> Iterator[str]:
        return iter(sorted(self._iter_unsorted(self._base)))

    def is_headword(self, word: str) -> bool:
        return word not in self._deny and self._base.is_headword(word)

    def _judge(self, word: str, n: str) -> Verdict:
        shown = _shown(word, n)
        if n in self._deny:
            return Verdict(word, n, False, "denied",
                           f"{shown} ist ungültig: steht auf der Sperrliste der Liga.")
        if n in self._allow:
            return Verdict(word, n, True, "allowed",
                           f"{shown} ist gültig: steht auf der Freigabeliste der Liga.")
        return self._base._judge(word, n)

    def __repr__(self) -> str:
        return (f"<Lexicon {self.source} alphabet={self.alphabet.name} "
                f"+{len(self._allow)} allowed -{len(self._deny)} denied>")


class _RulesView(Lexicon):
    """A :class:`Lexicon` without the words a game's word rules leave out
    (:class:`~bot.lexicon.rules.WordRules`); made by :meth:`Lexicon.with_rules`."""

    __slots__ = ("_base", "_exclude", "_why")

    def __init__(self, base: Lexicon, exclude: frozenset[str], why: str) -> None:
        super().__init__(base.alphabet, base._words, base._prefixes, base._heads,
                         source=base.source, version=base.version)
        self._base = base
        self._exclude = exclude
        self._why = why

    def __contains__(self, word: object) -> bool:
        return word not in self._exclude and word in self._base

    def __len__(self) -> int:
        if self._len is None:
            self._len = len(self._base) - sum(1 for w in self._exclude if w in self._base)
        return self._len

    def words(self) -> Iterator[str]:
        return (w for w in self._base.words() if w not in self._exclude)

    def is_headword(self, word: str) -> bool:
        return word not in self._exclude and self._base.is_headword(word)

    def _judge(self, word: str, n: str) -> Verdict:
        if n in self._exclude:
            return Verdict(word, n, False, "unknown", f"{_shown(word, n)} {self._why}")
        return self._base._judge(word, n)

    def __repr__(self) -> str:
        return f"<Lexicon {self.source} alphabet={self.alphabet.name} -{len(self._exclude)} by word rules>"


def _shown(word: str, n: str) -> str:
    """The normalised word, with the input in brackets when the letters differ."""
    plain = word.strip()
    return n if plain.upper() == n else f"{n} ({plain})"


def _prefixes(words: Iterable[str]) -> set[str]:
    """Every non-empty prefix of every word (words included)."""
    out: set[str] = set()
    add = out.update
    for w in words:
        add([w[:i] for i in range(1, len(w) + 1)])
    return out

"""The shared lexicon: which words are valid, per game alphabet.

Rule source: ``shared/RULES.md``, section "Common to all games":

* a word must be a dictionary headword or an inflected form of one; no abbreviations;
  compounds only where the dictionary lists them;
* the free reference is igerman98 (Debian package ``hunspell-de-de``), expanded to all
  its inflected forms;
* every league has a GM allow-list and deny-list that win over the dictionary, and a GM
  can load a word list of their own instead (:meth:`Lexicon.from_words`,
  :meth:`Lexicon.from_file`);
* letters: games are case-insensitive; Rondo, Crossword and Typ-Dom spell Ä Ö Ü as
  AE OE UE and ß as SS (seed 000, "Umlaute sind durch AE usw., ß durch SS zu bilden");
  Monoscrabble has Ä Ö Ü tiles of its own and spells ß as SS.

How the word list is made (:func:`build`)
-----------------------------------------
``unmunch`` (Debian package ``hunspell-tools``) expands ``de_DE.dic`` with the affix
rules of ``de_DE.aff`` -- hunspell's own expansion.  Before expanding, dictionary
entries are dropped whose flags say they are not words on their own:

* ``ONLYINCOMPOUND`` (igerman98 flag ``o``): compound-end fragments such as ``äbte``;
* ``NEEDAFFIX`` (flag ``h``): compound-begin forms such as ``Leistungs``, ``Abschalt``;
* ``FORBIDDENWORD`` (flag ``d``): known misspellings such as ``Viellicht``; all forms
  expanded from these entries are removed from the result as well.

From the expanded lines we then drop: the licence header, lines containing ``-``,
``/``, ``|``, a digit, ``.`` or white space (compound-fragment and flag junk,
abbreviations such as ``Abb.``), forms with a capital letter after the first character
(acronyms such as ``GmbH``, ``USA``, ``PCs``; the Binnen-I forms such as
``ÄbtissIn`` go too, they are duplicates of ``Äbtissin``), one-letter forms and forms
without a vowel (abbreviations written without a dot: ``Lkw``, ``km``, ``Bsp``).
Finally every form is normalised per alphabet (:func:`normalise`); forms with letters
outside the alphabet (é, ê, ñ, à, â: ``Café``, ``Crêpe``) are dropped -- GMs can
allow-list a spelling such as ``CAFE`` if their league wants it.

Known gaps of the dictionary itself: igerman98 produces many compounds only through
hunspell's free compounding, which the rules exclude, so e.g. ``Werkzeug``,
``Freizeit``, ``Mitarbeiter`` are listed only as compound-begin forms (flag ``h``) and
are therefore not valid here; the GM allow-list is the remedy.  Proper names are not
marked in igerman98 and are kept.

Cache layout (:func:`default_cache_dir`)
----------------------------------------
Per distinct alphabet (``rondo`` and ``monoscrabble``; ``crossword`` and ``typdom``
share rondo's files): ``<alphabet>.marisa`` (all valid forms),
``<alphabet>.heads.marisa`` (the headwords, i.e. the dictionary stems) and
``<alphabet>.prefixes.marisa`` (every prefix of every form, so that
:meth:`Lexicon.has_prefix` is one exact lookup), plus ``manifest.json``.  The tries are
loaded with ``mmap``: loading takes milliseconds and the pages are shared between
processes.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import marisa_trie

__all__ = [
    "Alphabet",
    "ALPHABETS",
    "GAME_ALPHABET",
    "FORMAT_VERSION",
    "DEFAULT_DIC",
    "DEFAULT_AFF",
    "LexiconError",
    "Verdict",
    "VERDICT_CODES",
    "Lexicon",
    "normalise",
    "alphabet_for_game",
    "default_cache_dir",
    "build",
    "load",
    "cli_build",
    "cli_check",
]

#: Version of the cache layout; :func:`load` rebuilds a cache written with another one.
FORMAT_VERSION = 1

DEFAULT_DIC = Path("/usr/share/hunspell/de_DE.dic")
DEFAULT_AFF = Path("/usr/share/hunspell/de_DE.aff")

#: Human name of the dictionary, used in verdict reasons.
DICTIONARY_NAME = "igerman98"

_INSTALL_HINT = (
    "Bitte installieren / please install: apt-get install hunspell-de-de hunspell-tools"
)


class LexiconError(Exception):
    """Any failure to build or load the lexicon, or an unknown game/alphabet name.

    The message is German and English and, where it helps, names the fix (e.g. the apt
    packages ``hunspell-de-de`` and ``hunspell-tools``).
    """


# ---------------------------------------------------------------------------------------
# Alphabets


_AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SHARP_S = {"ß": "SS", "ẞ": "SS"}


@dataclass(frozen=True)
class Alphabet:
    """The letters a game writes words with.

    ``name``: the alphabet's name (a key of :data:`ALPHABETS`).
    ``letters``: every upper-case letter a normalised word may contain, as one string.
    ``mapping``: character -> replacement string, applied after upper-casing (and for
    ``ß``, before): e.g. ``{"Ä": "AE", "ß": "SS"}`` for Rondo (seed 000).
    """

    name: str
    letters: str
    mapping: dict[str, str] = field(default_factory=dict, hash=False)

    @property
    def signature(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """Letters and mapping; alphabets with equal signatures share one cache file."""
        return self.letters, tuple(sorted(self.mapping.items()))


_UMLAUT_AE = {"Ä": "AE", "Ö": "OE", "Ü": "UE", **_SHARP_S}

#: Every alphabet by name.  ``rondo``, ``crossword`` and ``typdom``: A-Z, Ä Ö Ü ß
#: spelled AE OE UE SS (seed 000 for Rondo, RULES.md "Common to all games" for the
#: others).  ``monoscrabble``: A-Z plus Ä Ö Ü as letters of their own, ß spelled SS.
ALPHABETS: dict[str, Alphabet] = {
    "rondo": Alphabet("rondo", _AZ, dict(_UMLAUT_AE)),
    "monoscrabble": Alphabet("monoscrabble", _AZ + "ÄÖÜ", dict(_SHARP_S)),
    "crossword": Alphabet("crossword", _AZ, dict(_UMLAUT_AE)),
    "typdom": Alphabet("typdom", _AZ, dict(_UMLAUT_AE)),
}

#: Game name -> alphabet name.
GAME_ALPHABET: dict[str, str] = {
    "rondo": "rondo",
    "rondo-original": "rondo",
    "monoscrabble": "monoscrabble",
    "crossword": "crossword",
    "typdom": "typdom",
    "typ-dom": "typdom",
}


def _alphabet(alphabet: str | Alphabet) -> Alphabet:
    if isinstance(alphabet, Alphabet):
        return alphabet
    try:
        return ALPHABETS[alphabet]
    except KeyError:
        raise LexiconError(
            f"Unbekanntes Alphabet / unknown alphabet {alphabet!r}; "
            f"bekannt / known: {', '.join(ALPHABETS)}"
        ) from None


def alphabet_for_game(game: str) -> Alphabet:
    """Return the :class:`Alphabet` of a game (``"rondo"``, ``"monoscrabble"`` ...).

    Alphabet names are accepted too.  Raises :class:`LexiconError` for unknown names.
    """
    name = GAME_ALPHABET.get(game.lower(), game.lower())
    return _alphabet(name)


def _storage_name(alpha: Alphabet) -> str:
    """Name of the cache files for ``alpha``: the first alphabet with its signature."""
    for name, other in ALPHABETS.items():
        if other.signature == alpha.signature:
            return name
    return alpha.name


def normalise(word: str, alphabet: str | Alphabet) -> str | None:
    """Spell ``word`` in ``alphabet``; return ``None`` if that is impossible.

    Steps: Unicode NFC (so a decomposed ``U+0308`` umlaut from a mail client counts),
    strip outer white space, upper-case character by character (``ß``/``ẞ`` -> ``SS``
    by the alphabet's mapping; characters whose upper case is more than one character,
    such as the ligature ``ﬁ``, are not upper-cased and so rejected), apply the
    alphabet's mapping (Rondo: ``Ä`` -> ``AE`` ..., seed 000), then check every
    character is one of ``alphabet.letters``.

    Returns the normalised word (``str``, upper case), or ``None`` when the word is
    empty or contains a character outside the alphabet (``é``, a digit, an inner space,
    a hyphen ...).  Letters with other accents are deliberately not folded (``Café`` is
    not ``CAFE``): the dictionary's few such words are dropped, and a GM can allow-list
    a folded spelling.  Raises :class:`LexiconError` for an unknown alphabet name.
    """
    alpha = _alphabet(alphabet)
    word = unicodedata.normalize("NFC", word).strip()
    if not word:
        return None
    pre, post, valid = _tables(alpha)
    word = word.translate(pre)
    up = word.upper()
    if len(up) != len(word):  # a character with a multi-character upper case
        return None
    up = up.translate(post)
    return up if valid(up) else None


_TABLES: dict[tuple, tuple] = {}


def _tables(alpha: Alphabet) -> tuple[dict, dict, object]:
    """(pre-upper table, post-upper table, fullmatch) for ``alpha``, cached."""
    key = alpha.signature
    t = _TABLES.get(key)
    if t is None:
        pre = {ord(c): r for c, r in alpha.mapping.items() if c.upper() != c}
        post = {ord(c): r for c, r in alpha.mapping.items() if c.upper() == c}
        valid = re.compile("[" + re.escape(alpha.letters) + "]+").fullmatch
        t = _TABLES[key] = (pre, post, valid)
    return t


# ---------------------------------------------------------------------------------------
# Verdicts and the Lexicon class

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
    def from_words(cls, words: Iterable[str], alphabet: str | Alphabet = "rondo") -> Lexicon:
        """An in-memory lexicon (set + prefix set) from a small word list.

        Each word is normalised with :func:`normalise`; words that cannot be written in
        the alphabet are skipped silently.  Verdicts say ``"listed"``.  Meant for the
        conformance cases' own lists and GM word lists (RULES.md: "a GM can load a
        word list file of their own instead").  Memory: a few hundred bytes per word.
        """
        alpha = _alphabet(alphabet)
        normed = {n for w in words if (n := normalise(w, alpha))}
        return cls(alpha, frozenset(normed), frozenset(_prefixes(normed)), frozenset(),
                   source="list")

    @classmethod
    def from_file(cls, path: str | os.PathLike, alphabet: str | Alphabet = "rondo") -> Lexicon:
        """Like :meth:`from_words`, reading one word per line (UTF-8) from ``path``.

        Empty lines and lines starting with ``#`` are ignored.  Raises ``OSError`` if
        the file cannot be read.
        """
        with open(path, encoding="utf-8") as fh:
            words = [ln for ln in fh if ln.strip() and not ln.lstrip().startswith("#")]
        return cls.from_words(words, alphabet)

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
                               f"({DICTIONARY_NAME}).")
            return Verdict(word, n, True, "inflected",
                           f"{shown} ist gültig: Beugungsform eines Stichworts im "
                           f"Wörterbuch ({DICTIONARY_NAME}).")
        where = "in der Wortliste" if self.source == "list" else "im Wörterbuch"
        return Verdict(word, n, False, "unknown", f"{shown} ist ungültig: nicht {where}.")

    def __repr__(self) -> str:
        return (f"<Lexicon {self.source} alphabet={self.alphabet.name} "
                f"words={len(self)}>")


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
        for w in base.words() if isinstance(base, _ListedView) else base._words:
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


def _shown(word: str, n: str) -> str:
    """The normalised word, with the input in brackets when the letters differ."""
    plain = word.strip()
    return n if plain.upper() == n else f"{n} ({plain})"


def _unwritable(word: str, alpha: Alphabet) -> str:
    """The characters of ``word`` that keep it out of ``alpha``, e.g. ``"é"``."""
    word = unicodedata.normalize("NFC", word).strip()
    bad = []
    for ch in word:
        if normalise(ch, alpha) is None and ch not in bad:
            bad.append(ch)
    return " ".join(repr(c)[1:-1] if not c.isprintable() or c.isspace() else c
                    for c in bad)


# ---------------------------------------------------------------------------------------
# Building the cache


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


@dataclass
class _Aff:
    encoding: str = "UTF-8"
    flag_type: str = "char"
    excluded: set[str] = field(default_factory=set)  # ONLYINCOMPOUND, NEEDAFFIX
    forbidden: set[str] = field(default_factory=set)  # FORBIDDENWORD


def _read_aff(aff: Path) -> _Aff:
    info = _Aff()
    with open(aff, "rb") as fh:
        raw = fh.read()
    for line in raw.decode("latin-1").splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        key, val = parts[0], parts[1]
        if key == "SET":
            info.encoding = val
        elif key == "FLAG":
            info.flag_type = val.lower()
    text = raw.decode(info.encoding, errors="replace")
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        if parts[0] in ("ONLYINCOMPOUND", "NEEDAFFIX"):
            info.excluded.add(parts[1])
        elif parts[0] == "FORBIDDENWORD":
            info.forbidden.add(parts[1])
    return info


def _split_flags(flags: str, flag_type: str) -> set[str]:
    if flag_type == "long":
        return {flags[i:i + 2] for i in range(0, len(flags), 2)}
    if flag_type == "num":
        return set(flags.split(","))
    return set(flags)  # "char" and "utf-8"


_ENTRY_SLASH = re.compile(r"(?<!\\)/")


def _read_dic(dic: Path, aff: _Aff) -> tuple[str | None, list[str], list[str], list[str]]:
    """Return (version, kept entries, forbidden entries, kept stems)."""
    with open(dic, encoding=aff.encoding, errors="replace") as fh:
        lines = fh.read().splitlines()
    version = None
    kept: list[str] = []
    forbidden: list[str] = []
    stems: list[str] = []
    for i, line in enumerate(lines):
        if i == 0 and line.strip().isdigit():
            continue
        if not line.strip() or line[0] in "\t #":
            m = re.search(r"Version:\s*(\S+)", line)
            if m and version is None:
                version = m.group(1)
            continue
        entry = line.split("\t", 1)[0].rstrip()  # drop morphological fields
        parts = _ENTRY_SLASH.split(entry, 1)
        stem = parts[0].replace("\\/", "/")
        flags = _split_flags(parts[1], aff.flag_type) if len(parts) > 1 else set()
        if flags & aff.forbidden:
            forbidden.append(entry)
        elif flags & aff.excluded:
            continue
        else:
            kept.append(entry)
            stems.append(stem)
    return version, kept, forbidden, stems


def _unmunch(entries: list[str], aff: Path, encoding: str, tmp: Path, name: str) -> list[str]:
    exe = shutil.which("unmunch")
    if exe is None:
        raise LexiconError(
            "unmunch nicht gefunden / unmunch not found. " + _INSTALL_HINT)
    if not entries:
        return []
    dic = tmp / f"{name}.dic"
    with open(dic, "w", encoding=encoding, errors="replace") as fh:
        fh.write(f"{len(entries)}\n")
        fh.write("\n".join(entries))
        fh.write("\n")
    proc = subprocess.run([exe, str(dic), str(aff)], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=False)
    out = proc.stdout.decode(encoding, errors="replace").splitlines()
    if proc.returncode != 0 and not out:
        raise LexiconError(
            f"unmunch ist fehlgeschlagen / unmunch failed (exit {proc.returncode}) "
            f"for {aff}")
    return out


_JUNK = re.compile(r"[-/|.\d\s]")
_HAS_VOWEL = re.compile(r"[aeiouyäöüAEIOUYÄÖÜàâéêèëîïôûñáíóú]")


def _form_reason(line: str) -> str | None:
    """Why an unmunch output line is not a word (a short key), or ``None`` if it is."""
    if not line or line[0] in "\t ":
        return "header"
    if line[0] == "-":
        return "fragment"
    if "." in line:
        return "abbreviation"
    if _JUNK.search(line):
        return "fragment"
    if not line[1:].islower():  # also catches one-letter lines
        return "acronym" if len(line) > 1 else "abbreviation"
    if not _HAS_VOWEL.search(line):
        return "abbreviation"
    return None


def _bulk_normaliser(alpha: Alphabet):
    """:func:`normalise` for clean dictionary lines (no NFC, no strip), ~5x faster."""
    _pre, _post, valid = _tables(alpha)
    pre = [(c, r) for c, r in alpha.mapping.items() if c.upper() != c]
    post = [(c, r) for c, r in alpha.mapping.items() if c.upper() == c]

    def norm(word: str) -> str | None:
        for c, r in pre:
            word = word.replace(c, r)
        up = word.upper()
        for c, r in post:
            up = up.replace(c, r)
        return up if valid(up) else None

    return norm


def _prefixes(words: Iterable[str]) -> set[str]:
    """Every non-empty prefix of every word (words included)."""
    out: set[str] = set()
    add = out.update
    for w in words:
        add([w[:i] for i in range(1, len(w) + 1)])
    return out


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
          aff: Path = DEFAULT_AFF) -> dict:
    """Build the lexicon cache from igerman98 (``hunspell-de-de``) with ``unmunch``.

    Writes, into ``cache_dir`` (default :func:`default_cache_dir`, created if needed),
    for each distinct alphabet (rondo, monoscrabble) ``<alphabet>.marisa``,
    ``<alphabet>.heads.marisa`` and ``<alphabet>.prefixes.marisa``, then
    ``manifest.json``; each file is written to a temp file and renamed, so readers
    never see half a file.  See the module docstring for what is filtered and why
    (RULES.md "Common to all games").  Takes about a second.

    Returns stats: ``{"cache_dir": str, "seconds": float, "dictionary_version": str,
    "raw_forms": int, "dropped": {reason: count}, "alphabets": {name: {"words": int,
    "headwords": int, "prefixes": int, "unwritable": int}}}``.

    Raises :class:`LexiconError` if ``unmunch`` or the dictionary files are missing
    (the message names ``apt-get install hunspell-de-de hunspell-tools``) or the
    expansion yields nothing.
    """
    t0 = time.perf_counter()
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    dic, aff = Path(dic), Path(aff)
    for p in (dic, aff):
        if not p.is_file():
            raise LexiconError(
                f"Wörterbuchdatei fehlt / dictionary file missing: {p}. " + _INSTALL_HINT)
    if shutil.which("unmunch") is None:
        raise LexiconError("unmunch nicht gefunden / unmunch not found. " + _INSTALL_HINT)
    affinfo = _read_aff(aff)
    version, kept, forbidden_entries, stems = _read_dic(dic, affinfo)

    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="unmunch-", dir=cache_dir) as tmpname:
        tmp = Path(tmpname)
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
    heads_raw = {s for s in stems if _form_reason(s) is None and s not in forbidden}

    stats_alpha: dict[str, dict] = {}
    manifest_alpha: dict[str, dict] = {}
    for name, alpha in ALPHABETS.items():
        store = _storage_name(alpha)
        if store != name:
            manifest_alpha[name] = {"same_as": store}
            continue
        norm = _bulk_normaliser(alpha)
        normed = list(map(norm, forms))
        unwritable = normed.count(None)
        words = set(normed)
        words.discard(None)
        del normed
        heads = {n for s in heads_raw if (n := norm(s)) and n in words}
        prefixes = _prefixes(words)
        _write_trie(words, cache_dir / f"{name}.marisa")
        _write_trie(heads, cache_dir / f"{name}.heads.marisa")
        _write_trie(prefixes, cache_dir / f"{name}.prefixes.marisa")
        entry = {"words": len(words), "headwords": len(heads), "prefixes": len(prefixes),
                 "unwritable": unwritable}
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
        "dictionary": DICTIONARY_NAME,
        "dictionary_version": version,
        "source": {"dic": _file_id(dic), "aff": _file_id(aff),
                   "expander": shutil.which("unmunch")},
        "built_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "build_seconds": round(seconds, 3),
        "raw_forms": len(lines),
        "dropped": dropped,
        "alphabets": manifest_alpha,
    }
    _write_json(manifest, cache_dir / "manifest.json")
    return {"cache_dir": str(cache_dir), "seconds": seconds,
            "dictionary_version": version, "raw_forms": len(lines), "dropped": dropped,
            "alphabets": stats_alpha}


# ---------------------------------------------------------------------------------------
# Loading

_MEMO: dict[tuple[str, str], Lexicon] = {}
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


def load(alphabet: str = "rondo", cache_dir: Path | None = None) -> Lexicon:
    """The igerman98 lexicon in ``alphabet`` (an alphabet or game name).

    Memory-maps the cached tries from ``cache_dir`` (default :func:`default_cache_dir`),
    building the cache first with :func:`build` when it is missing, has another
    :data:`FORMAT_VERSION`, or the dictionary file changed since (a file lock keeps
    concurrent processes from building twice).  Memoised per (alphabet, resolved
    directory) within the process: repeated calls return the same object.
    Loading a built cache takes a few milliseconds.

    Raises :class:`LexiconError` for an unknown alphabet, or from :func:`build`.
    """
    alpha = alphabet_for_game(alphabet)
    cache_dir = (Path(cache_dir) if cache_dir is not None else default_cache_dir())
    cache_dir = cache_dir.expanduser().resolve()
    key = (alpha.name, str(cache_dir))
    lex = _MEMO.get(key)
    if lex is not None:
        return lex
    with _MEMO_LOCK:
        lex = _MEMO.get(key)
        if lex is not None:
            return lex
        store = _storage_name(alpha)
        if not _cache_usable(cache_dir, store, DEFAULT_DIC):
            cache_dir.mkdir(parents=True, exist_ok=True)
            with open(cache_dir / ".build.lock", "w") as lockfh:
                fcntl.flock(lockfh, fcntl.LOCK_EX)
                try:
                    if not _cache_usable(cache_dir, store, DEFAULT_DIC):
                        build(cache_dir)
                finally:
                    fcntl.flock(lockfh, fcntl.LOCK_UN)
        m = _read_manifest(cache_dir) or {}
        entry = m["alphabets"][store]
        lex = Lexicon(alpha, _mmap(cache_dir / entry["file"]),
                      _mmap(cache_dir / entry["prefixes_file"]),
                      _mmap(cache_dir / entry["heads_file"]),
                      source=m.get("dictionary", DICTIONARY_NAME),
                      version=m.get("dictionary_version"))
        _MEMO[key] = lex
        return lex


def _clear_memo() -> None:
    """Forget memoised lexicons (tests, benchmarks)."""
    with _MEMO_LOCK:
        _MEMO.clear()


# ---------------------------------------------------------------------------------------
# CLI helpers (wired into ``bot/cli.py`` by the lead)


def cli_build(cache_dir: Path | None = None) -> int:
    """``spielleiter lexicon build``: build the cache, print a summary, return 0.

    Prints one line per alphabet (words, headwords) and the time taken, German with
    English in brackets.  Raises :class:`LexiconError` from :func:`build`.
    """
    stats = build(cache_dir)
    _clear_memo()
    ver = stats.get("dictionary_version") or "?"
    print(f"Wörterbuch {DICTIONARY_NAME} {ver} -> {stats['cache_dir']}")
    for name, s in stats["alphabets"].items():
        same = f" (= {s['same_as']})" if "same_as" in s else ""
        print(f"  {name}: {s['words']} Wörter (words), {s['headwords']} Stichwörter "
              f"(headwords){same}")
    print(f"Fertig in {stats['seconds']:.2f} s (done).")
    return 0


def cli_check(word: str, game: str = "rondo", allow: Iterable[str] = (),
              deny: Iterable[str] = (), cache_dir: Path | None = None) -> int:
    """``spielleiter lexicon check [--game GAME] WORD``: print the verdict, return status.

    Prints :attr:`Verdict.reason` (one German line) to stdout.  Returns 0 if the word
    is valid in ``game``'s alphabet (with the given allow-/deny-lists), 1 if not.
    An unknown game name prints the error to stderr and returns 2.
    """
    try:
        lex = load(game, cache_dir)
    except LexiconError as exc:
        print(exc, file=sys.stderr)
        return 2
    allow, deny = list(allow), list(deny)
    if allow or deny:
        lex = lex.with_lists(allow, deny)
    verdict = lex.check(word)
    print(verdict.reason)
    return 0 if verdict.valid else 1

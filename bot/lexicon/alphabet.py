"""Game alphabets and the spelling of words in them (RULES.md "Common to all games":
games are case-insensitive; Rondo, Crossword and Typ-Dom spell Ä Ö Ü as AE OE UE and ß as
SS, seed 000; Monoscrabble has Ä Ö Ü tiles of its own)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from bot.lexicon.errors import LexiconError



_AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SHARP_S = {"ß": "SS", "ẞ": "SS"}


@dataclass(frozen=True)
class Alphabet:
    """The letters a game writes words with.

    ``name``: the alphabet's name (a key of :data:`ALPHABETS`).
    ``letters``: every upper-case letter a normalised word may contain, as one string.
    ``mapping``: character -> replacement string, applied after upper-casing (and for
    ``ß``, before): e.g. ``{"Ä": "AE", "ß": "SS"}`` for Rondo (seed 000).
    ``source``: the source dictionary the word list is built from (a key of
    :data:`bot.lexicon.sources.SOURCES`): ``"igerman98"`` or ``"opentaal"``.
    ``names``: for a source that marks proper names by a capital (OpenTaal): also list
    them.
    ``rules``: the name of the build-time word-rule layer the word list is built with
    (``""``: none); the layer itself, a :data:`bot.lexicon.rules.BuildLayer`, is the
    game's (``GameRules.word_rules.layer``) and the callers pass it to :func:`load` and
    :func:`build` (the lexicon knows no game). The name keys the alphabet's cache files.
    """

    name: str
    letters: str
    mapping: dict[str, str] = field(default_factory=dict, hash=False)
    source: str = "igerman98"
    names: bool = False
    rules: str = ""

    @property
    def signature(self) -> tuple[str, tuple[tuple[str, str], ...], str, bool, str]:
        """Letters, mapping, source, names and word rules; alphabets with equal
        signatures share one cache file."""
        return (self.letters, tuple(sorted(self.mapping.items())), self.source, self.names,
                self.rules)


_UMLAUT_AE = {"Ä": "AE", "Ö": "OE", "Ü": "UE", **_SHARP_S}

#: Dutch (OpenTaal): the diaeresis and the accents only mark pronunciation and are
#: dropped, as Dutch word games do (IDEEËN is played IDEEEN, CAFÉ CAFE); the ligature
#: ĳ is the two letters I and J (issue 11: "IJ as the two letters I and J").
_DUTCH_FOLD = {
    **{c: "A" for c in "áàâäãåÁÀÂÄÃÅ"}, **{c: "E" for c in "éèêëÉÈÊË"},
    **{c: "I" for c in "íìîïÍÌÎÏ"}, **{c: "O" for c in "óòôöõÓÒÔÖÕ"},
    **{c: "U" for c in "úùûüÚÙÛÜ"}, "ç": "C", "Ç": "C", "ñ": "N", "Ñ": "N",
    "ĳ": "IJ", "Ĳ": "IJ",
}

#: Every alphabet by name.  ``rondo``, ``crossword`` and ``typdom``: A-Z, Ä Ö Ü ß
#: spelled AE OE UE SS (seed 000 for Rondo, RULES.md "Common to all games" for the
#: others); ``typdom`` built with the build layer of that name, which
#: the Typ-Dom games give (:mod:`bot.games.typdom.words`: verbs only in the infinitive, no
#: family, company or brand names).  ``monoscrabble``:
#: A-Z plus Ä Ö Ü as letters of their own, ß spelled SS.
#: ``nl``: Dutch from OpenTaal (``hunspell-nl``), A-Z, accents dropped, ĳ = IJ, without
#: proper names; ``nl-namen``: the same with the proper names (RONDO, seed 004,
#: "eigennamen ... toegestaan" when the league agrees).
ALPHABETS: dict[str, Alphabet] = {
    "rondo": Alphabet("rondo", _AZ, dict(_UMLAUT_AE)),
    "monoscrabble": Alphabet("monoscrabble", _AZ + "ÄÖÜ", dict(_SHARP_S)),
    "crossword": Alphabet("crossword", _AZ, dict(_UMLAUT_AE)),
    "typdom": Alphabet("typdom", _AZ, dict(_UMLAUT_AE), rules="typdom"),
    "nl": Alphabet("nl", _AZ, dict(_DUTCH_FOLD), source="opentaal"),
    "nl-namen": Alphabet("nl-namen", _AZ, dict(_DUTCH_FOLD), source="opentaal", names=True),
}

def get_alphabet(alphabet: str | Alphabet) -> Alphabet:
    """The :class:`Alphabet` named ``alphabet`` (a key of :data:`ALPHABETS`; an
    :class:`Alphabet` is returned as it is). A game names its alphabet
    (``GameRules.alphabet``, ``GameRules.lexicon_alphabets``); the lexicon knows no game.
    Raises :class:`LexiconError` for an unknown name."""
    if isinstance(alphabet, Alphabet):
        return alphabet
    try:
        return ALPHABETS[alphabet]
    except KeyError:
        raise LexiconError(
            f"Unbekanntes Alphabet / unknown alphabet {alphabet!r}; "
            f"bekannt / known: {', '.join(ALPHABETS)}"
        ) from None



def _storage_name(alpha: Alphabet) -> str:
    """Name of the cache files for ``alpha``: the first alphabet with its signature
    (the signature includes the source, so each source dictionary has its own files)."""
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
    alpha = get_alphabet(alphabet)
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


# ---------------------------------------------------------------------------------------
# Spelling a move line as players type it (issue 33, item 4)

@dataclass(frozen=True)
class LineSpelling:
    """What :func:`spell_line` made of a move line.

    ``text``: the line in the game's own spelling (``ÖLE`` -> ``OELE``), or the line
    unchanged when nothing needed spelling. ``problems``: the letters that cannot be
    read in this game where they stand, as ``(char, spelled, why)`` tuples, ``why``
    one of ``"joker"`` (after ``*``/``?``: a Joker, Blanko or Jolly stands for one
    letter, and ``spelled`` has two), ``"square"`` (a letter alone or in a written grid
    row stands on one field, ``spelled`` needs two) and ``"unknown"`` (a letter the
    alphabet has no spelling for, ``spelled`` is its base letter without the accent or
    ``""``). ``probe``: the line with each problem letter replaced by a letter of the
    alphabet (to ask whether the rest of the line reads as a move)."""

    text: str
    problems: tuple[tuple[str, str, str], ...] = ()
    probe: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.problems) or bool(self.probe) and self.probe != self.text


def _cased_neighbour(text: str, i: int) -> bool | None:
    """Whether the nearest ASCII letter of the same word around ``text[i]`` is upper case
    (the one before, else the one after); None when the character stands alone."""
    for rng in (range(i - 1, -1, -1), range(i + 1, len(text))):
        for j in rng:
            c = text[j]
            if c.isascii() and c.isalpha():
                return c.isupper()
            if not c.isalpha():
                break
    return None


def spell_line(text: str, alphabet: str | Alphabet, *, one_square: bool = False) -> LineSpelling:
    """Spell the letters of a move line the way the alphabet writes them, keeping what
    their case means (upper case: a new card or tile, lower case: one already lying).

    ``Ä Ö Ü`` -> ``AE OE UE`` and ``ä ö ü`` -> ``ae oe ue`` where the alphabet spells
    them so (Rondo, seed 000 II.1 a: "Umlaute sind durch AE usw., ß durch SS zu
    bilden"; Crossword, Typ-Dom: RULES.md "Common to all games"); Monoscrabble keeps its
    own Ä Ö Ü tiles. ``ß`` has no upper case of its own in the notation: it takes the case
    of the nearest letter of its word (``STRAßE`` -> ``STRASSE``, ``straße`` ->
    ``strasse``; alone: upper case), ``ẞ`` is upper case. Dutch (RONDO, seed 004):
    accents and the diaeresis are dropped (``RUÏNE`` -> ``RUINE``), ``ĳ`` is ``ij``.
    Characters that are no letters (digits, ``*``, ``/`` ...) and ASCII letters are left
    as they are: the game's grammar reads them.

    ``one_square``: a letter standing alone (``B3 Ö``) or in a run that touches ``.``,
    ``-`` or ``_`` (a written grid row ``HÖHE..``) stands on one field; a letter spelled
    with two there is a problem (Crossword). After ``*`` or ``?`` it always is one.
    Returns a :class:`LineSpelling`; raises :class:`LexiconError` for an unknown
    alphabet name."""
    alpha = get_alphabet(alphabet)
    text = unicodedata.normalize("NFC", text)
    if text.isascii():
        return LineSpelling(text)
    letters = set(alpha.letters)
    out: list[str] = []
    probe: list[str] = []
    problems: list[tuple[str, str, str]] = []
    for i, ch in enumerate(text):
        if ch.isascii() or not ch.isalpha() or ch.upper() in letters and len(ch.upper()) == 1:
            out.append(ch)
            probe.append(ch)
            continue
        spelled = alpha.mapping.get(ch) or alpha.mapping.get(ch.upper()) if len(ch.upper()) == 1 \
            else alpha.mapping.get(ch)
        if spelled is None:
            base = "".join(c for c in unicodedata.normalize("NFD", ch) if c.isascii()).upper()
            problems.append((ch, base if base and all(b in letters for b in base) else "", "unknown"))
            out.append(ch)
            stand_in = problems[-1][1][:1] or alpha.letters[0]
            probe.append(stand_in.lower() if ch.islower() else stand_in)
            continue
        if ch in ("ß",):
            upper = _cased_neighbour(text, i)
            upper = True if upper is None else upper
        else:
            upper = not ch.islower()
        spelled = spelled if upper else spelled.lower()
        before = text[:i].rstrip(" \t")
        alone = _cased_neighbour(text, i) is None
        if len(spelled) > 1 and before.endswith(("*", "?")):
            problems.append((ch, spelled.upper(), "joker"))
        elif len(spelled) > 1 and one_square and (alone or _in_grid_row(text, i)):
            problems.append((ch, spelled.upper(), "square"))
        else:
            out.append(spelled)
            probe.append(spelled)
            continue
        out.append(ch)
        probe.append(spelled[0])
    return LineSpelling("".join(out), tuple(problems), "".join(probe))


def _in_grid_row(text: str, i: int) -> bool:
    """Whether the run of letters around ``text[i]`` touches ``.``, ``-`` or ``_``."""
    a = i
    while a > 0 and text[a - 1].isalpha():
        a -= 1
    b = i
    while b < len(text) - 1 and text[b + 1].isalpha():
        b += 1
    return (a > 0 and text[a - 1] in ".-_") or (b < len(text) - 1 and text[b + 1] in ".-_")

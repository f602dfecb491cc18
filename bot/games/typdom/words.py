"""Typ-Dom's word rules: the build-time layer that rewrites the igerman98 entries of the
``typdom`` word list (:data:`WORD_RULES`, ``GameRules.word_rules`` of Typ-Dom, Typ-Dom
Presto and "Wer behält recht?"; the callers pass it to :func:`bot.lexicon.load` and
:func:`bot.lexicon.build`, which apply :func:`typdom_layer` when they build the list: the
lexicon knows no game). The figures are in docs/rules/typdom-words.md.

The layer follows the Typ-Dom rules (seed 002, Kreuzwort-Spiel: "Als anzusetzende Begriffe dürfen keine Firmen-,
Marken- oder Familiennamen verwendet werden. Zeitwörter dürfen nur in ihrer Grundform
(also z. B. nicht Befehlsform oder Mitvergangenheit) gebraucht werden."; RULES.md
"Typ-Dom": place names and first names are allowed):

1. **Verbs only in the infinitive.** igerman98 gives every verb entry its conjugation by
   affix flags, so the layer rewrites the dictionary before expanding it: a lower-case
   entry keeps its stem (the infinitive, ``spielen``) and drops the flags that conjugate
   it -- ``I`` (``spiele``, ``spielt``), ``X`` (``spielst``, ``spielt``), ``Y`` (the
   Mitvergangenheit ``spielte``, ``spieltest`` ...), ``W`` (the Befehlsform ``spiel``),
   ``E`` (``liefe``) and ``Z`` (the endings of a finite stem) -- and lower-case entries
   carrying ``Z`` are finite stems themselves (``ging``, ``lief``, ``hatte``) and go
   (keeping only an adjective reading, flag ``A``, if they have one), as do lower-case
   entries with a verb flag whose stem does not end in ``n`` (the irregular present
   stems ``fährt/VX``, ``isst/W``, ``liest/V``: an infinitive ends in -n). A short hand list
   (:data:`FINITE_FORMS`) catches the irregular finite forms igerman98 lists without flags
   (``ist``, ``bin``, ``kann``, ``weiß`` ...). The rest stays: the ``ver-`` prefix on
   the infinitive (``verspielen``), participles (``spielend``, ``gespielt``: igerman98
   lists them as adjectives, and the seed names only "Befehlsform oder Mitvergangenheit";
   decision), ``-bar`` adjectives. A form stays valid when another entry produces it
   (``Spiele`` the noun, ``Tat``, ``Liebe``), since only the verb entries are rewritten.
2. **No family, company or brand names.** igerman98 does not mark proper names. The layer
   takes the Wiktionary noun list of the ``german-nouns`` package (about 100 000 lemmas
   with their kind) and removes every lemma listed only as a family name (``Nachname``)
   or a proper name of an organisation, product or the like (``Eigenname``) -- unless the
   same lemma is also listed as a common noun, a first name (``Vorname``) or a place
   (``Toponym``): ``Müller`` and ``Bach`` stay (the miller, the brook), ``Schmidt``,
   ``Hoffmann``, ``Porsche`` go. Every sense (row) of a lemma counts, not only the first.
   Brands that neither source marks are in the hand list :data:`BRANDS`.
3. **Bare name entries** (issue 24): igerman98 gives a common noun its plural and
   compound flags (``Müller/FNSm``, ``Bach/STmij``, places too: ``Berlin/Sm``), but a
   proper name at most the genitive ``S`` (``Einstein/S``, ``Bismarck/S``, ``Nehru/S``,
   ``Pattex``). A capitalised entry with no flag but ``S`` that is not an initialism goes
   (:func:`is_bare_name`), unless it is a first name or a place -- german-nouns lists a
   sense ``Vorname`` or ``Toponym``, or the first-name list of the ``gender-guesser``
   package (37 354 single first names of Europe and beyond) has it -- or german-nouns
   knows the lemma only as a common noun (``Krux``, ``Unzeit``). A lemma with a name
   sense *and* a common-noun sense stays only through an entry with common-noun flags:
   ``Einstein`` (a name first, and in igerman98 only ``Einstein/S``) goes.
   The refused and kept shares of a list of brands, companies and family names and of a
   list of ordinary words spelled like one are in docs/rules/typdom-words.md.

A league's ``allow_words``/``deny_words`` still win over the layer (RULES.md: a league may
agree other word rules). Coverage figures are recorded in the cache manifest (``rules``)
and printed by ``spielleiter lexicon build``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from importlib import resources

from bot.lexicon.rules import WordRules


#: igerman98 flags that conjugate a verb entry (de_DE.aff: I, X present tense; Y
#: Präteritum; W imperative; E Konjunktiv of a finite stem; Z endings of a finite stem).
FINITE_FLAGS = frozenset("IXYWEZ")
#: The flag of a finite verb stem (``ging/VZ``, ``lief/EVZ``, ``hatte/Z``, ``begann/Z``).
FINITE_STEM_FLAG = "Z"
#: Flags only verb entries carry (the conjugation flags and ``V``, the ``ver-`` prefix);
#: a lower-case entry with one of them whose stem does not end in ``n`` is a finite form
#: itself (``fährt/VX``, ``isst/W``, ``liest/V``, ``abhat/X``), never an infinitive.
VERB_FLAGS = FINITE_FLAGS | {"V"}
#: The adjective-inflection flag (a participle listed as an adjective keeps it).
ADJECTIVE_FLAG = "A"

#: Irregular finite verb forms igerman98 lists as plain entries (sein, haben, werden,
#: the modal verbs, wissen, tun). Only the lower-case entries go: a noun spelled the same
#: (``Tat``, ``Soll``, ``Habe``, ``Wart``) stays.
FINITE_FORMS = frozenset((  # one word a string: a word list, not prose
    "bin", "bist", "ist", "sind", "seid", "war", "warst", "waren", "wart", "wäre",
    "wärst", "wären", "wärt", "sei", "seist", "seien",
    "habe", "hast", "hat", "habt", "hatte", "hattest", "hatten", "hattet", "hätte",
    "hättest", "hätten", "hättet",
    "werde", "wirst", "wird", "werdet", "wurde", "wurdest", "wurden", "wurdet", "würde",
    "würdest", "würden", "würdet",
    "kann", "kannst", "könnt", "konnte", "konntest", "konnten", "konntet", "könnte",
    "könntest", "könnten", "könntet",
    "muss", "musst", "müsst", "musste", "musstest", "mussten", "musstet", "müsste",
    "müsstest", "müssten", "müsstet",
    "darf", "darfst", "dürft", "durfte", "durftest", "durften", "durftet", "dürfte",
    "dürftest", "dürften", "dürftet",
    "will", "willst", "wollt", "wollte", "wolltest", "wollten", "wolltet",
    "soll", "sollst", "sollt", "sollte", "solltest", "sollten", "solltet",
    "mag", "magst", "mögt", "mochte", "mochtest", "mochten", "mochtet", "möchte",
    "möchtest", "möchten", "möchtet",
    "weiß", "weißt", "wisst", "wusste", "wusstest", "wussten", "wusstet", "wüsste",
    "wüssten",
    "tue", "tust", "tut", "tat", "tatest", "taten", "tatet", "täte", "täten",
))

#: Company and brand names igerman98 lists that the Wiktionary list does not mark (hand
#: list; each is only a brand: Puma, Uhu, Henkel, Tempo, Bayer stay as the animal, the
#: handle, the speed, the Bavarian).
BRANDS = frozenset((  # one word a string: a word list, not prose
    "Adidas", "Aldi", "Amazon", "Apple", "Audi", "Bosch", "Citroen", "Coca", "Daimler",
    "Facebook", "Ferrari", "Fiat", "Google", "Intel",
    "Jacobs", "Kodak", "Leica", "Linux", "Lufthansa", "Microsoft", "Nokia", "Nutella",
    "Opel", "Pepsi", "Peugeot", "Porsche", "Renault",
    "Rolex", "Samsung", "Sony", "Telekom", "Toyota", "Twitter", "Volkswagen", "Volvo",
    "Windows", "Xerox", "Yahoo",
))

#: german-nouns row kinds: a name kind the rules forbid, and kinds that keep a lemma.
_FORBIDDEN_KINDS = ("Nachname", "Eigenname")
_KEEP_KINDS = ("Vorname", "Toponym")


def _nouns_csv() -> io.TextIOBase | None:
    try:
        return resources.files("german_nouns").joinpath("nouns.csv").open(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return None


#: The only flag a bare name entry may carry: the genitive (igerman98 ``S``).
NAME_FLAGS = frozenset("S")


def noun_kinds(source: io.TextIOBase | None = None) -> dict[str, frozenset[str]] | None:
    """Every lemma of the german-nouns Wiktionary list with the union of the kinds of all
    its senses (rows): ``{"Bach": {"Substantiv", "Nachname", "Toponym"}, ...}``; None
    without the package."""
    fh = source if source is not None else _nouns_csv()
    if fh is None:
        return None
    kinds: dict[str, set[str]] = {}
    with fh:
        for row in csv.DictReader(fh):
            lemma = row.get("lemma") or ""
            if lemma and " " not in lemma:
                kinds.setdefault(lemma, set()).update(p.strip() for p in (row.get("pos") or "").split(","))
    return {k: frozenset(v) for k, v in kinds.items()}


def first_names() -> frozenset[str]:
    """The first names of the ``gender-guesser`` package's list (``data/nam_dict.txt``,
    read as its own detector reads it; double names ``Jan+Peter`` left out); empty
    without the package."""
    try:
        fh = resources.files("gender_guesser").joinpath("data", "nam_dict.txt").open(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return frozenset()
    out: set[str] = set()
    with fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 2 or line[:1] in "#=":  # comments, lines of equivalent names
                continue
            if "+" not in parts[1]:  # "Jan+Peter": a double name
                out.add(parts[1])
    return frozenset(out)


def is_bare_name(stem: str, flags: str) -> bool:
    """Whether the igerman98 entry ``stem/flags`` has the shape of a proper name: upper
    case first letter, a lower-case letter after it (not an initialism like ``UFO``), and
    no flag but the genitive :data:`NAME_FLAGS`."""
    return (stem[:1].isupper() and any(c.islower() for c in stem[1:]) and stem.isalpha()
            and set(flags) <= NAME_FLAGS)


def allowed_bare(stem: str, kinds: dict[str, frozenset[str]] | None, firsts: frozenset[str]) -> bool:
    """Whether a bare name entry (:func:`is_bare_name`) stays: a first name or place
    (german-nouns ``Vorname``/``Toponym``, or the gender-guesser list), or a lemma
    german-nouns knows only as a common noun (no ``Nachname``/``Eigenname`` sense)."""
    k = (kinds or {}).get(stem)
    if k is not None and (k & set(_KEEP_KINDS)):
        return True
    if stem in firsts:
        return True
    return k is not None and not (k & set(_FORBIDDEN_KINDS))


def forbidden_names(source: io.TextIOBase | None = None) -> tuple[frozenset[str], dict]:
    """Lemmas the Typ-Dom rules forbid as names: family names and proper names of
    organisations or products (german-nouns kinds ``Nachname``/``Eigenname``) that are
    not also a common noun, first name or place, plus :data:`BRANDS`.

    Returns ``(lemmas, stats)``; without the german-nouns package only :data:`BRANDS`
    (``stats["german_nouns"]`` is False).
    """
    fh = source if source is not None else _nouns_csv()
    stats: dict = {"german_nouns": fh is not None, "brands_listed": len(BRANDS)}
    if fh is None:
        return frozenset(BRANDS), stats
    kinds: dict[str, set[str]] = {}
    keep: set[str] = set()
    with fh:
        for row in csv.DictReader(fh):
            lemma = row.get("lemma") or ""
            if not lemma or " " in lemma:
                continue
            pos = {p.strip() for p in (row.get("pos") or "").split(",")}
            named = [k for k in _FORBIDDEN_KINDS if k in pos]
            if named:
                kinds.setdefault(lemma, set()).update(named)
            if not named or any(k in pos for k in _KEEP_KINDS):
                keep.add(lemma)
    names = {lemma for lemma in kinds if lemma not in keep}
    stats["family_names"] = sum(1 for lemma in names if "Nachname" in kinds[lemma])
    stats["proper_names"] = sum(1 for lemma in names if "Nachname" not in kinds[lemma])
    return frozenset(names | BRANDS), stats


def _split(entry: str) -> tuple[str, str]:
    """(stem, flags) of a .dic entry ``stem/flags`` (igerman98: one character a flag)."""
    stem, _, flags = entry.partition("/")
    return stem, flags


def typdom_entries(entries: list[str], names: frozenset[str], *,
                   keep_bare: Callable[[str], bool] | None = None) -> tuple[list[str], dict]:
    """The dictionary entries rewritten for the Typ-Dom rules (see the module docstring):
    verb entries without their conjugation flags, finite stems and :data:`FINITE_FORMS`
    dropped, names in ``names`` dropped, and bare name entries (:func:`is_bare_name`)
    for whose stem ``keep_bare`` is False (None: bare entries are not judged).
    Returns ``(entries, stats)``."""
    out: list[str] = []
    stats = {"verb_entries": 0, "finite_stems": 0, "finite_forms": 0, "name_entries": 0, "bare_names": 0}
    for entry in entries:
        stem, flags = _split(entry)
        if not stem:
            continue
        if stem in names:
            stats["name_entries"] += 1
            continue
        if keep_bare is not None and is_bare_name(stem, flags) and not keep_bare(stem):
            stats["bare_names"] += 1
            continue
        if stem[0].islower():
            if stem in FINITE_FORMS:
                stats["finite_forms"] += 1
                continue
            if FINITE_STEM_FLAG in flags or (VERB_FLAGS.intersection(flags) and not stem.endswith("n")):
                stats["finite_stems"] += 1
                if ADJECTIVE_FLAG in flags:
                    out.append(f"{stem}/{ADJECTIVE_FLAG}")
                continue
            if FINITE_FLAGS.intersection(flags):
                stats["verb_entries"] += 1
                kept = "".join(f for f in flags if f not in FINITE_FLAGS)
                out.append(f"{stem}/{kept}" if kept else stem)
                continue
        out.append(entry)
    return out, stats


def typdom_layer(entries: list[str]) -> tuple[list[str], dict]:
    """The layer of the ``typdom`` word list (see the module docstring; a build layer of
    :mod:`bot.lexicon.rules`, ``entries -> (entries, stats)``): :func:`typdom_entries`
    with the forbidden names of :func:`forbidden_names` and the bare-name judgement of
    :func:`allowed_bare`."""
    names, nstats = forbidden_names()
    kinds, firsts = noun_kinds(), first_names()
    rewritten, stats = typdom_entries(entries, names, keep_bare=lambda stem: allowed_bare(stem, kinds, firsts))
    stats.update(nstats, first_names=len(firsts))
    return rewritten, stats


#: Typ-Dom's word rules (``GameRules.word_rules`` of the three Typ-Dom games): no words
#: left out at load time, the build layer :func:`typdom_layer` for the ``typdom`` word list.
WORD_RULES = WordRules(layer=typdom_layer)

"""Typ-Dom's word rules against names, measured (issue 24, item 5; seed 002: "keine
Firmen-, Marken- oder Familiennamen"; RULES.md "Typ-Dom": first names and places stay).

Two lists in tests/data: ``typdom_names.txt`` (well-known brands, companies and family
names) and ``typdom_ordinary.txt`` (ordinary words spelled like one: MÜLLER, BACH). The
shares measured with igerman98 2016-12, german-nouns 1.2 and gender-guesser 0.4 are in
docs/rules/typdom-words.md; the test holds the lexicon at least at that level.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.lexicon import load
from bot.games.typdom.words import allowed_bare, is_bare_name, typdom_entries
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES  # the typdom list's build layer

DATA = Path(__file__).parent / "data"

#: Measured (docs/rules/typdom-words.md): the shares may grow, never fall.
MIN_NAMES_REFUSED = 0.95          # of all names in the list
MIN_NAMES_REFUSED_LISTED = 0.90   # of the names igerman98 lists at all
MIN_ORDINARY_KEPT = 0.93          # of all ordinary words in the list
MIN_ORDINARY_KEPT_LISTED = 0.98   # of the ordinary words igerman98 lists at all


def _words(name: str) -> list[str]:
    return [ln.strip() for ln in (DATA / name).read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")]


@pytest.fixture(scope="module")
def lexica():
    return load("typdom", rules=TYPDOM_RULES), load("rondo")  # with the word rules, and the plain dictionary


def test_lists_are_big_enough_and_apart():
    names, ordinary = _words("typdom_names.txt"), _words("typdom_ordinary.txt")
    assert len(names) >= 200 and len(ordinary) >= 200
    assert len(set(names)) == len(names) and len(set(ordinary)) == len(ordinary)
    assert not set(names) & set(ordinary)


def test_names_refused_ordinary_words_kept(lexica):
    typdom, plain = lexica
    names, ordinary = _words("typdom_names.txt"), _words("typdom_ordinary.txt")
    refused = [w for w in names if not typdom.check(w).valid]
    listed = [w for w in names if plain.check(w).valid]
    refused_listed = [w for w in listed if not typdom.check(w).valid]
    kept = [w for w in ordinary if typdom.check(w).valid]
    o_listed = [w for w in ordinary if plain.check(w).valid]
    kept_listed = [w for w in o_listed if typdom.check(w).valid]
    assert len(refused) / len(names) >= MIN_NAMES_REFUSED, sorted(set(names) - set(refused))
    assert len(refused_listed) / len(listed) >= MIN_NAMES_REFUSED_LISTED, sorted(set(listed) - set(refused_listed))
    assert len(kept) / len(ordinary) >= MIN_ORDINARY_KEPT, sorted(set(ordinary) - set(kept))
    assert len(kept_listed) / len(o_listed) >= MIN_ORDINARY_KEPT_LISTED, sorted(set(o_listed) - set(kept_listed))


@pytest.mark.parametrize("word", ["PATTEX", "NEHRU", "BISMARCK", "EINSTEIN", "SCHMIDT", "PORSCHE", "MERKEL"])
def test_the_names_of_the_issue_are_refused(lexica, word):
    typdom, plain = lexica
    assert plain.check(word).valid and not typdom.check(word).valid


@pytest.mark.parametrize("word", ["MÜLLER", "BACH", "FISCHER", "MEXIKO", "SARAJEVO", "RUDOLF", "DETLEV", "ANNA",
                                  "BERLIN", "HAUS", "KRUX"])
def test_words_first_names_and_places_stay(lexica, word):
    typdom, _ = lexica
    assert typdom.check(word).valid


def test_bare_name_entries():
    """The shape igerman98 gives a proper name, and what keeps one (a first name, a place,
    a lemma known only as a common noun)."""
    assert is_bare_name("Einstein", "S") and is_bare_name("Pattex", "")
    assert not is_bare_name("Müller", "FNSm") and not is_bare_name("UFO", "S") and not is_bare_name("haus", "")
    kinds = {"Einstein": frozenset({"Substantiv", "Nachname"}), "Krux": frozenset({"Substantiv"}),
             "Tegernsee": frozenset({"Substantiv", "Toponym"})}
    firsts = frozenset({"Detlev"})
    assert not allowed_bare("Einstein", kinds, firsts) and not allowed_bare("Pattex", kinds, firsts)
    assert allowed_bare("Krux", kinds, firsts) and allowed_bare("Tegernsee", kinds, firsts)
    assert allowed_bare("Detlev", kinds, firsts)
    out, stats = typdom_entries(["Einstein/S", "Detlev/S", "Müller/FNSm", "Pattex"], frozenset(),
                                keep_bare=lambda s: allowed_bare(s, kinds, firsts))
    assert out == ["Detlev/S", "Müller/FNSm"] and stats["bare_names"] == 2

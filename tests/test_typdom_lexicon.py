"""The Typ-Dom word rules (bot/lexicon/rules.py) on the real igerman98 build:
verbs only in the infinitive, no family, company or brand names, first names and place
names allowed (seed 002; RULES.md "Typ-Dom"). Every word below was checked by hand; each
is in the plain German lexicon (Rondo's), so the layer alone decides."""

from __future__ import annotations

import shutil

import pytest

from bot import lexicon as L
from bot.lexicon.rules import BRANDS, FINITE_FORMS, forbidden_names, typdom_entries

pytestmark = pytest.mark.skipif(
    shutil.which("unmunch") is None or not L.DEFAULT_DIC.is_file(),
    reason="needs apt packages hunspell-de-de and hunspell-tools",
)

INFINITIVES = ["SPIELEN", "GEHEN", "LAUFEN", "SCHREIBEN", "ESSEN", "SEIN", "HABEN", "WERDEN", "KOENNEN",
               "WISSEN", "TUN", "LIEBEN", "WANDERN", "LAECHELN", "BEGINNEN", "GEWINNEN", "LESEN", "VERSPIELEN"]
INFLECTED = ["SPIELT", "SPIELST", "SPIELTE", "SPIELTEN", "GEHT", "GING", "GINGEN", "LIEF", "LIEFEN", "LAEUFT",
             "FAEHRT", "SCHRIEB", "SCHREIBT", "ISST", "LIEST", "GIBT", "IST", "BIN", "WAR", "HAT", "HATTE", "WIRD",
             "WURDE", "KANN", "KONNTE", "WEISS", "TUT", "WANDERT", "LAECHELT", "BEGANN", "GEWANN", "GEH", "LIEBT"]
# nouns and adjectives, some spelled like a verb form (SPIELE, LIEBE, TAT, WAREN: the noun counts)
NOUNS = ["HAUS", "HAEUSER", "HAUSES", "KIND", "KINDER", "BAUM", "EXAMEN", "REISE", "NAHT", "SPIELE", "LIEBE",
         "TAT", "WAREN", "GROSS", "SCHOEN", "SCHNELL", "BEKANNT", "SPIEL"]
NAMES_OK = ["ANNA", "RUDOLF", "PETER", "MEXIKO", "SARAJEVO", "BERLIN", "WIEN", "ROM",
            "MUELLER", "FISCHER", "KOCH", "BACH"]  # the last four are also nouns (miller, ...)
NAMES_OUT = ["SCHMIDT", "HOFFMANN", "BECKER", "PORSCHE", "ADIDAS", "GOOGLE", "OPEL"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    d = tmp_path_factory.mktemp("lexicon")
    stats = L.build(d)
    assert stats["rules"]["typdom"]["verb_entries"] > 5000
    return d


@pytest.fixture(scope="module")
def typdom(cache):
    return L.load("typdom", cache)


@pytest.fixture(scope="module")
def plain(cache):
    return L.load("rondo", cache)


def test_hand_checked_words(typdom, plain):
    assert len(INFINITIVES + INFLECTED + NOUNS + NAMES_OK + NAMES_OUT) >= 50
    for w in INFINITIVES + INFLECTED + NOUNS + NAMES_OK + NAMES_OUT:
        assert w in plain, w
    assert [w for w in INFINITIVES if w not in typdom] == []
    assert [w for w in INFLECTED if w in typdom] == []
    assert [w for w in NOUNS if w not in typdom] == []
    assert [w for w in NAMES_OK if w not in typdom] == []
    assert [w for w in NAMES_OUT if w in typdom] == []


def test_verdicts_and_league_lists_still_win(typdom):
    assert typdom.check("Spielen").valid and not typdom.check("spielte").valid
    assert typdom.alphabet.rules == "typdom"
    league = typdom.with_lists(allow=["spielte"], deny=["Rudolf"])
    assert "SPIELTE" in league and "RUDOLF" not in league


def test_rule_layer_on_dictionary_entries():
    out, stats = typdom_entries(["spielen/BDIVXYW", "ging/VZ", "fährt/VX", "bekannt/ACLU", "aberkannt/AZ",
                                 "ist", "Tat/P", "Schmidt/S", "Haus/Sm"], frozenset({"Schmidt"}))
    assert out == ["spielen/BDV", "bekannt/ACLU", "aberkannt/A", "Tat/P", "Haus/Sm"]
    assert stats == {"verb_entries": 1, "finite_stems": 3, "finite_forms": 1, "name_entries": 1, "bare_names": 0}
    assert "ist" in FINITE_FORMS and "Porsche" in BRANDS


def test_names_from_the_wiktionary_list():
    names, stats = forbidden_names()
    assert stats["german_nouns"] and stats["family_names"] > 300
    assert {"Schmidt", "Hoffmann", "Porsche"} <= names
    assert not {"Müller", "Anna", "Berlin", "Bach", "Mexiko"} & names


def test_rule_layer_expanded_by_the_german_source(tmp_path):
    """The layer goes through the source module: igerman98's reader rewrites its kept
    entries and expands them with the same unmunch path and filter as the entries
    themselves (a forbidden entry's forms stay out of both); OpenTaal has no layer."""
    from bot.lexicon.sources import igerman98, opentaal
    aff = tmp_path / "mini.aff"
    aff.write_text("SET UTF-8\nFORBIDDENWORD d\n"
                   "SFX I Y 2\nSFX I en e en\nSFX I en t en\n"
                   "SFX Y Y 1\nSFX Y en te en\n"
                   "SFX P Y 1\nSFX P 0 en .\n", encoding="utf-8")
    dic = tmp_path / "mini.dic"
    dic.write_text("5\nspielen/IY\nging/Z\nTat/P\nSchmidt\nspielte/d\n", encoding="utf-8")
    got = igerman98.read(dic, aff, tmp_path, ("typdom",))
    assert got.forms == {"spielen", "spiele", "spielt", "ging", "Tat", "Taten", "Schmidt"}
    assert got.rule_forms == {"typdom": {"spielen", "Tat", "Taten"}}
    st = got.rule_stats["typdom"]
    assert (st["verb_entries"], st["finite_stems"], st["name_entries"]) == (1, 1, 1)
    assert igerman98.read(dic, aff, tmp_path).rule_forms == {}
    with pytest.raises(L.LexiconError, match="typdom"):
        opentaal.read(dic, aff, tmp_path, ("typdom",))

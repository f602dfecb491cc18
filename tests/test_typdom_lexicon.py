"""The Typ-Dom word rules (bot/games/typdom/words.py, a build layer the lexicon applies) on the real igerman98 build:
verbs only in the infinitive, no family, company or brand names, first names and place
names allowed (seed 002; RULES.md "Typ-Dom"). Every word below was checked by hand; each
is in the plain German lexicon (Rondo's), so the layer alone decides."""

from __future__ import annotations

import shutil

import pytest

from bot import lexicon as L
from bot.games.registry import get_game
from bot.games.typdom.words import (BRANDS, FINITE_FORMS, WORD_RULES, forbidden_names, typdom_entries,
                                     typdom_layer)

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
    stats = L.build(d, layers={"typdom": typdom_layer})  # the game gives the layer
    assert stats["rules"]["typdom"]["verb_entries"] > 5000
    return d


@pytest.fixture(scope="module")
def typdom(cache):
    return L.load("typdom", cache, WORD_RULES)


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
    got = igerman98.read(dic, aff, tmp_path, {"typdom": typdom_layer})
    assert got.forms == {"spielen", "spiele", "spielt", "ging", "Tat", "Taten", "Schmidt"}
    assert got.rule_forms == {"typdom": {"spielen", "Tat", "Taten"}}
    st = got.rule_stats["typdom"]
    assert (st["verb_entries"], st["finite_stems"], st["name_entries"]) == (1, 1, 1)
    assert igerman98.read(dic, aff, tmp_path).rule_forms == {}
    with pytest.raises(L.LexiconError, match="typdom"):
        opentaal.read(dic, aff, tmp_path, {"typdom": typdom_layer})


def test_the_games_give_the_layer():
    """The three Typ-Dom games give the ``typdom`` list's layer; the lexicon holds none."""
    import bot.lexicon.rules as generic
    for name in ("typdom", "typdom-presto", "typdom-wbr"):
        game = get_game(name)
        assert game.alphabet == "typdom" and game.word_rules.layer is typdom_layer
        assert not game.word_rules.exclude
    assert not hasattr(generic, "typdom_entries") and not hasattr(generic, "BUILD_LAYERS")


def test_build_without_the_layer_keeps_the_earlier_list(cache, tmp_path):
    """A build not given the layer (``load("rondo")`` on an outdated cache) keeps the
    ``typdom`` list of an earlier build of the same dictionary; a ``typdom`` list not
    built cannot be loaded without the game's rules."""
    import json
    L._clear_memo()
    fresh = tmp_path / "fresh"
    shutil.copytree(cache, fresh)
    stats = L.build(fresh)  # without the layer: the typdom list and its figures stay
    assert stats["alphabets"]["typdom"]["words"] == len(L.load("typdom", cache))
    assert stats["rules"]["typdom"]["verb_entries"] > 5000
    assert len(L.load("typdom", fresh)) == len(L.load("typdom", cache))
    manifest = json.loads((fresh / "manifest.json").read_text())
    del manifest["alphabets"]["typdom"]
    (fresh / "manifest.json").write_text(json.dumps(manifest))
    L._clear_memo()
    with pytest.raises(L.LexiconError, match="typdom"):
        L.load("typdom", fresh)

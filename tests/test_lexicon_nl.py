"""The Dutch lexicon (bot/lexicon/sources/opentaal.py): a real build from Debian's
hunspell-nl (OpenTaal) into a tmp dir, checked on hand-checked Dutch words.

Rule source: issue 11 (RONDO, seed 004): built like the German list, compound fragments
removed, IJ as the two letters I and J, names only when the league allows them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot import lexicon as L
from bot.lexicon.sources import opentaal

pytestmark = pytest.mark.skipif(
    shutil.which("hunspell") is None or not opentaal.DIC.is_file(),
    reason="needs apt packages hunspell-nl and hunspell",
)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("lexicon-nl")
    stats = L.build_source("opentaal", d)
    assert stats["cache_dir"] == str(d / "opentaal")
    return d


@pytest.fixture(scope="module")
def nl(cache) -> L.Lexicon:
    return L.load("nl", cache)


@pytest.fixture(scope="module")
def namen(cache) -> L.Lexicon:
    return L.load("nl-namen", cache)


@pytest.mark.parametrize("word, spelled", [
    ("ijs", "IJS"), ("ĳs", "IJS"), ("Ĳzer", "IJZER"), ("ideeën", "IDEEEN"), ("café", "CAFE"),
    ("ruïne", "RUINE"), ("coördinatie", "COORDINATIE"), ("façade", "FACADE"), ("één", "EEN"),
    ("auto's", None), ("dvd-speler", None), ("Straße", None),
])
def test_dutch_spelling(word, spelled):
    assert L.normalise(word, "nl") == spelled


@pytest.mark.parametrize("word", [
    # headwords and inflections, checked by hand against the Van Dale spelling
    "HUIS", "HUIZEN", "BOEK", "BOEKEN", "LOPEN", "LOOPT", "LIEP", "LIEPEN", "GELOPEN",
    "MOOI", "MOOIE", "MOOIER", "MOOISTE", "FIETS", "FIETSEN", "KAT", "KATTEN",
    "IJS", "IJSJE", "BIJ", "ZIJN", "VIJF", "IJZER", "IDEEEN", "CAFE", "RUINE",
    "KAART", "KAARTEN", "WOORD", "WOORDEN", "SPEL", "SPELEN", "GESPEELD", "ZANDLOPER",
    "RUIL", "RUILEN", "STREEP", "STREPEN", "OOK", "DAG", "ZEE", "EEN",
])
def test_dutch_words(nl, word):
    assert word in nl, word
    assert nl.has_prefix(word[:2])


@pytest.mark.parametrize("word", [
    "ACHTERNAJULIANA",  # unmunch's misreading of OpenTaal's prefix flags
    "ZEPEND",           # formed by a continuation flag, not accepted by hunspell
    "AUTOS",            # auto's: apostrophe forms are dropped, never folded
    "DVD",              # no vowel
    "HUISBOEKFIETS",    # free compounding is not a listed word
    "ACHTIG",           # -achtig: compound-only fragment (ONLYINCOMPOUND)
    "SCHMERZ",          # German, not Dutch
])
def test_not_dutch_words(nl, word):
    assert word not in nl


def test_names_apart(nl, namen):
    for name in ("AMSTERDAM", "PIETER", "ROTTERDAM", "NEDERLAND"):
        assert name not in nl and name in namen
    assert "HUIS" in namen and len(namen) > len(nl) > 250_000
    assert nl.check("Amsterdam").code == "unknown"
    v = namen.check("Amsterdam")
    assert v.valid and "OpenTaal" in v.reason


def test_verdicts_name_the_dictionary(nl):
    v = nl.check("huis")
    assert (v.valid, v.code) == (True, "headword")
    assert v.reason == "HUIS ist gültig: Stichwort im Wörterbuch (OpenTaal)."
    assert nl.check("mooiste").code == "inflected"
    assert nl.check("ideeën").normalised == "IDEEEN"


def test_allow_deny_lists(nl):
    league = nl.with_lists(allow=["Amsterdam"], deny=["kat"])
    assert "AMSTERDAM" in league and "KAT" not in league and "KATTEN" in league
    assert league.check("kat").code == "denied"


def test_manifest_and_layout(cache):
    d = cache / "opentaal"
    m = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
    assert m["dictionary"] == "OpenTaal" and m["format_version"] == L.FORMAT_VERSION
    assert m["source"]["dic"]["path"] == str(opentaal.DIC)
    assert m["names"] > 10_000
    for name in ("nl", "nl-namen"):
        for suffix in (".marisa", ".heads.marisa", ".prefixes.marisa"):
            assert (d / f"{name}{suffix}").is_file()
    assert not (cache / "manifest.json").exists()  # the German layout is left alone
    assert all(set(w) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for w in L.load("nl", cache).words())


def test_game_alphabet_and_load_builds(tmp_path, cache, monkeypatch):
    from bot.games import get_game
    assert L.get_alphabet(get_game("rondonl").alphabet).name == "nl"
    calls = []
    real = L.cache.build_source

    def counting(source, cache_dir=None, **kw):
        calls.append(source.name if hasattr(source, "name") else source)
        return real(source, cache_dir, **kw)

    monkeypatch.setattr(L.cache, "build_source", counting)
    fresh = tmp_path / "fresh"
    assert "FIETS" in L.load("nl", fresh)
    assert calls == ["opentaal"] and (fresh / "opentaal" / "manifest.json").is_file()


def test_cli_build_and_check(cache, capsys):
    assert L.cli_check("ideeën", "nl", cache_dir=cache) == 0
    assert capsys.readouterr().out.startswith("IDEEEN (ideeën) ist gültig")
    assert L.cli_check("Amsterdam", "nl", cache_dir=cache) == 1
    assert L.cli_check("Amsterdam", "nl-namen", cache_dir=cache) == 0

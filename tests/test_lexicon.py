"""The shared lexicon (bot/lexicon/): real build from hunspell-de-de into a tmp dir.

Rule source: shared/RULES.md "Common to all games"; seed 000 for Rondo's Umlaut spelling.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from bot import lexicon as L

pytestmark = pytest.mark.skipif(
    shutil.which("unmunch") is None or not L.DEFAULT_DIC.is_file(),
    reason="needs apt packages hunspell-de-de and hunspell-tools",
)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("lexicon")
    stats = L.build(d)
    assert stats["alphabets"]["rondo"]["words"] > 200_000
    return d


@pytest.fixture(scope="module")
def raw_forms() -> set[str]:
    out = subprocess.run(["unmunch", str(L.DEFAULT_DIC), str(L.DEFAULT_AFF)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return set(out.decode("utf-8").splitlines())


@pytest.fixture(scope="module")
def rondo(cache) -> L.Lexicon:
    return L.load("rondo", cache)


@pytest.fixture(scope="module")
def mono(cache) -> L.Lexicon:
    return L.load("monoscrabble", cache)


# -- normalise ----------------------------------------------------------------------


@pytest.mark.parametrize("word, rondo, mono", [
    ("Straße", "STRASSE", "STRASSE"),
    ("ß", "SS", "SS"),
    ("ẞ", "SS", "SS"),
    ("  mond \n", "MOND", "MOND"),
    ("Ärger", "AERGER", "ÄRGER"),
    ("öl", "OEL", "ÖL"),
    ("Über", "UEBER", "ÜBER"),
    ("A\u0308rger", "AERGER", "ÄRGER"),  # decomposed umlaut (NFC first)
    ("Café", None, None),
    ("Mond3", None, None),
    ("Mo nd", None, None),
    ("Mond-See", None, None),
    ("ﬁsch", None, None),  # ligature: multi-character upper case
    ("", None, None),
    ("   ", None, None),
])
def test_normalise(word, rondo, mono):
    assert L.normalise(word, "rondo") == rondo
    assert L.normalise(word, L.ALPHABETS["monoscrabble"]) == mono


def test_alphabets_and_games():
    assert set(L.ALPHABETS) == {"rondo", "monoscrabble", "crossword", "typdom", "nl", "nl-namen"}
    assert {a.source for n, a in L.ALPHABETS.items() if not n.startswith("nl")} == {"igerman98"}
    assert L.ALPHABETS["rondo"].letters == "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    assert L.ALPHABETS["monoscrabble"].letters.endswith("ÄÖÜ")
    # the lexicon knows no game: each game names its alphabet (bot.games; the contract
    # test checks every registered game's resolves)
    assert not hasattr(L, "GAME_ALPHABET") and not hasattr(L, "alphabet_for_game")
    assert L.get_alphabet("crossword") is L.ALPHABETS["crossword"]
    assert L.ALPHABETS["crossword"].signature == L.ALPHABETS["rondo"].signature
    with pytest.raises(L.LexiconError):
        L.normalise("MOND", "klingonisch")


# -- dictionary content ---------------------------------------------------------------


@pytest.mark.parametrize("word", ["MOND", "MONDE", "MONDES", "ORT", "ORTES", "TOR",
                                  "TORE", "STAND", "STRASSE", "AERGER", "AEBTISSIN",
                                  "GEGANGEN", "UND"])
def test_rondo_has_words(rondo, word):
    assert word in rondo
    assert rondo.has_prefix(word)
    assert rondo.has_prefix(word[:2])


def test_umlauts_per_alphabet(rondo, mono):
    assert "AERGER" in rondo and "ÄRGER" not in rondo
    assert "ÄRGER" in mono and "AERGER" not in mono
    assert "STRASSE" in mono and "STRAßE" not in mono


def test_no_fragments_or_junk(rondo, raw_forms):
    assert all("-" not in w for w in rondo.words())
    # raw unmunch lines that are compound fragments, not words:
    for raw, word in [("nahme", "NAHME"),          # ONLYINCOMPOUND end fragment
                      ("losigkeit", "LOSIGKEIT"),  # ONLYINCOMPOUND end fragment
                      ("Leistungs", "LEISTUNGS"),  # NEEDAFFIX begin fragment (Fugen-s)
                      ("Abkant", "ABKANT")]:       # NEEDAFFIX verb-stem fragment
        assert raw in raw_forms
        assert word not in rondo
    assert "-äbten" in raw_forms and "AEBTEN" in rondo  # only the "-" line is dropped


def test_no_abbreviations(rondo, raw_forms):
    assert "Abk." in raw_forms and "ABK" not in rondo
    assert "Abb." in raw_forms and "ABB" not in rondo
    assert "GmbH" in raw_forms and "GMBH" not in rondo      # acronym
    assert "Kfz" in raw_forms and "KFZ" not in rondo        # no vowel
    assert "km" in raw_forms and "KM" not in rondo


def test_forbidden_misspellings_dropped(rondo, raw_forms):
    assert "Viellicht" in raw_forms
    assert "VIELLICHT" not in rondo and "VIELLEICHT" in rondo


def test_accented_words_dropped(rondo, raw_forms):
    assert "Café" in raw_forms
    assert "CAFE" not in rondo
    assert all(set(w) <= set(rondo.alphabet.letters) for w in rondo.words())


def test_words_sorted_and_len(rondo):
    ws = list(rondo.words())
    assert ws == sorted(ws)
    assert len(ws) == len(rondo) == len(set(ws))


def test_has_prefix(rondo):
    assert rondo.has_prefix("M")
    assert rondo.has_prefix("MON")
    assert rondo.has_prefix("MONDES")      # equal counts
    assert not rondo.has_prefix("MONDESX")
    assert not rondo.has_prefix("XQZ")
    assert rondo.has_prefix("")


# -- check ---------------------------------------------------------------------------


def test_check_codes(rondo, mono):
    v = rondo.check("Mond")
    assert (v.word, v.normalised, v.valid, v.code) == ("Mond", "MOND", True, "headword")
    assert "Stichwort" in v.reason
    v = rondo.check("mondes")
    assert (v.valid, v.code) == (True, "inflected")
    assert v.reason == ("MONDES ist gültig: Beugungsform eines Stichworts im "
                        "Wörterbuch (igerman98).")
    v = rondo.check("xyz")
    assert (v.valid, v.code, v.reason) == (False, "unknown",
                                           "XYZ ist ungültig: nicht im Wörterbuch.")
    for bad in ("Café", "Mond3"):
        v = rondo.check(bad)
        assert (v.normalised, v.valid, v.code) == (None, False, "alphabet")
        assert bad in v.reason
    v = rondo.check("Ärger")
    assert v.valid and v.normalised == "AERGER" and "(Ärger)" in v.reason
    assert mono.check("Ärger").normalised == "ÄRGER"
    assert set(L.VERDICT_CODES) == {"allowed", "headword", "inflected", "denied",
                                    "unknown", "alphabet", "listed"}


# -- allow / deny ------------------------------------------------------------------


def test_with_lists(rondo):
    league = rondo.with_lists(allow=["Werkzeug", "Quxx", "Mond"], deny=["Tor", "Quxx"])
    assert "WERKZEUG" not in rondo and "WERKZEUG" in league
    assert league.check("werkzeug").code == "allowed"
    assert "TOR" in rondo and "TOR" not in league
    v = league.check("Tor")
    assert (v.valid, v.code) == (False, "denied")
    assert v.reason == "TOR ist ungültig: steht auf der Sperrliste der Liga."
    # on both lists: denied
    assert "QUXX" not in league and league.check("quxx").code == "denied"
    # allow-listed word that is also in the dictionary
    assert league.check("Mond").code == "allowed"
    # dictionary words not on any list keep their codes
    assert league.check("Tore").code == "inflected"
    # prefixes
    assert league.has_prefix("WERKZ") and not rondo.has_prefix("WERKZEUGX")
    assert league.has_prefix("TO")  # deny does not prune prefixes (documented)
    assert not league.has_prefix("QUX")
    assert len(league) == len(rondo) + 1 - 1  # +WERKZEUG, -TOR
    # the base is unchanged and views stack
    assert "TOR" in rondo
    stacked = league.with_lists(allow=["Tor"])
    assert "TOR" in stacked and "WERKZEUG" in stacked


# -- from_words ---------------------------------------------------------------------


def test_from_words(tmp_path):
    lex = L.Lexicon.from_words(["mond", "MONDE", "Mondes", " ort ", "Café", "Straße"], "rondo")
    assert "MOND" in lex and "MONDES" in lex and "ORT" in lex and "STRASSE" in lex
    assert len(lex) == 5
    assert list(lex.words()) == ["MOND", "MONDE", "MONDES", "ORT", "STRASSE"]
    assert lex.has_prefix("MO") and lex.has_prefix("MONDE") and not lex.has_prefix("MA")
    assert lex.check("Monde").code == "listed"
    assert lex.check("Mondsee").code == "unknown"
    assert lex.check("Mondsee").reason.endswith("nicht in der Wortliste.")
    assert "ÄRGER" in L.Lexicon.from_words(["Ärger"], "monoscrabble")
    view = lex.with_lists(allow=["Tor"], deny=["Ort"])
    assert "TOR" in view and "ORT" not in view and view.check("ort").code == "denied"
    f = tmp_path / "liste.txt"
    f.write_text("# GM list\nMond\n\nTor\n", encoding="utf-8")
    assert list(L.Lexicon.from_file(f, "rondo").words()) == ["MOND", "TOR"]


# -- build, manifest, load -----------------------------------------------------------


def test_manifest(cache):
    m = json.loads((cache / "manifest.json").read_text(encoding="utf-8"))
    assert m["format_version"] == L.FORMAT_VERSION
    assert m["dictionary_version"] == "20161207"
    assert m["source"]["dic"]["path"] == str(L.DEFAULT_DIC)
    assert m["alphabets"]["rondo"]["words"] > 200_000
    assert m["alphabets"]["crossword"] == {"same_as": "rondo"}
    for name in ("rondo", "monoscrabble"):
        for suffix in (".marisa", ".heads.marisa", ".prefixes.marisa"):
            assert (cache / f"{name}{suffix}").is_file()
    assert not list(cache.glob("*.tmp"))


def test_load_memoised(cache):
    rondo = L.load("rondo", cache)
    assert L.load("rondo", cache) is rondo
    assert L.load("rondo", cache / ".." / cache.name) is rondo  # resolved path
    cw = L.load("crossword", cache)
    assert cw.alphabet.name == "crossword" and "MOND" in cw
    # a game's word rules on top (given by the game: the lexicon knows none), memoised too
    rules = L.WordRules(frozenset({"MOND"}), "ist hier ungültig.")
    ruled = L.load("crossword", cache, rules)
    assert L.load("crossword", cache, rules) is ruled and "MOND" not in ruled and "MOND" in cw
    assert ruled.check("Mond").reason == "MOND ist hier ungültig."


def test_load_builds_missing_and_outdated_cache(cache, tmp_path, monkeypatch):
    calls = []

    def fake_build(cache_dir=None, **kw):  # copies the module's real build
        calls.append(Path(cache_dir))
        shutil.copytree(cache, cache_dir, dirs_exist_ok=True)
        return {}

    monkeypatch.setattr(L.cache, "build", fake_build)
    d = tmp_path / "fresh"
    assert "ÄRGER" in L.load("monoscrabble", d)
    assert calls == [d.resolve()]
    assert L.load("monoscrabble", d) is L.load("monoscrabble", d)
    assert len(calls) == 1
    # an old format version triggers a rebuild
    m = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
    m["format_version"] = 0
    (d / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    L._clear_memo()
    assert "MOND" in L.load("rondo", d)
    assert len(calls) == 2
    # a missing trie file too
    (d / "rondo.prefixes.marisa").unlink()
    L._clear_memo()
    assert "MOND" in L.load("rondo", d)
    assert len(calls) == 3


def test_missing_unmunch(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(L.LexiconError, match="apt-get install hunspell-de-de hunspell-tools"):
        L.build(tmp_path / "x")


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("SPIELLEITER_LEXICON_DIR", str(tmp_path / "a"))
    assert L.default_cache_dir() == tmp_path / "a"
    monkeypatch.delenv("SPIELLEITER_LEXICON_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert L.default_cache_dir() == tmp_path / "xdg" / "spielleiter" / "lexicon"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert L.default_cache_dir() == Path.home() / ".cache" / "spielleiter" / "lexicon"


# -- CLI helpers ---------------------------------------------------------------------


def test_cli_check(cache, capsys):
    assert L.cli_check("Mondes", "rondo", cache_dir=cache) == 0
    out = capsys.readouterr().out
    assert out.strip().startswith("MONDES ist gültig")
    assert L.cli_check("Xyzzy", "rondo", cache_dir=cache) == 1
    assert "ungültig" in capsys.readouterr().out
    assert L.cli_check("Ärger", "monoscrabble", cache_dir=cache) == 0
    assert capsys.readouterr().out.startswith("ÄRGER ist gültig")
    assert L.cli_check("Tor", "rondo", deny=["TOR"], cache_dir=cache) == 1
    assert "Sperrliste" in capsys.readouterr().out
    assert L.cli_check("Werkzeug", "rondo", allow=["werkzeug"], cache_dir=cache) == 0
    assert L.cli_check("Café", "rondo", cache_dir=cache) == 1
    assert L.cli_check("Mond", "klingonisch", cache_dir=cache) == 2


def test_cli_build(tmp_path, capsys):
    assert L.cli_build(tmp_path / "b") == 0
    out = capsys.readouterr().out
    assert "rondo:" in out and "monoscrabble:" in out and "Wörter" in out
    assert "MONDES" in L.load("rondo", tmp_path / "b")


def test_content_hash_and_layers_for_derived_structures(rondo, cache):
    h = rondo.content_hash()
    assert h and h.startswith("marisa:") and h == L.load("rondo", cache).content_hash()
    assert L.load("monoscrabble", cache).content_hash() != h
    assert L.Lexicon.from_words(["MOND"], "rondo").content_hash() is None
    assert rondo.layers() is None
    view = rondo.with_lists(allow=["WERKZEUG"], deny=["MOND"])
    base, allow, deny = view.layers()
    assert base is rondo and "WERKZEUG" in allow and "MOND" in deny
    assert view.content_hash() is None

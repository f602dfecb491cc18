"""The word graph (bot/wordgraph.py): exactly the words given, prefixes, save/load."""

from __future__ import annotations

import marshal
import random

from bot import lexicon as L
from bot import wordgraph as W

WORDS = ["AB", "ABER", "ABEND", "ABENDE", "ABT", "ÄBTE", "ÄRGER", "ÖL", "ÖLE", "ÜBER",
         "SEE", "SEEN", "SEHEN", "GEHEN", "STEHEN", "STERN", "STERNE", "Z"]


def test_exact_membership():
    g = W.WordGraph.from_words(WORDS)
    for w in WORDS:
        assert w in g
    for w in ["", "A", "ABE", "ABENDS", "ÄBT", "ÖLEN", "SE", "STEHE", "GEHE", "ZZ", "B"]:
        assert w not in g, w
    assert list(g.words()) == sorted(WORDS)


def test_prefixes():
    g = W.WordGraph.from_words(WORDS)
    prefixes = {w[:i] for w in WORDS for i in range(len(w) + 1)}
    for p in prefixes:
        assert g.has_prefix(p), p
    for p in ["ABC", "X", "ÄR GER", "STERNEN", "Ü B", "ÖLS"]:
        assert not g.has_prefix(p), p
    node = g.node("STER")
    assert node is not None and W.END not in node and set(node) == {"N"}
    assert W.END in g.node("STERN")


def test_minimised_shares_suffixes():
    g = W.WordGraph.from_words(["SEHEN", "GEHEN", "STEHEN"])
    # the "EHEN" tails are one shared path
    assert g.node("SEH") is g.node("GEH") is g.node("STEH")
    assert g.node_count() < len("SEHEN") + len("GEHEN") + len("STEHEN")


def test_random_words_against_set():
    rng = random.Random(7)
    letters = "AEINRSTÄÖÜ"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
             for _ in range(3000)}
    g = W.WordGraph.from_words(words)
    assert set(g.words()) == words
    prefixes = {w[:i] for w in words for i in range(len(w) + 1)}
    for _ in range(3000):
        probe = "".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
        assert (probe in g) == (probe in words)
        assert g.has_prefix(probe) == (probe in prefixes)


def test_save_load_round_trip(tmp_path):
    g = W.WordGraph.from_words(WORDS)
    path = tmp_path / "g.dawg"
    W.save(g, path)
    h = W.load_file(path, g.content_hash)
    assert h is not None and h.content_hash == g.content_hash
    assert list(h.words()) == sorted(WORDS)
    assert h.node_count() == g.node_count()  # sharing kept
    assert W.load_file(path, "another hash") is None
    assert W.load_file(tmp_path / "missing.dawg") is None
    (tmp_path / "junk.dawg").write_bytes(b"not a graph")
    assert W.load_file(tmp_path / "junk.dawg") is None
    (tmp_path / "other.dawg").write_bytes(marshal.dumps(("x", 1, "h", {})))
    assert W.load_file(tmp_path / "other.dawg") is None


def test_with_lists_copies_paths():
    g = W.WordGraph.from_words(WORDS)
    v = g.with_lists(allow=["ABENDS", "QI"], deny=["ABEND", "SEE"])
    assert set(v.words()) == (set(WORDS) | {"ABENDS", "QI"}) - {"ABEND", "SEE"}
    assert list(g.words()) == sorted(WORDS)  # original unchanged
    assert v.content_hash != g.content_hash


def test_graph_for_lexicons(tmp_path):
    lex = L.Lexicon.from_words(["Stern", "Sterne", "Öl"], "monoscrabble")
    g = W.graph_for(lex, tmp_path)
    assert set(g.words()) == {"STERN", "STERNE", "ÖL"}
    assert W.graph_for(lex, tmp_path) is g  # memoised
    view = lex.with_lists(allow=["Ölen"], deny=["Sterne"])
    gv = W.graph_for(view, tmp_path)
    assert set(gv.words()) == set(view.words()) == {"STERN", "ÖL", "ÖLEN"}
    assert list(tmp_path.iterdir()) == []  # small lists are never written to disk


def test_graph_for_cached_lexicon_on_disk(tmp_path, monkeypatch):
    """A marisa-backed lexicon's graph is saved next to the cache and reloaded."""
    import marisa_trie

    words = ["ABEND", "ABENDE", "STERN", "ÖL"]
    lex = L.Lexicon(L.ALPHABETS["monoscrabble"], marisa_trie.Trie(words),
                    marisa_trie.Trie([w[:i] for w in words for i in range(1, len(w) + 1)]),
                    marisa_trie.Trie([]), source="igerman98")
    g = W.graph_for(lex, tmp_path)
    assert (tmp_path / "monoscrabble.dawg").is_file()
    assert set(g.words()) == set(words)
    W._MEMO.clear()
    g2 = W.graph_for(lex, tmp_path)
    assert g2 is not g and set(g2.words()) == set(words)
    assert g2.content_hash == g.content_hash
    # other words -> the stale file is rebuilt
    words2 = words + ["ÖLE"]
    lex2 = L.Lexicon(L.ALPHABETS["monoscrabble"], marisa_trie.Trie(words2),
                     marisa_trie.Trie([w[:i] for w in words2 for i in range(1, len(w) + 1)]),
                     marisa_trie.Trie([]), source="igerman98")
    g3 = W.graph_for(lex2, tmp_path)
    assert "ÖLE" in g3 and g3.content_hash != g.content_hash
    W._MEMO.clear()
    assert "ÖLE" in W.graph_for(lex2, tmp_path)

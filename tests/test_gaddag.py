"""The GADDAG (bot/games/gaddag.py, issue 35): exactly the strings rev(w[:i]) + SEP + w[i:]
(rev(w) for i = n) of the words given, every word readable from each of its letters, the
same word set as the word graph, minimised, cached on disk beside the word graph."""

from __future__ import annotations

import random

import pytest

from bot.games import gaddag as G
from bot import lexicon as L
from bot import wordgraph as W

WORDS = ["AB", "ABER", "ABEND", "ABENDE", "ABT", "ÄBTE", "ÄRGER", "ÖL", "ÖLE", "ÜBER",
         "SEE", "SEEN", "SEHEN", "GEHEN", "STEHEN", "STERN", "STERNE", "Z", "ANNA", "OTTO"]


def _strings(words):
    out = set()
    for w in words:
        for i in range(1, len(w) + 1):
            out.add(w[:i][::-1] + ("" if i == len(w) else G.SEP + w[i:]))
    return out


def _check(words):
    root = G.build_gaddag(words)
    # exactly the GADDAG strings: the graph's paths to a word end, as strings
    assert list(W.WordGraph(root).words()) == sorted(_strings(words))
    assert list(G.gaddag_strings(words)) == sorted(_strings(words))
    # every word from each of its letters, and the word set read back
    for w in words:
        for i in range(len(w)):
            assert G.readings(root, w, i), (w, i)
    assert G.gaddag_words(root) == set(words)
    return root


def test_small_list_every_word_from_every_letter():
    root = _check(WORDS)
    for w in ["", "A", "ABE", "ABENDS", "ÄBT", "ÖLEN", "SE", "STEHE", "ZZ", "ANN", "TTO"]:
        assert not any(G.readings(root, w, i) for i in range(len(w))), w
    # the word ends on the square read first: no separator; else after it
    assert W.END in root["Z"] and W.END in root["N"]["R"]["E"]["T"]["S"]
    assert W.END not in root["E"]["B"]["A"] and W.END not in root["E"]["B"]["A"][G.SEP]
    assert W.END in root["E"]["B"]["A"][G.SEP]["R"] and W.END in root["B"]["A"][G.SEP]["E"]["R"]


def test_minimised():
    root = G.build_gaddag(["SEHEN", "GEHEN", "STEHEN"])
    # the tails after the separator from the same square are one shared path ("HEN")
    assert root["E"]["S"][G.SEP] is root["E"]["G"][G.SEP] is root["E"]["T"]["S"][G.SEP]
    n = W.WordGraph(root).node_count()
    assert n < sum(len(s) for s in _strings(["SEHEN", "GEHEN", "STEHEN"]))


def test_random_words():
    rng = random.Random("gaddag")
    for _ in range(20):
        words = sorted({"".join(rng.choice("ABEN") for _ in range(rng.randint(1, 7)))
                        for _ in range(rng.randint(1, 40))})
        root = _check(words)
        others = {"".join(rng.choice("ABEN") for _ in range(rng.randint(1, 7))) for _ in range(60)} - set(words)
        for w in others:
            assert not any(G.readings(root, w, i) for i in range(len(w))), w


def test_separator_is_no_letter():
    with pytest.raises(ValueError):
        list(G.gaddag_strings(["AB", "A+B"]))


@pytest.mark.parametrize("step", [53])
def test_typdom_word_list_sample(step):
    """A sample of Typ-Dom's word list (every 53rd word): the same checks."""
    from bot.games.typdom.words import WORD_RULES

    words = list(W.graph_for(L.load("typdom", rules=WORD_RULES)).words())[::step]
    assert len(words) > 4000
    _check(words)


def test_gaddag_for_in_memory_and_on_disk(tmp_path):
    import marisa_trie

    from bot.games import _gridcore

    lex = L.Lexicon.from_words(["Stern", "Sterne", "Öl"], "monoscrabble")
    g = G.gaddag_for(lex, tmp_path)
    assert G.gaddag_words(g.root) == {"STERN", "STERNE", "ÖL"}
    assert G.gaddag_for(lex, tmp_path) is g
    c = G.compiled_gaddag_for(lex, tmp_path)
    assert c.n == W.WordGraph(g.root).node_count() and c.letters[-1] == G.SEP
    assert list(tmp_path.iterdir()) == []  # small lists stay in memory
    words = ["ABEND", "ABENDE", "STERN", "ÖL"]
    full = L.Lexicon(L.ALPHABETS["monoscrabble"], marisa_trie.Trie(words),
                     marisa_trie.Trie([w[:i] for w in words for i in range(1, len(w) + 1)]),
                     marisa_trie.Trie([]), source="igerman98")
    wg = W.graph_for(full, tmp_path)
    c1 = G.compiled_gaddag_for(full, tmp_path)
    path = tmp_path / "monoscrabble.gaddag"
    assert path.is_file()
    G._CMEMO.clear()
    c2 = G.compiled_gaddag_for(full, tmp_path)
    assert c2 is not c1 and c2.n == c1.n == W.WordGraph(G.build_gaddag(words)).node_count()
    assert _gridcore.gaddag_dump(c2) == _gridcore.gaddag_dump(c1)  # the same arrays, read back
    # a word graph's file is never read as a GADDAG (own magic), nor a stale or broken one
    assert G.load_compiled(tmp_path / "monoscrabble.dawg", wg.content_hash, wg.root) is None
    assert G.load_compiled(path, "other", wg.root) is None
    assert G.load_compiled(path, wg.content_hash, W.graph_for(lex).root) is None  # other letters
    path.write_bytes(path.read_bytes()[:-9])
    assert G.load_compiled(path, wg.content_hash, wg.root) is None


def _flat_equals_python(words):
    from bot.games import _gridcore

    wg = W.WordGraph.from_words(words)
    flat = _gridcore.build_gaddag_flat(wg.root, G.SEP)
    py = _gridcore.convert_gaddag(G.build_gaddag(wg.words()), wg.root, G.SEP)
    # the same nodes, edges, flags, numbered the same (breadth first, letter order)
    assert _gridcore.gaddag_dump(flat) == _gridcore.gaddag_dump(py)
    total = sum(len(w) for w in wg.words())
    assert _gridcore.gaddag_paths(flat) == total
    assert _gridcore.gaddag_read_all(flat, wg.root) == (total, 0)
    return wg, flat


def test_flat_build_equals_the_python_build():
    """The C build (``_gridcore.build_gaddag_flat``) gives the arrays of the Python
    build converted (:func:`G.build_gaddag`, ``convert_gaddag``)."""
    from bot.games import _gridcore

    wg, flat = _flat_equals_python(WORDS)
    rng = random.Random("flat")
    for _ in range(40):
        words = sorted({"".join(rng.choice("ABENÄ") for _ in range(rng.randint(1, 8)))
                        for _ in range(rng.randint(1, 60))})
        _flat_equals_python(words)
    # the checks can fail: a GADDAG of fewer words misses readings and strings
    small = _gridcore.build_gaddag_flat(W.WordGraph.from_words(WORDS[:-3]).root, G.SEP)
    n, failed = _gridcore.gaddag_read_all(small, wg.root)
    assert failed == len("ANNA") + len("OTTO") + len("Z") and n == sum(map(len, WORDS))
    assert _gridcore.gaddag_paths(small) == n - failed
    with pytest.raises(ValueError):  # a word of more than 250 letters
        _gridcore.build_gaddag_flat(W.WordGraph.from_words(["AB" * 130]).root, G.SEP)


def test_flat_build_of_typdom_word_list():
    """Typ-Dom's whole list: the C build spells exactly the word graph's words (every
    word read from each of its letters, and no other string: the paths to a word end
    are as many as the words' letters), and it is minimal (no two nodes alike, each
    reached from the root and leading to a word end)."""
    from array import array

    from bot.games import _gridcore
    from bot.games.typdom.words import WORD_RULES

    wg = W.graph_for(L.load("typdom", rules=WORD_RULES))
    g = _gridcore.build_gaddag_flat(wg.root, G.SEP)
    total = sum(len(w) for w in wg.words())
    assert total > 2_000_000
    assert _gridcore.gaddag_paths(g) == total
    assert _gridcore.gaddag_read_all(g, wg.root) == (total, 0)
    letters, n, ne, fb, cb, mb, tb = _gridcore.gaddag_dump(g)
    assert list(letters) == wg_letters(wg) + [G.SEP]
    first, child, mask = array("i", fb), array("i", cb), array("Q", mb)
    sigs = {(tb[i], mask[i], tuple(child[first[i]:first[i + 1]])) for i in range(n)}
    assert len(sigs) == n  # minimal: no two nodes with the same flag and children
    seen = bytearray(n)
    seen[0] = 1
    for c in child:
        seen[c] = 1
    assert all(seen)  # every node reached (the root, or someone's child)
    assert all(tb[i] or first[i + 1] > first[i] for i in range(n))  # no dead end


def wg_letters(wg):
    from bot.games import _gridcore

    return list(_gridcore.compiled_graph(wg.root).letters)

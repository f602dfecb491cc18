"""bot.lexicon.memo.memo_of: one memory per lexicon, never another lexicon's."""

from __future__ import annotations

from bot.lexicon.memo import memo_of


class Lex:
    pass


def test_one_memory_per_lexicon_and_forgotten_at_the_limit():
    store: dict = {}
    a, b, c = Lex(), Lex(), Lex()
    ma = memo_of(store, a, 2)
    ma["x"] = 1
    assert memo_of(store, a, 2) is ma
    mb = memo_of(store, b, 2)
    assert mb == {} and mb is not ma
    memo_of(store, c, 2)  # a third lexicon at the limit of two: all forgotten
    assert set(store) == {id(c)}
    assert memo_of(store, a, 2) == {}


def test_a_reused_id_never_answers_with_the_old_memory():
    store: dict = {}
    old, new = Lex(), Lex()
    memo_of(store, old, 8)["x"] = 1
    store[id(new)] = store.pop(id(old))  # as if ``new`` had got the old object's id
    assert memo_of(store, new, 8) == {}
    assert store[id(new)][0] is new

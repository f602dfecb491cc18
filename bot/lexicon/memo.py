"""Memories kept per lexicon: what a game or the service remembers of a check against
one word list must not answer for another (issue 35)."""

from __future__ import annotations

from typing import Any

__all__ = ["memo_of"]


def memo_of(store: dict[int, tuple[Any, dict]], lexicon: Any, kept: int) -> dict:
    """The memory of ``lexicon`` in ``store`` (``id(lexicon) -> (lexicon, memory)``): a new,
    empty dict the first time, the same dict after. The lexicon is kept beside its memory,
    so its id is not reused while the entry lives; when ``store`` holds ``kept`` lexicons
    and another one comes, all of them are forgotten at once."""
    entry = store.get(id(lexicon))
    if entry is None or entry[0] is not lexicon:
        if len(store) >= kept:
            store.clear()
        entry = store[id(lexicon)] = (lexicon, {})
    return entry[1]

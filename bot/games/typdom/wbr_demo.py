"""The simulated player of "Wer behält recht?" for ``spielleiter demo``
(:meth:`WbrRules.demo_player <bot.games.base.GameRules.demo_player>`): the turns
:mod:`.wbrgen` finds for the player to move, on the state as far as the player knows it
(the table, the word being built and the word to cross, their own rack), with Ersatzzüge
and ``KAUFEN`` (or ``PASSE``) last; ``tippfehler`` bluffs with words the rack cannot
finish, ``unzuverlaessig`` sometimes sends nothing."""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from bot.games.demoplay import DemoMail, with_ersatz
from bot.games.typdom import wbrgen
from bot.games.typdom.table import COLUMNS

_WORDS: dict[int, tuple[Any, list[str]]] = {}


def _words(lexicon: Any) -> list[str]:
    """The lexicon's words of 2 to 7 letters, sorted (one list per lexicon)."""
    got = _WORDS.get(id(lexicon))
    if got is None or got[0] is not lexicon:
        _WORDS.clear()
        got = _WORDS[id(lexicon)] = (lexicon, sorted(w for w in lexicon.words() if 2 <= len(w) <= 7))
    return got[1]


def _squares(span: str) -> tuple[list[tuple[int, int]], str | None]:
    """Squares and direction of a span as the public view writes it (``M13-P13``, ``M13``)."""
    def sq(t: str) -> tuple[int, int]:
        return int(t[1:]), COLUMNS.index(t[0].upper()) + 1
    a, _, b = span.partition("-")
    first = sq(a)
    if not b:
        return [first], None
    last = sq(b)
    if first[0] == last[0]:
        return [(first[0], c) for c in range(first[1], last[1] + 1)], "w"
    return [(r, first[1]) for r in range(first[0], last[0] + 1)], "s"


def _known(view: Mapping[str, Any]) -> dict[str, Any]:
    """The state as far as the player to move knows it: the table, the word being built
    and the word to cross (from their spans), their own rack, the pool's size."""
    me = view["player"]
    state: dict[str, Any] = {"board": list(view["board"]), "duty": view["duty"], "round": view["round"],
                             "racks": {me: view["mine"].get("rack", "")}, "pool": "?" * int(view.get("pool") or 0),
                             "seat_order": list(view["seat_order"]), "active": list(view["active"]),
                             "base_duty": "continue" if view.get("word") else "start", "word": None, "cross": None}
    if view.get("word"):
        w = view["word"]
        squares, direction = _squares(w["span"])
        state["word"] = {"announced": w["announced"], "author": w["author"], "squares": squares,
                         "direction": direction}
    if view.get("cross"):
        squares, direction = _squares(view["cross"]["span"])
        state["cross"] = {"word": view["cross"].get("word"), "squares": squares, "direction": direction}
    return state


def play_wbr(view: Mapping[str, Any], rng: random.Random, lexicon: Any, style: str) -> list[DemoMail] | None:
    """The turn of the player to move: up to three turns with Ersatzzüge, ``KAUFEN`` (or
    ``PASSE``) last; None for everybody else, once the game is over, and now and then
    for an unreliable player."""
    if view.get("finished") or view.get("mover") != view["player"]:
        return None
    if style == "unzuverlaessig" and rng.random() < 0.2:
        return None
    state = _known(view)
    lines: Sequence[str] = wbrgen.turns(state, view["player"], lexicon, _words(lexicon), limit=3,
                                        bluff=style == "tippfehler")
    lines = list(lines)
    if view["duty"] != "complete":
        lines.append("KAUFEN" if view["duty"] != "after_buy" and view.get("pool") else "PASSE")
    return [DemoMail(tuple(with_ersatz(lines)))] if lines else None

"""Crossword's simulated player for ``spielleiter demo`` (:meth:`CrosswordRules.demo_player
<bot.games.base.GameRules.demo_player>`): placements, wishes and word lists from
:mod:`.movegen` on the player's own grid, as strong as the style (a share of the letters on
the best field and of the words listed). ``tippfehler`` sometimes mails a broken placement
first and corrects it; ``anfaengerin`` claims a word that is not there; ``wortjaeger`` lists
a word twice."""

from __future__ import annotations

import random
from typing import Any, Mapping

from bot.games.crossword import movegen
from bot.games.crossword.grid import Field, Grid
from bot.games.demoplay import DemoMail

#: How often a letter goes on the best field and a word is listed, per style.
STRENGTH = {"stark": 1.0, "tippfehler": 0.8, "vorsichtig": 0.6, "unzuverlaessig": 0.5, "anfaengerin": 0.15,
            "wortjaeger": 0.9}


def play(view: Mapping[str, Any], rng: random.Random, lexicon: Any, style: str) -> list[DemoMail] | None:
    """The round's mail (placement from round 2, the wish, or in the last round the word
    list), a broken first version before it for a ``tippfehler`` player now and then;
    None (NMR) for an unreliable player now and then, and once the game is over."""
    if view.get("finished") or not view.get("mine"):
        return None
    if style == "unzuverlaessig" and rng.random() < 0.25:
        return None
    strength = STRENGTH.get(style, 1.0)
    grid, rnd = view["mine"]["grid"], int(view["round"])
    lines: list[str] = []
    pairs: list[tuple[str, str]] = []
    if rnd > 1:
        pairs = movegen.place(grid, view["letters"], lexicon, rng, strength)
        lines.append(", ".join(f"{f} {ch}" for f, ch in pairs))
    if rnd < int(view["rounds"]):
        lines.append(f"Wunsch: {movegen.wish(grid, lexicon, rng, strength)}")
    else:
        after = Grid(grid).place({Field.parse(f): ch for f, ch in pairs})
        claims = movegen.word_list(after.rows, lexicon, rng, strength)
        if style == "anfaengerin":
            claims.append("HAUS A1-A4")  # a word that is not there
        if style == "wortjaeger" and claims:
            claims.append(claims[0])  # the same word twice: the second overlaps
        lines += ["Wörter:"] + claims
    mails = [DemoMail(tuple(lines))]
    if style == "tippfehler" and pairs and rng.random() < 0.4:  # one field twice, then the correction
        f, ch = pairs[0]
        broken = [", ".join([f"{f} {ch}", f"{f} {ch}"] + [f"{g} {c}" for g, c in pairs[1:]])] + lines[1:]
        mails.insert(0, DemoMail(tuple(broken)))
    return mails

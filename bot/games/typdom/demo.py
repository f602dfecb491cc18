"""Typ-Dom's and Presto's simulated players for ``spielleiter demo`` (each rules class's
:meth:`~bot.games.base.GameRules.demo_player`), from what the player sees: the table and
their own rack.

- :func:`play_typdom` (Point-Typ-Dom, Kreuzwort-Spiel): the best single placements of the
  rack on the table as it stands at mailing time, by the variant's measure, then
  ``KAUFEN``; earlier seats may block them (then an Ersatzzug counts);
- :func:`play_presto`: the crossword the bot's own search (:mod:`.search`) finds for the
  set, arriving after the style's speed; ``tippfehler`` first sends it with a tile left
  out;
- "Wer behält recht?" has its own: :mod:`.wbr_demo`.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from bot.games.demoplay import DemoMail, with_ersatz
from bot.games.typdom.movegen import gen_notation, placements
from bot.games.typdom.presto import Crossword, format_crossword
from bot.games.typdom.search import find_crossword

#: Seconds after "Los!" at which a Presto player of a style mails (plus up to a minute).
SPEED = {"stark": 60, "tippfehler": 100, "vorsichtig": 160, "unzuverlaessig": 130}


def play_typdom(view: Mapping[str, Any], rng: random.Random, lexicon: Any, style: str) -> list[DemoMail] | None:
    """One turn mail: up to three placements (different squares first), then ``KAUFEN``;
    None (NMR) for an unreliable player now and then, and once the Partie is over."""
    if view.get("finished") or (style == "unzuverlaessig" and rng.random() < 0.3):
        return None
    rows, rack = view["board"], view["mine"].get("rack", "")
    moves = placements(rows, rack, lexicon)
    if view.get("variant") == "kreuzwort":
        moves.sort(key=lambda m: (-len(m.tiles), -m.score, m.row, m.col, m.direction))
    else:
        moves.sort(key=lambda m: (-m.score, -len(m.tiles), m.row, m.col, m.direction))
    lines = [gen_notation(m, rows) for m in moves[:40]]
    if style == "vorsichtig" and len(lines) > 3:
        lines = lines[len(lines) // 3:]
    if style == "tippfehler" and lines and rng.random() < 0.4:
        lines.insert(0, lines[0][:-1] + ("Q" if lines[0][-1] != "Q" else "X"))
    return [DemoMail(tuple(with_ersatz(lines[:3] + ["KAUFEN"])))]


def play_presto(view: Mapping[str, Any], rng: random.Random, lexicon: Any, style: str) -> list[DemoMail] | None:
    """The crossword of the player's set, arriving after their speed (a broken try first
    for ``tippfehler``); None when the search finds none, or (half the time) for an
    unreliable player, or once the race is over."""
    rack = view["mine"].get("rack", "")
    if view.get("finished") or not rack:
        return None
    proof = find_crossword(rack, lexicon)
    if proof.status != "found" or (style == "unzuverlaessig" and rng.random() < 0.5):
        return None
    lines = format_crossword(Crossword(tuple(proof.rows)))
    speed = SPEED.get(style, SPEED["stark"])
    mails = [DemoMail(tuple(lines), after=speed + rng.randrange(60))]
    if style == "tippfehler":  # sends too early with a tile left out, then the whole crossword
        broken = list(lines)
        i = max(range(len(broken)), key=lambda k: len(broken[k].strip(".")))
        broken[i] = broken[i][:-1]
        mails.insert(0, DemoMail(tuple(broken), after=speed // 2))
    return mails

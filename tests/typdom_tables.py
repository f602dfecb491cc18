"""Self-played Typ-Dom tables for the tests of the move generation (issue 35): a Partie
of four players, each laying the best single placement of the dealt rack (score, then
tiles) or buying, turn after turn."""

from __future__ import annotations

from bot.games import get_game
from bot.games.typdom import movegen as mg


def self_played(lexicon, *, seed: str, partie: str, rounds: int, variant: str = "point") -> list[tuple[list[str], str]]:
    """``(table rows, rack)`` before every turn of ``rounds`` rounds (fewer when the Partie
    ends), in seat order; the same Partie for the same ``seed`` and ``partie``."""
    game = get_game("typdom")
    st = game.new_partie(seed=seed, partie=partie, options={"variant": variant}, players=["a", "b", "c", "d"])
    out = []
    for _ in range(rounds):
        subs = {}
        for p in st["seat_order"]:
            out.append((list(st["board"]), st["racks"][p]))
            ms = mg.placements(st["board"], st["racks"][p], lexicon)
            best = max(ms, key=lambda m: (m.score, len(m.tiles)), default=None)
            subs[p] = [mg.gen_notation(best, st["board"])] if best else ["KAUFEN"]
        st = game.adjudicate(st, subs, lexicon, seed=seed, partie=partie, best=False).state_after
        if st["finished"]:
            break
    return out

"""Monoscrabble's simulated player for ``spielleiter demo`` (:meth:`MonoscrabbleRules.demo_player
<bot.games.base.GameRules.demo_player>`): the exhaustive move generator on the board and the
Vorgabe every player sees, the moves picked by the player's style
(:func:`bot.games.demoplay.choose`)."""

from __future__ import annotations

import random
from typing import Any, Mapping

from bot.games.demoplay import DemoMail, choose, with_ersatz
from bot.games.monoscrabble.board import Board
from bot.games.monoscrabble.engine import canonical_move
from bot.games.monoscrabble.movegen import generate
from bot.games.monoscrabble.notation import format_move


def play(view: Mapping[str, Any], rng: random.Random, lexicon: Any, style: str) -> list[DemoMail] | None:
    """One mail: the chosen move with Ersatzzüge (of the 60 best); None (NMR) for an
    unreliable player now and then, or when no move exists."""
    if style == "unzuverlaessig" and rng.random() < 0.25:
        return None
    rows = view["board"]
    board = Board.from_rows(rows)
    moves = sorted(generate(rows, view["rack"], lexicon), key=lambda m: (-m.score, m.row, m.col))[:60]
    ranked = [(format_move(canonical_move(board, m.tiles, getattr(m, "direction", None))), m.score) for m in moves]
    lines = choose(style, ranked, rng)
    return [DemoMail(tuple(with_ersatz(lines)))] if lines else None

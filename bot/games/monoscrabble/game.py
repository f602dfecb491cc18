"""Monoscrabble as a game of the bot: Partie state, bag and rack, round adjudication.

Sources: seed 001 (Monoscrabble-Regeln): the Vorgabe is eight letters (seven in the
first round) and the board; the highest-scoring move goes on the board, on a tie the one
placing more letters; "Falls weniger als acht Buchstaben im Vorrat übrig sind, wird das
Brett wieder geleert und eine neue Runde beginnt"; the Besser-Wertung; NMR is a word of
0 points. shared/RULES.md "Monoscrabble" and "Common to all games" (decisions: the
rack keeps the letters the board move did not use and is refilled from the bag to 8;
then by lot from a stored seed; late joiners are scored as NMR by the service layer).

The state of a Partie is a JSON-compatible dict::

    {"round": 1, "rounds": 20, "board": [15 row codes], "rack": "AEINRS?",
     "bag": "...letters in draw order...", "cycle": 1, "finished": false, "history": [...]}

``bag`` is drawn from the front. ``cycle`` counts the bags (each one full set of 102
tiles, shuffled with ``random.Random(f"{seed}/{partie}/bag/{cycle}")``).

Decisions where the texts leave it open:
- Rack: after the round, the letters of the board move leave the rack, the rest stay and
  the rack is refilled from the bag to 8 (also after a round in which no valid move went
  on the board, so a first-round rack of 7 becomes 8).
- Bag cycle ("weniger als acht Buchstaben im Vorrat"): when the bag cannot refill the
  rack to 8 (i.e. rack letters left plus bag letters are fewer than 8), the board is
  cleared, the letters left (rack and bag) are set aside, a new full bag is shuffled
  (``cycle`` + 1) and a fresh rack of 7 is drawn, as in a first round.
- Board move: the highest score among the counted moves that place at least one tile
  (a PASSE never goes on the board); tie -> more tiles; then by lot with
  ``random.Random(f"{seed}/{partie}/{round}/lot")`` among the distinct moves (by their
  canonical notation, sorted), recorded in ``RoundReport.lot``. Every player who sent that
  very move is named in ``board_move["players"]``.
- Besser-Wertung: ``PlayerRound.points`` = minus the number of players of the round whose
  counted score is strictly higher; NMR (nothing sent, or nothing valid) is a 0-point move.
  ``PlayerRound.score`` is the player's own move score (0 for NMR).
- The last round (``last_round`` or ``round >= rounds``) ends the Partie: the board move
  is made, no new rack is drawn (``rack`` becomes ``""``).
- The "top" (best possible move) comes from ``bot.games.monoscrabble.movegen.best_move``
  and is re-judged by :func:`~bot.games.monoscrabble.engine.evaluate`, so its notation
  and score are the engine's. In :meth:`MonoscrabbleRules.adjudicate` a missing move
  generator gives ``top = None``; :meth:`top_case` and :meth:`top` raise
  :class:`MovegenUnavailable`.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Mapping, Sequence

from bot.games.base import GameRules, MoveReport, PlayerRound, RoundReport
from bot.games.demoplay import GERMAN_STYLES
from bot.games.verdict import N_, Verdict, Visibility, verdict
from bot.games.monoscrabble.board import SIZE, Board, coord_name, premium_name
from bot.games.monoscrabble.engine import Outcome, canonical_move, evaluate, evaluate_tiles
from bot.games.monoscrabble.notation import Move, format_move, parse_move
from bot.games.monoscrabble.tiles import FIRST_RACK, RACK, full_bag, parse_rack, sort_tiles

ROUNDS = 20  # RULES.md "Rondo"/league default; GM option "rounds"


class MovegenUnavailable(RuntimeError):
    """The move generator (``bot.games.monoscrabble.movegen``) cannot be imported."""


def _bag(seed: str, partie: str, cycle: int) -> list[str]:
    """A full bag of 102 tiles shuffled for ``cycle`` of the Partie."""
    bag = full_bag()
    random.Random(f"{seed}/{partie}/bag/{cycle}").shuffle(bag)
    return bag


def _fresh(seed: str, partie: str, cycle: int) -> tuple[str, str]:
    """(rack of 7, rest of the bag) of a new bag."""
    bag = _bag(seed, partie, cycle)
    return sort_tiles(bag[:FIRST_RACK]), "".join(bag[FIRST_RACK:])


def _best_move_fn():
    try:
        # deferred on purpose: the move generator (compiled core) loads only for a best move
        from bot.games.monoscrabble.movegen import best_move
    except ImportError as exc:  # written by another module; wired by the lead
        raise MovegenUnavailable(
            f"Der Zuggenerator bot.games.monoscrabble.movegen ist nicht verfügbar ({exc}); "
            "ohne ihn gibt es keinen Top-Zug.") from exc
    return best_move


def _report(index: int, text: str, out: Outcome) -> MoveReport:
    if not out.valid:
        return MoveReport(index=index, text=text, valid=False, reason=out.reason, verdict=out.verdict,
                          notes=list(out.notes))
    return MoveReport(index=index, text=text, valid=True, score=out.score, bonus=50 if out.bingo else 0,
                      verdict=out.verdict, notes=list(out.notes),
                      detail={"words": list(out.words), "tiles": out.tiles, "notation": out.notation,
                              "full_notation": out.full_notation, "placements": out.placements_json(),
                              "passe": out.passe})


class MonoscrabbleRules(GameRules[Move]):
    """Monoscrabble (seed 001): everyone plays the same Vorgabe on one board; the best
    move goes on the board; Besser-Wertung."""

    # capability flags (bot.games.base.CAPABILITIES): what the service may ask of this game
    multiline = False
    merges_moves = False
    private_state = False  # one rack for all: nothing private (seed 001)
    player_views = False
    closes_early = False
    notes_closed_round = False
    turn_rounds = False
    demo_leagues = ({"name": "Demo-Mono", "partien": ["M1"], "rounds": 6, "players": GERMAN_STYLES, "joiner": ("stark", 3),
                     "eml": "monoscrabble-runde"},)
    reads_parsed_move = True

    name = "monoscrabble"
    alphabet = "monoscrabble"
    grammar = "monoscrabble_move.lark"
    title = "Monoscrabble"
    open_join = True  # seed 001: "Einstieg ist jederzeit möglich"

    # -- Partie -----------------------------------------------------------------------
    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None,
                    players: Sequence[str] = ()) -> dict:
        """An empty board, bag cycle 1 shuffled with ``Random(f"{seed}/{partie}/bag/1")``
        and a rack of 7 drawn from it. Options: ``rounds`` (default 20)."""
        options = options or {}
        rack, bag = _fresh(seed, partie, 1)
        return {"round": 1, "rounds": int(options.get("rounds", ROUNDS)), "board": Board.empty().rows,
                "rack": rack, "bag": bag, "cycle": 1, "finished": False, "history": []}

    def read_move(self, text: str) -> Move:
        """Parse a Monoscrabble move line (grammar/monoscrabble_move.lark); raises NotationError."""
        return parse_move(text)

    def evaluate(self, state: Mapping[str, Any], text: Any, lexicon: Any) -> Outcome:
        """Judge a move line (or the move :meth:`read_move` made of it) on the open round."""
        return evaluate(Board.from_rows(state["board"]), state["rack"], text, lexicon)

    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0, *,
                   player: str | None = None, move: Any = None) -> MoveReport:
        """Judge one move line on the open round's board and rack (seed 001); ``move`` is
        the line as :meth:`read_move` read it (or the NotationError), None: read here."""
        return _report(index, text, self.evaluate(state, text if move is None else move, lexicon))

    # -- the top ------------------------------------------------------------------------
    def _top(self, board_rows: Sequence[str], rack: str, lexicon: Any) -> tuple[Outcome, Any] | None:
        best_move = _best_move_fn()
        g = best_move(list(board_rows), rack, lexicon)
        if g is None:
            return None
        out = evaluate_tiles(Board.from_rows(board_rows), rack, g.tiles, lexicon, getattr(g, "direction", None))
        return out, g

    def gen_notation(self, gen: Any, board_rows: Sequence[str]) -> str:
        """The canonical player notation of a generated move (``GenMove`` of
        ``bot.games.monoscrabble.movegen``, or anything with ``tiles`` as
        ``(row, col, letter, is_blank)`` and ``direction``) on the board ``board_rows``:
        the whole main word, board tiles in lower case, a Blanko as ``*X``."""
        return format_move(canonical_move(Board.from_rows(board_rows), gen.tiles, getattr(gen, "direction", None)))

    def top(self, state: Mapping[str, Any], lexicon: Any) -> dict | None:
        """The best possible move of the open round (``notation``, ``score``, ``word``,
        ``tiles`` (count), ``words``, ``placements``, ``full_notation``), or None when
        there is none. Raises :class:`MovegenUnavailable` without the move generator."""
        if not state.get("rack"):
            return None
        res = self._top(state["board"], state["rack"], lexicon)
        if res is None:
            return None
        out, g = res
        if not out.valid:
            raise RuntimeError(f"Zuggenerator und Regeln widersprechen sich: {g!r} ist {out.reason} ({out.message})")
        top = {"notation": out.notation, "full_notation": out.full_notation, "score": out.score,
               "word": out.word, "words": list(out.words), "tiles": out.tiles,
               "placements": out.placements_json()}
        if getattr(g, "score", out.score) != out.score:
            top["generator_score"] = g.score
        return top

    # -- a round ------------------------------------------------------------------------
    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, Any] | None = None) -> RoundReport:
        """Adjudicate the open round (seed 001; RULES.md "Monoscrabble"); see the module
        docstring for the board move, the Besser-Wertung, the rack and the bag cycle."""
        board = Board.from_rows(state["board"])
        rack = state["rack"]
        rnd = int(state["round"])
        cycle = int(state.get("cycle", 1))

        judged: dict[str, tuple[bool, list[MoveReport], int | None, Outcome | None]] = {}
        for player in sorted(submissions):
            lines = submissions[player]
            if lines is None:
                judged[player] = (False, [], None, None)
                continue
            reports: list[MoveReport] = []
            hit: tuple[int, Outcome] | None = None
            for i, line in enumerate(lines):
                out = evaluate(board, rack, line, lexicon)
                reports.append(_report(i, line, out))
                if out.valid and hit is None:
                    hit = (i, out)
            judged[player] = (True, reports, hit[0] if hit else None, hit[1] if hit else None)

        scores = {p: (o.score or 0) if o is not None else 0 for p, (_, _, _, o) in judged.items()}
        players = []
        for p, (submitted, reports, idx, _o) in judged.items():
            better = sum(1 for q in scores if scores[q] > scores[p])
            players.append(PlayerRound(p, submitted, reports, idx, -better, score=scores[p]))

        # -- the board move ---------------------------------------------------------------
        board_move = lot = None
        chosen: Outcome | None = None
        cands = [(p, o) for p, (_, _, _, o) in judged.items() if o is not None and o.tiles > 0]
        if cands:
            best = max((o.score or 0, o.tiles) for _, o in cands)
            tied = [(p, o) for p, o in cands if ((o.score or 0), o.tiles) == best]
            distinct = sorted({o.notation for _, o in tied})
            if len(distinct) > 1:
                pick = random.Random(f"{seed}/{partie}/{rnd}/lot").choice(distinct)
                lot = {"candidates": distinct, "chosen": pick}
            else:
                pick = distinct[0]
            winners = [p for p, o in tied if o.notation == pick]
            chosen = next(o for p, o in tied if o.notation == pick)
            board_move = {"players": winners, "notation": chosen.notation, "full_notation": chosen.full_notation,
                          "word": chosen.word, "words": list(chosen.words), "score": chosen.score,
                          "tiles": chosen.tiles, "placements": chosen.placements_json()}

        try:
            top = self.top(state, lexicon)
        except MovegenUnavailable:
            top = None

        # -- the state after ----------------------------------------------------------------
        new_board = chosen.apply(board) if chosen is not None else board
        left = Counter(parse_rack(rack))
        if chosen is not None:
            left.subtract(Counter(p.rack_letter for p in chosen.placements))
        left_tiles = sort_tiles(left.elements())
        bag = state["bag"]
        after: dict[str, Any] = dict(state)
        finished = bool(last_round) or rnd >= int(state.get("rounds", ROUNDS))
        cleared = False
        if finished:
            after.update(round=rnd, board=new_board.rows, rack="", bag=bag, cycle=cycle, finished=True)
        else:
            need = RACK - len(left_tiles)
            if len(bag) >= need:
                new_rack, new_bag = sort_tiles(left_tiles + bag[:need]), bag[need:]
                new_cycle, rows = cycle, new_board.rows
            else:  # seed 001: fewer than eight letters left -> clear the board, new bag
                cleared = True
                new_cycle = cycle + 1
                new_rack, new_bag = _fresh(seed, partie, new_cycle)
                rows = Board.empty().rows
            after.update(round=rnd + 1, board=rows, rack=new_rack, bag=new_bag, cycle=new_cycle, finished=False)
        after["history"] = list(state.get("history", [])) + [{
            "round": rnd, "cycle": cycle, "rack": rack,
            "notation": board_move["notation"] if board_move else None,
            "word": board_move["word"] if board_move else None,
            "score": board_move["score"] if board_move else None,
            "players": board_move["players"] if board_move else [],
            "placements": board_move["placements"] if board_move else [],
            "board": new_board.rows, "cleared": cleared}]
        return RoundReport(round=rnd, players=players, board_move=board_move, top=top,
                           state_before=dict(state), state_after=after, lot=lot)

    points_rule = N_("Die Punkte gelten für das Brett, wie es jetzt liegt.")
    move_key = ("*", N_("(*X = Blanko als X)"))  # the board's key is "(Kleinbuchstabe = Blanko)"

    def example_move(self, state: Mapping[str, Any]) -> list[str] | None:
        """Up to two lines in Monoscrabble notation (NOTATION.md "Monoscrabble") for the
        open round: a tile on the board (lower case) with two letters of the Vorgabe after
        it, once waagerecht and once senkrecht, each only where both new squares, the
        squares before and after the word and the squares beside the new tiles are free
        (so it crosses nothing); on an empty board three Vorgabe letters from H8 on. Only
        letters the Vorgabe holds are used (a Blanko is left out); whether the result is a
        word is not checked (an example, no suggestion). None when the Partie is over, the
        Vorgabe has fewer than three letters or no such place is free."""
        if state.get("finished"):
            return None
        letters = [c for c in str(state.get("rack", "")) if c.isalpha()]
        if len(letters) < 3:
            return None
        board = Board.from_rows(state["board"])
        occupied = [(r, c) for r in range(1, SIZE + 1) for c in range(1, SIZE + 1) if board.get(r, c)]
        if not occupied:
            return [f"H8w {''.join(letters[:3])}"]

        def free(r: int, c: int) -> bool:  # empty, or off the board
            return board.get(r, c) is None

        found: dict[str, str] = {}
        for r, c in occupied:
            for d, (dr, dc) in (("w", (0, 1)), ("s", (1, 0))):
                if d in found:
                    continue
                new = [(r + dr * k, c + dc * k) for k in (1, 2)]
                if not all(1 <= a <= SIZE and 1 <= b <= SIZE and free(a, b) for a, b in new):
                    continue
                if not (free(r - dr, c - dc) and free(r + 3 * dr, c + 3 * dc)):
                    continue
                if not all(free(a + dc, b + dr) and free(a - dc, b - dr) for a, b in new):
                    continue
                pair = letters[:2] if d == "w" else letters[-2:]
                found[d] = f"{coord_name(r, c)}{d} {board.get(r, c).letter.lower()}{''.join(pair)}"  # type: ignore[union-attr]
        lines = [found[d] for d in ("w", "s") if d in found]
        return lines or None

    # -- views ----------------------------------------------------------------------------
    def demo_player(self, view: Mapping[str, Any], rng: Any, *, lexicon: Any = None,
                    style: str = "stark") -> list[Any] | None:
        """The demo's simulated player (:func:`bot.games.monoscrabble.demo.play`); see
        :meth:`GameRules.demo_player <bot.games.base.GameRules.demo_player>`."""
        from bot.games.monoscrabble.demo import play  # deferred on purpose: the move generator loads only for the demo
        return play(view, rng, lexicon, style)

    def public_view(self, state: Mapping[str, Any]) -> dict:
        """``round``, ``rounds``, ``board`` (15 row codes), ``rack``, ``bag`` (letters left),
        ``cycle``, ``finished``, ``grid_text`` (monospace grid with A-O and 1-15, ``·``
        empty, a Blanko in lower case) and ``cells`` (15 x 15 dicts ``letter``, ``blank``,
        ``premium`` ("TW", "DW", "TL", "DL" or ""), ``new``)."""
        board = Board.from_rows(state["board"])
        cells = []
        for r in range(1, SIZE + 1):
            row = []
            for c in range(1, SIZE + 1):
                t = board.get(r, c)
                row.append({"letter": t.letter if t else "", "blank": bool(t and t.blank),
                            "premium": premium_name(r, c), "new": False})
            cells.append(row)
        return {"round": state["round"], "rounds": state.get("rounds", ROUNDS), "board": list(state["board"]),
                "rack": state.get("rack", ""), "bag": len(state.get("bag", "")), "cycle": state.get("cycle", 1),
                "finished": bool(state.get("finished")), "grid_text": board.grid_text(), "cells": cells}

    # -- conformance cases (shared/conformance/README.md) ------------------------------
    def gm_picture(self, state: Mapping[str, Any], names: Mapping[str, str], *,
                   zat: str | None = None) -> list[Verdict | str]:
        """The Vorgabe and the bag (a verdict, in the game master's language), then the
        board's rows (no private state)."""
        head = verdict("gm-head", N_("Vorgabe {rack}, Beutel {bag}"), seen=Visibility.GM,
                       rack=state.get("rack", ""), bag=len(state.get("bag", "")))
        return [head] + list(state["board"])

    def run_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """What the rules make of a conformance case, in the keys of ``case["expect"]``:
        ``valid``, ``score``, ``tiles``, ``words`` (main first) or ``valid``, ``reason``."""
        out = evaluate(Board.from_rows(case["board"]), case["rack"], case["move"], lexicon)
        if out.valid:
            return {"valid": True, "score": out.score, "tiles": out.tiles, "words": list(out.words)}
        return {"valid": False, "reason": out.reason}

    def top_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """The best move of a case's position: ``move`` (player notation) and ``score``.
        Raises :class:`MovegenUnavailable` without the move generator, RuntimeError when
        the generator's move is not valid or scores differently under these rules."""
        res = self._top(case["board"], case["rack"], lexicon)
        if res is None:
            return {"move": None, "score": None}
        out, g = res
        if not out.valid:
            raise RuntimeError(f"Zuggenerator und Regeln widersprechen sich: {g!r} ist {out.reason} ({out.message})")
        if getattr(g, "score", out.score) != out.score:
            raise RuntimeError(f"Zuggenerator zählt {g.score} Punkte für {out.notation}, die Regeln {out.score}")
        return {"move": out.notation, "score": out.score, "words": list(out.words), "tiles": out.tiles}

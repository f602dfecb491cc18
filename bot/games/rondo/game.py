"""Rondo as a game of the bot: Partie state, Vorgabe drawing and round adjudication.

Sources: seed 000 II.2 c)-d) (board move, new Vorgabe), II.3 b) (standings),
II.5 (20 rounds), III (NMR scores 0); shared/RULES.md "Rondo" and "Common to all games"
(decisions on drawing, ties by a stored seeded lot).

The state of a Partie is a JSON-compatible dict::

    {"round": 2, "rounds": 20, "row": "..MOND/..", "vorgabe": "DEST?/",
     "deck": "AEK...", "discard": "...", "finished": false, "history": [...]}

``deck`` is the face-down pile in drawing order, ``discard`` the cards set aside.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from typing import Any, Mapping, Sequence

from bot.games.base import GameRules, MoveReport, PlayerRound, RoundReport
from bot.games.demoplay import GERMAN_STYLES
from bot.games.rondo.cards import LOESCHER, Row, Vorgabe, count_vowels, full_deck
from bot.games.rondo.engine import Outcome, Position, evaluate, valid_verdict
from bot.games.rondo.movegen import best_moves
from bot.games.rondo.notation import Move, parse_move
from bot.games.verdict import N_, Verdict, Visibility, verdict
from bot.lexicon.memo import memo_of

VORGABE_SIZE = 6          # seed 000 II.2 d)
MIN_VOWELS = 2            # seed 000 II.2 d): at least two vowels or Joker
LOESCHER_FROM_ROUND = 2   # seed 000 II.1 c)
ROUNDS = 20               # seed 000 II.5
MAX_REDRAWS = 200


def _rng(seed: str, partie: str, *parts: object) -> random.Random:
    return random.Random("/".join(map(str, (seed, partie) + parts)))


def _sort_cards(cards: str) -> str:
    order = {ch: i for i, ch in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ?/")}
    return "".join(sorted(cards, key=lambda ch: order.get(ch, 99)))


def draw_vorgabe(deck: str, discard: str, round_no: int, rng: random.Random) -> tuple[str, str, str]:
    """Draw the Vorgabe of round ``round_no``; returns ``(vorgabe, deck, discard)``.

    Six cards; from round 2 one of them is the Loescher (not part of the deck). A draw
    with fewer than two vowels (A E I O U) or Joker is put back, the deck shuffled and
    drawn again. When the deck runs short, the discard pile is shuffled in
    (seed 000 II.1 c, II.2 d; shared/RULES.md "Rondo", decision on the details).
    """
    k = VORGABE_SIZE - (1 if round_no >= LOESCHER_FROM_ROUND else 0)
    pile = list(deck)
    spent = list(discard)
    drawn: list[str] = []
    for attempt in range(MAX_REDRAWS):
        # the discard pile is shuffled in when the deck runs short of cards, or of the
        # vowels the rule needs (otherwise no redraw could ever satisfy it)
        if spent and (len(pile) < k or count_vowels(pile) < MIN_VOWELS):
            rng.shuffle(spent)
            pile.extend(spent)
            spent = []
            rng.shuffle(pile)
        drawn = pile[:k]
        if count_vowels(drawn) >= MIN_VOWELS or attempt == MAX_REDRAWS - 1 or count_vowels(pile) < MIN_VOWELS:
            pile = pile[k:]  # (the last two: no draw can satisfy the rule; take what there is)
            break
        rng.shuffle(pile)  # put back and draw again
    vorgabe = _sort_cards("".join(drawn)) + (LOESCHER if round_no >= LOESCHER_FROM_ROUND else "")
    return vorgabe, "".join(pile), "".join(spent)


def position_of(state: Mapping[str, Any]) -> Position:
    """The :class:`Position` the open round is played on."""
    return _position(state["row"], state["vorgabe"], int(state["round"]))


@lru_cache(maxsize=256)
def _position(row: str, vorgabe: str, round_no: int) -> Position:
    """:func:`position_of` from the state's values (a Position is an immutable value: the
    same for every mail of a round)."""
    return Position(Row.from_code(row), Vorgabe.parse(vorgabe), round_no)


#: Outcomes of :meth:`RondoRules.check_line` by lexicon: ``id(lexicon) -> (lexicon,
#: {(position, move): Outcome})`` (the lexicon kept, so its id is not reused while its
#: outcomes are). A move is judged on the position alone - Rondo has no private state,
#: every player sees the same Auslage and Vorgabe -, and many players of a round send
#: the same good moves: each is judged once (issue 35).
_OUTCOMES: dict[int, tuple[Any, dict[tuple[Position, Move], Outcome]]] = {}
#: Outcomes kept per lexicon (then forgotten all at once), and lexicons kept.
OUTCOMES_KEPT, LEXICONS_KEPT = 4096, 8


def _judged(position: Position, move: Move, lexicon: Any) -> Outcome:
    """:func:`evaluate` of a read ``move``, remembered (:data:`_OUTCOMES`; an Outcome is
    only read afterwards: :func:`_report` copies what it keeps)."""
    memo = memo_of(_OUTCOMES, lexicon, LEXICONS_KEPT)
    out = memo.get((position, move))
    if out is None:
        out = evaluate(position, move, lexicon)
        if len(memo) >= OUTCOMES_KEPT:
            memo.clear()
        memo[(position, move)] = out
    return out


def _report(index: int, text: str, out: Outcome, position: Position) -> MoveReport:
    """A judged line as the service stores it; every verdict is public (Rondo has no
    private state: the Auslage and the Vorgabe are on the table)."""
    if not out.valid:
        return MoveReport(index=index, text=text, valid=False, reason=out.reason, verdict=out.verdict,
                          detail={"field": out.field})
    return MoveReport(index=index, text=text, valid=True, score=out.score, bonus=out.bonus,
                      verdict=valid_verdict(out.word or "", out.score or 0), notes=list(out.notes),
                      detail={"field": out.field, "row": out.row.code, "word": out.word,  # type: ignore[union-attr]
                              "new_cards": out.new_cards, "notation": out.notation(position),
                              "pretty": out.row.pretty()})  # type: ignore[union-attr]


class RondoRules(GameRules[Move]):
    """Rondo (seed 000): 9-field Auslage, Joker, Loescher; 20 rounds."""

    # capability flags (bot.games.base.CAPABILITIES): what the service may ask of this game
    multiline = False
    merges_moves = False
    private_state = False
    player_views = False
    closes_early = False
    notes_closed_round = False
    turn_rounds = False
    demo_leagues = ({"name": "Demo-Rondo", "partien": ["R1", "R2", "R3"], "rounds": 20, "players": GERMAN_STYLES,
                     "eml": "rondo-runde"},)
    reads_parsed_move = True

    name = "rondo"
    alphabet = "rondo"
    grammar = "rondo_move.lark"
    title = "Rondo"

    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None,
                    players: Sequence[str] = ()) -> dict:
        """Shuffle the 100 cards with the Partie's seeded generator and draw round 1."""
        options = options or {}
        deck = full_deck()
        _rng(seed, partie, "deck").shuffle(deck)
        vorgabe, rest, discard = draw_vorgabe("".join(deck), "", 1, _rng(seed, partie, 1, "draw"))
        return {"round": 1, "rounds": int(options.get("rounds", ROUNDS)), "row": "." * 9,
                "vorgabe": vorgabe, "deck": rest, "discard": discard, "finished": False, "history": []}

    def read_move(self, text: str) -> Move:
        """Parse a Rondo move line (grammar/rondo_move.lark); raises NotationError."""
        return parse_move(text)

    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0, *,
                   player: str | None = None, move: Any = None) -> MoveReport:
        """Judge one move line on the open round's position (seed 000 II.1-II.3); ``move``
        is the line as :meth:`read_move` read it (or the NotationError), None: read here."""
        position = position_of(state)
        out = _judged(position, move, lexicon) if isinstance(move, Move) else \
            evaluate(position, text if move is None else move, lexicon)
        return _report(index, text, out, position)

    def judging_key(self, state: Mapping[str, Any]) -> tuple[str, str, int]:
        """All of ``state`` that :meth:`check_read` of a read move depends on: the values
        the open round's :class:`Position` is made of (:func:`position_of`: the row, the
        Vorgabe, the round number; strings hash once). The report of a line is a function
        of them, the line, the move read, the index and the lexicon - not of the player
        (Rondo has no private state) -, so the service may remember it
        (``bot.service.conversations.ackmoves.checked``)."""
        return (state["row"], state["vorgabe"], int(state["round"]))

    def top(self, state: Mapping[str, Any], lexicon: Any) -> dict | None:
        """The best possible move of the open round, or None when there is none."""
        position = position_of(state)
        best = best_moves(position, lexicon, 1)
        if not best:
            return None
        o = best[0]
        return {"notation": o.notation(position), "score": o.score, "word": o.word, "row": o.row.code}  # type: ignore[union-attr]

    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, Any] | None = None) -> RoundReport:
        """Adjudicate the open round (seed 000 II.2 c, III).

        For each player the first valid move of main move and Ersatzzuege counts and
        scores its points; no valid move scores 0 (NMR). The best-scoring counted move
        goes on the table, ties by the seeded lot. Then the unused Vorgabe cards are set
        aside and, unless this was the last round, the next Vorgabe is drawn.
        """
        position = position_of(state)
        rnd = int(state["round"])
        players: list[PlayerRound] = []
        counted: list[tuple[str, Outcome]] = []
        for player in sorted(submissions):
            lines = submissions[player]
            if lines is None:
                players.append(PlayerRound(player, False, [], None, 0))
                continue
            reports, hit = [], None
            for i, line in enumerate(lines):
                out = evaluate(position, line, lexicon)
                reports.append(_report(i, line, out, position))
                if out.valid and hit is None:
                    hit = (i, out)
            if hit is None:
                players.append(PlayerRound(player, True, reports, None, 0))
            else:
                players.append(PlayerRound(player, True, reports, hit[0], hit[1].score or 0))
                counted.append((player, hit[1]))

        board_move = lot = None
        new_row = position.row
        consumed = ""
        if counted:
            best_score = max(o.score or 0 for _, o in counted)
            tied = [(p, o) for p, o in counted if o.score == best_score]
            distinct = sorted({(o.row.code, o.new_cards) for _, o in tied})  # type: ignore[union-attr]
            if len(distinct) > 1:
                pick = _rng(seed, partie, rnd, "lot").choice(distinct)
                lot = {"candidates": [r for r, _ in distinct], "chosen": pick[0]}
            else:
                pick = distinct[0]
            winners = [p for p, o in tied if (o.row.code, o.new_cards) == pick]  # type: ignore[union-attr]
            o = next(o for p, o in tied if p == winners[0])
            new_row = o.row  # type: ignore[assignment]
            consumed = o.new_cards
            board_move = {"players": winners, "word": o.word, "score": o.score, "row": o.row.code,  # type: ignore[union-attr]
                          "notation": o.notation(position), "pretty": o.row.pretty()}  # type: ignore[union-attr]

        top = self.top(state, lexicon)
        left = Counter(c for c in state["vorgabe"] if c != LOESCHER)
        left.subtract(Counter(c for c in consumed if c != LOESCHER))
        discard = state["discard"] + "".join(sorted(left.elements()))
        after: dict[str, Any] = dict(state)
        after["row"] = new_row.code
        after["history"] = list(state.get("history", [])) + [
            {"round": rnd, "row": new_row.code, "word": new_row.word if board_move else None,
             "vorgabe": state["vorgabe"], "players": board_move["players"] if board_move else []}]
        finished = last_round or rnd >= int(state.get("rounds", ROUNDS))
        if finished:
            after.update(round=rnd, vorgabe="", discard=discard, finished=True)
        else:
            vorgabe, deck, discard = draw_vorgabe(state["deck"], discard, rnd + 1, _rng(seed, partie, rnd + 1, "draw"))
            after.update(round=rnd + 1, vorgabe=vorgabe, deck=deck, discard=discard, finished=False)
        return RoundReport(round=rnd, players=players, board_move=board_move, top=top,
                           state_before=dict(state), state_after=after, lot=lot)

    def example_move(self, state: Mapping[str, Any]) -> list[str] | None:
        """Two lines in Rondo notation (NOTATION.md "Rondo") for the open round: the old
        Auslage in lower case (a Löscher as ``/``) with one letter card of the Vorgabe
        added at its right end, and as Ersatzzug one added at its left end with the field
        named (``Feld N:``); in round 1 (empty Auslage) three Vorgabe letters (they lie on
        fields 4-6, seed 000 II.2 a). Only letter cards the Vorgabe holds and free fields are
        used; whether the result is a word is not checked (an example, no suggestion).
        None when the Partie is over or the Vorgabe has no letter card."""
        if state.get("finished") or not state.get("vorgabe"):
            return None
        letters = [c for c in str(state["vorgabe"]) if "A" <= c <= "Z"]
        if not letters:
            return None
        row = Row.from_code(state["row"])
        occ = row.occupied()
        if occ is None:
            pick = (letters * 3)[:3]
            return ["".join(pick)]
        first, last = occ
        old = "".join("." if c is None else ("/" if c.kind == "loescher" else str(c.letter).lower())
                      for c in row.cards[first - 1:last])
        one, two = letters[0], letters[-1]
        lines = []
        if last < 9:
            lines.append(old + one)
        if first > 1:
            lines.append(f"Feld {first - 1}: {two}{old}")
        if not lines:  # all nine fields taken: a new card on the last letter
            lines.append(old[:-1] + one)
        return lines

    def demo_player(self, view: Mapping[str, Any], rng: Any, *, lexicon: Any = None,
                    style: str = "stark") -> list[Any] | None:
        """The demo's simulated player (:func:`bot.games.rondo.demo.play`); see
        :meth:`GameRules.demo_player <bot.games.base.GameRules.demo_player>`."""
        from bot.games.rondo.demo import play  # deferred on purpose: the Rondo move generator loads only for the demo
        return play(view, rng, lexicon, style)

    def public_view(self, state: Mapping[str, Any]) -> dict:
        row = Row.from_code(state["row"])
        vorgabe = Vorgabe.parse(state["vorgabe"]) if state.get("vorgabe") else None
        cells = []  # a Joker in lower case, as in the row code (NOTATION.md "Codes a case file uses")
        for i, c in enumerate(row.cards, start=1):
            if c is None:
                cells.append({"field": i, "kind": "empty", "text": "", "value": None})
            else:
                cells.append({"field": i, "kind": c.kind, "value": c.value,
                              "text": "/" if c.kind == "loescher" else (c.letter if c.kind == "letter" else c.letter.lower())})
        return {"round": state["round"], "rounds": state.get("rounds", ROUNDS), "row": state["row"], "cells": cells,
                "word": row.word, "row_pretty": row.pretty(), "vorgabe": state["vorgabe"],
                "vorgabe_pretty": vorgabe.pretty() if vorgabe else "", "finished": bool(state.get("finished"))}

    # -- conformance cases (shared/conformance/README.md) --------------------------------
    def gm_picture(self, state: Mapping[str, Any], names: Mapping[str, str], *,
                   zat: str | None = None) -> list[Verdict | str]:
        """Row and Vorgabe (no private state), as a verdict for the game master's language."""
        row = Row.from_code(state["row"])
        word: Verdict | str = row.word or verdict("empty", N_("leer"), seen=Visibility.PUBLIC)
        return [verdict("gm_row", N_("Auslage {row} ({word}), Vorgabe {vorgabe}"), seen=Visibility.PUBLIC,
                        row=state["row"], word=word, vorgabe=state["vorgabe"])]

    def run_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """What the rules make of a conformance case, in the keys of ``case["expect"]``."""
        position = Position.from_codes(case["row"], case["vorgabe"], int(case.get("round", 2)))
        out = evaluate(position, case["move"], lexicon)
        if out.valid:
            return {"valid": True, "score": out.score, "bonus": out.bonus, "row": out.row.code}  # type: ignore[union-attr]
        return {"valid": False, "reason": out.reason}

    def top_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        position = Position.from_codes(case["row"], case["vorgabe"], int(case.get("round", 2)))
        best = best_moves(position, lexicon, 1)
        if not best:
            return {"move": None, "score": None}
        return {"move": best[0].notation(position), "score": best[0].score, "row": best[0].row.code}  # type: ignore[union-attr]


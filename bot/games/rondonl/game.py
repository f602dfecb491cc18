"""RONDO, the original (seed 004), as a game of the bot: private hands, one turn per round.

Sources: seed 004 (Dutch rules of the card game by I. Abrahami & E. Netz) read with
shared/RULES.md "RONDO, the original" and shared/NOTATION.md "RONDO (the original)"; the
word rules, Joker, wis-kaarten (Loescher) and scoring are Rondo's (seed 000 II.1-II.3,
:mod:`bot.games.rondo`), judged by the Rondo engine against the player's hand
(:mod:`bot.games.rondonl.engine`).

How a league runs (decisions where seed 004 is silent are marked; docs/rules/rondonl.md):

* Round 1 is the opening: every player mails a three-letter word made from their first
  hand of 7; the highest value (sum of the card values) begins, ties by the seeded lot
  (the seed: the youngest player; RULES.md: by lot). Decision: the opening scores
  nothing and gives no marks; a player without a valid opening word cannot begin.
* Every further round is one player's turn, in seat order (the order of the league file)
  from the opener on. The opener lays any three-letter word on the middle fields (as an
  empty row always takes one). A turn ends at its ZAT or as soon as the player's turn is
  complete (:meth:`round_complete`).
* Options (league file ``[options]``): ``full_rounds`` (end after that many full rounds;
  default: play until the deck is empty, then finish the full round so that everyone had
  the same number of turns; decision), ``teams = true`` (four or more players, an even
  number: seats i and i+n/2 are partners, as at a card table, sharing one hand and one
  score, so partners alternate; seed 004 "teams van twee"), ``beginners = true``
  (VERDECKT X: once per turn any card face down as a wis-kaart, -2), ``dictionary =
  "nl"`` (default) or ``"de"``, ``names = true`` (Dutch proper names), ``foreign_words =
  true`` (decision: also every word of the other dictionary, German for a Dutch league
  and Dutch for a German one; single words by the GM's allow list), ``language`` (``nl``
  default, or ``de``: the language of the mails).

State (JSON)::

    {"phase": "opening"|"play", "round": 1, "players": [keys in seat order],
     "sides": [[key], ...] or [[k1, k3], [k2, k4]], "hands": {side: "AEKN?/T"},
     "deck": "top first", "row": ".........", "order": [keys from the opener on],
     "turn": turns played, "marks": {key: n}, "scores": {key: n}, "opening": {...},
     "opener": key, "full_rounds": n|None, "beginners": bool, "language": "nl",
     "dictionary": "nl", "last": {...}, "finished": false, "history": [...]}

A side is named by its first player's key; the hand, the score and the marks belong to
the side (``scores``/``marks`` are kept per player, each partner's equal to the side's).

This module is the game class (setup, rounds, views); sides and the mover are
:mod:`.seats`, the judged lines as stored :mod:`.reports`, the lines of a mailed turn
:mod:`.notation`, the judgement :mod:`.engine`, the sentences :mod:`.texts`.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any, Mapping, Sequence

from bot.games.base import GameRules, MoveReport, PlayerRound, RoundReport
from bot.games.rondo.cards import Row
from bot.games.rondonl.cards import HAND_SIZE, full_deck, pretty_hand, sort_hand
from bot.games.rondonl.engine import Opening, Turn, best_word, judge_opening, judge_turn
from bot.games.rondonl.notation import Line, parse_line, split_turn, turn_lines
from bot.games.rondonl.reports import first_reason, move_reports
from bot.games.rondonl.seats import mover, partners, side_of
from bot.games.rondonl import texts
from bot.games.verdict import N_, Verdict, Visibility, verdict

TURN_HOURS = 48.0


def _rng(seed: str, partie: str, *parts: object) -> random.Random:
    return random.Random("/".join(map(str, (seed, partie) + parts)))


class RondoNLRules(GameRules[Line]):
    """RONDO (seed 004): private hands of 7, turns in seat order, opening by word value."""

    # capability flags (bot.games.base.CAPABILITIES): what the service may ask of this game
    multiline = True
    merges_moves = True  # exchanges and word (issue 24)
    private_state = True  # the hands (docs/development/privacy.md)
    player_views = True
    closes_early = True  # a valid move by the player whose turn it is
    notes_closed_round = False
    turn_rounds = True
    demo_leagues = ({"name": "Demo-RONDO", "partien": ["T1"], "language": "nl", "turn_hours": 48,
                     "players": ("sterk", "ruiler", "onbetrouwbaar"),
                     "options": {"full_rounds": 3}, "rounds_option": "full_rounds", "eml": "rondonl-ronde"},)
    reads_parsed_move = False

    name = "rondonl"
    alphabet = "nl"
    grammar = "rondo_move.lark"  # the family reads RONDO's notation
    title = "RONDO"
    min_players = 2
    max_players = 12
    turn_hours = TURN_HOURS
    #: RONDO ends by itself (full rounds or an empty deck); a league's ``rounds`` is a cap.
    default_rounds = None
    public_round_keys = frozenset({"partner_turn"})  # the partner's share of a team's turn
    opening_rounds = 1  # the opening round: who begins, no turn
    #: A line of a turn is written from the hand: others never see it (issue 31).
    hidden_move_text = N_("(verdeckt)")

    # -- setup -------------------------------------------------------------------------
    def check_players(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> Verdict | None:
        """Two to six players; with ``teams``: four to twelve, an even number (seed 004:
        "Vanaf vier personen kan RONDO gespeeld worden met teams van twee"). A verdict
        for the game master, or None."""
        n = len(players)
        if (options or {}).get("teams"):
            if n < 4 or n % 2 or n > 12:
                return verdict("players", N_("RONDO in Teams braucht eine gerade Zahl von 4 bis 12 Spielern, die "
                                             "Ligadatei hat {n}."), seen=Visibility.GM, n=n)
            return None
        if not 2 <= n <= 6:
            return verdict("players", N_("RONDO braucht 2 bis 6 Spieler (mehr in Teams: teams = true), die "
                                         "Ligadatei hat {n}."), seen=Visibility.GM, n=n)
        return None

    def standings_note(self, state: Mapping[str, Any], player: str, lang: str = "de") -> str:
        """The player's marks (strepen), shown after the points in STAND."""
        n = int((state.get("marks") or {}).get(player, 0))
        return texts.marks_note(lang, n)

    def lexicon_alphabets(self, options: Mapping[str, Any] | None = None) -> tuple[str, ...]:
        """The word lists of a league (RULES.md "RONDO, the original": Dutch by default,
        German on request; seed 004 "Nog vragen?": names and foreign words when agreed)."""
        options = options or {}
        dutch = str(options.get("dictionary", "nl")).lower() not in ("de", "deutsch", "duits", "german")
        main = ("nl-namen" if options.get("names") else "nl") if dutch else "rondo"
        if options.get("foreign_words"):
            return (main, "rondo" if dutch else "nl")
        return (main,)

    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None,
                   players: Sequence[str] = ()) -> dict:
        """Shuffle the 110 cards with the Partie's seeded generator and deal 7 to each side
        (seed 004 "Vorbereiding"); the opening round is open."""
        options = dict(options or {})
        players = list(players)
        if options.get("teams") and len(players) >= 4 and len(players) % 2 == 0:
            half = len(players) // 2
            sides = [[players[i], players[i + half]] for i in range(half)]
        else:
            sides = [[p] for p in players]
        deck = full_deck()
        _rng(seed, partie, "deck").shuffle(deck)
        hands = {}
        for side in sides:
            hands[side[0]] = sort_hand(deck[:HAND_SIZE])
            deck = deck[HAND_SIZE:]
        full_rounds = options.get("full_rounds")
        lang = str(options.get("language", "nl")).lower()
        return {"phase": "opening", "round": 1, "players": players, "sides": sides, "hands": hands,
                "deck": "".join(deck), "row": "." * 9, "order": [], "turn": 0,
                "marks": {p: 0 for p in players}, "scores": {p: 0 for p in players}, "opening": {},
                "opener": None, "full_rounds": int(full_rounds) if full_rounds else None,
                "beginners": bool(options.get("beginners", False)), "language": "de" if lang == "de" else "nl",
                "dictionary": "de" if self.lexicon_alphabets(options)[0] == "rondo" else "nl",
                "teams": len(sides) < len(players), "last": None, "finished": False, "history": []}

    def read_move(self, text: str) -> Line:
        """One line of a turn (:func:`bot.games.rondonl.notation.parse_line`); NotationError."""
        return parse_line(text)

    def merge_move(self, earlier: Sequence[str], later: Sequence[str]) -> list[str]:
        """A turn has two parts (seed 004 "Ruilactie"): the exchanges (``RUIL``/``TAUSCH``
        lines) and the word (the word lines with their Reserve words, ``PAS``, ``BLIND``).
        A later mail replaces the parts it contains and keeps the earlier mail's other
        part: "RUIL E" after a mail with a word adds the exchange to that word. The merged
        turn lists the exchanges first, as they happen (before the word, whatever the
        order of the lines); a later mail with both parts is kept as written."""
        old, new = turn_lines(earlier) or [], turn_lines(later) or []
        if not old or not new:
            return list(later)
        old_x, old_w = split_turn(old)
        new_x, new_w = split_turn(new)
        if (new_x or not old_x) and (new_w or not old_w):
            return list(later)
        return ["\n".join((new_x or old_x) + (new_w or old_w))]

    # -- turns -------------------------------------------------------------------------
    def movers(self, state: Mapping[str, Any]) -> list[str] | None:
        """Everyone in the opening; afterwards the one player whose turn it is."""
        if state.get("finished"):
            return []
        if state.get("phase") == "opening":
            return list(state["players"])
        m = mover(state)
        return [m] if m else []

    def round_complete(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                       lexicon: Any, *, received: Mapping[str, datetime] | None = None) -> bool:
        """The opening ends when every player's valid opening word is in; a turn as soon as
        the player's turn is complete: a valid word, PASSE, or an exchange (which cannot be
        taken back, so a second mail could otherwise probe the deck)."""
        if state.get("finished"):
            return False
        if state.get("phase") == "opening":
            return all(judge_opening(state["hands"][side_of(state, p)], turn_lines(submissions.get(p)), lexicon).value
                       is not None for p in state["players"] if p in submissions)
        m = mover(state)
        lines = turn_lines(submissions.get(m)) if m else None
        if not lines:
            return False
        return self._judge(state, m, lines, lexicon, commit=False).complete  # type: ignore[arg-type]

    def _judge(self, state: Mapping[str, Any], player: str, lines: list[str] | None, lexicon: Any, *,
               commit: bool = True) -> Turn:
        side = side_of(state, player)
        return judge_turn(Row.from_code(state["row"]), state["hands"][side], state["deck"], lines, lexicon,
                          beginners=bool(state.get("beginners")), commit=commit)

    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0, *,
                   player: str | None = None) -> MoveReport:
        """Judge a mailed turn (all its lines, ``multiline``) against the sender's hand,
        without drawing: the acknowledgement. ``detail["picture"]`` lists each line's
        verdict and the hand (verdicts for the mover alone, rendered in their language)."""
        lines = turn_lines([text]) or []
        if player is None or side_of(state, player) is None:
            return MoveReport(index, text, False, reason="player", verdict=texts.not_player())
        hand = state["hands"][side_of(state, player)]
        if state.get("phase") == "opening":
            op = judge_opening(hand, lines, lexicon)
            picture = [texts.picture_line(r) for r in op.lines] + [texts.hand(pretty_hand(hand))]
            if op.value is None:
                return MoveReport(index, text, False, reason=first_reason(op.lines),
                                  verdict=texts.opening_none(), detail={"picture": picture})
            return MoveReport(index, text, True, score=op.value,
                              verdict=texts.opening_word(op.word or "", op.value),
                              detail={"picture": picture, "word": op.word, "value": op.value,
                                      "summary": texts.summary_opening(op.word or "", op.value)})
        turn = self._judge(state, player, lines, lexicon, commit=False)
        picture = [texts.picture_line(r) for r in turn.lines] + [texts.hand(pretty_hand(hand))]
        summary = None
        if turn.word is not None:
            msg = texts.turn_word(turn.word.word or "", turn.score)
            summary = texts.summary_word(turn.word.word or "", turn.score)
        elif turn.passed:
            msg = summary = texts.turn_pass()
        elif turn.exchanged and any(r.reason == "pending" for r in turn.lines):
            pending = next(r for r in turn.lines if r.reason == "pending")
            msg = summary = texts.exchange_pending(len(turn.exchanged),
                                                   getattr(pending.outcome, "word", None) or pending.text.upper())
        elif turn.exchanged:
            msg = summary = texts.exchange_only(len(turn.exchanged))
        else:
            msg = texts.turn_invalid()
        return MoveReport(index, text, turn.complete, score=turn.score if turn.complete else None,
                          bonus=turn.word.bonus if turn.word else None,
                          reason=None if turn.complete else first_reason(turn.lines), verdict=msg,
                          detail={"picture": picture, "complete": turn.complete, "summary": summary,
                                  "word": turn.word.word if turn.word else None})

    # -- adjudication --------------------------------------------------------------------
    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, datetime] | None = None) -> RoundReport:
        """The opening (who begins) or one turn (seed 004 "Het spelverloop"); see the
        module docstring. ``last_round`` ends the Partie after this round."""
        if state.get("phase") == "opening":
            return self._adjudicate_opening(state, submissions, lexicon, seed=seed, partie=partie,
                                            last_round=last_round)
        return self._adjudicate_turn(state, submissions, lexicon, seed=seed, partie=partie, last_round=last_round)

    def _adjudicate_opening(self, state, submissions, lexicon, *, seed, partie, last_round) -> RoundReport:
        rnd = int(state["round"])
        players: list[PlayerRound] = []
        found: dict[str, Opening] = {}
        for p in state["players"]:
            if p not in submissions:
                continue
            lines = turn_lines(submissions[p])
            op = judge_opening(state["hands"][side_of(state, p)], lines, lexicon)
            found[p] = op
            players.append(PlayerRound(p, lines is not None, move_reports(op.lines, op.counted), op.counted, 0,
                                       score=op.value or 0,
                                       private={"opening": op.word, "value": op.value}))
        valued = {p: op.value for p, op in found.items() if op.value is not None}
        pool = [p for p in state["players"] if p in submissions] or list(state["players"])
        lot = None
        if valued:
            top = max(valued.values())
            tied = [p for p in state["players"] if valued.get(p) == top]
        else:
            tied = pool
        opener = tied[0]
        if len(tied) > 1:
            opener = _rng(seed, partie, rnd, "lot").choice(tied)
            lot = {"candidates": tied, "chosen": opener}
        seats = list(state["players"])
        k = seats.index(opener)
        order = seats[k:] + seats[:k]
        after: dict[str, Any] = dict(state)
        after.update(phase="play", round=rnd + 1, order=order, turn=0, opener=opener,
                     opening={p: {"word": op.word, "value": op.value} for p, op in found.items()})
        after["last"] = {"kind": "opening", "opener": opener}
        after["history"] = list(state.get("history", [])) + [
            {"round": rnd, "kind": "opening", "opener": opener,
             "words": {p: op.word for p, op in found.items()}}]
        if last_round:
            after["finished"] = True
        board = {"kind": "opening", "opener": opener, "value": valued.get(opener),
                 "word": found[opener].word if opener in found else None}
        return RoundReport(round=rnd, players=players, board_move=board, top=None, state_before=dict(state),
                           state_after=after, lot=lot)

    def _adjudicate_turn(self, state, submissions, lexicon, *, seed, partie, last_round) -> RoundReport:
        rnd = int(state["round"])
        m = mover(state)
        after: dict[str, Any] = dict(state)
        after["hands"] = dict(state["hands"])
        after["marks"] = dict(state["marks"])
        after["scores"] = dict(state["scores"])
        players: list[PlayerRound] = []
        board = None
        if m is None or m not in submissions:
            # the player whose turn it was has left the league: the turn is skipped
            after["last"] = {"kind": "skipped", "player": m}
        else:
            side = side_of(state, m)
            hand_before = state["hands"][side]
            lines = turn_lines(submissions[m])
            best = best_word(Row.from_code(state["row"]), hand_before, lexicon,
                             beginners=bool(state.get("beginners")))
            turn = self._judge(state, m, lines, lexicon)
            after["hands"][side] = turn.hand
            after["deck"] = turn.deck
            after["row"] = turn.row.code
            for p in partners(state, m):
                after["scores"][p] = int(state["scores"].get(p, 0)) + turn.score
                if turn.mark:
                    after["marks"][p] = int(state["marks"].get(p, 0)) + 1
            reports = move_reports(turn.lines, turn.counted)
            private = {"hand_before": hand_before, "hand": turn.hand, "hand_pretty": pretty_hand(turn.hand),
                       "exchanged": turn.exchanged, "exchange_drawn": turn.exchange_drawn, "drawn": turn.drawn,
                       "used": turn.used, "facedown": turn.facedown, "best": best}
            players.append(PlayerRound(m, lines is not None, reports, turn.counted, turn.score, score=turn.score,
                                       private=private))
            for p in partners(state, m):  # the partner shares the score (only movers are in submissions)
                if p != m:
                    players.append(PlayerRound(p, False, [], None, turn.score, score=turn.score,
                                               private={"hand": turn.hand, "hand_pretty": pretty_hand(turn.hand),
                                                        "partner_turn": True}))
            kind = "word" if turn.word else ("pass" if turn.passed else ("nmr" if lines is None else "none"))
            after["last"] = {"kind": kind, "player": m, "score": turn.score, "exchanges": len(turn.exchanged),
                             "word": turn.word.word if turn.word else None, "row": turn.row.code,
                             "facedown": bool(turn.facedown), "mark": turn.mark}
            if turn.word is not None:
                board = {"players": [m], "word": turn.word.word, "score": turn.word.score, "row": turn.row.code,
                         "notation": turn.word.notation(), "pretty": turn.row.pretty(),
                         "exchanges": len(turn.exchanged), "turn_score": turn.score}
        after["turn"] = int(state["turn"]) + 1
        after["round"] = rnd + 1
        after["history"] = list(state.get("history", [])) + [dict(after["last"], round=rnd)]
        n = len(after["order"])
        full_round_done = after["turn"] % n == 0
        rounds_over = after["full_rounds"] is not None and after["turn"] >= after["full_rounds"] * n
        deck_over = not after["deck"] and full_round_done
        if last_round or rounds_over or deck_over:
            after["finished"] = True
            after["round"] = rnd
        return RoundReport(round=rnd, players=players, board_move=board, top=None, state_before=dict(state),
                           state_after=after, lot=None)

    # -- views ---------------------------------------------------------------------------
    def demo_player(self, view: Mapping[str, Any], rng: Any, *, lexicon: Any = None,
                    style: str = "stark") -> list[Any] | None:
        """The demo's simulated player (:func:`bot.games.rondonl.demo.play`); see
        :meth:`GameRules.demo_player <bot.games.base.GameRules.demo_player>`."""
        from bot.games.rondonl.demo import play  # deferred on purpose: the demo player loads only for the demo
        return play(view, rng, lexicon, style)

    def public_view(self, state: Mapping[str, Any]) -> dict:
        """Row, turn, seat order, hand sizes, marks, scores, deck size: never a hand."""
        row = Row.from_code(state["row"])
        cells = []
        for i, c in enumerate(row.cards, start=1):
            if c is None:
                cells.append({"field": i, "kind": "empty", "text": "", "value": None})
            else:
                cells.append({"field": i, "kind": c.kind, "value": c.value,
                              "text": "/" if c.kind == "loescher" else (c.letter if c.kind == "letter" else c.letter.lower() + "*")})
        hand_sizes = {p: len(state["hands"][side_of(state, p)]) for p in state["players"]}
        n = len(state["order"]) or len(state["players"])
        return {"phase": state["phase"], "round": state["round"], "turn": state["turn"],
                "full_round": state["turn"] // n + 1 if state["phase"] == "play" else 0,
                "full_rounds": state.get("full_rounds"), "row": state["row"], "cells": cells, "word": row.word,
                "row_pretty": row.pretty(), "seats": list(state["players"]), "order": list(state["order"]),
                "sides": [list(s) for s in state["sides"]], "teams": bool(state.get("teams")),
                "mover": mover(state), "opener": state.get("opener"), "hand_sizes": hand_sizes,
                "marks": dict(state["marks"]), "scores": dict(state["scores"]), "deck": len(state["deck"]),
                "opening": dict(state.get("opening") or {}), "last": state.get("last"),
                "beginners": bool(state.get("beginners")), "language": state.get("language", "nl"),
                "dictionary": state.get("dictionary", "nl"), "finished": bool(state.get("finished")),
                "vorgabe": ""}

    def player_view(self, state: Mapping[str, Any], player: str) -> dict:
        """The player's (their side's) hand, and whether it is their turn."""
        side = side_of(state, player)
        if side is None:
            return {}
        hand = state["hands"][side]
        return {"hand": hand, "hand_pretty": pretty_hand(hand), "your_turn": mover(state) == player
                or (state.get("phase") == "opening" and not state.get("finished")),
                "partners": [p for p in partners(state, player) if p != player]}

    def gm_picture(self, state: Mapping[str, Any], names: Mapping[str, str], *,
                   zat: str | None = None) -> list[Verdict]:
        """For the game master (verdicts rendered in the game master's language): the row,
        whose turn it is and the turn's ZAT, every hand, the marks and scores, the deck."""
        view = self.public_view(state)

        def gm(code: str, msgid: str, **params: Any) -> Verdict:
            return verdict(code, msgid, seen=Visibility.GM, **params)

        empty = gm("empty", N_("leer"))
        if view["finished"]:
            turn = gm("turn", N_("beendet"))
        elif view["phase"] == "opening":
            turn = gm("turn", N_("Eröffnung: alle bis {zat}"), zat=zat or "-")
        else:
            turn = gm("turn", N_("am Zug: {name} bis {zat}"), name=names.get(view["mover"], view["mover"]),
                      zat=zat or "-")
        order = view["order"] or view["seats"]
        lines = [gm("gm_row", N_("Auslage {row} ({word}), {turn}"), row=view["row_pretty"] or empty,
                    word=view["word"] or empty, turn=turn),
                 gm("gm_deck", N_("Stapel: {n} Karten"), n=view["deck"]),
                 gm("gm_order", N_("Reihenfolge: {order}"),
                    order=[f"{i}. {names.get(p, p)}" for i, p in enumerate(order, 1)])]
        for p in view["seats"]:
            side = side_of(state, p)
            hand = state["hands"][side] if side is not None else ""
            lines.append(gm("gm_hand", N_("Hand {name}: {hand}; {marks} Striche, {points} Punkte"),
                            name=names.get(p, p), hand=pretty_hand(hand) or empty, marks=view["marks"].get(p, 0),
                            points=view["scores"].get(p, 0)))
        return lines

    # -- conformance cases ---------------------------------------------------------------------
    def run_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """What the rules make of a case of tests/cases/rondonl*.json (README there)."""
        lines = case["move"] if isinstance(case["move"], list) else str(case["move"]).split("\n")
        if case.get("kind") == "opening":
            op = judge_opening(case["hand"], lines, lexicon)
            if op.value is None:
                return {"valid": False, "reason": first_reason(op.lines)}
            return {"valid": True, "value": op.value, "word": op.word}
        turn = judge_turn(Row.from_code(case.get("row", "." * 9)), case["hand"], case.get("deck", ""), lines,
                          lexicon, beginners=bool(case.get("beginners")))
        got: dict[str, Any] = {"valid": turn.word is not None, "score": turn.score, "mark": turn.mark,
                               "hand": turn.hand, "deck": turn.deck, "exchanged": turn.exchanged,
                               "passed": turn.passed}
        if turn.word is not None:
            got.update(bonus=turn.word.bonus, row=turn.row.code, word=turn.word.word, used=turn.used)
        else:
            got["reason"] = first_reason(turn.lines)
        return got

    def top_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        best = best_word(Row.from_code(case.get("row", "." * 9)), case["hand"], lexicon,
                         beginners=bool(case.get("beginners")))
        if best is None:
            return {"move": None, "score": None}
        return {"move": best["notation"], "score": best["score"], "row": best["row"]}

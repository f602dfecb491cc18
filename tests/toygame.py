"""A tiny game for testing the service's generic mechanisms (private views, turns, early
round end, multi-line moves, Partien one after another) without any real game's rules.

"Zahlen": every player holds three private numbers 1-9 (their hand). In each round it is
one player's turn (seat order); they mail one number from their hand, which scores its
value, leaves the hand and is shown to all. A Partie ends after ``options["turns"]``
(default 4) rounds. The round ends as soon as the player whose turn it is has sent a valid
number. In the multi-line variant (``ToyLines``) a move is several lines of numbers, all
of which are played.
"""

from __future__ import annotations

import random

from bot.games.base import GameRules, MoveReport, NotationError, PlayerRound, RoundReport


class ToyRules(GameRules):
    name = "toy"
    alphabet = "rondo"
    # capability flags (bot.games.base.CAPABILITIES)
    multiline = False
    merges_moves = False
    private_state = False  # the hands are private, but every verdict is the mover's own
    player_views = True  # the hand
    closes_early = True  # the mover's valid number ends the round
    notes_closed_round = False
    turn_rounds = False
    reads_parsed_move = False
    title = "Zahlen"
    min_players = 2
    max_players = 3
    turn_hours = 24
    default_rounds = None

    def new_partie(self, *, seed, partie, options=None, players=()):
        rng = random.Random(f"{seed}/{partie}")
        hands = {k: "".join(str(rng.randint(1, 9)) for _ in range(3)) for k in players}
        return {"round": 1, "seats": list(players), "hands": hands, "table": "",
                "turns": int((options or {}).get("turns", 4)), "finished": False}

    def read_move(self, text):
        t = text.strip()
        if not t.isdigit():
            raise NotationError(f"'{text}' ist keine Zahl.", text)
        return t

    def _check(self, state, text, player):
        try:
            digits = "".join(self.read_move(line) for line in text.splitlines())
        except NotationError as exc:
            return None, exc.message
        hand = list(state["hands"].get(player, ""))
        for d in digits:
            if d not in hand:
                return None, f"{d} hast du nicht auf der Hand."
            hand.remove(d)
        return digits, "".join(hand)

    def check_line(self, state, text, lexicon, index=0, *, player=None):
        digits, rest = self._check(state, text, player)
        if digits is None:
            return MoveReport(index, text, False, reason="syntax", message=rest)
        score = sum(map(int, digits))
        return MoveReport(index, text, True, score=score, message=f"{score} Punkte",
                          detail={"word": digits, "picture": [f"Hand danach: {rest or '-'}"]})

    def movers(self, state):
        return [state["seats"][(state["round"] - 1) % len(state["seats"])]]

    def round_complete(self, state, submissions, lexicon, *, received=None):
        return any(lines and self._check(state, lines[0], p)[0] for p, lines in submissions.items())

    def adjudicate(self, state, submissions, lexicon, *, seed, partie, last_round=False, received=None):
        after = {**state, "hands": dict(state["hands"])}
        players = []
        for p, lines in submissions.items():
            if lines is None:
                players.append(PlayerRound(p, False, [], None, 0))
                continue
            reports = [self.check_line(state, t, lexicon, i, player=p) for i, t in enumerate(lines)]
            hit = next((r for r in reports if r.valid), None)
            if hit:
                digits, rest = self._check(state, hit.text, p)
                after["hands"][p] = rest
                after["table"] += digits
            players.append(PlayerRound(p, True, reports, hit.index if hit else None, hit.score if hit else 0,
                                       private={"received": received.get(p).isoformat() if received.get(p) else None}))
        after["round"] = state["round"] + 1
        after["finished"] = last_round or state["round"] >= state["turns"]
        return RoundReport(state["round"], players, None, None, dict(state), after)

    def public_view(self, state):
        return {"round": state["round"], "table": state["table"],
                "hand_sizes": {k: len(v) for k, v in state["hands"].items()}, "finished": state["finished"]}

    def player_view(self, state, player):
        return {"hand": state["hands"].get(player, "")}


class ToyLines(ToyRules):
    name = "toylines"
    multiline = True
    closes_early = False
    min_players = 1
    max_players = None
    turn_hours = None
    default_rounds = 3

    def movers(self, state):
        return None

    def round_complete(self, state, submissions, lexicon, *, received=None):
        return False

"""Typ-Dom Presto as a game of the bot: a race to the first finished crossword, by mail.

Sources: seed 002, "2. Presto", read with shared/RULES.md "Typ-Dom" (Presto by mail) and
shared/NOTATION.md "Typ-Dom"; the crossword is read and judged by :mod:`.presto`, the
existence search is :mod:`.search`. Tiles, deal and word rules are the Kreuzwort-Spiel's
(:mod:`.tiles`, :func:`.game.deal`, the ``typdom`` lexicon).

The state of a Partie is a JSON-compatible dict::

    {"variant": "presto", "round": 1, "racks": {player: "#ABEE..."}, "rack_size": [12, 7],
     "one_left": False, "players": [player, ...], "finished": False,
     "result": None | {"ranking", "verdicts", "closed", "proofs"}}

A Partie is one round: "Los!" is the start mail, "Fertig!" a player's mail with the
finished crossword, the ZAT the end of the time agreed.

Decisions where the texts leave it open (also in docs/rules/typdom-presto.md):

- Sets: 12 black + 7 red tiles each for 4 players, 10 + 6 for 5, 8 + 5 for 6 (seed), dealt
  from the shuffled black and red tiles as in the Kreuzwort-Spiel (the two Jollys are
  among them, each with its colour); the rest is not used ("Eventuelle Reststeine werden
  nicht verwendet"). 4 to 6 players ("besonders geeignet für 4 bis 6 Personen"). The sets
  differ (there is one Q, one X, ...), as at the table; they stay private until the
  Partie is over.
- A player's move is the whole crossword (the Partie section, ``multiline``); it is
  judged on arrival against their set, and the acknowledgement says at once whether it
  is valid, or names every problem (:func:`.presto.judge`), with the crossword as read.
  A player may resend until the Partie closes; the latest mail counts, with its own
  arrival time (RULES.md: a later mail replaces the earlier one), so a player whose
  crossword was valid sends nothing more.
- Ranking by the arrival time of the mail at the bot's server (its first ``Received``
  header, as for the ZAT): the first valid crossword scores 4, the second 2 (seed: "Der
  Sieger erhält vier Punkte gutgeschrieben, der Zweite noch zwei Punkte"). With the
  league option ``one_left = true`` a crossword with exactly one tile left is a valid
  finish too, for 2 and 1 points ("Er erhält dann aber nur zwei beziehungsweise als
  Zweiter einen Punkt"); the order is by arrival alone. Equal arrival times (a mail
  server stamps whole seconds) are decided by lot (the league seed).
- The Partie closes with the second valid crossword ("Wenn der zweite Spieler beendet
  hat, wird das Spiel abgebrochen"): the round ends early after the poll that read it
  (:meth:`PrestoRules.round_complete`), else at the ZAT. Valid crosswords that arrived
  after the second (read in the same poll) are shown, without points.
- The Auswertung shows every valid crossword as a grid with its arrival time, that the
  others were invalid (what was wrong only to their sender: an invalid crossword is not
  played, so nothing of it or of why it failed is public; issue 31), every set, and for
  each set the search's answer: a complete crossword, or that none exists, or that the
  search could not decide (:mod:`.search`).
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime
from typing import Any, Mapping, Sequence

from bot.games.base import GameRules, MoveReport, PlayerRound, RoundReport
from bot.games.demoplay import GERMAN_STYLES
from bot.games.typdom.deal import deal
from bot.games.typdom.presto import REASONS, Crossword, Judgement, judge, parse_line
from bot.games.verdict import N_, Verdict, Visibility, verdict
from bot.games.typdom.search import find_crossword
from bot.games.typdom.words import WORD_RULES
from bot.games.typdom.tiles import colour, rack_text, sort_rack

#: Sets (black, red) by number of players (seed 002, "2. Presto").
SETS = {4: (12, 7), 5: (10, 6), 6: (8, 5)}
#: Points of the first and second finisher, by finish: every tile used, or one left
#: (league option ``one_left``).
POINTS = {"alle": (4, 2), "einer": (2, 1)}
TITLE = N_("Typ-Dom Presto")


def _one_left(options: Mapping[str, Any] | None) -> bool:
    return bool((options or {}).get("one_left", False))


_PUBLIC = Visibility.PUBLIC
_GM = Visibility.GM


def _report(index: int, text: str, v: Judgement) -> MoveReport:
    """The move report of a judged crossword: an invalid one's problems for the mover
    alone (others see "ungültig", :meth:`GameRules.seen_by`), a valid one's summary for
    everybody (it is played: the Auswertung shows it and every set once the race is over)."""
    picture = v.crossword.picture() if v.crossword is not None else []
    if not v.valid:
        return MoveReport(index=index, text=text, valid=False, reason=v.reason, verdict=v.verdict,
                          detail={"picture": picture, "problems": [p.code for p in v.problems]})
    words = [w for w, _ in v.words]
    listed = verdict("words", N_("ein Wort: {words}") if len(words) == 1 else N_("{n} Wörter: {words}"),
                     seen=_PUBLIC, n=len(words), words=words)
    if v.finish == "alle":
        summary = verdict("finished", N_("Kreuzwort fertig, alle {tiles} Steine verbaut; {words}."),
                          seen=_PUBLIC, tiles=v.tiles, words=listed)
    else:
        summary = verdict("finished", N_("Kreuzwort fertig mit einem Stein Rest ({left}); {words}."),
                          seen=_PUBLIC, left=v.left.replace("?", "*").replace("#", "*"), words=listed)
    return MoveReport(index=index, text=text, valid=True, score=0, verdict=summary, public=summary,
                      detail={"picture": picture, "summary": summary, "finish": v.finish, "tiles": v.tiles,
                              "words": words, "rows": list(v.crossword.rows)})  # type: ignore[union-attr]


class PrestoRules(GameRules[str]):
    """Typ-Dom Presto (seed 002, "2. Presto"): every player races to a finished crossword
    with their own set; see the module docstring."""

    # capability flags (bot.games.base.CAPABILITIES): what the service may ask of this game
    multiline = True  # a finished crossword
    merges_moves = False
    private_state = True  # each player's set (docs/development/privacy.md)
    player_views = True
    closes_early = True  # the second valid crossword ends the race
    notes_closed_round = True  # a late crossword: the race is over
    turn_rounds = False
    demo_leagues = ({"name": "Demo-Presto", "partien": ["P1", "P2"], "sequential": True, "players": GERMAN_STYLES,
                     "eml": "presto-runde"},)
    reads_parsed_move = False

    name = "typdom-presto"
    alphabet = "typdom"
    #: The ``typdom`` word list's build layer (seed 002: verbs only in the infinitive, no
    #: family, company or brand names; :mod:`bot.games.typdom.words`).
    word_rules = WORD_RULES
    grammar = "typdom_presto.lark"
    title = TITLE
    min_players = 4
    max_players = 6
    default_rounds = None  # a Partie is one round; the league ends with its last Partie

    #: What others see instead of an invalid crossword (never shown: issue 31).
    hidden_move_text = N_("(nicht gezeigt)")

    def reason_gloss(self, reason: str | None) -> Verdict | str:
        """The public gloss of a reason code (:data:`.presto.REASONS`) as a verdict."""
        gloss = REASONS.get(reason or "")
        return verdict("gloss", gloss, seen=_PUBLIC) if gloss else ""

    def check_players(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> Verdict | None:
        """A verdict (code ``players``) unless 4 to 6 players play (seed: the sets by number
        of players, :data:`SETS`)."""
        n = len(players)
        if n not in SETS:
            return verdict("players", N_("{title} braucht 4 bis 6 Spieler, die Ligadatei hat {n}."), seen=_GM,
                           title=TITLE, n=n)
        return None

    # -- Partie -------------------------------------------------------------------------------
    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None,
                   players: Sequence[str] = ()) -> dict:
        """Deal every player's set (:data:`SETS`); options: ``one_left`` (bool)."""
        players = list(players)
        if len(players) not in SETS:
            raise ValueError(f"{TITLE} braucht 4 bis 6 Spieler")
        black, red = SETS[len(players)]
        racks, _rest = deal(seed, partie, players, black, red)
        return {"variant": "presto", "round": 1, "racks": racks, "rack_size": [black, red],
                "one_left": _one_left(options), "players": players, "finished": False, "result": None}

    def read_move(self, text: str) -> str:
        """One line of a crossword as board codes (grammar/typdom_presto.lark); raises
        NotationError."""
        return parse_line(text)

    def judge(self, state: Mapping[str, Any], text: str, lexicon: Any, player: str) -> Judgement:
        return judge(text, state["racks"].get(player, ""), lexicon, one_left=bool(state.get("one_left")))

    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0, *,
                   player: str | None = None) -> MoveReport:
        """Judge the crossword (the whole section) against the sender's set; the
        ``picture`` is the crossword as read, with coordinates, and the summary of a valid
        one says it counts from this mail's arrival."""
        rep = _report(index, text, self.judge(state, text, lexicon, player or ""))
        # the one rule of a resent crossword (the latest mail counts, with its own arrival
        # time; module docstring), said once: the acknowledgement leaves out its general
        # sentence on replacing when ``own_rule`` is set
        rep.detail["own_rule"] = True
        if rep.valid:
            rep.notes.append(verdict("arrival", N_("Es zählt die Ankunftszeit dieser Mail. Jede weitere Mail ersetzt "
                                                   "dein Kreuzwort samt seiner Ankunftszeit; schick darum nichts "
                                                   "mehr.")))
        else:
            rep.notes.append(verdict("resend", N_("Schick es verbessert noch einmal: es zählt die letzte Mail mit "
                                                  "ihrer Ankunftszeit.")))
        return rep

    def round_complete(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                       lexicon: Any, *, received: Mapping[str, datetime] | None = None) -> bool:
        """True once two valid crosswords are in (seed: "Wenn der zweite Spieler beendet
        hat, wird das Spiel abgebrochen")."""
        valid = sum(1 for p, lines in submissions.items()
                    if lines and self.judge(state, lines[0], lexicon, p).valid)
        return valid >= 2 or (valid > 0 and valid == len(submissions))

    def closed_note(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                    lexicon: Any, *, received: Mapping[str, datetime] | None = None,
                    names: Mapping[str, str] | None = None) -> Verdict | None:
        """Once two valid crosswords are in, the race is over (seed: "Wenn der zweite
        Spieler beendet hat, wird das Spiel abgebrochen"): a later crossword is told so and
        who finished, in order of arrival (verdict ``closed``, for the late sender; it names
        the two finishers, nothing of the late mail)."""
        received = received or {}
        done = [p for p, lines in submissions.items() if lines and self.judge(state, lines[0], lexicon, p).valid]
        if len(done) < 2:
            return None
        done.sort(key=lambda p: received[p].timestamp() if p in received else float("inf"))
        first, second = ((names or {}).get(p, p) for p in done[:2])
        return verdict("closed", N_("das Rennen ist vorbei: {first} und {second} haben vor deiner Mail ein gültiges "
                                    "Kreuzwort geschickt, damit ist die Partie entschieden. Deine Mail wurde nicht "
                                    "gewertet; die Auswertung kommt gleich."), first=first, second=second)

    # -- the race -----------------------------------------------------------------------------
    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, datetime] | None = None, search: bool = True) -> RoundReport:
        """Rank the valid crosswords by arrival, score the first two, search every set
        (``search=False`` skips the search, for tests of the ranking alone)."""
        received = received or {}
        lot = random.Random(f"{seed}/{partie}/presto")
        ties = {p: lot.random() for p in sorted(submissions)}
        verdicts: dict[str, dict] = {}
        reports: dict[str, MoveReport] = {}
        finishers = []
        for p, lines in submissions.items():
            if lines is None:
                verdicts[p] = {"kind": "nmr"}
                continue
            v = self.judge(state, lines[0], lexicon, p)
            reports[p] = _report(0, lines[0], v)
            at = received.get(p)
            if not v.valid:  # not played: only that it failed is public (issue 31)
                verdicts[p] = {"kind": "invalid"}
                continue
            verdicts[p] = {"kind": "valid", "finish": v.finish, "received": at.isoformat() if at else None,
                           "rows": list(v.crossword.rows), "left": v.left, "tiles": v.tiles,  # type: ignore[union-attr]
                           "words": [w for w, _ in v.words]}
            finishers.append(p)

        def arrival(p: str) -> float:
            return received[p].timestamp() if p in received else float("inf")
        finishers.sort(key=lambda p: (arrival(p), ties[p]))
        same = Counter(arrival(p) for p in finishers)
        tied = [p for p in finishers if same[arrival(p)] > 1]
        ranking = []
        points: dict[str, int] = {}
        for place, p in enumerate(finishers, start=1):
            v = verdicts[p]
            pts = POINTS[v["finish"]][place - 1] if place <= 2 else 0
            points[p] = pts
            v.update(place=place, points=pts)
            ranking.append({"player": p, "place": place, "points": pts, "finish": v["finish"],
                            "received": v["received"], "late": place > 2})
        closed = {"by": "second" if len(finishers) >= 2 else "zat",
                  "at": verdicts[finishers[1]]["received"] if len(finishers) >= 2 else None}
        proofs = {}
        if search:
            for p in state.get("players", list(state["racks"])):
                try:
                    proofs[p] = find_crossword(state["racks"][p], lexicon).to_json()
                except Exception as exc:  # the search must never stop an adjudication
                    proofs[p] = {"status": "error", "error": f"{type(exc).__name__}: {exc}", "rows": [], "words": []}
        result = {"ranking": ranking, "verdicts": verdicts, "closed": closed, "proofs": proofs, "lot": tied or None}
        players = []
        for p, lines in submissions.items():
            rep = reports.get(p)
            pts = points.get(p, 0)
            players.append(PlayerRound(p, lines is not None, [rep] if rep else [], 0 if rep and rep.valid else None,
                                       pts, score=pts, private={"rack": state["racks"].get(p, "")}))
        after = dict(state, finished=True, result=result)
        return RoundReport(round=int(state["round"]), players=players,
                           board_move={"ranking": ranking, "closed": closed, "finished": True}, top=None,
                           state_before=dict(state), state_after=after,
                           lot={"candidates": tied} if tied else None)

    # -- views ----------------------------------------------------------------------------------
    def demo_player(self, view: Mapping[str, Any], rng: Any, *, lexicon: Any = None,
                    style: str = "stark") -> list[Any] | None:
        """The demo's simulated player (:func:`bot.games.typdom.demo.play_presto`); see
        :meth:`GameRules.demo_player <bot.games.base.GameRules.demo_player>`."""
        from bot.games.typdom.demo import play_presto  # deferred on purpose: the move generators load only for the demo
        return play_presto(view, rng, lexicon, style)

    def public_view(self, state: Mapping[str, Any]) -> dict:
        """``variant`` ("presto"), ``round``, ``rack_size`` [black, red], ``one_left``,
        ``seat_order`` (the player keys, league order), ``finished``; once over also
        ``racks`` (every set, public at the end as at the table), ``result``
        (``ranking``: ``{player, place, points, finish, received, late}``; ``verdicts`` per
        player: ``{"kind": "valid", "finish", "received", "rows", "left", "tiles", "words",
        "place", "points"}``, ``{"kind": "invalid"}`` (nothing of an invalid crossword or why),
        ``{"kind": "nmr"}``; ``closed``: ``{"by": "second" | "zat", "at"}``; ``proofs``: the search's
        answer per set, see :mod:`.search`) and, for the templates, ``grids`` (per player
        with a crossword: its ``text`` and HTML ``cells``) and ``proof_grids`` (the same
        for each crossword found). Never a set while the race runs."""
        view: dict[str, Any] = {"variant": "presto", "variant_title": "Presto", "round": state["round"],
                                "rack_size": list(state.get("rack_size", [])), "one_left": bool(state.get("one_left")),
                                "seat_order": list(state.get("players", [])), "finished": bool(state.get("finished")),
                                "racks": None, "result": None, "grids": {}, "proof_grids": {}}
        if state.get("finished"):
            result = dict(state.get("result") or {})
            # a result stored before issue 31 kept an invalid crossword's rows and why: not public
            result["verdicts"] = {p: v if v.get("kind") != "invalid" else {"kind": "invalid"}
                                  for p, v in (result.get("verdicts") or {}).items()}
            view["racks"] = dict(state["racks"])
            view["rack_texts"] = {p: rack_text(r) for p, r in state["racks"].items()}
            view["result"] = result
            view["grids"] = {p: _grid(v["rows"]) for p, v in result.get("verdicts", {}).items() if v.get("rows")}
            view["proof_grids"] = {p: _grid(pr["rows"]) for p, pr in result.get("proofs", {}).items()
                                   if pr.get("rows")}
        return view

    def player_view(self, state: Mapping[str, Any], player: str) -> dict:
        """``rack`` (the player's set, code), ``rack_text`` (red and black apart), ``red``,
        ``black`` (tile lists), ``size`` (tiles)."""
        rack = state.get("racks", {}).get(player, "")
        return {"rack": rack, "rack_text": rack_text(rack), "size": len(rack),
                "red": [t for t in rack if colour(t) == "rot"], "black": [t for t in rack if colour(t) == "schwarz"]}

    def gm_picture(self, state: Mapping[str, Any], names: Mapping[str, str], *,
                   zat: str | None = None) -> list[Verdict | str]:
        """For the game master: the race (running until ``zat``, or its ranking) and
        every player's set (verdicts seen by the game master alone)."""
        view = self.public_view(state)
        if view["finished"]:
            lines: list[Verdict | str] = [verdict("race", N_("{title}, Rennen beendet"), seen=_GM, title=TITLE)]
        else:
            lines = [verdict("race", N_("{title}, Rennen läuft bis {zat}"), seen=_GM, title=TITLE, zat=zat or "-")]
        for r in ((view.get("result") or {}).get("ranking") or []):
            msgid = N_("{place}. {name}: {points} Punkte (zu spät)") if r.get("late") else \
                N_("{place}. {name}: {points} Punkte")
            lines.append(verdict("place", msgid, seen=_GM, place=r.get("place"),
                                 name=names.get(r["player"], r["player"]), points=r.get("points")))
        for p in view["seat_order"]:
            rack = state.get("racks", {}).get(p, "")
            lines.append(verdict("set", N_("Satz {name}: {rack}"), seen=_GM, name=names.get(p, p),
                                 rack=rack_text(rack) if rack else verdict("empty", N_("leer"), seen=_GM)))
        return lines

    # -- cases --------------------------------------------------------------------------------
    def run_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """A Presto case (tests/cases/README.md): ``kind`` ``"judge"`` (default: ``rack``,
        ``move`` as lines, ``one_left``) gives ``valid``, ``reason``, ``problems``,
        ``finish``, ``left``, ``words``; ``kind`` ``"search"`` (``rack``) gives ``status``
        and, when found, ``valid`` (the crossword judged by the rules)."""
        rack = sort_rack(case.get("rack", ""))
        if case.get("kind") == "search":
            proof = find_crossword(rack, lexicon, budget=int(case.get("budget", 4000)))
            got: dict[str, Any] = {"status": proof.status, "lonely": proof.lonely}
            if proof.rows:
                got["valid"] = judge(Crossword(tuple(proof.rows)), rack, lexicon).valid
            return got
        move = case["move"]
        text = "\n".join(move) if isinstance(move, list) else move
        v = judge(text, rack, lexicon, one_left=bool(case.get("one_left")))
        if not v.valid:
            return {"valid": False, "reason": v.reason, "problems": [p.code for p in v.problems]}
        return {"valid": True, "finish": v.finish, "left": v.left, "words": [w for w, _ in v.words],
                "tiles": v.tiles}

    def top_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """The search's crossword for the case's ``rack``: ``move`` (its lines) and
        ``score`` (tiles laid), or None when none was found."""
        proof = find_crossword(sort_rack(case.get("rack", "")), lexicon)
        if proof.status != "found":
            return {"move": None, "score": None, "status": proof.status}
        return {"move": proof.rows, "score": len(case.get("rack", "")), "status": proof.status}


def _grid(rows: Sequence[str]) -> dict:
    """Text and HTML cells of a crossword given as board-code rows (A1 top left)."""
    cw = Crossword(tuple(rows))
    table = cw.table()
    box = (1, cw.height, 1, cw.width)
    return {"text": table.grid_text(box), "cells": table.cells(box)}


__all__ = ["PrestoRules", "SETS", "POINTS"]

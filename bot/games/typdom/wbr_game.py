"""Typ-Dom "Wer behält recht?" as a game of the bot: one tile per turn, each turn with its
own ZAT.

Sources: seed 002, "4. Wer behält recht?", read with shared/RULES.md "Typ-Dom" and
shared/NOTATION.md "Typ-Dom"; the rules engine is :mod:`.wbr` (the course of a game, its
docstring holds the rules and the decisions), :mod:`.wbr_notation`, :mod:`.wbr_judge`
(the checks), :mod:`.wbr_outcome` and :mod:`.wbr_fit`. Tiles, deal, seat order and end scoring are the
Kreuzwort-Spiel's (:mod:`.tiles`, :mod:`.deal`, :mod:`.scoring`).

A round of the service is one turn: :meth:`WbrRules.movers` names the one player to
move, :meth:`WbrRules.round_complete` ends the turn as soon as that player's valid move
has been read, and every turn's Auswertung goes to all players at once (what was laid
and announced, whose turn is next and what they have to do, the ZAT). Each turn's ZAT
lies ``zat_interval_days`` days after the previous turn ended (:attr:`relative_zat`), or
``turn_hours`` hours with that league option.

Decisions for play by mail (also in
docs/rules/typdom-wbr.md): 2 to 5 players with 8 black + 5 red tiles each (the Kreuzwort-Spiel's
deal); the player whose highest letter is nearest Z begins, ties by lot, the others in
league-file order; a mover removed by the game master leaves the game without paying.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bot.games.base import GameRules, MoveReport, PlayerRound, RoundReport
from bot.games.demoplay import GERMAN_STYLES
from bot.games.verdict import NOT_TRIED, PUBLIC, N_, Verdict, Visibility, mover, verdict
from bot.games.typdom import wbr, wbr_fit, wbr_judge, wbr_notation, wbr_outcome
from bot.games.typdom.deal import deal, seat_order
from bot.games.typdom.table import COLUMNS, MARGIN, Table, coord_name, example as table_example
from bot.games.typdom.words import WORD_RULES
from bot.games.typdom.tiles import colour, rack_text, sort_rack

TITLE = N_("Typ-Dom: Wer behält recht?")
#: Tiles each (black, red): the Kreuzwort-Spiel's deal (seed: "Für die Verteilung der
#: Spielsteine ... gelten die Regeln des Kreuzwort-Spieles").
RACK = (8, 5)
PLAYERS = (2, 5)
#: Turns a game may last at most when the league file gives no ``rounds``.
TURNS = 1000


_GM = Visibility.GM


def _report(index: int, text: str, out: wbr_outcome.Outcome, table: Table) -> MoveReport:
    """The move report of a judged line: an invalid one's verdict for the mover alone
    (others see "ungültig", :meth:`GameRules.seen_by`); a valid one's summary for all,
    with the notes that name nothing of the rack (``public_notes``)."""
    if not out.valid:
        return MoveReport(index=index, text=text, valid=False, reason=out.reason, verdict=out.verdict,
                          notes=list(out.notes), public_notes=[])
    summary = out.summary()
    detail: dict[str, Any] = {"summary": summary, "notation": out.notation, "kind": out.kind}
    if out.tiles:
        after = table
        if out.take:
            after = after.replace(out.take["row"], out.take["col"], Table.TILE(out.take["letter"], False))
        after = after.place(out.tiles)
        detail["picture"] = after.grid_text(after.bounds(MARGIN)).splitlines()
    return MoveReport(index=index, text=text, valid=True, score=0, verdict=summary, notes=list(out.notes),
                      detail=detail, public=summary,
                      public_notes=[n for n in out.notes if n.visible(PUBLIC, None)])


def _span_squares(span: str) -> tuple[list[tuple[int, int]], str | None]:
    """Squares and direction of ``"M13-P13"`` (or one square, ``"M13"``), for case files."""

    def sq(t: str) -> tuple[int, int]:
        return int(t[1:]), COLUMNS.index(t[0].upper()) + 1
    a, _, b = span.partition("-")
    r0, c0 = sq(a)
    if not b:
        return [(r0, c0)], None
    r1, c1 = sq(b)
    if r0 == r1:
        return [(r0, c) for c in range(c0, c1 + 1)], "w"
    return [(r, c0) for r in range(r0, r1 + 1)], "s"


class WbrRules(GameRules[wbr_notation.WbrTurn]):
    """Typ-Dom "Wer behält recht?" (seed 002, section 4): see :mod:`.wbr`."""

    # capability flags (bot.games.base.CAPABILITIES): what the service may ask of this game
    multiline = False
    merges_moves = False
    private_state = True  # the racks (docs/development/privacy.md)
    player_views = True
    closes_early = True  # a valid turn by the mover ends the round
    notes_closed_round = False
    turn_rounds = True
    demo_leagues = ({"name": "Demo-WBR", "partien": ["W1"], "rounds": 40, "players": GERMAN_STYLES[:3],
                     "turn_hours": 24, "eml": "wbr-runde"},)
    reads_parsed_move = False

    name = "typdom-wbr"
    alphabet = "typdom"
    #: The ``typdom`` word list's build layer (seed 002: verbs only in the infinitive, no
    #: family, company or brand names; :mod:`bot.games.typdom.words`).
    word_rules = WORD_RULES
    grammar = "typdom_wbr.lark"
    one_square_letters = True
    title = TITLE
    min_players, max_players = PLAYERS
    default_rounds = None  # the game ends by itself; the league file's rounds caps the turns
    relative_zat = True
    #: each round is one player's turn: the mails name it "Zug" (docs TERMS, issue 32)
    public_round_keys = frozenset({"bystander"})  # a dropout's payment, shown to all
    #: What others see instead of a line that was not played (never shown: issue 31).
    hidden_move_text = N_("(nicht gezeigt)")

    def reason_gloss(self, reason: str | None) -> Verdict | str:
        """The public gloss of a reason code (:data:`.wbr_judge.REASONS`) as a verdict."""
        gloss = wbr_judge.REASONS.get(reason or "")
        return verdict("gloss", gloss, seen=Visibility.PUBLIC) if gloss else ""

    # -- Partie -------------------------------------------------------------------------------
    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None,
                   players: Sequence[str] = ()) -> dict:
        """Deal 8 black + 5 red tiles each, the rest into the pool; the seat with the letter
        nearest Z lays the first tile on M13. Option ``rounds``: the turn cap."""
        players = list(players)
        if not PLAYERS[0] <= len(players) <= PLAYERS[1]:
            raise ValueError(f"{TITLE} braucht 2 bis 5 Spieler")
        racks, pool = deal(seed, partie, players, *RACK)
        order, start = seat_order(seed, partie, players, racks)
        rounds = int((options or {}).get("rounds") or TURNS)
        return wbr.new_state(racks=racks, pool=pool, seat_order=order, start=start, rounds=min(rounds, 10_000))

    def read_move(self, text: str) -> wbr_notation.WbrTurn:
        """Parse one turn line (grammar/typdom_wbr.lark); raises NotationError."""
        return wbr_notation.parse_turn(text)

    def movers(self, state: Mapping[str, Any]) -> list[str] | None:
        """The one player whose turn it is (none once the game is over)."""
        return [] if state.get("finished") else [state["mover"]]

    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0, *,
                   player: str | None = None) -> MoveReport:
        """Judge one line of the player to move against the table as it is (only they
        can change it before their ZAT); the picture is the table with the tiles laid."""
        out = wbr_judge.evaluate(state, player or state["mover"], text, lexicon)
        return _report(index, text, out, Table.from_rows(state["board"]))

    def round_complete(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                       lexicon: Any, *, received: Mapping[str, Any] | None = None) -> bool:
        """True as soon as the player to move has sent a valid line."""
        mover = state.get("mover")
        lines = submissions.get(mover) if mover else None
        return bool(lines) and any(wbr_judge.evaluate(state, mover, ln, lexicon).valid for ln in lines)

    # -- a turn -------------------------------------------------------------------------------
    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, Any] | None = None) -> RoundReport:
        """Play the mover's first valid line (else: buy and be skipped, see :mod:`.wbr`)."""
        mover = state["mover"]
        table = Table.from_rows(state["board"])
        rack_before = state["racks"].get(mover, "")
        reports: list[MoveReport] = []
        counted = None
        if mover not in submissions:  # removed by the game master: out of the game, no payment
            after, rec = wbr.leave(state, mover, lexicon)
        else:
            lines = submissions[mover]
            hit = None
            for i, line in enumerate(lines or []):
                out = wbr_judge.evaluate(state, mover, line, lexicon)
                reports.append(_report(i, line, out, table))
                if out.valid:
                    hit = (i, out)
                    break
            for j in range(len(reports), len(lines or [])):
                reports.append(MoveReport(index=j, text=(lines or [])[j], valid=False, reason=None,
                                          verdict=NOT_TRIED, public=NOT_TRIED))
            # public: only that a line failed, nothing of its text or why (issue 31)
            failed = [{"index": r.index} for r in reports if not r.valid and r.reason]
            if hit is not None:
                after, rec = wbr.apply(state, mover, hit[1], lexicon)
                rec["failed"] = failed
                counted = hit[0]
            else:
                after, rec = wbr.skip(state, mover, lexicon, kind="nmr" if lines is None else "invalid",
                                      failed=failed)
        if not after["finished"] and (last_round or int(state["round"]) >= int(state.get("rounds", TURNS))):
            after = wbr.finish_over_limit(after)
            rec = after["history"][-1]
        points = _points(rec, after)
        players = []
        if mover in submissions:
            players.append(PlayerRound(mover, submissions[mover] is not None, reports, counted, points.get(mover, 0),
                                       score=0, private={"rack": after["racks"].get(mover, ""),
                                                         "rack_before": rack_before,
                                                         "bought": after.get("bought", "") if rec.get("bought")
                                                         else ""}))
        for p in after["seat_order"]:
            if p != mover and p in points:  # paid or paying without moving: a dropout, the end
                players.append(PlayerRound(p, False, [], None, points[p], score=0,
                                           private={"rack": after["racks"].get(p, ""), "bystander": True}))
        return RoundReport(round=int(state["round"]), players=players,
                           board_move={"turn": rec, "finished": after["finished"]}, top=None,
                           state_before=dict(state), state_after=after,
                           lot=state.get("start", {}).get("lot") if int(state["round"]) == 1 else None)

    # -- views ----------------------------------------------------------------------------------
    def demo_player(self, view: Mapping[str, Any], rng: Any, *, lexicon: Any = None,
                    style: str = "stark") -> list[Any] | None:
        """The demo's simulated player (:func:`bot.games.typdom.wbr_demo.play_wbr`); see
        :meth:`GameRules.demo_player <bot.games.base.GameRules.demo_player>`."""
        from bot.games.typdom.wbr_demo import play_wbr  # deferred on purpose: the generators load only for the demo
        return play_wbr(view, rng, lexicon, style)

    def public_view(self, state: Mapping[str, Any]) -> dict:
        """``variant`` ("wbr"), ``round`` (the turn), ``board`` (25 row codes),
        ``seat_order``, ``active`` (players still in), ``out`` (dropped out),
        ``rack_sizes``, ``pool`` (tiles left), ``start``, ``mover`` and ``duty`` (who is
        to move and what they have to do: ``start``, ``continue``, ``complete``,
        ``after_buy``; ``duty_text`` its German msgid, :data:`.wbr.DUTIES`, for ``_()``),
        ``word`` (the word being built: ``announced``, ``author``, ``fragment`` letters,
        ``span``; None between words),
        ``cross`` (the word a new one must cross), ``words_done``, ``last_turn`` (the
        last turn's record: ``summary`` a verdict's JSON, ``failed`` only the indexes of
        the lines that failed), ``finished``, ``end`` (the end scoring with every rack left,
        once over), ``payments`` (dropouts); for the templates ``grid_text`` and ``cells``.
        Never a rack of a running game."""
        table = Table.from_rows(state["board"])
        word = state.get("word")
        hist = state.get("history", [])
        shown_word = None
        if word:
            squares = wbr_fit.squares_of(word["squares"])
            shown_word = {"announced": word["announced"], "author": word["author"],
                          "fragment": wbr_fit.letters_on(table, squares), "span": wbr_fit.span_of(squares)}
        cross = state.get("cross")
        return {"variant": "wbr", "variant_title": N_("Wer behält recht?"), "round": state["round"],
                "turn": int(hist[-1]["turn"]) if hist else 0,
                "rounds": state.get("rounds"), "board": list(state["board"]),
                "seat_order": list(state["seat_order"]), "active": list(state["active"]),
                "out": list(state.get("out", [])), "rack_sizes": {p: len(r) for p, r in state["racks"].items()},
                "pool": len(state.get("pool", "")), "start": state.get("start"),
                "mover": None if state.get("finished") else state["mover"],
                "duty": None if state.get("finished") else state["duty"],
                "duty_text": None if state.get("finished") else (
                    wbr.FIRST_DUTY if table.is_empty() else wbr.DUTIES[state["duty"]]),
                "word": shown_word,
                "cross": {"word": cross.get("word"),
                          "span": wbr_fit.span_of(wbr_fit.squares_of(cross["squares"]))} if cross else None,
                "words_done": [w["word"] for w in state.get("words_done", []) if not w.get("abandoned")],
                "last_turn": public_record(hist[-1]) if hist else None, "finished": bool(state.get("finished")),
                "end": state.get("end") if state.get("finished") else None,
                "payments": list(state.get("payments", [])),
                "grid_text": table.grid_text(table.bounds(MARGIN)), "cells": table.cells(),
                "example": self.example_move(state)}

    def example_move(self, state: Mapping[str, Any]) -> dict | None:  # type: ignore[override]
        """Notation data of an example turn that fits the table of ``state`` (issue 32):
        ``{"coord": "A1", "letter": "H", "word": "HAUS", "empty": False}`` (``A1 H HAUS``:
        lay H on A1, announce HAUS) on a free square that touches no tile, away from the
        word being built (on an empty table: M13), with a word whose tiles still exist:
        it names no occupied square and is no move worth playing. None when the table
        leaves no room. Source: seed 002, section 4; :func:`.table.example`."""
        ex = table_example(Table.from_rows(state["board"]))
        return dict(ex, letter=ex["word"][0]) if ex else None

    def out_note(self, state: Mapping[str, Any], player: str) -> Verdict | None:
        """For a player who is out of the Partie (seed 002, section 4: who cannot lay the
        missing tiles of their own word drops out and pays; or removed by the game master):
        since which turn and why, as a verdict to them (code ``out``); None while in."""
        if player not in state.get("out", []):
            return None
        pay = next((p for p in state.get("payments", []) if p.get("from") == player), None)
        if pay is None:
            return verdict("out", N_("du bist nicht mehr in dieser Partie (der Spielleiter hat dich aus der Liga "
                                     "genommen); deine Mail wurde nicht gespeichert."), seen=Visibility.MOVER)
        return verdict("out", N_("du bist seit Zug {turn} aus dieser Partie ausgeschieden: dir fehlte ein Stein, um "
                                 "dein angesagtes Wort {word} fertig zu legen, und du hast jedem Mitspieler {each} "
                                 "Punkte gezahlt. Du schickst keine Züge mehr; deine Mail wurde nicht gespeichert."),
                       seen=Visibility.MOVER, turn=mover(int(pay["turn"])), word=mover(str(pay.get("word", "?"))),
                       each=mover(int(pay["each"])))

    def player_view(self, state: Mapping[str, Any], player: str) -> dict:
        """``rack`` (code), ``rack_text``, ``red``, ``black``, ``seat`` (1-based), ``out``
        (dropped out)."""
        rack = state.get("racks", {}).get(player, "")
        order = list(state.get("seat_order", []))
        return {"rack": rack, "rack_text": rack_text(rack),
                "seat": order.index(player) + 1 if player in order else None,
                "out": player in state.get("out", []),
                "red": [t for t in rack if colour(t) == "rot"], "black": [t for t in rack if colour(t) == "schwarz"]}

    def gm_picture(self, state: Mapping[str, Any], names: Mapping[str, str], *,
                   zat: str | None = None) -> list[Verdict | str]:
        """For the game master: the table as the Auswertung draws it, the word being
        built, whose turn it is and the turn's ZAT, the seat order, every rack, the pool
        (verdicts seen by the game master alone; the table's rows as they are)."""
        view = self.public_view(state)
        pool = state.get("pool", "")
        word = view.get("word")
        empty = verdict("empty", N_("leer"), seen=_GM)

        def say(code: str, msgid: str, **params: Any) -> Verdict:
            return verdict(code, msgid, seen=_GM, **params)
        if view["finished"]:
            head = say("turn", N_("{title}, Zug {turn}, beendet"), title=TITLE, turn=view["round"])
        else:
            head = say("turn", N_("{title}, Zug {turn}, am Zug: {name} bis {zat} ({duty})"), title=TITLE,
                       turn=view["round"], name=names.get(view["mover"], view["mover"]), zat=zat or "-",
                       duty=say("duty", view["duty_text"]))
        lines: list[Verdict | str] = [head]
        if word:
            lines.append(say("word", N_("Wort im Bau: {part} ({span}), angesagt {word} von {name}"),
                             part=word["fragment"], span=word["span"], word=word["announced"],
                             name=names.get(word["author"], word["author"])))
        else:
            lines.append(say("word", N_("Kein Wort im Bau")))
        lines.append(say("pool", N_("Vorrat: {n} Steine ({tiles})"), n=len(pool),
                         tiles=rack_text(sort_rack(pool)) if pool else empty))
        lines += view["grid_text"].splitlines()
        seats = [say("seat", N_("{i}. {name} (ausgeschieden)") if p in view["out"] else N_("{i}. {name}"), i=i,
                     name=names.get(p, p)) for i, p in enumerate(view["seat_order"], 1)]
        lines.append(say("seats", N_("Sitzreihenfolge: {seats}"), seats=seats))
        for p in view["seat_order"]:
            rack = state["racks"].get(p, "")
            lines.append(say("rack", N_("Bank {name}: {rack}"), name=names.get(p, p),
                             rack=rack_text(rack) if rack else empty))
        return lines

    # -- cases ------------------------------------------------------------------------------------
    def case_state(self, case: Mapping[str, Any]) -> dict:
        """The state of a case (tests/cases/README.md, "Typ-Dom: Wer behält recht?"): the
        mover is ``"A"``, the other player ``"B"``."""
        duty = case.get("duty", "continue")
        word = None
        if case.get("word"):
            w = case["word"]
            squares, d = _span_squares(w["span"])
            word = {"announced": w["announced"], "author": "A" if w.get("author") == "self" else "B",
                    "squares": [list(q) for q in squares], "direction": d, "since": 1}
        cross = None
        if case.get("cross"):
            squares, d = _span_squares(case["cross"]["span"])
            cross = {"word": case["cross"].get("word"), "squares": [list(q) for q in squares], "direction": d}
        st = wbr.new_state(racks={"A": sort_rack(case.get("rack", "")), "B": sort_rack(case.get("rack_b", "E"))},
                           pool=case.get("pool", "ENST"), seat_order=["A", "B"], start={}, rounds=TURNS)
        base = case.get("base_duty")
        st.update(board=list(case["board"]), duty=duty, base_duty=base, word=word, cross=cross)
        return st

    def run_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """What the rules make of a case: ``valid``, ``reason``; for a valid turn
        ``kind``, ``tiles`` (``"M13 E"`` each, ``*`` for a Jolly), ``announced``, ``new``,
        ``premium``, ``completed``, ``fragment`` (letters), ``rack`` (after)."""
        st = self.case_state(case)
        out = wbr_judge.evaluate(st, "A", case["move"], lexicon)
        if not out.valid:
            return {"valid": False, "reason": out.reason}
        table = Table.from_rows(st["board"])
        if out.take:
            table = table.replace(out.take["row"], out.take["col"], Table.TILE(out.take["letter"], False))
        after = table.place(out.tiles)
        return {"valid": True, "kind": out.kind,
                "tiles": [f"{coord_name(t.row, t.col)} {'*' if t.blank else ''}{t.letter}" for t in out.tiles],
                "announced": out.announced, "new": out.new, "premium": out.premium, "completed": out.completed,
                "fragment": wbr_fit.letters_on(after, out.fragment) if out.fragment else "", "rack": out.rack_after}


def public_record(rec: Mapping[str, Any]) -> dict:
    """A turn record as every player may see it: a record stored before issue 31 loses the
    text, reason, gloss and message of its failed lines (only their indexes stay) and the
    tiles a purchase drew (only how many stay)."""
    out = {k: v for k, v in rec.items() if k != "bought_tiles"}
    out["failed"] = [{"index": f.get("index")} for f in rec.get("failed") or []]
    return out


def _points(rec: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, int]:
    """The standings change of this turn: dropout payments and, at the end, the end
    scoring (zero-sum)."""
    pts: dict[str, int] = {}
    for d in rec.get("dropouts", []):
        pts[d["player"]] = pts.get(d["player"], 0) - d["pays"] * len(d["to"])
        for q in d["to"]:
            pts[q] = pts.get(q, 0) + d["pays"]
    if after.get("finished") and after.get("end"):
        for p, e in after["end"]["scores"].items():
            pts[p] = pts.get(p, 0) + e["points"]
    return pts


__all__ = ["WbrRules", "TITLE", "RACK", "PLAYERS"]

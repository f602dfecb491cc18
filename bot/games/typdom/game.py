"""Typ-Dom as a game of the bot: Kreuzwort-Spiel and Point-Typ-Dom by mail.

Sources: seed 002 (Typ-Dom: "1. Kreuzwort-Spiel" and "3. Point-Typ-Dom"), read with
shared/RULES.md "Typ-Dom" (the decisions for play by mail) and shared/NOTATION.md.

The state of a Partie is a JSON-compatible dict::

    {"variant": "kreuzwort" | "point", "round": 1, "rounds": 20, "board": [25 row codes],
     "racks": {player: "#ABEEHMNRSX..."}, "pool": "tiles in draw order",
     "seat_order": [player, ...], "start": {"player", "letter", "tied", "lot"},
     "rack_size": [8, 5], "first_out": None, "finished": False, "end": None,
     "history": [{"round", "turns": [...], "board"}]}

Racks are private (:meth:`TypdomRules.player_view`); :meth:`TypdomRules.public_view`
shows rack sizes only, and every rack once the Partie is over (the seed's end scoring
counts them in front of everyone).

Decisions where the texts leave it open (also in docs/rules/typdom.md):

- Deal: every player takes the league's number of black and red tiles (default 8 + 5;
  ``rack = "10+8"`` or ``"12+8"`` as league options, Point-Typ-Dom); the red and the
  black tiles are shuffled apart (seeded by league seed and Partie), then the rest goes
  face down into one mixed pool.
- Seat order (seed: "Der Spieler, der den Stein gezogen hat, der dem Z am nächsten
  liegt, beginnt"): the player whose highest letter (Jollys aside) is nearest Z begins;
  ties by lot (``Random(f"{seed}/{partie}/seat")``); the others follow in league-file
  order from there, as around a table ("der Reihe nach").
- A round is one turn per player in seat order; all turns of a round are mailed by its
  ZAT and applied in seat order, each against the table the earlier turns left; a
  player's lines (main turn, then Ersatzzüge) are tried in order and the first valid one
  counts (RULES.md).
- No valid line, or no mail (NMR): the player buys one tile; a valid ``KAUFEN n`` line is
  a purchase of n (Point-Typ-Dom 1-3, Kreuzwort-Spiel 1). ``KAUFEN rot``/``schwarz``
  takes the first tile of that colour from the pool, else the first tile of the pool.
  An empty pool: nothing is bought (noted).
- Kreuzwort-Spiel: a turn whose first placement joins words and that has no second
  placement also buys one tile (seed: "Dies gilt auch für den Fall, daß er ein zweites
  Wort ansetzen dürfte, aber keine Möglichkeit sieht"), unless the rack is then empty.
- The Kreuzwort-Spiel ends the moment a player has laid all tiles; the later seats of
  that round do not play. The winner receives from every other player 1 per black tile,
  3 per red tile and 10 per Jolly left, and each of them loses what they pay (the
  standings of a league add up, so a Partie is zero-sum, as payments at a table are).
- Point-Typ-Dom: every placement scores its letter values (see :mod:`.engine`); the round
  in which someone goes out is played to its end; the first player out (seat order) gets
  +10; every tile left counts minus its value, a Jolly -10.
- A Partie that cannot end that way -- the league's ``rounds`` are used up, or the pool
  is empty and a whole round passed without a placement -- ends with the same scoring
  without a player out: Point-Typ-Dom without the +10; in the Kreuzwort-Spiel the player
  with the fewest points left wins and is paid as above (equal lowest: no winner, nobody
  pays; as the seed's "Wer behält recht?" says for a game that cannot end).
- Verdicts are data (issue 31): every sentence about a turn is a
  :class:`~bot.games.verdict.Verdict`. A counted turn's summary (its words, points or
  tiles, contacts, a Jolly taken, a purchase) is public; everything about a line that
  was not played (why it failed, the rack it was checked against) is the mover's alone,
  and the public turn records (``history[..]["turns"][..]["failed"]``) hold only the
  index of each line that failed: a line written to probe a player's rack tells others
  nothing but that it was invalid.
- Each player's private part of the Auswertung names the best turn their rack allowed on
  the table as it stood at their turn (exhaustive search, :mod:`.movegen`): Point-Typ-Dom
  the most points, Kreuzwort-Spiel the most tiles laid.

This module is the game class (league checks, a round, the views); the deal and seat
order are :mod:`.deal`, the end scoring :mod:`.scoring`, what a judged turn shows
:mod:`.reports`, the judgement itself :mod:`.engine`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bot.games.base import Audience, GameRules, MoveReport, PlayerRound, RoundReport
from bot.games.demoplay import GERMAN_STYLES
from bot.games.typdom.deal import deal, draw, seat_order
from bot.games.typdom.engine import VARIANTS, evaluate
from bot.games.typdom.notation import Turn, parse_turn
from bot.games.typdom.outcome import Outcome, reason_gloss
from bot.games.typdom.reports import SKIPPED, move_report, public_turn, to_all, turn_record
from bot.games.typdom.scoring import end_scores
from bot.games.typdom.table import MARGIN, Table, example as table_example
from bot.games.typdom.words import WORD_RULES
from bot.games.typdom.tiles import colour, rack_text, rack_verdict, sort_rack
from bot.games.verdict import N_, NOT_TRIED, Verdict, Visibility, gm, verdict

ROUNDS = 20
#: Rack sizes (black, red): seed 002, Kreuzwort-Spiel and Point-Typ-Dom 8 + 5; Point-Typ-Dom
#: also 10 + 8 and 12 + 8 ("z. B. 10 schwarze und 8 rote Steine oder 12 schwarze und 8 rote").
RACKS = {"8+5": (8, 5), "10+8": (10, 8), "12+8": (12, 8)}
#: Player counts: Kreuzwort-Spiel 2-5 ("An einer Partie können 2 bis 5 Spieler
#: teilnehmen"), the box 2-6 for the other variants; the racks must fit the 50 black and
#: 30 red tiles.
PLAYERS = {"kreuzwort": (2, 5), "point": (2, 6)}
VARIANT_TITLES = {"kreuzwort": "Kreuzwort-Spiel", "point": "Point-Typ-Dom"}


def variant_of(options: Mapping[str, Any] | None) -> str:
    v = str((options or {}).get("variant", "kreuzwort")).lower().replace("-", "").replace("_", "")
    v = {"kreuzwortspiel": "kreuzwort", "pointtypdom": "point", "punkte": "point"}.get(v, v)
    if v not in VARIANTS:
        raise ValueError(f"variant={v!r}")
    return v


def rack_size(options: Mapping[str, Any] | None) -> tuple[int, int]:
    raw = str((options or {}).get("rack", "8+5")).replace(" ", "")
    if raw not in RACKS:
        raise ValueError(f"rack={raw!r}")
    return RACKS[raw]




class TypdomRules(GameRules[Turn]):
    """Typ-Dom (seed 002): Kreuzwort-Spiel (league option ``variant = "kreuzwort"``, the
    default) and Point-Typ-Dom (``variant = "point"``), private racks, turns in seat order."""

    # capability flags (bot.games.base.CAPABILITIES): what the service may ask of this game
    multiline = False
    merges_moves = False
    private_state = True  # the racks (docs/development/privacy.md)
    player_views = True
    closes_early = False
    notes_closed_round = False
    turn_rounds = False
    demo_leagues = ({"name": "Demo-Typ-Dom-point", "partien": ["T1"], "players": GERMAN_STYLES,
                     "options": {"variant": "point"}, "max_rounds": 30, "eml": "typdom-point-runde"},
                    {"name": "Demo-Typ-Dom-kreuzwort", "partien": ["T1"], "players": GERMAN_STYLES[:3],
                     "options": {"variant": "kreuzwort"}, "max_rounds": 30, "eml": "typdom-kreuzwort-runde"})
    reads_parsed_move = False

    name = "typdom"
    alphabet = "typdom"
    #: The ``typdom`` word list's build layer (seed 002: verbs only in the infinitive, no
    #: family, company or brand names; :mod:`bot.games.typdom.words`).
    word_rules = WORD_RULES
    search_gaddag = True  # (the bot's phase (b): bot.games.typdom.movegen.USE_GADDAG)
    grammar = "typdom_move.lark"
    title = "Typ-Dom"
    min_players = 2
    max_players = 6
    default_rounds = None  # a Partie ends when a player is out; the league file's rounds is a cap

    hidden_move_text = N_("(nicht gezeigt)")

    def reason_gloss(self, reason: str | None) -> Verdict | str:  # type: ignore[override]
        """The public gloss of a reason code (a verdict), ``""`` for none."""
        return reason_gloss(reason) or ""

    # -- league checks ------------------------------------------------------------------------
    def check_players(self, players: Sequence[str],  # type: ignore[override]
                      options: Mapping[str, Any] | None = None) -> Verdict | None:
        """Why a league of ``players`` with ``options`` cannot be played (a verdict for the
        game master), or None: the variant, the racks, the player count of the variant
        (seed 002) and whether the 50 black and 30 red tiles suffice."""
        try:
            variant = variant_of(options)
        except ValueError:
            return to_all("options", N_("Typ-Dom kennt die Varianten kreuzwort und point, nicht {variant}."),
                           variant=str((options or {}).get("variant")))
        try:
            black, red = rack_size(options)
        except ValueError:
            return to_all("options", N_("Typ-Dom-Bänke: {racks}, nicht {rack}."), racks=", ".join(RACKS),
                           rack=str((options or {}).get("rack")))
        lo, hi = PLAYERS[variant]
        n = len(players)
        if not lo <= n <= hi:
            return to_all("players", N_("{title} braucht {lo} bis {hi} Spieler, die Ligadatei hat {n}."),
                           title=VARIANT_TITLES[variant], lo=lo, hi=hi, n=n)
        if variant == "kreuzwort" and (black, red) != RACKS["8+5"]:
            return to_all("options", N_("Im Kreuzwort-Spiel nimmt jeder 8 schwarze und 5 rote Steine (andere Bänke "
                                         "gibt es bei Point-Typ-Dom)."))
        if n * black > 50 or n * red > 30:
            return to_all("players", N_("{n} Spieler zu je {black} schwarzen und {red} roten Steinen: so viele Steine "
                                         "hat Typ-Dom nicht (50 schwarze, 30 rote)."), n=n, black=black, red=red)
        return None

    # -- Partie -------------------------------------------------------------------------------
    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None,
                   players: Sequence[str] = ()) -> dict:
        """Deal the racks, fix the seat order and lay the empty table. Options:
        ``variant`` (``kreuzwort``/``point``), ``rack`` (``"8+5"``, ``"10+8"``, ``"12+8"``),
        ``rounds`` (an upper bound, default 20). ValueError on a bad option, TypeError without players."""
        options = options or {}
        variant = variant_of(options)
        black, red = rack_size(options)
        players = list(players)
        if not players:
            raise TypeError("players: the seat order is missing")
        racks, pool = deal(seed, partie, players, black, red)
        order, start = seat_order(seed, partie, players, racks)
        return {"variant": variant, "round": 1, "rounds": int(options.get("rounds", ROUNDS)),
                "board": Table.empty().rows, "racks": racks, "pool": pool, "seat_order": order, "start": start,
                "rack_size": [black, red], "first_out": None, "finished": False, "end": None, "history": []}

    def read_move(self, text: str) -> Turn:
        """Parse a Typ-Dom turn line (grammar/typdom_move.lark); raises NotationError."""
        return parse_turn(text)

    def evaluate(self, state: Mapping[str, Any], text: str, lexicon: Any, player: str) -> Outcome:
        return evaluate(Table.from_rows(state["board"]), state["racks"].get(player, ""), text, lexicon,
                        state.get("variant", "kreuzwort"))

    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0, *,
                   player: str | None = None) -> MoveReport:
        """Judge one line against the table as it stands now and the sender's rack; the
        notes say that seats before the sender move first this round (the table may
        differ then), and ``detail["picture"]`` shows the table part with the turn laid."""
        if player is None or player not in state.get("racks", {}):
            out = evaluate(Table.from_rows(state["board"]), "", text, lexicon, state.get("variant", "kreuzwort"))
        else:
            out = self.evaluate(state, text, lexicon, player)
        rep = move_report(index, text, out, state.get("variant", "kreuzwort"))
        order = list(state.get("seat_order", []))
        if player in order and order.index(player) > 0:
            before = order.index(player)
            one = N_("Geprüft gegen den Tisch, wie er jetzt liegt. Vor dir ist in dieser Runde noch ein Spieler am "
                     "Zug; seine Wörter können das Ergebnis ändern (dafür sind deine Ersatzzüge da).")
            more = N_("Geprüft gegen den Tisch, wie er jetzt liegt. Vor dir sind in dieser Runde noch {n} Spieler am "
                      "Zug; ihre Wörter können das Ergebnis ändern (dafür sind deine Ersatzzüge da).")
            rep.notes.append(verdict("seats_before", one if before == 1 else more, n=before))
        if out.valid and not out.is_buy:
            after = out.apply(Table.from_rows(state["board"]))
            rep.detail["picture"] = after.grid_text(after.bounds(MARGIN)).splitlines()
            if out.second and len(out.laid) == 1 and state.get("variant") == "kreuzwort" and out.rack_after:
                rep.notes.append(verdict("second_allowed", N_(
                    "Dein Wort verbindet Wörter: du darfst ein zweites ansetzen (mit ';' in derselben Zeile). Ohne "
                    "zweites Wort musst du nach der Regel einen Stein kaufen.")))
        return rep

    # -- the best turn --------------------------------------------------------------------------
    def best_turn(self, rows: Sequence[str], rack: str, lexicon: Any, variant: str) -> dict | None:
        """The best turn ``rack`` allows on ``rows`` (see :mod:`.movegen`), as
        ``{"notation", "score", "tiles", "words"}``, or None."""
        # deferred on purpose: the move generator (compiled core) loads only for a best move
        from bot.games.typdom.movegen import best_turn
        b = best_turn(rows, rack, lexicon, variant)
        return b.to_json() if b is not None else None

    # -- a round --------------------------------------------------------------------------------
    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, Any] | None = None, best: bool = True) -> RoundReport:
        """Apply the round's turns in seat order (see the module docstring). ``best``:
        compute each player's best possible turn for their private part."""
        variant = state.get("variant", "kreuzwort")
        rnd = int(state["round"])
        table = Table.from_rows(state["board"])
        racks = dict(state["racks"])
        pool = state.get("pool", "")
        first_out = state.get("first_out")
        turns: list[dict] = []
        results: dict[str, PlayerRound] = {}
        placed_any = False
        ended_early = False
        for seat, player in enumerate(state["seat_order"], start=1):
            if player not in submissions:
                continue  # no longer in the league
            lines = submissions[player]
            rack_before = racks.get(player, "")
            rows_before = table.rows
            private: dict[str, Any] = {"rack_before": rack_before}
            if ended_early:
                turns.append(turn_record(player=player, seat=seat, kind="skipped", rack_size=len(rack_before)))
                reports = [MoveReport(index=i, text=t, valid=False, reason=None, verdict=SKIPPED, public=SKIPPED)
                           for i, t in enumerate(lines or [])]
                private.update(rack=rack_before)
                results[player] = PlayerRound(player, lines is not None, reports, None, 0, score=0, private=private)
                continue
            reports: list[MoveReport] = []
            hit: tuple[int, Outcome] | None = None
            for i, line in enumerate(lines or []):
                out = evaluate(table, rack_before, line, lexicon, variant)
                reports.append(move_report(i, line, out, variant))
                if out.valid:
                    hit = (i, out)
                    break
            for j in range(len(reports), len(lines or [])):
                reports.append(MoveReport(index=j, text=(lines or [])[j], valid=False, reason=None,
                                          verdict=NOT_TRIED, public=NOT_TRIED))
            # public: only which lines were tried and failed, nothing of their text or why
            # (a line written to probe the rack must learn nothing; issue 31, attack 2)
            turn = turn_record(player=player, seat=seat, counted=hit[0] if hit else None,
                         failed=[{"index": r.index} for r in reports if not r.valid and r.reason])
            score = 0
            buy_n, buy_colour = 0, None
            if hit is None:
                turn["kind"] = "nmr" if lines is None else "invalid"
                buy_n = 1
            elif hit[1].is_buy:
                turn["kind"] = "buy"
                buy_n, buy_colour = hit[1].buy or 1, hit[1].buy_colour
            else:
                out = hit[1]
                placed_any = True
                table = out.apply(table)
                racks[player] = out.rack_after
                score = out.score if variant == "point" else 0
                turn.update(kind="place", notation=out.notation, words=out.words, laid=[p.to_json() for p in out.laid],
                            score=out.score, tiles=out.tiles, second=out.second, jolly=out.jolly_take)
                if variant == "kreuzwort" and out.second and len(out.laid) == 1 and out.rack_after:
                    buy_n = 1
                    turn["second_missing"] = True
            bought = ""
            if buy_n:
                bought, pool = draw(pool, buy_n, buy_colour)
                racks[player] = sort_rack(racks.get(player, "") + bought)
                turn["bought"] = len(bought)
                if len(bought) < buy_n:
                    turn["pool_empty"] = True
            rack_after = racks.get(player, "")
            turn["rack_size"] = len(rack_after)
            if not rack_after and turn.get("kind") == "place":
                turn["out"] = True
                if first_out is None:
                    first_out = player
                    turn["first_out"] = True
                if variant == "kreuzwort":
                    ended_early = True
            turns.append(turn)
            private.update(rack=rack_after, bought=bought)
            if best and rack_before:
                try:
                    private["best"] = self.best_turn(rows_before, rack_before, lexicon, variant)
                except Exception as exc:  # the search must never stop an adjudication
                    private["best_error"] = f"{type(exc).__name__}: {exc}"
            results[player] = PlayerRound(player, lines is not None, reports, hit[0] if hit else None, score,
                                          score=score, private=private)

        blocked = not placed_any and not pool
        over_limit = bool(last_round) or rnd >= int(state.get("rounds", ROUNDS))
        finished = first_out is not None or blocked or over_limit
        end = None
        if finished:
            order = [p for p in state["seat_order"] if p in racks]
            end = end_scores(variant, racks, order, first_out)
            end_info = {"first_out": first_out, "blocked": blocked and first_out is None,
                        "over_limit": over_limit and first_out is None and not blocked, "scores": end}
            for p, res in results.items():
                res.points += end[p]["points"]
                res.private["end"] = end[p]
        after: dict[str, Any] = dict(state)
        after.update(board=table.rows, racks=racks, pool=pool, first_out=first_out, finished=finished,
                     round=rnd if finished else rnd + 1)
        if finished:
            after["end"] = end_info
        after["history"] = list(state.get("history", [])) + [{"round": rnd, "turns": turns, "board": table.rows,
                                                               "pool": len(pool)}]
        board_move = {"turns": turns, "pool": len(pool), "finished": finished}
        players = [results[p] for p in state["seat_order"] if p in results]
        return RoundReport(round=rnd, players=players, board_move=board_move, top=None,
                           state_before=dict(state), state_after=after,
                           lot=state.get("start", {}).get("lot") if rnd == 1 else None)

    def seen_by(self, pl: Mapping[str, Any], audience: Audience, state: Mapping[str, Any],
                lang: str = "de") -> dict[str, Any]:
        """:meth:`GameRules.seen_by`; for others, the lines of a player whose turn never
        came (the Kreuzwort-Spiel ended earlier in the round) read "nicht mehr am Zug"
        instead of "ungültig" (public: the turn records say so, too)."""
        out = super().seen_by(pl, audience, state, lang)
        owner = str(pl["player"])
        if not audience.sees(owner, Visibility.MOVER):
            for raw, m in zip(pl.get("moves", []), out["moves"]):
                if (raw.get("verdict") or {}).get("code") == SKIPPED.code:
                    m["message"] = SKIPPED.render(lang, audience, owner)
        return out

    # -- views ----------------------------------------------------------------------------------
    def demo_player(self, view: Mapping[str, Any], rng: Any, *, lexicon: Any = None,
                    style: str = "stark") -> list[Any] | None:
        """The demo's simulated player (:func:`bot.games.typdom.demo.play_typdom`); see
        :meth:`GameRules.demo_player <bot.games.base.GameRules.demo_player>`."""
        from bot.games.typdom.demo import play_typdom  # deferred on purpose: the move generator loads only for the demo
        return play_typdom(view, rng, lexicon, style)

    def public_view(self, state: Mapping[str, Any]) -> dict:
        """``variant``, ``variant_title``, ``round``, ``rounds``, ``board`` (25 row codes),
        ``seat_order``, ``rack_sizes`` (per player), ``pool`` (tiles left), ``start``,
        ``first_out``, ``finished``, ``end`` (the end scoring with every rack left, once over),
        ``grid_text`` (the occupied part with a margin, coordinates), ``cells`` (for HTML),
        ``last_turns`` (the last round's turns; of a failed line only its index). Never a
        rack of a running Partie, nothing of a line that was not played."""
        table = Table.from_rows(state["board"])
        hist = state.get("history", [])
        return {"variant": state.get("variant", "kreuzwort"),
                "variant_title": VARIANT_TITLES[state.get("variant", "kreuzwort")],
                "round": state["round"], "rounds": state.get("rounds", ROUNDS), "board": list(state["board"]),
                "seat_order": list(state.get("seat_order", [])),
                "rack_sizes": {p: len(r) for p, r in state.get("racks", {}).items()},
                "rack_size": list(state.get("rack_size", [8, 5])), "pool": len(state.get("pool", "")),
                "start": state.get("start"), "first_out": state.get("first_out"),
                "finished": bool(state.get("finished")), "end": state.get("end") if state.get("finished") else None,
                "grid_text": table.grid_text(table.bounds(MARGIN)), "cells": table.cells(),
                "last_turns": [public_turn(t) for t in hist[-1]["turns"]] if hist else [],
                "example": self.example_move(state)}

    def example_move(self, state: Mapping[str, Any]) -> dict | None:  # type: ignore[override]
        """Notation data of an example move that fits the table of ``state`` (issue 32):
        ``{"coord": "A1", "word": "HAUS", "empty": False}``, written across
        (``A1w HAUS``): free squares touching no tile (on an empty table: from M13), a
        word whose tiles still exist; so it names no occupied square and is no move
        worth playing. None when the table leaves no room. Source: seed 002 (the
        table, the tile counts); :func:`.table.example`."""
        return table_example(Table.from_rows(state["board"]))

    def player_view(self, state: Mapping[str, Any], player: str) -> dict:
        """``rack`` (code: letters, ``?`` red Jolly, ``#`` black Jolly), ``rack_text``
        (red and black tiles apart, for mails), ``seat`` (1-based)."""
        rack = state.get("racks", {}).get(player, "")
        order = list(state.get("seat_order", []))
        return {"rack": rack, "rack_text": rack_text(rack),
                "seat": order.index(player) + 1 if player in order else None,
                "red": [t for t in rack if colour(t) == "rot"], "black": [t for t in rack if colour(t) == "schwarz"]}

    def gm_picture(self, state: Mapping[str, Any], names: Mapping[str, str], *,
                   zat: str | None = None) -> list[Verdict | str]:
        """For the game master: the table as the Auswertung draws it (plain rows), the
        seat order, who moves (everybody, applied in seat order), every rack and the pool
        (verdicts seen by the game master)."""
        view = self.public_view(state)
        pool = state.get("pool", "")

        def line(code: str, msgid: str, **params: object) -> Verdict:
            return verdict(code, msgid, seen=Visibility.GM, **{k: gm(v) for k, v in params.items()})
        head = (line("head", N_("{title}, Runde {round}, beendet"), title=view["variant_title"], round=view["round"])
                if view["finished"] else
                line("head", N_("{title}, Runde {round}, am Zug: alle (in Sitzreihenfolge) bis {zat}"),
                     title=view["variant_title"], round=view["round"], zat=zat or "-"))
        lines: list[Verdict | str] = [head, line("pool", N_("Vorrat: {n} Steine ({tiles})"), n=len(pool),
                                                 tiles=rack_verdict(sort_rack(pool)))
                                      if pool else line("pool", N_("Vorrat: leer"))]
        lines += view["grid_text"].splitlines()
        order = view["seat_order"]
        lines.append(line("seats", N_("Sitzreihenfolge: {order}"),
                          order=", ".join(f"{i}. {names.get(p, p)}" for i, p in enumerate(order, 1))))
        for p in order:
            rack = state.get("racks", {}).get(p, "")
            lines.append(line("rack", N_("Bank {name}: {rack}"), name=names.get(p, p), rack=rack_verdict(rack))
                         if rack else line("rack", N_("Bank {name}: leer"), name=names.get(p, p)))
        return lines

    # -- conformance cases (shared/conformance/README.md "Typ-Dom") ---------------------------
    def run_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """What the rules make of a case, in the keys of ``case["expect"]``: ``valid``,
        ``words``, ``second``, ``score`` (variant point), ``rack``; or ``valid``, ``reason``."""
        variant = case.get("variant", "kreuzwort")
        out = evaluate(Table.from_rows(case["board"]), case.get("rack", ""), case["move"], lexicon, variant)
        if not out.valid:
            return {"valid": False, "reason": out.reason}
        got = {"valid": True, "words": out.words, "second": out.second, "rack": out.rack_after,
               "tiles": out.tiles}
        if variant == "point":
            got["score"] = out.score
        if out.is_buy:
            got["buy"] = out.buy
        return got

    def top_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """The best turn of a case's position: ``move`` and ``score`` (Point-Typ-Dom
        points; the Kreuzwort-Spiel's best is the most tiles, ``tiles``)."""
        variant = case.get("variant", "kreuzwort")
        b = self.best_turn(case["board"], case.get("rack", ""), lexicon, variant)
        if b is None:
            return {"move": None, "score": None}
        return {"move": b["notation"], "score": b["score"], "tiles": b["tiles"], "words": b["words"]}



__all__ = ["TypdomRules", "variant_of", "rack_size", "RACKS", "PLAYERS", "VARIANT_TITLES"]

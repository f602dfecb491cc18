"""Crossword as a game of the bot: six private grids, wished letters, the word lists and
each grid's best score.

Sources: seed 003 (Crossword, Postspielregel von Markus Steffl, December 2002) and
shared/RULES.md "Crossword"; notation shared/NOTATION.md "Crossword"; reason codes
shared/conformance/README.md "Crossword".

A Partie has exactly six players and seven ZATs: at ZAT 1 every player wishes a letter;
at ZATs 2-7 every player places the six letters wished the round before (or leaves some
unused) on their own 6x6 grid, at ZATs 2-6 wishes the next letter, and at ZAT 7 lists
the words of their grid. Only the listed words count (seed 003, section 3).

The state of a Partie is a JSON-compatible dict::

    {"round": 3, "rounds": 7, "players": ["1", ..., "6"],
     "grids": {"1": [6 row codes], ...}, "letters": "EELNOT",
     "finished": false, "history": [{"round": 2, "letters": "...", "placed": {"1": 6, ...},
     "drawn": 1}, ...], "final": null}

``letters`` are the letters to place in the open round ("" in round 1). ``final``
(after ZAT 7): per player ``{"score", "claims": [verdicts], "best": {"score", "words"}}``.
Grids are private: :meth:`CrosswordRules.public_view` shows them only once the Partie
is finished.

Decisions where seed 003 and RULES.md are silent (docs/rules/crossword.md):

- A move is the whole section (``multiline``): placement, wish, and in the last round
  the word list. There are no Ersatzzüge; a placement that breaks a rule is answered
  at once in the acknowledgement and may be resent until the ZAT (a later mail
  replaces the earlier one).
- At the ZAT an invalid or missing placement places nothing (those letters stay
  unused); a readable wish in a mail whose placement is invalid still counts.
- A missing wish is drawn by lot, ``random.Random(f"{seed}/{partie}/{round}/wish/{key}")``,
  weighted by the letter counts of the German Scrabble set (:data:`WISH_WEIGHTS`: E
  often, Q rarely), as a game master drawing a tile from a bag would; the Auswertung
  says how many wishes were drawn, never whose.
- The round's letters are shown sorted A-Z (RULES.md: not who wished which).
- A placement of no letters at all (only a wish, or the grid unchanged) is valid.
- In round 1 only the wish counts: letters placed in round 1 make the move invalid
  (there are no letters yet). A wish in the last round is ignored with a note; a word
  list before the last round is ignored with a note.
- The word list: the acknowledgement of the last move already answers ``syntax``,
  ``position``, ``length`` and ``overlap`` (so a typo in a field can be mended before
  the ZAT); whether a listed word is in the lexicon is judged only at the ZAT, as the
  GM of seed 003 does. A player who lists no words scores 0 (RULES.md, decision).
- Standings: the points of the listed words, all in the last round; ties share the
  rank (the service's standings).
"""

from __future__ import annotations

import random
import re
from typing import Any, Mapping, Sequence

from bot.games.base import GameRules, MoveReport, NotationError, PlayerRound, RoundReport
from bot.games.demoplay import GERMAN_STYLES
from bot.games.verdict import N_, Verdict, Visibility, verdict
from bot.games.crossword.wording import GLOSSES, LISTED, PLACED, plural, sentences
from bot.games.crossword.engine import (ScoreOutcome, best, check_placement, round_letters, score_claims)
from bot.games.crossword.grid import LETTERS, SIZE, Grid
from bot.games.crossword.words import WORD_RULES
from bot.games.crossword.notation import (Move, Pairs, Reading, format_claim, format_move, format_placement,
                                          parse_line, parse_move)

PLAYERS = 6   # seed 003: "Die Zahl der Spieler ist auf sechs festgelegt."
ROUNDS = 7    # seed 003: a wish, then six placements of six letters (36 fields)

#: Weights of a drawn wish: the A-Z tile counts of the German Scrabble set
#: (RULES.md "Monoscrabble"; Ä Ö Ü and the Blanko left out).
WISH_WEIGHTS: dict[str, int] = {
    "E": 15, "N": 9, "S": 7, "I": 6, "R": 6, "T": 6, "U": 6, "A": 5, "D": 4, "H": 4, "M": 4,
    "G": 3, "L": 3, "O": 3, "B": 2, "C": 2, "F": 2, "K": 2, "W": 1, "Z": 1, "P": 1, "J": 1,
    "V": 1, "X": 1, "Q": 1, "Y": 1,
}


#: The public verdicts of a counted move (they name no field, letter or wish).
WISHED = verdict("wished", N_("Wunsch abgegeben."), seen=Visibility.PUBLIC)
PLACED_AND_WISHED = verdict("placed", N_("Legung und Wunsch abgegeben."), seen=Visibility.PUBLIC)
PLACED_AND_LISTED = verdict("placed", N_("Legung und Wortliste abgegeben."), seen=Visibility.PUBLIC)

def draw_wish(seed: str, partie: str, rnd: int, player: str) -> str:
    """The letter drawn for a player without a wish in round ``rnd`` (decision, see the
    module docstring): reproducible from the league seed."""
    rng = random.Random(f"{seed}/{partie}/{rnd}/wish/{player}")
    letters = sorted(WISH_WEIGHTS)
    return rng.choices(letters, weights=[WISH_WEIGHTS[c] for c in letters])[0]


class Judged:
    """One player's move of a round, judged: the :class:`MoveReport` plus what counts."""

    __slots__ = ("report", "wish", "grid", "placed", "unused", "claims")

    def __init__(self, report: MoveReport, wish: str | None, grid: Grid | None, placed: str = "",
                 unused: str = "", claims: tuple = ()) -> None:
        self.report = report
        self.wish = wish
        self.grid = grid          # the grid after a valid placement, else None
        self.placed = placed
        self.unused = unused
        self.claims = claims


class CrosswordRules(GameRules[Reading]):
    """Crossword (seed 003): six players, private 6x6 grids, wished letters, the listed
    words scored at the end, each grid's exact best score shown."""

    # capability flags (bot.games.base.CAPABILITIES): what the service may ask of this game
    multiline = True  # placement, wish and word list are one move
    merges_moves = True  # placement, wish and word list (issue 24)
    private_state = True  # the grids until the end (docs/development/privacy.md)
    player_views = True
    closes_early = False
    notes_closed_round = False
    turn_rounds = False
    demo_leagues = ({"name": "Demo-Kreuz", "partien": ["P1"], "eml": "crossword-runde",
                     "players": GERMAN_STYLES + ("anfaengerin", "wortjaeger")},)
    reads_parsed_move = False

    name = "crossword"
    alphabet = "crossword"
    grammar = "crossword_move.lark"
    word_rules = WORD_RULES  # five two-letter forms out (seed 003, section 3)
    title = "Crossword"
    min_players = PLAYERS
    max_players = PLAYERS
    #: the one rule for a correction (issue 32), as :meth:`merge_move` does it
    replace_rule = N_("Eine spätere Mail vor dem ZAT ersetzt die Teile deines Zugs (Legung, Wunsch, Wortliste), "
                      "die sie enthält; die übrigen bleiben.")
    one_square_letters = True
    fixed_rounds = ROUNDS

    # -- Partie -----------------------------------------------------------------------
    def new_partie(self, *, seed: str, partie: str, options: Mapping[str, Any] | None = None,
                   players: Sequence[str] = ()) -> dict:
        """Empty grids for ``players`` (seat order); round 1 is the wish round."""
        return {"round": 1, "rounds": ROUNDS, "players": list(players),
                "grids": {p: list(Grid.empty().rows) for p in players},
                "letters": "", "finished": False, "history": [], "final": None}

    def check_partie_name(self, name: str) -> Verdict | None:
        """A field name (``A1``-``F6``, any case) cannot name a Partie: ``A1: X`` in a mail is
        read as a placement, so a section header ``A1:`` would be one too. The verdict
        (code ``partie-name``) is for the game master; None when the name is fine."""
        if re.fullmatch(r"[A-Fa-f][1-6]", name.strip()):
            return verdict("partie-name", N_("'{name}' taugt nicht als Partie-Name: so heißt ein Feld des Gitters, "
                                             "und 'A1: X' wird als Setzen gelesen. Bitte einen anderen Namen "
                                             "wählen (z. B. K1)."), seen=Visibility.GM, name=name)
        return None

    def read_move(self, text: str) -> Reading:
        """Read one line (a wish, pairs, a grid row or a word-list line) or a whole
        section (several lines); raises :class:`NotationError`."""
        if "\n" in text.strip():
            return parse_move(text)
        return parse_line(text)

    def merge_move(self, earlier: Sequence[str], later: Sequence[str]) -> list[str]:
        """A move has three parts (seed 003; NOTATION.md "Crossword"): the placement, the
        wish and the word list. A later mail replaces the parts it contains and keeps the
        earlier mail's others: a follow-up with only the word list keeps the placement and
        the wish sent before. The merged move is written canonically
        (:func:`~bot.games.crossword.notation.format_move`); when the later mail has every
        part the earlier one has, or either cannot be read, it is kept as written."""
        if not earlier or not later:
            return list(later)
        try:
            old, new = parse_move(str(earlier[0])), parse_move(str(later[0]))
        except NotationError:
            return list(later)
        kept = Move(new.placement if new.placement is not None else old.placement,
                    new.wish if new.wish is not None else old.wish,
                    new.claims if new.claims else old.claims)
        if kept == new:
            return list(later)
        return [format_move(kept)]

    # -- judging one move -----------------------------------------------------------------
    def judge(self, state: Mapping[str, Any], text: str, player: str | None, index: int = 0, *,
              lexicon: Any = None, final: bool = False) -> Judged:
        """Judge ``text`` (a whole move) of ``player`` against the open round of
        ``state``. ``final``: also judge the listed words against the lexicon (the ZAT
        of the last round); otherwise only their notation and position.

        Verdicts as data (issue 31, :mod:`bot.games.verdict`): a move names fields and
        letters of the mover's private grid and their wish, so its verdict, notes and
        summary are the mover's (``MOVER``); the ``public`` verdict says only that a wish,
        a placement or a word list was handed in. An invalid move has no public verdict:
        others learn only that it was invalid (:meth:`GameRules.seen_by`)."""
        rnd = int(state["round"])
        last = rnd >= int(state.get("rounds", ROUNDS))
        notes: list[Verdict] = []
        try:
            move = parse_move(text)
        except NotationError as exc:
            return Judged(MoveReport(index, text, False, reason="syntax", verdict=exc.verdict), None, None)
        grid = self._grid(state, player)
        wish = move.wish.letter if move.wish else None
        if last and wish is not None:
            notes.append(verdict("wish-ignored", N_("Der Wunsch {wish} entfällt: in der letzten Runde wird nicht "
                                                    "mehr gewünscht."), wish=wish))
            wish = None
        if not last and move.claims:
            notes.append(verdict("words-ignored", N_("Die Wortliste gehört zum letzten Zug; hier wird sie nicht "
                                                     "gewertet.")))
        detail: dict[str, Any] = {}
        if rnd == 1:
            if move.placement is not None:
                return Judged(MoveReport(index, text, False, reason="syntax", notes=notes, verdict=verdict(
                    "syntax", N_("In Runde 1 wird nur gewünscht ('Wunsch: Q'); Buchstaben zum Legen gibt es erst "
                                 "ab Runde 2."))), wish, None)
            if wish is None:
                return Judged(MoveReport(index, text, False, reason="syntax", notes=notes, verdict=verdict(
                    "syntax", N_("In Runde 1 fehlt der Wunsch: 'Wunsch: Q'."))), None, None)
            said = verdict("wish", N_("Wunsch: {wish}."), wish=wish)
            return Judged(MoveReport(index, text, True, score=0, verdict=said, notes=notes,
                                     detail={"wish": wish, "summary": said}, public=WISHED), wish, None)
        letters = state.get("letters", "")
        if grid is None:
            return Judged(MoveReport(index, text, False, reason="syntax", verdict=verdict(
                "no-grid", N_("Zu diesem Absender gibt es kein Spielfeld in dieser Partie."))), wish, None)
        if move.placement is None:
            out = check_placement(grid, letters, _nothing())
        else:
            out = check_placement(grid, letters, move.placement)
        if not out.valid:
            if last:
                notes.append(verdict("resend", N_("Bis zum ZAT kannst du den ganzen Zug (Legung) noch einmal "
                                                  "schicken; die letzte Mail ersetzt diese.")))
            elif wish:
                notes.append(verdict("resend", N_("Bis zum ZAT kannst du den ganzen Zug (Legung und Wunsch) noch "
                                                  "einmal schicken; die letzte Mail ersetzt diese. Bleibt es dabei, "
                                                  "zählt nur dein Wunsch {wish}."), wish=wish))
            else:
                notes.append(verdict("resend", N_("Bis zum ZAT kannst du den ganzen Zug (Legung und Wunsch) noch "
                                                  "einmal schicken; die letzte Mail ersetzt diese.")))
            assert out.verdict is not None
            rep = MoveReport(index, text, False, reason=out.reason, verdict=out.verdict, notes=notes,
                             detail={"picture_title": verdict("picture", N_("Dein Spielfeld bleibt so:")),
                                     "picture": grid.picture(), "wish": wish})
            return Judged(rep, wish, None)
        assert out.grid is not None
        n = len(out.placed)  # the move line shows where; the summary says how many (issue 24)
        parts: list[Verdict] = [plural("placed", PLACED, n) if out.placed
                                else verdict("placed", N_("Nichts gelegt."))]
        if out.unused:
            parts.append(verdict("unused", N_("Ungenutzt: {letters}."), letters=" ".join(out.unused)))
        if not last:
            parts.append(verdict("wish", N_("Wunsch: {wish}."), wish=wish) if wish
                         else verdict("wish", N_("Kein Wunsch: er wird zum ZAT ausgelost.")))
        detail = {"picture_title": verdict("picture", N_("Dein Spielfeld danach:")), "picture": out.grid.picture(),
                  "grid": list(out.grid.rows), "placed": out.placed_text(), "unused": out.unused, "wish": wish}
        claims: tuple = ()
        if last:
            claims = move.claims
            if not claims:
                notes.append(verdict("no-words", N_("Keine Wortliste: ohne Wortliste zählen 0 Punkte. Liste jedes "
                                                    "Wort als 'WORT VON-BIS', z. B. 'HAUS A1-A4'.")))
            else:
                sc = score_claims(out.grid, claims, lexicon if final else _AllWords())
                detail["claims"] = [v.to_json() for v in sc.claims]
                for v in sc.claims:
                    if not v.valid and v.reason != "word":
                        notes.append(verdict("claim", N_("{claim}: {reason}"), claim=v.text, reason=v.verdict))
                if not final:
                    parts.append(plural("listed", LISTED, len(claims)))
        said = sentences(parts)
        detail["summary"] = said
        rep = MoveReport(index, text, True, score=0, verdict=said, notes=notes, detail=detail,
                         public=PLACED_AND_LISTED if last else PLACED_AND_WISHED)
        return Judged(rep, wish, out.grid, out.placed_text(), out.unused, claims)

    @staticmethod
    def _grid(state: Mapping[str, Any], player: str | None) -> Grid | None:
        rows = state.get("grids", {}).get(player) if player is not None else None
        return Grid(rows) if rows else None

    # -- visibility (docs/development/privacy.md) ------------------------------------------------------
    #: Everything of a move's detail names the mover's grid or wish.
    private_detail = frozenset({"picture", "picture_title", "grid", "placed", "unused", "wish", "claims"})

    def move_text_public(self, state: Mapping[str, Any]) -> bool:
        """A placement names fields and letters of a private grid: public only once the
        Partie is over (the grids are then shown to all)."""
        return bool(state.get("finished"))

    def reason_gloss(self, reason: str | None) -> Verdict | str:
        """The plain public gloss of a placement reason code (a public verdict), ``""`` for
        another code."""
        return GLOSSES.get(reason or "", "")

    def check_line(self, state: Mapping[str, Any], text: str, lexicon: Any, index: int = 0, *,
                   player: str | None = None) -> MoveReport:
        """Judge a whole move of ``player`` for the acknowledgement; ``detail["picture"]``
        is the player's grid after the placement (or unchanged when it is invalid)."""
        return self.judge(state, text, player, index, lexicon=lexicon).report

    # -- a round ------------------------------------------------------------------------
    def adjudicate(self, state: Mapping[str, Any], submissions: Mapping[str, Sequence[str] | None],
                   lexicon: Any, *, seed: str, partie: str, last_round: bool = False,
                   received: Mapping[str, Any] | None = None) -> RoundReport:
        """The ZAT of the open round (seed 003, sections 2-3; decisions in the module
        docstring): valid placements go on each player's grid, the six wishes (drawn
        where missing) make the next round's letters, and after the last placement the
        word lists are scored and every grid's best score is found. A player missing from
        ``submissions`` (removed by the GM) keeps their grid; their wish is drawn."""
        rnd = int(state["round"])
        last = bool(last_round) or rnd >= int(state.get("rounds", ROUNDS))
        keys = list(state.get("players") or sorted(submissions))
        grids = {p: list(rows) for p, rows in state.get("grids", {}).items()}
        results: list[PlayerRound] = []
        wishes: dict[str, str] = {}
        drawn: list[str] = []
        final: dict[str, Any] = {}
        moved: list[str] = []
        for p in keys:
            lines = submissions.get(p)
            judged = None
            if lines:
                judged = self.judge(state, "\n".join(lines), p, lexicon=lexicon, final=last)
            private: dict[str, Any] = {}
            if judged is not None and judged.grid is not None:
                grids[p] = list(judged.grid.rows)
                private.update(placed=judged.placed, unused=judged.unused)
            elif rnd > 1:
                private.update(placed="", unused=state.get("letters", ""))
            if not last:
                w = judged.wish if judged is not None else None
                if w is None:
                    w = draw_wish(seed, partie, rnd, p)
                    drawn.append(p)
                    private["wish_drawn"] = True
                wishes[p] = w
                private["wish"] = w
            valid = judged is not None and judged.report.valid
            if valid:
                moved.append(p)
            pts = 0
            if last:
                g = Grid(grids[p]) if p in grids else Grid.empty()
                sc = score_claims(g, judged.claims if (judged is not None and judged.grid is not None) else (),
                                  lexicon)
                b = best(g, lexicon)
                final[p] = {"score": sc.score, "claims": [v.to_json() for v in sc.claims],
                            "best": {"score": b.score, "words": [w.to_json() for w in b.words]},
                            "grid": list(g.rows)}
                pts = sc.score
            private["grid"] = list(grids.get(p, Grid.empty().rows))
            private["picture"] = Grid(private["grid"]).picture()
            if p in submissions:  # a player the GM removed keeps their grid, but has no result
                results.append(PlayerRound(p, lines is not None, [judged.report] if judged else [],
                                           0 if valid else None, pts, score=pts, private=private))
        after: dict[str, Any] = dict(state)
        after["grids"] = grids
        letters_next = round_letters(wishes[p] for p in keys) if not last else ""
        after["history"] = list(state.get("history", [])) + [{
            "round": rnd, "letters": state.get("letters", ""), "moved": moved, "drawn": len(drawn),
            "letters_next": letters_next}]
        board_move: dict[str, Any] = {"letters": state.get("letters", ""), "letters_next": letters_next,
                                      "players": moved, "drawn": len(drawn), "last": last}
        top = None
        if last:
            after.update(round=rnd, letters="", finished=True, final=final)
            top = {p: final[p]["best"] for p in keys}
        else:
            after.update(round=rnd + 1, letters=letters_next, finished=False)
        return RoundReport(round=rnd, players=results, board_move=board_move, top=top,
                           state_before=dict(state), state_after=after)

    # -- views ----------------------------------------------------------------------------
    def demo_player(self, view: Mapping[str, Any], rng: Any, *, lexicon: Any = None,
                    style: str = "stark") -> list[Any] | None:
        """The demo's simulated player (:func:`bot.games.crossword.demo.play`); see
        :meth:`GameRules.demo_player <bot.games.base.GameRules.demo_player>`."""
        from bot.games.crossword.demo import play  # deferred on purpose: the move generator loads only for the demo
        return play(view, rng, lexicon, style)

    def public_view(self, state: Mapping[str, Any]) -> dict:
        """``round``, ``rounds``, ``letters`` (to place in the open round, sorted A-Z; ""
        in round 1 and at the end), ``finished``; once finished also ``grids`` (player key
        -> 6 row codes) and ``final`` (player key -> ``score``, ``claims`` (verdicts),
        ``best`` (``score``, ``words``), ``grid``). No grid before the end (RULES.md)."""
        out: dict[str, Any] = {"round": state["round"], "rounds": state.get("rounds", ROUNDS),
                               "letters": state.get("letters", ""), "finished": bool(state.get("finished"))}
        if state.get("finished"):
            out["grids"] = {p: list(r) for p, r in state.get("grids", {}).items()}
            out["final"] = state.get("final")
        return out

    def player_view(self, state: Mapping[str, Any], player: str) -> dict:
        """The player's own ``grid`` (6 row codes), ``filled`` (letters on it), and for
        the templates ``cells`` (6 x 6, "" empty) and ``grid_text`` (the picture with row
        letters and column numbers); ``{}`` for a key without a grid."""
        rows = state.get("grids", {}).get(player)
        if rows is None:
            return {}
        g = Grid(rows)
        return {"grid": list(g.rows), "filled": g.filled(), "grid_text": "\n".join(g.picture()),
                "cells": [[("" if ch == "." else ch) for ch in r] for r in g.rows]}

    def gm_picture(self, state: Mapping[str, Any], names: Mapping[str, str], *,
                   zat: str | None = None) -> list[Verdict | str]:
        """For the game master: the round, its letters (a verdict, rendered in the game
        master's language) and every grid side by side (text lines), as the final
        Auswertung draws them."""
        rnd, rounds = state["round"], state.get("rounds", ROUNDS)
        letters = state.get("letters", "")
        head: Verdict
        if state.get("finished"):
            head = verdict("gm-head", N_("Runde {round} von {rounds}, beendet"), seen=Visibility.GM,
                           round=rnd, rounds=rounds)
        elif letters:
            head = verdict("gm-head", N_("Runde {round} von {rounds}, ZAT {zat}, Buchstaben {letters}"),
                           seen=Visibility.GM, round=rnd, rounds=rounds, zat=zat or "-", letters=" ".join(letters))
        else:
            head = verdict("gm-head", N_("Runde {round} von {rounds}, ZAT {zat}, Wunschrunde"), seen=Visibility.GM,
                           round=rnd, rounds=rounds, zat=zat or "-")
        keys = list(state.get("players") or state.get("grids", {}))
        grids = state.get("grids", {})
        # whole names (two Annas must be told apart), four grids side by side per block
        width = min(24, max([9] + [len(names.get(k, k)) + 2 for k in keys]))
        lines: list[Verdict | str] = [head]
        for start in range(0, len(keys), 4):
            block = keys[start:start + 4]
            lines += ["", "     " + "".join(f"{names.get(k, k)[:width - 1]:<{width}}" for k in block).rstrip(),
                      "     " + "".join(f"{'123456':<{width}}" for _ in block).rstrip()]
            for r in range(SIZE):
                lines.append(f"  {'ABCDEF'[r]}  " + "".join(
                    f"{Grid(grids.get(k) or Grid.empty().rows).rows[r].replace('.', '·'):<{width}}"
                    for k in block).rstrip())
        return lines

    # -- conformance cases (shared/conformance/README.md) ------------------------------
    def run_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """``kind: "place"``: ``valid`` and ``grid`` or ``reason``; ``kind: "score"``:
        ``score``, ``claims`` (``{"valid", "points"}`` or ``{"valid": false, "reason"}``)
        and ``best``."""
        grid = Grid(case["grid"])
        if case.get("kind") == "place":
            out = check_placement(grid, case["letters"], case["move"])
            if out.valid:
                assert out.grid is not None
                return {"valid": True, "grid": list(out.grid.rows)}
            return {"valid": False, "reason": out.reason}
        if case.get("kind") == "score":
            sc: ScoreOutcome = score_claims(grid, case.get("claims", []), lexicon)
            claims = [{"valid": True, "points": v.points} if v.valid else {"valid": False, "reason": v.reason}
                      for v in sc.claims]
            return {"score": sc.score, "claims": claims, "best": best(grid, lexicon).score}
        raise ValueError(f"unbekannte Fallart {case.get('kind')!r} (place, score)")

    def top_case(self, case: Mapping[str, Any], lexicon: Any) -> dict:
        """The best score of a case's grid: ``score`` and ``move`` (the word list reaching
        it, one ``WORD FROM-TO`` string per word), ``words`` (details)."""
        b = best(Grid(case["grid"]), lexicon)
        return {"move": [w.claim for w in b.words], "score": b.score, "words": [w.to_json() for w in b.words]}


def _nothing() -> Pairs:
    return Pairs(())


class _AllWords:
    """A stand-in lexicon that accepts every word: the acknowledgement judges a word
    list's notation and positions but leaves the word check to the ZAT."""

    def __contains__(self, word: object) -> bool:
        return True

    def has_prefix(self, prefix: str) -> bool:
        return True


__all__ = ["CrosswordRules", "draw_wish", "WISH_WEIGHTS", "Move", "format_claim", "format_placement", "SIZE",
           "LETTERS"]

"""Typ-Dom "Wer behält recht?": the course of a game, turn by turn (pure).

Rule sources: seed 002, "4. Wer behält recht?" (quoted below), with the Kreuzwort-Spiel's
tiles, Jolly rules and word rules ("Für die Verteilung der Spielsteine, die Funktion des
Steines* (Jolly), sowie der Gattung der Wörter ... gelten die Regeln des
Kreuzwort-Spieles") and its end scoring ("Hinsichtlich des Gewinnes und dessen
Errechnung gelten die Spielregeln des Kreuzwort-Spieles"); shared/RULES.md "Typ-Dom"
("one tile per turn in seat order, each turn with its own ZAT") and shared/NOTATION.md
"Typ-Dom" (``COORD LETTER WORD``, ``FERTIG WORD``).

The game, as the bot runs it
----------------------------
One word is built at a time ("Es darf nur an einem Wort gebaut werden, bis dieses
vollendet ist"): its *fragment* is the run of tiles laid so far (with any tiles of
other words it runs through), its *announcement* (Ansage) the word someone named, whose
*author* (Urheber) that player is. A turn is one of:

- ``COORD LETTER [WORD]``: lay one tile at either end of the fragment ("setzt ... einen
  Stein vorne oder rückwärts dazu") and name a word that holds the grown fragment
  unbroken ("welches die wachsende Buchstabenverbindung geschlossen beinhaltet"): a new
  word makes the player its author; the same word (or none written) keeps the
  announcement and its author ("setzt er die Buchstaben in das Wortgebilde seines
  Vorgängers").
- Starting a word: the first tile of the game lies on the centre M13 ("legt einen
  Buchstaben in der Mitte des Tisches sichtbar auf"); a later word starts with a tile
  beside a tile of the word just finished, across it, so that the new word crosses it
  ("so an, daß das neu entstehende Wort das beendete kreuzt").
- ``FERTIG WORD``: the author lays every missing tile of their announcement. This is
  due, and the only turn allowed, when the announcement comes back to its author
  unchanged ("Hat ein genanntes Wort eine Runde unverändert hinter sich ... so muß der
  Urheber dieses Wortes dieses zur Gänze vollenden und ein neues beginnen").
- ``KAUFEN``: buy a tile; the buyer then has a second turn (its own ZAT) to lay a tile
  or pass ("kauft einen Buchstaben und kann, wenn die Möglichkeit gegeben ist,
  ansetzen, andernfalls weitermelden"). ``PASSE`` is that pass (or a turn when the pool
  is empty).
- ``JOLLY COORD; ...``: first take a Jolly not enclosed on three sides by laying the
  letter it shows (Kreuzwort-Spiel rule); the taker may use it in the same turn.

The rooms: :mod:`.wbr_notation` reads and writes a turn line, :mod:`.wbr_judge` judges a
turn (its checks and reason codes) into an :class:`~.wbr_outcome.Outcome`,
:mod:`.wbr_fit` says where a named word fits; this module keeps the state: a new game,
the state after a valid turn (:func:`apply`), after no valid turn (:func:`skip`) or a
player's leaving (:func:`leave`), dropouts and the end.

Decisions where the seed is silent (also in docs/rules/typdom-wbr.md):

- Who goes next: seat order among the players still in. A finished word is followed by
  a new one from its author, skipping the seats between ("auch wenn er nicht an der
  Reihe wäre ... Die übergangenen Mitspieler werden dabei ausgelassen"); a word finished
  by the tile of the player who named it is followed by the next seat ("so beginnt der
  nächste in der Runde ein neues Wort"); after ``FERTIG`` the author starts the next word
  in a turn of their own.
- Dropping out: when the completion falls due and the author's rack (Jollys included)
  cannot lay the missing tiles anywhere the word fits, the author drops out at once
  ("Sollte ihm aber dabei ein nötiger Buchstabe fehlen, so scheidet der betreffende
  Spieler aus und zahlt jedem Mitspieler die ihm verbleibenden Punkte"): they pay every
  player still in the value of their rack (black 1, red 3, Jolly 10). The unfinished
  word stays on the table as it is; the next seat starts a new word across it.
- No move by the ZAT (or none valid): the player buys a tile and is skipped (issue 12);
  in the turn after a purchase nothing more is bought (the player passes). The pool
  empty: nothing is bought.
- End (Kreuzwort-Spiel scoring): the first player with an empty rack wins at once and
  receives from every other player still in 1 per black, 3 per red tile and 10 per
  Jolly left. A game that cannot end so (the pool empty and a whole round of turns
  without a tile laid, or the league's turn cap): the lowest rest wins and is paid the
  same way; equal lowest: nobody wins, nobody pays ("Bei gleicher Punkteanzahl ist kein
  Gewinner"). A player left alone after the others dropped out wins (already paid).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bot.games.typdom.deal import draw
from bot.games.typdom.scoring import end_scores
from bot.games.typdom.table import Table, coord_name
from bot.games.typdom.tiles import left_value, sort_rack
from bot.games.typdom.wbr_fit import WordList, can_complete, letters_on, span_of
from bot.games.typdom.wbr_outcome import Outcome
from bot.games.verdict import N_

__all__ = ["DUTIES", "FIRST_DUTY", "new_state", "apply", "skip", "leave", "finish_over_limit"]

DUTIES: dict[str, str] = {
    "start": N_("beginnt ein neues Wort"),
    "continue": N_("baut weiter (Stein anlegen und Wort ansagen) oder kauft"),
    "complete": N_("muss das angesagte Wort jetzt vollenden (FERTIG)"),
    "after_buy": N_("hat gekauft und darf jetzt legen oder passen"),
}
#: The duty of the very first turn (the table is empty).
FIRST_DUTY = N_("legt den ersten Stein auf M13 und sagt ein Wort an")


def new_state(*, racks: Mapping[str, str], pool: str, seat_order: Sequence[str], start: Mapping[str, Any],
              rounds: int) -> dict:
    """A new game: the empty table, the first seat to lay on M13."""
    return {"variant": "wbr", "round": 1, "rounds": rounds, "board": Table.empty().rows, "racks": dict(racks),
            "pool": pool, "seat_order": list(seat_order), "start": dict(start), "active": list(seat_order),
            "out": [], "mover": seat_order[0], "duty": "start", "base_duty": None, "word": None, "cross": None,
            "quiet": 0, "finished": False, "end": None, "words_done": [], "history": []}


def _next(state: Mapping[str, Any], player: str) -> str:
    """The next seat after ``player`` among those still in."""
    order = state["seat_order"]
    active = set(state["active"])
    i = order.index(player)
    for k in range(1, len(order) + 1):
        q = order[(i + k) % len(order)]
        if q in active:
            return q
    return player



def _record(state: Mapping[str, Any], player: str, kind: str, **kw: Any) -> dict:
    rec = {"turn": int(state["round"]), "player": player, "kind": kind, "duty": state["duty"], "notation": None,
           "summary": "", "tiles": [], "take": None, "announced": None, "new": False, "author": None,
           "fragment": "", "span": "", "premium": None, "completed": None, "contacts": [], "bought": 0,
           "pool_empty": False, "dropouts": [], "failed": []}
    rec.update(kw)
    return rec


def apply(state: Mapping[str, Any], player: str, out: Outcome, lexicon: WordList) -> tuple[dict, dict]:
    """The state after ``player``'s valid turn ``out`` (the next mover set, purchases
    drawn from the front of the pool, dropouts and the end scored), and the turn's public
    record."""
    st = _copy(state)
    table = Table.from_rows(st["board"])
    rec = _record(st, player, out.kind, notation=out.notation, summary=out.summary().to_json())
    st["base_duty"] = None
    if out.kind == "kaufen":
        got, st["pool"] = draw(st["pool"], 1, out.colour)
        st["racks"][player] = sort_rack(st["racks"][player] + got)
        st["bought"] = got  # private: the buyer's (the record says only how many)
        rec.update(bought=len(got))
        st["quiet"] = st.get("quiet", 0) + (0 if got else 1)
        st["base_duty"] = st["duty"]
        st["duty"] = "after_buy"
        return _advance(st, rec, player, lexicon, stay=True)
    if out.kind == "passe":
        if not st["pool"]:
            st["quiet"] = st.get("quiet", 0) + 1
        return _advance(st, rec, player, lexicon)
    # tiles laid (a lay or FERTIG)
    if out.take:
        table = table.replace(out.take["row"], out.take["col"], Table.TILE(out.take["letter"], False))
    table = table.place(out.tiles)
    st["board"] = table.rows
    st["racks"][player] = out.rack_after
    st["quiet"] = 0
    rec.update(tiles=[{"coord": coord_name(t.row, t.col), "letter": t.letter, "jolly": t.blank} for t in out.tiles],
               take=out.take, announced=out.announced, new=out.new, author=out.author,
               fragment=letters_on(table, out.fragment), span=span_of(out.fragment), premium=out.premium,
               contacts=out.contacts)
    word = {"announced": out.announced, "author": out.author, "squares": [list(q) for q in out.fragment],
            "direction": out.direction, "since": st["round"] if out.new else (st.get("word") or {}).get("since")}
    if out.completed:
        rec["completed"] = out.announced
        st["words_done"] = st.get("words_done", []) + [{"word": out.announced, "author": out.author,
                                                        "squares": word["squares"], "direction": out.direction}]
        st["word"] = None
        st["cross"] = {"word": out.announced, "squares": word["squares"], "direction": out.direction}
    else:
        st["word"] = word
    if not st["racks"][player]:
        return _finish(st, rec, first_out=player)
    if out.completed:
        if out.kind == "fertig":
            nxt = player  # "muß ... vollenden und ein neues beginnen"
        elif out.new:
            nxt = _next(st, player)  # "so beginnt der nächste in der Runde ein neues Wort"
        else:
            nxt = out.author if out.author in st["active"] else _next(st, player)  # "der Urheber ... beginnt"
        st["mover"], st["duty"] = nxt, "start"
        return _settle(st, rec, lexicon)
    return _advance(st, rec, player, lexicon)


def skip(state: Mapping[str, Any], player: str, lexicon: WordList, *, kind: str = "nmr",
         failed: Sequence[dict] = ()) -> tuple[dict, dict]:
    """No valid move by the ZAT: the player buys a tile and is skipped (after a purchase:
    passes). Returns the state after and the turn's record."""
    st = _copy(state)
    rec = _record(st, player, kind, failed=list(failed))
    if st["duty"] != "after_buy":
        got, st["pool"] = draw(st["pool"], 1, None)
        st["racks"][player] = sort_rack(st["racks"][player] + got)
        st["bought"] = got  # private: the buyer's (the record says only how many)
        rec.update(bought=len(got), pool_empty=not got)
        if not got:
            st["quiet"] = st.get("quiet", 0) + 1
    elif not st["pool"]:
        st["quiet"] = st.get("quiet", 0) + 1
    st["base_duty"] = None
    return _advance(st, rec, player, lexicon)


def leave(state: Mapping[str, Any], player: str, lexicon: WordList) -> tuple[dict, dict]:
    """The player to move has left the league (removed by the game master): out of the
    game without paying; a word of theirs in progress is given up like a dropout's."""
    st = _copy(state)
    rec = _record(st, player, "removed")
    nxt = _next(st, player)
    st["active"].remove(player)
    st["out"].append(player)
    word = st.get("word")
    if word and word["author"] == player:
        st["words_done"] = st.get("words_done", []) + [_given_up(word)]
        st["cross"] = {"word": None, "squares": word["squares"], "direction": word.get("direction")}
        st["word"] = None
    st["mover"] = nxt
    st["duty"] = "complete" if st.get("word") and st["word"]["author"] == nxt else ("continue" if st.get("word")
                                                                                      else "start")
    if len(st["active"]) == 1:
        return _finish(st, rec, first_out=None, alone=st["active"][0])
    return _settle(st, rec, lexicon)


def _given_up(word: Mapping[str, Any]) -> dict:
    """The record of an unfinished word left on the table (its author dropped out)."""
    return {"word": word["announced"], "author": word["author"], "squares": word["squares"],
            "direction": word.get("direction"), "abandoned": True}


def _copy(state: Mapping[str, Any]) -> dict:
    st = dict(state)
    st["racks"] = dict(state["racks"])
    st["active"] = list(state["active"])
    st["out"] = list(state.get("out", []))
    return st


def _advance(st: dict, rec: dict, player: str, lexicon: WordList, stay: bool = False) -> tuple[dict, dict]:
    """Move on to the next seat (``stay``: the same player, after a purchase) and settle."""
    if not stay:
        nxt = _next(st, player)
        st["mover"] = nxt
        word = st.get("word")
        if word and word["author"] == nxt:
            st["duty"] = "complete"
        else:
            st["duty"] = "continue" if word else "start"
    return _settle(st, rec, lexicon)


def _settle(st: dict, rec: dict, lexicon: WordList) -> tuple[dict, dict]:
    """Drop out every author who cannot complete a due word, then check the end."""
    while st["duty"] == "complete" and not can_complete(st, lexicon):
        gone = st["mover"]
        rest = st["racks"].get(gone, "")
        pay = sum(left_value(t) for t in rest)
        others = [p for p in st["active"] if p != gone]
        word = st["word"]
        rec["dropouts"].append({"player": gone, "word": word["announced"], "rest": rest, "pays": pay,
                                "to": others})
        nxt = _next(st, gone)
        st["active"].remove(gone)
        st["out"].append(gone)
        st.setdefault("payments", []).append({"turn": st["round"], "from": gone, "to": others, "each": pay,
                                             "word": word["announced"]})
        st["words_done"] = st.get("words_done", []) + [_given_up(word)]
        st["cross"] = {"word": None, "squares": word["squares"], "direction": word.get("direction")}
        st["word"] = None
        st["mover"], st["duty"] = nxt, "start"
        if len(st["active"]) == 1:
            return _finish(st, rec, first_out=None, alone=st["active"][0])
    if not st["pool"] and st.get("quiet", 0) >= len(st["active"]):
        return _finish(st, rec, first_out=None, blocked=True)
    st["round"] = int(st["round"]) + 1
    rec["next"] = {"player": st["mover"], "duty": st["duty"]}
    st["history"] = list(st.get("history", [])) + [rec]
    return st, rec


def _finish(st: dict, rec: dict, *, first_out: str | None, blocked: bool = False, alone: str | None = None,
            over_limit: bool = False) -> tuple[dict, dict]:
    """The end: the Kreuzwort-Spiel's scoring among the players still in."""
    order = [p for p in st["seat_order"] if p in st["active"]]
    if alone is not None:
        scores = {alone: {"rest": st["racks"].get(alone, ""), "paid": 0, "received": 0, "points": 0, "winner": True}}
    else:
        scores = end_scores("kreuzwort", {p: st["racks"][p] for p in order}, order, first_out)
    st["finished"] = True
    st["end"] = {"first_out": first_out, "blocked": blocked, "alone": alone, "over_limit": over_limit,
                 "scores": scores}
    rec["next"] = None
    st["history"] = list(st.get("history", [])) + [rec]
    return st, rec


def finish_over_limit(state: Mapping[str, Any]) -> dict:
    """The state of a game stopped by the league's turn cap (the turn just played is
    the last), scored like a blocked one."""
    st = _copy(state)
    hist = list(st.get("history", []))
    rec = dict(hist.pop()) if hist else _record(st, st["mover"], "limit")
    st["history"] = hist
    st["round"] = max(1, int(st["round"]) - 1) if rec.get("next") else st["round"]
    st, _ = _finish(st, rec, first_out=None, over_limit=True)
    return st

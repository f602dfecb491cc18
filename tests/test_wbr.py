"""Typ-Dom "Wer behält recht?" (seed 002, section 4): the turn notation, the own cases, and
whole games played turn by turn: keeping and changing the announcement, the completion due
after a round unchanged, who starts the next word (the author, skipping seats; the next seat
after a word finished by its own announcer), the premiums, buying and passing, dropping out
with payments, going out, a blocked game, the turn cap, a player removed; the game class
with its early turn end and zero-sum points."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.conformance import case_lexicon, read_cases
from bot.games import get_game
from bot.games.base import NotationError
from bot.games.typdom import wbr, wbr_judge, wbr_notation
from bot.games.typdom.table import Table
from bot.games.verdict import Verdict
from bot.lexicon import Lexicon

OWN = read_cases([Path(__file__).parent / "cases" / "wbr_own.json"])
LEX = Lexicon.from_words(["ESEL", "ESELN", "BESEN", "HASE", "HE", "SEE", "ES", "SO", "OH", "EL", "SOHN", "NASE"],
                         "typdom")


def said(summary: dict) -> str:
    """A turn record's summary (a public verdict's JSON) as everybody reads it."""
    from bot.games.verdict import PUBLIC
    return Verdict.from_json(summary).render("de", PUBLIC)


@pytest.mark.parametrize("case", OWN, ids=[c["id"] for c in OWN])
def test_case(case):
    game = get_game("typdom-wbr")
    got = game.run_case(case, case_lexicon(case, game))
    assert {k: got.get(k) for k in case["expect"]} == case["expect"]


def test_own_cases_cover_every_reason_and_duty():
    assert {c["expect"].get("reason") for c in OWN} - {None} == set(wbr_judge.REASONS)
    assert {c["duty"] for c in OWN} == set(wbr.DUTIES)
    assert {c["expect"].get("premium") for c in OWN if c["expect"]["valid"]} >= {"quadrat", "selbstlaut"}


# -- notation -----------------------------------------------------------------------------------

@pytest.mark.parametrize("line,canon", [
    ("M13 E ESEL", "M13 E ESEL"), ("13m e esel", "M13 E ESEL"), ("N13 S", "N13 S"),
    ("L13 *H HESEL", "L13 *H HESEL"), ("N14 A HASE; N15 S", "N14 A HASE; N15 S"),
    ("N14 A; N15 S HASE", "N14 A HASE; N15 S"), ("FERTIG ESEL", "FERTIG ESEL"),
    ("fertig m13w e*sel", "FERTIG M13w E*SEL"), ("JOLLY M13; N13 E ESEL", "JOLLY M13; N13 E ESEL"),
    ("KAUFEN", "KAUFEN"), ("kaufe rot", "KAUFEN rot"), ("Passe.", "PASSE"), ("M13 E ÄSEN", "M13 E AESEN"),
])
def test_turns_read_and_write(line, canon):
    turn = wbr_notation.parse_turn(line)
    assert wbr_notation.format_turn(turn) == canon
    assert wbr_notation.parse_turn(wbr_notation.format_turn(turn)) == turn


@pytest.mark.parametrize("line,meant", [("Hallo zusammen", False), ("M13 E ESEL; N13 S HASE", True),
                                        ("M13 E; N13 S; O13 E", True), ("FERTIG", True)])
def test_bad_lines(line, meant):
    with pytest.raises(NotationError) as exc:
        wbr_notation.parse_turn(line)
    assert exc.value.meant == meant


# -- whole games --------------------------------------------------------------------------------

def _new(racks, pool="EEIRTN", order=None):
    order = order or list(racks)
    return wbr.new_state(racks=racks, pool=pool, seat_order=order, start={}, rounds=100)


def play(st, player, line, lex=LEX):
    assert st["mover"] == player
    out = wbr_judge.evaluate(st, player, line, lex)
    assert out.valid, (line, out.reason, out.message)
    after, rec = wbr.apply(st, player, out, lex)
    assert rec["player"] == player
    return after, rec


def test_a_word_comes_round_is_completed_and_the_author_starts_again():
    st = _new({"A": "EELSSHT", "B": "AEHSU", "C": "BENOS"})
    st, rec = play(st, "A", "M13 E ESEL")
    assert (st["mover"], st["duty"], st["word"]["author"]) == ("B", "continue", "A")
    st, _ = play(st, "B", "N13 S")
    st, rec = play(st, "C", "O13 E")
    assert rec["next"] == {"player": "A", "duty": "complete"}  # "eine Runde unverändert hinter sich"
    assert wbr_judge.evaluate(st, "A", "P13 L ESELN", LEX).reason == "duty"
    st, rec = play(st, "A", "FERTIG ESEL")
    assert rec["completed"] == "ESEL" and rec["tiles"] == [{"coord": "P13", "letter": "L", "jolly": False}]
    assert (st["mover"], st["duty"], st["word"]) == ("A", "start", None)  # "und ein neues beginnen"
    assert st["cross"]["word"] == "ESEL" and st["round"] == 5
    assert Table.from_rows(st["board"]).rows[12][12:16] == "ESEL"


def test_a_changed_announcement_makes_a_new_author():
    st = _new({"A": "EELSSHT", "B": "BAEHSU", "C": "BENOS"})
    st, _ = play(st, "A", "M13 E ESEL")
    st, _ = play(st, "B", "N13 S")
    st, rec = play(st, "C", "L13 B BESEN")
    assert rec["new"] and st["word"]["author"] == "C" and st["word"]["announced"] == "BESEN"
    assert (st["mover"], st["duty"]) == ("A", "continue")  # A's word was changed: no duty to complete


def test_a_word_finished_by_another_tile_passes_the_start_to_its_author_skipping_seats():
    st = _new({"A": "SET", "B": "EHN", "C": "EOS", "D": "AHN"})
    st, _ = play(st, "A", "M13 S SEE")
    st, _ = play(st, "B", "N13 E")
    st, rec = play(st, "C", "O13 E")
    assert rec["completed"] == "SEE" and rec["next"] == {"player": "A", "duty": "start"}  # D is skipped


def test_a_word_finished_by_its_own_announcer_passes_the_start_to_the_next_seat():
    st = _new({"A": "EELT", "B": "SHN", "C": "EOS"})
    st, _ = play(st, "A", "M13 E ESEL")
    st, rec = play(st, "B", "N13 S ES")
    assert rec["completed"] == "ES" and rec["new"] and rec["next"] == {"player": "C", "duty": "start"}
    out = wbr_judge.evaluate(st, "C", "O13 O", LEX)
    assert out.reason == "position"  # in line: extends ES, does not cross it
    st, rec = play(st, "C", "N14 O SO")
    assert rec["completed"] == "SO" and rec["next"]["player"] == "A"


def test_premium_tile_for_a_crossing_in_a_vowel_and_a_dropout_with_payments():
    st = _new({"A": "EELSSHT", "B": "AEHSU", "C": "BENOS"}, pool="EE")
    st, _ = play(st, "A", "M13 E ESEL")
    st, _ = play(st, "B", "N13 S")
    st, _ = play(st, "C", "O13 E")
    st, _ = play(st, "A", "FERTIG ESEL")
    _, single = play(st, "A", "M14 S ESEL")  # the premium earned, the second tile not laid
    assert single["premium"] == "selbstlaut"
    assert said(single["summary"]) == "legt S auf M14 (Prämie nicht genutzt: Kreuzung im Selbstlaut), sagt ESEL an"
    st, rec = play(st, "A", "M14 S ESEL; M15 E")
    assert rec["premium"] == "selbstlaut" and rec["fragment"] == "ESE" and rec["span"] == "M13-M15"
    assert said(rec["summary"]) == ("legt S auf M14, E auf M15 (zweiter Stein als Prämie: Kreuzung im Selbstlaut), "
                                    "sagt ESEL an")
    assert st["racks"]["A"] == "HST"
    st, rec = play(st, "B", "KAUFEN")
    assert (st["mover"], st["duty"], st["racks"]["B"]) == ("B", "after_buy", "AEEHU")
    assert wbr_judge.evaluate(st, "B", "KAUFEN", LEX).reason == "duty"
    st, rec = play(st, "B", "PASSE")
    assert st["mover"] == "C"
    # C sends nothing: buys the last tile and is skipped; A's ESEL came round, A has no L
    st, rec = wbr.skip(st, "C", LEX)
    assert rec["bought"] == 1 and st["pool"] == ""
    assert rec["dropouts"] == [{"player": "A", "word": "ESEL", "rest": "HST", "pays": 3, "to": ["B", "C"]}]
    assert st["active"] == ["B", "C"] and st["out"] == ["A"]
    assert (st["mover"], st["duty"]) == ("B", "start")  # the next seat starts across the unfinished word
    st, rec = play(st, "B", "L15 H HE")
    assert rec["completed"] == "HE" and rec["next"] == {"player": "C", "duty": "start"}
    game = get_game("typdom-wbr")
    assert game.movers(st) == ["C"]


def test_square_premium():
    rows = [list("." * 25) for _ in range(25)]
    for r, c, ch in [(13, 13, "E"), (13, 14, "S"), (12, 14, "O"), (12, 15, "H")]:
        rows[r - 1][c - 1] = ch
    st = _new({"A": "ELT", "B": "N"})
    st.update(board=["".join(r) for r in rows], duty="continue",
              word={"announced": "ESEL", "author": "B", "squares": [[13, 13], [13, 14]], "direction": "w", "since": 1})
    st, rec = play(st, "A", "O13 E; P13 L")
    assert rec["premium"] == "quadrat" and rec["completed"] == "ESEL" and rec["contacts"] == ["HE"]


def test_going_out_wins_with_the_kreuzwort_scoring():
    st = _new({"A": "E", "B": "#AS", "C": "BN"})  # rests: B 10 + 3 + 1, C 1 + 1
    st, rec = play(st, "A", "M13 E ESEL")
    assert st["finished"] and rec["next"] is None
    end = st["end"]
    assert end["first_out"] == "A"
    assert {p: e["points"] for p, e in end["scores"].items()} == {"A": 16, "B": -14, "C": -2}


def test_a_blocked_game_ends_with_the_lowest_rest_winning():
    st = _new({"A": "XQ", "B": "Y"}, pool="")  # rests: A 1 + 1, B 3 (red)
    st, rec = play(st, "A", "PASSE")
    assert not st["finished"]
    st, rec = wbr.skip(st, "B", LEX)  # NMR with the pool empty: nothing bought
    assert rec["pool_empty"] and st["finished"] and st["end"]["blocked"]
    assert {p: e["points"] for p, e in st["end"]["scores"].items()} == {"A": 3, "B": -3}


def test_turn_cap_and_a_removed_player():
    game = get_game("typdom-wbr")
    st = game.new_partie(seed="1", partie="W1", players=["a", "b", "c"], options={"rounds": 2})
    first = st["mover"]
    rep = game.adjudicate(st, {first: None}, LEX, seed="1", partie="W1")
    after = rep.state_after
    assert not after["finished"] and after["round"] == 2 and len(after["racks"][first]) == 14
    second = after["mover"]
    rep = game.adjudicate(after, {}, LEX, seed="1", partie="W1")  # the mover was removed by the GM
    done = rep.state_after
    assert second in done["out"] and done["finished"] and done["end"]["over_limit"]
    assert sum(p.points for p in rep.players) == 0


def test_game_class_turn_end_points_and_views():
    game = get_game("typdom-wbr")
    st = game.new_partie(seed="5", partie="W1", players=["a", "b"])
    assert game.check_players(["a"]) and game.check_players(list("abcdef")) and not game.check_players(["a", "b"])
    mover, other = st["mover"], next(p for p in st["seat_order"] if p != st["mover"])
    assert game.movers(st) == [mover] and len(st["racks"][mover]) == 13
    st["racks"][mover] = "E"
    assert not game.round_complete(st, {mover: ["M14 E ESEL"]}, LEX)
    assert game.round_complete(st, {mover: ["M14 E ESEL", "M13 E ESEL"]}, LEX)
    ack = game.check_line(st, "M13 E ESEL", LEX, player=mover)
    assert ack.valid and ack.detail["summary"].text() == "legt E auf M13, sagt ESEL an"
    assert ack.detail["picture"][2] == "13  · E ·"
    rep = game.adjudicate(st, {mover: ["M14 E ESEL", "M13 E ESEL"]}, LEX, seed="5", partie="W1")
    assert rep.players[0].counted == 1 and rep.players[0].moves[0].reason == "position"
    pts = {p.player: p.points for p in rep.players}
    assert pts[mover] > 0 and pts[mover] == -pts[other] and rep.state_after["finished"]
    view = game.public_view(st)
    assert view["mover"] == mover and view["duty"] == "start" and "racks" not in view
    assert game.player_view(st, mover)["rack"] == "E"


def test_a_failed_line_is_the_movers_alone():
    """Issue 31: an invalid line's verdict names the rack and is the mover's; others see that
    it failed, never its text or why; the turn record keeps only the failed line's index."""
    from bot.games.base import PUBLIC, Audience, PrivacyError
    game = get_game("typdom-wbr")
    st = _new({"A": "EEHST", "B": "OS"})
    out = wbr_judge.evaluate(st, "A", "M13 Q QUARZ", LEX)
    assert out.reason == "rack" and out.message == "Nicht auf deiner Bank (EEHST): Q."
    with pytest.raises(PrivacyError):
        out.verdict.render("de", PUBLIC)
    assert out.verdict.render("nl") == "Niet op je plankje (EEHST): Q."
    rep = game.adjudicate(st, {"A": ["M13 Q QUARZ", "M13 *E ESEL", "M13 E ESEL", "M13 S ESEL"]}, LEX,
                          seed="1", partie="W1")
    rec = rep.board_move["turn"]
    assert rec["failed"] == [{"index": 0}, {"index": 1}] and "bought_tiles" not in rec
    assert said(rec["summary"]) == "legt E auf M13, sagt ESEL an"
    pl = rep.players[0].to_json()
    mover = game.seen_by(pl, Audience(viewer="A"), rep.state_after)
    assert [m["message"] for m in mover["moves"][:2]] == ["Nicht auf deiner Bank (EEHST): Q.",
                                                        "Nicht auf deiner Bank (EEHST): *."]
    other = game.seen_by(pl, Audience(viewer="B"), rep.state_after)
    assert [(m["text"], m["message"], m["reason"]) for m in other["moves"]] == [
        ("(nicht gezeigt)", "ungültig", None), ("(nicht gezeigt)", "ungültig", None),
        ("M13 E ESEL", "legt E auf M13, sagt ESEL an", None),
        ("(nicht gezeigt)", "nicht mehr probiert", None)]
    assert "EEHST" not in str(game.seen_by(pl, PUBLIC, rep.state_after))


def test_a_turn_record_stored_before_issue_31_shows_nothing_of_a_failed_line():
    game = get_game("typdom-wbr")
    st = _new({"A": "EEHST", "B": "OS"})
    st["history"] = [{"turn": 1, "player": "A", "kind": "invalid", "summary": "", "bought": 1, "bought_tiles": "Q",
                      "failed": [{"index": 0, "text": "M13 Q QUARZ", "reason": "rack", "gloss": "Steine nicht auf der "
                                  "Bank", "message": "Steine, die nicht auf der Bank sind: Q."}]}]
    last = game.public_view(st)["last_turn"]
    assert last["failed"] == [{"index": 0}] and "bought_tiles" not in last and last["bought"] == 1
    assert "Q" not in str(last)

"""Typ-Dom Presto (seed 002, "2. Presto"): the crossword notation, the judgement with every
problem named, the existence search (against the rules' own judge), the deal, the race by
arrival time with its early end, the one-tile-left option and the views."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from bot.conformance import case_lexicon, read_cases
from bot.games import get_game
from bot.games.base import GM_ONLY, PUBLIC, NotationError, PrivacyError
from bot.games.typdom.deal import deal
from bot.games.typdom.presto import REASONS, Crossword, format_crossword, judge, parse_crossword, parse_line
from bot.games.typdom.presto_game import SETS
from bot.games.typdom.search import find_crossword
from bot.games.typdom.tiles import full_set
from bot.lexicon import Lexicon, load
from bot.submission import read_submission
from bot.games.typdom.words import WORD_RULES as TYPDOM_RULES  # the typdom list's build layer

CASES = Path(__file__).parent / "cases" / "presto_own.json"
OWN = read_cases([CASES])
LEX = Lexicon.from_words(["HAUS", "HUT", "HAUT", "TAU", "UTE", "AXT", "SO", "OH"], "typdom")
T0 = datetime(2026, 12, 6, 19, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("case", OWN, ids=[c["id"] for c in OWN])
def test_case(case):
    game = get_game("typdom-presto")
    got = game.run_case(case, case_lexicon(case, game))
    assert {k: got.get(k) for k in case["expect"]} == case["expect"]


def test_own_cases_cover_every_reason_and_the_search():
    reasons = {c["expect"].get("reason") for c in OWN} - {None}
    assert reasons == set(REASONS)
    assert {c["expect"].get("status") for c in OWN if c.get("kind") == "search"} == {"found", "none"}


# -- notation -----------------------------------------------------------------------------------

def test_lines_read_and_write_symmetrically():
    assert parse_line("HAUS..t") == "HAUS..T"
    assert parse_line("..*E-S_") == "..e.S."
    assert parse_line("H A U S") == "HAUS"
    assert parse_line("·Ä·") == ".AE."
    cw = parse_crossword("..K\nHAUS\n\n..*R\n")
    assert cw.rows == ("..K.", "HAUS", "..r.")
    assert format_crossword(cw) == ["..K", "HAUS", "..*R"]
    assert parse_crossword("\n".join(format_crossword(cw))) == cw
    assert cw.tiles()[-1] == (3, 3, "R", True) and cw.used() == Counter("KHAUS#")


@pytest.mark.parametrize("line", ["Mein Kreuzwort", "HA US", "H1", "A*", "Gruß!"])
def test_prose_is_no_crossword_line(line):
    with pytest.raises(NotationError):
        parse_line(line)


def test_crossword_errors_name_the_line():
    with pytest.raises(NotationError, match="Zeile 2"):
        parse_crossword("HAUS\nnicht hier")
    with pytest.raises(NotationError, match="Kein Stein"):
        parse_crossword("...\n..")
    with pytest.raises(NotationError, match="26 Zeilen"):
        parse_crossword("\n".join(["A"] * 26))


def test_a_presto_mail_is_read_into_one_section():
    """Greeting, signature and a closing around the crossword are no part of it."""
    game = get_game("typdom-presto")
    text = "Hallo Spielleiter,\n\nhier mein Kreuzwort:\n\n..K\nHAUS\n..R\n\nViele Grüße\nAnna"
    read = read_submission(text, game, ["P1"], player_names=["Anna Albers"])
    assert [s.moves for s in read.sections] == [["..K", "HAUS", "..R"]]


def test_rows_that_are_greeting_words_stay_in_the_crossword():
    game = get_game("typdom-presto")
    text = "Hallo,\n\nMIT\n..ICH\nDIE\n\nMit freundlichen Grüßen\nAnna"
    read = read_submission(text, game, ["P1"], player_names=["Anna Albers"])
    assert [s.moves for s in read.sections] == [["MIT", "..ICH", "DIE"]]


# -- the judgement ------------------------------------------------------------------------------

def test_every_problem_is_named_precisely():
    v = judge("HAUS\n.\nXUT", "AHSTUUE", LEX)
    assert not v.valid and v.reason == "foreign"
    assert [p.code for p in v.problems] == ["foreign", "unused", "disconnected", "word"]
    text = v.message
    assert "nicht in deinem Satz (AEHSTUU) sind: X." in text
    assert "Nicht verbaut: E (1 Stein)" in text
    assert "XUT ab A3 berührt den Rest nicht" in text
    assert "XUT (A3-C3)" in text


def test_a_jolly_is_written_with_a_star():
    v = judge("HAUS\nU\nT", "?AHSTU", LEX)
    assert v.reason == "foreign" and "Ein Jolly wird mit Stern geschrieben" in v.message
    assert judge("HAUS\n*U\nT", "?AHSTU", LEX).valid


def test_words_both_ways_with_coordinates():
    v = judge("HAUT\nU..O\nT..H", "AHHOTTUU", Lexicon.from_words(["HAUT", "HUT", "TOH"], "typdom"))
    assert v.valid and v.words == [("HAUT", "A1-D1"), ("HUT", "A1-A3"), ("TOH", "D1-D3")]
    assert v.crossword.picture()[:2] == ["    A B C D", " 1  H A U T"]


# -- the search ---------------------------------------------------------------------------------

def test_search_finds_a_complete_crossword_for_dealt_sets():
    """On the full lexicon: every crossword found uses exactly the set and is valid by the
    rules' own judge (which the search calls itself; checked again here)."""
    lex = load("typdom", rules=TYPDOM_RULES)
    found = 0
    for n, (black, red) in SETS.items():
        racks, _ = deal("7", "P1", [str(i) for i in range(n)], black, red)
        for rack in list(racks.values())[:2]:
            proof = find_crossword(rack, lex)
            assert proof.status in ("found", "none", "open")
            if proof.status == "found":
                found += 1
                cw = Crossword(tuple(proof.rows))
                assert cw.used() == Counter(rack)
                assert judge(cw, rack, lex).valid
                assert sorted(proof.words) == sorted(w for w, _ in judge(cw, rack, lex).words)
    assert found >= 5


def test_search_proves_a_lonely_letter():
    proof = find_crossword("AEHQSTU", LEX)
    assert proof.status == "none" and proof.lonely == "Q" and proof.rows == []


def test_search_budget_is_counted_in_steps():
    lex = load("typdom", rules=TYPDOM_RULES)
    racks, _ = deal("1", "P1", ["a", "b", "c", "d"], 12, 7)
    rack = next(iter(racks.values()))
    assert find_crossword(rack, lex, budget=1).status in ("open", "none", "found")
    a, b = find_crossword(rack, lex), find_crossword(rack, lex)
    assert a.to_json() == b.to_json()  # reproducible: no clock involved


# -- the game -----------------------------------------------------------------------------------

def test_sets_by_player_count():
    game = get_game("typdom-presto")
    for n, (black, red) in SETS.items():
        keys = [str(i) for i in range(n)]
        st = game.new_partie(seed="3", partie="P1", players=keys)
        sets = st["racks"]
        assert all(sum(1 for t in r if t in "AEIOUY?") == red and len(r) == black + red for r in sets.values())
        assert not Counter("".join(sets.values())) - Counter(full_set())
    assert game.check_players(["1", "2", "3"]).text() == "Typ-Dom Presto braucht 4 bis 6 Spieler, die Ligadatei hat 3."
    assert game.check_players([str(i) for i in range(7)])
    assert game.check_players([str(i) for i in range(4)]) is None


def _state(one_left=False):
    return {"variant": "presto", "round": 1, "racks": {"a": "AHSTUU", "b": "AHSTUU", "c": "AEHSTUU", "d": "AHSTUU"},
            "rack_size": [3, 3], "one_left": one_left, "players": ["a", "b", "c", "d"], "finished": False,
            "result": None}


GOOD = "HAUS\nU\nT"


def test_the_race_closes_with_the_second_valid_crossword():
    game = get_game("typdom-presto")
    st = _state()
    subs = {"a": [GOOD], "b": None, "c": [GOOD], "d": None}
    assert not game.round_complete(st, subs, LEX)  # c has an E left: not a finish
    subs["b"] = [GOOD]
    assert game.round_complete(st, subs, LEX)
    subs["d"] = [GOOD]  # read in the same poll as b's, but earlier by its arrival
    received = {"a": T0 + timedelta(seconds=30), "b": T0 + timedelta(seconds=50), "c": T0,
                "d": T0 + timedelta(seconds=10)}
    rep = game.adjudicate(st, subs, LEX, seed="1", partie="P1", received=received, search=False)
    ranking = [(r["player"], r["place"], r["points"], r["late"]) for r in rep.board_move["ranking"]]
    assert ranking == [("d", 1, 4, False), ("a", 2, 2, False), ("b", 3, 0, True)]
    assert {p.player: p.points for p in rep.players} == {"a": 2, "b": 0, "c": 0, "d": 4}
    res = rep.state_after["result"]
    assert res["closed"] == {"by": "second", "at": received["a"].isoformat()}
    # the public result says only that c's crossword failed; why is c's alone (issue 31)
    assert res["verdicts"]["c"] == {"kind": "invalid"}
    c_moves = next(p for p in rep.players if p.player == "c").moves
    assert c_moves[0].reason == "unused" and "Nicht verbaut" in c_moves[0].message
    assert rep.state_after["finished"] and game.finished(rep.state_after)


def test_one_tile_left_scores_two_and_one():
    game = get_game("typdom-presto")
    st = _state(one_left=True)
    subs = {"a": [GOOD], "b": None, "c": [GOOD], "d": None}
    assert game.round_complete(st, subs, LEX)
    rep = game.adjudicate(st, subs, LEX, seed="1", partie="P1",
                          received={"a": T0 + timedelta(seconds=5), "c": T0}, search=False)
    assert [(r["player"], r["finish"], r["points"]) for r in rep.board_move["ranking"]] == [("c", "einer", 2),
                                                                                           ("a", "alle", 2)]


def test_at_the_zat_a_single_finisher_wins_and_equal_seconds_go_by_lot():
    game = get_game("typdom-presto")
    st = _state()
    rep = game.adjudicate(st, {"a": [GOOD], "b": ["HAUS"], "c": None, "d": None}, LEX, seed="1", partie="P1",
                          received={"a": T0, "b": T0}, search=False)
    assert rep.board_move["closed"] == {"by": "zat", "at": None}
    assert [(r["player"], r["points"]) for r in rep.board_move["ranking"]] == [("a", 4)]
    assert rep.state_after["result"]["verdicts"]["c"] == {"kind": "nmr"}
    same = {"a": [GOOD], "b": [GOOD], "c": None, "d": None}
    order = {tuple(r["player"] for r in game.adjudicate(st, same, LEX, seed=str(s), partie="P1",
                                                      received={"a": T0, "b": T0}, search=False)
                   .board_move["ranking"]) for s in range(12)}
    assert order == {("a", "b"), ("b", "a")}  # a lot, seeded per league
    rep = game.adjudicate(st, same, LEX, seed="1", partie="P1", received={"a": T0, "b": T0}, search=False)
    assert rep.lot == {"candidates": [r["player"] for r in rep.board_move["ranking"]]}


def test_acknowledgement_and_views():
    game = get_game("typdom-presto")
    st = _state()
    ok = game.check_line(st, GOOD, LEX, player="a")
    summary = ok.detail["summary"].text()
    assert ok.valid and summary.startswith("Kreuzwort fertig, alle 6 Steine verbaut; 2 Wörter: HAUS")
    assert ok.public.render("de", PUBLIC) == ok.message  # the played crossword is public
    assert ok.detail["picture"][1] == " 1  H A U S" and "Ankunftszeit" in ok.note_texts[0]
    bad = game.check_line(st, "HAUS\nU", LEX, player="a")
    assert not bad.valid and bad.reason == "unused" and "Nicht verbaut: T (1 Stein)" in bad.message
    assert bad.verdict.code == "unused" and bad.public is None
    assert "Niet gebruikt: T (1 steen). Alle stenen moeten gebruikt zijn." in bad.verdict.render("nl", GM_ONLY)
    with pytest.raises(PrivacyError):  # it names the set: never in a public text
        bad.verdict.render("de", PUBLIC)
    view = game.public_view(st)
    assert view["racks"] is None and "AHSTUU" not in str(view)
    assert game.player_view(st, "c")["rack"] == "AEHSTUU"
    rep = game.adjudicate(st, {"a": [GOOD], "b": None, "c": None, "d": None}, LEX, seed="1", partie="P1",
                          received={"a": T0})
    after = game.public_view(rep.state_after)
    assert after["racks"]["b"] == "AHSTUU" and after["result"]["proofs"]["a"]["status"] == "found"
    assert after["grids"]["a"]["text"].splitlines()[1] == " 1  H A U S"
    assert set(after["proof_grids"]) == {"a", "b", "d"} and after["result"]["proofs"]["c"]["status"] == "none"


def test_a_result_stored_before_issue_31_shows_nothing_of_an_invalid_crossword():
    game = get_game("typdom-presto")
    st = dict(_state(), finished=True)
    st["result"] = {"ranking": [], "closed": {"by": "zat", "at": None}, "proofs": {}, "lot": None,
                    "verdicts": {"a": {"kind": "invalid", "rows": ["QUARZ"], "reason": "foreign",
                                       "gloss": "fremde Steine", "message": "Steine, die nicht im Satz sind: Q."}}}
    view = game.public_view(st)
    assert view["result"]["verdicts"]["a"] == {"kind": "invalid"} and "a" not in view["grids"]
    assert "QUARZ" not in str(view) and st["result"]["verdicts"]["a"]["rows"] == ["QUARZ"]  # the state is kept

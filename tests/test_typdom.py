"""Typ-Dom (seed 002): the case files, notation, tiles, deal and seat order, turns in seat
order with Ersatzzüge, purchases, Jolly takes, both end scorings, and the move generator
against a brute force that shares no code with it."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest

from bot.conformance import case_lexicon, read_cases, run_conformance
from bot.games import get_game
from bot.games.base import GM_ONLY, PUBLIC, NotationError
from bot.games.typdom import engine as E
from bot.games.typdom.outcome import REASONS
from bot.games.typdom.deal import deal, seat_order
from bot.games.typdom.scoring import end_scores
from bot.games.typdom.movegen import best_turn, gen_notation, placements
from bot.games.typdom.notation import Placement, Token, Turn, format_turn, parse_turn
from bot.games.typdom.tiles import COUNTS, VALUES, full_set, left_value, red_tiles
from bot.lexicon import Lexicon

CASES = Path(__file__).parent / "cases"
FILES = [CASES / "typdom.json", CASES / "typdom_own.json"]
ALL = read_cases(FILES)
EMPTY = ["." * 25] * 25


def board(*words):
    g = [list("." * 25) for _ in range(25)]
    for coord, d, w in words:
        col, row = ord(coord[0]) - 64, int(coord[1:])
        for i, ch in enumerate(w):
            r, c = (row, col + i) if d == "w" else (row + i, col)
            g[r - 1][c - 1] = ch
    return ["".join(r) for r in g]


def lex(*words):
    return Lexicon.from_words(words, "typdom")


# -- the case files ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", ALL, ids=[c["id"] for c in ALL])
def test_case(case):
    game = get_game("typdom")
    got = game.run_case(case, case_lexicon(case, game))
    assert {k: got.get(k) for k in case["expect"]} == case["expect"]


def test_every_reason_code_and_both_variants_have_own_cases():
    own = read_cases([CASES / "typdom_own.json"])
    reasons = {c["expect"].get("reason") for c in own} - {None}
    assert reasons == set(REASONS)
    assert {c["variant"] for c in own} == {"kreuzwort", "point"}
    assert {c["variant"] for c in own if c["expect"]["valid"]} == {"kreuzwort", "point"}


def test_shared_copy_is_current():
    shared = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "typdom.json"
    if shared.exists():
        assert json.loads(shared.read_text()) == json.loads((CASES / "typdom.json").read_text())


def test_cli_runs_both_files():
    out = io.StringIO()
    assert run_conformance(FILES, out) == 0
    assert out.getvalue().splitlines()[-1] == f"{len(ALL)} passed, 0 failed"


# -- tiles, notation -----------------------------------------------------------------------------

def test_tiles_follow_the_seed_table():
    tiles = full_set()
    assert len(tiles) == 80 and tiles.count("?") == tiles.count("#") == 1
    assert len(red_tiles(tiles)) == 30  # 29 vowels (Y included) and the red Jolly
    assert COUNTS["E"] == 9 and COUNTS["A"] == 7 and COUNTS["Q"] == 1
    assert [VALUES[c] for c in "MEXICO"] == [3, 1, 9, 1, 4, 1]
    # seed, Musterpartie: left B and the black Jolly pay 11; A A U Y B J M pay 15
    assert sum(map(left_value, "B#")) == 11 and sum(map(left_value, "AAUYBJM")) == 15


@pytest.mark.parametrize("line,canon", [
    ("M13w EXAMEN", "M13w EXAMEN"), ("13m examen", "M13w examen"), ("r13S nAHt ;N11s TExT", "R13s nAHt; N11s TExT"),
    ("Jolly n13;N12s HeRZ", "JOLLY N13; N12s HeRZ"), ("kaufen", "KAUFEN"), ("KAUFEN 2 Rot", "KAUFEN 2 rot"),
    ("M11s TEx?AS 15 Punkte", "M11s TEx*AS 15 Punkte"), ("Y25s AB", "Y25s AB"), ("M13w GRÜßE", "M13w GRUESSE"),
])
def test_notation_round_trip(line, canon):
    t = parse_turn(line)
    assert format_turn(t) == canon
    assert parse_turn(format_turn(t)) == t


@pytest.mark.parametrize("line", ["Z13w AB", "M13w EX4MEN", "JOLLY M13", "M13w EXAMEN +TEXT", "", "Hallo"])
def test_unreadable_lines(line):
    from bot.games.base import NotationError
    with pytest.raises(NotationError) as exc:
        parse_turn(line)
    assert exc.value.message


# -- seed 002 example scores (Point-Typ-Dom) -------------------------------------------------------

@pytest.mark.parametrize("rows,rack,move,score", [
    (board(("K13", "w", "MEXICO")), "DMN", "P12s MoND", 9),
    (board(("K13", "w", "MEXICO")), "BGL", "L12s GeLB", 11),
    (board(("K13", "w", "MEXICO")), "DFLRU", "P10s RUDoLF", 12),
])
def test_seed_example_scores(rows, rack, move, score):
    out = E.evaluate(rows, rack, move, lex("MEXICO", "MOND", "GELB", "RUDOLF"), "point")
    assert out.valid, out.message
    assert out.score == score


# -- deal and seat order ----------------------------------------------------------------------------

def test_deal_gives_each_player_8_black_and_5_red_and_keeps_80_tiles():
    racks, pool = deal("1", "T1", ["a", "b", "c", "d", "e"], 8, 5)
    for r in racks.values():
        assert len(r) == 13 and len(red_tiles(r)) == 5
    assert Counter("".join(racks.values()) + pool) == Counter(full_set())
    assert deal("1", "T1", ["a", "b"], 8, 5) == deal("1", "T1", ["a", "b"], 8, 5)


def test_seat_order_tile_nearest_z_then_around_the_table():
    order, start = seat_order("1", "T1", ["a", "b", "c", "d"], {"a": "ABX", "b": "CY?", "c": "DE", "d": "#Q"})
    assert start["player"] == "b" and start["letter"] == "Y" and start["lot"] is None
    assert order == ["b", "c", "d", "a"]


def test_seat_order_tie_by_lot_is_reproducible():
    racks = {"a": "AZ", "b": "EZ", "c": "IO"}
    o1, s1 = seat_order("7", "T1", ["a", "b", "c"], racks)
    assert s1["lot"]["candidates"] == ["a", "b"] and s1["player"] in ("a", "b")
    assert seat_order("7", "T1", ["a", "b", "c"], racks) == (o1, s1)


def test_player_counts_and_racks():
    g = get_game("typdom")
    assert g.check_players(["1"] * 5) is None
    assert g.check_players(["1"] * 6).text() == "Kreuzwort-Spiel braucht 2 bis 5 Spieler, die Ligadatei hat 6."
    assert g.check_players(["1"] * 6).code == "players"
    assert g.check_players(["1"] * 6, {"variant": "point"}) is None
    assert "Steine" in g.check_players(["1"] * 4, {"variant": "point", "rack": "12+8"}).text()
    assert g.check_players(["1"] * 3, {"variant": "point", "rack": "10+8"}) is None
    assert "Point-Typ-Dom" in g.check_players(["1"] * 3, {"rack": "10+8"}).text()
    assert g.check_players(["1"] * 3, {"variant": "blitz"}).text() == \
        "Typ-Dom kennt die Varianten kreuzwort und point, nicht blitz."
    assert g.check_players(["1"] * 3, {"variant": "point", "rack": "9+9"}).text() == \
        "Typ-Dom-Bänke: 8+5, 10+8, 12+8, nicht 9+9."
    # the game master of a Dutch league reads it in Dutch
    assert "Ligadatei" not in g.check_players(["1"] * 6).text("nl")


# -- end scoring ---------------------------------------------------------------------------------------

def test_kreuzwort_end_scoring_is_the_seed_musterpartie():
    racks = {"1": "B#", "2": "FKLV", "3": "AAUYBJM", "4": ""}
    end = end_scores("kreuzwort", racks, ["1", "2", "3", "4"], "4")
    assert [end[k]["points"] for k in "1234"] == [-11, -4, -15, 30]
    assert end["4"]["winner"] and end["4"]["received"] == 30


def test_point_end_scoring_bonus_and_rest():
    end = end_scores("point", {"1": "", "2": "L", "3": "?Q"}, ["1", "2", "3"], "1")
    assert [end[k]["points"] for k in "123"] == [10, -2, -19]


def test_kreuzwort_without_a_player_out_lowest_rest_wins_or_nobody():
    end = end_scores("kreuzwort", {"1": "B", "2": "AE", "3": "#"}, ["1", "2", "3"], None)
    assert end["1"]["winner"] and end["1"]["points"] == 16 and end["2"]["points"] == -6
    tie = end_scores("kreuzwort", {"1": "B", "2": "C"}, ["1", "2"], None)
    assert all(v["points"] == 0 and not v["winner"] for v in tie.values())


# -- rounds ---------------------------------------------------------------------------------------------

WORDS = lex("EXAMEN", "TEXT", "KIND", "WIND", "NAHT", "TAT", "MOST", "AXT", "TEXTE", "HERZ", "SPIEL", "EIS",
            "REISE", "ES", "AS", "ZEHN", "HAND", "EXAMENS")


def state(variant, rows, racks, pool="ABCDEFGHIKLMNOPRSTU", order=None):
    order = order or list(racks)
    return {"variant": variant, "round": 1, "rounds": 20, "board": rows, "racks": dict(racks), "pool": pool,
            "seat_order": order, "start": {"player": order[0], "letter": "Z", "tied": [order[0]], "lot": None},
            "rack_size": [8, 5], "first_out": None, "finished": False, "end": None, "history": []}


def adjudicate(st, subs, **kw):
    return get_game("typdom").adjudicate(st, subs, WORDS, seed="1", partie="T1", best=False, **kw)


def test_turns_in_seat_order_ersatzzug_when_an_earlier_seat_blocks():
    rows = board(("M13", "w", "EXAMEN"))
    st = state("kreuzwort", rows, {"a": "KIDWS", "b": "WIDKE", "c": "QQQ"}, order=["a", "b", "c"])
    # a and b both want the N of EXAMEN; a sits first and takes it, b's Ersatzzug counts;
    # c sends nothing (NMR) and buys a tile
    rep = adjudicate(st, {"a": ["R11s KInD"], "b": ["R11s WInD", "N12s TexT", "O12s HaND", "KAUFEN"], "c": None})
    turns = {t["player"]: t for t in rep.board_move["turns"]}
    assert turns["a"]["kind"] == "place" and turns["a"]["words"] == ["KIND"]
    assert turns["b"]["counted"] == 3 and turns["b"]["kind"] == "buy"
    # the public turn record says which lines failed, nothing of their text or why (issue 31)
    assert turns["b"]["failed"] == [{"index": 0}, {"index": 1}, {"index": 2}]
    b = next(p for p in rep.players if p.player == "b")
    assert [m.reason for m in b.moves] == ["mismatch", "rack", "rack", None]
    assert b.moves[1].message == "Nicht auf deiner Bank (WIDKE): TT." and b.moves[1].verdict.code == "rack"
    assert b.moves[3].message == "kauft 1 Stein" and b.moves[3].public.render("de", PUBLIC, "b") == "kauft 1 Stein"
    seen = get_game("typdom").seen_by(b.to_json(), PUBLIC, rep.state_after)
    assert [m["message"] for m in seen["moves"]] == ["ungültig", "ungültig", "ungültig", "kauft 1 Stein"]
    assert not any(m["notes"] or m["reason"] for m in seen["moves"][:3])
    assert "WIDKE" not in json.dumps(seen) and "TexT" not in json.dumps(seen)
    assert "WIDKE" not in json.dumps(rep.state_after["history"])
    # a state stored before issue 31 kept the failed line's text and reason: the public
    # view drops them
    legacy = [{"index": 1, "text": "N12s TexT", "reason": "rack", "gloss": "Steine nicht auf der Bank",
               "message": "Steine, die nicht auf der Bank sind: T T."}]
    old = dict(rep.state_after, history=[dict(h, turns=[dict(t, failed=legacy) for t in h["turns"]])
                                         for h in rep.state_after["history"]])
    view = json.dumps(get_game("typdom").public_view(old))
    assert "TexT" not in view and "nicht auf der Bank" not in view and '"failed": [{"index": 1}]' in view
    assert turns["c"]["kind"] == "nmr" and turns["c"]["bought"] == 1
    after = rep.state_after
    assert after["racks"]["a"] == "SW" and len(after["racks"]["b"]) == 6 and len(after["racks"]["c"]) == 4
    assert after["round"] == 2 and not after["finished"] and len(after["pool"]) == len(st["pool"]) - 2


def test_kreuzwort_ends_when_a_player_is_out_and_later_seats_do_not_play():
    rows = board(("M13", "w", "EXAMEN"))
    st = state("kreuzwort", rows, {"a": "KID", "b": "WID#", "c": "AE"}, order=["a", "b", "c"])
    rep = adjudicate(st, {"a": ["R11s KInD"], "b": ["R11s WInD"], "c": ["KAUFEN"]})
    kinds = [t["kind"] for t in rep.board_move["turns"]]
    assert kinds == ["place", "skipped", "skipped"]
    c = next(p for p in rep.players if p.player == "c")
    seen = get_game("typdom").seen_by(c.to_json(), PUBLIC, rep.state_after)
    assert [m["message"] for m in seen["moves"]] == ["nicht mehr am Zug: die Partie war schon zu Ende"]
    after = rep.state_after
    assert after["finished"] and after["first_out"] == "a"
    pts = {p.player: p.points for p in rep.players}
    assert pts == {"a": 15 + 6, "b": -(1 + 3 + 1 + 10), "c": -(3 + 3)}


def test_point_round_is_played_to_its_end_first_out_gets_10():
    rows = board(("M13", "w", "EXAMEN"))
    st = state("point", rows, {"a": "KID", "b": "WID", "c": "AEL"}, order=["a", "b", "c"])
    rep = adjudicate(st, {"a": ["R11s KInD"], "b": ["R11s WInD", "N12s TExT", "KAUFEN"], "c": ["KAUFEN 2"]})
    pts = {p.player: p.points for p in rep.players}
    # a: KIND 4+1+2+3 = 10, +10 for going out; b buys (TEXT needs T E T), keeps W I D and the
    # bought tile; c buys two
    assert pts["a"] == 20
    assert rep.state_after["finished"] and rep.board_move["turns"][2]["bought"] == 2
    rest_b = rep.state_after["racks"]["b"]
    assert pts["b"] == -sum(VALUES.get(t, 10) for t in rest_b)


def test_kreuzwort_joining_without_a_second_word_buys_a_tile():
    rows = board(("M13", "w", "EXAMEN"), ("P14", "s", "OST"), ("P16", "w", "TAT"))
    st = state("kreuzwort", rows, {"a": "AHXY", "b": "AHTE"}, order=["a", "b"])
    rep = adjudicate(st, {"a": ["R13s nAHt"], "b": None})
    t = rep.board_move["turns"][0]
    assert t["second"] and t["second_missing"] and t["bought"] == 1
    assert len(rep.state_after["racks"]["a"]) == 3


def test_jolly_take_and_second_placement_in_a_round():
    rows = board(("K13", "w", "SPIeL"))
    st = state("point", rows, {"a": "EHRZ", "b": "AS"}, order=["a", "b"])
    rep = adjudicate(st, {"a": ["JOLLY N13; N12s HeRZ"], "b": ["KAUFEN"]})
    t = rep.board_move["turns"][0]
    assert t["jolly"]["coord"] == "N13" and t["score"] == 12
    assert rep.state_after["racks"]["a"] == "?"
    assert rep.state_after["board"][12][13] == "E"  # the real E now lies where the Jolly was


def test_blocked_game_ends_when_the_pool_is_empty_and_nobody_can_lay():
    rows = board(("M13", "w", "EXAMEN"))
    st = state("point", rows, {"a": "QQ", "b": "Y"}, pool="", order=["a", "b"])
    rep = adjudicate(st, {"a": ["KAUFEN"], "b": None})
    assert rep.state_after["finished"] and rep.state_after["end"]["blocked"]
    assert {p.player: p.points for p in rep.players} == {"a": -18, "b": -9}


def test_check_line_warns_about_earlier_seats_and_shows_the_table():
    rows = board(("M13", "w", "EXAMEN"))
    st = state("kreuzwort", rows, {"a": "KID", "b": "WID"}, order=["a", "b"])
    g = get_game("typdom")
    rep = g.check_line(st, "R11s WInD", WORDS, player="b")
    assert rep.valid and any("vor dir" in n.lower() for n in rep.note_texts)
    assert any("W" in line for line in rep.detail["picture"])
    assert not any("vor dir" in n.lower() for n in g.check_line(st, "R11s KInD", WORDS, player="a").note_texts)
    bad = g.check_line(st, "R11s KInD", WORDS, player="b")
    assert not bad.valid and bad.reason == "rack"


def test_public_view_hides_racks_until_the_end():
    st = state("point", board(("M13", "w", "EXAMEN")), {"a": "KID", "b": "WID"})
    g = get_game("typdom")
    view = g.public_view(st)
    assert "KID" not in json.dumps(view) and view["rack_sizes"] == {"a": 3, "b": 3}
    assert g.player_view(st, "a")["rack"] == "DIK"[::-1][::-1] or g.player_view(st, "a")["rack"] == "KID"
    assert len(view["board"]) == 25 and view["variant"] == "point"


# -- the move generator against a brute force -------------------------------------------------------

def _brute(rows, rack, words):
    """Every (row, col, direction, word) placement by trying each word at each square
    and direction and asking the engine (no generator code)."""
    out = set()
    words_lex = lex(*words)
    for w in words:
        for d in "ws":
            for r in range(1, 26):
                for c in range(1, 26):
                    toks = []
                    for i, ch in enumerate(w):
                        rr, cc = (r, c + i) if d == "w" else (r + i, c)
                        if rr > 25 or cc > 25:
                            break
                        there = rows[rr - 1][cc - 1]
                        toks.append(Token("old" if there != "." else "new", ch))
                    if len(toks) < len(w):
                        continue
                    o = E.evaluate(rows, rack, Turn((Placement(r, c, d, tuple(toks)),)), words_lex, "point")
                    if o.valid and o.laid[0].word == w and (o.laid[0].row, o.laid[0].col) == (r, c) \
                            and o.laid[0].direction == d:
                        out.add((r, c, d, w, o.score))
    return out


def test_generator_finds_exactly_the_brute_force_placements():
    words = ["EXAMEN", "TEXT", "TEXTE", "NEST", "NETT", "ES", "EN", "TE", "SET", "MAST", "STEM", "AXT", "EXTRA"]
    rows = board(("M13", "w", "EXAMEN"), ("N11", "s", "TEXT"))
    rack = "AENSTT"
    gen = {(m.row, m.col, m.direction, m.word, m.score) for m in placements(rows, rack, lex(*words))}
    assert gen == _brute(rows, rack, words)
    for m in placements(rows, rack, lex(*words)):
        assert E.evaluate(rows, rack, gen_notation(m, rows), lex(*words), "point").valid


def test_best_turn_uses_a_second_placement_and_a_jolly():
    words = lex("EXAMEN", "MOST", "TAT", "NAHT", "TEXT", "TEXTIL", "HERZ", "SPIEL")
    rows = board(("M13", "w", "EXAMEN"), ("P14", "s", "OST"), ("P16", "w", "TAT"))
    b = best_turn(rows, "ADEHILTT", words, "point")
    assert b.notation == "R13s nAHt; N11s TExTIL" and b.score == 28
    rows2 = board(("K13", "w", "SPIeL"))
    b2 = best_turn(rows2, "EHRZ", words, "point")
    assert b2.notation.startswith("JOLLY N13;") and b2.score == 12


def test_verdicts_are_data_rendered_per_recipient_and_language():
    """Issue 31: what the engine says is a verdict; an unplayed line's is the mover's alone
    (a public rendering raises), a counted turn's summary is public, both in German and
    Dutch from the catalog."""
    from bot.games.base import Audience, PrivacyError
    rows = board(("M13", "w", "EXAMEN"))
    st = state("point", rows, {"a": "KID", "b": "WID"}, order=["a", "b"])
    g = get_game("typdom")
    bad = g.check_line(st, "R11s QInD", WORDS, player="a")
    assert bad.verdict.code == "rack" and bad.message == "Nicht auf deiner Bank (KID): Q."
    assert bad.verdict.render("nl", Audience(viewer="a"), "a") == "Niet op je plankje (KID): Q."
    with pytest.raises(PrivacyError):
        bad.verdict.render("de", PUBLIC, "a")
    with pytest.raises(PrivacyError):
        bad.verdict.render("de", Audience(viewer="b"), "a")
    assert bad.public is None and bad.public_notes == []
    good = g.check_line(st, "R11s KInD", WORDS, player="a")
    assert good.message == "KIND (10 Punkte)" and good.verdict.render("nl", PUBLIC, "a") == "KIND (10 punten)"
    assert good.detail["summary"].render("de", PUBLIC, "a") == "KIND (10 Punkte)"
    assert g.check_line(st, "KAUFEN 2 rot", WORDS, player="a").verdict.render("nl", PUBLIC, "a") == \
        "koopt 2 stenen (rood)"
    with pytest.raises(NotationError) as exc:
        parse_turn("Z13w EXAMEN")
    assert exc.value.verdict.code == "syntax" and exc.value.verdict.text("nl").startswith("Die kolom bestaat niet")
    # the game master's picture: verdicts for the GM, the board rows as they are
    pic = g.gm_picture(st, {"a": "Anna", "b": "Bernd"}, zat="Fr 18:00")
    texts = [v if isinstance(v, str) else v.render("nl", GM_ONLY, None) for v in pic]
    assert "Plankje Anna: rood: I; zwart: D K" in texts and texts[0].startswith("Point-Typ-Dom, ronde 1")
    with pytest.raises(PrivacyError):
        next(v for v in pic if not isinstance(v, str) and v.code == "rack").render("de", PUBLIC, None)

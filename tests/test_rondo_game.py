"""Rondo as a game: deck, Vorgabe drawing, Partie state and round adjudication
(bot/games/rondo/game.py; seed 000 II.1-II.5, III; shared/RULES.md "Rondo")."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from bot.games.rondo.cards import JOKER_COUNT, LETTER_COUNTS, VOWELS, full_deck
from bot.games.rondo.game import RondoRules, draw_vorgabe
from bot.lexicon import Lexicon

RULES = RondoRules()
SEED_COUNTS = {  # seed 000 II.1 a), "Anzahl"
    "A": 8, "B": 2, "C": 2, "D": 4, "E": 11, "F": 2, "G": 2, "H": 3, "I": 5, "J": 2, "K": 2, "L": 4, "M": 4,
    "N": 6, "O": 6, "P": 2, "Q": 1, "R": 4, "S": 5, "T": 4, "U": 6, "V": 2, "W": 2, "X": 1, "Y": 2, "Z": 2,
}
WORDS = ["MOND", "MONDE", "MONDES", "STAND", "STANDE", "STOER", "ORT", "ORTES", "TOR", "SEND", "TORE", "MON",
         "DEO"]
LEX = Lexicon.from_words(WORDS, "rondo")


def vowels(cards: str) -> int:
    return sum(1 for c in cards if c in VOWELS or c == "?")


def state(row="..MOND/..", vorgabe="DEST?/", rnd=2, rounds=20, deck=None, discard=""):
    if deck is None:
        # the rest of a full deck after the cards on the row and in the Vorgabe
        rest = Counter(full_deck())
        rest.subtract(Counter(c for c in row if c.isupper()) + Counter("?" * sum(c.islower() for c in row)))
        rest.subtract(Counter(c for c in vorgabe if c != "/"))
        pile = sorted(rest.elements())
        random.Random(7).shuffle(pile)
        deck = "".join(pile)
    return {"round": rnd, "rounds": rounds, "row": row, "vorgabe": vorgabe, "deck": deck, "discard": discard,
            "finished": False, "history": []}


# -- the deck ------------------------------------------------------------------------------

def test_full_deck_counts():
    deck = full_deck()
    assert len(deck) == 100
    c = Counter(deck)
    assert c["?"] == JOKER_COUNT == 6
    assert {k: v for k, v in c.items() if k != "?"} == SEED_COUNTS
    assert LETTER_COUNTS == SEED_COUNTS
    assert sum(SEED_COUNTS.values()) == 94
    assert "/" not in c   # the Loescher is not part of the deck


# -- draw_vorgabe ------------------------------------------------------------------------

@pytest.mark.parametrize("rnd", [1, 2, 7, 20])
def test_draw_vorgabe_size_and_loescher(rnd):
    deck = full_deck()
    random.Random(rnd).shuffle(deck)
    vorgabe, rest, discard = draw_vorgabe("".join(deck), "", rnd, random.Random(1))
    assert len(vorgabe) == 6
    if rnd == 1:
        assert "/" not in vorgabe
    else:
        assert vorgabe.count("/") == 1
        assert len(vorgabe.replace("/", "")) == 5
    # conservation: the deck lost exactly the drawn cards
    assert Counter(rest) + Counter(discard) + Counter(vorgabe.replace("/", "")) == Counter(full_deck())


def test_draw_vorgabe_always_two_vowels_or_joker_over_many_seeds():
    for seed in range(300):
        rng = random.Random(seed)
        deck = full_deck()
        rng.shuffle(deck)
        pile, discard = "".join(deck), ""
        for rnd in range(1, 21):
            vorgabe, pile, discard = draw_vorgabe(pile, discard, rnd, rng)
            assert vowels(vorgabe) >= 2, (seed, rnd, vorgabe)
            # the cards go back to the discard pile (nobody played): nothing is lost
            discard += vorgabe.replace("/", "")
            assert Counter(pile) + Counter(discard) == Counter(full_deck())


def test_draw_vorgabe_redraws_a_vowel_poor_draw():
    # the top five cards have no vowel; the draw must be put back and redrawn
    deck = "BCDFG" + "AEIOU" * 3
    vorgabe, rest, discard = draw_vorgabe(deck, "", 2, random.Random(3))
    assert vowels(vorgabe) >= 2
    assert Counter(rest) + Counter(vorgabe.replace("/", "")) == Counter(deck)


def test_draw_vorgabe_uses_discard_when_deck_has_too_few_vowels():
    """The deck has ten cards but no vowel; the discard pile has five. The Vorgabe must
    still hold two vowels or Joker (seed 000 II.2 d: 'immer'); redrawing from the deck
    alone can never achieve that, so the discard pile has to be shuffled in."""
    deck, discard = "BCDFGHKLMN", "AEIOU"
    vorgabe, rest, spent = draw_vorgabe(deck, discard, 2, random.Random(0))
    assert Counter(rest) + Counter(spent) + Counter(vorgabe.replace("/", "")) == Counter(deck + discard)
    assert vowels(vorgabe) >= 2, vorgabe


def test_draw_vorgabe_reshuffles_discard_when_deck_runs_low():
    deck, discard = "AE", "BCDFGHIKLMNOPRST"
    vorgabe, rest, spent = draw_vorgabe(deck, discard, 3, random.Random(5))
    assert len(vorgabe) == 6 and vorgabe.count("/") == 1
    assert spent == ""        # the discard pile was shuffled into the deck
    assert Counter(rest) + Counter(vorgabe.replace("/", "")) == Counter(deck + discard)


def test_draw_vorgabe_does_not_touch_discard_while_deck_suffices():
    deck = "AEIOUBCDFG"
    vorgabe, rest, spent = draw_vorgabe(deck, "XYZ", 2, random.Random(0))
    assert spent == "XYZ"
    assert Counter(rest) + Counter(vorgabe.replace("/", "")) == Counter(deck)


def test_draw_vorgabe_is_deterministic_per_rng_seed():
    deck = "".join(full_deck())
    a = draw_vorgabe(deck, "", 2, random.Random("x"))
    b = draw_vorgabe(deck, "", 2, random.Random("x"))
    assert a == b


# -- new_partie ------------------------------------------------------------------------------

def test_new_partie_shape_and_conservation():
    s = RULES.new_partie(seed="liga-1", partie="R1")
    assert s["round"] == 1 and s["rounds"] == 20 and s["row"] == "........." and s["finished"] is False
    assert len(s["vorgabe"]) == 6 and "/" not in s["vorgabe"] and vowels(s["vorgabe"]) >= 2
    assert Counter(s["deck"]) + Counter(s["discard"]) + Counter(s["vorgabe"]) == Counter(full_deck())
    assert json.loads(json.dumps(s)) == s


def test_new_partie_deterministic_per_seed_and_partie():
    assert RULES.new_partie(seed="s", partie="R1") == RULES.new_partie(seed="s", partie="R1")
    a = RULES.new_partie(seed="s", partie="R1")
    b = RULES.new_partie(seed="s", partie="R2")
    c = RULES.new_partie(seed="t", partie="R1")
    assert a["deck"] != b["deck"] and a["deck"] != c["deck"]


def test_new_partie_rounds_option():
    assert RULES.new_partie(seed="s", partie="R1", options={"rounds": 5})["rounds"] == 5


# -- adjudicate ------------------------------------------------------------------------------

def adj(st, subs, lex=LEX, seed="seed", partie="R1", **kw):
    return RULES.adjudicate(st, subs, lex, seed=seed, partie=partie, **kw)


def player(report, name):
    return next(p for p in report.players if p.player == name)


def test_nmr_scores_zero():
    rep = adj(state(), {"anna": None, "bert": ["mondE"]})
    a = player(rep, "anna")
    assert (a.submitted, a.counted, a.points, a.moves) == (False, None, 0, [])
    assert player(rep, "bert").points == 16


def test_all_invalid_scores_zero():
    rep = adj(state(), {"anna": ["mondX", "MOND", "mo*ND/"]})
    a = player(rep, "anna")
    assert a.submitted and a.counted is None and a.points == 0
    assert [m.reason for m in a.moves] == ["vorgabe", "position", "unchanged"]
    assert rep.board_move is None
    assert rep.state_after["row"] == "..MOND/.."


def test_first_valid_ersatzzug_counts():
    rep = adj(state(), {"anna": ["mondX", "mondES", "mo*NDES"]})
    a = player(rep, "anna")
    assert a.counted == 1 and a.points == 19
    assert [m.valid for m in a.moves] == [False, True, True]   # every line is judged and reported
    assert rep.board_move["row"] == "..MONDES."


def test_best_move_goes_on_the_table_players_score_their_own():
    rep = adj(state(), {"anna": ["mondE"], "bert": ["mo*NDES"], "carl": ["SEnD/"]})
    assert [player(rep, p).points for p in ("anna", "bert", "carl")] == [16, 24, 12]
    assert rep.board_move["players"] == ["bert"]
    assert rep.board_move["score"] == 24 and rep.board_move["word"] == "MONDES"
    assert rep.state_after["row"] == "..MOnDES."
    assert rep.lot is None


def test_same_move_by_two_players_is_no_lot():
    rep = adj(state(), {"anna": ["mo*NDES"], "bert": ["mo*NDES 24 Punkte"]})
    assert rep.lot is None
    assert rep.board_move["players"] == ["anna", "bert"]


def test_tie_between_rows_decided_by_lot_deterministically():
    subs = {"anna": ["mo*NDES"], "bert": ["ST*AnDE"]}   # both 24 points, different rows
    chosen = set()
    for seed in [f"s{i}" for i in range(20)]:
        r1 = adj(state(), subs, seed=seed)
        r2 = adj(state(), subs, seed=seed)
        assert r1.lot == r2.lot and r1.state_after["row"] == r2.state_after["row"]
        assert r1.lot is not None
        assert sorted(r1.lot["candidates"]) == sorted([".STaNDE..", "..MOnDES."])
        assert r1.lot["chosen"] == r1.state_after["row"] == r1.board_move["row"]
        assert player(r1, "anna").points == player(r1, "bert").points == 24
        chosen.add(r1.lot["chosen"])
    assert chosen == {".STaNDE..", "..MOnDES."}   # it is a lot, not a fixed preference


def test_unused_cards_to_discard_placed_cards_leave():
    st = state()
    rep = adj(st, {"anna": ["mo*NDES"]})   # places D, E, S and the Joker; T is unused
    after = rep.state_after
    drawn = after["vorgabe"].replace("/", "")
    assert Counter(after["discard"]) + Counter(drawn) + Counter(after["deck"]) == \
        Counter(st["deck"]) + Counter("T")
    # and with nothing placed every Vorgabe card goes to the discard pile
    rep = adj(st, {"anna": None})
    after = rep.state_after
    assert Counter(after["discard"]) + Counter(after["vorgabe"].replace("/", "")) + Counter(after["deck"]) == \
        Counter(st["deck"]) + Counter("DEST?")


def test_next_round_drawn_and_history():
    rep = adj(state(), {"anna": ["mondE"]})
    after = rep.state_after
    assert after["round"] == 3 and not after["finished"]
    assert len(after["vorgabe"]) == 6 and after["vorgabe"].count("/") == 1
    assert after["history"][-1] == {"round": 2, "row": "..MONDE..", "word": "MONDE", "vorgabe": "DEST?/",
                                    "players": ["anna"]}
    assert rep.state_before["round"] == 2


def test_last_round_sets_finished():
    rep = adj(state(rnd=20, rounds=20), {"anna": ["mondE"]})
    assert rep.state_after["finished"] is True and rep.state_after["vorgabe"] == ""
    rep = adj(state(rnd=3, rounds=20), {"anna": ["mondE"]}, last_round=True)
    assert rep.state_after["finished"] is True
    rep = adj(state(rnd=3, rounds=20), {"anna": ["mondE"]})
    assert rep.state_after["finished"] is False


def test_top_is_reported():
    rep = adj(state(), {"anna": ["mondE"]})
    assert rep.top["score"] == 24


def test_state_and_report_json_round_trip():
    rep = adj(state(), {"anna": ["mo*NDES 20 Punkte"], "bert": None, "carl": ["xyz"]})
    for obj in (rep.state_after, rep.to_json()):
        assert json.loads(json.dumps(obj)) == obj
    notes = player(rep, "anna").moves[0].note_texts
    assert notes == ["Angegeben 20 Punkte, gezählt 24 Punkte."]


def test_check_line_and_public_view():
    st = state()
    r = RULES.check_line(st, "mo*NDES", LEX)
    assert r.valid and r.score == 24 and r.detail["row"] == "..MOnDES."
    r = RULES.check_line(st, "mond!", LEX)
    assert not r.valid and r.reason == "syntax"
    v = RULES.public_view(st)
    assert v["word"] == "MOND" and v["row"] == "..MOND/.."
    assert [c["kind"] for c in v["cells"]][2:7] == ["letter"] * 4 + ["loescher"]
    assert json.loads(json.dumps(v)) == v


# -- a whole Partie by self-play with the full lexicon ------------------------------------------

@pytest.fixture(scope="module")
def full_lexicon():
    from bot.lexicon import load
    return load("rondo")


@pytest.mark.parametrize("seed", ["liga-a", "liga-b"])
def test_self_play_partie_conserves_cards(seed, full_lexicon):
    st = RULES.new_partie(seed=seed, partie="R1")
    consumed = Counter()
    poor = []
    for _ in range(20):
        if vowels(st["vorgabe"]) < 2:
            poor.append((st["round"], st["vorgabe"]))
        top = RULES.top(st, full_lexicon)
        rep = adj(st, {"p": [top["notation"]] if top else None}, lex=full_lexicon, seed=seed)
        if top:
            p = player(rep, "p")
            assert p.points == top["score"]
            consumed += Counter(p.moves[p.counted].detail["new_cards"].replace("/", ""))
        st = rep.state_after
        in_play = Counter(st["deck"]) + Counter(st["discard"]) + Counter(st["vorgabe"].replace("/", ""))
        assert in_play + consumed == Counter(full_deck())
        assert json.loads(json.dumps(st)) == st
        if st["finished"]:
            break
    assert st["finished"] and st["round"] == 20
    # seed 000 II.2 d): "Die Vorgabe enthaelt immer mindestens zwei Vokale oder Joker"
    assert poor == []


def test_check_line_judges_a_read_move_once_per_position_and_lexicon():
    """A read move is judged once per position and lexicon (issue 35: the same good move
    comes from many players of a round) and gives the same report as judging it afresh;
    another lexicon (a GM's deny-list) or another position judges it again."""
    from bot.games.rondo import game as rondo_game
    from bot.games.rondo.engine import evaluate
    from bot.games.rondo.notation import parse_move

    st = state()
    lines = ["Feld 3: mondES", "mondES 24", "STAND", "mondE", "mONDES", "DEST"]
    fresh = [rondo_game._report(i, t, evaluate(rondo_game.position_of(st), parse_move(t), LEX),
                                rondo_game.position_of(st)).to_json() for i, t in enumerate(lines)]
    rondo_game._OUTCOMES.clear()
    for _ in range(2):  # the second time from what was remembered
        got = [RULES.check_read(st, t, parse_move(t), LEX, i, player=f"p{i}").to_json() for i, t in enumerate(lines)]
        assert got == fresh
    assert len(rondo_game._OUTCOMES[id(LEX)][1]) == len(lines)
    assert any(r["valid"] for r in fresh) and not all(r["valid"] for r in fresh)
    deny = Lexicon.from_words([w for w in WORDS if w != "MONDES"], "rondo")
    assert RULES.check_read(st, "mondES", parse_move("mondES"), LEX).valid
    assert not RULES.check_read(st, "mondES", parse_move("mondES"), deny).valid
    other = state(row="..MOND...", vorgabe="EST?/")
    assert RULES.check_read(other, "mondES", parse_move("mondES"), LEX).to_json() == rondo_game._report(
        0, "mondES", evaluate(rondo_game.position_of(other), parse_move("mondES"), LEX),
        rondo_game.position_of(other)).to_json()

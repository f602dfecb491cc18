"""RONDO (seed 004) as a game: deck, notation, opening, turns, teams, end, views,
acknowledgements and early turn end (bot/games/rondonl/)."""

from __future__ import annotations

import re

from collections import Counter

import pytest

from bot.games import get_game
from bot.games.base import Audience, NotationError, render_move
from bot.games.rondo.cards import LETTER_COUNTS, LETTER_VALUES
from bot.games.rondonl import (DECK_SIZE, HAND_SIZE, WIS_COUNT, Exchange, FaceDown, Pass, Word, best_word,
                               format_line, full_deck, parse_line)
from bot.games.rondonl.seats import mover, side_of
from bot.games.rondo.cards import Row
from bot.lexicon import Lexicon

WORDS = ["KAT", "KATER", "RAT", "TAK", "AKTE", "TAKE", "KATTEN", "EEN", "ZEE", "TAKEN", "ZAK", "ZAKEN",
         "RAAK", "LAK", "LAKEN", "NAT", "NET", "TEN", "EET", "TREK", "KAR", "KAART", "ENKEL", "TAAK", "TAKKEN"]
LEX = Lexicon.from_words(WORDS, "nl")
G = get_game("rondonl")


def _ack(r, lang: str, viewer: str = "1") -> dict:
    """Player 1's acknowledgement's move as ``viewer`` reads it in ``lang`` (bot.games.verdict)."""
    return render_move(r.to_json(), lang, Audience(viewer=viewer), "1")


def test_deck_is_110_cards():
    deck = full_deck()
    assert len(deck) == DECK_SIZE == 110
    c = Counter(deck)
    assert c["?"] == 6 and c["/"] == WIS_COUNT == 10
    assert {k: v for k, v in c.items() if k not in "?/"} == LETTER_COUNTS
    assert LETTER_VALUES["Q"] == 10 and LETTER_VALUES["E"] == 1


@pytest.mark.parametrize("text, line, back", [
    ("TAUSCH Q", Exchange("Q"), "TAUSCH Q"),
    ("tausch q x", Exchange("QX"), "TAUSCH Q X"),
    ("RUIL: Q, *", Exchange("Q?"), "TAUSCH Q ?"),
    ("PASSE", Pass(), "PASSE"),
    ("pas", Pass(), "PASSE"),
    ("VERDECKT q", FaceDown("Q"), "VERDECKT Q"),
    ("BLIND Z", FaceDown("Z"), "VERDECKT Z"),
])
def test_notation_round_trip(text, line, back):
    assert parse_line(text) == line
    assert format_line(line) == back
    assert parse_line(format_line(line)) == line
    assert parse_line(format_line(line, "nl")) == line


def test_keywords_alone_are_words():
    assert isinstance(parse_line("RUIL"), Word) and parse_line("RUIL").move.cards == "RUIL"
    assert isinstance(parse_line("BLIND"), Word)
    assert isinstance(parse_line("Veld 4: PAS"), Word)
    with pytest.raises(NotationError):
        parse_line("TAUSCH 7")
    with pytest.raises(NotationError):
        parse_line("VERDECKT QX")


def _partie(n=3, **options):
    players = [str(i) for i in range(1, n + 1)]
    return G.new_partie(seed="7", partie="T1", options=options, players=players)


def test_new_partie_deals_private_hands():
    st = _partie()
    assert st["phase"] == "opening" and G.movers(st) == ["1", "2", "3"]
    assert all(len(h) == HAND_SIZE for h in st["hands"].values())
    assert len(st["deck"]) == DECK_SIZE - 3 * HAND_SIZE
    assert Counter("".join(st["hands"].values()) + st["deck"]) == Counter(full_deck())
    pub = G.public_view(st)
    text = repr(pub)
    assert "hands" not in pub and all(h not in text for h in st["hands"].values())
    assert pub["hand_sizes"] == {"1": 7, "2": 7, "3": 7} and pub["deck"] == 89
    assert G.player_view(st, "2")["hand"] == st["hands"]["2"]
    assert G.player_view(st, "9") == {}


def _set_hands(st, **hands):
    st = dict(st)
    st["hands"] = dict(st["hands"], **hands)
    return st


def test_opening_highest_value_begins_and_ties_by_lot():
    st = _set_hands(_partie(), **{"1": "AKTEEN/", "2": "ZAKEENT", "3": "RATEEEN"})
    rep = G.adjudicate(st, {"1": ["KAT"], "2": ["ZAK"], "3": None}, LEX, seed="7", partie="T1")
    after = rep.state_after
    assert after["opener"] == "2" and after["order"] == ["2", "3", "1"]  # ZAK 10+2+7 = 19
    assert after["phase"] == "play" and after["round"] == 2 and G.movers(after) == ["2"]
    assert [p.points for p in rep.players] == [0, 0, 0] and rep.lot is None
    assert after["marks"] == {"1": 0, "2": 0, "3": 0}  # the opening gives no marks
    assert after["hands"] == st["hands"]  # the opening words stay in the hands
    # a tie is decided by the seeded lot, the same every time
    st2 = _set_hands(_partie(), **{"1": "AKTEEN/", "2": "AKTEEN/", "3": "RATEEEN"})
    a = G.adjudicate(st2, {"1": ["KAT"], "2": ["TAK"], "3": ["NET"]}, LEX, seed="7", partie="T1")
    b = G.adjudicate(st2, {"1": ["KAT"], "2": ["TAK"], "3": ["NET"]}, LEX, seed="7", partie="T1")
    assert a.lot == b.lot and a.lot["candidates"] == ["1", "2"] and a.state_after["opener"] in ("1", "2")


def test_round_complete_opening_waits_for_every_valid_word():
    st = _set_hands(_partie(), **{"1": "AKTEEN/", "2": "ZAKEENT", "3": "RATEEEN"})
    subs = {"1": ["KAT"], "2": ["ZAK"], "3": None}
    assert not G.round_complete(st, subs, LEX)
    assert not G.round_complete(st, dict(subs, **{"3": ["XYZ"]}), LEX)
    assert G.round_complete(st, dict(subs, **{"3": ["RAT"]}), LEX)


def _play(st, hands=None, row=".........", deck=None, order=("1", "2", "3"), turn=0):
    st = dict(st, phase="play", round=2, order=list(order), turn=turn, row=row, opener=order[0])
    if hands:
        st["hands"] = dict(st["hands"], **hands)
    if deck is not None:
        st["deck"] = deck
    return st


def test_turn_word_refill_and_next_player():
    st = _play(_partie(), hands={"1": "AKTEEN/"}, deck="ZZZZQQQ")
    assert G.movers(st) == ["1"]
    rep = G.adjudicate(st, {"1": ["KAT"]}, LEX, seed="7", partie="T1")
    after = rep.state_after
    assert after["row"] == "...KAT..." and after["hands"]["1"] == "EENZZZ/" and after["deck"] == "ZQQQ"
    assert rep.players[0].points == 15 and after["scores"]["1"] == 15
    assert mover(after) == "2" and after["round"] == 3 and after["turn"] == 1
    assert rep.board_move["word"] == "KAT"
    best = rep.players[0].private["best"]
    assert best["score"] >= 15 and best["word"] in WORDS  # the move search for that hand
    assert rep.players[0].private["hand"] == "EENZZZ/"


def test_nmr_gives_a_mark_and_a_card():
    st = _play(_partie(), row="...KAT...", deck="QRS")
    before = st["hands"]["1"]
    rep = G.adjudicate(st, {"1": None}, LEX, seed="7", partie="T1")
    after = rep.state_after
    assert after["marks"]["1"] == 1 and len(after["hands"]["1"]) == len(before) + 1 and after["deck"] == "RS"
    assert rep.players[0].points == 0 and rep.players[0].submitted is False
    assert after["last"]["kind"] == "nmr"


def test_round_complete_for_a_turn():
    st = _play(_partie(), hands={"1": "AEKRTQ/"}, row="...KAT/..", deck="ABCDEFG")
    assert not G.round_complete(st, {"1": None}, LEX)
    assert not G.round_complete(st, {"1": ["katXR"]}, LEX)          # invalid: may send again
    assert G.round_complete(st, {"1": ["katER"]}, LEX)              # a valid word
    assert G.round_complete(st, {"1": ["PASSE"]}, LEX)
    assert G.round_complete(st, {"1": ["TAUSCH Q\nkatXR"]}, LEX)    # an exchange is final
    assert not G.round_complete(st, {"1": ["TAUSCH Z\nkatXR"]}, LEX)  # refused exchange: nothing happened
    assert not G.round_complete(st, {"2": ["katER"]}, LEX)          # not the mover


def test_check_line_does_not_reveal_the_deck():
    st = _play(_partie(language="de"), hands={"1": "EKQRT?/"}, row="...KAT/..", deck="ABCDEFG")
    r = G.check_line(st, "TAUSCH Q\nkatAR", LEX, player="1")
    assert r.valid and r.detail["complete"]
    pic = "\n".join(_ack(r, "de")["detail"]["picture"])
    assert "A B C" not in pic and "Deine Hand: E1 K7 Q10 R2 T3 ?1 /-2" in pic
    assert "Braucht A. Getauscht wird vor dem Legen" in pic and "wenn du beim Tausch A ziehst" in pic
    # the verdicts are data: the same check in the mover's other language, and nothing for others
    nl = _play(_partie(), hands={"1": "EKQRT?/"}, row="...KAT/..", deck="ABCDEFG")
    r = G.check_line(nl, "katER\n", LEX, player="1")
    assert r.valid and _ack(r, "nl")["message"].startswith("KATER is geldig: 15 punten")
    assert r.message.startswith("KATER gilt: 15 Punkte")
    r = G.check_line(nl, "katEN", LEX, player="1")
    assert not r.valid and r.reason == "vorgabe"
    assert "niet in je hand: N (hand EKQRT?/)" in "\n".join(_ack(r, "nl")["detail"]["picture"])
    assert _ack(r, "de", viewer="2")["detail"]["picture"] == []  # another player may see no line of it


def test_teams_share_hand_and_score_and_alternate():
    st = G.new_partie(seed="7", partie="T1", options={"teams": True}, players=["a", "b", "c", "d"])
    assert st["sides"] == [["a", "c"], ["b", "d"]] and set(st["hands"]) == {"a", "b"}
    assert side_of(st, "c") == "a" and G.player_view(st, "c")["hand"] == st["hands"]["a"]
    assert G.check_players(["a", "b", "c"], {"teams": True}) and G.check_players(["a"] * 7) is not None
    assert G.check_players(["a", "b", "c", "d"], {"teams": True}) is None
    st = _play(st, hands={"a": "AKTEEN/"}, deck="ZZZZZZZ", order=("c", "b", "a", "d"))
    assert G.movers(st) == ["c"]
    rep = G.adjudicate(st, {"c": ["KAT"]}, LEX, seed="7", partie="T1")  # the service passes the movers only
    pts = {p.player: p.points for p in rep.players}
    assert pts == {"c": 15, "a": 15}
    after = rep.state_after
    assert after["scores"] == {"a": 15, "b": 0, "c": 15, "d": 0} and after["hands"]["a"] == "EENZZZ/"
    assert G.movers(after) == ["b"]


def test_end_after_full_rounds_and_when_deck_empty():
    st = _play(_partie(full_rounds=1), row="...KAT...", deck="QRSTUVW", turn=2)
    rep = G.adjudicate(st, {"3": None}, LEX, seed="7", partie="T1")
    assert rep.state_after["finished"] and G.movers(rep.state_after) == []
    # deck end: the full round is finished first, so everyone had the same number of turns
    st = _play(_partie(), row="...KAT...", deck="Q", turn=0)
    a = G.adjudicate(st, {"1": None}, LEX, seed="7", partie="T1").state_after
    assert a["deck"] == "" and not a["finished"]
    b = G.adjudicate(a, {"2": None}, LEX, seed="7", partie="T1").state_after
    assert not b["finished"] and b["hands"]["2"] == st["hands"]["2"]  # nothing left to draw
    c = G.adjudicate(b, {"3": None}, LEX, seed="7", partie="T1").state_after
    assert c["finished"]


def test_removed_player_turn_is_skipped():
    st = _play(_partie(), row="...KAT...", deck="QRS")
    rep = G.adjudicate(st, {}, LEX, seed="7", partie="T1")
    assert rep.players == [] and rep.state_after["last"]["kind"] == "skipped" and mover(rep.state_after) == "2"


def test_best_word_with_beginners_rule():
    small = Lexicon.from_words(["KAT", "KATER"], "nl")
    row = Row.from_code("..KATER..")
    assert best_word(row, "BCDFGQ/", small) is None  # KAT needs two wis-kaarten
    b = best_word(row, "BCDFGQ/", small, beginners=True)
    assert (b["row"], b["score"], b["facedown"]) == ("..KAT//..", 8, "Q")  # the highest-valued spare card
    b = best_word(Row.from_code("..KATER.."), "BCDFQ//", Lexicon.from_words(["KAT", "KATER"], "nl"))
    assert b["row"] == "..KAT//.." and b["score"] == 8


def test_lexicon_alphabets_by_options():
    assert G.lexicon_alphabets({}) == ("nl",)
    assert G.lexicon_alphabets({"names": True}) == ("nl-namen",)
    assert G.lexicon_alphabets({"dictionary": "de"}) == ("rondo",)
    assert G.lexicon_alphabets({"foreign_words": True}) == ("nl", "rondo")
    assert G.lexicon_alphabets({"dictionary": "de", "foreign_words": True}) == ("rondo", "nl")


def test_demo_plays_a_dutch_table(tmp_path, capsys):
    from bot.demo import run_demo
    out = tmp_path / "out"
    assert run_demo(out=out, rounds={"Demo-RONDO": 2}, seed="5", leagues=["Demo-RONDO"]) == 0
    files = sorted(out.glob("rondonl-*.eml"))
    # the opening plus 2 full rounds of 3 turns, each Auswertung to 3 players
    assert len(files) == 7 * 3
    text = capsys.readouterr().out
    assert "Demo-RONDO" in text and "Eindstand:" in text and re.search(r" 1 streep\n| \d+ strepen\n", text)
    assert "streep/strepen" not in text
    body = files[-1].read_bytes()
    assert b"einduitslag" in body.lower() and b"text/html" in body


def test_exchange_written_after_the_word_comes_first():
    """Seed 004 "Ruilactie": the exchange is made before the word, in whatever line it
    stands; the acknowledgement says so and that the turn is over (issue 24, item 3)."""
    hands = {"1": "EKQRT?/"}  # one E: katER needs it, RUIL E gives it away
    st = _play(_partie(language="de"), hands=hands, row="...KAT/..", deck="ABCDEFG")
    r = G.check_line(st, "katER\nRUIL E", LEX, player="1")
    pic = "\n".join(_ack(r, "de")["detail"]["picture"])
    assert r.detail["complete"] and "2. RUIL E – Tausch E: -2 Punkte." in pic and "[ok]" not in pic
    assert "1. katER – Braucht E. Getauscht wird vor dem Legen (Spielregel), in welcher Zeile" in pic
    assert r.message.startswith("Erst wird getauscht (1 Karte, -2 Punkte), dann gelegt: ob KATER gilt")
    assert "Dein Zug ist mit dieser Mail beendet" in r.message
    nl = _play(_partie(), hands=hands, row="...KAT/..", deck="ABCDEFG")
    r = G.check_line(nl, "katER\nRUIL E", LEX, player="1")
    assert "Heeft E nodig. Er wordt geruild voor het leggen" in "\n".join(_ack(r, "nl")["detail"]["picture"])
    # the Auswertung: E goes under the deck, the top card (A) is drawn, katER fails
    rep = G.adjudicate(st, {"1": ["katER\nRUIL E"]}, LEX, seed="7", partie="T1")
    assert rep.state_after["row"] == "...KAT/.." and rep.players[0].points == -2
    assert rep.state_after["marks"]["1"] == 1
    # ... and with an E on top of the deck the word counts after the exchange
    st_e = _play(_partie(language="de"), hands=hands, row="...KAT/..", deck="EBCDFG")
    rep = G.adjudicate(st_e, {"1": ["katER\nRUIL E"]}, LEX, seed="7", partie="T1")
    assert rep.state_after["row"] == "...KATER." and rep.players[0].points == 15 - 2
    assert rep.state_after["marks"]["1"] == 0


def test_merge_keeps_the_part_a_later_mail_leaves_out():
    """A later mail replaces the parts of the turn it contains: exchanges, or the word."""
    assert G.merge_move(["katXR"], ["RUIL E"]) == ["RUIL E\nkatXR"]
    assert G.merge_move(["RUIL E\nkatXR"], ["katER\nReserve: KAT"]) == ["RUIL E\nkatER\nReserve: KAT"]
    assert G.merge_move(["katXR\nRUIL Q"], ["RUIL E"]) == ["RUIL E\nkatXR"]
    assert G.merge_move(["RUIL Q\nkatXR"], ["katER\nRUIL E"]) == ["katER\nRUIL E"]  # both parts: as written
    assert G.merge_move([], ["katER"]) == ["katER"]
    assert get_game("rondo").merge_move(["KAT"], ["RAT"]) == ["RAT"]  # the default: replace


def test_others_see_the_word_laid_and_no_other_line():
    """Issue 31: of a turn, others see the word laid with its points; every other line
    (a word with a card not held, a valid exchange) only as "ungültig", with neither its
    text nor why (the number of cards exchanged is in the Auswertung, from the state);
    the mover reads everything, in their language. Nothing of the hand."""
    from bot.games.verdict import PUBLIC
    hands = {"1": "EKQRT?/"}
    st = _play(_partie(language="de"), hands=hands, row="...KAT/..", deck="EBCDFG")
    rep = G.adjudicate(st, {"1": ["katXR\nTAUSCH Q\nkatER"]}, LEX, seed="7", partie="T1")
    (pl,) = [p.to_json() for p in rep.players]
    assert pl["counted"] == 2 and rep.state_after["row"] == "...KATER."
    for lang, invalid, word in (("de", "ungültig", "KATER: 15 Punkte"), ("nl", "ongeldig", "KATER: 15 punten")):
        seen = G.seen_by(pl, PUBLIC, rep.state_after, lang)
        assert [(m["text"], m["message"]) for m in seen["moves"]] == [
            ("(verdeckt)" if lang == "de" else "(verborgen)", invalid),
            ("(verdeckt)" if lang == "de" else "(verborgen)", invalid), ("katER", word)]
        flat = repr(seen)
        assert "EKQRT" not in flat and "katXR" not in flat and "TAUSCH" not in flat and "Q" not in flat
    mine = G.seen_by(pl, Audience(viewer="1"), rep.state_after, "nl")  # judged after the exchange
    assert [m["message"] for m in mine["moves"]][:2] == ["Deze kaarten heb je niet in je hand: X (hand EEKRT?/).",
                                                         "Ruil Q: -2 punten."]

"""The acknowledgement's remembered moves (bot.service.conversations.ackmoves, issue 35):
what is remembered equals what is made afresh, for every part of the keys."""

from __future__ import annotations

import pytest

from bot.games.base import Audience, render_move
from bot.games.monoscrabble.game import MonoscrabbleRules
from bot.games.reports import MoveReport
from bot.games.rondo.notation import parse_move
from bot.games.verdict import Visibility, about_mover, gm, mover, public, verdict
from bot.render import render
from bot.service.conversations import ackmoves
from tests.test_rondo_game import LEX, RULES, WORDS, state
from bot.lexicon import Lexicon


@pytest.fixture(autouse=True)
def _empty_memories():
    for memo in (ackmoves._RENDERED, ackmoves._BLOCKS, ackmoves._CHECKED):
        memo.clear()
    yield
    for memo in (ackmoves._RENDERED, ackmoves._BLOCKS, ackmoves._CHECKED):
        memo.clear()


def _report(score: int = 7, word: str = "MOND", picture: bool = True) -> dict:
    """A report with parts of every visibility: a mover's verdict with a mover's
    parameter and the game master's wording, a public fallback, notes of the mover, the
    public and the game master alone, a picture with a game master's line."""
    said = about_mover("Dein Zug {word} mit {rack}", "Der Zug {word} mit {rack}")
    detail = {"word": word, "summary": verdict("sum", "Summe {n}", seen=Visibility.MOVER, n=mover(score))}
    if picture:
        detail["picture"] = ["A B C", verdict("pl", "Zeile {x}", seen=Visibility.MOVER, x=mover("Q")),
                             verdict("gl", "Geheim {x}", seen=Visibility.GM, x=gm("Z"))]
    return MoveReport(0, word.lower(), True, score=score, verdict=verdict("ok", said, word=public(word), rack=mover("XYZ")),
                      notes=[verdict("n1", "Für dich {w}", w=mover(word)), verdict("n2", "Für alle", seen=Visibility.PUBLIC),
                             verdict("n3", "Nur Spielleitung", seen=Visibility.GM),
                             verdict("n4", "gültig", seen=Visibility.PUBLIC)],
                      public=verdict("pub", "Gelegt {word}", seen=Visibility.PUBLIC, word=public(word)),
                      detail=detail).to_json()


def test_the_movers_rendering_does_not_depend_on_the_player_key():
    """The premise of the memory: rendered for its mover, a report reads the same whoever
    the mover is (``Audience.sees`` with viewer == owner; the game master's wording only
    for a game master), while another audience reads it otherwise."""
    r = _report()
    mine = [render_move(r, "de", Audience(viewer=k), k) for k in ("1", "2", "317")]
    assert mine[0] == mine[1] == mine[2]
    assert "XYZ" in mine[0]["message"] and "Nur Spielleitung" not in mine[0]["notes"]
    assert render_move(r, "de", Audience(viewer="2"), "1") != mine[0]  # another player's view differs
    assert render_move(r, "de", Audience(viewer="2", gm=True), "1") != mine[0]  # so does the game master's
    ackmoves.mover_move(r, "de", "1", ackmoves.report_key(r))
    for k in ("2", "317"):
        assert ackmoves.mover_move(r, "de", k, ackmoves.report_key(r)) == render_move(r, "de", Audience(viewer=k), k)


def test_the_rendered_moves_key_holds_the_language_and_the_whole_report():
    base = _report()
    variants = [("de", base), ("nl", base), ("de", _report(score=8)), ("de", _report(word="MONDE")),
                ("de", _report(picture=False))]
    fresh = [render_move(r, lang, Audience(viewer="1"), "1") for lang, r in variants]
    assert len({repr(f) for f in fresh}) == len(variants)  # each part changes the rendering
    ackmoves.mover_move(base, "de", "1", ackmoves.report_key(base))
    for (lang, r), want in zip(variants, fresh):
        assert ackmoves.mover_move(r, lang, "1", ackmoves.report_key(r)) == want
    got = ackmoves.mover_move(base, "de", "1", ackmoves.report_key(base))
    got["message"] = "changed"  # the remembered move is not handed out
    assert ackmoves.mover_move(base, "de", "1", ackmoves.report_key(base)) == fresh[0]


def test_the_blocks_key_holds_language_multiline_last_and_the_report():
    """Each part of the block's key changes the text; remembered after the first, each
    variant still gives its own (a key missing a part answers the first's text)."""
    r1, r2 = _report(), _report(score=8)
    variants = [("de", False, True, r1), ("nl", False, True, r1), ("de", True, True, r1), ("de", False, False, r1),
                ("de", False, True, r2)]
    moved = {(lang, id(r)): render_move(r, lang, Audience(viewer="1"), "1") for lang, _, _, r in variants}
    moved[("de", id(r1))]["text"] = "mond\nes"  # a move of two lines: multiline shows it otherwise
    moved[("nl", id(r1))]["text"] = "mond\nes"
    fresh = [render("ack_move.txt.j2", lang, m=moved[(lang, id(r))], multiline=ml, last=last)
             for lang, ml, last, r in variants]
    assert len(set(fresh)) == len(variants)
    for (lang, ml, last, r), want in zip(variants, fresh):
        assert ackmoves.move_block(lang, ml, moved[(lang, id(r))], last, ackmoves.report_key(r)) == want
    for (lang, ml, last, r), want in zip(variants, fresh):  # now from the memory
        assert ackmoves.move_block(lang, ml, moved[(lang, id(r))], last, ackmoves.report_key(r)) == want
    assert len(ackmoves._BLOCKS) == len(variants)


def test_a_checked_move_is_remembered_by_lexicon_position_line_move_and_index():
    """What :func:`ackmoves.checked` remembers equals checking afresh for every part of
    its key (another lexicon, position, line, index) and for every player; a game
    without a judging key is not remembered."""
    st, other = state(), state(row="..MOND...", vorgabe="EST?/")
    deny = Lexicon.from_words([w for w in WORDS if w != "MONDES"], "rondo")
    variants = [(st, "mondES", LEX, 0), (st, "mondES", deny, 0), (other, "mondES", LEX, 0),
                (st, "Feld 3: mondES", LEX, 0), (st, "mondES", LEX, 1), (st, "STAND", LEX, 0),
                (st, "mondES ", LEX, 0),  # the same move read from another line
                (st, "mondES", LEX, 0, "STAND")]  # the same line with another move (the key's move part)
    variants = [v if len(v) == 5 else (*v, v[1].strip()) for v in variants]
    fresh = [RULES.check_read(s, t, parse_move(m), lex, i, player="p1").to_json() for s, t, lex, i, m in variants]
    assert len({repr(f) for f in fresh}) == len(variants)
    for _ in range(2):  # the second time from the memory
        for player in ("p1", "p2"):
            for (s, t, lex, i, m), want in zip(variants, fresh):
                report, rkey = ackmoves.checked(RULES, s, ackmoves.state_key_of(RULES, s), t, parse_move(m), lex, i, player)
                assert report == want and rkey == ackmoves.report_key(want)
    assert sum(len(m) for _, m in ackmoves._CHECKED.values()) == len(variants)
    ackmoves._CHECKED.clear()
    assert ackmoves.state_key_of(MonoscrabbleRules(), {}) is None
    ackmoves.checked(RULES, st, None, "mondES", parse_move("mondES"), LEX, 0, "p1")  # no key: not remembered
    assert not ackmoves._CHECKED


def test_a_move_that_is_not_a_hashable_value_is_checked_every_time():
    class Game:
        name, calls = "fake", 0

        def check_read(self, state, text, move, lexicon, index, *, player=None):
            Game.calls += 1
            return MoveReport(index, text, False, reason="syntax")

    for move in (["not", "hashable"], ValueError("a NotationError"), None, ["not", "hashable"]):
        report, _ = ackmoves.checked(Game(), {}, "key", "x", move, LEX, 0, "p1")
        assert report == MoveReport(0, "x", False, reason="syntax").to_json()
    assert Game.calls == 4 and not any(m for _, m in ackmoves._CHECKED.values())

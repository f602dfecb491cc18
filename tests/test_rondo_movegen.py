"""Rondo's move generation (bot/games/rondo/movegen.py): every generated move evaluates
again from its notation, the generator misses no valid move (a brute force over a small
word list), the best moves sorted and limited, the seed's example with the full word
list; and the compiled move listing (issue 25) against the pure-Python reference.
Validation and scoring: tests/test_rondo_engine.py.

Rule source: seed 000 II.1-II.3 with shared/RULES.md "Rondo"."""

from __future__ import annotations

import itertools
import os
import random

import pytest

from bot.games.rondo import movegen as rondo_movegen
from bot.games.rondo.cards import LETTER_VALUES, Row, full_deck
from bot.games.rondo.engine import Position, evaluate
from bot.games.rondo.movegen import best_moves, generate_moves
from bot.games.rondo.notation import Move, Token
from bot.games.rondonl.cards import full_deck as nl_deck
from bot.games.rondonl.engine import best_word, hand_vorgabe
from bot.lexicon import Lexicon

from tests.test_rondo_engine import LEX, ev


# -- the generator ----------------------------------------------------------------------------

POSITIONS = [
    ("..MOND/..", "DEST?/", 2),
    ("...TOR...", "EST?/", 2),
    ("..TOR/...", "ET?/", 2),
    ("..TOrE/..", "EST/", 2),
    ("//TOR//..", "OTE?/", 2),
    (".........", "TORE?A", 1),
    ("......TOR", "EST?/", 2),
    ("TOR......", "EST?/", 2),
]


@pytest.mark.parametrize("row,vorgabe,rnd", POSITIONS)
def test_generated_moves_reevaluate_from_notation(row, vorgabe, rnd):
    p = Position.from_codes(row, vorgabe, rnd)
    moves = list(generate_moves(p, LEX))
    for o in moves:
        text = o.notation(p)
        again = evaluate(p, text, LEX)
        assert again.valid, (text, again.reason)
        assert (again.score, again.bonus, again.row, again.word) == (o.score, o.bonus, o.row, o.word), text
        assert o.word in LEX and len(o.word) >= 3
    # and without the field when the notation leaves it out, alignment finds the same field
    for o in moves:
        if not o.notation(p).startswith("Feld"):
            assert evaluate(p, o.move.cards, LEX).field == o.field


def test_generator_finds_the_seed_example_moves():
    p = Position.from_codes("..MOND/..", "DEST?/", 2)
    found = {(o.row.code, o.score) for o in generate_moves(p, LEX)}
    for mv in ["mondE", "mondES", "monDES", "mo*NDES", "DEo///", "ST*And/", "ST*AnDE", "SToE*R/",
               "/o*RT/", "/o*RTES", "To*R//", "SEnD/"]:
        o = ev("..MOND/..", "DEST?/", mv)
        assert (o.row.code, o.score) in found, mv


BF_WORDS = ["TOR", "TORE", "ROT", "ROTE", "ORT", "ORTE", "TOT", "TOTE", "TORT", "ROST", "ORTS", "TORS",
            "STOER", "SORTE", "OSTER", "ESTER", "TOSE", "ROSE", "RES", "TORTE", "ROSTE", "TROST"]


def _brute_force(row: str, vorgabe: str, rnd: int, lex) -> set[tuple[str, int, str]]:
    """Every valid (row, score, new cards), found independently of the generator by judging
    every token sequence with an explicit field. Per field: the old letter, a Vorgabe letter,
    a Joker as any letter the word list uses (no other letter can make a word), or a Loescher.
    The sequences start at the first old field or one before it and cover the old Auslage
    (NOTATION.md: the cards are the whole new Auslage), with the old width or one more;
    on an empty row every start 1-7 with three cards."""
    p = Position.from_codes(row, vorgabe, rnd)
    r = Row.from_code(row)
    occ = r.occupied()
    joker_letters = sorted({ch for w in lex.words() for ch in w})
    new_letters = sorted(set(ch for ch in vorgabe if ch in LETTER_VALUES))
    if occ is None:
        spans = [(s, 3) for s in range(1, 8)]
    else:
        a, b = occ
        width = b - a + 1
        spans = [(s, n) for n in (width, width + 1) for s in (a - 1, a)
                 if s >= 1 and s + n - 1 <= 9 and s + n - 1 >= b]
    found = set()
    for s, n in spans:
        options = []
        for f in range(s, s + n):
            opts = []
            old = r[f]
            if old is not None and old.is_letter:
                opts.append(Token("old", old.letter))
            opts += [Token("new", ch) for ch in new_letters]
            if "?" in vorgabe:
                opts += [Token("joker", ch) for ch in joker_letters]
            opts.append(Token("loescher"))
            options.append(opts)
        for combo in itertools.product(*options):
            o = evaluate(p, Move(tuple(combo), s), lex)
            if o.valid:
                found.add((o.row.code, o.score, o.new_cards))
    return found


@pytest.mark.parametrize("row,vorgabe,rnd,words", [
    ("...TOR...", "EST?/", 2, BF_WORDS),
    ("..TOR/...", "E?/", 2, BF_WORDS),
    ("..TOrE/..", "ES/", 2, BF_WORDS),
    (".........", "TORE?A", 1, BF_WORDS),
    ("......TOR", "ES?/", 2, BF_WORDS),
    ("//TOR//..", "ST/", 2, BF_WORDS),
    ("...TOT...", "OTE?/", 2, ["TOT", "TOTE", "OTTO", "TOTO", "OTT", "ETO", "TOE"]),
])
def test_generator_misses_no_valid_move(row, vorgabe, rnd, words):
    lex = Lexicon.from_words(words, "rondo")
    p = Position.from_codes(row, vorgabe, rnd)
    moves = list(generate_moves(p, lex))
    generated = {(o.row.code, o.score, o.new_cards) for o in moves}
    brute = _brute_force(row, vorgabe, rnd, lex)
    assert brute, "the brute force should find something in these positions"
    assert generated == brute
    # distinct moves may give the same row (a T stacked on the first or on the second T),
    # but no move is listed twice
    written = [(o.field, o.move.cards) for o in moves]
    assert len(written) == len(set(written)), "the generator lists a move twice"


def test_best_moves_sorted_and_limited():
    p = Position.from_codes("..MOND/..", "DEST?/", 2)
    allm = best_moves(p, LEX, None)
    assert [o.score for o in allm] == sorted((o.score for o in allm), reverse=True)
    assert len(allm) == len(list(generate_moves(p, LEX)))
    top = best_moves(p, LEX)
    assert len(top) == 1 and top[0].score == allm[0].score == max(o.score for o in allm)


def test_no_moves_when_nothing_fits():
    p = Position.from_codes("..MOND/..", "XYZQ", 2)
    assert list(generate_moves(p, LEX)) == []
    assert best_moves(p, LEX) == []


# -- the seed's question with the full lexicon -------------------------------------------------

@pytest.fixture(scope="module")
def full_lexicon():
    from bot.lexicon import load
    return load("rondo")


def test_seed_question_27_points(full_lexicon):
    """Seed 000 II.3c: 'Wer findet ein gueltiges Wort mit 27 Punkten (oder gar mehr)?'"""
    p = Position.from_codes("..MOND/..", "DEST?/", 2)
    best = best_moves(p, full_lexicon, 5)
    assert best and best[0].score >= 27
    for o in best:
        again = evaluate(p, o.notation(p), full_lexicon)
        assert again.valid and again.score == o.score and again.row == o.row
        assert o.word in full_lexicon
    # the seed's own 24-point moves are valid with the real dictionary too
    assert evaluate(p, "mo*NDES", full_lexicon).score == 24
    assert evaluate(p, "ST*AnDE", full_lexicon).score == 24


# --- the compiled move listing (issue 25) against the pure-Python reference ------------

LISTING_CASES = int(os.environ.get("SPIELLEITER_RONDO_CASES", "0"))


def _outcome_key(o):
    return (o.score, o.row.code, o.move.cards, o.field, o.word, o.bonus, o.new_cards, o.new_loescher)


def _random_positions(rng, lexicon, n):
    """``n`` positions of a seeded random self-play (each turn a random move of the
    reference listing; an empty row again now and then), Rondo's Vorgaben (reusable
    Loescher) and RONDO's hands (each wis-kaart one card), and rows of random cards."""
    deck, nl = full_deck() + ["/"] * 4, nl_deck()
    row = Row.empty()
    for i in range(n):
        if i % 5 == 4:  # random cards on a random stretch, gaps and Loescher included
            a = rng.randrange(1, 8)
            b = rng.randrange(a, 10)
            code = "".join(rng.choice("ABDEINORSTUz/.") if a <= f <= b else "." for f in range(1, 10))
            code = code if code.strip(".") else "....E...."
            yield Position(Row.from_code(code[:a - 1] + code[a - 1].replace(".", "E") + code[a:]),
                           Vorgabe.parse("".join(rng.sample(deck, rng.randrange(0, 9)))))
            continue
        if i % 2:
            vorgabe = hand_vorgabe("".join(rng.sample(nl, rng.randrange(0, 11))))
        else:
            vorgabe = Vorgabe.parse("".join(rng.sample(deck, rng.randrange(0, 9))))
        pos = Position(row, vorgabe)
        yield pos
        moves = list(generate_moves(pos, lexicon))
        row = rng.choice(moves).row if moves and rng.random() < 0.9 else Row.empty()


from bot.games.rondo.cards import Vorgabe  # noqa: E402


@pytest.fixture(scope="module")
def rondo_lex():
    from bot.lexicon import load
    return load("rondo")


def test_compiled_listing_equals_the_reference(rondo_lex):
    """``list_moves`` (compiled) gives exactly the moves ``generate_moves`` judges valid,
    field for field, on seeded random positions of Rondo and RONDO (the German list);
    more with ``SPIELLEITER_RONDO_CASES=N``."""
    rng = random.Random(25)
    n_moves = 0
    for pos in _random_positions(rng, rondo_lex, LISTING_CASES or 150):
        ref = sorted(_outcome_key(o) for o in generate_moves(pos, rondo_lex))
        got = sorted(tuple(r) for r in rondo_movegen.list_moves(pos, rondo_lex))
        assert got == ref, (pos.row.code, pos.vorgabe)
        n_moves += len(ref)
    assert n_moves > 1000


def test_compiled_listing_on_the_small_list_and_best_moves_agree():
    """With the small test list too (its own word graph), and ``best_moves`` and RONDO's
    ``best_word`` (also with the beginners' rule) give the reference's answers."""
    rng = random.Random(26)
    for pos in _random_positions(rng, LEX, 60):
        ref = sorted(_outcome_key(o) for o in generate_moves(pos, LEX))
        assert sorted(tuple(r) for r in rondo_movegen.list_moves(pos, LEX)) == ref
        got = best_moves(pos, LEX, 3)
        with rondo_movegen.reference_listing():
            want = best_moves(pos, LEX, 3)
        assert [(o.notation(pos), o.score, o.notes) for o in got] == [(o.notation(pos), o.score, o.notes)
                                                                        for o in want]
    for _ in range(40):
        row = Row.from_code(rng.choice(["...MOND..", "...TOR...", "..STAND..", ".........", "...T/RE.."]))
        hand = "".join(rng.sample("MONDESTRAE?//", 7))
        for beginners in (False, True):
            got = best_word(row, hand, LEX, beginners=beginners)
            with rondo_movegen.reference_listing():
                assert got == best_word(row, hand, LEX, beginners=beginners)

"""The Monoscrabble move generator against an independent brute force.

The brute force below shares no code with ``bot/games/monoscrabble/movegen.py``: it
tries every line, every word extent and every arrangement of rack tiles (every letter
for a Blanko) in the extent's empty squares, then checks the rules directly on the board
(contiguity, connection / centre, every word in the lexicon) and scores directly
(premiums under new tiles only, Blanko 0, bingo +50 for 7+ tiles).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot import lexicon as L
from tests.helpers import CASES_DIR
from bot.games.monoscrabble.movegen import (
    GenMove, best_move, count_moves, generate, move_key,
)

CONFORMANCE = CASES_DIR / "monoscrabble.json"
POSITIONS = Path(__file__).resolve().parents[1] / "bench" / "monoscrabble_positions.json"

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"
VALUE = {**{c: 1 for c in "ENSIRTUAD"}, **{c: 2 for c in "HGLO"},
         **{c: 3 for c in "MBWZ"}, **{c: 4 for c in "CFKP"}, **{c: 6 for c in "ÄJÜV"},
         **{c: 8 for c in "ÖX"}, **{c: 10 for c in "QY"}}
PREMIUM_MAP = """\
T..d...T...d..T
.D...t...t...D.
..D...d.d...D..
d..D...d...D..d
....D.....D....
.t...t...t...t.
..d...d.d...d..
T..d...*...d..T
..d...d.d...d..
.t...t...t...t.
....D.....D....
d..D...d...D..d
..D...d.d...D..
.D...t...t...D.
T..d...T...d..T""".splitlines()

EMPTY = ["." * 15] * 15

WORDS = """STERN STERNE RUHE SPIELEN REMUS ÄRGER TÄNZER ADERIGE ADERIGES
EI EIS EIN EINE EINER ES ER SIE DIE DER DAS DEN AN AM IN IST ZU ZUM OB OH JA NU
TAG TAGE NASE NEST NETT RAT RATE RATEN TIER TIERE TOR TORE ROT ROTE SEE SEEN
ARE ART ARTEN ANTE ERNST ERNTE RENTE RENTEN TEE TEER NEU NEUE NEUER TÜR TÜREN
ÖL ÖLE BÄR BÄREN MÜHE OHR OHREN HUT HÜTE HEU HEUTE URNE URNEN AUS AUSE LAUS
GAST GÄSTE NUTS SATT SAU SAUER SEIT SEITE SEITEN STEIN STEINE TRAUM SATIRE
INSERAT INSERATE TRAINER RENTNER""".split()


def lex_of(words=WORDS):
    return L.Lexicon.from_words(words, "monoscrabble")


def board_from(placements: dict[tuple[int, int], str]) -> list[str]:
    g = [["."] * 15 for _ in range(15)]
    for (r, c), ch in placements.items():
        g[r - 1][c - 1] = ch
    return ["".join(r) for r in g]


def put_word(g: list[list[str]], row: int, col: int, d: str, word: str) -> None:
    for i, ch in enumerate(word):
        r, c = (row, col + i) if d == "w" else (row + i, col)
        g[r - 1][c - 1] = ch


def make_board(*words) -> list[str]:
    g = [["."] * 15 for _ in range(15)]
    for w in words:
        put_word(g, *w)
    return ["".join(r) for r in g]


# ---------------------------------------------------------------------------------------
# Independent brute force


def brute_force(board: list[str], rack: str, lexicon) -> dict:
    """{frozenset of placed tiles (r, c, letter, blank): score} of every valid move.

    Every line, every extent [start, end) of 2+ squares with empty squares (or the
    edge) on both sides and 1..len(rack) empty squares inside, every filling of those
    squares with rack tiles (pruned by the lexicon's own ``has_prefix``); then the
    rules are checked on the board and the move scored directly.
    """
    grid = [list(r) for r in board]
    empty = all(ch == "." for r in grid for ch in r)
    tiles = [ch for ch in rack if ch == "?" or ch.isalpha()]
    tiles = [ch if ch == "?" else ch.upper() for ch in tiles]
    out: dict = {}

    def at(r, c):
        return grid[r][c] if 0 <= r < 15 and 0 <= c < 15 else "."

    def word_through(r, c, dr, dc, new):
        """Word through (r, c) along (dr, dc) with ``new`` tiles placed: list of
        (r, c, ch, is_new, is_blank)."""
        def get(rr, cc):
            if (rr, cc) in new:
                return new[(rr, cc)]
            ch = at(rr, cc)
            return None if ch == "." else ch
        while get(r - dr, c - dc) is not None:
            r, c = r - dr, c - dc
        cells = []
        while 0 <= r < 15 and 0 <= c < 15 and get(r, c) is not None:
            if (r, c) in new:
                ch, blank = new[(r, c)][0], new[(r, c)][1]
                cells.append((r, c, ch, True, blank))
            else:
                ch = grid[r][c]
                cells.append((r, c, ch.upper(), False, ch.islower()))
            r, c = r + dr, c + dc
        return cells

    def fillings(cells):
        """Every way to put rack tiles on the empty squares of ``cells`` (in order),
        pruned by ``lexicon.has_prefix`` of the main word read so far."""
        left = {}
        for t in tiles:
            left[t] = left.get(t, 0) + 1
        new: dict = {}

        def rec(i, prefix):
            if i == len(cells):
                yield dict(new)
                return
            r, c = cells[i]
            if grid[r][c] != ".":
                p = prefix + grid[r][c].upper()
                if lexicon.has_prefix(p):
                    yield from rec(i + 1, p)
                return
            for t in list(left):
                if not left[t]:
                    continue
                left[t] -= 1
                for ch in (ALPHABET if t == "?" else t):
                    p = prefix + ch
                    if lexicon.has_prefix(p):
                        new[(r, c)] = (ch, t == "?")
                        yield from rec(i + 1, p)
                        del new[(r, c)]
                left[t] += 1

        yield from rec(0, "")

    def score_cells(cells):
        s = 0
        wm = 1
        for r, c, ch, is_new, blank in cells:
            v = 0 if blank else VALUE[ch]
            if is_new:
                p = PREMIUM_MAP[r][c]
                v *= {"t": 3, "d": 2}.get(p, 1)
                wm *= {"T": 3, "D": 2, "*": 2}.get(p, 1)
            s += v
        return s * wm

    for d, (dr, dc) in (("w", (0, 1)), ("s", (1, 0))):
        for line in range(15):
            for start in range(15):
                for end in range(start + 2, 16):
                    cells = [(line, k) if d == "w" else (k, line) for k in range(start, end)]
                    free = [rc for rc in cells if grid[rc[0]][rc[1]] == "."]
                    if not free or len(free) > len(tiles):
                        continue
                    before = (line, start - 1) if d == "w" else (start - 1, line)
                    after = (line, end) if d == "w" else (end, line)
                    if at(*before) != "." or at(*after) != ".":
                        continue
                    for new in fillings(cells):
                        # connection
                        if empty:
                            if (7, 7) not in new:
                                continue
                        else:
                            touches = len(free) < len(cells) or any(
                                at(r + a, c + b) != "."
                                for (r, c) in free
                                for a, b in ((0, 1), (0, -1), (1, 0), (-1, 0)))
                            if not touches:
                                continue
                        main = word_through(*free[0], dr, dc, new)
                        words = [main]
                        for (r, c) in free:
                            cw = word_through(r, c, dc, dr, new)
                            if len(cw) >= 2:
                                words.append(cw)
                        if any("".join(x[2] for x in w) not in lexicon for w in words):
                            continue
                        score = sum(score_cells(w) for w in words)
                        if len(free) >= 7:
                            score += 50
                        key = frozenset((r + 1, c + 1, ch, b)
                                        for (r, c), (ch, b) in new.items())
                        prev = out.get(key)
                        assert prev is None or prev == score
                        out[key] = score
    return out


def gen_map(board, rack, lexicon) -> dict:
    moves = list(generate(board, rack, lexicon))
    keys = [frozenset(m.tiles) for m in moves]
    assert len(keys) == len(set(keys)), "a placement was reported twice"
    for m in moves:
        assert isinstance(m, GenMove)
        check_shape(board, m)
    return {frozenset(m.tiles): m.score for m in moves}


def check_shape(board, m: GenMove) -> None:
    """The move's own fields agree: tiles on empty squares along the main word,
    the main word read from the board with the tiles placed."""
    assert m.direction in ("w", "s")
    assert m.words[0] == m.word and len(m.word) >= 2
    g = [list(r) for r in board]
    for r, c, ch, b in m.tiles:
        assert g[r - 1][c - 1] == "."
        g[r - 1][c - 1] = ch.lower() if b else ch
    dr, dc = (0, 1) if m.direction == "w" else (1, 0)
    r, c = m.row - 1, m.col - 1
    assert not (0 <= r - dr and 0 <= c - dc and g[r - dr][c - dc] != ".")
    read = ""
    while r < 15 and c < 15 and g[r][c] != ".":
        read += g[r][c].upper()
        r, c = r + dr, c + dc
    assert read == m.word
    for r, c, ch, b in m.tiles:
        assert (r - m.row) * dc == 0 if m.direction == "w" else (c - m.col) == 0


def assert_same(board, rack, lexicon):
    got = gen_map(board, rack, lexicon)
    want = brute_force(board, rack, lexicon)
    missing = {k: v for k, v in want.items() if k not in got}
    extra = {k: v for k, v in got.items() if k not in want}
    wrong = {k: (got[k], v) for k, v in want.items() if k in got and got[k] != v}
    assert not missing and not extra and not wrong, (missing, extra, wrong)
    return got


# ---------------------------------------------------------------------------------------
# Small lexicons


def test_empty_board_first_move():
    got = assert_same(EMPTY, "ENRSTAI", lex_of())
    assert got  # STERN, RATEN, ...
    moves = list(generate(EMPTY, "ENRSTAI", lex_of()))
    stern = [m for m in moves if m.word == "STERN" and (m.row, m.col, m.direction) == (8, 4, "w")]
    assert len(stern) == 1 and stern[0].score == 12 and len(stern[0].tiles) == 5


def test_empty_board_blank():
    assert_same(EMPTY, "NE?", lex_of())


def test_empty_board_bingo():
    lex = lex_of()
    moves = list(generate(EMPTY, "SPIELEN", lex))
    bingo = [m for m in moves if m.word == "SPIELEN"]
    assert bingo and all(m.score >= 50 + 9 for m in bingo)
    assert_same(EMPTY, "SPIELEN", lex_of(["SPIELEN", "SPIEL", "LEISE"]))


def test_hooks_and_cross_words():
    board = make_board((8, 4, "w", "STERN"))
    assert_same(board, "RUHE", lex_of())
    assert_same(board, "EIS", lex_of())
    assert_same(board, "TE?", lex_of())


def test_crowded_board_premiums():
    board = make_board((8, 4, "w", "STERN"), (5, 9, "s", "RUHE"), (5, 7, "w", "EIN"),
                       (4, 1, "w", "ÄRGER"))
    assert_same(board, "TORES", lex_of())
    assert_same(board, "ÖLE?", lex_of())


def test_blank_on_board_and_umlauts():
    board = make_board((8, 6, "w", "TüR"), (8, 9, "s", "ÖL"))
    assert_same(board, "ENÜHE", lex_of())


def test_two_blanks():
    board = make_board((8, 7, "w", "TEE"))
    assert_same(board, "R??", lex_of())


def test_bingo_through_board():
    lex = lex_of(WORDS)
    board = make_board((8, 8, "w", "EI"))
    moves = {frozenset(m.tiles): m.score for m in generate(board, "INSRATE", lex)}
    want = brute_force(board, "INSRATE", lex)
    assert moves == want
    assert any(len(k) == 7 for k in want), "the position should offer a bingo"


def test_single_tile_reported_once():
    # M on I8 makes ZUM across and HM down: one move, reported as across
    board = make_board((8, 7, "w", "ZU"), (7, 9, "s", "H"))
    lex = lex_of(["ZUM", "OHM", "UM", "MUH", "ZU", "OH", "HM"])
    moves = list(generate(board, "M", lex))
    both = [m for m in moves if m.tiles == ((8, 9, "M", False),)]
    assert len(both) == 1
    m = both[0]
    assert (m.row, m.col, m.direction, m.word) == (8, 7, "w", "ZUM")
    assert sorted(m.words[1:]) == ["HM"]
    assert m.score == (3 + 1 + 3) + (2 + 3)
    assert_same(board, "M", lex)
    assert_same(board, "MUHO", lex)


def test_no_moves():
    assert list(generate(EMPTY, "XQY", lex_of())) == []
    assert best_move(EMPTY, "XQY", lex_of()) is None
    assert best_move(EMPTY, "", lex_of()) is None


def test_best_move_is_maximum_and_ties():
    board = make_board((8, 4, "w", "STERN"))
    lex = lex_of()
    moves = list(generate(board, "RUHEAIL?", lex))
    b = best_move(board, "RUHEAIL?", lex)
    assert b == min(moves, key=move_key)
    assert count_moves(board, "RUHEAIL?", lex) == len(moves)


def test_conformance_positions():
    cases = json.loads(CONFORMANCE.read_text(encoding="utf-8"))
    seen_stern = False
    for case in cases:
        lex = L.Lexicon.from_words(case["words"], "monoscrabble")
        moves = list(generate(case["board"], case["rack"], lex))
        b = best_move(case["board"], case["rack"], lex)
        exp = case["expect"]
        if exp.get("valid"):
            assert b is not None and b.score >= exp["score"], case["id"]
            # the expected move itself is among the generated ones
            assert any(sorted(m.words[1:]) == sorted(exp["words"][1:])
                       and m.words[0] == exp["words"][0] and m.score == exp["score"]
                       and len(m.tiles) == exp["tiles"] for m in moves), case["id"]
        if case["id"] == "mono-01-first-move":
            seen_stern = any(m.word == "STERN" and (m.row, m.col, m.direction) == (8, 4, "w")
                             and m.score == 12 for m in moves)
    assert seen_stern


def test_conformance_positions_brute_force():
    for case in json.loads(CONFORMANCE.read_text(encoding="utf-8")):
        lex = L.Lexicon.from_words(case["words"], "monoscrabble")
        assert_same(case["board"], case["rack"], lex)


def test_self_played_small_lexicon_positions():
    """Play a few best moves with the small lexicon, checking each position."""
    lex = lex_of()
    g = [["."] * 15 for _ in range(15)]
    racks = ["RATENS", "EISTO", "NEUER", "HUTE", "SEIT"]
    for rack in racks:
        board = ["".join(r) for r in g]
        assert_same(board, rack[:5], lex)
        b = best_move(board, rack, lex)
        if b is None:
            continue
        for r, c, ch, isb in b.tiles:
            g[r - 1][c - 1] = ch.lower() if isb else ch


def test_league_view_lists():
    lex = lex_of().with_lists(allow=["STERNEN"], deny=["STERNE"])
    board = make_board((8, 4, "w", "STERN"))
    moves = list(generate(board, "EN", lex))
    assert all(w in lex for m in moves for w in m.words)
    assert any(m.word == "STERNEN" for m in moves)
    assert not any("STERNE" in m.words for m in moves)
    assert_same(board, "EN", lex)


# ---------------------------------------------------------------------------------------
# Full lexicon

needs_dict = pytest.mark.skipif(
    shutil.which("unmunch") is None or not L.DEFAULT_DIC.is_file(),
    reason="needs apt packages hunspell-de-de and hunspell-tools",
)


@pytest.fixture(scope="module")
def full():
    return L.load("monoscrabble")


def positions():
    return json.loads(POSITIONS.read_text(encoding="utf-8"))


def check_move_on_board(board, m: GenMove, lexicon):
    """Every word the move forms (read off the board) is in the lexicon and listed."""
    g = [list(r) for r in board]
    for r, c, ch, b in m.tiles:
        g[r - 1][c - 1] = ch.lower() if b else ch
    formed = []
    for k, (r, c, ch, b) in enumerate(m.tiles):
        for dr, dc in ((0, 1), (1, 0)):
            rr, cc = r - 1, c - 1
            while 0 <= rr - dr and 0 <= cc - dc and g[rr - dr][cc - dc] != ".":
                rr, cc = rr - dr, cc - dc
            w = ""
            while rr < 15 and cc < 15 and g[rr][cc] != ".":
                w += g[rr][cc].upper()
                rr, cc = rr + dr, cc + dc
            if len(w) >= 2:
                formed.append(w)
    assert set(formed) == set(m.words)
    for w in m.words:
        assert w in lexicon, w


@needs_dict
def test_full_lexicon_positions_valid_words(full):
    for p in positions()[:40:8]:
        moves = list(generate(p["board"], p["rack"], full))
        assert moves
        for m in moves:
            check_move_on_board(p["board"], m, full)


@needs_dict
def test_full_lexicon_brute_force(full):
    for p in positions()[3:30:9]:
        assert_same(p["board"], p["rack"], full)
    p = positions()[5]
    assert assert_same(p["board"], p["rack"].replace("?", "")[:5] + "?", full)
    p = positions()[0]  # empty board
    assert all(r == "." * 15 for r in p["board"])
    assert assert_same(p["board"], p["rack"], full)
    p = positions()[12]
    assert_same(p["board"], p["rack"].replace("?", "")[:3] + "??", full)


@needs_dict
def test_saved_positions_top_scores(full):
    for i, p in enumerate(positions()[:10]):
        b = best_move(p["board"], p["rack"], full)
        assert (None if b is None else b.score) == p["top"], i

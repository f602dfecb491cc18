"""Issue 32 for the Typ-Dom family (Typ-Dom, Presto, "Wer behält recht?"): mails as a
careful game master writes them.

1. The example move of an Auswertung fits the position the player sees: computed from the
   table (no occupied square, no square touching a tile, no tile the set no longer has),
   plainly marked as an example; for several seeded positions.
2. Presto's acknowledgement says one rule for a resent crossword, echoes the crossword with
   every row in one column, and arrival times carry the league's time zone.
3. "Wer behält recht?" names who begins and why, every end condition with the number of
   turns, and counts in turns ("Zug").
"""

from __future__ import annotations

import email
import email.policy
import random
import re
from datetime import datetime, timezone

import pytest
from sqlalchemy import select

from bot.games.typdom.game import TypdomRules
from bot.games.typdom.table import COLUMNS, SIZE, Table, example
from bot.games.typdom.tiles import COUNTS, LETTERS
from bot.games.typdom.wbr_game import WbrRules
from bot.render import format_arrival, render
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.runner import poll_once
from bot.storage.models import OutboxMail, Partie, Player
from tests.helpers import PLAYERS, league_toml, player_mail, text_of

PLAYERS4 = PLAYERS + [("Dora Dietz", "dora@example.org")]


# -- 1. examples ------------------------------------------------------------------------------
def _board(words: list[tuple[int, int, bool, str]]) -> list[str]:
    """25 row codes with ``words`` laid: (row, col, across, WORD); later words overwrite."""
    grid = [["."] * SIZE for _ in range(SIZE)]
    for r, c, across, word in words:
        for i, ch in enumerate(word):
            rr, cc = (r, c + i) if across else (r + i, c)
            if 1 <= rr <= SIZE and 1 <= cc <= SIZE:
                grid[rr - 1][cc - 1] = ch
    return ["".join(row) for row in grid]


def _seeded(seed: int) -> list[str]:
    """A table of a few random words around the centre, as a Partie might leave it."""
    rng = random.Random(seed)
    words = [(13, 13, True, "EXAMEN")]
    for _ in range(rng.randint(2, 12)):
        w = "".join(rng.choice(LETTERS) for _ in range(rng.randint(2, 8)))
        words.append((rng.randint(1, SIZE), rng.randint(1, SIZE), rng.random() < .5, w))
    return _board(words)


POSITIONS = [_board([]), _board([(13, 13, True, "EXAMEN")]), _board([(13, 13, False, "ACHTEND")]),
             _board([(1, 1, True, "ABCDEFGHIJKLMNOPQRSTUVWXY"), (3, 1, True, "XYLOPHON")])] + \
    [_seeded(s) for s in range(12)]


def _squares(coord: str, n: int) -> list[tuple[int, int]]:
    col, row = COLUMNS.index(coord[0]) + 1, int(coord[1:])
    return [(row, col + i) for i in range(n)]


@pytest.mark.parametrize("board", POSITIONS, ids=[f"pos{i}" for i in range(len(POSITIONS))])
def test_the_example_fits_the_table(board):
    table = Table.from_rows(board)
    ex = TypdomRules().example_move({"board": board})
    assert ex == example(table) and ex is not None
    squares = _squares(ex["coord"], len(ex["word"]))
    if table.is_empty():
        assert ex["coord"] == "M13" and ex["empty"]
    else:
        # no occupied square, none touching a tile: it is no move worth playing
        assert all(table.get(r, c) is None and table.neighbours(r, c) == 0 for r, c in squares), ex
        assert table.get(squares[0][0], squares[0][1] - 1) is None
        assert table.get(squares[-1][0], squares[-1][1] + 1) is None
        assert squares[-1][1] <= SIZE
    on_table = "".join(board).replace(".", "")
    for ch in set(ex["word"]):  # no tile the set no longer has (one X, one Y ...)
        assert on_table.count(ch) + ex["word"].count(ch) <= COUNTS[ch], ex
    wbr = WbrRules().example_move({"board": board})
    assert wbr["coord"] == ex["coord"] and wbr["letter"] == ex["word"][0]


def test_the_example_leaves_a_used_up_letter_alone():
    board = _board([(13, 13, True, "EXAMEN")])
    assert example(Table.from_rows(board))["word"] != "EXAMEN"  # the one X lies on the table
    assert example(Table.from_rows(_board([])))["word"] == "EXAMEN"


def test_the_auswertung_footers_print_the_example_marked_as_such():
    board = _board([(13, 13, True, "EXAMEN")])
    typdom = TypdomRules()
    state = typdom.new_partie(seed="s", partie="T1", players=["a", "b", "c"])
    state["board"] = board
    view = dict(typdom.public_view(state), name="T1", names={})
    text = render("typdom/auswertung/footer.txt.j2", "de", league={"finished": False}, next_zat="Sonntag",
                  round=2, partien=[view])
    flat = " ".join(text.split())
    assert "Ein Beispiel nur für die Schreibweise, kein Zugvorschlag: A1w KINO Ersatz: KAUFEN" in flat
    assert "M13w" not in text and "KInD" not in text
    nl = " ".join(render("typdom/auswertung/footer.txt.j2", "nl", league={"finished": False}, next_zat="zondag",
                         round=2, partien=[view]).split())
    assert "Een voorbeeld alleen van de schrijfwijze, geen zetvoorstel: A1w KINO Reserve: KAUFEN" in nl

    wbr = WbrRules()
    state = wbr.new_partie(seed="s", partie="W1", players=["a", "b", "c"])
    state["board"] = _board([(13, 13, True, "A")])  # ACHTEND being built: an A on M13
    view = dict(wbr.public_view(state), name="W1", names={"a": "Anna"})
    text = render("typdom-wbr/auswertung/footer.txt.j2", "de", league={"finished": False}, next_zat="Sonntag",
                  round=2, partien=[view])
    flat = " ".join(text.split())
    assert "Ein Beispiel nur für die Schreibweise, kein Zugvorschlag: A1 E EXAMEN" in flat
    assert "N13" not in text and "ESEL" not in text
    assert re.search(r"^ZAT: Sonntag$", text, re.M)  # the ZAT on a line of its own


# -- 2. Presto --------------------------------------------------------------------------------
def test_arrival_times_carry_the_league_time_zone():
    winter = datetime(2026, 12, 6, 19, 14, 7, tzinfo=timezone.utc)
    summer = datetime(2026, 7, 6, 18, 14, 7, tzinfo=timezone.utc)
    assert format_arrival(winter, "Europe/Berlin") == "06.12.2026, 20:14:07 Uhr MEZ"
    assert format_arrival(summer.isoformat(), "Europe/Berlin") == "06.07.2026, 20:14:07 Uhr MESZ"
    assert format_arrival(winter, "Europe/Amsterdam", "nl") == "06-12-2026, 20:14:07 uur CET"
    assert format_arrival(winter, "UTC") == "06.12.2026, 19:14:07 Uhr UTC"


def _league(tmp_path, game, players, extra="", name="Race"):
    path = league_toml(tmp_path / f"{game}.toml", name=name, partien=("P1",), rounds=50, players=players,
                       extra='gm_email = "gm@example.org"\n' + extra)
    path.write_text(path.read_text().replace('game = "rondo"', f'game = "{game}"'))
    return path


def _mails(db, kind, to=None):
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == kind).order_by(OutboxMail.id)).all()
        return [(r.to_addr, email.message_from_bytes(r.raw, policy=email.policy.default)) for r in rows
                if to is None or r.to_addr == to]


def _set(db, **changes):
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.scalars(select(Player))}
        pt = s.scalar(select(Partie))
        st = dict(pt.state)
        for k, v in changes.items():
            st[k] = v(keys) if callable(v) else v
        pt.state = st
    return keys


def test_presto_ack_says_one_rule_and_echoes_the_crossword_aligned(tmp_path, env):
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, "typdom-presto", PLAYERS4)), cfg)
    start = text_of(_mails(db, "start", "anna@example.org")[0][1].as_bytes())
    # the league's choice on "ein Stein Rest" is stated, not pointed to
    assert "In dieser Liga zählt nur ein Kreuzwort mit allen Steinen" in " ".join(start.split())
    assert "steht in der Startmail" not in start
    _set(db, racks=lambda k: {k["anna@example.org"]: "AHSTUU", k["bernd@example.org"]: "AHSTUU",
                              k["clara@example.org"]: "AHOSTUU", k["dora@example.org"]: "AHSTUU"})
    md.deliver_to_inbox(player_mail("anna@example.org", "HAUS\nU\nT"))
    poll_once(db, cfg)
    ack = text_of(_mails(db, "ack", "anna@example.org")[-1][1].as_bytes())
    lines = ack.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.strip() == "Zug:")
    rows = lines[head + 1:head + 4]
    assert [ln.strip() for ln in rows] == ["HAUS", "U", "T"], ack
    assert lines[head + 4].strip().startswith("-> gültig"), ack
    assert len({len(ln) - len(ln.lstrip()) for ln in rows}) == 1, ack  # every row in one column
    flat = " ".join(ack.split())
    assert "Jede weitere Mail ersetzt dein Kreuzwort samt seiner Ankunftszeit; schick darum nichts mehr." in flat
    assert "Eine spätere Mail vor dem ZAT ersetzt" not in flat  # no second, contrary rule

    md.deliver_to_inbox(player_mail("bernd@example.org", "HAUS\nU\nU"))  # one U too many: invalid
    poll_once(db, cfg)
    ack = " ".join(text_of(_mails(db, "ack", "bernd@example.org")[-1][1].as_bytes()).split())
    assert "Schick es verbessert noch einmal: es zählt die letzte Mail mit ihrer Ankunftszeit." in ack
    assert "Eine spätere Mail vor dem ZAT ersetzt" not in ack


# -- 3. "Wer behält recht?" -------------------------------------------------------------------
def test_wbr_start_mail_names_who_begins_and_every_end(tmp_path, env):
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, "typdom-wbr", PLAYERS, name="Wbr")), cfg)
    with db.session() as s:
        st = s.scalar(select(Partie)).state
        names = {str(p.id): p.name for p in s.scalars(select(Player))}
    first = names[st["start"]["player"]]
    for _, msg in _mails(db, "start"):
        text = text_of(msg.as_bytes())
        flat = " ".join(text.split())
        assert f"Es beginnt {first} mit dem Stein nächst an Z ({st['start']['letter']}" in flat
        assert "wer den Stein nächst an Z hat" not in flat
        assert ("Die Partie endet, sobald einer keine Steine mehr hat, oder wenn es nicht mehr weitergeht, weil "
                "der Vorrat leer ist und reihum keiner einen Stein legt, spätestens aber nach Zug 50.") in flat
        assert "In dieser Liga endet die Partie spätestens nach Zug 50." in flat
        assert "die Runde Wbr" not in flat and "die Liga Wbr" in flat
        assert max(len(ln) for ln in text.splitlines()) <= 72


def test_dutch_start_mails_of_presto_and_wbr_are_dutch_and_within_72_columns(tmp_path, env):
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, "typdom-presto", PLAYERS4, 'language = "nl"')), cfg)
        create_league(s, read_league_file(_league(tmp_path, "typdom-wbr", PLAYERS, 'language = "nl"', name="Wbr")),
                      cfg)
    starts = [text_of(msg.as_bytes()) for _, msg in _mails(db, "start")]
    assert len(starts) == 4 + 3
    for text in starts:
        assert max(len(ln) for ln in text.splitlines()) <= 72, text
        for german in ("So schickst du", "Wer zuerst", "Ein Zug:", "Jeder hat", "Zitierte Zeilen"):
            assert german not in text, (german, text)
        assert not re.search(r"\b(rot|schwarz): [A-Z*]", text), text  # the rack in Dutch too
        assert re.search(r"\b(rood|zwart): [A-Z*]", text), text
    wbr = " ".join(starts[-1].split())
    assert "uiterlijk na beurt 50" in wbr and "In deze competitie eindigt de partij uiterlijk na beurt 50." in wbr
    presto = " ".join(starts[0].split())
    assert "In deze competitie telt alleen een kruiswoord met al je stenen" in presto

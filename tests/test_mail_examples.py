"""Issue 32: examples that fit the position, one rule for a correction, one description
of a move. Checked on the mails a player receives (rendered through the real service, or
the golden gallery that tests/test_gallery.py keeps equal to what the code renders)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.games import get_game
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.runner import poll_once
from bot.service.presentation.view import league_view
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.storage.db import Database
from bot.storage.models import Partie
from tests.helpers import PLAYERS, header, league_toml, player_mail, text_of

GALLERY = Path(__file__).resolve().parent / "gallery"
LABEL = "Beispiel (nur die Schreibweise, kein Vorschlag):"


def _league(tmp_path, game: str, partien, rounds: int = 3, seed: int = 1):
    cfg = embedded(tmp_path / "var")
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    path = league_toml(tmp_path / "liga.toml", name="Test-Liga", partien=partien, rounds=rounds)
    path.write_text(path.read_text().replace('game = "rondo"', f'game = "{game}"').replace("seed = 1", f"seed = {seed}"))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    deliver(db, md, cfg)
    return db, cfg, md


def _example(text: str) -> list[str]:
    """The lines of the example block under :data:`LABEL` (indented, up to a blank line)."""
    lines = text.replace("\r\n", "\n").split("\n")
    at = lines.index(LABEL)
    assert lines[at + 1] == "", "a blank line after the label"
    out = []
    for ln in lines[at + 2:]:
        if not ln.strip():
            break
        assert ln.startswith("    "), f"example line not indented: {ln!r}"
        out.append(ln.strip())
    return out


def _auswertung(md, to: str, n: int) -> str:
    return next(text_of(r) for r in reversed(md.sent())
                if header(r, "To") == to and f"Auswertung Runde {n}" in header(r, "Subject"))


# -- 1. examples fit the position ---------------------------------------------------------

def test_rondo_auswertung_example_fits_the_auslage_and_is_labelled(tmp_path):
    """Round 1 put a word on the Auslage; the Auswertung's example writes exactly that
    Auslage in lower case and adds only letter cards of the new Vorgabe, under the label."""
    db, cfg, md = _league(tmp_path, "rondo", ("R1", "R2"))
    md.deliver_to_inbox(player_mail(PLAYERS[0][1], "Partie R1:\nSAU\nPartie R2:\nMAX"))
    md.deliver_to_inbox(player_mail(PLAYERS[1][1], "Partie R1:\nLAU\nPartie R2:\nMAU"))
    assert poll_once(db, cfg) == 2
    adjudicate_league(db, cfg, "Test-Liga", force=True)
    deliver(db, md, cfg)
    text = _auswertung(md, PLAYERS[2][1], 1)
    assert "mo*NDES" not in text
    header_line, *moves = _example(text)
    assert header_line == "Partie R1:" and moves
    r1 = next(p for p in league_view(db, "Test-Liga")["partien"] if p["name"] == "R1")
    word = r1["word"]
    vorgabe = r1["vorgabe"]
    for i, line in enumerate(moves):
        if i:
            assert line.startswith("Ersatz: ")
            line = line.removeprefix("Ersatz: ")
        cards = line.split(":")[-1].strip()
        assert "".join(ch for ch in cards if ch.islower()).upper() == word, (line, word)
        new = [ch for ch in cards if ch.isupper()]
        assert new and all(ch in vorgabe for ch in new), (line, vorgabe)
        get_game("rondo").read_move(line)  # well-formed notation
    db.dispose()


def test_monoscrabble_auswertung_example_uses_free_squares(tmp_path):
    """After round 1 the Auswertung's example starts on a tile of the board (written in
    lower case, the letter that lies there) and puts Vorgabe letters on free squares only."""
    from bot.games.monoscrabble.notation import parse_move
    from bot.lexicon import load
    from bot.games.monoscrabble.movegen import generate
    db, cfg, md = _league(tmp_path, "monoscrabble", ("M1",))
    game = get_game("monoscrabble")
    with db.session() as s:
        state = s.scalar(select(Partie)).state
    best = max(generate(state["board"], state["rack"], load("monoscrabble")), key=lambda m: m.score)
    md.deliver_to_inbox(player_mail(PLAYERS[0][1], game.gen_notation(best, state["board"])))
    assert poll_once(db, cfg) == 1
    adjudicate_league(db, cfg, "Test-Liga", force=True)
    deliver(db, md, cfg)
    text = _auswertung(md, PLAYERS[0][1], 1)
    assert "H8w STERN" not in text
    lines = _example(text)
    p = league_view(db, "Test-Liga")["partien"][0]
    board, rack = p["board"], p["rack"]
    assert lines
    for i, line in enumerate(lines):
        if i:
            line = line.removeprefix("Ersatz: ")
        coord, word = line.split(" ")
        m = re.fullmatch(r"([A-O])(\d+)([ws])", coord)
        col, row, d = "ABCDEFGHIJKLMNO".index(m.group(1)), int(m.group(2)) - 1, m.group(3)
        for k, ch in enumerate(word):
            r, c = (row, col + k) if d == "w" else (row + k, col)
            square = board[r][c]
            if ch.islower():
                assert square.upper() == ch.upper(), (line, r, c, square)
            else:
                assert square == ".", f"{line}: square {r + 1},{c + 1} is taken"
                assert ch in rack, (line, rack)
        parse_move(line)
    db.dispose()


@pytest.mark.parametrize("seed", ["a", "b", "c", "d"])
def test_rondo_examples_for_seeded_positions(seed):
    """For seeded Auslagen and Vorgaben, every example line keeps the Auslage (lower case)
    and adds only Vorgabe letters on fields 1-9."""
    import random
    game = get_game("rondo")
    rng = random.Random(seed)
    state = game.new_partie(seed=seed, partie="R1")
    first = game.example_move(state)
    assert len(first) == 1 and len(first[0]) == 3 and all(ch in state["vorgabe"] for ch in first[0])
    for _ in range(6):
        n = rng.randint(2, 8)
        start = rng.randint(1, 10 - n)
        word = "".join(rng.choice("ABDEGKLMNORSTU") for _ in range(n))
        state = dict(state, row="." * (start - 1) + word + "." * (10 - start - n), round=2)
        lines = game.example_move(state)
        assert lines
        for line in lines:
            field = int(line.split(":")[0].split()[1]) if ":" in line else start
            cards = line.split(":")[-1].strip()
            assert 1 <= field and field + len(cards) - 1 <= 9
            assert "".join(ch for ch in cards if ch.islower()).upper() == word
            assert all(ch in state["vorgabe"] for ch in cards if ch.isupper())


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_monoscrabble_examples_for_seeded_positions(seed):
    """Boards of a few seeded rounds (the top move played each round): the example's new
    letters lie on free squares and come from the Vorgabe."""
    from bot.lexicon import load
    game = get_game("monoscrabble")
    lex = load("monoscrabble")
    state = game.new_partie(seed=seed, partie="M1", options={"rounds": 5})
    for rnd in range(3):
        lines = game.example_move(state)
        assert lines, state["board"]
        for line in lines:
            coord, word = line.split(" ")
            m = re.fullmatch(r"([A-O])(\d+)([ws])", coord)
            col, row, d = "ABCDEFGHIJKLMNO".index(m.group(1)), int(m.group(2)) - 1, m.group(3)
            for k, ch in enumerate(word):
                r, c = (row, col + k) if d == "w" else (row + k, col)
                sq = state["board"][r][c]
                assert (sq.upper() == ch.upper()) if ch.islower() else (sq == "." and ch in state["rack"]), line
        top = game.top(state, lex)
        rep = game.adjudicate(state, {"p": [top["notation"]]}, lex, seed=seed, partie="M1")
        state = rep.state_after


def test_start_mails_label_their_examples():
    """The help in the start mails says its examples are only the notation, for a made-up
    position (the Auslage or board they assume is named)."""
    rondo = _flat((GALLERY / "rondo-de/demo-rondo/start-spieler-runde01.txt").read_text(encoding="utf-8"))
    assert "Beispiele, nur für die Schreibweise (kein Vorschlag, zu einer ausgedachten Auslage" in rondo
    mono = _flat((GALLERY / "monoscrabble-de/demo-mono/start-spieler-runde01.txt").read_text(encoding="utf-8"))
    assert "Beispiel, nur für die Schreibweise (kein Vorschlag, zu einem ausgedachten Brett" in mono


# -- 2. Crossword: one rule for a correction ----------------------------------------------

CROSSWORD_RULE = ("Eine spätere Mail vor dem ZAT ersetzt die Teile deines Zugs (Legung, Wunsch, Wortliste), "
                  "die sie enthält; die übrigen bleiben.")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_crossword_states_one_rule_for_a_correction_everywhere():
    folder = GALLERY / "crossword-de/demo-kreuz"
    mails = {f.name: _flat(f.read_text(encoding="utf-8")) for f in folder.glob("*.txt")}
    for name in ("start-spieler-runde01.txt", "ack-spieler-runde01.txt", "ack-spieler-runde07.txt",
                 "auswertung-spieler-runde01.txt"):
        assert CROSSWORD_RULE in mails[name], name
    for name, text in mails.items():
        assert "die letzte Mail vor dem ZAT gilt" not in text, name
        assert "ersetzt die frühere" not in text and "ersetzt diese Einsendung" not in text, name
        assert "ersetzt nur die Teile dieses Zugs" not in text, name
    from bot.i18n import texts
    assert texts("de").gettext(get_game("crossword").replace_rule) == CROSSWORD_RULE


def test_crossword_rule_is_what_the_merge_does():
    """The rule says what merge_move does: the parts a later mail has replace the earlier
    ones, the others stay."""
    game = get_game("crossword")
    merged = game.merge_move(["A1 B, A2 C\nWunsch: E"], ["Wunsch: X"])
    assert "A1 B" in merged[0] and "Wunsch: X" in merged[0] and "Wunsch: E" not in merged[0]


# -- 4. a move told one way ---------------------------------------------------------------

def test_rondo_and_monoscrabble_tell_a_move_one_way():
    for folder in (GALLERY / "rondo-de/demo-rondo", GALLERY / "monoscrabble-de/demo-mono"):
        for f in folder.glob("auswertung-*.txt"):
            text = f.read_text(encoding="utf-8")
            assert not re.search(r"\b([A-ZÄÖÜ]{2,}) = \1\b", text), f.name  # no "KLO = KLO"
            assert "a*" not in text and not re.search(r"\b[A-Z]\* ", text), f.name
    mono = (GALLERY / "monoscrabble-de/demo-mono/auswertung-spieler-runde02.txt").read_text(encoding="utf-8")
    assert "Aufs Brett: E9w HOFE (bildet auch MOKIERTE), 26 Punkte" in mono
    assert "Top: E9w HOFE" not in mono and "Das war auch der beste mögliche Zug (Top)." in mono
    assert "(Kleinbuchstabe = Blanko)" in mono  # the blank i of MOKiERT, with its key
    rondo = (GALLERY / "rondo-de/demo-rondo/auswertung-spieler-runde02.txt").read_text(encoding="utf-8")
    assert "Bestes mögliches Wort: B*ARk, 18 Punkte" in rondo
    assert "(Kleinbuchstabe = Joker)" in rondo
    r1 = (GALLERY / "rondo-de/demo-rondo/auswertung-spieler-runde01.txt").read_text(encoding="utf-8")
    assert "Bestes mögliches Wort: KLO, 18 Punkte" in r1
    assert "gelegt von Anna Albers und Bernd Becker" in r1


def test_final_auswertungen_name_the_winner():
    for path in ("rondo-de/demo-rondo/auswertung-spieler-runde02.txt",
                 "monoscrabble-de/demo-mono/auswertung-spieler-runde02.txt",
                 "crossword-de/demo-kreuz/auswertung-spieler-runde07.txt"):
        text = (GALLERY / path).read_text(encoding="utf-8")
        first = re.search(r"^ *1\. ([A-ZÄÖÜ]\w+ [A-ZÄÖÜ]\w+) ", text.partition("Endstand")[2], re.M)
        assert first and f"Gewonnen hat {first.group(1)}." in text, path  # the leader of the final standings

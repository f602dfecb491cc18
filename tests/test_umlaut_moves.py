"""Issue 33, item 4: letters as players type them.

A player writes ``ÖLE``; every game reads it in its own spelling (Rondo, Crossword and
Typ-Dom write Ö as OE, seed 000 II.1 a; Monoscrabble has Ö tiles of its own; Dutch RONDO
drops accents, seed 004), stores the move so and says in the acknowledgement how it read
it; a letter a game cannot take where it stands (after a Joker's ``*``, alone on a
Crossword field) gets an answer that names the letter and how to write it. All through
the embedded service (SQLite, Maildir): the mails are delivered and read by its poll.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.games import get_game
from bot.storage.models import SubmissionMove
from bot.submission import read_submission
from tests.test_trust_commands import _ask, _league


def _flat(text: str) -> str:
    return " ".join(text.split())


def _stored(lg) -> list[str]:
    with lg.db.session() as s:
        return [m.text for m in s.scalars(select(SubmissionMove).order_by(SubmissionMove.id))]


#: kind -> (the move as typed, as the game reads it, what the acknowledgement says)
READ = {
    "rondo": ("ÖLE", "OELE", "ÖLE gelesen als OELE"),
    "monoscrabble": ("H8w STRAßE", "H8w STRASSE", "H8w STRAßE gelesen als H8w STRASSE"),
    "typdom-kreuzwort": ("M13w ÖLE", "M13w OELE", "M13w ÖLE gelesen als M13w OELE"),
    "typdom-point": ("M13w grÜße", "M13w grUEsse", "M13w grÜße gelesen als M13w grUEsse"),
    "typdom-presto": ("HÖHE", "HOEHE", "HÖHE gelesen als HOEHE"),
    "typdom-wbr": ("M13 E ÖSE", "M13 E OESE", "M13 E ÖSE gelesen als M13 E OESE"),
    "rondonl-de": ("ÄTZEN", "AETZEN", "ÄTZEN gelesen als AETZEN"),
    "rondonl-nl": ("RUÏNE", "RUINE", "RUÏNE gelezen als RUINE"),
}


@pytest.mark.parametrize("kind", sorted(READ))
def test_umlaut_move_is_read_in_the_games_spelling(tmp_path, kind):
    """The move with an umlaut is stored in the game's spelling, judged (no "kein Zug
    gefunden"), and the acknowledgement shows the reading."""
    typed, read, said = READ[kind]
    lg = _league(tmp_path, kind)
    status, replies = _ask(lg, lg.players[0], "Züge", typed)
    assert status == "processed", status
    (to, text), = replies
    flat = _flat(text)
    assert said in flat, text
    assert "keinen Zug gefunden" not in flat and "geen zet gevonden" not in flat
    assert _stored(lg) == [read]
    lg.db.dispose()


def test_monoscrabble_keeps_its_own_umlaut_tiles(tmp_path):
    """Monoscrabble has Ä Ö Ü tiles: ``H8w ÖL`` is read as written, with no reading line."""
    lg = _league(tmp_path, "monoscrabble")
    status, ((_, text),) = _ask(lg, lg.players[0], "Züge", "H8w ÖL")
    assert status == "processed"
    assert "gelesen als" not in text and "Hauptzug: H8w ÖL" in _flat(text)
    assert _stored(lg) == ["H8w ÖL"]
    lg.db.dispose()


#: kind -> (a move with a letter the game cannot take there, the answer)
REFUSED = {
    "rondo": ("mo*ÖLE", "*Ö geht nicht: hinter * steht genau ein Buchstabe, und Ö wird in diesem Spiel "
                        "OE geschrieben (zwei Buchstaben)."),
    "crossword": ("Wunsch: Ö", "Ö geht hier nicht: ein Feld hält genau einen Buchstaben, und Ö wird in "
                               "diesem Spiel OE geschrieben (zwei Felder)."),
    "typdom-wbr": ("M13 Ö ÖSE", "Ö geht hier nicht: ein Feld hält genau einen Buchstaben, und Ö wird in "
                                "diesem Spiel OE geschrieben (zwei Felder)."),
    "typdom-kreuzwort": ("M13w CAFÉ", "Den Buchstaben É kennt dieses Spiel nicht: bitte E schreiben "
                                      "(ohne Akzent)."),
}


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_letter_a_game_cannot_take_gets_a_clear_answer(tmp_path, kind):
    """The line is judged as the player's move (not passed over as prose) and the answer
    names the letter and how to write it."""
    typed, answer = REFUSED[kind]
    lg = _league(tmp_path, kind)
    status, ((_, text),) = _ask(lg, lg.players[0], "Züge", typed)
    assert status == "processed"
    assert answer in _flat(text), text
    assert "keinen Zug gefunden" not in _flat(text)
    lg.db.dispose()


@pytest.mark.parametrize("game,line,read", [
    ("rondo", "mÖle", "mOEle"),            # lower case stays an old card: ö -> oe
    ("rondo", "Feld 2: STRAßE 12", "Feld 2: STRASSE 12"),
    ("rondo", "straßE", "strassE"),        # ß takes the case of the letter before it
    ("crossword", "HÖHE A1-A5", "HOEHE A1-A5"),  # a word of the word list
    ("rondonl", "ĳS", "ijS"),              # the ligature is the two letters I and J
    ("rondonl", "CAFÉ", "CAFE"),
])
def test_lines_are_spelled_with_case_kept(game, line, read):
    sec, = read_submission(line, get_game(game), ["P1"]).sections
    assert sec.moves == [read] and sec.readings == [(line, read)]


@pytest.mark.parametrize("line", ["Schönes Wochenende", "Bin nächste Woche im Urlaub", "Übrigens tolle Auswertung"])
def test_prose_with_umlauts_stays_prose(line):
    """A line of prose was never a move while the grammars refused umlauts; spelling them
    must not make it one (an Ersatzzug "SchOEnes Wochenende")."""
    sec, = read_submission("Partie P1:\nmondES\n" + line, get_game("rondo"), ["P1"]).sections
    assert sec.moves == ["mondES"]


def test_a_move_the_gm_sets_is_spelled_as_a_players(tmp_path):
    """``SETZE`` (the GM sets a player's move): ``ÖLE`` is stored and judged as ``OELE``."""
    from datetime import datetime, timezone

    from bot.service.conversations import gm
    from bot.storage.models import League
    lg = _league(tmp_path, "rondo")
    with lg.db.session() as s:
        rec = gm.cli_record(s, lg.cfg, s.scalar(select(League)), "setze", {}, datetime.now(timezone.utc))
        out = gm.set_move(s, lg.cfg, lg.name, "Spieler A", "P1", ["ÖLE"], mail_id=rec.id)
        assert "OELE" in out
    assert _stored(lg) == ["OELE"]
    lg.db.dispose()

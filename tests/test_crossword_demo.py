"""The demo's Crossword game: six simulated players of different strengths play seven
ZATs through the real service (Maildir, SQLite); the final Auswertung has every grid."""

from __future__ import annotations

import email
import email.policy

from bot.demo import run_demo


def test_demo_plays_crossword(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_demo(out=out, seed="3", leagues=["Demo-Kreuz"]) == 0
    files = sorted(out.glob("crossword-*.eml"))
    assert len(files) == 7 * 6
    text = capsys.readouterr().out
    assert "Demo: Demo-Kreuz (Crossword), 1 Partie(n), 6 Spieler" in text
    assert "Runde   7: P1: Anna " in text and "Endstand:" in text
    final = email.message_from_bytes(files[-1].read_bytes(), policy=email.policy.default)
    body = final.get_body(("plain",)).get_content()
    assert "Schlussauswertung" in final["Subject"] and "Alle sechs Spielfelder:" in body
    assert "Endstand" in body and "Bestmöglich (" in body
    assert "ungültig, überschneidet sich" in body  # Fritz lists a word twice
    assert final.get_body(("html",)) is not None

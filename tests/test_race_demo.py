"""The demo's Typ-Dom race variants through the real service (Maildir, SQLite): a Presto
league of two races that close by themselves, and a "Wer behält recht?" game of 40 turns."""

from __future__ import annotations

import email
import email.policy

from bot.demo import run_demo


def _body(path):
    return email.message_from_bytes(path.read_bytes(), policy=email.policy.default).get_body(("plain",)).get_content()


def test_demo_plays_presto_and_wbr(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_demo(out=out, seed="3", leagues=["Demo-Presto", "Demo-WBR"]) == 0
    text = capsys.readouterr().out
    presto_text, _, wbr_text = text.partition("Demo: Demo-WBR")
    assert "Demo: Demo-Presto (Typ-Dom Presto), 2 Partie(n), 4 Spieler" in presto_text
    # the races one after another, each closed by itself (by the second valid crossword)
    assert "Runde   1: P1: " in presto_text and "Runde   2: P2: " in presto_text
    assert presto_text.count("(vor dem ZAT beendet)") == 2
    presto = sorted(out.glob("presto-*.eml"))
    assert len(presto) == 2 * 4
    final = _body(presto[-1])
    assert "Schlussauswertung" in final and "Fertig (nach Ankunftszeit):" in final
    assert "Ein Kreuzwort mit allen Steinen:" in final
    assert " (Typ-Dom: Wer behält recht?), 1 Partie(n), 3 Spieler, 40 Runden" in wbr_text
    assert "Zug   1: W1: " in wbr_text and "(vor dem ZAT beendet)" in wbr_text  # a turn ends with its move
    wbr = sorted(out.glob("wbr-*.eml"))
    assert len(wbr) >= 3 * 10 and "Am Zug: " in _body(wbr[0])
    assert "Fertige Wörter: " in _body(wbr[-1])  # words were completed


def test_demo_writes_the_archive_of_the_leagues_it_played(tmp_path, capsys):
    """`spielleiter demo` ends with the archive (bot.service.presentation.archive) in <out>/archiv and
    prints the index.html to open; the index links every league played, each league page
    has its standings chart."""
    out = tmp_path / "out"
    assert run_demo(out=out, rounds={"Demo-Rondo": 2}, seed="3", leagues=["Demo-Rondo"]) == 0
    index = out / "archiv" / "index.html"
    assert f"Archiv aller Ligen (im Browser öffnen): {index.resolve()}" in capsys.readouterr().out
    html = index.read_text(encoding="utf-8")
    assert '<a href="demo-rondo/index.html">Demo-Rondo</a>' in html
    league = (out / "archiv" / "demo-rondo" / "index.html").read_text(encoding="utf-8")
    assert "<svg" in league and 'href="runde-02.html"' in league

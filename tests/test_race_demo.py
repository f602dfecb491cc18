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
    assert run_demo(out=out, rounds=1, seed="3", mono_rounds=0, crossword=False, typdom=False, rondonl_rounds=0) == 0
    text = capsys.readouterr().out
    assert "Demo: Demo-Presto (Typ-Dom Presto), 4 Spieler, 2 Partien nacheinander" in text
    assert text.count("zweites Kreuzwort schließt") == 2  # both races closed by the second crossword
    presto = sorted(out.glob("presto-*.eml"))
    assert len(presto) == 2 * 4
    final = _body(presto[-1])
    assert "Schlussauswertung" in final and "Fertig (nach Ankunftszeit):" in final
    assert "Ein Kreuzwort mit allen Steinen:" in final
    assert "Demo: Demo-WBR (Typ-Dom: Wer behält recht?), 3 Spieler, höchstens 40 Züge" in text
    wbr = sorted(out.glob("wbr-*.eml"))
    assert len(wbr) >= 3 * 10 and "Am Zug: " in _body(wbr[0])
    assert "vollendet" in text or "ist fertig" in text


def test_demo_writes_the_archive_of_the_leagues_it_played(tmp_path, capsys):
    """`spielleiter demo` ends with the archive (bot.service.presentation.archive) in <out>/archiv and
    prints the index.html to open; the index links every league played, each league page
    has its standings chart."""
    out = tmp_path / "out"
    assert run_demo(out=out, rounds=2, seed="3", mono_rounds=0, crossword=False, typdom=False, race=False,
                    rondonl_rounds=0) == 0
    index = out / "archiv" / "index.html"
    assert f"Archiv aller Ligen (im Browser öffnen): {index.resolve()}" in capsys.readouterr().out
    html = index.read_text(encoding="utf-8")
    assert '<a href="demo-rondo/index.html">Demo-Rondo</a>' in html
    league = (out / "archiv" / "demo-rondo" / "index.html").read_text(encoding="utf-8")
    assert "<svg" in league and 'href="runde-02.html"' in league

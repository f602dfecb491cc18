"""Mails after the end (issue 23, item 4): a registered player's move after their league
ended is answered "die Partie ist beendet" with the final standings, in the league's
language (Dutch for a RONDO league), not "diese Adresse ist bei keiner laufenden Liga
angemeldet"."""

from __future__ import annotations


from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.service.presentation.view import league_view
from tests.helpers import PLAYERS, header, league_toml, player_mail, text_of


def _answer(md, n, to):
    got = [text_of(m) for m in md.sent()[n:] if header(m, "To") == to]
    assert len(got) == 1
    return " ".join(got[0].split())


def test_move_after_the_end_gets_the_final_standings(tmp_path, env):
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "r.toml", name="Kurz", partien=("R1",), rounds=1)),
                      cfg)
    adjudicate_league(db, cfg, "Kurz", force=True)
    assert league_view(db, "Kurz")["status"] == "finished"
    deliver(db, md, cfg)
    n = len(md.sent())
    addr = PLAYERS[0][1]
    md.deliver_to_inbox(player_mail(addr, "Partie R1:\nM13w HAUS\n", subject="Kurz: Züge"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    txt = _answer(md, n, addr)
    assert "die Partie ist beendet: die Liga Kurz ist zu Ende" in txt
    assert "keiner laufenden Liga" not in txt
    assert all(name in txt for name, _ in PLAYERS)  # the final standings


def test_move_after_the_end_of_a_rondo_league_in_dutch(tmp_path, env):
    db, cfg, md = env
    path = league_toml(tmp_path / "nl.toml", name="R-NL", partien=("R1",), rounds=1,
                       extra='[options]\nlanguage = "nl"\n')
    path.write_text(path.read_text().replace('game = "rondo"', 'game = "rondonl"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    adjudicate_league(db, cfg, "R-NL", force=True)
    assert league_view(db, "R-NL")["status"] == "finished"
    deliver(db, md, cfg)
    n = len(md.sent())
    addr = PLAYERS[1][1]
    md.deliver_to_inbox(player_mail(addr, "KAT\n", subject="R-NL"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    txt = _answer(md, n, addr)
    assert "de partij is afgelopen: de competitie R-NL is voorbij" in txt
    assert all(name in txt for name, _ in PLAYERS)

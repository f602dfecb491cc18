"""Typ-Dom "Wer behält recht?" end to end through a real Dovecot and a real aiosmtpd: three
players, one tile per turn, each turn with its own ZAT (league option ``turn_hours``). A
mail from a player whose turn it is not is refused; each valid move ends its turn at once
and the turn's Auswertung goes to everyone (what was laid and announced, who is next and by
when); an Ersatzzug counts when the main move is broken; a player who lets the ZAT pass buys
a tile and is skipped; the author whose word came round unchanged lacks a tile, drops out and
pays everyone; a player lays the last tile and wins with the Kreuzwort-Spiel's scoring."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import pytest

from bot.cli import main
from bot.config import load_config
from bot.storage.db import Database
from bot.storage.models import Partie, Player
from tests.helpers import header, league_toml, player_mail, text_of
from tests.test_e2e import _config

pytestmark = pytest.mark.e2e

PLAYERS3 = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
            ("Clara Conrad", "clara@example.org")]


def _show(conf, capsys):
    capsys.readouterr()
    assert main(["show", "E2E-WBR", "--json", "--config", str(conf)]) == 0
    return json.loads(capsys.readouterr().out)


def _texts(smtpd, subject_part, since=0):
    return {m.rcpt_tos[0]: text_of(m.raw) for m in smtpd.messages[since:] if subject_part in header(m.raw, "Subject")}


def _flat(text):
    return " ".join(text.split())


def _poll(conf, smtpd):
    n = len(smtpd.messages)
    assert main(["poll", "--config", str(conf)]) == 0
    return n


def test_wbr_game_through_imap_and_smtp(tmp_path, dovecot, smtpd, capsys):
    user = dovecot.fresh_user()
    conf = _config(tmp_path, dovecot, smtpd, user)
    liga = league_toml(tmp_path / "wbr.toml", name="E2E-WBR", partien=("W1",), rounds=100, players=PLAYERS3,
                       extra='gm_email = "gm@example.org"\nturn_hours = 12')
    liga.write_text(liga.read_text().replace('game = "rondo"', 'game = "typdom-wbr"'))
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    starts = _texts(smtpd, "Spielbeginn")
    view = _show(conf, capsys)
    part = view["partien"][0]
    assert part["board"] == ["." * 25] * 25 and part["duty"] == "start" and part["pool"] == 80 - 3 * 13
    racks = {p["player"]: p["rack_text"] for p in part["players"]}
    for addr, txt in starts.items():
        assert racks[addr] in _flat(txt) and all(r not in _flat(txt) for x, r in racks.items() if x != addr)
    assert sum("Du beginnst: leg einen Stein auf M13" in _flat(t) for t in starts.values()) == 1

    # racks and seats of our own (a test may set the state): Anna, Bernd, Clara
    a, b, c = (e for _, e in PLAYERS3)
    db = Database(load_config(conf).database_url)
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.query(Player).all()}
        pt = s.query(Partie).one()
        st = dict(pt.state)
        st.update(racks={keys[a]: "EEHST", keys[b]: "OS", keys[c]: "R"}, pool="NRI",
                  seat_order=[keys[a], keys[b], keys[c]], active=[keys[a], keys[b], keys[c]], mover=keys[a])
        pt.state = st
    db.dispose()

    # turn 1: Bernd is not to move; Anna lays E on M13 and announces ESEL: the turn ends at once
    dovecot.append(player_mail(b, "N13 S\n"), user=user)
    dovecot.append(player_mail(a, "M13 E ESEL\n"), user=user)
    before = datetime.now(timezone.utc)
    n = _poll(conf, smtpd)
    acks = _texts(smtpd, "Re:", n)
    assert "du bist jetzt nicht am Zug; dein Zug wurde nicht gespeichert. Am Zug: Anna Albers" \
        in _flat(acks[b])
    assert "gültig: legt E auf M13, sagt ESEL an" in _flat(acks[a]) and "13  · E ·" in acks[a]
    reports = _texts(smtpd, "Auswertung Zug 1", n)
    assert sorted(reports) == sorted([a, b, c, "gm@example.org"])
    txt = _flat(reports[c])
    assert "Anna Albers: M13 E ESEL – legt E auf M13, sagt ESEL an" in txt
    assert "Wort im Bau: ESEL, angesagt von Anna Albers; es liegt E (M13)." in txt
    assert "Am Zug: Bernd Becker – baut weiter" in txt and "Am Zug in Partie W1: Bernd Becker." in txt
    assert "Deine Bank: schwarz: R" in txt and "schwarz: H S T" not in txt
    view = _show(conf, capsys)
    zat = datetime.fromisoformat(view["next_zat"])
    assert timedelta(hours=11) < zat - before < timedelta(hours=13)  # each turn its own ZAT: 12 hours
    assert view["partien"][0]["word"] == {"announced": "ESEL", "author": a, "fragment": "E", "span": "M13"}

    # turn 2: Bernd's main move needs an X he lacks; his Ersatzzug keeps ESEL
    dovecot.append(player_mail(b, "L13 X EXESEL\nErsatz: N13 S\n"), user=user)
    n = _poll(conf, smtpd)
    reports = _texts(smtpd, "Auswertung Zug 2", n)
    txt = _flat(reports[a])
    assert "Bernd Becker: N13 S – legt S auf N13, baut an ESEL weiter" in txt
    # the main move was not played: others learn that it failed, nothing of it or why (issue 31)
    assert "Hauptzug: ungültig" in txt and "EXESEL" not in txt and "L13 X" not in txt
    assert "nicht auf der Bank" not in txt and "nicht auf deiner Bank" not in txt
    assert "Hauptzug: L13 X EXESEL – ungültig: Nicht auf deiner Bank (" in _flat(reports[b])
    assert "Am Zug: Clara Conrad" in txt

    # turn 3: Clara lets the ZAT pass: she buys a tile and is skipped; Anna's ESEL came round,
    # Anna has no L and no Jolly: she drops out and pays each of the others her rest
    assert main(["adjudicate", "E2E-WBR", "--config", str(conf)]) == 0  # ZAT not yet passed: nothing
    assert _show(conf, capsys)["round"] == 3
    assert main(["adjudicate", "E2E-WBR", "--now", "--config", str(conf)]) == 0
    reports = _texts(smtpd, "Auswertung Zug 3")
    txt = _flat(reports[b])
    assert "Clara Conrad: kein Zug (NMR): kauft einen Stein und setzt aus" in txt
    assert ("Anna Albers müsste ESEL jetzt vollenden, hat aber die Steine nicht: scheidet aus und zahlt jedem "
            "Mitspieler 6 Punkte (übrig: EHST).") in txt
    assert "Kein Wort im Bau: das nächste beginnt quer neben dem aufgegebenen Wortteil (M13-N13)" in txt
    assert "Am Zug: Bernd Becker – beginnt ein neues Wort." in txt
    assert "Gekauft: N" in _flat(reports[c]) and "Gekauft" not in txt
    view = _show(conf, capsys)
    assert {r["player"]: r["points"] for r in view["standings"]} == {a: -12, b: 6, c: 6}
    assert view["partien"][0]["out"] == [a] and view["partien"][0]["duty"] == "start"

    # Anna, out, mails again: she is told she is out, since when and why, not "nicht am Zug"
    # (issue 32)
    dovecot.append(player_mail(a, "O13 O SO\n"), user=user)
    n = _poll(conf, smtpd)
    ack = _flat(_texts(smtpd, "Re:", n)[a])
    assert ("du bist seit Zug 3 aus dieser Partie ausgeschieden: dir fehlte ein Stein, um dein angesagtes Wort "
            "ESEL fertig zu legen, und du hast jedem Mitspieler 6 Punkte gezahlt.") in ack
    assert "nicht am Zug" not in ack
    # ... and only that: no "Hinweis", no second "nicht gespeichert", no ZAT to keep
    assert "Hinweis" not in ack and ack.count("nicht gespeichert") == 1 and "ZAT" not in ack
    assert _show(conf, capsys)["round"] == 4  # nothing stored, the turn goes on

    # turn 4: Bernd starts SO across the given-up fragment with his last tile and wins:
    # Clara pays him 1 each for R and N (seed 002: black 1, red 3, Jolly 10)
    dovecot.append(player_mail(b, "O13 O SO\nErsatz: N14 O SO\n"), user=user)
    n = _poll(conf, smtpd)
    final = _texts(smtpd, "Schlussauswertung", n)
    assert sorted(final) == sorted([a, b, c, "gm@example.org"])
    txt = _flat(final[c])
    assert "Bernd Becker: N14 O SO – legt O auf N14, sagt SO an; SO ist fertig" in txt
    assert "Wort im Bau" not in txt and "Fertige Wörter: SO" in txt
    assert "Hauptzug: ungültig" in txt and "O13 O" not in txt and "falscher Platz" not in txt
    assert "Hauptzug: O13 O SO – ungültig: " in _flat(final[b])
    assert "Schlusswertung (Bernd Becker hat alle Steine gelegt):" in txt
    assert "Clara Conrad übrig: N R zahlt 2 = -2" in txt
    assert "Gewonnen hat Bernd Becker mit 8 Punkten." in txt  # the final names the winner (issue 32)
    view = _show(conf, capsys)
    assert view["status"] == "finished"
    assert {r["player"]: r["points"] for r in view["standings"]} == {a: -12, b: 8, c: 4}
    assert view["partien"][0]["board"][13][13] == "O"
    # the archive: a move has no score of its own in this game (the points are the
    # payments), so a player's page shows the points column alone, not a column of zeros
    out = tmp_path / "archiv"
    assert main(["archive", "--out", str(out), "--config", str(conf)]) == 0
    page = next(out.glob("*/spieler-bernd-becker-*.html")).read_text(encoding="utf-8")
    heads = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', page)
    assert heads == ["Zug Nr.", "Zug", "Punkte", "Stand"], heads
    assert "Platz 1, Punkte: 8</p>" in page

"""Typ-Dom (Kreuzwort-Spiel) end to end through a real Dovecot and a real aiosmtpd: four
players, private racks in the start mails, acknowledgements checked against the table as
it stands, turns applied in seat order at the ZAT (an Ersatzzug counting because an earlier
seat blocked the main move, a Jolly taken, a second placement after a joining one, a
purchase, an NMR), the Auswertungen with each player's own rack only, and a player going
out in round 2 with the seed's end scoring."""

from __future__ import annotations

import json
import re

import pytest

from bot.cli import main
from bot.config import load_config
from bot.games import get_game
from bot.storage.db import Database
from bot.storage.models import Partie, Player
from tests.helpers import header, league_toml, player_mail, text_of
from tests.test_e2e import _config

pytestmark = pytest.mark.e2e

PLAYERS4 = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
            ("Clara Conrad", "clara@example.org"), ("Dieter Dahl", "dieter@example.org")]


def _board(*words):
    g = [list("." * 25) for _ in range(25)]
    for coord, d, w in words:
        col, row = ord(coord[0]) - 64, int(coord[1:])
        for i, ch in enumerate(w):
            r, c = (row, col + i) if d == "w" else (row + i, col)
            g[r - 1][c - 1] = ch
    return ["".join(r) for r in g]


def _show(conf, capsys):
    capsys.readouterr()
    assert main(["show", "E2E-Typ-Dom", "--json", "--config", str(conf)]) == 0
    return json.loads(capsys.readouterr().out)


def _mails(smtpd, subject_part):
    """Text parts by recipient, white space collapsed (the text part wraps at 72)."""
    return {m.rcpt_tos[0]: " ".join(text_of(m.raw).split()) for m in smtpd.messages
            if subject_part in header(m.raw, "Subject")}


def test_typdom_game_through_imap_and_smtp(tmp_path, dovecot, smtpd, capsys):
    user = dovecot.fresh_user()
    conf = _config(tmp_path, dovecot, smtpd, user)
    liga = league_toml(tmp_path / "typdom.toml", name="E2E-Typ-Dom", partien=("T1",), rounds=10, players=PLAYERS4,
                       extra='gm_email = "gm@example.org"\noptions = { variant = "kreuzwort" }')
    liga.write_text(liga.read_text().replace('game = "rondo"', 'game = "typdom"'))
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    starts = _mails(smtpd, "Spielbeginn")
    assert sorted(starts) == sorted(e for _, e in PLAYERS4)
    view = _show(conf, capsys)
    part = view["partien"][0]
    assert part["variant"] == "kreuzwort" and part["board"] == ["." * 25] * 25
    assert sorted(part["rack_sizes"].values()) == [13, 13, 13, 13] and part["pool"] == 80 - 4 * 13
    # each start mail names only the recipient's own rack
    racks = {p["player"]: p["rack_text"] for p in part["players"]}
    for addr, txt in starts.items():
        assert racks[addr] in txt
        assert all(r not in txt for a, r in racks.items() if a != addr and r != racks[addr])

    # a position of our own (a test may set the table): the NAHT table of seed 002, Abb. 5,
    # and SPI*L with a Jolly as E on F5; seats in league order
    cfg = load_config(conf)
    db = Database(cfg.database_url)
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.query(Player).all()}
        partie = s.query(Partie).one()
        st = dict(partie.state)
        st["board"] = _board(("M13", "w", "EXAMEN"), ("P14", "s", "OST"), ("P16", "w", "TAT"), ("C5", "w", "SPIeL"))
        st["racks"] = {keys["anna@example.org"]: "AEHSTT", keys["bernd@example.org"]: "AEHRZ",
                       keys["clara@example.org"]: "BCDFG", keys["dieter@example.org"]: "KLMNP"}
        st["seat_order"] = [keys[e] for _, e in PLAYERS4]
        st["pool"] = "QUIRXYOV"
        partie.state = st
    db.dispose()
    a, b, c, d = (e for _, e in PLAYERS4)

    # round 1: Anna joins EXAMEN and TAT with NAHT and lays TEXT as a second word; Bernd wants
    # the same square (his main move is fine on today's table, the acknowledgement warns),
    # his Ersatzzug takes the Jolly on F5; Clara sends nothing; Dieter buys
    dovecot.append(player_mail(a, "Partie T1:\nR13s nAHt; N11s TExT\n"), user=user)
    dovecot.append(player_mail(b, "R13s nAHt\nErsatz: JOLLY F5; F4s HeRZ\n"), user=user)
    dovecot.append(player_mail(d, "KAUFEN\n"), user=user)
    before = len(smtpd.messages)
    assert main(["poll", "--config", str(conf)]) == 0
    # the acknowledgement wraps long verdicts and notes: read them flattened
    acks = {m.rcpt_tos[0]: " ".join(text_of(m.raw).split()) for m in smtpd.messages[before:]}
    assert sorted(acks) == [a, b, d]
    assert "gültig: NAHT + TEXT (5 Steine)" in acks[a] and "vor dir" not in acks[a].lower()
    assert "gültig: NAHT (2 Steine)" in acks[b] and "Vor dir ist in dieser Runde noch ein Spieler am Zug" in acks[b]
    assert "gültig: Jolly von F5 getauscht, HERZ (3 Steine)" in acks[b]
    assert "gültig: kauft 1 Stein" in acks[d]

    assert main(["adjudicate", "E2E-Typ-Dom", "--now", "--config", str(conf)]) == 0
    reports = _mails(smtpd, "Auswertung Runde 1")
    assert sorted(reports) == sorted([a, b, c, d, "gm@example.org"])
    txt = reports[c]
    assert " 1. Anna Albers: R13s nAHt; N11s TExT = NAHT + TEXT (5 Steine)" in txt
    assert " 2. Bernd Becker: JOLLY F5; F4s HeRZ = HERZ (3 Steine, Jolly von F5 getauscht)" in txt
    assert all(len(ln) <= 72 for ln in text_of(next(m.raw for m in smtpd.messages if m.rcpt_tos == [c] and
               "Auswertung Runde 1" in header(m.raw, "Subject"))).splitlines() if not ln[:4].strip().isdigit()
               and not re.fullmatch(r"\s*([A-Y] )*[A-Y]", ln))
    # Bernd's main move was not played: Clara learns that his Ersatzzug counted, nothing of
    # the main move's text or why it failed (issue 31); Bernd reads the reason himself
    assert "Hauptzug nicht möglich, es zählt Ersatzzug 1." in txt
    assert "R13s nAHt legt keinen Stein" not in txt and "kein Stein gelegt" not in txt
    assert "ungültig: R13s nAHt legt keinen Stein" in reports[b]
    assert " 3. Clara Conrad: kein Zug (NMR)" in txt and " 4. Dieter Dahl: kauft" in txt
    # the private part: Clara's own rack with the tile she had to buy, nobody else's
    assert "Nur für dich:" in txt and "schwarz: B C D F G Q" in txt
    assert "schwarz: K L M N P" not in txt and "Bernd Becker (nur für" not in txt
    gm = reports["gm@example.org"]
    assert "Anna Albers (nur für Anna Albers)" in gm and "Dieter Dahl (nur für Dieter Dahl)" in gm
    view = _show(conf, capsys)
    part = view["partien"][0]
    assert part["rack_sizes"] == {a: 1, b: 2, c: 6, d: 6}
    assert part["board"][4][5] == "E" and part["board"][12][17] == "N"
    assert {p["player"]: p["rack"] for p in part["players"]}[b] == "?A"
    assert part["seat_order"] == [a, b, c, d]

    # round 2: Anna lays her last tile (EXAMEN -> EXAMENS) and the Partie ends at once
    dovecot.append(player_mail(a, "M13w examenS\n"), user=user)
    dovecot.append(player_mail(b, "KAUFEN\n"), user=user)
    assert main(["poll", "--config", str(conf)]) == 0
    assert main(["adjudicate", "E2E-Typ-Dom", "--now", "--config", str(conf)]) == 0
    final = _mails(smtpd, "Schlussauswertung")
    assert sorted(final) == sorted([a, b, c, d, "gm@example.org"])
    txt = final[b]
    assert "hat alle Steine gelegt – als Erster!" in txt
    assert " 2. Bernd Becker: nicht mehr am Zug (Partie beendet)" in txt
    # the pool gave Clara Q and Dieter U; Bernd pays 10 + 3 for ? and A, Clara 6 for B C D F G Q,
    # Dieter 5 + 3 for K L M N P and U: Anna gets 27 (seed 002: black 1, red 3, Jolly 10)
    view = _show(conf, capsys)
    pts = {r["player"]: r["points"] for r in view["standings"]}
    assert pts == {a: 27, b: -13, c: -6, d: -8}
    assert view["status"] == "finished" and view["partien"][0]["finished"]
    assert get_game("typdom").finished(view["partien"][0]) or view["partien"][0]["end"]["first_out"] == a

"""Typ-Dom Presto end to end through a real Dovecot and a real aiosmtpd: four players, two
Partien one after another. Each start mail carries only the recipient's set; a broken
crossword is answered at once with every problem named; the race of P1 closes by itself
after the poll that reads the second valid crossword, ranked by the Received time (the later
mail of the two arrived earlier); the Auswertung shows both crosswords with their times,
every set with the search's crossword, and P2's start with each player's new set; P2 ends
at its ZAT with one valid crossword."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from zoneinfo import ZoneInfo

import pytest

from bot.cli import main
from bot.config import load_config
from bot.storage.db import Database
from bot.storage.models import Partie, Player
from tests.helpers import header, league_toml, player_mail, text_of
from tests.test_e2e import _config

pytestmark = pytest.mark.e2e

PLAYERS4 = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
            ("Clara Conrad", "clara@example.org"), ("Dieter Dahl", "dieter@example.org")]


def _show(conf, capsys):
    capsys.readouterr()
    assert main(["show", "E2E-Presto", "--json", "--config", str(conf)]) == 0
    return json.loads(capsys.readouterr().out)


def _texts(smtpd, subject_part, since=0):
    return {m.rcpt_tos[0]: text_of(m.raw) for m in smtpd.messages[since:] if subject_part in header(m.raw, "Subject")}


def _arrived(at: datetime) -> dict:
    """A Received header as the bot's own mail server writes it (the arrival time)."""
    return {"Received": f"from pc.example.org by mail.example.org; {format_datetime(at)}"}


def _set_racks(conf, partie, racks):
    db = Database(load_config(conf).database_url)
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.query(Player).all()}
        pt = s.query(Partie).filter(Partie.name == partie).one()
        st = dict(pt.state)
        st["racks"] = {keys[e]: r for e, r in racks.items()}
        pt.state = st
    db.dispose()
    return keys


def test_presto_race_through_imap_and_smtp(tmp_path, dovecot, smtpd, capsys):
    user = dovecot.fresh_user()
    conf = _config(tmp_path, dovecot, smtpd, user)
    liga = league_toml(tmp_path / "presto.toml", name="E2E-Presto", partien=("P1", "P2"), rounds=5,
                       players=PLAYERS4, extra='gm_email = "gm@example.org"\nsequential = true')
    liga.write_text(liga.read_text().replace('game = "rondo"', 'game = "typdom-presto"'))
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    starts = {a: " ".join(t.split()) for a, t in _texts(smtpd, "Spielbeginn").items()}
    view = _show(conf, capsys)
    p1 = view["partien"][0]
    assert p1["rack_size"] == [12, 7] and p1["racks"] is None and not p1["finished"]
    sets = {p["player"]: p["rack_text"] for p in p1["players"]}
    for addr, txt in starts.items():
        assert f"Dein Satz (nur für dich): {sets[addr]}" in txt and "12 schwarze und 7 rote Steine" in txt
        assert all(s not in txt for a, s in sets.items() if a != addr)

    # small sets of our own for P1 (a test may set the state)
    a, b, c, d = (e for _, e in PLAYERS4)
    _set_racks(conf, "P1", {a: "AHSTUU", b: "EEENST", c: "EHORSTU", d: "ABCDE"})
    t0 = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(minutes=30)

    # Clara's first try is broken: answered at once, every problem named, the round stays open
    dovecot.append(player_mail(c, "Hallo,\n\nROSE\n.\nX\n\nGruß Clara", headers=_arrived(t0)), user=user)
    dovecot.append(player_mail(a, "HAUS\nU\nT\n", headers=_arrived(t0 + timedelta(seconds=65))), user=user)
    n = len(smtpd.messages)
    assert main(["poll", "--config", str(conf)]) == 0
    acks = _texts(smtpd, "Re:", n)
    assert sorted(acks) == [a, c]
    flat = " ".join(acks[c].split())
    assert "ungültig: Steine, die nicht in deinem Satz (EHORSTU) sind: X." in flat
    assert "Nicht verbaut: H, T, U (3 Steine)" in flat and "X ab A3 berührt den Rest nicht" in flat
    assert " 1  R O S E" in acks[c] and all(len(ln) <= 72 for ln in acks[c].splitlines())
    assert "gültig: Kreuzwort fertig, alle 6 Steine verbaut; 2 Wörter: HAUS, HUT." in " ".join(acks[a].split())
    assert _show(conf, capsys)["round"] == 1  # one valid crossword: the race goes on

    # Bernd's crossword is read later but reached the server earlier than Anna's: he wins
    dovecot.append(player_mail(b, "NEST\n...E\n...E\n", headers=_arrived(t0 + timedelta(seconds=42))), user=user)
    n = len(smtpd.messages)
    assert main(["poll", "--config", str(conf)]) == 0
    reports = _texts(smtpd, "Auswertung Runde 1", n)
    assert sorted(reports) == sorted([a, b, c, d, "gm@example.org"])
    txt = reports[d]
    when = lambda s: (t0 + timedelta(seconds=s)).astimezone(ZoneInfo("Europe/Berlin")).strftime("%H:%M:%S")  # noqa: E731
    flat = " ".join(txt.split())
    assert "Die Partie endete mit dem zweiten gültigen Kreuzwort (Anna Albers," in flat
    # arrival times to the second with the league's time zone (issue 32)
    assert "1. Bernd Becker, " in flat and re.search(f"{when(42)} Uhr MES?Z: alle Steine, 4 Punkte", flat)
    assert "2. Anna Albers, " in flat and re.search(f"{when(65)} Uhr MES?Z: alle Steine, 2 Punkte", flat)
    assert "Clara Conrad: ungültiges Kreuzwort" in flat
    assert "Dieter Dahl: kein Kreuzwort vor dem Ende des Rennens" in flat
    # Clara's crossword was not played: others learn that it failed, not what it was or why (issue 31)
    assert "fremde Steine" not in flat and "nicht in deinem Satz" not in flat and "X ab A3" not in flat
    mine = " ".join(reports[c].split())
    assert "Steine, die nicht in deinem Satz (EHORSTU) sind: X." in mine and "X ab A3 berührt den Rest nicht" in mine
    assert " 1  N E S T" in txt and " 3  · · · E" in txt and " 1  H A U S" in txt
    # every set with the search's answer; Dieter's ABCDE spells no word with the D... or has a crossword
    assert "Die Sätze und was die Suche des Bots dazu fand:" in txt
    assert "Anna Albers: rot: A U U; schwarz: H S T" in flat
    assert flat.count("Ein Kreuzwort mit allen Steinen:") >= 2
    # P2 starts: each player's new set in their own mail only
    assert "Partie P2 (Presto), Beginn" in txt and "Nur für dich:" in txt
    assert all(len(ln) <= 72 for ln in txt.splitlines() if not re.match(r"^\s*\d*\s+[A-Y·]( [A-Y·a-y])", ln))
    view = _show(conf, capsys)
    p1, p2 = view["partien"]
    assert p1["finished"] and p1["racks"][b] == "EEENST"
    assert p1["result"]["ranking"][0]["received"].startswith((t0 + timedelta(seconds=42)).isoformat()[:19])
    assert not p2["finished"] and p2["racks"] is None and view["round"] == 2
    sets2 = {p["player"]: p["rack_text"] for p in p2["players"]}
    assert sets2[d] in " ".join(reports[d].split()) and sets2[a] not in " ".join(reports[d].split())
    pts = {r["player"]: r["points"] for r in view["standings"]}
    assert pts == {a: 2, b: 4, c: 0, d: 0}

    # P2: only Clara finishes before the ZAT
    _set_racks(conf, "P2", {a: "AHSTUU", b: "EEENST", c: "AOPRT", d: "ABCDE"})
    dovecot.append(player_mail(c, "Partie P2:\nT..\nOPA\nR..\n", headers=_arrived(t0 + timedelta(minutes=5))),
                   user=user)
    assert main(["poll", "--config", str(conf)]) == 0
    assert _show(conf, capsys)["round"] == 2
    assert main(["adjudicate", "E2E-Presto", "--now", "--config", str(conf)]) == 0
    final = _texts(smtpd, "Schlussauswertung")
    assert sorted(final) == sorted([a, b, c, d, "gm@example.org"])
    flat = " ".join(final[a].split())
    assert "Die Partie endete am ZAT mit einem gültigen Kreuzwort." in flat and "1. Clara Conrad" in flat
    view = _show(conf, capsys)
    assert view["status"] == "finished"
    assert {r["player"]: r["points"] for r in view["standings"]} == {a: 2, b: 4, c: 4, d: 0}


"""Crossword end to end through a real Dovecot and a real aiosmtpd: six players, seven ZATs
(the wish, six placements), an invalid placement answered at once and resent, an NMR with
its wish drawn, private grids in every mail, and the final word lists with a wrong and an
overlapping claim, all six grids and each grid's best score."""

from __future__ import annotations

import re

import json

import pytest

from bot.cli import main
from bot.games import get_game
from bot.games.crossword.engine import best
from bot.games.crossword.grid import Field, Grid
from bot.lexicon import load
from tests.helpers import header, player_mail, text_of
from tests.test_e2e import _config

pytestmark = pytest.mark.e2e

SIX = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
       ("Clara Conrad", "clara@example.org"), ("Dieter Dahl", "dieter@example.org"),
       ("Edith Ernst", "edith@example.org"), ("Fritz Fuchs", "fritz@example.org")]
EMAILS = [e for _, e in SIX]


def _league(tmp_path, players=SIX, extra=""):
    lines = ['name = "E2E-Kreuz"', 'game = "crossword"', 'partien = ["P1"]',
             'first_zat = "2030-01-06T20:00:00+01:00"', "zat_interval_days = 7", "seed = 5",
             'gm_email = "gm@example.org"', extra, ""]
    for n, e in players:
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', ""]
    path = tmp_path / "kreuz.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _show(conf, capsys):
    capsys.readouterr()
    assert main(["show", "E2E-Kreuz", "--json", "--config", str(conf)]) == 0
    return json.loads(capsys.readouterr().out)


def _fill(grid: list[str], letters: str) -> str:
    """The round's letters on the first empty fields in reading order, as pairs."""
    empty = [f"{'ABCDEF'[r]}{c + 1}" for r in range(6) for c in range(6) if grid[r][c] == "."]
    return ", ".join(f"{f} {ch}" for f, ch in zip(empty, letters))


def _by_to(msgs):
    return {m.rcpt_tos[0]: text_of(m.raw) for m in msgs}


def test_league_file_needs_six_players_and_seven_rounds(tmp_path, capsys):
    conf = tmp_path / "none.toml"
    conf.write_text("", encoding="utf-8")
    assert main(["league", "create", str(_league(tmp_path, players=SIX[:5])), "--config", str(conf)]) != 0
    assert "Crossword braucht genau 6 Spieler, die Ligadatei hat 5" in capsys.readouterr().err
    assert main(["league", "create", str(_league(tmp_path, extra="rounds = 6")), "--config", str(conf)]) != 0
    assert "immer 7 Runden" in capsys.readouterr().err


def test_a_partie_cannot_be_named_like_a_field(tmp_path, capsys):
    """``A1: X`` is a placement, so a Partie named A1 (any case) is refused at creation."""
    conf = tmp_path / "none.toml"
    conf.write_text("", encoding="utf-8")
    path = _league(tmp_path)
    for name in ("c4", "F6"):
        path.write_text(path.read_text(encoding="utf-8").replace('partien = ["P1"]', f'partien = ["{name}"]'),
                        encoding="utf-8")
        assert main(["league", "create", str(path), "--config", str(conf)]) != 0
        assert f"'{name}' taugt nicht als Partie-Name: so heißt ein Feld des Gitters" in capsys.readouterr().err
        path = _league(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace('partien = ["P1"]', 'partien = ["G7"]'),
                    encoding="utf-8")
    assert main(["league", "create", str(path), "--config", str(conf)]) == 0


def test_crossword_game_through_imap_and_smtp(tmp_path, dovecot, smtpd, capsys):
    user = dovecot.fresh_user()
    conf = _config(tmp_path, dovecot, smtpd, user)
    assert main(["league", "create", str(_league(tmp_path)), "--config", str(conf)]) == 0
    starts = _by_to(m for m in smtpd.messages if "Spielbeginn" in header(m.raw, "Subject"))
    assert set(starts) == set(EMAILS)
    assert "wünsch dir einen Buchstaben" in starts["anna@example.org"] and "A  · · · · · ·" in starts["anna@example.org"]

    def send(email: str, body: str) -> None:
        dovecot.append(player_mail(email, f"Hallo Spielleiter,\n\n{body}\n\nViele Grüße\n"), user=user)

    def poll() -> dict[str, str]:
        before = len(smtpd.messages)
        assert main(["poll", "--config", str(conf)]) == 0
        return _by_to(smtpd.messages[before:])

    def zat(rnd: int) -> dict[str, str]:
        before = len(smtpd.messages)
        assert main(["adjudicate", "E2E-Kreuz", "--now", "--config", str(conf)]) == 0
        return _by_to(m for m in smtpd.messages[before:] if f"Runde {rnd}" in header(m.raw, "Subject"))

    # ZAT 1: the wishes make round 2's letters A E H O S U
    for email, letter in zip(EMAILS, "HAUSEO"):
        send(email, f"Wunsch: {letter}")
    acks = poll()
    assert "gültig: Wunsch: H." in acks["anna@example.org"]
    reports = zat(1)
    assert set(reports) == set(EMAILS) | {"gm@example.org"}
    assert "Buchstaben für Runde 2: A E H O S U" in reports["bernd@example.org"]
    view = _show(conf, capsys)
    part = view["partien"][0]
    assert view["round"] == 2 and part["letters"] == "AEHOSU" and "grids" not in part
    assert {p["player"]: p["grid"] for p in part["players"]}["anna@example.org"] == ["......"] * 6

    # ZAT 2: Anna builds HAUSE; Bernd's first placement is refused at once and resent
    send("anna@example.org", "A1 H, A2 A, A3 U, A4 S, A5 E\nWunsch: N")
    send("bernd@example.org", "A1 X, A2 A\nWunsch: T")
    acks = poll()
    assert "A  H A U S E ·" in acks["anna@example.org"]
    flat = " ".join(acks["bernd@example.org"].split())  # the acknowledgement wraps long verdicts
    assert "ungültig: X ist nicht unter den Buchstaben dieser Runde (A E H O S U)." in flat
    assert "Dein Spielfeld bleibt so:" in flat
    send("bernd@example.org", "HAUS..\n......\n......\n......\n......\nO.....\nWunsch: T")
    acks = poll()
    assert "ersetzt deine frühere Einsendung" in acks["bernd@example.org"] and "Buchstaben gelegt." in acks["bernd@example.org"]
    for email in EMAILS[2:]:
        send(email, f"{_fill(['......'] * 6, 'AEHOSU')}\nWunsch: E")
    reports = zat(2)
    anna, bernd = reports["anna@example.org"], reports["bernd@example.org"]
    assert "A  H A U S E ·" in anna and "A  H A U S · ·" not in anna          # only her own grid
    assert "A  H A U S · ·" in bernd and "A  H A U S E ·" not in bernd
    assert "Buchstaben für Runde 3: E E E E N T" in anna
    gm = reports["gm@example.org"]
    assert "A  H A U S E ·" in gm and "A  H A U S · ·" in gm and "F  O · · · · ·" in gm

    # ZATs 3-6: everybody fills up; Fritz sends nothing in round 3 (NMR, his wish drawn)
    for rnd in range(3, 7):
        part = _show(conf, capsys)["partien"][0]
        grids = {p["player"]: p["grid"] for p in part["players"]}
        for email in EMAILS:
            if email == "fritz@example.org" and rnd == 3:
                continue
            send(email, f"{_fill(grids[email], part['letters'])}\nWunsch: E")
        poll()
        reports = zat(rnd)
        if rnd == 3:
            assert re.search(r"^  Fritz Fuchs +kein Zug \(NMR\)", reports["anna@example.org"], re.M)
            assert "(einer davon ausgelost, weil ein Wunsch fehlte)" in reports["anna@example.org"]
            assert "ausgelost, weil dein Wunsch fehlte" in reports["fritz@example.org"]

    # ZAT 7: the last placement with the word lists
    view = _show(conf, capsys)
    part = view["partien"][0]
    assert view["round"] == 7 and len(part["letters"]) == 6
    grids = {p["player"]: p["grid"] for p in part["players"]}
    lex = load("crossword", rules=get_game("crossword").word_rules)  # the game's word list
    finals: dict[str, list[str]] = {}
    for email in EMAILS:
        placement = _fill(grids[email], part["letters"])
        after = Grid(grids[email]).place({Field.parse(f): ch for f, ch in (x.split() for x in placement.split(", "))})
        finals[email] = list(after.rows)
        claims = []
        if email == "anna@example.org":
            claims = ["HAUSE A1-A5", "HAUS A1-A4", "XYZ B1-B3"]          # valid, overlapping, wrong
        elif email == "clara@example.org":
            claims = [w.claim for w in best(after, lex).words]         # everything there is
        elif email != "edith@example.org":                           # Edith lists no words
            claims = [w.claim for w in best(after, lex).words][:2]
        send(email, "\n".join([placement, "Wörter:"] + claims))
    acks = poll()
    anna = " ".join(acks["anna@example.org"].split())  # the acknowledgement wraps long notes
    assert "Hinweis: XYZ B1-B3: Auf B1-B3 steht" in anna
    assert "Hinweis: HAUS A1-A4: HAUS teilt A1, A2, A3, A4 mit einem schon gewerteten Wort" in anna
    assert "Keine Wortliste" in acks["edith@example.org"]
    reports = zat(7)
    assert set(reports) == set(EMAILS) | {"gm@example.org"}
    final = reports["bernd@example.org"]
    assert "Schlussauswertung" in final and "Alle sechs Spielfelder:" in final
    # the grids under the players' full names (no two Annas mixed up), as many side by side as fit
    names = ["Anna Albers", "Bernd Becker", "Clara Conrad", "Dieter Dahl"]
    assert "     " + "".join(n.ljust(15) for n in names).rstrip() in final
    assert "  A  " + "".join(finals[e][0].replace(".", "·").ljust(15) for e in EMAILS[:4]).rstrip() in final
    assert max(len(line) for line in final.splitlines()) <= 78
    assert "Anna Albers: 7 Punkte, bestmöglich" in final
    assert "HAUSE A1-A5          7 Punkte" in final
    assert "HAUS A1-A4           ungültig, überschneidet sich" in final
    assert "XYZ B1-B3            ungültig, steht so nicht da" in final
    assert "Edith Ernst: 0 Punkte" in final and "Keine Wortliste: 0 Punkte." in final
    best_clara = best(Grid(finals["clara@example.org"]), lex).score
    assert f"Clara Conrad: {best_clara} Punkte, bestmöglich {best_clara}" in final
    assert "Endstand" in final
    html = next(m for m in smtpd.messages if "Schlussauswertung" in header(m.raw, "Subject"))
    assert b"<table" in html.raw

    view = _show(conf, capsys)
    assert view["status"] == "finished"
    points = {r["player"]: r["points"] for r in view["standings"]}
    assert points["anna@example.org"] == 7 and points["edith@example.org"] == 0
    assert points["clara@example.org"] == best_clara
    assert view["partien"][0]["grids"]  # after the end every grid is public

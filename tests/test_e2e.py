"""End to end through a real Dovecot IMAP server and a real aiosmtpd SMTP server:
player mails land in the bot's IMAP inbox, ``spielleiter poll`` stores, reads and
acknowledges them, ``spielleiter adjudicate --now`` runs the ZAT, and the
Auswertungen arrive at the SMTP server with the right scores."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from bot.cli import main
from bot.games.rondo.engine import Position
from bot.games.rondo.movegen import best_moves
from bot.lexicon import load
from tests.helpers import PLAYERS, header, league_toml, player_mail, server_config, spielleiter_exe, text_of

pytestmark = pytest.mark.e2e


def _config(tmp_path, dovecot, smtpd, user):
    return server_config(tmp_path / "spielleiter.toml", dovecot, smtpd, user)

def _show(conf, capsys):
    capsys.readouterr()
    assert main(["show", "E2E-Rondo", "--json", "--config", str(conf)]) == 0
    return json.loads(capsys.readouterr().out)


def test_league_round_through_imap_and_smtp(tmp_path, dovecot, smtpd, capsys):
    user = dovecot.fresh_user()
    conf = _config(tmp_path, dovecot, smtpd, user)
    liga = league_toml(tmp_path / "liga.toml", name="E2E-Rondo", partien=("R1", "R2"), rounds=2)
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    starts = [m for m in smtpd.messages if "Spielbeginn" in header(m.raw, "Subject")]
    assert sorted(m.rcpt_tos[0] for m in starts) == sorted(e for _, e in PLAYERS)

    view = _show(conf, capsys)
    lex = load("rondo")
    pos = {p["name"]: Position.from_codes(p["row"], p["vorgabe"], p["round"]) for p in view["partien"]}
    best = {n: best_moves(p, lex, 2) for n, p in pos.items()}
    anna = best["R1"][0]
    bernd = best["R1"][1]
    anna_r2 = best["R2"][0]
    # Anna answers in an HTML+text mail with a quoted old report; Bernd with an invalid main move
    dovecot.append(player_mail("Anna Albers <anna@example.org>",
                               f"Partie R1:\n{anna.notation(pos['R1'])} {anna.score} Punkte\n\n"
                               f"Partie R2:\n{anna_r2.notation(pos['R2'])}\n\n"
                               "Am 01.12.2026 um 20:00 schrieb Spielleiter <spielleiter@example.org>:\n"
                               "> Partie R1:\n> QQQ\n", subject="Re: E2E-Rondo: Spielbeginn"), user=user)
    dovecot.append(player_mail("bernd@example.org",
                               f"R1: XYZ\nErsatz: {bernd.notation(pos['R1'])}\n\n-- \nBernd\nTOR"), user=user)
    before = len(smtpd.messages)
    assert main(["poll", "--config", str(conf)]) == 0
    # the inbox is empty, both mails moved to the processed folder
    assert dovecot.fetch_all("INBOX", user=user) == []
    assert len(dovecot.fetch_all("Spielleiter.Verarbeitet", user=user)) == 2
    acks = smtpd.messages[before:]
    assert sorted(m.rcpt_tos[0] for m in acks) == ["anna@example.org", "bernd@example.org"]
    a_ack = text_of(next(m.raw for m in acks if m.rcpt_tos == ["anna@example.org"]))
    assert f"gültig: {anna.word}, {anna.score} Punkte" in a_ack
    assert "QQQ" not in a_ack  # the quoted old move is not read
    b_ack = text_of(next(m.raw for m in acks if m.rcpt_tos == ["bernd@example.org"]))
    assert "Hauptzug: XYZ" in b_ack and "Ersatzzug 1:" in b_ack and "TOR" not in b_ack.split("Ersatzzug 1:")[1].split("\n")[0]
    # a second poll finds nothing new
    assert main(["poll", "--config", str(conf)]) == 0
    assert len(smtpd.messages) == before + 2

    assert main(["adjudicate", "E2E-Rondo", "--now", "--config", str(conf)]) == 0
    reports = [m for m in smtpd.messages if "Auswertung Runde 1" in header(m.raw, "Subject")]
    assert sorted(m.rcpt_tos[0] for m in reports) == sorted(e for _, e in PLAYERS)
    by_to = {m.rcpt_tos[0]: text_of(m.raw) for m in reports}
    txt = by_to["anna@example.org"]
    assert re.search(rf"Anna Albers: {anna.score} Punkte", txt)  # her own move lines
    assert re.search(rf"Bernd Becker: {bernd.score} Punkte", by_to["bernd@example.org"])
    assert re.search(rf"^ *\d+\. Bernd Becker +{bernd.word} +{bernd.score} ", txt, re.M)  # the round's table
    assert "Clara Conrad: 0 Punkte (kein Zug eingegangen – NMR)" in by_to["clara@example.org"]
    assert f"Neues Wort: {anna.word}" in txt
    total = {r["player"]: r["points"] for r in _show(conf, capsys)["standings"]}
    assert total == {"anna@example.org": anna.score + anna_r2.score, "bernd@example.org": bernd.score,
                     "clara@example.org": 0}
    # stable Message-IDs: every sent mail has its own, and a report is marked auto-generated
    ids = [header(m.raw, "Message-ID") for m in smtpd.messages]
    assert len(ids) == len(set(ids))
    assert header(reports[0].raw, "Auto-Submitted") == "auto-generated"


def test_cli_binary_runs(tmp_path):
    """The installed console command exists and answers."""
    proc = subprocess.run([spielleiter_exe(), "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "adjudicate" in proc.stdout

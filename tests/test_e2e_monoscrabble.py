"""Monoscrabble end to end through a real Dovecot and a real aiosmtpd: moves by mail,
acknowledgements with each move's score, the ZAT, and Auswertungen naming the top."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.games import get_game
from bot.lexicon import load
from tests.helpers import PLAYERS, header, league_toml, player_mail, text_of
from tests.test_e2e import _config

try:
    get_game("monoscrabble")
    pytestmark = pytest.mark.e2e
except KeyError:
    pytestmark = pytest.mark.skip(reason="Monoscrabble is not registered yet")


def test_monoscrabble_round_through_imap_and_smtp(tmp_path, dovecot, smtpd, capsys):
    from bot.games.monoscrabble.movegen import generate
    game = get_game("monoscrabble")
    user = dovecot.fresh_user()
    conf = _config(tmp_path, dovecot, smtpd, user)
    liga = league_toml(tmp_path / "mono.toml", name="E2E-Mono", partien=("M1",), rounds=2)
    liga.write_text(liga.read_text().replace('game = "rondo"', 'game = "monoscrabble"'))
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    capsys.readouterr()
    assert main(["show", "E2E-Mono", "--json", "--config", str(conf)]) == 0
    part = json.loads(capsys.readouterr().out)["partien"][0]
    assert part["board"] == ["." * 15] * 15 and len(part["rack"]) == 7 and part["bag"] == 95
    moves = sorted(generate(part["board"], part["rack"], load("monoscrabble")), key=lambda m: -m.score)
    top, other = moves[0], next(m for m in moves if m.score < moves[0].score)
    dovecot.append(player_mail("anna@example.org", game.gen_notation(top, part["board"]) + "\n"), user=user)
    dovecot.append(player_mail("bernd@example.org", game.gen_notation(other, part["board"]) + "\n"), user=user)
    before = len(smtpd.messages)
    assert main(["poll", "--config", str(conf)]) == 0
    acks = smtpd.messages[before:]
    assert sorted(m.rcpt_tos[0] for m in acks) == ["anna@example.org", "bernd@example.org"]
    assert f"{top.score} Punkte" in text_of(next(m.raw for m in acks if m.rcpt_tos == ["anna@example.org"]))
    assert main(["adjudicate", "E2E-Mono", "--now", "--config", str(conf)]) == 0
    reports = [m for m in smtpd.messages if "Auswertung Runde 1" in header(m.raw, "Subject")]
    assert sorted(m.rcpt_tos[0] for m in reports) == sorted(e for _, e in PLAYERS)
    by_to = {m.rcpt_tos[0]: text_of(m.raw) for m in reports}
    txt = by_to["anna@example.org"]
    assert "Top: " in txt and f", {top.score} Punkte" in txt
    assert f"Abstand zum Top: {top.score - other.score}" in by_to["bernd@example.org"]
    capsys.readouterr()
    assert main(["show", "E2E-Mono", "--json", "--config", str(conf)]) == 0
    view = json.loads(capsys.readouterr().out)
    assert {r["player"]: r["points"] for r in view["standings"]} == {
        "anna@example.org": 0, "bernd@example.org": -1, "clara@example.org": -2}
    assert view["partien"][0]["round"] == 2 and len(view["partien"][0]["rack"]) == 8

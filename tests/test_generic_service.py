"""The service's generic mechanisms for games with private state, turns, early round end,
multi-line moves and Partien one after another, driven by a tiny test game
(``tests/toygame.py``) so no real game's rules are involved: per-player start mails and
Auswertungen with only the recipient's private part (the GM's copy with everyone's), "not
your turn" answers, a round that ends as soon as the turn's valid move is read, the next
turn's ZAT counted from then, player-count checks, ``show --json`` private parts for the GM."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from jinja2 import ChoiceLoader, FileSystemLoader
from sqlalchemy import select

from bot.games.registry import GAMES, register
from bot.render import environment
from bot.service.domain.league import LeagueError
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.service.presentation.view import league_view
from bot.storage.models import Partie, Round
from tests.helpers import header, player_mail, text_of
from tests.toygame import ToyLines, ToyRules

PLAYERS = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
           ("Clara Conrad", "clara@example.org")]


@pytest.fixture(autouse=True)
def toy_games():
    env = environment()
    old = env.loader
    env.loader = ChoiceLoader([FileSystemLoader(str(Path(__file__).parent / "templates")), old])
    env.cache.clear() if env.cache is not None else None
    register(ToyRules())
    register(ToyLines())
    yield
    env.loader = old
    GAMES.pop("toy", None)
    GAMES.pop("toylines", None)


def _league(tmp_path, game="toy", players=PLAYERS, extra=""):
    zat = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0)
    lines = ['name = "T"', f'game = "{game}"', f'first_zat = "{zat.isoformat()}"', "seed = 3",
             'gm_email = "gm@example.org"', extra, ""]
    for n, e in players:
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', ""]
    path = tmp_path / "t.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _create(db, cfg, path):
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)


def _hands(db):
    with db.session() as s:
        return dict(s.scalar(select(Partie)).state["hands"])


def _keys(db):
    with db.session() as s:
        return s.scalar(select(Partie)).state["seats"]


def test_player_count_is_checked(tmp_path, env):
    with pytest.raises(LeagueError, match="Zahlen braucht 2 bis 3 Spieler, die Ligadatei hat 4"):
        read_league_file(_league(tmp_path, players=PLAYERS + [("Dora", "dora@example.org")]))


def test_private_parts_turns_and_early_round_end(tmp_path, env):
    db, cfg, md = env
    _create(db, cfg, _league(tmp_path))
    deliver(db, md, cfg)
    hands, keys = _hands(db), _keys(db)
    anna, bernd, clara = keys
    starts = {header(m, "To"): text_of(m) for m in md.sent()}
    # each start mail shows the recipient's own hand only
    assert f"deine Hand {hands[anna]}" in starts["anna@example.org"]
    assert hands[bernd] not in starts["anna@example.org"].replace(hands[anna], "")
    # not Bernd's turn: answered, nothing stored; Anna's invalid move does not end the round
    n = len(md.sent())
    bad = str(next(d for d in "123456789" if d not in hands[anna]))
    md.deliver_to_inbox(player_mail("bernd@example.org", hands[bernd][0]))
    md.deliver_to_inbox(player_mail("anna@example.org", bad))
    poll_once(db, cfg)
    acks = {header(m, "To"): text_of(m) for m in md.sent()[n:]}
    assert "nicht am Zug" in acks["bernd@example.org"] and "Am Zug: Anna Albers" in acks["bernd@example.org"]
    # whose turn it is and until when; nothing was stored, and the answer does not say it
    # was; it says "nicht gespeichert" and the ZAT once each
    out = acks["bernd@example.org"]
    assert "Am Zug: Anna Albers, bis zum ZAT" in out
    assert "du bist jetzt nicht am Zug; dein Zug wurde nicht" in out
    assert out.count("gespeichert") == 1 and out.count("ZAT") == 1, out
    assert "ersetzt diese Einsendung" not in out
    assert "hast du nicht auf der Hand" in acks["anna@example.org"]
    with db.session() as s:
        assert s.scalar(select(Round).where(Round.number == 1)).status == "open"
    # Anna's valid move ends the round at once; the next turn's ZAT is 24 h later
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("anna@example.org", hands[anna][0]))
    before = datetime.now(timezone.utc)
    poll_once(db, cfg)
    after = datetime.now(timezone.utc)
    sent = md.sent()[n:]
    ack = next(text_of(m) for m in sent if header(m, "Subject").startswith("Re:"))
    assert f"Hand danach: {hands[anna][1:]}" in ack  # the move's picture in the acknowledgement
    reports = {header(m, "To"): text_of(m) for m in sent if "Auswertung Runde 1" in header(m, "Subject")}
    assert set(reports) == {"anna@example.org", "bernd@example.org", "clara@example.org", "gm@example.org"}
    assert f"Hand von Anna Albers: {hands[anna][1:]}" in reports["anna@example.org"]
    assert "Hand von" not in reports["bernd@example.org"].replace(f"Hand von Bernd Becker: {hands[bernd]}", "")
    assert f"Hand von Bernd Becker: {hands[bernd]}" in reports["bernd@example.org"]
    gm = reports["gm@example.org"]
    assert all(f"Hand von {n}" in gm for n, _ in PLAYERS)
    with db.session() as s:
        r2 = s.scalar(select(Round).where(Round.number == 2))
        assert before + timedelta(hours=24) <= r2.zat <= after + timedelta(hours=24)
    # Bernd's turn now; show --json gives the GM every hand
    view = league_view(db, "T")
    assert view["round"] == 2
    assert {p["name"]: p["hand"] for p in view["partien"][0]["players"]}["Clara Conrad"] == hands[clara]
    # no mail from Bernd: at the ZAT he scores nothing, and Clara's turn comes
    assert adjudicate_league(db, cfg, "T", now=r2.zat + timedelta(seconds=1))["round"] == 2
    with db.session() as s:
        assert s.scalar(select(Partie)).state["round"] == 3


def test_multiline_moves_and_partien_one_after_another(tmp_path, env):
    db, cfg, md = env
    _create(db, cfg, _league(tmp_path, game="toylines", players=PLAYERS[:1],
                             extra='partien = ["A", "B"]\nsequential = true\noptions = { turns = 1 }'))
    deliver(db, md, cfg)
    with db.session() as s:
        hand = s.scalars(select(Partie).order_by(Partie.id)).first().state["hands"]
        key, digits = next(iter(hand.items()))
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("anna@example.org", f"Partie A:\n{digits[0]}\n{digits[1]}\n\nPartie B:\n1\n"))
    poll_once(db, cfg)
    ack = text_of(md.sent()[n])
    assert "Partie B: diese Partie beginnt erst, wenn die Partie davor beendet ist." in " ".join(ack.split())
    res = adjudicate_league(db, cfg, "T", force=True)
    assert set(res["partien"]) == {"A"}
    with db.session() as s:
        a, b = s.scalars(select(Partie).order_by(Partie.id)).all()
        assert a.finished and not b.finished
        assert a.state["table"] == digits[:2]  # both lines were one move
    res = adjudicate_league(db, cfg, "T", force=True)
    assert set(res["partien"]) == {"B"}
    assert league_view(db, "T")["status"] == "finished"

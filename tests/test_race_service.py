"""The Typ-Dom race variants through the service on the embedded Maildir, on SQLite and
PostgreSQL: league-file checks, HILFE, Presto with the one-tile-left option (the race closes
by itself, 2 and 1 points, HTML with the crosswords), "Wer behält recht?" with each turn's
ZAT zat_interval_days after the previous turn ended, a purchase with the second turn it gives,
and show --json for the game master."""

from __future__ import annotations

import email
import email.policy
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.service.domain.league import LeagueError
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.operations.runner import poll_once
from bot.service.presentation.view import league_view
from bot.storage.models import OutboxMail, Partie, Player, Round
from tests.helpers import PLAYERS, league_toml, player_mail, text_of

PLAYERS4 = PLAYERS + [("Dora Dietz", "dora@example.org")]


def _league(tmp_path, game, players, extra="", name="Race"):
    path = league_toml(tmp_path / f"{game}.toml", name=name, partien=("P1",), rounds=50, players=players,
                       extra='gm_email = "gm@example.org"\n' + extra)
    path.write_text(path.read_text().replace('game = "rondo"', f'game = "{game}"'))
    return path


def _mails(db, kind, to=None):
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == kind).order_by(OutboxMail.id)).all()
        return [(r.to_addr, email.message_from_bytes(r.raw, policy=email.policy.default)) for r in rows
                if to is None or r.to_addr == to]


def _set(db, **changes):
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.scalars(select(Player))}
        pt = s.scalar(select(Partie))
        st = dict(pt.state)
        for k, v in changes.items():
            st[k] = v(keys) if callable(v) else v
        pt.state = st
    return keys


def test_league_file_checks(tmp_path):
    with pytest.raises(LeagueError, match="Typ-Dom Presto braucht 4 bis 6 Spieler, die Ligadatei hat 3"):
        read_league_file(_league(tmp_path, "typdom-presto", PLAYERS))
    with pytest.raises(LeagueError, match="2 bis 5"):
        read_league_file(_league(tmp_path, "typdom-wbr", PLAYERS[:1]))
    assert read_league_file(_league(tmp_path, "typdom-presto", PLAYERS4, "options = { one_left = true }"))
    assert read_league_file(_league(tmp_path, "typdom-wbr", PLAYERS))


def test_presto_one_tile_left_through_the_service(tmp_path, env):
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, "typdom-presto", PLAYERS4, "options = { one_left = true }")),
                      cfg)
    assert "einen Stein übrig hat (2 und 1 Punkte statt 4 und 2)" in " ".join(
        text_of(_mails(db, "start", "anna@example.org")[0][1].as_bytes()).split())
    keys = _set(db, racks=lambda k: {k["anna@example.org"]: "AEHSTUU", k["bernd@example.org"]: "AHSTUU",
                                     k["clara@example.org"]: "AHOSTUU", k["dora@example.org"]: "AHSTUU"})
    md.deliver_to_inbox(player_mail("anna@example.org", "HILFE"))
    md.deliver_to_inbox(player_mail("anna@example.org", "HAUS\nU\nT"))
    poll_once(db, cfg)
    hilfe = text_of(_mails(db, "command", "anna@example.org")[0][1].as_bytes())
    assert "\n\nSo schickst du dein Kreuzwort (Typ-Dom Presto)\n" in hilfe
    ack = " ".join(text_of(_mails(db, "ack", "anna@example.org")[-1][1].as_bytes()).split())
    assert "gültig: Kreuzwort fertig mit einem Stein Rest (E)" in ack
    with db.session() as s:
        assert s.scalar(select(Round).where(Round.status == "open")).number == 1
    md.deliver_to_inbox(player_mail("clara@example.org", "HAUS\nU\nT"))
    # Bernd's valid crossword arrives after Clara's, in the same poll: the race is over (issue 23)
    md.deliver_to_inbox(player_mail("bernd@example.org", "HAUS\nU\nT"))
    poll_once(db, cfg)  # the second valid crossword: the Partie closes without a ZAT
    deliver(db, md, cfg)
    late = " ".join(text_of(_mails(db, "notice", "bernd@example.org")[-1][1].as_bytes()).split())
    assert "das Rennen ist vorbei: Anna Albers und Clara Conrad haben vor deiner Mail" in late
    assert "Ankunftszeit" not in late and not _mails(db, "ack", "bernd@example.org")
    reports = dict(_mails(db, "auswertung"))
    assert sorted(reports) == sorted([e for _, e in PLAYERS4] + ["gm@example.org"])
    view = league_view(db, "Race")
    assert view["status"] == "finished"
    assert {r["player"]: r["points"] for r in view["standings"]} == {
        "anna@example.org": 2, "clara@example.org": 1, "bernd@example.org": 0, "dora@example.org": 0}
    res = view["partien"][0]["result"]
    assert [r["finish"] for r in res["ranking"]] == ["einer", "einer"]
    assert res["proofs"]["bernd@example.org"]["status"] == "found"
    html = reports["bernd@example.org"].get_body(("html",)).get_content()
    assert "Anna Albers</strong>, " in html and "ein Stein Rest, 2 Punkte" in html and html.count("#c62828") > 10


def test_wbr_turns_zats_and_a_purchase(tmp_path, env):
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, "typdom-wbr", PLAYERS, name="Wbr")), cfg)
    keys = _set(db, racks=lambda k: {k["anna@example.org"]: "EEHST", k["bernd@example.org"]: "OS",
                                     k["clara@example.org"]: "R"}, pool="NRI",
                seat_order=lambda k: [k[e] for _, e in PLAYERS], active=lambda k: [k[e] for _, e in PLAYERS],
                mover=lambda k: k["anna@example.org"])
    before = datetime.now(timezone.utc)
    md.deliver_to_inbox(player_mail("anna@example.org", "M13 E ESEL"))
    poll_once(db, cfg)
    view = league_view(db, "Wbr")
    zat = datetime.fromisoformat(view["next_zat"])
    assert timedelta(days=6, hours=23) < zat - before < timedelta(days=7, hours=1)  # zat_interval_days = 7
    part = view["partien"][0]
    assert part["mover"] == "bernd@example.org" and part["duty"] == "continue" and "racks" not in part
    assert {p["player"]: p["rack"] for p in part["players"]}["anna@example.org"] == "EHST"
    md.deliver_to_inbox(player_mail("bernd@example.org", "KAUFEN"))
    poll_once(db, cfg)
    part = league_view(db, "Wbr")["partien"][0]
    assert part["mover"] == "bernd@example.org" and part["duty"] == "after_buy"
    deliver(db, md, cfg)
    mine = text_of(_mails(db, "auswertung", "bernd@example.org")[-1][1].as_bytes())
    assert "Gekauft: N" in mine and "KAUFEN – kauft einen Stein und ist gleich noch einmal dran" in " ".join(
        mine.split())
    assert "Gekauft" not in text_of(_mails(db, "auswertung", "clara@example.org")[-1][1].as_bytes())
    md.deliver_to_inbox(player_mail("bernd@example.org", "PASSE"))
    poll_once(db, cfg)
    part = league_view(db, "Wbr")["partien"][0]
    assert part["mover"] == "clara@example.org" and part["round"] == 4 and part["last_turn"]["kind"] == "passe"


def test_player_help_is_quoted_in_the_docs_and_start_mails_stay_within_72_columns(tmp_path, env):
    from bot import ROOT
    from bot.render import render
    for game in ("typdom-presto", "typdom-wbr"):
        page = (ROOT / "docs" / "player-help" / f"{game}.md").read_text(encoding="utf-8")
        for lang in ("de", "nl"):  # through gettext, as the other games' help (issue 32)
            hilfe = render(f"{game}/hilfe.txt", lang).rstrip("\n")
            assert max(len(ln) for ln in hilfe.splitlines()) <= 72, (game, lang)
            if lang == "de":
                assert f"```text\n{hilfe}\n```" in page
        assert render(f"{game}/hilfe.txt", "nl") != render(f"{game}/hilfe.txt", "de")
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, "typdom-presto", PLAYERS4)), cfg)
        create_league(s, read_league_file(_league(tmp_path, "typdom-wbr", PLAYERS, name="Wbr")), cfg)
    starts = _mails(db, "start")
    assert len(starts) == 4 + 3
    for _, msg in starts:
        assert max(len(ln) for ln in text_of(msg.as_bytes()).splitlines()) <= 72

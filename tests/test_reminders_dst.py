"""Reminders before the ZAT, holidays, and ZATs across daylight-saving changes."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.render import format_zat
from bot.service.domain.league import zat_of
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.reminders import send_reminders
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import League, Player, Round
from tests.helpers import header, league_toml, player_mail, text_of

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture
def league(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = "spielleiter@example.org"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    first = datetime(2027, 10, 24, 20, 0, tzinfo=BERLIN)  # CEST, UTC+02:00 (a future season)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "l.toml", first_zat=first, rounds=4)), cfg)
    yield db, cfg, md
    db.dispose()


def test_zat_schedule_keeps_local_time_across_dst(league):
    db, cfg, md = league
    with db.session() as s:
        lg = s.scalar(select(League))
        zats = [zat_of(lg, n) for n in (1, 2, 3)]
    # 24.10. and 31.10. 20:00 (clocks go back on 31.10.2027 at 03:00), 07.11. 20:00
    assert zats[0] == datetime(2027, 10, 24, 18, 0, tzinfo=timezone.utc)  # CEST
    assert zats[1] == datetime(2027, 10, 31, 19, 0, tzinfo=timezone.utc)  # CET from that night
    assert zats[2] == datetime(2027, 11, 7, 19, 0, tzinfo=timezone.utc)
    assert format_zat(zats[0], "Europe/Berlin") == "Sonntag, 24.10.2027, 20:00 Uhr (UTC+02:00)"
    assert format_zat(zats[1], "Europe/Berlin") == "Sonntag, 31.10.2027, 20:00 Uhr (UTC+01:00)"


def test_spring_forward(tmp_path):
    from types import SimpleNamespace
    lg = SimpleNamespace(timezone="Europe/Berlin", zat_interval_days=7,
                         first_zat=datetime(2027, 3, 21, 20, 0, tzinfo=BERLIN))
    z = zat_of(lg, 2)  # clocks go forward on 28.03.2027
    assert z == datetime(2027, 3, 28, 18, 0, tzinfo=timezone.utc)
    assert format_zat(z, "Europe/Berlin").endswith("20:00 Uhr (UTC+02:00)")


def test_adjudication_across_dst_names_the_next_zat_in_local_time(league):
    db, cfg, md = league
    adjudicate_league(db, cfg, "Test-Rondo", now=datetime(2027, 10, 24, 18, 0, 1, tzinfo=timezone.utc))
    with db.session() as s:
        r2 = s.scalar(select(Round).where(Round.number == 2))
        assert r2.zat == datetime(2027, 10, 31, 19, 0, tzinfo=timezone.utc)
    from bot.service.stages.outbox import deliver
    deliver(db, md, cfg)
    report = text_of(next(r for r in md.sent() if "Auswertung Runde 1" in header(r, "Subject")))
    assert "Nächster ZAT: Sonntag, 31.10.2027, 20:00 Uhr (UTC+01:00)" in report


def test_reminders_once_to_players_without_moves_and_not_on_holiday(league):
    db, cfg, md = league
    zat = datetime(2027, 10, 24, 18, 0, tzinfo=timezone.utc)
    # Anna sends her moves for R1 only; Clara is on holiday over the ZAT
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    md.deliver_to_inbox(player_mail("clara@example.org", "", subject="URLAUB 23.10.2027-25.10.2027"))
    poll_once(db, cfg)
    with db.session() as s:
        clara = s.scalar(select(Player).where(Player.name == "Clara Conrad"))
        assert (clara.away_from, clara.away_to) == (date(2027, 10, 23), date(2027, 10, 25))
    assert send_reminders(db, cfg, zat - timedelta(hours=30)) == 0  # too early
    assert send_reminders(db, cfg, zat - timedelta(hours=20)) == 2  # Anna (R2 missing), Bernd
    assert send_reminders(db, cfg, zat - timedelta(hours=10)) == 0  # once per round
    from bot.service.stages.outbox import deliver
    deliver(db, md, cfg)
    rem = {header(r, "To"): text_of(r) for r in md.sent() if "Erinnerung" in header(r, "Subject")}
    assert set(rem) == {"anna@example.org", "bernd@example.org"}
    assert "Partie R2" in rem["anna@example.org"] and "R1" not in rem["anna@example.org"].split("ZAT")[0]
    assert "Partien R1, R2" in rem["bernd@example.org"]
    assert "24.10.2027, 20:00 Uhr (UTC+02:00)" in rem["bernd@example.org"]


def test_player_commands_by_mail(league):
    db, cfg, md = league
    from bot.service.conversations.identity import hash_code
    with db.session() as s:  # with his personal code an ADRESSE takes effect at once (issue 31)
        s.scalar(select(Player).where(Player.name == "Bernd Becker")).code_hash = hash_code("Bernd-1")
    md.deliver_to_inbox(player_mail("bernd@example.org", "Code: Bernd-1\n", subject="ADRESSE bernd.neu@example.net"))
    md.deliver_to_inbox(player_mail("anna@example.org", "STAND"))
    md.deliver_to_inbox(player_mail("clara@example.org", "", subject="URLAUB 31.02.2026-01.03.2026"))
    poll_once(db, cfg)
    with db.session() as s:
        bernd = s.scalar(select(Player).where(Player.name == "Bernd Becker"))
        assert [a.email for a in bernd.addresses] == ["bernd.neu@example.net", "bernd@example.org"]
    sent = md.sent()
    to = [header(r, "To") for r in sent]
    assert "bernd.neu@example.net" in to and "bernd@example.org" in to
    stand = text_of(next(r for r in sent if header(r, "To") == "anna@example.org" and "Re:" in header(r, "Subject")))
    assert "Wertung Test-Rondo" in stand and "Nächster ZAT" in stand
    urlaub = text_of(next(r for r in sent if header(r, "To") == "clara@example.org" and "Re:" in header(r, "Subject")))
    assert "Datum verstehe ich nicht" in urlaub
    # a move from the old address still counts; AUSWERTUNG n resends a report as a copy
    adjudicate_league(db, cfg, "Test-Rondo", force=True)
    from bot.service.stages.outbox import deliver
    deliver(db, md, cfg)
    md.deliver_to_inbox(player_mail("bernd@example.org", "AUSWERTUNG 1"))
    poll_once(db, cfg)
    copy = [r for r in md.sent() if header(r, "Subject").startswith("Kopie:")]
    assert len(copy) == 1 and header(copy[0], "To") == "bernd@example.org"
    orig = next(r for r in md.sent() if header(r, "To") == "bernd.neu@example.net"
                and "Auswertung Runde 1" in header(r, "Subject"))
    assert text_of(copy[0]) == text_of(orig) and header(copy[0], "Message-ID") != header(orig, "Message-ID")


def test_codes_required(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = "spielleiter@example.org"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    path = league_toml(tmp_path / "c.toml", extra="require_code = true")
    text = path.read_text().replace('email = "anna@example.org"', 'email = "anna@example.org"\ncode = "lindwurm-7"')
    text = text.replace('email = "bernd@example.org"', 'email = "bernd@example.org"\ncode = "b"')
    text = text.replace('email = "clara@example.org"', 'email = "clara@example.org"\ncode = "c"')
    path.write_text(text)
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
        assert "lindwurm" not in (s.scalar(select(Player)).code_hash or "")
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR\nCode: falsch-1"))
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    md.deliver_to_inbox(player_mail("anna@example.org", "Code: lindwurm-7\nPartie R1:\nTOR"))
    poll_once(db, cfg)
    from bot.storage.models import InboundMail, OutboxMail, Submission
    with db.session() as s:
        mails = s.scalars(select(InboundMail).order_by(InboundMail.id)).all()
        assert [m.status for m in mails] == ["rejected", "rejected", "processed"]
        assert mails[0].flagged and mails[1].flagged and not mails[2].flagged
        assert [[m.text for m in x.moves] for x in s.scalars(select(Submission))] == [["TOR"]]
    for raw in md.sent():
        body = raw.decode("utf-8", "replace")
        assert "lindwurm" not in body and "falsch-1" not in body
    # the first mail without the right code is answered at once, the second in one summary an hour later
    assert sum("nicht gewertet" in text_of(r) for r in md.sent() if header(r, "To") == "anna@example.org") == 1
    with db.session() as s:
        later = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auth", OutboxMail.status == "pending")).one()
        assert later.to_addr == "anna@example.org" and "ohne Code" in text_of(later.raw)


@pytest.mark.parametrize("lang, opening, turn", [
    ("de", ("Erinnerung an den ZAT der Eröffnung", "für die Eröffnung von", "Wort aus drei Karten"),
     ("Erinnerung an den ZAT von Zug 1", "für Zug 1 von")),
    ("nl", ("herinnering aan de deadline van de opening", "voor de opening van", "woord van drie kaarten"),
     ("herinnering aan de deadline van beurt 1", "voor beurt 1 van"))])
def test_rondo_reminds_of_the_opening_and_then_the_player_on_turn(tmp_path, lang, opening, turn):
    """RONDO's first round is the opening, no turn: its reminder names the opening (never
    "Zug 0"), and asks everyone for their word; then each turn's reminder goes to the
    player on turn alone and names the turn (issue 32)."""
    cfg = embedded(tmp_path / "var")
    cfg.sender = "spielleiter@example.org"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    first = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    spec = {"name": "R-Erinnerung", "game": "rondonl", "partien": ["T1"], "language": lang, "seed": "1",
            "first_zat": first.isoformat(), "zat_interval_days": 7, "turn_hours": 48, "require_code": False,
            "players": [{"name": n, "email": e} for n, e in
                        (("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
                         ("Clara Conrad", "clara@example.org"))]}
    if lang == "de":
        spec["options"] = {"dictionary": "de"}
    with db.session() as s:
        create_league(s, spec, cfg)
    from bot.service.stages.outbox import deliver
    deliver(db, md, cfg)  # the start mails

    def reminders() -> list[bytes]:
        with db.session() as s:
            zat = s.scalar(select(Round.zat).where(Round.status == "open"))
        before = set(md.outbox.keys())
        assert send_reminders(db, cfg, now=zat - timedelta(hours=1)) >= 1
        deliver(db, md, cfg)
        return [md.outbox.get_bytes(k) for k in set(md.outbox.keys()) - before]

    first_ones = reminders()
    assert len(first_ones) == 3
    for raw in first_ones:
        text = " ".join(text_of(raw).split())
        assert opening[0] in header(raw, "Subject") and all(x in text for x in opening[1:]), text
        assert "Zug 0" not in text + header(raw, "Subject") and "beurt 0" not in text + header(raw, "Subject")
    adjudicate_league(db, cfg, "R-Erinnerung", force=True)
    deliver(db, md, cfg)  # the opening's Auswertung
    on_turn = reminders()
    assert len(on_turn) == 1
    assert turn[0] in header(on_turn[0], "Subject") and turn[1] in " ".join(text_of(on_turn[0]).split())
    db.dispose()

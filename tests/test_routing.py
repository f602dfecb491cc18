"""Issue 33, item 1: the league of a mail is found the way a game master would.

One player in three running leagues: two Rondo leagues whose Partie names overlap (R1 in
both; R2 only in Rondo-Herbst, R3 only in Rondo-Winter) and a Typ-Dom Kreuzwort-Spiel
(K1). Through the embedded service (SQLite, Maildir): replies to each league's start mail
and Auswertung go to that league; fresh mails are routed by a league name or a
distinctive part of it in the subject, or by Partie names of one league only; STAND and
HILFE without a league answer for each league; a mail that says nothing or contradicts
itself is asked once, with the list of the leagues; a forged In-Reply-To pointing into a
league the sender does not play in routes nowhere.
"""

from __future__ import annotations

import email
import email.policy
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league
from bot.service.operations.runner import poll_inbox
from bot.service.stages.rounds import adjudicate_league
from bot.storage.db import Database
from bot.storage.models import InboundMail, League, OutboxMail
from tests.helpers import player_mail

ME = "anna@club.invalid"
LEAGUES = {  # name -> (game, options, Partien)
    "Rondo-Herbst": ("rondo", {}, ["R1", "R2"]),
    "Rondo-Winter": ("rondo", {}, ["R1", "R3"]),
    "Typ-Dom-Winter": ("typdom", {"variant": "kreuzwort"}, ["K1"]),
}
ASKED = "Deine Ligen:"


@pytest.fixture
def club(tmp_path, db_url):
    """Three leagues with Anna in each and a fourth without her, on SQLite and on
    PostgreSQL (``db_url``): (database, config, Maildir)."""
    cfg = embedded(tmp_path / "club")
    cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@club.invalid>"
    cfg.rate_limit_per_hour = 0
    cfg.read_workers = 1
    db = Database(cfg.database_url)
    db.migrate()
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0).isoformat()
    with db.session() as s:
        for i, (name, (game, options, partien)) in enumerate(LEAGUES.items()):
            others = [{"name": f"Spieler {name[:1]}{i}{k}", "email": f"p{i}{k}@club.invalid"} for k in range(2)]
            create_league(s, {"name": name, "game": game, "partien": partien, "seed": "3", "first_zat": first,
                              "zat_interval_days": 7, "gm_email": "gm@club.invalid", "review": False,
                              "require_code": False, "rounds": 3, "options": options,
                              "players": [{"name": "Anna", "email": ME}, *others]}, cfg)
    # a fourth league Anna does not play in
    with db.session() as s:
        create_league(s, {"name": "Fremdliga", "game": "rondo", "partien": ["F1"], "seed": "3", "first_zat": first,
                          "zat_interval_days": 7, "gm_email": "gm@club.invalid", "review": False,
                          "require_code": False, "rounds": 3, "options": {},
                          "players": [{"name": f"X{k}", "email": f"x{k}@club.invalid"} for k in range(3)]}, cfg)
    return db, cfg, MaildirTransport(cfg.maildir)


def _send(club, subject: str, body: str = "Gruß", sender: str = ME, reply_to: str | None = None):
    """Deliver one mail, read it; returns (the stored mail's league name or None, its
    status, [(subject, text) of the answers to it])."""
    db, cfg, md = club
    headers = {"In-Reply-To": reply_to, "References": reply_to} if reply_to else {}
    raw = player_mail(sender, body, subject=subject, headers=headers)
    mid = str(email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"])
    with db.session() as s:
        last = s.scalar(select(OutboxMail.id).order_by(OutboxMail.id.desc()).limit(1)) or 0
    md.deliver_to_inbox(raw)
    poll_inbox(db, cfg)
    with db.session() as s:
        m = s.scalar(select(InboundMail).where(InboundMail.message_id == mid))
        league = s.get(League, m.league_id).name if m.league_id else None
        answers = []
        for row in s.scalars(select(OutboxMail).where(OutboxMail.id > last).order_by(OutboxMail.id)):
            msg = email.message_from_bytes(row.raw, policy=email.policy.default)
            if str(msg["In-Reply-To"] or "") == mid:
                answers.append((row.subject, msg.get_body(("plain",)).get_content()))
        return league, m.status, answers


def _mail_of(club, league: str, kind: str, to: str = ME) -> str:
    db = club[0]
    with db.session() as s:
        lid = s.scalar(select(League.id).where(League.name == league))
        return s.scalar(select(OutboxMail.message_id).where(OutboxMail.league_id == lid, OutboxMail.kind == kind,
                                                           OutboxMail.to_addr == to))


def _asked(answers) -> str:
    assert len(answers) == 1, answers  # asked once
    text = " ".join(answers[0][1].split())
    assert ASKED in text and all(f"- {name}" in text for name in LEAGUES), text
    assert "Fremdliga" not in text
    return text


def _start_text(club, league: str) -> str:
    with club[0].session() as s:
        lid = s.scalar(select(League.id).where(League.name == league))
        raw = s.scalar(select(OutboxMail.raw).where(OutboxMail.league_id == lid, OutboxMail.kind == "start",
                                                    OutboxMail.to_addr == ME))
    return " ".join(email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain",))
                    .get_content().split())


def test_the_start_mail_and_help_say_how_to_name_the_league(club):
    text = _start_text(club, "Typ-Dom-Winter")
    assert "Du spielst auch in Rondo-Herbst, Rondo-Winter." in text
    assert "schreib den Namen der Liga in den Betreff" in text and "„Züge Typ-Dom-Winter“" in text
    assert "Du spielst auch" not in _start_text(club, "Rondo-Herbst")  # no other league yet when it began
    _, _, answers = _send(club, "HILFE Herbst")
    assert len(answers) == 1
    assert "Du spielst auch in Rondo-Winter, Typ-Dom-Winter." in " ".join(answers[0][1].split())


def test_one_player_in_three_leagues(club):
    # replies to each league's start mail go to that league, whatever the subject says otherwise
    for name in LEAGUES:
        league, status, answers = _send(club, "Re: Start", "Hallo, bin dabei.", reply_to=_mail_of(club, name, "start"))
        assert league == name, (name, status, answers)
        assert not any(ASKED in a[1] for a in answers)
    # fresh mails naming a league, or a distinctive part of it, in the subject
    for subject, name in [("Züge Rondo-Herbst", "Rondo-Herbst"), ("züge rondo winter", "Rondo-Winter"),
                          ("Typ-Dom", "Typ-Dom-Winter"), ("Herbst, Runde 1", "Rondo-Herbst"),
                          ("Meine Züge (typ-dom-winter)", "Typ-Dom-Winter")]:
        assert _send(club, subject, "Partie R1:\nABC")[0] == name, subject
    # fresh mails with Partie names of only one league
    for body, name in [("Partie K1:\nH8 WAAG", "Typ-Dom-Winter"), ("Partie R2:\nXY", "Rondo-Herbst"),
                       ("R3: XY", "Rondo-Winter"), ("Partie R1:\nXY\nPartie R3:\nYZ", "Rondo-Winter")]:
        assert _send(club, "Züge", body)[0] == name, body
    # commands without a league: answered for each league, each answer naming its league
    for command in ("STAND", "HILFE"):
        league, status, answers = _send(club, command)
        assert sorted(subj for subj, _ in answers) == sorted(f"Re: {command} ({n})" for n in LEAGUES), answers
        assert not any(ASKED in text for _, text in answers)
        if command == "STAND":
            for subj, text in answers:
                assert subj.split("(")[1].rstrip(")") in text
    # a command with a league: only that league
    _, _, answers = _send(club, "STAND Typ-Dom")
    assert len(answers) == 1 and "Typ-Dom-Winter" in answers[0][1]
    # truly ambiguous: asked once, with the list; nothing read as moves
    for subject, body in [("Züge Runde 1", "Partie R1:\nABC"), ("Züge", "ABC"), ("Winter", "ABC"),
                          ("Rondo", "Partie R1:\nXY")]:
        league, status, answers = _send(club, subject, body)
        assert league is None and status == "ignored", (subject, league)
        _asked(answers)
    # disagreement: a reply to league A whose subject names league B; Partien of two leagues
    league, status, answers = _send(club, "Re: Züge Typ-Dom-Winter", "XY", reply_to=_mail_of(club, "Rondo-Herbst", "start"))
    assert league is None
    text = _asked(answers)
    assert "Mail der Liga Rondo-Herbst" in text and "nennt die Liga Typ-Dom-Winter" in text
    league, _, answers = _send(club, "Züge", "Partie R2:\nXY\nPartie K1:\nH8 WAAG")
    assert league is None
    _asked(answers)
    # the answer to an Auswertung: routed to that league
    db, cfg, _ = club
    adjudicate_league(db, cfg, "Rondo-Winter", force=True)
    auswertung = _mail_of(club, "Rondo-Winter", "auswertung")
    assert auswertung
    assert _send(club, "Re: Auswertung", "Partie R1:\nXY", reply_to=auswertung)[0] == "Rondo-Winter"
    # AUSWERTUNG 1 without a league: the copy from Rondo-Winter, "not yet" from the others
    _, _, answers = _send(club, "AUSWERTUNG 1")
    assert len(answers) == 3, answers
    subjects = sorted(subj for subj, _ in answers)
    assert [s for s in subjects if "Rondo-Winter: Auswertung Runde 1" in s], subjects
    assert "Re: AUSWERTUNG 1 (Rondo-Herbst)" in subjects and "Re: AUSWERTUNG 1 (Typ-Dom-Winter)" in subjects
    # the answer to the bot's question, with the league now in the subject: routed
    _, _, answers = _send(club, "Züge", "ABC")
    asked = _mail_of_answer(club)
    assert _send(club, "Re: Züge Herbst", "ABC", reply_to=asked)[0] == "Rondo-Herbst"


def _mail_of_answer(club) -> str:
    with club[0].session() as s:
        return s.scalar(select(OutboxMail.message_id).where(OutboxMail.to_addr == ME)
                        .order_by(OutboxMail.id.desc()).limit(1))


def test_a_forged_reply_routes_no_one_into_a_league(club):
    """An In-Reply-To pointing at a mail of a league the sender does not play in counts
    for nothing: the sender is no player there."""
    foreign = _mail_of(club, "Fremdliga", "start", to="x0@club.invalid")
    league, status, answers = _send(club, "Züge", "Partie F1:\nABC", reply_to=foreign)
    assert league is None and status == "ignored"
    _asked(answers)
    # a stranger replying to it is a stranger still
    league, status, answers = _send(club, "Züge", "Partie F1:\nABC", sender="fremd@club.invalid", reply_to=foreign)
    assert league is None
    assert not any("Fremdliga" in text and "Partie F1" in text for _, text in answers)
    with club[0].session() as s:
        lid = s.scalar(select(League.id).where(League.name == "Fremdliga"))
        assert not s.scalars(select(InboundMail).where(InboundMail.league_id == lid)).all()


def test_a_dutch_player_is_asked_in_dutch(tmp_path):
    """Two Dutch RONDO leagues: the question is Dutch (the language both share), with
    the list, every line at most 72 characters; a STAND answers for each league."""
    cfg = embedded(tmp_path / "nl")
    cfg.sender = "Spelleider <spelleider@club.invalid>"
    cfg.rate_limit_per_hour = 0
    cfg.read_workers = 1
    db = Database(cfg.database_url)
    db.migrate()
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0).isoformat()
    with db.session() as s:
        for i, name in enumerate(["Rondo-Utrecht", "Rondo-Leiden"]):
            create_league(s, {"name": name, "game": "rondonl", "partien": ["T1"], "seed": "3", "first_zat": first,
                              "zat_interval_days": 7, "gm_email": "gm@club.invalid", "review": False,
                              "require_code": False, "language": "nl", "options": {},
                              "players": [{"name": "Anna", "email": ME},
                                          *[{"name": f"Speler {i}{k}", "email": f"n{i}{k}@club.invalid"}
                                            for k in range(2)]]}, cfg)
    club = (db, cfg, MaildirTransport(cfg.maildir))
    league, status, answers = _send(club, "zetten", "Partij T1:\nXY")
    assert league is None and len(answers) == 1
    text = answers[0][1]
    assert "Jouw competities:" in text and "- Rondo-Utrecht" in text and "- Rondo-Leiden" in text
    assert "Onderwerp: zetten Rondo-Utrecht" in text and "Liga" not in text
    assert max(len(line) for line in text.splitlines()) <= 72
    assert _send(club, "zetten leiden", "Partij T1:\nXY")[0] == "Rondo-Leiden"
    _, _, answers = _send(club, "STAND")
    assert sorted(subj for subj, _ in answers) == ["Re: STAND (Rondo-Leiden)", "Re: STAND (Rondo-Utrecht)"]

"""The game master's side: GM commands by mail (address AND code), on the embedded
default (SQLite + Maildir through ``poll_once``), with the real lexicon. By CLI and as
functions: tests/test_gm_cli.py."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from bot.service.presentation.view import league_view
from bot.config import embedded
from bot.games import get_game
from bot.games.rondo.movegen import best_moves
from bot.games.rondo.game import position_of
from bot.lexicon import load
from bot.mail.maildir import MaildirTransport, _delivery_order
from bot.service.conversations.gmbase import GMError, parse_zat
from bot.service.domain.league import league_lexicon
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_due, adjudicate_league
from bot.service.operations.runner import Service, poll_once
from bot.storage.db import Database
from bot.storage.models import InboundMail, League, OutboxMail, Partie, Player, Result, Round, Submission
from tests.helpers import PLAYERS, header, league_toml, player_mail, text_of

CODE = "Geheim-4711"
GM = "gm@example.org"
LIGA = "Test-Rondo"
GM_KEYS = f'gm_email = "{GM}"\ngm_code = "{CODE}"'


def _no_code_anywhere(db, md):
    with db.session() as s:
        for row in s.scalars(select(OutboxMail)):
            assert CODE.encode() not in row.raw and CODE.lower().encode() not in row.raw.lower(), row.key
            if row.status != "failed":
                assert CODE not in text_of(row.raw)
    for raw in md.sent():
        assert CODE not in text_of(raw)


@pytest.fixture
def env(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    cfg.gm_notice_window = 0  # each notice at once (the merging: tests/test_gm_pause.py)
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    spec = read_league_file(league_toml(tmp_path / "liga.toml", extra=GM_KEYS))
    with db.session() as s:
        create_league(s, spec, cfg)
    deliver(db, md, cfg)
    md.start = set(md.outbox.keys())
    yield db, cfg, md
    _no_code_anywhere(db, md)
    db.dispose()


def gm_mail(md, subject: str, body: str = "", *, sender: str = GM, code: str | None = CODE) -> None:
    text = (f"Code: {code}\n" if code else "") + body
    md.deliver_to_inbox(player_mail(sender, text, subject=subject))


def sent_in_order(md) -> list[bytes]:
    """Every mail "sent" into the Maildir outbox, in delivery order."""
    return [md.outbox.get_bytes(k) for k in sorted(md.outbox.keys(), key=_delivery_order)]


def new_sent(md) -> list[bytes]:
    """The mails sent since the league's start mails, in delivery order."""
    return [md.outbox.get_bytes(k) for k in sorted(set(md.outbox.keys()) - md.start, key=_delivery_order)]


def to(raws, addr) -> list[bytes]:
    return [r for r in raws if header(r, "To") == addr]


def last_mail(db) -> InboundMail:
    with db.session() as s:
        return s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()


def league_row(db) -> League:
    with db.session() as s:
        return s.scalar(select(League))


def open_zat(db) -> datetime:
    with db.session() as s:
        return s.scalar(select(Round).where(Round.status == "open")).zat


def states(db):
    with db.session() as s:
        return {p.name: p.state for p in s.scalars(select(Partie).order_by(Partie.id))}


def unpaused(view: dict) -> dict:
    """The view without its pause fields (a rollback pauses the league: tests/test_gm_pause.py;
    ``zat_waits`` says the next ZAT waits for WEITER)."""
    return {k: v for k, v in view.items() if not k.startswith("paused") and k != "zat_waits"}


def points(db) -> dict[str, int]:
    return {r["player"]: r["points"] for r in league_view(db, LIGA)["standings"]}


def good_moves(db, partie="R1", n=3):
    st = states(db)[partie]
    pos = position_of(st)
    return pos, best_moves(pos, load("rondo"), n)


def invalid_word_move(db, cfg, partie="R1") -> tuple[str, str]:
    """A move on the empty row whose only fault is the word: (move, word)."""
    st = states(db)[partie]
    game = get_game("rondo")
    lex = load("rondo")
    letters = [c for c in st["vorgabe"] if c.isalpha()]
    for combo in itertools.permutations(letters, 3):
        word = "".join(combo)
        if word in lex:
            continue
        line = f"Feld 4: {word}"
        rep = game.check_line(st, line, lex)
        if not rep.valid and rep.reason == "word":
            return line, word
    pytest.skip("no 3-letter non-word from this Vorgabe")


# -- authorisation ------------------------------------------------------------------------

def test_wrong_address_or_code_changes_nothing_and_is_flagged(env):
    db, cfg, md = env
    zat0 = open_zat(db)
    gm_mail(md, f"PAUSE {LIGA}", sender="anna@example.org")              # a player, with the right code
    gm_mail(md, f"ZAT {LIGA} +2d", sender="fremd@example.net")          # a stranger
    gm_mail(md, f"PAUSE {LIGA}", code="falsch")                          # the GM, wrong code
    gm_mail(md, f"AUSWERTEN {LIGA}", code=None)                          # the GM, no code
    poll_once(db, cfg)
    lg = league_row(db)
    assert not lg.paused and open_zat(db) == zat0
    with db.session() as s:
        assert s.scalar(select(Round).where(Round.number == 1)).status == "open"
        mails = s.scalars(select(InboundMail).order_by(InboundMail.id)).all()
        assert [m.status for m in mails] == ["rejected"] * 4
        assert all(m.flagged for m in mails)
        assert [m.parse["reason"] for m in mails] == ["wrong sender address", "wrong sender address",
                                                       "GM code wrong", "GM code missing"]
        assert s.scalars(select(OutboxMail).where(OutboxMail.kind == "gm")).all() == []
    sent = new_sent(md)
    # only the GM is told, at most once an hour: the first at once, the others in one mail an hour later
    assert len(sent) == 1 and header(sent[0], "To") == GM
    assert "von anna@example.org" in text_of(sent[0]) and "nichts wurde verändert" in text_of(sent[0])
    with db.session() as s:
        (later,) = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auth", OutboxMail.status == "pending"))
        assert later.to_addr == GM and later.next_attempt_at > datetime.now(timezone.utc) + timedelta(minutes=50)
    body = text_of(later.raw)
    assert "3 Mails" in body and "fremd@example.net (1)" in body and f"{GM} (2)" in body
    assert "falscher Spielleiter-Code" in body and "ohne Spielleiter-Code" in body


def test_a_players_mail_starting_like_a_command_is_still_a_submission(env):
    db, cfg, md = env
    pos, moves = good_moves(db)
    md.deliver_to_inbox(player_mail("anna@example.org", f"Weiter so!\n\nPartie R1:\n{moves[0].notation(pos)}\n",
                                    subject="Weiter geht's"))
    poll_once(db, cfg)
    m = last_mail(db)
    assert m.status == "processed" and m.kind == "submission" and not m.flagged
    with db.session() as s:
        assert len(s.scalars(select(Submission)).all()) == 1


def test_league_named_in_subject_or_the_gms_only_league(env):
    db, cfg, md = env
    gm_mail(md, f"Liga {LIGA}", "PAUSE\n")        # command as first line, league in the subject
    poll_once(db, cfg)
    assert league_row(db).paused
    gm_mail(md, "WEITER")                           # no league named: the GM's only league
    poll_once(db, cfg)
    assert not league_row(db).paused
    assert last_mail(db).parse["command"] == "WEITER"


# -- the commands by mail -----------------------------------------------------------------

def test_zat_extend_and_move_announced(env):
    db, cfg, md = env
    zat0 = open_zat(db)
    gm_mail(md, f"ZAT {LIGA} +2d")
    poll_once(db, cfg)
    assert open_zat(db) == zat0 + timedelta(days=2)
    m = last_mail(db)
    assert m.status == "processed" and m.parse["command"] == "ZAT" and "ZAT der Runde 1" in m.parse["done"]
    sent = new_sent(md)
    for _, email in PLAYERS:
        mine = to(sent, email)
        assert len(mine) == 1 and "neuer ZAT der Runde 1" in header(mine[0], "Subject")
        assert "Neuer ZAT:" in text_of(mine[0])
    assert len(to(sent, GM)) == 1 and "ZAT der Runde 1" in text_of(to(sent, GM)[0])
    # a German date-time in the league's time zone
    berlin = ZoneInfo("Europe/Berlin")
    target = (datetime.now(berlin) + timedelta(days=12)).replace(hour=20, minute=0, second=0, microsecond=0)
    gm_mail(md, f"ZAT {LIGA} {target:%d.%m.%Y} 20:00")
    poll_once(db, cfg)
    assert open_zat(db) == target.astimezone(timezone.utc)
    # the past is refused, nothing changes
    gm_mail(md, f"ZAT {LIGA} 01.01.2020 20:00")
    poll_once(db, cfg)
    assert open_zat(db) == target.astimezone(timezone.utc)
    assert "nicht ausgeführt" in text_of(to(new_sent(md), GM)[-1])


def test_parse_zat_forms():
    lg = League(name="X", timezone="Europe/Berlin")
    cur = datetime(2026, 12, 6, 19, 0, tzinfo=timezone.utc)  # 20:00 Berlin
    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    assert parse_zat("+2d", lg, cur, now) == cur + timedelta(days=2)
    assert parse_zat("+12h", lg, cur, now) == cur + timedelta(hours=12)
    assert parse_zat("+1d 6h", lg, cur, now) == cur + timedelta(days=1, hours=6)
    assert parse_zat("13.12.2026 20:00", lg, cur, now) == datetime(2026, 12, 13, 19, 0, tzinfo=timezone.utc)
    assert parse_zat("13.12. 18:30 Uhr", lg, cur, now) == datetime(2026, 12, 13, 17, 30, tzinfo=timezone.utc)
    assert parse_zat("13.12.2026", lg, cur, now) == datetime(2026, 12, 13, 19, 0, tzinfo=timezone.utc)
    assert parse_zat("2026-12-13T20:00", lg, cur, now) == datetime(2026, 12, 13, 19, 0, tzinfo=timezone.utc)
    assert parse_zat("2026-12-13 20:00+00:00", lg, cur, now) == datetime(2026, 12, 13, 20, 0, tzinfo=timezone.utc)
    # across the end of daylight saving time "+7d" keeps 20:00 local
    oct_ = datetime(2026, 10, 20, 18, 0, tzinfo=timezone.utc)
    assert parse_zat("+7d", lg, oct_, now) == datetime(2026, 10, 27, 19, 0, tzinfo=timezone.utc)
    for bad in ("morgen", "+2x", "32.13.2026 20:00"):
        with pytest.raises(GMError):
            parse_zat(bad, lg, cur, now)


def test_pause_stops_the_zat_and_resume_lets_it_fire(env):
    db, cfg, md = env
    gm_mail(md, f"PAUSE {LIGA}")
    poll_once(db, cfg)
    assert league_row(db).paused
    assert all("angehalten" in header(r, "Subject") for e in (e for _, e in PLAYERS) for r in to(new_sent(md), e))
    with db.session() as s:
        s.scalar(select(Round)).zat = datetime.now(timezone.utc) - timedelta(minutes=5)
    assert adjudicate_due(db, cfg) == []
    Service(db, cfg).fire(LIGA)                 # the scheduler's job for the ZAT does nothing either
    assert adjudicate_league(db, cfg, LIGA) is None
    with db.session() as s:
        assert s.scalar(select(Round).where(Round.number == 1)).status == "open"
        assert s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung")).all() == []
    gm_mail(md, f"WEITER {LIGA}")
    poll_once(db, cfg)
    assert not league_row(db).paused
    # WEITER says what happens, and it happened: the round whose ZAT passed is adjudicated at once
    answer = next(text_of(r) for r in to(new_sent(md), GM) if "läuft wieder" in text_of(r))
    assert "schon vorbei" in answer and "Runde ist jetzt ausgewertet" in " ".join(answer.split())
    assert adjudicate_due(db, cfg) == []
    with db.session() as s:
        assert s.scalar(select(Round).where(Round.number == 1)).status == "adjudicated"


def test_process_now(env):
    db, cfg, md = env
    gm_mail(md, f"AUSWERTEN {LIGA}")
    poll_once(db, cfg)
    view = league_view(db, LIGA)
    assert view["round"] == 2 and all(p["round"] == 2 for p in view["partien"])
    sent = new_sent(md)
    for _, email in PLAYERS:
        subjects = [header(r, "Subject") for r in to(sent, email)]
        # the Auswertung is the news: no second mail that only says it will come (issue 24)
        assert f"{LIGA}: Auswertung Runde 1" in subjects and f"{LIGA}: Runde 1 ausgewertet" not in subjects
    assert any("Runde 1 von Test-Rondo ausgewertet" in text_of(r) for r in to(sent, GM))


def test_set_move_counts_at_adjudication(env):
    db, cfg, md = env
    pos, moves = good_moves(db)
    md.deliver_to_inbox(player_mail("bernd@example.org", "Partie R1:\nXQZ\n"))
    poll_once(db, cfg)
    gm_mail(md, f"SETZE {LIGA} Bernd Becker R1", f"{moves[0].notation(pos)}\nErsatz: XQZ\n\nViele Grüße\nGM")
    poll_once(db, cfg)
    with db.session() as s:
        subs = s.scalars(select(Submission).order_by(Submission.id)).all()
        assert len(subs) == 2 and subs[0].superseded_by == subs[1].id
        assert [m.text for m in subs[1].moves] == [moves[0].notation(pos), "XQZ"]
    sent = new_sent(md)
    bernd = [r for r in to(sent, "bernd@example.org") if "eingetragen" in header(r, "Subject")]
    assert len(bernd) == 1 and moves[0].notation(pos) in text_of(bernd[0]) and "gültig" in text_of(bernd[0])
    for other in ("anna@example.org", "clara@example.org"):  # moves stay secret until the ZAT
        assert not any(moves[0].notation(pos) in text_of(r) for r in to(sent, other))
    assert adjudicate_league(db, cfg, LIGA, force=True)["round"] == 1
    assert points(db)["bernd@example.org"] == moves[0].score
    assert league_view(db, LIGA)["partien"][0]["row"] == moves[0].row.code


def test_remove_player(env):
    db, cfg, md = env
    gm_mail(md, f"ENTFERNE {LIGA} Clara")
    poll_once(db, cfg)
    with db.session() as s:
        assert not s.scalar(select(Player).where(Player.name == "Clara Conrad")).active
    sent = new_sent(md)
    for _, email in PLAYERS:
        assert any(header(r, "Subject") == f"{LIGA}: Clara Conrad ausgetragen" for r in to(sent, email))
    assert {r["name"] for r in league_view(db, LIGA)["standings"]} == {"Anna Albers", "Bernd Becker"}
    adjudicate_league(db, cfg, LIGA, force=True)
    with db.session() as s:
        assert {r.player_id for r in s.scalars(select(Result))} == {
            p.id for p in s.scalars(select(Player).where(Player.active))}


def test_rollback_restores_the_view_exactly(env):
    db, cfg, md = env
    pos, moves = good_moves(db)
    md.deliver_to_inbox(player_mail("anna@example.org", f"Partie R1:\n{moves[0].notation(pos)}\n"))
    md.deliver_to_inbox(player_mail("bernd@example.org", f"Partie R1:\n{moves[-1].notation(pos)}\n"))
    poll_once(db, cfg)
    before = league_view(db, LIGA)
    gm_mail(md, f"AUSWERTEN {LIGA}")
    poll_once(db, cfg)                                      # Auswertungen of round 1 sent
    after = league_view(db, LIGA)
    assert after != before and after["standings"] != before["standings"]
    gm_mail(md, f"ZURÜCK {LIGA}")
    poll_once(db, cfg)
    assert unpaused(league_view(db, LIGA)) == unpaused(before)                  # rows, Vorgaben, standings, round, next ZAT
    assert league_row(db).paused
    with db.session() as s:
        assert [r.status for r in s.scalars(select(Round).order_by(Round.number))] == ["open"]
        assert s.scalars(select(Result)).all() == []
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung")).all()
        assert rows and all(r.status == "sent" for r in rows)
        assert all(":zurueck" in r.key for r in rows)
    sent = new_sent(md)
    for _, email in PLAYERS:
        notice = [r for r in to(sent, email) if "zurückgesetzt" in header(r, "Subject")]
        assert len(notice) == 1 and "nicht zurückholen" in text_of(notice[0])
    # adjudicated again: the same result, new Auswertungen with new Message-IDs
    gm_mail(md, f"AUSWERTEN {LIGA}")
    poll_once(db, cfg)
    assert league_view(db, LIGA)["standings"] == after["standings"]
    assert [p["row"] for p in league_view(db, LIGA)["partien"]] == [p["row"] for p in after["partien"]]
    reports = [r for r in md.sent() if "Auswertung Runde 1" in header(r, "Subject")]
    assert len(reports) == 2 * (len(PLAYERS) + 1)
    assert len({header(r, "Message-ID") for r in reports}) == len(reports)
    gm_mail(md, f"ZURUECK {LIGA}")
    gm_mail(md, f"ZURUECK {LIGA}")                          # nothing left to roll back
    poll_once(db, cfg)
    assert unpaused(league_view(db, LIGA)) == unpaused(before)
    assert "in Test-Rondo ist noch nichts ausgewertet" in " ".join(text_of(to(new_sent(md), GM)[-1]).split())  # wrapped at 72


def test_message_to_all(env):
    db, cfg, md = env
    gm_mail(md, f"NACHRICHT {LIGA}", "Liebe Leute,\n\nam 24.12. ist kein ZAT.\nFrohes Fest!\n")
    poll_once(db, cfg)
    sent = new_sent(md)
    for name, email in PLAYERS:
        mine = to(sent, email)
        assert len(mine) == 1 and "Nachricht des Spielleiters" in header(mine[0], "Subject")
        body = text_of(mine[0])
        assert f"Hallo {name}" in body and "am 24.12. ist kein ZAT." in body and "Frohes Fest!" in body
        assert "Code" not in body


def test_review_holds_until_release(env):
    db, cfg, md = env
    gm_mail(md, f"REVIEW {LIGA} an")
    poll_once(db, cfg)
    assert league_row(db).review
    with db.session() as s:
        s.scalar(select(Round)).zat = datetime.now(timezone.utc) - timedelta(minutes=1)
    assert adjudicate_due(db, cfg)[0]["round"] == 1
    poll_once(db, cfg)
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung")).all()
        assert sorted(r.status for r in rows) == ["held"] * len(PLAYERS) + ["sent"]   # the GM's copy goes out
        assert next(r for r in rows if r.status == "sent").to_addr == GM
    assert not any("Auswertung Runde 1" in header(r, "Subject") for _, e in PLAYERS for r in to(new_sent(md), e))
    gm_mail(md, f"FREIGEBEN {LIGA}")
    poll_once(db, cfg)
    for _, email in PLAYERS:
        assert len([r for r in to(new_sent(md), email) if "Auswertung Runde 1" in header(r, "Subject")]) == 1
    gm_mail(md, f"REVIEW {LIGA} aus")
    poll_once(db, cfg)
    assert not league_row(db).review
    adjudicate_league(db, cfg, LIGA, force=True)
    with db.session() as s:
        assert {r.status for r in s.scalars(select(OutboxMail).where(OutboxMail.round_number == 2,
                                                                     OutboxMail.kind == "auswertung"))} == {"pending"}


def test_allow_word_readjudicates_a_held_round(env):
    db, cfg, md = env
    line, word = invalid_word_move(db, cfg)
    gm_mail(md, f"REVIEW {LIGA} an")
    poll_once(db, cfg)
    md.deliver_to_inbox(player_mail("anna@example.org", f"Partie R1:\n{line}\n"))
    poll_once(db, cfg)
    gm_mail(md, f"AUSWERTEN {LIGA}")
    poll_once(db, cfg)
    assert points(db)["anna@example.org"] == 0                      # the word is not in the lexicon
    with db.session() as s:
        old_ids = {r.message_id for r in s.scalars(select(OutboxMail).where(OutboxMail.status == "held"))}
        zat2 = s.scalar(select(Round).where(Round.number == 2)).zat
    assert len(old_ids) == len(PLAYERS)
    gm_mail(md, f"ERLAUBE {LIGA} {word.lower()}")
    poll_once(db, cfg)
    lg = league_row(db)
    assert word in lg.allow_words
    with db.session() as s:
        assert word in league_lexicon(s.get(League, lg.id), cfg)
    pts = points(db)["anna@example.org"]
    assert pts > 0                                                  # valid now, re-adjudicated
    assert league_view(db, LIGA)["partien"][0]["row"][3:6] == word
    # the answer to the command and the GM's copy of the new Auswertung went out in one pass,
    # the answer first (answers go before Auswertungen, issue 27)
    gm_new = to(new_sent(md), GM)
    assert "neu ausgewertet" in " ".join(text_of(gm_new[-2]).split()) and "Auswertung Runde 1" in header(gm_new[-1], "Subject")
    with db.session() as s:
        held = s.scalars(select(OutboxMail).where(OutboxMail.status == "held")).all()
        withdrawn = s.scalars(select(OutboxMail).where(OutboxMail.status == "failed")).all()
        assert len(held) == len(PLAYERS) and not {r.message_id for r in held} & old_ids
        assert {r.message_id for r in withdrawn} == old_ids
        assert [r.status for r in s.scalars(select(Round).order_by(Round.number))] == ["adjudicated", "open"]
        assert s.scalar(select(Round).where(Round.number == 2)).zat == zat2
    gm_mail(md, f"FREIGEBEN {LIGA}")
    poll_once(db, cfg)
    anna = [r for r in to(new_sent(md), "anna@example.org") if "Auswertung Runde 1" in header(r, "Subject")]
    assert len(anna) == 1 and f"Anna Albers: {pts} Punkte" in text_of(anna[0])
    # deny it again: the round is released now, so it stays as it is (only later rounds)
    gm_mail(md, f"VERBIETE {LIGA} {word}")
    poll_once(db, cfg)
    lg = league_row(db)
    assert word in lg.deny_words and word not in lg.allow_words
    assert points(db)["anna@example.org"] == pts
    with db.session() as s:
        assert word not in league_lexicon(s.get(League, lg.id), cfg)

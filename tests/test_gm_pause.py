"""Issue 33, items 2, 3 and parts of 6: a paused league looks paused everywhere (``show``,
``show --json``, the archive, ``gm status``), no ZAT job fires or warns while it is
paused, GM notices during a pause say so, WEITER says what happens and it happens, GM
work can be quiet (``--still`` / ``STILL``), several GM actions within the notice window
are one mail per player, notices are wrapped at 72, ``gm zat --alle`` moves the later
ZATs. Through the real service: embedded SQLite + Maildir, the real APScheduler."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.config import embedded
from bot.mail.maildir import MaildirTransport, _delivery_order
from bot.service.operations.league import create_league, read_league_file, zat_of
from bot.service.operations.runner import Service, poll_once
from bot.service.presentation.view import league_view
from bot.service.stages.outbox import deliver
from bot.storage.db import Database
from bot.storage.models import League, OutboxMail, Round
from tests.helpers import PLAYERS, header, league_toml, player_mail, text_of

CODE = "Geheim-4711"
GM = "gm@example.org"
LIGA = "Test-Rondo"
GM_KEYS = f'gm_email = "{GM}"\ngm_code = "{CODE}"'
EMAILS = [e for _, e in PLAYERS]


@pytest.fixture
def env(tmp_path):
    """The league with the default notice window (3 minutes)."""
    cfg = embedded(tmp_path / "var")
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    assert cfg.gm_notice_window == 180.0
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "liga.toml", extra=GM_KEYS)), cfg)
    deliver(db, md, cfg)
    md.start = set(md.outbox.keys())
    yield db, cfg, md
    db.dispose()


def gm_mail(md, subject: str, body: str = "") -> None:
    md.deliver_to_inbox(player_mail(GM, f"Code: {CODE}\n{body}", subject=subject))


def new_sent(md) -> list[bytes]:
    return [md.outbox.get_bytes(k) for k in sorted(set(md.outbox.keys()) - md.start, key=_delivery_order)]


def to(raws, addr) -> list[bytes]:
    return [r for r in raws if header(r, "To") == addr]


def answer(md, part: str) -> str:
    """The GM's answer that contains ``part`` (the text unwrapped)."""
    hits = [" ".join(text_of(r).split()) for r in to(new_sent(md), GM)]
    found = [h for h in hits if part in h]
    assert found, hits
    return found[-1]


def later(minutes: float) -> datetime:
    return datetime.now(timezone.utc) + timedelta(minutes=minutes)


def assert_wrapped(raws) -> None:
    for raw in raws:
        for line in text_of(raw).splitlines():
            assert len(line) <= 72, line


def pass_zat(db) -> None:
    with db.session() as s:
        s.scalar(select(Round).where(Round.status == "open")).zat = datetime.now(timezone.utc) - timedelta(hours=1)


# -- the pause as a state everyone sees -----------------------------------------------------

def test_pause_is_seen_in_show_json_archive_and_status(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf = tmp_path / "bot.toml"
    conf.write_text('[database]\nurl = "sqlite:///db.sqlite"\n[maildir]\npath = "mail"\n'
                    '[bot]\nsender = "spielleiter@example.org"\n[archive]\npath = "site"\n', encoding="utf-8")
    liga = league_toml(tmp_path / "liga.toml", name="DS-Rondo", extra=GM_KEYS)

    def run(*args) -> str:
        capsys.readouterr()
        assert main([*args, "--config", str(conf)]) == 0
        return capsys.readouterr().out

    run("init")
    run("league", "create", str(liga))
    assert "Status läuft" in run("show", "DS-Rondo")
    assert json.loads(run("show", "DS-Rondo", "--json"))["paused"] is False
    assert ": läuft." in run("gm", "status", "DS-Rondo")

    before = datetime.now(timezone.utc)
    out = run("gm", "pause", "DS-Rondo")
    assert "angehalten" in out and "3 Spieler benachrichtigt" in out and "geht um" in out
    first = run("show", "DS-Rondo").splitlines()[0]
    assert "Status angehalten seit" in first and "vom Spielleiter per CLI" in first and "running" not in first
    assert first.endswith("(wartet auf WEITER des Spielleiters)")  # the next ZAT waits (issue 32)
    view = json.loads(run("show", "DS-Rondo", "--json"))
    assert view["paused"] is True and view["paused_by"] == "cli"
    assert before <= datetime.fromisoformat(view["paused_since"]) <= datetime.now(timezone.utc)
    assert view["paused_text"].startswith("angehalten seit ")
    status = run("gm", "status", "DS-Rondo")
    assert "angehalten seit" in status and "vom Spielleiter per CLI" in status
    assert "(wartet auf WEITER des Spielleiters)" in status
    assert "Mitteilungen an 3 Spieler warten bis" in status      # the notice waits to be merged
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "angehalten seit" in index and "läuft" not in index
    assert "per CLI" not in index                                # who paused it is not the public's business
    league_page = next((tmp_path / "site").glob("*/index.html")).read_text(encoding="utf-8")
    assert "angehalten seit" in league_page
    # the archive's next ZAT says it waits for the GM's WEITER (issue 32), the index's too
    assert "(wartet auf WEITER des Spielleiters)" in league_page and "(wartet auf WEITER" in index

    run("gm", "weiter", "DS-Rondo")
    assert json.loads(run("show", "DS-Rondo", "--json"))["paused"] is False
    assert "Status läuft" in run("show", "DS-Rondo") and "wartet auf" not in run("show", "DS-Rondo")
    assert "läuft" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "wartet auf WEITER" not in next((tmp_path / "site").glob("*/index.html")).read_text(encoding="utf-8")


def test_a_paused_dutch_league_s_archive_says_in_dutch_that_the_zat_waits(tmp_path):
    """The archive of a paused Dutch RONDO league: its next ZAT waits for the game master,
    said in Dutch and without the German command word (issue 32)."""
    from bot.service.conversations import gm
    from bot.service.presentation.archive import build_archive
    cfg = embedded(tmp_path / "var")
    db = Database(cfg.database_url)
    db.migrate()
    spec = {"name": "NL-Rondo", "game": "rondonl", "partien": ["T1"], "language": "nl", "seed": "1",
            "first_zat": (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0).isoformat(),
            "zat_interval_days": 7, "gm_email": GM, "require_code": False, "turn_hours": 48,
            "players": [{"name": n, "email": e} for n, e in PLAYERS[:3]]}
    with db.session() as s:
        create_league(s, spec, cfg)
    with db.session() as s:
        gm.pause(s, cfg, "NL-Rondo")
    build_archive(db, tmp_path / "site")
    page = next((tmp_path / "site").glob("*/index.html")).read_text(encoding="utf-8")
    db.dispose()
    assert "(wacht tot de spelleider de competitie hervat)" in page and "WEITER" not in page


def test_pause_by_mail_records_who(env):
    db, cfg, md = env
    gm_mail(md, f"PAUSE {LIGA}")
    poll_once(db, cfg)
    view = league_view(db, LIGA)
    assert view["paused"] and view["paused_by"] == f"mail {GM}"
    assert f"vom Spielleiter per Mail ({GM})" in view["paused_text"]
    gm_mail(md, f"STATUS {LIGA}")
    poll_once(db, cfg)
    assert "angehalten seit" in answer(md, f"{LIGA} (Rondo): angehalten")
    assert not to(new_sent(md), EMAILS[0])                        # STATUS tells no player; PAUSE waits


def test_a_long_pause_with_a_passed_zat_logs_nothing_again_and_again(env, caplog):
    """The real service (APScheduler, inbox and outbox loops) runs ~100 passes while the
    league is paused and its ZAT has passed (a pass every 20 s: half an hour; the same
    code path every pass of a week): no ZAT job is scheduled, fired or skipped, and no
    line is logged more than once. Before the fix every pass logged "skipped: maximum
    number of running instances reached"."""
    db, cfg, md = env
    gm_mail(md, f"PAUSE {LIGA}")
    poll_once(db, cfg)
    pass_zat(db)
    cfg.poll_interval = 0.02
    service = Service(db, cfg)
    caplog.set_level(logging.DEBUG)
    caplog.clear()
    ticks = [0]
    tick = service.tick

    def counted() -> float:
        ticks[0] += 1
        return tick()
    service.tick = counted
    runner = threading.Thread(target=service.start, daemon=True)
    runner.start()
    deadline = time.monotonic() + 60
    while ticks[0] < 100 and time.monotonic() < deadline:
        time.sleep(0.05)
    jobs = service.scheduler.get_jobs()
    service.stop()
    runner.join(30)
    assert ticks[0] >= 100
    assert jobs == []                                            # no ZAT job for a paused league
    lines = [r.getMessage() for r in caplog.records if r.name.startswith(("bot", "apscheduler"))]
    assert not [m for m in lines if "Service.fire" in m or "skipped" in m or "maximum number" in m]
    repeated = {m: n for m, n in Counter(m for r in caplog.records if r.levelno >= logging.INFO
                                         for m in [r.getMessage()]).items() if n > 1}
    assert repeated == {}
    with db.session() as s:
        assert s.scalar(select(Round).where(Round.number == 1)).status == "open"   # nothing adjudicated
        assert s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung")).all() == []


def test_a_zat_job_scheduled_before_the_pause_is_removed_and_back_after_weiter(env):
    db, cfg, md = env
    cfg.gm_notice_window = 0
    service = Service(db, cfg)
    service.schedule_zats()
    assert [j.id.split(":")[1] for j in service.scheduler.get_jobs()] == [LIGA]
    gm_mail(md, f"PAUSE {LIGA}")
    poll_once(db, cfg)
    service.schedule_zats()
    assert service.scheduler.get_jobs() == []
    gm_mail(md, f"WEITER {LIGA}")
    poll_once(db, cfg)
    service.schedule_zats()
    assert [j.id.split(":")[1] for j in service.scheduler.get_jobs()] == [LIGA]


# -- GM mails during a pause, WEITER -------------------------------------------------------

def test_zat_during_a_pause_says_the_league_is_paused(env):
    db, cfg, md = env
    cfg.gm_notice_window = 0
    gm_mail(md, f"PAUSE {LIGA}")
    poll_once(db, cfg)
    gm_mail(md, f"ZAT {LIGA} +2d")
    poll_once(db, cfg)
    assert "ist angehalten (WEITER setzt fort)" in answer(md, "ZAT der Runde 1")
    mine = [r for r in to(new_sent(md), EMAILS[0]) if "neuer ZAT" in header(r, "Subject")]
    assert len(mine) == 1
    text = " ".join(text_of(mine[0]).split())
    assert f"{LIGA} ist zurzeit angehalten: kein ZAT wird ausgeführt" in text
    assert "Bis dahin kannst du deine Züge schicken" not in text
    from bot.service.conversations.gm import run_cli  # SETZE during the pause says so too
    with db.session() as s:
        run_cli(s, cfg, "setze", LIGA, player="Anna", partie="R1", moves=["XQZ"])
    deliver(db, md, cfg)
    mine = [r for r in to(new_sent(md), EMAILS[0]) if "eingetragen" in header(r, "Subject")]
    assert len(mine) == 1 and f"{LIGA} ist zurzeit angehalten" in " ".join(text_of(mine[0]).split())
    assert_wrapped(new_sent(md))
    with db.session() as s:  # and every other notice during the pause: a message of the GM
        run_cli(s, cfg, "nachricht", LIGA, text="Frohe Feiertage!")
    deliver(db, md, cfg)
    (mine,) = [r for r in to(new_sent(md), EMAILS[0]) if "Nachricht des Spielleiters" in header(r, "Subject")]
    flat = " ".join(text_of(mine).split())
    assert "Frohe Feiertage!" in flat and f"{LIGA} ist zurzeit angehalten" in flat


def test_weiter_before_the_zat_says_the_next_zat_and_adjudicates_nothing(env):
    db, cfg, md = env
    gm_mail(md, f"PAUSE {LIGA}")
    poll_once(db, cfg)
    gm_mail(md, f"WEITER {LIGA}")
    poll_once(db, cfg)
    with db.session() as s:
        zat = s.scalar(select(Round).where(Round.status == "open")).zat
        assert s.scalar(select(Round).where(Round.number == 1)).status == "open"
    assert "Nächster ZAT:" in answer(md, f"{LIGA} läuft wieder.")
    assert "ausgewertet" not in answer(md, f"{LIGA} läuft wieder.")
    assert zat > datetime.now(timezone.utc)


def test_weiter_after_the_zat_adjudicates_at_once_and_says_so(env):
    db, cfg, md = env
    gm_mail(md, f"PAUSE {LIGA}")
    poll_once(db, cfg)
    pass_zat(db)
    gm_mail(md, f"WEITER {LIGA}")
    poll_once(db, cfg)
    said = answer(md, f"{LIGA} läuft wieder.")
    assert "war schon vorbei: die Runde ist jetzt ausgewertet (Partie R1" in said
    assert "Die Auswertungen gehen jetzt hinaus. Nächster ZAT: Runde 2 am" in said
    with db.session() as s:                               # what it said happened, in that transaction
        assert s.scalar(select(Round).where(Round.number == 1)).status == "adjudicated"
        assert s.scalar(select(Round).where(Round.status == "open")).number == 2
    for email in EMAILS:                                  # the Auswertung went out with the answer
        assert [r for r in to(new_sent(md), email) if "Auswertung Runde 1" in header(r, "Subject")]


# -- quiet GM work and merged notices -------------------------------------------------------

def test_still_by_mail_and_by_cli_tells_no_player(env, tmp_path, capsys):
    db, cfg, md = env
    gm_mail(md, f"PAUSE {LIGA} STILL")
    gm_mail(md, f"ZAT {LIGA} +1d", "STILL\n")            # STILL in a line of its own
    poll_once(db, cfg)
    assert league_view(db, LIGA)["paused"]
    assert "Still: kein Spieler benachrichtigt" in answer(md, "ist angehalten")
    assert "Still: kein Spieler benachrichtigt" in answer(md, "ZAT der Runde 1")
    from bot.service.conversations.gm import run_cli
    with db.session() as s:
        out = run_cli(s, cfg, "weiter", LIGA, still=True)
    assert "Still: kein Spieler benachrichtigt" in out
    deliver(db, md, cfg, now=later(10))
    for email in EMAILS:
        assert to(new_sent(md), email) == []
    with db.session() as s:
        assert s.scalars(select(OutboxMail).where(OutboxMail.kind == "gm")).all() == []
        assert not s.scalar(select(League)).paused
    # the CLI flag
    conf = tmp_path / "bot.toml"
    conf.write_text(f'[database]\nurl = "{cfg.database_url}"\n[maildir]\npath = "{cfg.maildir}"\n'
                    '[bot]\nsender = "spielleiter@example.org"\n', encoding="utf-8")
    assert main(["gm", "pause", LIGA, "--still", "--config", str(conf)]) == 0
    assert "Still: kein Spieler benachrichtigt" in capsys.readouterr().out
    with db.session() as s:
        assert s.scalars(select(OutboxMail).where(OutboxMail.kind == "gm")).all() == []


def test_three_gm_actions_within_the_window_are_one_mail_per_player(env):
    db, cfg, md = env
    gm_mail(md, f"PAUSE {LIGA}")
    gm_mail(md, f"ZAT {LIGA} +1d")
    poll_once(db, cfg)
    db.dispose()                                          # the waiting notices are in the database:
    db = Database(cfg.database_url)                       # a restart between the actions loses nothing
    gm_mail(md, f"WEITER {LIGA}")
    poll_once(db, cfg)
    assert all(to(new_sent(md), e) == [] for e in EMAILS)    # within the window: nothing yet
    assert "die Mitteilung geht um" in answer(md, "läuft wieder")
    deliver(db, md, cfg, now=later(2))
    assert all(to(new_sent(md), e) == [] for e in EMAILS)
    deliver(db, md, cfg, now=later(3.5))                  # the first notice's three minutes are up
    for name, email in PLAYERS:
        mine = to(new_sent(md), email)
        assert len(mine) == 1, email
        assert header(mine[0], "Subject") == f"{LIGA}: 3 Mitteilungen des Spielleiters"
        text = text_of(mine[0])
        flat = " ".join(text.split())
        assert text.startswith(f"Hallo {name},")
        assert flat.index("1. Angehalten") < flat.index("2. Neuer ZAT der Runde 1") < flat.index("3. Es geht weiter")
        assert f"Der Spielleiter hat {LIGA} angehalten." in flat and "Neuer ZAT:" in flat
        assert f"{LIGA} geht weiter." in flat
    assert_wrapped(new_sent(md))
    deliver(db, md, cfg, now=later(10))                   # sent once
    assert all(len(to(new_sent(md), e)) == 1 for e in EMAILS)
    db.dispose()


def test_a_notice_after_the_window_is_a_mail_of_its_own(env):
    db, cfg, md = env
    gm_mail(md, f"PAUSE {LIGA}")
    poll_once(db, cfg)
    deliver(db, md, cfg, now=later(4))
    with db.session() as s:  # sent: a later action does not reopen it
        assert {r.status for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "gm"))} == {"sent"}
    gm_mail(md, f"WEITER {LIGA}")
    poll_once(db, cfg)
    deliver(db, md, cfg, now=later(8))
    for email in EMAILS:
        subjects = [header(r, "Subject") for r in to(new_sent(md), email)]
        assert subjects == [f"{LIGA}: angehalten", f"{LIGA}: es geht weiter"]
    assert_wrapped(new_sent(md))


# -- gm zat --alle --------------------------------------------------------------------------

def test_zat_says_whether_the_later_zats_move_and_alle_moves_them(env):
    db, cfg, md = env
    cfg.gm_notice_window = 0
    with db.session() as s:
        lg = s.scalar(select(League))
        r2 = zat_of(lg, 2)
    from bot.service.conversations.gm import run_cli
    with db.session() as s:
        out = " ".join(run_cli(s, cfg, "zat", LIGA, when="-3d").split())
    assert "Die späteren ZATs bleiben (Runde 2:" in out and "ALLE (CLI: --alle)" in out
    with db.session() as s:
        assert zat_of(s.scalar(select(League)), 2) == r2          # round 2 stays: a 10-day round
    deliver(db, md, cfg)
    text = " ".join(text_of(to(new_sent(md), EMAILS[0])[-1]).split())
    assert "Die späteren ZATs bleiben, wie sie waren; der ZAT der Runde 2 ist weiter" in text
    with db.session() as s:
        out = " ".join(run_cli(s, cfg, "zat", LIGA, when="+1d", alle=True).split())
    assert "Die späteren ZATs sind mitverschoben (Runde 2:" in out
    with db.session() as s:
        lg = s.scalar(select(League))
        assert zat_of(lg, 2) == r2 + timedelta(days=1)
        assert zat_of(lg, 3) - zat_of(lg, 2) == timedelta(days=7)
    deliver(db, md, cfg)
    text = " ".join(text_of(to(new_sent(md), EMAILS[0])[-1]).split())
    assert "Die späteren ZATs verschieben sich ebenso; der ZAT der Runde 2 ist jetzt" in text
    # by mail: ZAT <Liga> <Zeit> ALLE
    gm_mail(md, f"ZAT {LIGA} +1d ALLE")
    poll_once(db, cfg)
    assert "mitverschoben" in answer(md, "ZAT der Runde 1")
    with db.session() as s:
        assert zat_of(s.scalar(select(League)), 2) == r2 + timedelta(days=2)
    assert_wrapped(new_sent(md))


def test_cli_zat_back_with_alle(env, tmp_path, capsys):
    """``spielleiter gm zat NAME -3d --alle``: a time back is the ZEIT, not an option."""
    db, cfg, md = env
    with db.session() as s:
        lg = s.scalar(select(League))
        r1, r2 = zat_of(lg, 1), zat_of(lg, 2)
    conf = tmp_path / "bot.toml"
    conf.write_text(f'[database]\nurl = "{cfg.database_url}"\n[maildir]\npath = "{cfg.maildir}"\n'
                    '[bot]\nsender = "spielleiter@example.org"\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["gm", "zat", LIGA, "-3d", "--alle", "--still", "--config", str(conf)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Die späteren ZATs sind mitverschoben" in out and "Still: kein Spieler benachrichtigt" in out
    with db.session() as s:
        lg = s.scalar(select(League))
        assert s.scalar(select(Round).where(Round.status == "open")).zat == r1 - timedelta(days=3)
        assert zat_of(lg, 2) == r2 - timedelta(days=3)


# -- a correction's acknowledgement ---------------------------------------------------------

def test_a_corrections_acknowledgement_starts_each_paragraph_with_a_capital(env):
    from tests.test_gm import good_moves
    db, cfg, md = env
    pos, moves = good_moves(db)
    for move in (moves[0], moves[1]):
        md.deliver_to_inbox(player_mail(EMAILS[0], f"Partie R1:\n{move.notation(pos)}\n"))
        poll_once(db, cfg)
    ack = text_of(to(new_sent(md), EMAILS[0])[-1]).replace("\r\n", "\n")
    paragraphs = [p for p in ack.split("\n\n") if p.strip()]
    assert paragraphs[1].startswith("diese Mail ersetzt deine frühere Einsendung für Partie R1.")
    assert paragraphs[2].startswith("Ich habe deine Züge für Runde 1")
    assert_wrapped([to(new_sent(md), EMAILS[0])[-1]])

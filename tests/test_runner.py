"""The service (APScheduler), the outbox's retries, the demo and the lexicon CLI."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from bot.cli import main
from bot.config import Config, embedded
from bot.demo import run_demo
from bot.mail.smtp import SmtpTransport
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver, queue_mail
from bot.service.operations.runner import Service
from bot.storage.db import Database
from bot.storage.models import OutboxMail, Round
from tests.helpers import CASES_DIR, league_toml, spielleiter_exe


def _league(tmp_path, first_zat, db_url):
    cfg = embedded(tmp_path / "var")
    cfg.database_url = db_url
    cfg.poll_interval = 0.3
    db = Database(cfg.database_url)
    db.migrate()
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "l.toml", first_zat=first_zat, rounds=2)), cfg)
    return db, cfg


def _wait(pred, seconds=30.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.2)
    return False


def _statuses(db):
    with db.session() as s:
        return [r.status for r in s.scalars(select(Round).order_by(Round.number))]


def test_service_fires_the_zat_and_catches_up(tmp_path, db_url):
    # a ZAT already missed (bot was down) runs at start-up; the next one fires on its date job
    db, cfg = _league(tmp_path, datetime.now(timezone.utc) - timedelta(days=3), db_url)
    svc = Service(db, cfg)
    t = threading.Thread(target=svc.start, daemon=True)
    t.start()
    try:
        assert _wait(lambda: _statuses(db)[:1] == ["adjudicated"]), _statuses(db)
        with db.session() as s:
            r2 = s.scalar(select(Round).where(Round.number == 2))
            assert r2.zat > datetime.now(timezone.utc)
            r2.zat = datetime.now(timezone.utc) + timedelta(seconds=1)  # GM moved the ZAT forward
        assert _wait(lambda: _statuses(db) == ["adjudicated", "adjudicated"]), _statuses(db)
    finally:
        svc.stop()
        t.join(30)
    with db.session() as s:
        sent = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung")).all()
        assert len(sent) == 6 and all(m.status == "sent" for m in sent)


def test_a_stop_while_the_zat_job_runs_lets_the_job_finish_first(tmp_path, db_url):
    """SIGTERM (:meth:`Service.stop`) while the ZAT's job is under way: the service ends
    only after the job has adjudicated the round and delivered its Auswertungen. Before
    the fix it ended at once and the job ran on alone, after the lease was given up (in
    ``spielleiter run``: into the interpreter's shutdown, where its delivery failed with a
    traceback and the Auswertungen stayed in the outbox; found by the chaos run)."""
    db, cfg = _league(tmp_path, datetime.now(timezone.utc) + timedelta(seconds=3), db_url)
    cfg.poll_interval = 60  # no inbox or outbox pass meanwhile: the round and its mails are the job's
    svc = Service(db, cfg)
    fire = svc._fire

    def stopped_while_firing(league: str) -> None:
        svc.stop()       # what SIGTERM does, right as the job starts
        time.sleep(0.5)  # a job takes its time (the poll before the ZAT, a big league)
        fire(league)
    svc._fire = stopped_while_firing
    t = threading.Thread(target=svc.start, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive()
    assert _statuses(db) == ["adjudicated", "open"]
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung")).all()
        assert [r.status for r in rows] == ["sent"] * 3, [(r.key, r.status) for r in rows]


def test_outbox_retries_then_fails_permanently(tmp_path, smtpd, db_url):
    cfg = Config(database_url=db_url, sender="spielleiter@example.org")
    db = Database(cfg.database_url)
    db.migrate()
    with db.session() as s:
        queue_mail(s, cfg, key="k1", kind="notice", to="a@example.org", subject="Eins", text="eins")
        again = queue_mail(s, cfg, key="k1", kind="notice", to="a@example.org", subject="anders", text="anders")
        assert again.subject == "Eins"  # a key is queued once
    sender = SmtpTransport(smtpd.host, smtpd.port, retries=0, backoff=0.01)
    smtpd.fail_next(1, code=451)
    now = datetime.now(timezone.utc)
    assert deliver(db, sender, cfg, now) == (0, 0)
    with db.session() as s:
        row = s.scalar(select(OutboxMail))
        assert row.status == "pending" and row.attempts == 1 and row.next_attempt_at > now
    assert deliver(db, sender, cfg, now) == (0, 0)  # not due yet
    assert deliver(db, sender, cfg, now + timedelta(hours=1)) == (1, 0)
    assert len(smtpd.messages) == 1
    with db.session() as s:
        row = s.scalar(select(OutboxMail))
        assert row.status == "sent" and row.message_id in smtpd.messages[0].raw.decode()
        queue_mail(s, cfg, key="k2", kind="notice", to="b@example.org", subject="Zwei", text="zwei")
    smtpd.reject_all(550)
    assert deliver(db, sender, cfg) == (0, 1)
    with db.session() as s:
        assert s.scalar(select(OutboxMail).where(OutboxMail.key == "k2")).status == "failed"


def test_demo_plays_a_league_and_writes_reports(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_demo(out=out, rounds={"Demo-Rondo": 3}, seed="7", leagues=["Demo-Rondo"]) == 0
    files = sorted(out.glob("rondo-*.eml"))
    assert len(files) == 3 * 4
    assert files[-1].name.startswith("rondo-runde-03-")
    text = capsys.readouterr().out
    assert "Endstand" in text and "Anna Albers" in text
    body = files[0].read_bytes()
    assert b"Auswertung Runde 1" in body and b"text/html" in body


def test_lexicon_check_cli(capsys):
    assert main(["lexicon", "check", "Mondes"]) == 2  # no game, no league: no default game (issue 34)
    assert "--game" in capsys.readouterr().err
    assert main(["lexicon", "check", "--game", "rondo", "Mondes"]) == 0
    assert "gültig" in capsys.readouterr().out
    assert main(["lexicon", "check", "--game", "rondo", "Xqzv"]) == 1
    assert "ungültig" in capsys.readouterr().out
    assert main(["lexicon", "check", "--game", "monoscrabble", "Ärger"]) == 0


def test_lexicon_export_prints_the_games_word_list():
    import subprocess
    proc = subprocess.run([spielleiter_exe(), "lexicon", "export", "--game", "monoscrabble"], capture_output=True,
                          text=True, check=True)
    words = proc.stdout.splitlines()
    assert len(words) > 250_000 and words == sorted(words)
    assert "ÄRGER" in words and "AERGER" not in words and "MONDES" in words
    rondo = subprocess.run([spielleiter_exe(), "lexicon", "export", "--game", "rondo"], capture_output=True, text=True,
                           check=True).stdout
    assert "\nAERGER\n" in rondo and "Ä" not in rondo
    # a closed pipe ends the command quietly
    head = subprocess.run(f"'{spielleiter_exe()}' lexicon export --game rondo | head -3", shell=True, capture_output=True, text=True)
    assert head.stdout.count("\n") == 3 and "Traceback" not in head.stderr


def test_top_for_monoscrabble_positions_on_the_full_lexicon(tmp_path):
    import io
    import json
    from bot.conformance import run_top
    from bot.games import get_game
    from bot.lexicon import load
    cases = json.loads((CASES_DIR / "monoscrabble.json").read_text())
    for c in cases:
        c.pop("words", None)
        c["lexicon"] = "default"
    f = tmp_path / "top.json"
    f.write_text(json.dumps(cases[:3]))
    out = io.StringIO()
    assert run_top([f], out) == 0
    game, lex = get_game("monoscrabble"), load("monoscrabble")
    for case, line in zip(cases, out.getvalue().splitlines()):
        res = json.loads(line)
        assert res["id"] == case["id"] and res["score"] > 0
        judged = game.run_case(dict(case, move=res["move"]), lex)  # the printed top is a valid move
        assert judged["valid"] and judged["score"] == res["score"]


def test_permanent_failure_tells_the_gm_once(tmp_path, smtpd, db_url):
    from bot.service.operations.league import create_league, read_league_file
    cfg = Config(database_url=db_url, sender="spielleiter@example.org")
    db = Database(cfg.database_url)
    db.migrate()
    spec = read_league_file(league_toml(tmp_path / "l.toml", extra='gm_email = "sl@example.org"'))
    with db.session() as s:
        create_league(s, spec, cfg)  # queues three start mails with the league's id
    smtpd.reject_all(550)
    sender = SmtpTransport(smtpd.host, smtpd.port, retries=0, backoff=0.01)
    deliver(db, sender, cfg)
    deliver(db, sender, cfg)  # the GM notices fail too: no notice about a notice
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).order_by(OutboxMail.id)).all()
        starts = [r for r in rows if r.kind == "start"]
        # the GM's own mail about the new league (a gm-notice too) failed as well, and no
        # notice about it followed: "no notice about a notice"
        assert [r.subject for r in rows if r.key.endswith(":gm")] == ["Test-Rondo: Liga angelegt"]
        notices = [r for r in rows if r.kind == "gm-notice" and not r.key.endswith(":gm")]
        assert all(r.status == "failed" for r in starts)
        assert sorted(r.to_addr for r in notices) == ["sl@example.org"] * 3
        from tests.helpers import text_of
        assert all("anna@example.org" in text_of(r.raw) or "bernd@example.org" in text_of(r.raw)
                   or "clara@example.org" in text_of(r.raw) for r in notices)
        assert {r.subject for r in notices} == {"Test-Rondo: Mail nicht zustellbar"}

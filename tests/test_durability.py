"""Durability of the embedded default and the service's life through database outages
(issue 26): the real ``spielleiter run`` serving while the game master's commands run
beside it and then killed with SIGKILL loses nothing; SIGTERM stops it cleanly; no
process of it outlives it; a database that is down at start or during the run costs one
line each way and no tracebacks; a ZAT delayed by an outage takes nothing from the
players."""

from __future__ import annotations

import email
import email.policy
import hashlib
import logging
import mailbox
import os
import signal
import subprocess
import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.service.stages.store import store_raw_batch, RawMail
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.runner import Service, read_stored
from bot.storage.db import Database, EXIT_DATABASE
from bot.storage.models import InboundMail, OutboxMail, Round, Submission
from tests.helpers import PLAYERS, league_toml, player_mail, spielleiter_exe, text_of

LEAGUE = "Dauer-Rondo"


def _wait(pred, seconds: float = 60.0, step: float = 0.2) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return False


class Site:
    """The embedded default as an operator runs it: a config with SQLite (or another
    database URL) and a Maildir, one league, the ``spielleiter`` command."""

    def __init__(self, tmp: Path, db_url: str | None = None, *, first_zat: datetime | None = None,
                 read_workers: int = 2) -> None:
        self.tmp = tmp
        self.db_url = db_url or f"sqlite:///{tmp / 'var' / 'spielleiter.sqlite'}"
        self.maildir = tmp / "mail"
        self.conf = tmp / "spielleiter.toml"
        self.conf.write_text(f'[database]\nurl = "{self.db_url}"\n\n[maildir]\npath = "{self.maildir}"\n\n'
                             f'[bot]\npoll_interval = 1\nread_workers = {read_workers}\n', encoding="utf-8")
        self.sent = 0
        self.proc: subprocess.Popen | None = None

    def create(self, first_zat: datetime | None = None) -> None:
        liga = league_toml(self.tmp / "liga.toml", name=LEAGUE, partien=("R1", "R2"), rounds=3,
                           first_zat=first_zat)
        self.ok("init")
        self.ok("league", "create", str(liga))

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run([spielleiter_exe(), *args, "--config", str(self.conf)], cwd=self.tmp,
                              capture_output=True, text=True, timeout=timeout, input="")

    def ok(self, *args: str) -> str:
        proc = self.run(*args)
        assert proc.returncode == 0, (args, proc.returncode, proc.stdout + proc.stderr)
        return proc.stdout

    def serve(self) -> subprocess.Popen:
        self.log = open(self.tmp / "run.log", "w")
        self.proc = subprocess.Popen([spielleiter_exe(), "run", "--config", str(self.conf)], cwd=self.tmp,
                                     stdout=self.log, stderr=subprocess.STDOUT, text=True)
        return self.proc

    def run_log(self) -> str:
        return (self.tmp / "run.log").read_text()

    def mail(self, n: int = 1) -> None:
        """``n`` player mails into the inbox (round-robin over the players)."""
        box = mailbox.Maildir(self.maildir / "inbox", factory=None, create=True)
        for _ in range(n):
            self.sent += 1
            _, addr = PLAYERS[self.sent % len(PLAYERS)]
            box.add(player_mail(addr, f"Partie R1: ZUG{self.sent}\n", subject=f"{LEAGUE} Zug {self.sent}"))

    def processed(self) -> list[bytes]:
        return [p.read_bytes() for sub in ("new", "cur") for p in (self.maildir / "processed" / sub).iterdir()]

    def outbox_files(self) -> list[bytes]:
        return [p.read_bytes() for sub in ("new", "cur") for p in (self.maildir / "outbox" / sub).iterdir()]

    def acks(self) -> list[email.message.EmailMessage]:
        msgs = [email.message_from_bytes(raw, policy=email.policy.default) for raw in self.outbox_files()]
        return [m for m in msgs if m["In-Reply-To"]]


def _descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rpartition(")")[2].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _alive(pids) -> set[int]:
    """Of ``pids``, those still running (a zombie waiting for its parent counts as gone)."""
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def _stored(db_url: str) -> tuple[set[str], dict[str, int]]:
    """(sha256 of every stored mail, {Message-ID: submissions of that mail}) in the database."""
    db = Database(db_url)
    try:
        with db.session() as s:
            shas = set(s.scalars(select(InboundMail.sha256)))
            subs: dict[str, int] = {}
            for mid, n in s.execute(select(InboundMail.message_id, Submission.id)
                                    .join(Submission, Submission.mail_id == InboundMail.id)).all():
                subs[mid] = subs.get(mid, 0) + 1
            return shas, subs
    finally:
        db.dispose()


def test_commands_beside_the_running_service_then_sigkill_lose_nothing(tmp_path):
    """The issue's sequence on SQLite: ``run`` serves, every command that opens the database
    runs once beside it (each of them used to drop the service's SQLite locks, so that a
    later one removed the write-ahead log under it), mails keep coming, then ``kill -9``:
    every mail moved to ``processed`` is stored, every acknowledged move is in the database."""
    site = Site(tmp_path, read_workers=1)
    site.create()
    proc = site.serve()
    try:
        commands = [("show", LEAGUE, "--json"), ("show", LEAGUE), ("outbox",), ("outbox", "--status", "all"),
                    ("gm", "nachricht", LEAGUE, "Hallo", "zusammen"), ("gm", "zat", LEAGUE, "+2d"),
                    ("check",), ("archive", "--out", str(tmp_path / "archiv")), ("poll",),
                    ("adjudicate", LEAGUE), ("lexicon", "check", "--game", "rondo", "HAUS")]
        for cmd in commands:
            site.mail(1)
            assert _wait(lambda: len(site.processed()) == site.sent), site.run_log()
            res = site.run(*cmd)
            assert res.returncode in (0, 1), (cmd, res.stdout + res.stderr)
            assert "Traceback" not in res.stderr, (cmd, res.stderr)
        site.mail(7)
        assert _wait(lambda: len(site.processed()) == site.sent and len(site.acks()) >= site.sent - 2), \
            site.run_log()
        time.sleep(1.5)
    finally:
        proc.kill()
        proc.wait()
    processed, acks = site.processed(), site.acks()
    shas, subs = _stored(site.db_url)
    missing = [raw[:200] for raw in processed if hashlib.sha256(raw).hexdigest() not in shas]
    assert not missing, f"{len(missing)} of {len(processed)} processed mails are not in the database"
    assert len(acks) >= site.sent - 2
    for ack in acks:  # every acknowledged move is in the database
        assert subs.get(ack["In-Reply-To"].strip(), 0) >= 1, (ack["Subject"], text_of(ack.as_bytes())[:300])


def test_sigterm_stops_the_service_cleanly_and_its_read_workers(tmp_path):
    site = Site(tmp_path, read_workers=2)
    site.create()
    site.mail(30)  # a batch of 20 or more is read by the worker processes
    proc = site.serve()
    try:
        assert _wait(lambda: len(site.acks()) >= 30), site.run_log()
        below = _descendants(proc.pid)
        assert below, "the read workers were not started"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, site.run_log()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _wait(lambda: not _alive(below), 5), _alive(below)
    assert "Traceback" not in site.run_log()


def test_sigkill_of_the_service_leaves_no_process_behind(tmp_path):
    site = Site(tmp_path, read_workers=2)
    site.create()
    site.mail(30)
    proc = site.serve()
    try:
        assert _wait(lambda: len(site.acks()) >= 30), site.run_log()
        below = _descendants(proc.pid)
        assert below, "the read workers were not started"
    finally:
        proc.kill()
        proc.wait()
    assert _wait(lambda: not _alive(below), 5), f"still running 5 s after SIGKILL: {_alive(below)}"


def test_commands_with_the_database_down_print_one_line_and_exit_30(tmp_path, own_postgres):
    url = own_postgres.create_database()
    site = Site(tmp_path, url)
    site.create()
    own_postgres.stop()
    for cmd in (("show", LEAGUE), ("poll",), ("init",), ("outbox",), ("adjudicate", LEAGUE)):
        res = site.run(*cmd)
        assert res.returncode == EXIT_DATABASE, (cmd, res.returncode, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Datenbank postgresql+psycopg://postgres@127.0.0.1:"), lines
        assert "nicht erreichbar" in lines[0] and "[database] url" in lines[0]


def test_a_database_url_without_its_driver_is_one_line(tmp_path):
    conf = tmp_path / "c.toml"
    conf.write_text('[database]\nurl = "postgresql+pg8000://bot:geheim@127.0.0.1/liga"\n'
                    f'[maildir]\npath = "{tmp_path / "mail"}"\n')
    res = subprocess.run([spielleiter_exe(), "init", "--config", str(conf)], capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        "Konfiguration: [database] url postgresql+pg8000://bot:***@127.0.0.1/liga: der Datenbanktreiber "
        "pg8000 ist nicht installiert"]


def test_run_waits_for_a_database_that_is_down_at_start(tmp_path, own_postgres):
    url = own_postgres.create_database()
    site = Site(tmp_path, url, read_workers=1)
    site.create()
    own_postgres.stop()
    site.mail(2)
    proc = site.serve()
    try:
        assert _wait(lambda: "nicht erreichbar" in site.run_log(), 20), site.run_log()
        time.sleep(4)  # several attempts with backoff
        assert proc.poll() is None, site.run_log()
        own_postgres.start()
        assert _wait(lambda: len(site.acks()) == 2, 60), site.run_log()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    log = site.run_log()
    assert "Traceback" not in log, log
    assert sum("Datenbank postgresql" in ln and "nicht erreichbar" in ln for ln in log.splitlines()) == 1, log
    assert "Datenbank wieder erreichbar" in log, log


def test_database_outage_during_the_run_is_quiet_and_the_zat_runs_after_it(tmp_path, own_postgres, caplog):
    """The service in-process on PostgreSQL; the server dies (immediate stop) while a ZAT
    passes and a mail arrives, and comes back: one line when it went, one when it is
    back, no traceback; the ZAT runs after the recovery, and the mail that arrived after
    the ZAT counts for the next round, saying so."""
    url = own_postgres.create_database()
    cfg = embedded(tmp_path / "var")
    cfg.database_url, cfg.poll_interval, cfg.read_workers = url, 0.5, 1
    db = Database(url)
    db.migrate()
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "l.toml", name=LEAGUE, rounds=3,
                                                      first_zat=datetime.now(timezone.utc) + timedelta(days=1))), cfg)
    box = MaildirTransport(cfg.maildir).inbox
    box.add(player_mail(PLAYERS[0][1], "Partie R1: VORHER\n", subject=LEAGUE))
    svc = Service(db, cfg)
    caplog.set_level(logging.INFO)
    t = threading.Thread(target=svc.start, daemon=True)
    t.start()
    try:
        assert _wait(lambda: _subs(db) == {("VORHER", 1)}), _subs(db)
        with db.session() as s:
            s.scalar(select(Round).where(Round.number == 1)).zat = datetime.now(timezone.utc) + timedelta(seconds=2)
        own_postgres.stop()
        time.sleep(3)  # the ZAT passes while the database is down
        box.add(player_mail(PLAYERS[1][1], "Partie R1: NACHHER\n", subject=LEAGUE))
        time.sleep(3)
        own_postgres.start()
        assert _wait(lambda: ("NACHHER", 2) in _subs(db), 60), _subs(db)
    finally:
        svc.stop()
        t.join(30)
    with db.session() as s:
        rounds = {r.number: r.status for r in s.scalars(select(Round))}
        ack = s.scalar(select(OutboxMail).where(OutboxMail.kind == "ack", OutboxMail.to_addr == PLAYERS[1][1]))
    assert rounds[1] == "adjudicated" and rounds[2] == "open"
    assert "zählt deshalb, wie jede Mail nach dem ZAT, für Runde 2" in " ".join(text_of(ack.raw).split())
    records = [r for r in caplog.records if r.name.startswith("bot")]
    down = [r for r in records if r.levelno >= logging.ERROR]
    assert len(down) == 1 and "nicht erreichbar" in down[0].getMessage(), [r.getMessage() for r in records]
    assert down[0].getMessage().startswith("Datenbank postgresql+psycopg://postgres@127.0.0.1:")
    assert any("Datenbank wieder erreichbar" in r.getMessage() for r in records)
    assert not [r for r in records if r.exc_info and r.levelno >= logging.WARNING], \
        [r.getMessage() for r in records if r.exc_info]
    assert len([r for r in records if r.levelno >= logging.WARNING]) <= 12


def _subs(db) -> set[tuple[str, int]]:
    from bot.storage.models import SubmissionMove
    with db.session() as s:
        return {(t.partition(" ")[0], n) for t, n in s.execute(
            select(SubmissionMove.text, Submission.round_number).join(Submission))}


def _received(raw: bytes, when: datetime) -> bytes:
    return (f"Received: from mx.example.org by mail.example.org; {format_datetime(when)}\r\n").encode() + raw


def test_a_delayed_zat_takes_nothing_from_the_players(tmp_path, db_url):
    """The ZAT of round 1 passed an hour ago, the bot was down. Of the mails stored since,
    the one that reached the server before the ZAT counts for round 1, the one after it
    for round 2 (as it would have with the ZAT on time), and its acknowledgement says so."""
    now = datetime.now(timezone.utc)
    cfg = embedded(tmp_path / "var")
    cfg.database_url, cfg.read_workers = db_url, 1
    db = Database(db_url)
    db.migrate()
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "l.toml", name=LEAGUE, rounds=3,
                                                      first_zat=now - timedelta(hours=1))), cfg)
    before = _received(player_mail(PLAYERS[0][1], "Partie R1: VORHER\n", subject=LEAGUE), now - timedelta(hours=2))
    after = _received(player_mail(PLAYERS[1][1], "Partie R1: NACHHER\n", subject=LEAGUE), now - timedelta(minutes=30))
    store_raw_batch(db, [RawMail(before, "maildir", None, None), RawMail(after, "maildir", None, None)])
    assert read_stored(db, cfg) == 2
    assert _subs(db) == {("VORHER", 1), ("NACHHER", 2)}
    with db.session() as s:
        assert [r.status for r in s.scalars(select(Round).order_by(Round.number))] == ["adjudicated", "open"]
        acks = {r.to_addr: text_of(r.raw) for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "ack"))}
    assert "Runde 1" in acks[PLAYERS[0][1]] and "für Runde 2" not in acks[PLAYERS[0][1]]
    late = " ".join(acks[PLAYERS[1][1]].split())
    assert "nach dem ZAT der Runde 1" in late and "für Runde 2" in late and "nicht mehr gewertet" not in late


@pytest.mark.parametrize("game, players, said", [
    ("typdom-wbr", PLAYERS[:3], ("nach dem ZAT von Zug 1", "diesen Zug", "für Zug 2")),
    ("rondonl", PLAYERS[:3], ("nach dem ZAT der Eröffnung", "die Eröffnung", "für Zug 1"))])
def test_a_delayed_zat_of_a_turn_game_names_the_turn(tmp_path, db_url, game, players, said):
    """A game of turns ("Wer behält recht?", RONDO) counts turns, not Runden: the answer to
    a mail that came after a delayed ZAT names the turn it came after (RONDO's first ZAT:
    the opening) and the turn it counts for, never a "Runde" (issue 32)."""
    now = datetime.now(timezone.utc)
    cfg = embedded(tmp_path / "var")
    cfg.database_url, cfg.read_workers = db_url, 1
    db = Database(db_url)
    db.migrate()
    extra = 'turn_hours = 24\noptions = { dictionary = "de" }' if game == "rondonl" else "turn_hours = 24"
    path = league_toml(tmp_path / "l.toml", name=LEAGUE, partien=("T1",), rounds=10,
                       first_zat=now - timedelta(hours=1), players=players, extra=extra)
    path.write_text(path.read_text().replace('game = "rondo"', f'game = "{game}"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    after = _received(player_mail(players[1][1], "Partie T1: NACHHER\n", subject=LEAGUE), now - timedelta(minutes=30))
    store_raw_batch(db, [RawMail(after, "maildir", None, None)])
    assert read_stored(db, cfg) == 1
    with db.session() as s:
        assert [r.status for r in s.scalars(select(Round).order_by(Round.number))][:2] == ["adjudicated", "open"]
        acks = [text_of(r.raw) for r in s.scalars(select(OutboxMail).where(OutboxMail.kind.in_(("ack", "notice")),
                                                                           OutboxMail.to_addr == players[1][1]))]
    db.dispose()
    late = " ".join(" ".join(acks).split())
    assert all(x in late for x in said), late
    assert "Runde" not in late and "gestört" in late

"""Nothing lost, nothing twice: the real ``spielleiter`` command is killed at each crash
point (``bot/crash.py``, ``SPIELLEITER_CRASH_AT``, exit status 77, like a power cut)
against a real Dovecot and a real aiosmtpd, on SQLite and on PostgreSQL, and run again.
Afterwards every mail is stored once and read, the inbox is empty, every player has one
acknowledgement per mail (a resend after ``after-send`` is the same bytes with the same
Message-ID), and every player's Auswertung is exactly the one of a run without a crash.
A UIDVALIDITY reset of the inbox re-reads nothing already stored."""

from __future__ import annotations

import email
import email.policy
import os
import re
import shutil
import subprocess
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.crash import EXIT_CODE, POINTS
from bot.games.rondo.movegen import best_moves
from bot.games.rondo.game import position_of
from bot.lexicon import load
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Partie, PollState, Round, Submission
from tests.helpers import PLAYERS, header, league_toml, player_mail, server_config, spielleiter_exe
from tests.mailservers import SmtpServer, free_port

pytestmark = pytest.mark.e2e

LEAGUE = "Crash-Rondo"
#: fixed for the whole session, so every run renders the same Auswertung
FIRST_ZAT = (datetime.now(timezone.utc) + timedelta(days=7)).replace(hour=19, minute=0, second=0, microsecond=0)
PROCESSED = "Spielleiter.Verarbeitet"  # Dovecot's Maildir++ name of Spielleiter/Verarbeitet


def _strip_message_id(raw: bytes) -> bytes:
    head, sep, body = raw.partition(b"\r\n\r\n")
    head = re.sub(rb"(?im)^Message-ID:.*\r\n(?:[ \t].*\r\n)*", b"", head + b"\r\n")[:-2]
    assert b"message-id" not in head.lower()
    return head + sep + body


class World:
    """One league: a fresh Dovecot user, a database, a config, and the player mails."""

    def __init__(self, tmp: Path, dovecot, smtp, db_url: str) -> None:
        self.tmp, self.dovecot, self.smtp, self.db_url = tmp, dovecot, smtp, db_url
        self.user = dovecot.fresh_user()
        self.conf = server_config(tmp / "spielleiter.toml", dovecot, smtp, self.user, db_url=db_url)
        liga = league_toml(tmp / "liga.toml", name=LEAGUE, partien=("R1", "R2"), rounds=3, first_zat=FIRST_ZAT)
        assert main(["league", "create", str(liga), "--config", str(self.conf)]) == 0

    def run(self, *args: str, crash: str | None = None) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k != "SPIELLEITER_CRASH_AT"}
        if crash:
            env["SPIELLEITER_CRASH_AT"] = crash
        return subprocess.run([spielleiter_exe(), *args, "--config", str(self.conf)], cwd=self.tmp, env=env,
                              capture_output=True, text=True, timeout=120)

    def ok(self, *args: str) -> None:
        proc = self.run(*args)
        assert proc.returncode == 0, proc.stdout + proc.stderr

    def crash(self, point: str, *args: str) -> None:
        proc = self.run(*args, crash=point)
        assert proc.returncode == EXIT_CODE, (point, proc.returncode, proc.stdout + proc.stderr)
        assert f"crash point {point}" in proc.stderr

    def mails(self) -> dict[str, tuple[bytes, dict[str, list[str]]]]:
        """The player mails (Clara's without a Message-ID) and the moves each must leave
        in the database: {email: (raw, {partie: [move, ...]})}."""
        db = self.db()
        try:
            with db.session() as s:
                pos = {p.name: position_of(p.state) for p in s.scalars(select(Partie))}
        finally:
            db.dispose()
        lex = load("rondo")
        best = {n: best_moves(p, lex, 3) for n, p in pos.items()}
        a1, a2 = best["R1"][0].notation(pos["R1"]), best["R2"][0].notation(pos["R2"])
        b1 = best["R1"][1].notation(pos["R1"])
        c2 = best["R2"][2].notation(pos["R2"])
        return {
            "anna@example.org": (player_mail("Anna Albers <anna@example.org>",
                                             f"Partie R1:\n{a1}\n\nPartie R2:\n{a2}\n"),
                                 {"R1": [a1], "R2": [a2]}),
            "bernd@example.org": (player_mail("bernd@example.org", f"Partie R1:\nXYZ\nErsatz: {b1}\n"),
                                  {"R1": ["XYZ", b1]}),
            "clara@example.org": (_strip_message_id(player_mail("clara@example.org", f"Partie R2:\n{c2}\n")),
                                  {"R2": [c2]}),
        }

    def db(self) -> Database:
        return Database(self.db_url)


def _sent_by_kind(world: World) -> dict[str, list]:
    """Every message aiosmtpd received, by the kind of its outbox row (found by Message-ID)."""
    db = world.db()
    try:
        with db.session() as s:
            kinds = {r.message_id: r.kind for r in s.scalars(select(OutboxMail))}
    finally:
        db.dispose()
    out = defaultdict(list)
    for m in world.smtp.messages:
        out[kinds.get(header(m.raw, "Message-ID"), "foreign")].append(m)
    return out


def _assert_each_once(messages, allow_resend: bool) -> dict[str, bytes]:
    """Per recipient and Message-ID: every copy byte-identical; more than one copy only
    after a crash between the SMTP send and marking the row sent (at most one extra)."""
    by_mid = defaultdict(list)
    for m in messages:
        by_mid[header(m.raw, "Message-ID")].append(m)
    extra = 0
    for mid, copies in by_mid.items():
        assert len({c.raw for c in copies}) == 1, f"{mid} sent with different content"
        assert len({tuple(c.rcpt_tos) for c in copies}) == 1
        extra += len(copies) - 1
    assert extra <= (1 if allow_resend else 0), f"{extra} mails sent twice"
    return {copies[0].rcpt_tos[0]: copies[0].raw for copies in by_mid.values()}


def _body(raw: bytes) -> tuple[str, str]:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    return msg.get_body(("plain",)).get_content(), msg.get_body(("html",)).get_content()


def _play(world: World, point: str | None, phase: str | None) -> dict:
    """A round: three player mails by IMAP, ``poll``, ``adjudicate --now``; the crash
    point ``point`` fires in ``phase`` ("poll" or "adjudicate"), then the same step runs
    again without it. Returns the checked state."""
    mails = world.mails()
    for raw, _ in mails.values():
        world.dovecot.append(raw, user=world.user)
    if phase == "poll":
        world.crash(point, "poll")
    world.ok("poll")

    # every mail stored once and read, moved once, the inbox empty
    assert world.dovecot.fetch_all("INBOX", user=world.user) == []
    processed = world.dovecot.fetch_all(PROCESSED, user=world.user)
    assert sorted(processed) == sorted(raw for raw, _ in mails.values())
    db = world.db()
    try:
        with db.session() as s:
            inbound = s.scalars(select(InboundMail).order_by(InboundMail.id)).all()
            assert sorted(m.raw for m in inbound) == sorted(raw for raw, _ in mails.values())
            mids = [m.message_id for m in inbound if m.message_id]
            assert len(mids) == len(set(mids)) == 2
            assert {m.status for m in inbound} == {"processed"}, [(m.status, m.error) for m in inbound]
            subs = s.scalars(select(Submission).order_by(Submission.id)).all()
            got = defaultdict(dict)
            for sub in subs:
                assert sub.superseded_by is None  # one submission per mail and Partie, none twice
                mail = s.get(InboundMail, sub.mail_id)
                part = {1: "R1", 2: "R2"}[sub.partie_id]
                assert part not in got[mail.from_addr]
                got[mail.from_addr][part] = [m.text for m in sub.moves]
            assert dict(got) == {addr: moves for addr, (_, moves) in mails.items()}
    finally:
        db.dispose()
    sent = _sent_by_kind(world)
    acks = _assert_each_once(sent["ack"], allow_resend=(phase == "poll" and point == "after-send"))
    assert sorted(acks) == sorted(mails)

    if phase == "adjudicate":
        world.crash(point, "adjudicate", LEAGUE, "--now")
        # run again: the round is not adjudicated twice (the next ZAT is a week away),
        # but the Auswertungen left in the outbox go out
        world.ok("adjudicate", LEAGUE)
        db = world.db()
        try:
            with db.session() as s:
                assert {r.status for r in s.scalars(select(OutboxMail))} == {"sent"}
        finally:
            db.dispose()
    else:
        world.ok("adjudicate", LEAGUE, "--now")
    world.ok("poll")  # the steady state after it: nothing new, nothing sent again

    db = world.db()
    try:
        with db.session() as s:
            assert [r.status for r in s.scalars(select(Round).order_by(Round.number))] == ["adjudicated", "open"]
            assert {r.status for r in s.scalars(select(OutboxMail))} == {"sent"}
    finally:
        db.dispose()
    sent = _sent_by_kind(world)
    assert "foreign" not in sent, set(sent)  # every mail sent came from the outbox
    reports = _assert_each_once(sent["auswertung"],
                                allow_resend=(phase == "adjudicate" and point == "after-send"))
    assert sorted(reports) == sorted(e for _, e in PLAYERS)
    for m in sent["auswertung"]:
        assert "Auswertung Runde 1" in header(m.raw, "Subject")
    return {addr: _body(raw) for addr, raw in reports.items()}


@pytest.fixture(scope="module")
def reference(dovecot, tmp_path_factory):
    """The Auswertungen of the same round without any crash (SQLite, own aiosmtpd)."""
    from aiosmtpd.controller import Controller
    smtp = SmtpServer("127.0.0.1", free_port())
    controller = Controller(smtp, hostname=smtp.host, port=smtp.port, decode_data=False)
    controller.start()
    try:
        tmp = tmp_path_factory.mktemp("reference")
        world = World(tmp, dovecot, smtp, f"sqlite:///{tmp / 'ref.sqlite'}")
        return _play(world, None, None)
    finally:
        controller.stop()


CASES = [("poll", p) for p in ("after-store", "after-read", "before-move", "before-send", "after-data",
                               "after-send")] + \
        [("adjudicate", p) for p in ("after-adjudicate", "before-send", "after-data", "after-send")]


def test_every_crash_point_is_tested():
    assert {p for _, p in CASES} == set(POINTS)


@pytest.mark.parametrize("phase,point", CASES, ids=[f"{ph}-{p}" for ph, p in CASES])
def test_crash_and_run_again(phase, point, tmp_path, dovecot, smtpd, db_url, reference):
    world = World(tmp_path, dovecot, smtpd, db_url)
    reports = _play(world, point, phase)
    # each player gets exactly the Auswertung of a run without a crash
    assert reports == reference


def _inbox_dir(dovecot, user: str) -> Path:
    return dovecot.base / "mail" / user / "Maildir"


def _uidvalidity(dovecot, user: str) -> int:
    client = dovecot.client(user)
    try:
        return int(client.select_folder("INBOX", readonly=True)[b"UIDVALIDITY"])
    finally:
        client.logout()


def _recreate_inbox(dovecot, user: str) -> None:
    """Throw away the INBOX (its mails, UID list and index) as a restore from backup or a
    server move would, keeping the other folders: Dovecot gives it a new UIDVALIDITY."""
    root = _inbox_dir(dovecot, user)
    for name in os.listdir(root):
        path = root / name
        if name in ("cur", "new", "tmp"):
            shutil.rmtree(path)
        elif name == "dovecot-uidlist" or name.startswith("dovecot.index"):
            path.unlink()


def test_uidvalidity_reset_reprocesses_nothing(tmp_path, dovecot, smtpd, db_url):
    world = World(tmp_path, dovecot, smtpd, db_url)
    mails = world.mails()
    anna, _ = mails["anna@example.org"]
    clara, _ = mails["clara@example.org"]  # no Message-ID: deduped by the hash of the raw mail
    bernd, _ = mails["bernd@example.org"]
    for raw in (anna, clara):
        world.dovecot.append(raw, user=world.user)
    world.ok("poll")
    old_validity = _uidvalidity(dovecot, world.user)
    db = world.db()
    try:
        with db.session() as s:
            before = {m.id: (m.sha256, m.status) for m in s.scalars(select(InboundMail))}
            assert s.get(PollState, "INBOX").uidvalidity == old_validity
            outbox_before = {r.key: r.raw for r in s.scalars(select(OutboxMail))}
    finally:
        db.dispose()
    assert len(before) == 2

    _recreate_inbox(dovecot, world.user)
    # the same mails again (Anna's re-delivered with one more header: other bytes, same
    # Message-ID; Clara's byte for byte), then a new one from Bernd
    world.dovecot.append(b"X-Redelivered: yes\r\n" + anna, user=world.user)
    world.dovecot.append(clara, user=world.user)
    world.dovecot.append(bernd, user=world.user)
    new_validity = _uidvalidity(dovecot, world.user)
    assert new_validity != old_validity, "Dovecot kept the UIDVALIDITY"
    acks_before = len(smtpd.messages)
    world.ok("poll")

    assert world.dovecot.fetch_all("INBOX", user=world.user) == []
    db = world.db()
    try:
        with db.session() as s:
            rows = s.scalars(select(InboundMail).order_by(InboundMail.id)).all()
            assert {m.id: (m.sha256, m.status) for m in rows[:2]} == before  # untouched
            # Anna's re-delivery is stored (every received mail is) and read as a repeat of
            # her first mail: nothing changes, nobody is answered; Clara's same bytes once
            assert len(rows) == 4 and rows[0].raw == anna
            assert rows[2].raw == b"X-Redelivered: yes\r\n" + anna and rows[2].status == "ignored"
            assert rows[2].parse["duplicate_of"] == rows[0].id
            assert rows[3].raw == bernd and rows[3].status == "processed"
            assert s.get(PollState, "INBOX").uidvalidity == new_validity
            subs = s.scalars(select(Submission)).all()
            assert len(subs) == 4 and all(x.superseded_by is None for x in subs)  # Anna 2, Clara 1, Bernd 1
            outbox_after = {r.key: r.raw for r in s.scalars(select(OutboxMail))}
    finally:
        db.dispose()
    assert {k: v for k, v in outbox_after.items() if k in outbox_before} == outbox_before
    new_rows = set(outbox_after) - set(outbox_before)
    assert new_rows == {f"ack:{rows[3].id}"}
    answered = [m.rcpt_tos[0] for m in smtpd.messages[acks_before:]]
    assert answered == ["bernd@example.org"]  # nothing answered twice
    # a further poll finds nothing
    world.ok("poll")
    assert len(smtpd.messages) == acks_before + 1

"""The chaos run of issue 26, shared by ``tests/test_chaos.py`` (short, in the suite) and
``bench/chaos.py`` (long, figures): the real ``spielleiter run`` as a subprocess against a
real Dovecot, a real aiosmtpd and SQLite or PostgreSQL, while player mails arrive in
bursts and, at seeded random moments, the service is killed (SIGKILL) and started again,
the IMAP server goes away (a proxy in front of Dovecot refuses and cuts every connection),
the SMTP server is stopped and the PostgreSQL server stopped (``immediate``, like a crash)
and started again. The game master moves each open round's ZAT a few seconds ahead, so
rounds fall due during the faults.

Afterwards, with every server back and the service given time to catch up,
:func:`check` asserts: every mail stored once and read, the inbox empty; one answer per
answerable mail (a resend after a crash between SMTP and the database is the same
Message-ID); every round whose ZAT passed adjudicated once; one Auswertung per player
and round; the outbox empty; no mail answered as late.
"""

from __future__ import annotations

import email
import email.policy
import random
import signal
import subprocess
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import select

from bot.storage.db import Database
from bot.storage.models import Adjudication, InboundMail, OutboxMail, Round, Submission
from tests.helpers import PLAYERS, league_toml, player_mail, server_config, spielleiter_exe
from tests.mailservers import SmtpServer, TcpProxy, free_port

LEAGUE = "Chaos-Rondo"
#: Seconds between the ZATs the game master sets while the run lasts.
ZAT_STEP = 6.0


@dataclass
class Figures:
    """What a chaos run did and found (printed by ``bench/chaos.py``)."""

    seconds: float = 0.0
    mails: int = 0
    faults: Counter = field(default_factory=Counter)
    rounds: int = 0
    auswertungen: int = 0
    acks: int = 0
    resent: int = 0
    catch_up: float = 0.0
    log_lines: int = 0
    tracebacks: int = 0


class Chaos:
    """One league on the given servers; :meth:`play` runs the faults, :meth:`check` the
    invariants."""

    def __init__(self, tmp: Path, dovecot, pg=None, *, seed: int = 1) -> None:
        self.tmp, self.dovecot, self.pg = tmp, dovecot, pg
        self.rng = random.Random(seed)
        self.user = dovecot.fresh_user()
        self.imap = TcpProxy(dovecot.host, dovecot.port)
        self.smtp = SmtpServer("127.0.0.1", free_port())
        self.smtp.start()
        self.db_url = pg.create_database() if pg else f"sqlite:///{tmp / 'var' / 'chaos.sqlite'}"
        proxy = type("Imap", (), {"host": self.imap.host, "port": self.imap.port, "password": dovecot.password})
        self.conf = server_config(tmp / "spielleiter.toml", proxy, self.smtp, self.user, db_url=self.db_url,
                                  bot="poll_interval = 0.5\nrate_limit_per_hour = 0\n")
        liga = league_toml(tmp / "liga.toml", name=LEAGUE, partien=("R1", "R2"), rounds=1000,
                           first_zat=datetime.now(timezone.utc) + timedelta(days=3),
                           extra='gm_email = "gm@example.org"')
        self._cli("init")
        self._cli("league", "create", str(liga))
        self.proc: subprocess.Popen | None = None
        self.logs: list[Path] = []
        self.sent = 0
        self.figures = Figures()
        self.db_down = False
        #: when :meth:`settle` saw the service caught up, and when it sent SIGTERM (aware UTC)
        self.settled_at: datetime | None = None
        self.stopped_at: datetime | None = None

    # -- the pieces ---------------------------------------------------------------------
    def _cli(self, *args: str) -> None:
        proc = subprocess.run([spielleiter_exe(), *args, "--config", str(self.conf)], cwd=self.tmp,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, (args, proc.stdout + proc.stderr)

    def start_service(self) -> None:
        log = self.tmp / f"run-{len(self.logs)}.log"
        self.logs.append(log)
        self.proc = subprocess.Popen([spielleiter_exe(), "run", "--config", str(self.conf)], cwd=self.tmp,
                                     stdout=open(log, "w"), stderr=subprocess.STDOUT)

    def kill_service(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def deliver(self, n: int) -> None:
        for _ in range(n):
            self.sent += 1
            _, addr = PLAYERS[self.sent % len(PLAYERS)]
            partie = "R1" if self.sent % 2 else "R2"
            self.dovecot.append(player_mail(addr, f"Partie {partie}: ZUG{self.sent}\n",
                                            subject=f"{LEAGUE} Zug {self.sent}"), user=self.user)

    def _db(self) -> Database:
        return Database(self.db_url)

    def _in_db(self, work, default=None):
        """``work(session)`` on a fresh connection, or ``default`` while (or when) the
        database is down."""
        if self.db_down:
            return default
        db = self._db()
        try:
            with db.session() as s:
                return work(s)
        except Exception:
            return default  # the database went down meanwhile
        finally:
            db.dispose()

    def move_zat(self) -> None:
        """The GM moves the open round's ZAT a few seconds ahead (skipped while the
        database is down)."""
        def move(s):
            rnd = s.scalar(select(Round).where(Round.status == "open"))
            now = datetime.now(timezone.utc)
            if rnd is not None and rnd.zat > now + timedelta(seconds=ZAT_STEP * 2):
                rnd.zat = now + timedelta(seconds=ZAT_STEP)
        self._in_db(move)

    def rounds_done(self) -> int:
        """How many rounds are adjudicated so far (0 while the database is down)."""
        return self._in_db(lambda s: len(s.scalars(select(Round).where(Round.status == "adjudicated")).all()), 0)

    def _tick(self) -> None:
        """One step of the players and the GM: the ZAT moved ahead, maybe a burst of mail."""
        self.move_zat()
        if self.rng.random() < 0.6:
            self.deliver(self.rng.randint(1, 8))

    # -- the run --------------------------------------------------------------------------
    def play(self, seconds: float, min_rounds: int = 0) -> Figures:
        """Mail bursts and faults for ``seconds``; then every server up and the service
        running. With ``min_rounds``, mail and ZATs (no more faults) go on after that until
        so many rounds are adjudicated (at most 4 x ``seconds`` more): a loaded machine
        adjudicates slower, and the run's checks need rounds, not a speed. Returns the
        figures so far."""
        kinds = ["service", "imap", "smtp"] + (["database"] if self.pg else [])
        # every kind at least once, then one fault about every 4 s, at seeded moments
        plan = sorted([(self.rng.uniform(0.05, 0.75) * seconds, k) for k in kinds]
                      + [(self.rng.uniform(0, seconds), self.rng.choice(kinds)) for _ in range(int(seconds / 4))])
        t0 = time.monotonic()
        self.start_service()
        down: dict[str, float] = {}  # what is down until when
        while time.monotonic() - t0 < seconds:
            now = time.monotonic()
            self._tick()
            for what, until in list(down.items()):
                if now >= until:
                    self._up(what)
                    del down[what]
            while plan and plan[0][0] <= now - t0:
                _, what = plan.pop(0)
                if what not in down:
                    self.figures.faults[what] += 1
                    self._down(what)
                    down[what] = now + self.rng.uniform(0.5, 4.0)
            time.sleep(self.rng.uniform(0.3, 1.0))
        for what in list(down):
            self._up(what)
        while self.rounds_done() < min_rounds and time.monotonic() - t0 < 5 * seconds:
            self._tick()
            time.sleep(self.rng.uniform(0.3, 1.0))
        self.figures.seconds = time.monotonic() - t0
        self.figures.mails = self.sent
        return self.figures

    def _down(self, what: str) -> None:
        if what == "service":
            self.kill_service()
        elif what == "imap":
            self.imap.down()
        elif what == "smtp":
            self.smtp.stop()
        else:
            self.db_down = True
            self.pg.stop("immediate")

    def _up(self, what: str) -> None:
        if what == "service":
            self.start_service()
        elif what == "imap":
            self.imap.up()
        elif what == "smtp":
            self.smtp.start()
        else:
            self.pg.start()
            self.db_down = False

    def settle(self, timeout: float = 120.0) -> None:
        """Wait until the service has caught up: every mail stored and read, the inbox
        empty, every due round adjudicated, the outbox empty, all seen in one snapshot of
        the database (:meth:`_state`); then stop it (SIGTERM). Nothing is left for it to
        do then, so nothing is queued after it: :meth:`check` finds every mail sent."""
        t0 = time.monotonic()
        last = None
        while time.monotonic() - t0 < timeout:
            state = self._state()
            if state == ("done",):
                break
            last = state
            time.sleep(0.5)
        else:
            raise AssertionError(f"the service did not catch up in {timeout:.0f} s: {last}\n{self.log_tail()}")
        self.figures.catch_up = time.monotonic() - t0
        self.settled_at = datetime.now(timezone.utc)
        self.proc.send_signal(signal.SIGTERM)
        self.stopped_at = datetime.now(timezone.utc)
        assert self.proc.wait(timeout=60) == 0, self.log_tail()
        self.imap.down()
        self.smtp.stop()

    def _state(self):
        """``("done",)`` when the service has caught up, else what it still has to do. The
        database is read in ONE statement, one snapshot (SQLite and PostgreSQL alike):
        counted one after another, a round adjudicated between the outbox count and the
        round count passed for done with its Auswertungen still queued."""
        inbox = len(self.dovecot.fetch_all(user=self.user))  # a mail leaves it once stored
        now = datetime.now(timezone.utc)

        def count(model, *where):
            return select(_count()).select_from(model).where(*where).scalar_subquery()
        db = self._db()
        try:
            with db.session() as s:
                stored, unread, waiting, due = s.execute(select(
                    count(InboundMail),
                    count(InboundMail, InboundMail.status == "stored"),
                    count(OutboxMail, OutboxMail.status.in_(["pending", "failed"])),
                    # a ZAT the GM moved a few seconds ahead must pass and run first
                    count(Round, Round.status == "open", Round.zat <= now + timedelta(seconds=3 * ZAT_STEP)),
                )).one()
        finally:
            db.dispose()
        if inbox == 0 and stored == self.sent and unread == 0 and waiting == 0 and due == 0:
            return ("done",)
        return dict(inbox=inbox, stored=stored, sent=self.sent, unread=unread, waiting=waiting, due=due)

    def tracebacks(self) -> str:
        """Every traceback in the service's logs with the line before it."""
        out = []
        for path in self.logs:
            lines = path.read_text(errors="replace").splitlines()
            for i, ln in enumerate(lines):
                if ln.startswith("Traceback"):
                    end = next((j for j in range(i + 1, len(lines)) if not lines[j].startswith((" ", "Traceback"))),
                               len(lines) - 1)
                    out.append("\n".join(lines[max(0, i - 1):end + 1]))
        return "\n\n".join(out)

    def log_tail(self, lines: int = 60) -> str:
        text = "".join(p.read_text(errors="replace") for p in self.logs)
        return "\n".join(text.splitlines()[-lines:])

    # -- the invariants ----------------------------------------------------------------
    def check(self) -> Figures:
        f = self.figures
        db = self._db()
        try:
            with db.session() as s:
                mails = s.scalars(select(InboundMail)).all()
                outbox = s.scalars(select(OutboxMail)).all()
                rounds = s.scalars(select(Round)).all()
                adjs = s.execute(select(Adjudication.partie_id, Adjudication.round_number)).all()
                subs = s.execute(select(Submission.mail_id, Submission.round_number)).all()
        finally:
            db.dispose()
        # every mail stored once and read
        assert len(mails) == self.sent, (len(mails), self.sent)
        assert len({m.sha256 for m in mails}) == len(mails)
        assert Counter(m.status for m in mails) == Counter({"processed": self.sent}), \
            Counter((m.status, (m.parse or {}).get("reason")) for m in mails)
        assert self.dovecot.fetch_all(user=self.user) == []
        # one answer per answerable mail, delivered (a resend keeps its Message-ID)
        delivered = defaultdict(int)
        for msg in self.smtp.messages:
            delivered[email.message_from_bytes(msg.raw, policy=email.policy.compat32)["Message-ID"]] += 1
        acks = Counter(r.key for r in outbox if r.kind == "ack")
        assert set(acks) == {f"ack:{m.id}" for m in mails} and max(acks.values()) == 1
        unsent = [r for r in outbox if r.status not in ("sent", "suppressed")]
        assert not unsent, self._unsent(unsent, outbox)
        missing = [r.key for r in outbox if r.status == "sent" and not delivered.get(r.message_id)]
        assert not missing, missing[:5]
        # every mail counted for a round (none answered as late), once
        assert Counter(mid for mid, _ in subs) == Counter({m.id: 1 for m in mails})
        # every round whose ZAT passed adjudicated once; one Auswertung per player and round
        done = [r for r in rounds if r.status == "adjudicated"]
        assert all(r.zat > datetime.now(timezone.utc) for r in rounds if r.status == "open")
        assert len(adjs) == len(set(adjs)) == 2 * len(done)
        auswertungen = Counter((r.to_addr, r.round_number) for r in outbox if r.kind == "auswertung")
        want = {(a, r.number) for r in done for a in [p[1] for p in PLAYERS] + ["gm@example.org"]}
        assert set(auswertungen) == want and set(auswertungen.values()) == {1} if want else True
        for r in outbox:
            if r.kind == "auswertung":
                assert delivered.get(r.message_id, 0) >= 1, r.key
        text = "".join(p.read_text(errors="replace") for p in self.logs)
        f.rounds, f.auswertungen = len(done), sum(auswertungen.values())
        f.acks, f.resent = sum(acks.values()), sum(n - 1 for n in delivered.values() if n > 1)
        f.log_lines, f.tracebacks = len(text.splitlines()), text.count("Traceback")
        return f

    def _unsent(self, unsent: list, outbox: list) -> str:
        """What a failed "every mail sent" says: the statuses, each unsent row (kind, key,
        recipient, created time against settle's end and its SIGTERM, attempts, error) and
        the end of the service's log."""
        def at(t):
            if t is None:
                return "-"
            t = t if t.tzinfo else t.replace(tzinfo=timezone.utc)
            return t.isoformat(timespec="milliseconds")
        rows = [f"  {r.status} {r.kind} {r.key} an {r.to_addr}: created {at(r.created_at)}, attempts {r.attempts}, "
                f"next {at(r.next_attempt_at)}, claimed {r.claimed_by}, error {r.last_error!r}" for r in unsent]
        return "\n".join([f"{Counter(r.status for r in outbox)}; settle saw done at {at(self.settled_at)}, "
                           f"SIGTERM at {at(self.stopped_at)}; unsent:", *rows, self.log_tail(40)])


def _count():
    from sqlalchemy import func
    return func.count()

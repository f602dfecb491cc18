"""Benchmark of mail intake: ``spielleiter poll`` on N realistic mails of P players.

Run: ``python bench/ingest.py [--mails N] [--players P] [--no-imap] [--no-cli] [--profile FILE]
[--read-workers N]`` (defaults: 2000 mails, 200 players, ``[bot] read_workers`` as
configured by default: the number of CPUs). Prints ``name: value unit`` lines; asserts
nothing.

The mails (``bench/leaguegen.py``): plain, HTML and quoted-reply submissions for a Rondo
league of P players and 3 Partien, each with the main move and one Ersatzzug per
Partie, P mails per "wave" (so from the second wave on each mail replaces the sender's
earlier submission, as when players correct themselves).

Measured in one run, on the same mails:

- ``parse_baseline``: the bare minimum any reader has to do: ``email.message_from_bytes``
  (``policy.default``) and the body extraction (``get_body(("plain", "html")).get_content()``);
- ``maildir_*``: ``spielleiter poll`` through the Maildir transport (the embedded
  default): ``store_pass`` is the transport's pass (every mail stored raw, a batch per
  transaction, made durable, moved to ``processed``), ``ingest`` that plus reading every
  stored mail (one transaction each: submission recorded, acknowledgement rendered into
  the outbox; the MIME front of reading done ahead in ``read_workers`` worker processes,
  ``bot.service.stages.readpool``), ``poll`` also the acknowledgements delivered into the
  Maildir outbox; ``maildir_ingest_cpu_per_mail`` is the CPU time of the main process,
  ``maildir_ingest_workers_cpu_per_mail`` that of the workers (start-up included);
- ``imap_*`` (unless ``--no-imap``, skipped without Dovecot): the same mails APPENDed to
  a real Dovecot started as ``tests/mailservers.py`` does; ``imap_fetch_baseline`` is a
  raw imapclient ``FETCH BODY.PEEK[]`` of all of them in one command,
  ``imap_fetch_each_baseline`` one such FETCH per mail, both on one connection;
  ``imap_store_pass`` the IMAP transport's pass, the stage "mail in -> stored raw"
  (connect, EXAMINE, fetch in batches, store raw, make durable, advance the poll state;
  the best of 3 passes into fresh databases, as the FETCH baseline is the best of 3; its
  ratio to the one-command FETCH is ``imap_store_pass_ratio_to_fetch``, the issue's 50 %
  target); then a whole ``spielleiter poll`` with a fresh database:
  ``imap_store_pass_in_ingest`` its pass, ``imap_ingest`` that plus reading and
  acknowledging every mail, ``imap_tidy`` moving the stored mails to the processed folder
  afterwards (``ImapInbox.tidy``); ``imap_smtp_deliver`` the acknowledgements sent to a
  real aiosmtpd (one connection per mail, as ``bot/mail/smtp.py`` sends).

- ``cli_ingest_*`` (unless ``--no-cli``): ``spielleiter ingest`` of the same mails
  (:func:`bot.service.operations.ingest.ingest`, as the command runs it after loading
  the files: stored a batch at a time, read, acknowledged, reported) into a fresh
  league; ``cli_ingest_cpu_per_mail`` the CPU time of this process,
  ``cli_ingest_workers_cpu_per_mail`` that of the reading workers (start-up included);
  ``cli_ingest_ratio_to_parse`` its speed as a fraction of the parse baseline's (wall),
  ``cli_ingest_cpu_ratio_to_parse`` the parse baseline's CPU time over this process's,
  ``cli_ingest_total_cpu_ratio_to_parse`` over that of this process and the workers
  (issue 35: at least 0.35);
- ``load_average``: the machine's 1-minute load average before and after the run
  (the machine is shared: wall times depend on it, CPU times less).

Every mail is read; the default answer cap (``[bot] rate_limit_per_hour``: 20 answers per
hour and address) applies when the run sends at most 20 mails per player (the mails are
dated within one hour), else none, so every mail is answered at once. Wall times, and the CPU time of this process for the parse baseline and the ingest
(less dependent on other load on the machine). SQLite (the embedded default).
``--profile FILE`` writes a cProfile of the Maildir poll and prints its top functions to
stderr; SQL statements are counted per mail always.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import email
import email.policy
import pstats
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (ROOT, HERE):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from leaguegen import db_bytes, emit, make_league, make_mails  # noqa: E402


def count_sql(engine) -> list[int]:
    """A one-element list counting the statements ``engine`` executes from now on."""
    from sqlalchemy import event

    box = [0]

    @event.listens_for(engine, "before_cursor_execute")
    def _count(*_a, **_k):  # pragma: no cover - trivial
        box[0] += 1
    return box


def parse_baseline(mails: list[bytes]) -> tuple[float, float]:
    """Seconds (wall, CPU) for ``message_from_bytes`` + body extraction of every mail
    (best of 3)."""
    best = best_cpu = float("inf")
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        for raw in mails:
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            part = msg.get_body(preferencelist=("plain", "html"))
            part.get_content() if part is not None else ""
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best, best_cpu


def check_processed(db, n: int) -> None:
    """Every mail stored and read as a submission (else the figures mean nothing)."""
    from sqlalchemy import func, select

    from bot.storage.models import InboundMail, OutboxMail

    with db.session() as s:
        done = s.scalar(select(func.count()).select_from(InboundMail).where(InboundMail.status == "processed"))
        acks = s.scalar(select(func.count()).select_from(OutboxMail).where(OutboxMail.kind == "ack"))
        bad = s.execute(select(InboundMail.status, InboundMail.error).where(InboundMail.status != "processed")
                        .limit(3)).all()
    if done != n or acks != n:
        raise SystemExit(f"only {done} of {n} mails processed, {acks} acknowledgements; e.g. {bad}")


class _Timed:
    """A transport whose ``poll`` (the transport's pass: fetch, store raw, durable; Maildir:
    also moved) and ``tidy`` (IMAP: the stored mails moved on the server) are timed."""

    def __init__(self, poller):
        self.poller, self.seconds, self.cpu, self.tidy_seconds = poller, 0.0, 0.0, 0.0
        self.source = getattr(poller, "source", "maildir")
        if hasattr(poller, "tidy"):
            self.tidy = self._tidy

    def _tidy(self, state):
        t0 = time.perf_counter()
        try:
            return self.poller.tidy(state)
        finally:
            self.tidy_seconds += time.perf_counter() - t0

    def poll(self, store, state):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return self.poller.poll(store, state)
        finally:
            self.seconds += time.perf_counter() - t0
            self.cpu += time.process_time() - c0


def _poll(db, cfg):
    """``poll_inbox`` (read what is stored, the transport's pass, read what it stored, tidy
    the server's folder) and ``send_outbox``, as ``spielleiter poll`` runs them; returns
    (mails, transport pass s, ingest s, delivery s, sent, ingest CPU s of this process,
    tidy s)."""
    from bot.service.operations import runner

    poller, _ = runner.transports(cfg)
    timed = _Timed(poller)
    real = runner.transports
    runner.transports = lambda c: (timed, real(c)[1])
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        n = runner.poll_inbox(db, cfg)
        t1, c1 = time.perf_counter(), time.process_time()
    finally:
        runner.transports = real
    sent = runner.send_outbox(db, cfg)
    t2 = time.perf_counter()
    return n, timed.seconds, t1 - t0, t2 - t1, sent.sent, c1 - c0, timed.tidy_seconds


def store_pass_best(inbox, expected: int, players: int, work: Path, rounds: int = 3) -> float:
    """Seconds of the IMAP transport's pass alone (``ImapInbox.poll``: fetch, store raw,
    durable, poll state advanced), the best of ``rounds`` passes over the same folder,
    each into a fresh database with a fresh poll state (the pass leaves the folder as it
    is): measured like the FETCH baseline, which is the best of 3 too. Each pass must
    store all ``expected`` mails."""
    from bot.mail.transport import MemoryPollState
    from bot.service.stages.store import make_store

    best = float("inf")
    for k in range(rounds):
        db, cfg = make_league(work / f"pass{k}", players)
        try:
            store = make_store(db, cfg, inbox.source)
            t0 = time.perf_counter()
            n = inbox.poll(store, MemoryPollState())
            best = min(best, time.perf_counter() - t0)
            assert n == expected, (n, expected)
        finally:
            db.dispose()
    return best


def bench_maildir(mails: list[bytes], players: int, work: Path, profile: str | None,
                  workers: int | None = None) -> tuple[float, float, float]:
    """The Maildir poll; returns (mails/s, CPU s a mail of this process, of the workers)."""
    from bot.mail.maildir import MaildirTransport

    db, cfg = make_league(work / "maildir", players, rate_limit=_rate_limit(len(mails), players))
    if workers is not None:
        cfg.read_workers = workers
    emit("read_workers", cfg.read_workers, "processes")
    md = MaildirTransport(cfg.maildir)
    for raw in mails:
        md.deliver_to_inbox(raw)
    size0 = db_bytes(cfg)
    sql = count_sql(db.engine)
    prof = cProfile.Profile() if profile else None
    children = _children_cpu()
    if prof:
        prof.enable()
    n, t_pass, t_ingest, t_deliver, sent, cpu, _ = _poll(db, cfg)
    if prof:
        prof.disable()
        prof.dump_stats(profile)
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
    from bot.service.stages import readpool
    readpool._shutdown_all()  # the workers end: their CPU time is counted
    workers_cpu = _children_cpu() - children
    statements = sql[0]
    check_processed(db, len(mails))
    assert n == len(mails) and sent == len(mails), (n, sent)
    emit("maildir_ingest", n / t_ingest, "mails/s")
    emit("maildir_ingest_per_mail", 1000 * t_ingest / n, "ms")
    emit("maildir_ingest_cpu_per_mail", 1000 * cpu / n, "ms")
    emit("maildir_ingest_workers_cpu_per_mail", 1000 * workers_cpu / n, "ms")
    emit("maildir_store_pass", n / t_pass, "mails/s")
    emit("maildir_deliver", sent / t_deliver, "mails/s")
    emit("maildir_poll", n / (t_ingest + t_deliver), "mails/s")
    emit("maildir_poll_total", t_ingest + t_deliver, "s")
    emit("maildir_sql_per_mail", statements / n, "statements")
    emit("maildir_db_growth_per_mail", (db_bytes(cfg) - size0) / n / 1024, "KiB")
    db.dispose()
    return n / t_ingest, cpu / n, workers_cpu / n


def bench_cli(mails: list[bytes], players: int, work: Path, parse_rate: float, parse_cpu: float,
              workers: int | None = None, profile: str | None = None) -> None:
    """``spielleiter ingest`` of ``mails`` into a fresh league (as ``cmd_ingest`` runs it
    once the files are read): wall and CPU time of this process and of the reading
    workers, against the parse baseline (``parse_cpu``: its CPU seconds a mail)."""
    from bot.service.operations.ingest import ingest
    from bot.service.stages import readpool

    db, cfg = make_league(work / "cli", players, rate_limit=_rate_limit(len(mails), players))
    if workers is not None:
        cfg.read_workers = workers
    readpool._shutdown_all()
    children = _children_cpu()
    prof = cProfile.Profile() if profile else None
    t0, c0 = time.perf_counter(), time.process_time()
    if prof:
        prof.enable()
    reports = ingest(db, cfg, [(f"{i}.eml", raw) for i, raw in enumerate(mails)])
    if prof:
        prof.disable()
    t, cpu = time.perf_counter() - t0, time.process_time() - c0
    readpool._shutdown_all()  # the workers end: their CPU time is counted
    workers_cpu = _children_cpu() - children
    if prof:
        prof.dump_stats(profile)
        st = pstats.Stats(prof, stream=sys.stderr)
        st.sort_stats("cumulative").print_stats(40)
        st.sort_stats("tottime").print_stats(30)
    check_processed(db, len(mails))
    assert len(reports) == len(mails) and all(r["replies"] for r in reports), "every mail answered"
    n = len(mails)
    emit("cli_ingest", n / t, "mails/s")
    emit("cli_ingest_cpu_per_mail", 1000 * cpu / n, "ms")
    emit("cli_ingest_workers_cpu_per_mail", 1000 * workers_cpu / n, "ms")
    emit("cli_ingest_ratio_to_parse", n / t / parse_rate, "x")
    emit("cli_ingest_cpu_ratio_to_parse", parse_cpu * n / cpu, "x")
    emit("cli_ingest_total_cpu_ratio_to_parse", parse_cpu * n / (cpu + workers_cpu), "x")
    db.dispose()


def bench_imap(mails: list[bytes], players: int, work: Path, parse_rate: float, workers: int | None = None) -> None:
    try:
        from tests.mailservers import SmtpServer, _dovecot_binary, _start_dovecot, _stop, free_port
    except ImportError as exc:  # pytest missing: scripts/setup --test
        print(f"# imap skipped: {exc}", file=sys.stderr)
        return
    binary = _dovecot_binary()
    if binary is None:
        print("# imap skipped: dovecot is not installed (scripts/setup --test)", file=sys.stderr)
        return
    from aiosmtpd.controller import Controller

    base = Path(tempfile.mkdtemp(prefix="spielleiter-bench-dovecot-"))
    server = _start_dovecot(binary, base)
    smtp = SmtpServer("127.0.0.1", free_port())
    controller = Controller(smtp, hostname=smtp.host, port=smtp.port, decode_data=False)
    controller.start()
    try:
        user = server.fresh_user()
        client = server.client(user)
        try:
            for raw in mails:
                client.append("INBOX", raw)
            # the raw FETCH baseline: every mail of the same folder, one connection
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                client.select_folder("INBOX", readonly=True)
                uids = client.search(["ALL"])
                data = client.fetch(uids, ["BODY.PEEK[]"])
                best = min(best, time.perf_counter() - t0)
                assert len(data) == len(mails)
            # and one FETCH per mail, as a simple client (and the poller before batching) does
            client.select_folder("INBOX", readonly=True)
            t0 = time.perf_counter()
            for uid in uids:
                client.fetch([uid], ["BODY.PEEK[]"])
            each = time.perf_counter() - t0
            client.unselect_folder()
        finally:
            client.logout()
        fetch_rate = len(mails) / best
        each_rate = len(mails) / each
        emit("imap_fetch_baseline", fetch_rate, "mails/s")
        emit("imap_fetch_each_baseline", each_rate, "mails/s")

        from bot.mail.imap import ImapInbox
        t_best = store_pass_best(ImapInbox(server.host, server.port, user, server.password, tls=False),
                                 len(mails), players, work)
        emit("imap_store_pass", len(mails) / t_best, "mails/s")
        emit("imap_store_pass_ratio_to_fetch", len(mails) / t_best / fetch_rate, "x")
        emit("imap_store_pass_ratio_to_fetch_each", len(mails) / t_best / each_rate, "x")

        db, cfg = make_league(work / "imap", players, rate_limit=_rate_limit(len(mails), players))
        cfg.imap = {"host": server.host, "port": server.port, "user": user, "password": server.password,
                    "tls": False}
        # the local aiosmtpd is no provider: no send limits ([smtp] max_per_*, issue 27)
        cfg.smtp = {"host": smtp.host, "port": smtp.port, "tls": False, "max_per_minute": 0, "max_per_hour": 0,
                    "max_per_day": 0}
        if workers is not None:
            cfg.read_workers = workers
        n, t_pass, t_ingest, t_deliver, sent, cpu, t_tidy = _poll(db, cfg)
        check_processed(db, len(mails))
        assert n == len(mails) and sent == len(mails), (n, sent)
        emit("imap_store_pass_in_ingest", n / t_pass, "mails/s")
        emit("imap_tidy", 1000 * t_tidy, "ms")
        emit("imap_ingest", n / t_ingest, "mails/s")
        emit("imap_ingest_cpu_per_mail", 1000 * cpu / n, "ms")
        emit("imap_ingest_ratio_to_fetch", n / t_ingest / fetch_rate, "x")
        emit("imap_ingest_ratio_to_parse", n / t_ingest / parse_rate, "x")
        emit("imap_smtp_deliver", sent / t_deliver, "mails/s")
        emit("imap_poll", n / (t_ingest + t_deliver), "mails/s")
        db.dispose()
    finally:
        controller.stop()
        _stop(server.process)
        shutil.rmtree(base, ignore_errors=True)


def _children_cpu() -> float:
    """CPU seconds of the ended child processes (the reading workers once shut down)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _rate_limit(mails: int, players: int) -> int:
    """The default cap of 20 answers per hour and address, unless the run sends more per
    player (the mails are dated within one hour); then none, so every mail is answered."""
    return 20 if mails <= 20 * players else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mails", type=int, default=2000)
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--no-imap", action="store_true")
    ap.add_argument("--no-cli", action="store_true", help="skip spielleiter ingest")
    ap.add_argument("--no-poll", action="store_true", help="skip the Maildir poll")
    ap.add_argument("--profile", metavar="FILE", help="cProfile of the Maildir poll")
    ap.add_argument("--profile-cli", metavar="FILE", help="cProfile of spielleiter ingest")
    ap.add_argument("--read-workers", type=int, metavar="N",
                    help="[bot] read_workers (default: the config's default, the number of CPUs; 1: off)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="spielleiter-bench-ingest-"))
    try:
        db, cfg = make_league(work / "gen", args.players)
        mails = make_mails(db, cfg, args.players, args.mails)
        db.dispose()
        emit("mails", len(mails), "mails")
        emit("players", args.players, "players")
        emit("mail_size_mean", sum(map(len, mails)) / len(mails), "bytes")
        emit("load_average", os.getloadavg()[0], "(1 min, before)")
        t, cpu = parse_baseline(mails)
        parse_rate = len(mails) / t
        emit("parse_baseline", parse_rate, "mails/s")
        emit("parse_baseline_cpu_per_mail", 1000 * cpu / len(mails), "ms")
        if not args.no_cli:
            bench_cli(mails, args.players, work, parse_rate, cpu / len(mails), args.read_workers, args.profile_cli)
        if not args.no_poll:
            rate, main_cpu, workers_cpu = bench_maildir(mails, args.players, work, args.profile, args.read_workers)
            emit("maildir_ingest_ratio_to_parse", rate / parse_rate, "x")
            emit("maildir_ingest_cpu_ratio_to_parse", cpu / len(mails) / main_cpu, "x")
            emit("maildir_ingest_total_cpu_ratio_to_parse", cpu / len(mails) / (main_cpu + workers_cpu), "x")
        if not args.no_imap:
            bench_imap(mails, args.players, work, parse_rate, args.read_workers)
        emit("peak_rss", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "MiB")
        emit("load_average", os.getloadavg()[0], "(1 min, after)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

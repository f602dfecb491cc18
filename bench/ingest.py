"""Benchmark of mail intake: ``spielleiter poll`` on N realistic mails of P players.

Run: ``python bench/ingest.py [--mails N] [--players P] [--no-imap] [--no-cli] [--no-poll]
[--passes K] [--profile FILE] [--profile-cli FILE] [--read-workers N]`` (defaults: 2000
mails, 200 players, 3 passes, ``[bot] read_workers`` as configured by default: the
number of CPUs). Prints ``name: value unit`` lines; asserts
nothing.

The mails (``bench/leaguegen.py``): plain, HTML and quoted-reply submissions for a Rondo
league of P players and 3 Partien, each with the main move and one Ersatzzug per
Partie, P mails per "wave" (so from the second wave on each mail replaces the sender's
earlier submission, as when players correct themselves).

Measured in one run, on the same mails:

- ``parse_baseline``: the bare minimum any reader has to do: the standard library alone,
  ``email.message_from_bytes`` (``policy.default``) and the body extraction
  (``get_body(("plain", "html")).get_content()``) of every mail;
- ``maildir_*``: ``spielleiter poll`` through the Maildir transport (the embedded
  default): ``store_pass`` is the transport's pass (every mail stored raw, a batch per
  transaction, made durable, moved to ``processed``), ``ingest`` that plus reading every
  stored mail (one transaction each: submission recorded, acknowledgement rendered into
  the outbox; the MIME front of reading done ahead in ``read_workers`` worker processes,
  ``bot.service.stages.readpool``), ``poll`` also the acknowledgements delivered into the
  Maildir outbox; ``maildir_ingest_cpu_per_mail`` is the CPU time of the main process,
  ``maildir_ingest_workers_cpu_per_mail`` that of the workers (start-up included);
- ``imap_*`` (unless ``--no-imap``, skipped without Dovecot): the same mails APPENDed to
  a real Dovecot started as ``tests/dovecotserver.py`` does; ``imap_fetch_baseline`` is a
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
  ``cli_ingest_workers_cpu_per_mail`` that of the reading workers (started afresh for
  each pass, start-up included);
  ``cli_ingest_ratio_to_parse`` its speed as a fraction of the parse baseline's (wall),
  ``cli_ingest_cpu_ratio_to_parse`` the parse baseline's CPU time over this process's
  (issue 35: at least 0.35), ``cli_ingest_total_cpu_ratio_to_parse`` over that of this
  process and the workers;
- ``load_average``: the machine's 1-minute load average before and after the run, and
  before each pass of the comparison (the machine is shared: wall times depend on it,
  CPU times less).

How the command and the baseline are compared (both measured alike, in this process, on
the same mails): ``--passes K`` (default 3) pairs of one parse pass and one ingest pass
(a fresh league each), alternating which of the two goes first (the first pair parses
first), a full garbage collection before every pass of either side; each side's figure
is the median of its K passes (``pass<k>_*`` lines give every pass,
``*_cpu_per_mail_min`` the minimum of each side, ``cli_ingest_cpu_ratio_to_parse_min``
the ratio of the minima), the ratios those of the medians. The command's first pass
in a process also pays what a process does once (the grammars, the templates compiled);
the median of three leaves that pass out when the others are steady. With ``--no-cli``
the baseline alone: the median of K passes.

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
import gc
import os
import statistics
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


def parse_pass(mails: list[bytes]) -> tuple[float, float]:
    """Seconds (wall, CPU of this process) of one pass of ``message_from_bytes`` + body
    extraction over every mail (the parse baseline), after a full garbage collection (as
    before each ingest pass: :func:`measured`)."""
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    for raw in mails:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        part = msg.get_body(preferencelist=("plain", "html"))
        part.get_content() if part is not None else ""
    return time.perf_counter() - t0, time.process_time() - c0


def parse_baseline(mails: list[bytes], passes: int = 3) -> tuple[float, float]:
    """Seconds (wall, CPU) of the parse baseline: the median of ``passes`` passes
    (:func:`parse_pass`), each figure on its own."""
    runs = [parse_pass(mails) for _ in range(passes)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


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


def cli_pass(mails: list[bytes], players: int, work: Path, workers: int | None = None,
             profile: str | None = None) -> tuple[float, float, float]:
    """One pass of ``spielleiter ingest`` of ``mails`` into a fresh league (as ``cmd_ingest``
    runs it once the files are read), after a full garbage collection (as before each
    parse pass); returns seconds (wall, CPU of this process, CPU of the reading workers,
    their start-up included: they are started afresh for each pass). Checks that every
    mail was read and answered."""
    from bot.service.operations.ingest import ingest
    from bot.service.stages import readpool

    db, cfg = make_league(work, players, rate_limit=_rate_limit(len(mails), players))
    if workers is not None:
        cfg.read_workers = workers
    readpool._shutdown_all()
    children = _children_cpu()
    prof = cProfile.Profile() if profile else None
    gc.collect()
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
    db.dispose()
    return t, cpu, workers_cpu


def bench_cli(mails: list[bytes], players: int, work: Path, passes: int = 3, workers: int | None = None,
              profile: str | None = None) -> tuple[float, float]:
    """``spielleiter ingest`` against the parse baseline, measured alike: ``passes`` pairs
    of one parse pass (:func:`parse_pass`) and one ingest pass (:func:`cli_pass`, each into
    a fresh league), alternating which of the two goes first (the first pair parses
    first), the load printed before each pair; each figure is the median of its passes
    (the minimum printed beside it), the ratios those of the medians (and of the minima).
    Returns the parse baseline's median (wall, CPU) seconds."""
    n = len(mails)
    parse: list[tuple[float, float]] = []
    cli: list[tuple[float, float, float]] = []
    for k in range(passes):
        emit(f"load_average_pass{k + 1}", os.getloadavg()[0], "(1 min)")
        first_parse = k % 2 == 0
        if first_parse:
            parse.append(parse_pass(mails))
        cli.append(cli_pass(mails, players, work / f"cli{k}", workers, profile if k == 0 else None))
        if not first_parse:
            parse.append(parse_pass(mails))
        emit(f"pass{k + 1}_parse_cpu_per_mail", 1000 * parse[-1][1] / n, "ms")
        emit(f"pass{k + 1}_cli_ingest_cpu_per_mail", 1000 * cli[-1][1] / n, "ms")
    med = statistics.median
    p_wall, p_cpu = med(w for w, _ in parse), med(c for _, c in parse)
    c_wall, c_cpu, c_workers = med(x[0] for x in cli), med(x[1] for x in cli), med(x[2] for x in cli)
    emit("parse_baseline", n / p_wall, "mails/s")
    emit("parse_baseline_cpu_per_mail", 1000 * p_cpu / n, "ms")
    emit("parse_baseline_cpu_per_mail_min", 1000 * min(c for _, c in parse) / n, "ms")
    emit("cli_ingest", n / c_wall, "mails/s")
    emit("cli_ingest_cpu_per_mail", 1000 * c_cpu / n, "ms")
    emit("cli_ingest_cpu_per_mail_min", 1000 * min(x[1] for x in cli) / n, "ms")
    emit("cli_ingest_workers_cpu_per_mail", 1000 * c_workers / n, "ms")
    emit("cli_ingest_ratio_to_parse", p_wall / c_wall, "x")
    emit("cli_ingest_cpu_ratio_to_parse", p_cpu / c_cpu, "x")
    emit("cli_ingest_cpu_ratio_to_parse_min", min(c for _, c in parse) / min(x[1] for x in cli), "x")
    emit("cli_ingest_total_cpu_ratio_to_parse", p_cpu / med(x[1] + x[2] for x in cli), "x")
    return p_wall, p_cpu


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
    ap.add_argument("--profile-cli", metavar="FILE", help="cProfile of spielleiter ingest (its first pass)")
    ap.add_argument("--passes", type=int, default=3,
                    help="passes of the parse baseline and of spielleiter ingest each, alternating (median)")
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
        if not args.no_cli:
            t, cpu = bench_cli(mails, args.players, work, args.passes, args.read_workers, args.profile_cli)
        else:
            t, cpu = parse_baseline(mails, args.passes)
            emit("parse_baseline", len(mails) / t, "mails/s")
            emit("parse_baseline_cpu_per_mail", 1000 * cpu / len(mails), "ms")
        parse_rate = len(mails) / t
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

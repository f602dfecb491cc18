"""The long chaos run (issue 26): ``spielleiter run`` against a real Dovecot, aiosmtpd
and SQLite or PostgreSQL, while mails arrive in bursts and the service, the IMAP server,
the SMTP server and the database are killed and restarted at seeded random moments; then
the invariants of ``tests/chaos.py`` are checked and the figures printed.

Run (after ``scripts/setup --test``)::

    .venv/bin/python bench/chaos.py [--seconds 300] [--seeds 1 2 3] [--db sqlite postgresql]

Prints one line per run (``db seed: seconds, mails, faults, rounds, Auswertungen,
resent, catch-up, log lines, tracebacks``) and exits 1 when an invariant failed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.chaos import Chaos  # noqa: E402
from tests.mailservers import _dovecot_binary, _start_dovecot, _stop  # noqa: E402
from tests.pgserver import PgCluster, _bindir  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=300.0, help="seconds of faults per run (default 300)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    args = ap.parse_args(argv)
    binary = _dovecot_binary()
    if binary is None:
        print("dovecot fehlt: scripts/setup --test", file=sys.stderr)
        return 2
    base = Path(tempfile.mkdtemp(prefix="spielleiter-chaos-"))
    dovecot_base = Path(tempfile.mkdtemp(prefix="spielleiter-dovecot-"))  # as the tests' fixture makes it
    dovecot = _start_dovecot(binary, dovecot_base)
    failed = 0
    try:
        for db in args.db:
            for seed in args.seeds:
                tmp = base / f"{db}-{seed}"
                tmp.mkdir()
                pg = None
                if db == "postgresql":
                    pg = PgCluster(_bindir())
                    pg.start()
                try:
                    chaos = Chaos(tmp, dovecot, pg, seed=seed)
                    chaos.play(args.seconds)
                    chaos.settle(timeout=300)
                    f = chaos.check()
                    faults = " ".join(f"{k} {v}" for k, v in sorted(f.faults.items()))
                    print(f"{db} seed {seed}: {f.seconds:.0f} s, {f.mails} Mails, Störungen: {faults}; "
                          f"{f.rounds} Runden, {f.auswertungen} Auswertungen, {f.acks} Antworten, "
                          f"{f.resent} doppelt zugestellt (gleiche Message-ID), aufgeholt in {f.catch_up:.1f} s, "
                          f"{f.log_lines} Logzeilen, {f.tracebacks} Tracebacks: OK", flush=True)
                    if f.tracebacks:
                        print(chaos.tracebacks(), flush=True)
                except Exception:
                    failed += 1
                    print(f"{db} seed {seed}: FEHLER", flush=True)
                    traceback.print_exc()
                finally:
                    if pg is not None:
                        pg.remove()
    finally:
        _stop(dovecot.process)
        shutil.rmtree(dovecot_base, ignore_errors=True)
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of a round's adjudication: ``spielleiter adjudicate`` at P players x 3 Partien.

Run: ``python bench/adjudicate.py [--players 50,200,800] [--repeat N] [--profile FILE]``.
Prints ``name: value unit`` lines; asserts nothing.

For each P: a Rondo league of P players and 3 Partien (``bench/leaguegen.py``; SQLite, the
embedded default, with a GM address), one realistic mail per player with the main move
and two Ersatzzuege for every Partie, read by ``poll`` (not measured); then, in a fresh
process as ``spielleiter adjudicate NAME --now`` runs it, the round is adjudicated end to
end: the rules for every Partie, results and reports stored, the next round opened, every
player's Auswertung and the GM copy rendered and queued in the outbox, committed.
Measured there: the wall time and the CPU time of that process (best of ``--repeat``
runs, each on a fresh copy of the database; the CPU time depends less on what else runs
on the machine), ms per submission, the peak RSS of that process; then the Auswertungen as
queued (bytes of the whole MIME mail and of its text and HTML parts, the players' largest
and mean, the GM copy apart), and the database growth of the round (the adjudication
alone, and the whole round with its mails and acknowledgements).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (ROOT, HERE):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from leaguegen import LEAGUE, db_bytes, emit, make_league, make_mails  # noqa: E402


def child(work: Path, profile: str | None) -> None:
    """Adjudicate the league in ``work`` (a fresh process: RSS and imports as in the CLI)."""
    from bot.config import embedded
    from bot.service.stages.rounds import adjudicate_league
    from bot.storage.db import Database

    cfg = embedded(work)
    cfg.sender = "Spielleiter <spielleiter@liga.invalid>"
    db = Database(cfg.database_url)
    prof = None
    if profile:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    t0, c0 = time.perf_counter(), time.process_time()
    res = adjudicate_league(db, cfg, LEAGUE, force=True)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if prof:
        prof.disable()
        prof.dump_stats(profile)
    assert res is not None and res["round"] == 1, res
    print(json.dumps({"seconds": seconds, "cpu": cpu, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def auswertung_sizes(db) -> dict:
    """Bytes of the queued Auswertungen: whole mails, text and HTML parts; players and GM."""
    import email
    from email import policy

    from sqlalchemy import select

    from bot.storage.models import OutboxMail

    players, gm = [], None
    with db.session() as s:
        for to, raw in s.execute(select(OutboxMail.to_addr, OutboxMail.raw).where(OutboxMail.kind == "auswertung")):
            msg = email.message_from_bytes(raw, policy=policy.default)
            text = msg.get_body(("plain",)).get_content()
            html = msg.get_body(("html",)).get_content()
            row = {"raw": len(raw), "text": len(text.encode()), "html": len(html.encode()),
                   "width": max(len(ln) for ln in text.splitlines())}
            if to.startswith("gm@"):
                gm = row
            else:
                players.append(row)
    return {"players": players, "gm": gm}



def run(players: int, repeat: int, work: Path, profile: str | None) -> dict:
    base = work / f"p{players}"
    db, cfg = make_league(base, players)
    mails = make_mails(db, cfg, players, players, ersatz=2)
    from bot.mail.maildir import MaildirTransport
    from bot.service.operations.runner import poll_inbox, send_outbox

    size_start = db_bytes(cfg)
    md = MaildirTransport(cfg.maildir)
    for raw in mails:
        md.deliver_to_inbox(raw)
    poll_inbox(db, cfg)
    send_outbox(db, cfg)
    size_before = db_bytes(cfg)
    db.dispose()
    dbfile = Path(cfg.database_url[len("sqlite:///"):])
    pristine = dbfile.with_name("pristine.sqlite")
    shutil.copy(dbfile, pristine)
    best, best_cpu, rss = float("inf"), float("inf"), 0
    for i in range(repeat):
        shutil.copy(pristine, dbfile)
        for extra in (dbfile.with_name(dbfile.name + "-wal"), dbfile.with_name(dbfile.name + "-shm")):
            extra.unlink(missing_ok=True)
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(base)]
                             + (["--profile", profile] if profile and i == 0 else []),
                             capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0"))
        if out.returncode != 0:
            raise SystemExit(f"adjudication failed:\n{out.stderr}")
        res = json.loads(out.stdout.strip().splitlines()[-1])
        best = min(best, res["seconds"])
        best_cpu = min(best_cpu, res["cpu"])
        rss = max(rss, res["rss"])
    from bot.storage.db import Database

    db = Database(cfg.database_url)
    sizes = auswertung_sizes(db)
    size_after = db_bytes(cfg)
    db.dispose()
    subs = players * 3
    p = sizes["players"]
    return {"players": players, "seconds": best, "cpu": best_cpu, "ms_per_submission": 1000 * best / subs,
            "rss": rss, "raw_max": max(r["raw"] for r in p), "raw_mean": statistics.mean(r["raw"] for r in p),
            "parts_max": max(r["text"] + r["html"] for r in p), "text_max": max(r["text"] for r in p),
            "html_max": max(r["html"] for r in p), "width": max(r["width"] for r in p),
            "gm_raw": sizes["gm"]["raw"] if sizes["gm"] else 0,
            "growth_adjudication": size_after - size_before, "growth_round": size_after - size_start}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="50,200,800")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", metavar="FILE", help="cProfile of the first adjudication of each P")
    ap.add_argument("--child", metavar="WORK", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(Path(args.child), args.profile)
        return 0
    work = Path(tempfile.mkdtemp(prefix="spielleiter-bench-adjudicate-"))
    results = {}
    try:
        for n in (int(x) for x in args.players.split(",")):
            r = run(n, args.repeat, work, f"{args.profile}.{n}" if args.profile else None)
            results[n] = r
            pre = f"p{n}"
            emit(f"{pre}_adjudicate", r["seconds"], "s")
            emit(f"{pre}_adjudicate_cpu", r["cpu"], "s")
            emit(f"{pre}_ms_per_submission", r["ms_per_submission"], "ms")
            emit(f"{pre}_peak_rss", r["rss"] / 2**20, "MiB")
            emit(f"{pre}_auswertung_max", r["raw_max"], "bytes")
            emit(f"{pre}_auswertung_mean", r["raw_mean"], "bytes")
            emit(f"{pre}_auswertung_text_html_max", r["parts_max"], "bytes")
            emit(f"{pre}_auswertung_text_width", r["width"], "columns")
            emit(f"{pre}_gm_copy", r["gm_raw"], "bytes")
            emit(f"{pre}_db_growth_adjudication", r["growth_adjudication"] / 2**20, "MiB")
            emit(f"{pre}_db_growth_round", r["growth_round"] / 2**20, "MiB")
        if 200 in results and 800 in results:
            emit("ratio_800_to_200", results[800]["seconds"] / results[200]["seconds"], "x")
            emit("ratio_800_to_200_cpu", results[800]["cpu"] / results[200]["cpu"], "x")
            emit("auswertung_ratio_800_to_200", results[800]["raw_max"] / results[200]["raw_max"], "x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

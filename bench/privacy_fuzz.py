"""The privacy property with many games (issues 23 and 31, docs/development/privacy.md): seeded
self-played leagues of every game with private state (``tests/privacy.py``: Typ-Dom
Kreuzwort-Spiel, Point-Typ-Dom, "Wer behält recht?", Presto, Crossword, RONDO in Dutch and
German) through the service on an embedded Maildir and SQLite, with legal and illegal moves;
every mail to every player and every archive page checked for another player's private
token, and then non-interference (``tests/noninterference.py``): for each player, their
private data changed, every text the others and the archive get compared byte for byte.

Run: ``python bench/privacy_fuzz.py [N] [--rounds R] [--seconds S] [--game KIND ...]``
(default N = 20 leagues per game, R = 6 rounds, no time limit). Prints one line per game
(leagues, rounds, mails, archive pages, texts compared) with the machine's load, every
leak found with the mail or page and the token, and every difference with both versions;
exits 1 on a leak or a difference.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import os  # noqa: E402

from tests.noninterference import check  # noqa: E402
from tests.privacy import PRIVATE_GAMES  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=20, help="leagues per game")
    ap.add_argument("--rounds", type=int, default=6, help="rounds per league at most")
    ap.add_argument("--seconds", type=float, default=0, help="stop starting leagues after this many seconds")
    ap.add_argument("--game", action="append", choices=sorted(PRIVATE_GAMES), help="only these (repeatable)")
    ap.add_argument("--first-seed", type=int, default=1000)
    args = ap.parse_args(argv)
    kinds = args.game or sorted(PRIVATE_GAMES)
    start = time.monotonic()
    leaks = diffs = 0
    totals = {k: [0, 0, 0, 0, 0] for k in kinds}
    for i in range(args.n):
        for kind in kinds:
            if args.seconds and time.monotonic() - start > args.seconds:
                break
            with tempfile.TemporaryDirectory() as tmp:
                run = check(kind, args.first_seed + i, Path(tmp), rounds=args.rounds)
            t = totals[kind]
            t[0] += 1
            t[1] += run.rounds
            t[2] += run.mails
            t[3] += run.pages
            t[4] += run.texts
            for leak in run.leaks:
                leaks += 1
                print(f"LEAK {kind} seed {run.seed}: {leak}")
            for d in run.differences:
                diffs += 1
                print(f"DIFFERENCE {d}")
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    for kind, (n, rounds, mails, pages, compared) in totals.items():
        print(f"{kind}: {n} leagues, {rounds} rounds, {mails} mails, {pages} archive pages, "
              f"{compared} texts compared (load {load})")
    print(f"leagues: {sum(t[0] for t in totals.values())}")
    print(f"leaks: {leaks}")
    print(f"differences: {diffs}")
    print(f"time: {time.monotonic() - start:.0f} s, load average {load}")
    return 1 if leaks or diffs else 0


if __name__ == "__main__":
    sys.exit(main())

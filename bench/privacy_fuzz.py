"""The privacy property with many games (issue 23, docs/development/privacy.md): seeded self-played
leagues of every game with private state (``tests/privacy.py``: Typ-Dom Kreuzwort-Spiel,
Point-Typ-Dom, "Wer behält recht?", Presto, Crossword, RONDO) through the service on an
embedded Maildir and SQLite, every mail to every player and every archive page checked
for another player's private token.

Run: ``python bench/privacy_fuzz.py [N] [--rounds R] [--seconds S] [--game KIND ...]``
(default N = 20 leagues per game, R = 6 rounds, no time limit). Prints one
``name: value unit`` line per game (leagues, rounds, mails, archive pages checked) and
every leak found with the mail or page and the token; exits 1 on a leak.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.privacy import PRIVATE_GAMES, play  # noqa: E402


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
    leaks = 0
    totals = {k: [0, 0, 0, 0] for k in kinds}
    for i in range(args.n):
        for kind in kinds:
            if args.seconds and time.monotonic() - start > args.seconds:
                break
            with tempfile.TemporaryDirectory() as tmp:
                run = play(kind, args.first_seed + i, Path(tmp), rounds=args.rounds)
            t = totals[kind]
            t[0] += 1
            t[1] += run.rounds
            t[2] += run.mails
            t[3] += run.pages
            for leak in run.leaks:
                leaks += 1
                print(f"LEAK {kind} seed {run.seed}: {leak}")
    for kind, (n, rounds, mails, pages) in totals.items():
        print(f"{kind}: {n} leagues, {rounds} rounds, {mails} mails, {pages} archive pages")
    print(f"leagues: {sum(t[0] for t in totals.values())}")
    print(f"leaks: {leaks}")
    print(f"time: {time.monotonic() - start:.0f} s")
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())

"""``spielleiter demo``: a whole Rondo league on the embedded default.

Three Partien, four simulated players who mail real RFC 5322 messages into the bot's
Maildir inbox with moves found by the move generator on the full lexicon (some with
Ersatzzuege, one sometimes sending nothing), 20 rounds with each ZAT fired at once.
Every Auswertung is written as an ``.eml`` file, and the final standings are printed.
"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import select

from bot.config import embedded
from bot.games import get_game
from bot.mail.compose import compose
from bot.mail.maildir import MaildirTransport
from bot.service.league import create_league, league_lexicon
from bot.service.outbox import deliver
from bot.service.rounds import adjudicate_league
from bot.service.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import League, OutboxMail, Partie

PLAYERS = [
    # name, address, style
    ("Anna Albers", "anna@demo.invalid", "stark"),
    ("Bernd Becker", "bernd@demo.invalid", "tippfehler"),
    ("Clara Conrad", "clara@demo.invalid", "vorsichtig"),
    ("Dieter Dahl", "dieter@demo.invalid", "unzuverlaessig"),
]
PARTIEN = ["R1", "R2", "R3"]


def _choose(style: str, ranked: list, rng: random.Random) -> list[str]:
    """Move lines (main move first) a player of ``style`` would send."""
    if not ranked:
        return []
    notes = [f"{o.notation_text} {o.score} Punkte" for o in ranked]
    if style == "stark":
        return notes[:3]
    if style == "tippfehler":
        pick = rng.randrange(min(8, len(notes)))
        lines = [notes[pick]] + notes[pick + 1:pick + 3]
        if rng.random() < 0.4:  # a main move with a word that does not exist: the Ersatzzug must count
            bad = ranked[pick].notation_text
            lines.insert(0, bad[:-1] + ("X" if bad[-1] != "X" else "Q"))
        return lines
    if style == "vorsichtig":
        lo = len(notes) // 2
        pick = rng.randrange(lo, len(notes)) if len(notes) > 1 else 0
        return [notes[pick]]
    pick = rng.randrange(min(15, len(notes)))
    return [notes[pick]] + notes[pick + 1:pick + 2]


def run_demo(out: Path | None = None, rounds: int = 20, seed: str = "1", quiet: bool = False) -> int:
    """Play the demo league; returns 0. Auswertungen go to ``out`` (a temp dir if None)."""
    t0 = time.monotonic()
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, flush=True))
    work = Path(tempfile.mkdtemp(prefix="spielleiter-demo-"))
    out = Path(out) if out else work / "auswertungen"
    out.mkdir(parents=True, exist_ok=True)
    cfg = embedded(work)
    cfg.sender = "Spielleiter <spielleiter@demo.invalid>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    rng = random.Random(f"demo/{seed}")
    game = get_game("rondo")
    berlin = ZoneInfo("Europe/Berlin")
    first = (datetime.now(berlin) + timedelta(days=7)).replace(hour=20, minute=0, second=0, microsecond=0)
    spec = {"name": "Demo-Rondo", "game": "rondo", "partien": PARTIEN, "rounds": rounds, "seed": seed,
            "first_zat": first.isoformat(), "zat_interval_days": 7,
            "players": [{"name": n, "email": e} for n, e, _ in PLAYERS]}
    with db.session() as s:
        create_league(s, spec, cfg)
    deliver(db, md, cfg)
    with db.session() as s:
        league = s.scalar(select(League).where(League.name == "Demo-Rondo"))
        lexicon = league_lexicon(league, cfg)
    from bot.games.rondo.game import position_of
    from bot.games.rondo.engine import best_moves

    say(f"Demo: Liga Demo-Rondo, {len(PARTIEN)} Partien, {len(PLAYERS)} Spieler, {rounds} Runden "
        f"(Arbeitsordner {work})")
    for rnd in range(1, rounds + 1):
        with db.session() as s:
            states = {p.name: p.state for p in s.scalars(select(Partie).order_by(Partie.id))}
        ranked = {}
        for name, state in states.items():
            pos = position_of(state)
            moves = best_moves(pos, lexicon, None)
            for o in moves:
                o.notation_text = o.notation(pos)  # type: ignore[attr-defined]
            ranked[name] = moves
        for pname, addr, style in PLAYERS:
            if style == "unzuverlaessig" and rng.random() < 0.25:
                continue  # sends nothing this round (NMR)
            body = ["Hallo Spielleiter,", "", f"hier meine Züge für Runde {rnd}:", ""]
            for partie in PARTIEN:
                lines = _choose(style, ranked[partie], rng)
                if not lines:
                    continue
                body.append(f"Partie {partie}:")
                body.append(lines[0])
                body.extend(f"Ersatz: {ln}" for ln in lines[1:])
                body.append("")
            body += ["Viele Grüße", pname.split()[0]]
            raw = compose(sender=f"{pname} <{addr}>", to="spielleiter@demo.invalid",
                          subject=f"Demo-Rondo: Züge Runde {rnd}", text="\n".join(body),
                          headers={"Auto-Submitted": "no"})
            md.deliver_to_inbox(raw)
        poll_once(db, cfg)
        res = adjudicate_league(db, cfg, "Demo-Rondo", force=True)
        deliver(db, md, cfg)
        if res:
            words = ", ".join(f"{k}: {v or '–'}" for k, v in res["partien"].items())
            say(f"Runde {rnd:2d}: {words}")
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung").order_by(OutboxMail.id)).all()
        for r in rows:
            who = r.to_addr.split("@")[0]
            (out / f"runde-{r.round_number:02d}-{who}.eml").write_bytes(r.raw)
        n = len(rows)
    from bot.cli import league_view
    view = league_view(db, "Demo-Rondo")
    say(f"\n{n} Auswertungen als .eml in {out}")
    say("Endstand (alle Partien zusammen):")
    for r in view["standings"]:
        per = ", ".join(f"{k} {v}" for k, v in r["per_partie"].items())
        say(f"  {r['rank']:>2}. {r['name']:<16} {r['points']:>5} Punkte  ({per})")
    say(f"Dauer: {time.monotonic() - t0:.1f} s")
    db.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(run_demo())

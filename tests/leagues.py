"""Played leagues for the archive, chart and browser tests (a pytest plugin, see
``conftest.py``), built once per test session on SQLite:

- ``Demo-Rondo``: Rondo, two Partien, 4 rounds, simulated players who mail real moves
  (the demo's players: strong, typos with Ersatzzuege, cautious, unreliable with NMR);
- ``Demo-Mono``: Monoscrabble, 3 rounds, a fifth player joining by mail in round 2;
- ``Lauf-<game>``: for EVERY registered game (so games added later are covered without
  changes here), a league still running after two rounds in which nobody moved (NMR),
  created from the game's ``deploy/*.toml.example`` league file when there is one, else
  with the first player count the game accepts.
"""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from bot import ROOT
from bot.config import Config, embedded
from bot.games import get_game
from bot.games.registry import GAME_CLASSES
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.storage.db import Database

#: players with umlauts in their names, so every page shows whether umlauts survive
PLAYERS = [("Jürgen Öhler", "juergen@liga.invalid"), ("Bärbel Süß", "baerbel@liga.invalid"),
           ("Anna Albers", "anna@liga.invalid"), ("Bernd Becker", "bernd@liga.invalid")]
#: the demo's styles of play (bot.games.demoplay), given to these players
STYLES = ["stark", "tippfehler", "vorsichtig", "unzuverlaessig"]


@dataclass
class Played:
    """The played leagues: ``db``, ``cfg``, ``work`` (folder), ``leagues`` (name -> game)."""

    db: Database
    cfg: Config
    work: Path
    leagues: dict[str, str]


def _example(game: str) -> dict | None:
    for f in sorted((ROOT / "deploy").glob("*.toml.example")):
        spec = tomllib.loads(f.read_text(encoding="utf-8"))
        if spec.get("game") == game:
            return spec
    return None


def _running_spec(game: str) -> dict:
    rules = get_game(game)
    spec = _example(game) or {"partien": ["A"]}
    n = len(spec.get("players") or [])
    if not n or rules.check_players([str(i) for i in range(n)], spec.get("options")) is not None:
        n = next(k for k in (4, 3, 2, 5, 6, 1) if rules.check_players([str(i) for i in range(k)],
                                                                        spec.get("options")) is None)
    players = [{"name": nm, "email": em} for nm, em in PLAYERS[:n]] + \
              [{"name": f"Spieler {i}", "email": f"s{i}@liga.invalid"} for i in range(len(PLAYERS), n)]
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0)
    spec = dict(spec, name=f"Lauf-{game}", game=game, players=players, first_zat=first.isoformat(),
                review=False, require_code=False, gm_email="gm@liga.invalid")
    spec.pop("gm_code", None)
    if rules.fixed_rounds:
        spec.pop("rounds", None)
    return spec


def play_leagues(work: Path) -> Played:
    """Play the leagues of this module into ``work`` (SQLite and a Maildir)."""
    from bot.demo import JOINER, Demo, play_league  # the demo's loop and the games' demo players
    simulated = [(n, e, st) for (n, e), st in zip(PLAYERS, STYLES)]
    cfg = embedded(work)
    cfg.sender = "Spielleiter <spielleiter@liga.invalid>"
    cfg.rate_limit_per_hour = 0
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0).isoformat()
    base = {"first_zat": first, "zat_interval_days": 7, "seed": "7", "gm_email": "gm@liga.invalid"}
    out = work / "eml"
    out.mkdir(parents=True, exist_ok=True)
    demo = Demo(db, cfg, md, out, random.Random("archiv"), lambda *a: None)
    play_league(demo, {"name": "Demo-Rondo", "game": "rondo", "partien": ["R1", "R2"], "rounds": 4,
                       "players": simulated, "eml": "rondo"}, base)
    play_league(demo, {"name": "Demo-Mono", "game": "monoscrabble", "partien": ["M1"], "rounds": 3,
                       "players": simulated, "joiner": (JOINER, 2), "eml": "mono"}, base)
    leagues = {"Demo-Rondo": "rondo", "Demo-Mono": "monoscrabble"}
    for game in GAME_CLASSES:
        spec = _running_spec(game)
        with db.session() as s:
            create_league(s, spec, cfg)
        for _ in range(2):
            adjudicate_league(db, cfg, spec["name"], force=True)
        leagues[spec["name"]] = game
    deliver(db, md, cfg)
    return Played(db, cfg, work, leagues)


@pytest.fixture(scope="session")
def played(tmp_path_factory) -> Played:
    """The leagues of this module, played once per session (read-only for the tests)."""
    p = play_leagues(tmp_path_factory.mktemp("ligen"))
    yield p
    p.db.dispose()

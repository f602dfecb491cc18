"""Non-interference, the property that makes "private" checkable (issue 31, item 2;
docs/development/privacy.md).

A league of a game with private state is self-played through the service
(:func:`tests.privacy.play`: random legal and illegal moves, cards and tiles not held,
too many placements, out of turn, exchanges, Jolly takes, resends). Then a copy of its
database is made (through SQLite's own backup), and in the copy everything of one player,
the *victim*, that the rules have not made public yet is changed:

- their private state in every Partie state and every stored ``state_after`` (rack, hand,
  grid before the end: each letter replaced, the shape kept), as long as the game's
  :meth:`~bot.games.base.GameRules.public_view` stays the same (a change the public view
  shows is public by the rules, and is not tried);
- in every round report: the lines that were not played (text, verdict with every
  parameter, reason, notes, detail), the parameters of the played line's verdicts that are
  not public, the notes only the mover sees, the ``private`` part of the round;
- the turn records of the state (``failed``) of the victim's lines.

What stays is what is public: that a line was invalid or not tried, the played line, its
score. Then every text another player or the archive gets is rendered from both
databases: each other player's Auswertung of every round (text and HTML), their
``AUSWERTUNG n ALLE``, ``STAND``, and every archive page. Each must be byte-identical;
a difference fails with both versions printed. Used by ``tests/test_noninterference.py``
and ``bench/privacy_fuzz.py``.
"""

from __future__ import annotations

import difflib
import json
import random
import sqlite3
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.config import embedded
from bot.games import get_game
from bot.games.base import Audience
from bot.i18n import language as league_language
from bot.service.conversations.commands import standings_text
from bot.service.presentation.archive import build_archive
from bot.service.presentation.report import Recipient, render_all_moves, render_auswertungen
from bot.service.presentation.standings import standings
from bot.service.stages.rounds import round_data
from bot.storage.db import Database
from bot.storage.models import Adjudication, League, Partie, Player
from tests.privacy import PRIVATE_GAMES, play

LETTERS = string.ascii_uppercase


@dataclass
class Difference:
    """One text that changed when only the victim's private data changed."""

    where: str
    before: str
    after: str

    def __str__(self) -> str:
        diff = "\n".join(difflib.unified_diff(self.before.splitlines(), self.after.splitlines(), "original",
                                              "victim's private data changed", lineterm="", n=2))
        return f"{self.where}: differs\n{diff[:4000]}"


@dataclass
class Check:
    """What one seeded league produced: texts compared and differences found."""

    game: str
    seed: int
    rounds: int = 0
    texts: int = 0
    changed_fields: int = 0
    differences: list[Difference] = field(default_factory=list)
    #: what the self-play's token detector found (:class:`tests.privacy.Run`)
    mails: int = 0
    pages: int = 0
    leaks: list[Any] = field(default_factory=list)


# -- changing the victim's private data -------------------------------------------------------

def _scramble(value: Any, rng: random.Random) -> Any:
    """``value`` with every letter replaced by another (the shape kept: length, dots,
    spaces, digits); lists and dicts element by element."""
    if isinstance(value, str):
        return "".join(rng.choice(LETTERS.replace(ch.upper(), "")) if ch.isalpha() else ch for ch in value)
    if isinstance(value, list):
        return [_scramble(v, rng) for v in value]
    if isinstance(value, dict):
        return {k: _scramble(v, rng) for k, v in value.items()}
    return value


def _scramble_data(value: Any, rng: random.Random) -> Any:
    """:func:`_scramble` for a move's ``detail``: a stored verdict (``{"verdict": ...}``)
    keeps its shape and gets every parameter scrambled."""
    if isinstance(value, dict) and set(value) == {"verdict"}:
        return {"verdict": _scramble_params(value["verdict"], rng, all_params=True)}
    if isinstance(value, dict):
        return {k: _scramble_data(v, rng) for k, v in value.items()}
    if isinstance(value, list):
        return [_scramble_data(v, rng) for v in value]
    return _scramble(value, rng)


def _scramble_params(v: dict[str, Any] | None, rng: random.Random, *, all_params: bool) -> dict | None:
    """A stored verdict (:meth:`~bot.games.verdict.Verdict.to_json`) with its non-public
    parameters (or, ``all_params``, every parameter) scrambled; nested verdicts too."""
    if not isinstance(v, dict) or "msgid" not in v:
        return v
    out = dict(v)
    params = {}
    for name, p in (v.get("params") or {}).items():
        p = dict(p)
        if isinstance(p.get("v"), dict) and "verdict" in p["v"]:
            p["v"] = {"verdict": _scramble_params(p["v"]["verdict"], rng, all_params=all_params)}
        elif all_params or p.get("s") != "public":
            p["v"] = _scramble(p["v"], rng) if not isinstance(p["v"], int) else p["v"] + rng.randint(1, 9)
        params[name] = p
    if params:
        out["params"] = params
    if all_params:
        out["code"] = "scrambled-" + "".join(rng.choice(LETTERS) for _ in range(4))
        out["msgid"] = out["msgid"] + " " + "".join(rng.choice(LETTERS) for _ in range(5))
    return out


def change_round(pl: dict[str, Any], rng: random.Random, private_keys: set[str] | frozenset[str],
                 public_keys: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """The victim's :class:`~bot.games.base.PlayerRound` JSON with everything not public
    changed (the module docstring)."""
    pl = json.loads(json.dumps(pl))
    counted = pl.get("counted")
    for m in pl.get("moves", []):
        if m.get("index") != counted:
            m["text"] = _scramble(m.get("text") or "", rng) + " " + rng.choice(LETTERS) * 3
            m["reason"] = rng.choice(["rack", "word", "syntax", "hand", "jolly", "off-board", None])
            m["score"] = rng.choice([None, rng.randint(0, 40)])
            m["verdict"] = _scramble_params(m.get("verdict"), rng, all_params=True)
            m["public"] = _scramble_params(m.get("public"), rng, all_params=True)
            m["notes"] = [_scramble_params(n, rng, all_params=True) for n in m.get("notes") or []]
            m["notes"].append({"code": "extra", "msgid": "Extra " + rng.choice(LETTERS) * 4, "seen": "mover"})
            m["detail"] = _scramble_data(m.get("detail") or {}, rng)
            m["valid"] = rng.random() < 0.5
        else:
            m["verdict"] = _scramble_params(m.get("verdict"), rng, all_params=False)
            m["public"] = _scramble_params(m.get("public"), rng, all_params=False)
            m["notes"] = [_scramble_params(n, rng, all_params=n.get("seen") != "public")
                          for n in m.get("notes") or []]
            if m.get("public_notes") is not None:
                m["public_notes"] = [_scramble_params(n, rng, all_params=n.get("seen") != "public")
                                     for n in m["public_notes"]]
            detail = m.get("detail") or {}
            for k in private_keys:
                if k in detail:
                    detail[k] = _scramble_data(detail[k], rng)
    pl["private"] = {k: (v if k in public_keys else _scramble(v, rng)) for k, v in (pl.get("private") or {}).items()}
    return pl


def _victim_paths(game, state: dict, victim: str) -> list[tuple]:
    """Where the victim's private part lies in ``state``: every path whose value changes
    :meth:`player_view` of the victim (found by trying), below the keys that hold private
    parts by player or seat (``racks``, ``hands``, ``grids``, ...)."""
    out = []
    view = game.player_view(state, victim)
    for key, value in state.items():
        if isinstance(value, dict):
            for sub in value:
                trial = json.loads(json.dumps(state))
                trial[key][sub] = _scramble(trial[key][sub], random.Random(1))
                if trial[key][sub] != state[key][sub] and game.player_view(trial, victim) != view:
                    out.append((key, sub))
    return out


def change_state(game, state: dict, victim: str, rng: random.Random, tries: int = 20) -> tuple[dict, int]:
    """``state`` with the victim's failed lines in turn records scrambled (always: they are
    lines that were not played) and the victim's private part changed as long as the public
    view stays what it is with the turn records alone changed (a change the public view
    shows, e.g. a rack's size, is public by the rules and not tried). Returns (state,
    fields changed)."""
    base = json.loads(json.dumps(state))
    n = _change_turn_records(base, victim, rng)
    public = game.public_view(base)
    paths = _victim_paths(game, state, victim)
    for _ in range(tries):
        new = json.loads(json.dumps(base))
        for key, sub in paths:
            new[key][sub] = _scramble(new[key][sub], rng)
        if game.public_view(new) == public:
            return new, n + len(paths)
    return base, n


def _change_turn_records(node: Any, victim: str, rng: random.Random) -> int:
    """Scramble, in place, the failed lines of every turn record of the victim (a dict with
    ``player`` == victim and a ``failed`` list) except their index; returns how many."""
    n = 0
    if isinstance(node, dict):
        if str(node.get("player")) == victim and isinstance(node.get("failed"), list):
            for f in node["failed"]:
                for k in list(f):
                    if k != "index":
                        f[k] = _scramble(f[k], rng) if isinstance(f[k], str) else f[k]
                        n += 1
        for v in node.values():
            n += _change_turn_records(v, victim, rng)
    elif isinstance(node, list):
        for v in node:
            n += _change_turn_records(v, victim, rng)
    return n


# -- rendering everything the others get -------------------------------------------------------

def public_texts(db: Database, work: Path, victim: str) -> dict[str, str]:
    """Every text another player than ``victim`` or the archive gets, by a name saying
    which: each other player's Auswertung of every round (text and HTML), their
    ``AUSWERTUNG n ALLE`` and ``STAND``, and every archive page."""
    out: dict[str, str] = {}
    with db.session() as s:
        league = s.scalars(select(League)).one()
        game = get_game(league.game)
        lang = league_language(league.options)
        others = [p for p in league.players if str(p.id) != victim]
        rounds = sorted({a.round_number for a in s.scalars(select(Adjudication))})
        for n in rounds:
            data = round_data(s, league, n)
            table = standings(s, league, n)
            mails = render_auswertungen(
                game, league={"name": league.name, "rounds": league.rounds, "finished": False, "title": game.title,
                              "timezone": league.timezone, "turn": None},
                round=n, partien=data, standings=table, next_zat=None,
                recipients=[Recipient(str(p.id), p.name, p.email, lang=lang) for p in others])
            for p in others:
                text, html = mails[("player", str(p.id))]
                out[f"Auswertung {n} an {p.name} (Text)"] = text.text()
                out[f"Auswertung {n} an {p.name} (HTML)"] = html.text()
                out[f"AUSWERTUNG {n} ALLE an {p.name}"] = render_all_moves(
                    game, league={"name": league.name}, round=n, partien=data,
                    audience=Audience(viewer=str(p.id)), lang=lang)
            out[f"AUSWERTUNG {n} ALLE (öffentlich)"] = render_all_moves(
                game, league={"name": league.name}, round=n, partien=data, lang=lang)
        out["STAND"] = standings_text(s, league, lang)
    archive = work / "archiv"
    build_archive(db, archive)
    for page in sorted(archive.rglob("*.html")):
        out[f"Archiv {page.relative_to(archive)}"] = page.read_text(encoding="utf-8")
    return out


def _copy_db(src: Path, dst: Path) -> None:
    """A copy of the SQLite database ``src`` made by SQLite itself (the backup API)."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    a.close()
    b.close()


def change_victim(db: Database, victim: str, rng: random.Random) -> int:
    """Change, in ``db``, everything of ``victim`` the rules have not made public
    (module docstring); returns how many fields changed."""
    changed = 0
    with db.session() as s:
        league = s.scalars(select(League)).one()
        game = get_game(league.game)
        private_keys = game.private_detail
        for adj in s.scalars(select(Adjudication)):
            rep = json.loads(json.dumps(adj.report))
            finished = game.finished(rep["state_after"])
            for i, pl in enumerate(rep["players"]):
                if str(pl["player"]) == victim:
                    rep["players"][i] = change_round(pl, rng, private_keys, game.public_round_keys)
                    changed += 1
            changed += _change_turn_records(rep.get("board_move"), victim, rng)
            if not finished:  # at the end the rules make the private parts public
                rep["state_after"], n = change_state(game, rep["state_after"], victim, rng)
                rep["state_before"], m = change_state(game, rep["state_before"], victim, rng)
                changed += n + m
            adj.report = rep
        for partie in s.scalars(select(Partie)):
            if not partie.finished:
                partie.state, n = change_state(game, dict(partie.state), victim, rng)
                changed += n
    return changed


def check(kind: str, seed: int, work: Path, *, rounds: int = 3) -> Check:
    """Self-play one seeded league of ``kind`` (:data:`tests.privacy.PRIVATE_GAMES`), then
    for each player as the victim compare every text the others get with the victim's
    private data changed. Returns the :class:`Check`."""
    run = play(kind, seed, work / "play", rounds=rounds)
    out = Check(kind, seed, rounds=run.rounds, mails=run.mails, pages=run.pages, leaks=list(run.leaks))
    cfg = embedded(work / "play" / "var")
    original = Path(cfg.database_url.removeprefix("sqlite:///"))
    with Database(cfg.database_url).session() as s:
        victims = [str(p.id) for p in s.scalars(select(Player).order_by(Player.id))]
    base_db = Database(cfg.database_url)
    try:
        for victim in victims:
            before = public_texts(base_db, work / f"a{victim}", victim)
            copy = work / f"changed-{victim}.sqlite"
            _copy_db(original, copy)
            changed_db = Database(f"sqlite:///{copy}")
            try:
                out.changed_fields += change_victim(changed_db, victim, random.Random(f"{kind}/{seed}/{victim}"))
                after = public_texts(changed_db, work / f"b{victim}", victim)
            finally:
                changed_db.dispose()
            for name in sorted(set(before) | set(after)):
                out.texts += 1
                if before.get(name) != after.get(name):
                    out.differences.append(Difference(f"{kind} seed {seed}, victim {victim}: {name}",
                                                      before.get(name, "(missing)"), after.get(name, "(missing)")))
    finally:
        base_db.dispose()
    return out


__all__ = ["Check", "Difference", "PRIVATE_GAMES", "check", "change_round", "change_state", "public_texts"]

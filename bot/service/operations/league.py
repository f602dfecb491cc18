"""League files (TOML) and league creation (the lookups are in :mod:`bot.service.domain`)."""

from __future__ import annotations

import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.games import get_game
from bot.games.verdict import render_text
from bot.i18n import gm_language, league_language, texts, tr
from bot.render import format_zat, render
from bot.service.conversations.identity import hash_code
from bot.service.conversations.registry import COMMANDS
from bot.service.domain.league import LeagueError, open_round, partie_views, vorgabe_text, zat_of
from bot.service.domain.names import check_player_names, normal_name
from bot.service.conversations.routing import several_text
from bot.service.stages.outbox import queue_mail
from bot.storage.models import League, Partie, Player, PlayerAddress, Round, Vorgabe


def parse_when(value: Any, tz: str) -> datetime:
    """An aware datetime from a TOML datetime or an ISO string; naive means league time."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        raise LeagueError(f"first_zat: kein Zeitpunkt: {value!r}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(tz))
    return value


def read_league_file(path: str | Path) -> dict[str, Any]:
    """Read and check a league file; raises :class:`LeagueError` naming the problem."""
    try:
        spec = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LeagueError(f"Ligadatei {path} nicht gefunden.") from None
    except tomllib.TOMLDecodeError as exc:
        raise LeagueError(f"{path}: kein gültiges TOML: {exc}") from None
    for key in ("name", "game", "first_zat"):
        if key not in spec:
            raise LeagueError(f"{path}: '{key}' fehlt.")
    try:
        get_game(spec["game"])
    except KeyError as exc:
        raise LeagueError(str(exc)) from None
    players = spec.get("players") or []
    if not players:
        raise LeagueError(f"{path}: keine Spieler ([[players]] mit name und email).")
    seen = set()
    for p in players:
        if not p.get("name") or not p.get("email"):
            raise LeagueError(f"{path}: jeder [[players]]-Eintrag braucht name und email.")
        for addr in [p["email"], *p.get("addresses", [])]:
            if addr.lower() in seen:
                raise LeagueError(f"{path}: Adresse {addr} doppelt.")
            seen.add(addr.lower())
    check_player_names([str(p["name"]) for p in players], str(path))
    if spec.get("require_code") and not all(p.get("code") for p in players):
        raise LeagueError(f"{path}: require_code = true, aber nicht jeder Spieler hat einen code.")
    parts = spec.get("partien") or ["R1"]
    if len(set(p.lower() for p in parts)) != len(parts):
        raise LeagueError(f"{path}: Partie-Namen doppelt.")
    game = get_game(spec["game"])
    for name in parts:
        if problem := game.check_partie_name(str(name)):
            raise LeagueError(f"{path}: {render_text(problem)}")
    problem = game.check_players([str(i) for i in range(1, len(players) + 1)], spec.get("options") or {})
    if problem:
        raise LeagueError(f"{path}: {render_text(problem)}")
    if game.fixed_rounds is not None and int(spec.get("rounds", game.fixed_rounds)) != game.fixed_rounds:
        raise LeagueError(f"{path}: {game.title} hat immer {game.fixed_rounds} Runden (rounds weglassen).")
    return spec


def league_rounds(spec: dict[str, Any], game) -> int:
    """The league's number of rounds: the game's fixed number, the file's ``rounds``, the
    game's default, or (for games that end by themselves) a cap of 10,000."""
    if game.fixed_rounds is not None:
        return game.fixed_rounds
    return int(spec.get("rounds", game.default_rounds or 10_000))


def create_league(session: Session, spec: dict[str, Any], cfg: Config) -> League:
    """Create the league, its players, its Partien (round 1 drawn, players in seat order,
    the order of the league file) and round 1; queue every player's start mail (with their
    private part, for games that have one)."""
    if session.scalar(select(League).where(League.name == spec["name"])):
        raise LeagueError(f"Liga {spec['name']} gibt es schon.")
    check_player_names([str(p["name"]) for p in spec["players"]])
    game = get_game(spec["game"])
    tz = spec.get("timezone", cfg.timezone)
    ZoneInfo(tz)
    options = dict(spec.get("options", {}))
    for key in ("sequential", "turn_hours", "language", "gm_language"):
        if key in spec:
            options[key] = spec[key]
    league = League(name=spec["name"], game=game.name, seed=str(spec.get("seed", 1)),
                    rounds=league_rounds(spec, game), first_zat=parse_when(spec["first_zat"], tz),
                    zat_interval_days=int(spec.get("zat_interval_days", 7)), timezone=tz,
                    gm_email=(spec.get("gm_email") or None), allow_words=list(spec.get("allow_words", [])),
                    deny_words=list(spec.get("deny_words", [])), options=options,
                    require_code=bool(spec.get("require_code", False)),
                    gm_code_hash=hash_code(str(spec["gm_code"])) if spec.get("gm_code") else None,
                    review=bool(spec.get("review", False)), reminder_hours=int(spec.get("reminder_hours", 24)))
    session.add(league)
    session.flush()
    keys = []
    for p in spec["players"]:
        player = Player(league_id=league.id, name=normal_name(p["name"]),
                        code_hash=hash_code(str(p["code"])) if p.get("code") else None)
        session.add(player)
        session.flush()
        keys.append(str(player.id))
        for addr in [p["email"], *p.get("addresses", [])]:
            session.add(PlayerAddress(player_id=player.id, email=addr.strip().lower()))
    for name in spec.get("partien") or ["R1"]:
        state = game.new_partie(seed=league.seed, partie=name, options={"rounds": league.rounds, **options},
                                players=keys)
        partie = Partie(league_id=league.id, name=name, state=state)
        session.add(partie)
        session.flush()
        session.add(Vorgabe(partie_id=partie.id, round_number=1, cards=vorgabe_text(state)))
    session.add(Round(league_id=league.id, number=1, zat=zat_of(league, 1)))
    session.flush()
    session.refresh(league)
    for player in league.players:
        queue_start_mail(session, cfg, league, player)
    if league.gm_email:
        queue_gm_start_mail(session, cfg, league)
    return league


def queue_gm_start_mail(session: Session, cfg: Config, league: League) -> None:
    """Queue the game master's mail about a new league (in the GM's language): players,
    Partien, rounds, the players' language, the first ZAT and the GM commands."""
    game = get_game(league.game)
    lang = gm_language(league.options)
    t = texts(lang)
    names = {"de": t.gettext("Deutsch"), "nl": t.gettext("Niederländisch")}
    text = render("gm_start.txt.j2", lang, league=league, game_title=game.title,
                  players=[{"name": p.name, "email": p.email} for p in league.players],
                  partien=[pt.name for pt in league.partien],
                  rounds=league.rounds if (game.fixed_rounds or game.default_rounds) else None,
                  player_language=names.get(league_language(league.options), league_language(league.options)),
                  next_zat=format_zat(league.first_zat, league.timezone, lang),
                  # the help names the league's period: "Zug" in a game of turns (issue 32)
                  commands=[t.gettext(c.help_for(game.turn_rounds)) for c in COMMANDS.values() if c.gm and c.help],
                  notice_minutes=round(float(getattr(cfg, "gm_notice_window", 0) or 0) / 60))
    queue_mail(session, cfg, key=f"start:{league.id}:gm", kind="gm-notice", to=league.gm_email,
               subject=t.gettext("{league}: Liga angelegt", league=league.name), text=text, league_id=league.id,
               round_number=1)


def queue_start_mail(session: Session, cfg: Config, league: League, player: Player, *, joined: int = 1,
                     key: str | None = None) -> None:
    """Queue ``player``'s start mail (``<game>/start.txt.j2``: the public views and the
    player's own private part of every Partie, the first ZAT, the player help)."""
    game = get_game(league.game)
    lang = league_language(league.options)
    rnd = open_round(session, league)
    zat = rnd.zat if rnd is not None else league.first_zat
    text = render(f"{game.name}/start.txt.j2", lang, recipient=player, league=league,
                  partien=partie_views(game, league, player), next_zat=format_zat(zat, league.timezone, lang),
                  joined=joined, several=several_text(session, player, lang))
    queue_mail(session, cfg, key=key or f"start:{league.id}:{player.id}", kind="start", to=player.email,
               subject=tr(lang, "subject_start" if joined <= 1 else "subject_welcome", league=league.name),
               text=text, league_id=league.id, round_number=joined)



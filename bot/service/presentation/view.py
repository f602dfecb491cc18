"""The league as data: what ``spielleiter show NAME --json`` prints, the demo reads and
the game master sees. Public and private views come from the game's rules; no rules here."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from bot.games import get_game
from bot.games.verdict import render_text
from bot.i18n import gm_language, texts
from bot.render import format_zat
from bot.service.domain.league import find_league, open_round, paused_text, playing, zat_waits_text
from bot.service.presentation.archive_info import period_label
from bot.service.presentation.standings import standings

from bot.storage.models import AddressChange, Player, Round


def name_players(value: Any, addresses: dict[str, str], fields: frozenset[str], under: str = "") -> Any:
    """``value`` (a game's view) with every player key replaced by the player's address,
    as ``players`` and ``standings`` name them: the keys of a mapping whose keys are all
    player keys (grids, racks, marks, scores, verdicts ...), and the values (a key, or
    lists of keys) under a field of ``fields`` (:meth:`GameRules.player_fields`)."""
    if isinstance(value, dict):
        per_player = bool(value) and all(isinstance(k, str) and k in addresses for k in value)
        return {(addresses[k] if per_player else k): name_players(v, addresses, fields, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [name_players(v, addresses, fields, under) for v in value]
    if isinstance(value, str) and under in fields and value in addresses:
        return addresses[value]
    return value

def league_view(db, name: str) -> dict:
    """The JSON of ``spielleiter show NAME --json``: league, game, status, round, rounds,
    next ZAT, per Partie its public view (and, for games with private state, ``players``:
    every active player's private view, for the game master), and the standings. Players
    are named by address everywhere (:func:`name_players`), never by database id or seat.
    Each Partie also has ``picture``: :meth:`GameRules.gm_picture` (the text ``show``
    prints, with every private part). ``address_changes``: the address changes waiting
    for the game master (player, name, new and old address, sender, since). ``waiting``
    (per Partie): it has not started, with the league option ``sequential`` it begins after
    the Partie before it (its ``picture`` says so, and it has no ``players``).
    ``next_zat_local``: the next ZAT in the league's time zone, as text."""
    with db.session() as s:
        league = find_league(s, name)
        game = get_game(league.game)
        rnd = open_round(s, league)
        addresses = {str(pl.id): pl.email for pl in league.players}
        names = {str(pl.id): pl.name for pl in league.players}
        fields = game.player_fields()
        zat = format_zat(rnd.zat, league.timezone) if rnd else None
        gm_lang = gm_language(league.options)
        partien = []
        ordered = sorted(league.partien, key=lambda x: x.id)
        played = {x.id for x in playing(league, ordered)} if league.status == "running" else {x.id for x in ordered}
        for i, p in enumerate(ordered):
            view = {k: v for k, v in game.public_view(p.state).items() if k not in game.picture_keys}
            view = name_players(view, addresses, fields)
            waiting = not p.finished and p.id not in played  # sequential: starts after the one before
            if waiting:
                picture = [texts(gm_lang).gettext("wartet (beginnt nach Partie {name})", name=ordered[i - 1].name)]
            else:
                picture = [render_text(x, gm_lang) for x in game.gm_picture(p.state, names, zat=zat)]
            entry = {"name": p.name, **view, "finished": p.finished, "waiting": waiting, "picture": picture}
            if game.player_views and not waiting:  # for the GM: every private part
                entry["players"] = [{"name": pl.name, "player": pl.email,
                                     **name_players({k: v for k, v in game.player_view(p.state, str(pl.id)).items()
                                                     if k not in game.picture_keys}, addresses, fields)}
                                    for pl in league.players if pl.active]
            partien.append(entry)
        table = standings(s, league)
        last = s.scalar(select(func.max(Round.number)).where(Round.league_id == league.id,
                                                               Round.status == "adjudicated"))
        return {"league": league.name, "game": league.game, "status": league.status,
                # a paused league (issue 33): since when (ISO, UTC) and by whom (cli, mail <address>, zurueck)
                "paused": bool(league.paused),
                "paused_since": league.paused_at.isoformat() if league.paused and league.paused_at else None,
                "paused_by": league.paused_by if league.paused else None,
                "paused_text": paused_text(league),
                "zat_waits": zat_waits_text(league),  # what a paused league's ZAT waits for (issue 32)
                "round": rnd.number if rnd else (last or league.rounds), "rounds": league.rounds,
                # the round as the game names it, for the operator's ``show`` (German): "Zug 3" in a game of turns
                "period": period_label(game, rnd.number if rnd else (last or league.rounds), "de"),
                # False: the game ends by itself and ``rounds`` is only a cap (Typ-Dom, RONDO)
                "rounds_fixed": bool(game.fixed_rounds or game.default_rounds),
                "next_zat": rnd.zat.isoformat() if rnd else None, "partien": partien,
                # for the text of ``show``: local time with zone (the league's), as the Partie lines
                "next_zat_local": zat, "timezone": league.timezone,
                "standings": [{"rank": r["rank"], "player": r["email"], "name": r["name"], "points": r["points"],
                               "rounds_played": r["rounds_played"], "per_partie": r["per_partie"]}
                              for r in table],
                "bouncing": [{"player": p.name, "address": a.email, "since": a.bounced_at.isoformat(),
                              "reason": a.bounce_reason} for p in league.players for a in p.addresses
                             if a.bounced_at is not None],
                # unproven ADRESSE requests waiting for the GM (gm adresse ok|nein; issue 31)
                "address_changes": [{"player": p.email, "name": p.name, "new_address": c.email,
                                     "old_address": c.old_email, "from": c.from_addr,
                                     "since": c.requested_at.isoformat()}
                                    for c, p in s.execute(select(AddressChange, Player)
                                                          .join(Player, Player.id == AddressChange.player_id)
                                                          .where(Player.league_id == league.id,
                                                                 AddressChange.status == "pending")
                                                          .order_by(AddressChange.id))]}

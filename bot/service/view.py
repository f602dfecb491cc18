"""The league as data: what ``spielleiter show NAME --json`` prints, the demo reads and
the game master sees. Public and private views come from the game's rules; no rules here."""

from __future__ import annotations

from bot.games import get_game
from bot.games.base import GameRules
from bot.service.league import find_league, open_round
from bot.service.standings import standings


#: Parts of a game's public view that are for the templates only (not for ``show --json``).
BULKY_VIEW_KEYS = {"cells", "grid_text", "row_pretty", "vorgabe_pretty"}


def league_view(db, name: str) -> dict:
    """The JSON of ``spielleiter show NAME --json``: league, game, status, round, rounds,
    next ZAT, per Partie its public view (and, for games with private state, ``players``:
    every active player's private view, for the game master), and the standings."""
    with db.session() as s:
        league = find_league(s, name)
        game = get_game(league.game)
        rnd = open_round(s, league)
        partien = []
        for p in league.partien:
            view = {k: v for k, v in game.public_view(p.state).items() if k not in BULKY_VIEW_KEYS}
            entry = {"name": p.name, **view, "finished": p.finished}
            if type(game).player_view is not GameRules.player_view:  # for the GM: every private part
                entry["players"] = [{"name": pl.name, "player": pl.email,
                                     **{k: v for k, v in game.player_view(p.state, str(pl.id)).items()
                                        if k not in BULKY_VIEW_KEYS}}
                                    for pl in league.players if pl.active]
            partien.append(entry)
        table = standings(s, league)
        return {"league": league.name, "game": league.game, "status": league.status,
                "round": rnd.number if rnd else league.rounds, "rounds": league.rounds,
                "next_zat": rnd.zat.isoformat() if rnd else None, "partien": partien,
                "standings": [{"rank": r["rank"], "player": r["email"], "name": r["name"], "points": r["points"],
                               "rounds_played": r["rounds_played"], "per_partie": r["per_partie"]}
                              for r in table],
                "bouncing": [{"player": p.name, "address": a.email, "since": a.bounced_at.isoformat(),
                              "reason": a.bounce_reason} for p in league.players for a in p.addresses
                             if a.bounced_at is not None]}

"""The league as every floor reads it: lookups by name, the open round, the ZAT schedule,
the views of a Partie and the league's lexicon (the service's ground floor)."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable
from zoneinfo import ZoneInfo

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from bot import lexicon as lexmod
from bot.config import Config
from bot.games import get_game
from bot.i18n import N_, texts
from bot.render import format_zat
from bot.storage.models import League, Partie, Player, Round


class LeagueError(ValueError):
    """A league file or a league name that does not work (German message).
    :meth:`render` says it in another language where a subclass knows how
    (:class:`~bot.service.conversations.gmbase.GMError`); here it is the German text."""

    def render(self, lang: str) -> str:
        """The message in ``lang`` (``"de"``, ``"nl"``); a plain LeagueError stays German."""
        return str(self)


def vorgabe_text(state: dict[str, Any]) -> str:
    """The cards or letters a Partie's players get this round (Rondo Vorgabe, Scrabble rack)."""
    return str(state.get("vorgabe") or state.get("rack") or "")


def zat_of(league: League, number: int) -> datetime:
    """The scheduled ZAT of round ``number`` (aware UTC), a whole number of days after the
    first one in the league's time zone (so 20:00 stays 20:00 across daylight saving)."""
    tz = ZoneInfo(league.timezone)
    first = league.first_zat.astimezone(tz)
    local = (first.replace(tzinfo=None) + timedelta(days=league.zat_interval_days * (number - 1))).replace(tzinfo=tz)
    return local.astimezone(ZoneInfo("UTC"))


def partie_views(game, league: League, player: Player | None) -> list[dict[str, Any]]:
    """Every Partie's public view plus ``name``, ``names`` (player key -> name, for games
    whose views name players by key), ``mine`` (``player``'s private view, ``{}``
    without a player or for games without private state) and ``example`` (notation lines
    fitting the open round, :meth:`~bot.games.base.GameRules.example_move`, or None)."""
    names = {str(p.id): p.name for p in league.players}
    return [dict(game.public_view(pt.state), name=pt.name, names=names, example=game.example_move(pt.state),
                 mine=game.player_view(pt.state, str(player.id)) if player is not None else {})
            for pt in league.partien]


def find_league(session: Session, name: str) -> League:
    league = session.scalar(select(League).where(League.name == name))
    if league is None:
        names = ", ".join(session.scalars(select(League.name)).all()) or "keine"
        raise LeagueError(f"Liga {name!r} unbekannt (vorhanden: {names}).")
    return league


_OPEN_ROUND = (select(Round).where(Round.league_id == bindparam("league"), Round.status == "open")
               .order_by(Round.number))


def open_round(session: Session, league: League) -> Round | None:
    """The league's open round, or None when it is finished."""
    return session.scalar(_OPEN_ROUND, {"league": league.id})


@lru_cache(maxsize=32)
def _lexicon(alphabets: tuple[str, ...], cache_dir: str | None, allow: tuple[str, ...], deny: tuple[str, ...],
             rules: "lexmod.WordRules | None" = None):
    lex = lexmod.union(*(lexmod.load(a, Path(cache_dir) if cache_dir else None, rules) for a in alphabets))
    return lex.with_lists(allow, deny) if (allow or deny) else lex


def league_lexicon(league: League, cfg: Config):
    """The league's lexicon: the game's word lists for the league's options
    (:meth:`GameRules.lexicon_alphabets`) less the words of the game's word rules
    (:attr:`GameRules.word_rules`), with the GM's allow- and deny-list."""
    game = get_game(league.game)
    return _lexicon(tuple(game.lexicon_alphabets(league.options or {})), str(cfg.lexicon_dir) if cfg.lexicon_dir else None,
                    tuple(league.allow_words or ()), tuple(league.deny_words or ()), game.word_rules)


def playing(league: League, partien: Iterable[Partie]) -> list[Partie]:
    """Of ``partien`` (all of the league, by id), those played in the open round (see
    :func:`active_partien`), for a caller that has loaded them already."""
    unfinished = [p for p in partien if not p.finished]
    return unfinished[:1] if (league.options or {}).get("sequential") else unfinished


def paused_text(league: League, lang: str | None = None) -> str | None:
    """``angehalten seit Donnerstag, 26.11.2026, 20:00 Uhr, vom Spielleiter per CLI`` for a paused league (in
    ``lang``, German by default; for ``show``, ``gm status`` and the archive), None for a running one."""
    if not league.paused:
        return None
    t = texts(lang or "de")
    since = format_zat(league.paused_at, league.timezone, t.lang) if league.paused_at else "?"
    by = league.paused_by or ""
    who = (t.gettext("vom Spielleiter per CLI") if by == "cli" else
           t.gettext("durch die Rücknahme einer Auswertung (ZURUECK)") if by == "zurueck" else
           t.gettext("vom Spielleiter per Mail ({address})", address=by[5:]) if by.startswith("mail ") else
           t.gettext("vom Spielleiter"))
    return t.gettext("angehalten seit {since}, {who}", since=since, who=who)


def zat_waits_text(league: League, lang: str = "de") -> str | None:
    """What the open round's ZAT of a paused league waits for, the same words in ``show``,
    ``gm status`` and the archive (``wartet auf WEITER des Spielleiters``; in ``lang``, the
    archive gives the league's language); None for a running league. A paused league's ZAT
    is neither scheduled nor fired until the game master resumes it (issue 33)."""
    if not league.paused:
        return None
    return texts(lang).gettext(N_("wartet auf WEITER des Spielleiters"))


def period_name(game, number: int, lang: str, *, heading: bool = False) -> str:
    """Round ``number`` as ``game`` names it to its players, in ``lang``: "Runde 3"; in a
    game of turns "Zug 2" or "die Eröffnung" (Dutch "ronde 3", "beurt 2", "de opening";
    :meth:`~bot.games.base.GameRules.turn_of`, issue 32). Inside a sentence by default;
    ``heading``: a heading or link, capitalised and without article ("Eröffnung",
    "Ronde 3"). The one naming of the GM's answers, the notices and the archive."""
    t = texts(lang)
    turn = game.turn_of(number)
    if turn is None:
        text = t.gettext("Runde {round}", round=number)
    elif turn >= 1:
        text = t.gettext("Zug {turn}", turn=turn)
    else:
        text = t.gettext("Eröffnung") if heading else t.gettext("die Eröffnung")
    return text[:1].upper() + text[1:] if heading else text

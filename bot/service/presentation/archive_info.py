"""The words of the league archive that come from the league data, in a language: the
status row of a league (running, paused since, finished; the open round or turn and the
next ZAT) and the label of each adjudicated round ("Runde 3"; in a game of turns "Zug 2"
or "Eröffnung", :meth:`~bot.games.base.GameRules.turn_of`, issue 32). A league's own
pages are in the league's language, the index of every league in German (the site's
front page, :mod:`bot.service.presentation.archive`)."""

from __future__ import annotations

from typing import Any, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.games.base import GameRules
from bot.i18n import texts
from bot.render import format_zat
from bot.service.domain.league import period_name, zat_waits_text
from bot.storage.models import League, Round


def period_label(game: GameRules, number: int, lang: str) -> str:
    """Round ``number`` as a heading or link names it in ``lang``: ``Runde 3``, in a game
    of turns ``Zug 2`` or ``Eröffnung`` (Dutch ``Ronde 3``, ``Beurt 2``, ``Opening``;
    :func:`~bot.service.domain.league.period_name`)."""
    return period_name(game, number, lang, heading=True)


def league_info(s: Session, league: League, game: GameRules, done: Sequence[int], lang: str) -> dict[str, Any]:
    """The status row of ``league`` in ``lang`` (``done``: the numbers of its adjudicated
    rounds): ``status`` ("läuft", "angehalten seit ...", "beendet"), ``round`` ("Runde 3
    von 20", "Zug 4", "12 Züge gespielt"), ``next_zat`` ("–" when none), ``played`` (the
    last adjudicated round, 0 before the first) and ``finished``. Who paused a league is
    the GM's business, not the public's (issue 33)."""
    t = texts(lang)
    rnd = s.scalar(select(Round).where(Round.league_id == league.id, Round.status == "open")
                   .order_by(Round.number))
    capped = bool(game.fixed_rounds or game.default_rounds)
    last = done[-1] if done else 0
    finished = league.status == "finished"
    if finished:
        played = game.shown_number(last) if last else 0
        # a game of turns counts turns, as its mails do (RONDO, "Wer behält recht?"; issue 32)
        round_text = (t.ngettext("{n} Zug gespielt", "{n} Züge gespielt", played) if game.turn_rounds else
                      t.ngettext("{n} Runde gespielt", "{n} Runden gespielt", played))
        return {"status": t.gettext("beendet"), "round": round_text, "next_zat": "–", "played": last,
                "finished": True}
    if league.paused:
        status = (t.gettext("angehalten seit {since}", since=format_zat(league.paused_at, league.timezone, lang))
                  if league.paused_at else t.gettext("angehalten"))
    else:
        status = t.gettext("läuft")
    n = rnd.number if rnd else last + 1
    round_text = (t.gettext("Runde {round} von {rounds}", round=n, rounds=league.rounds)
                  if capped and not game.turn_rounds else period_label(game, n, lang))
    zat = format_zat(rnd.zat, league.timezone, lang) if rnd else "–"
    waits = zat_waits_text(league, lang)
    if rnd and waits:  # a paused league's ZAT comes only with the GM's WEITER (issue 32)
        zat = f"{zat} ({waits})"
    return {"status": status, "round": round_text, "next_zat": zat, "played": last, "finished": False}

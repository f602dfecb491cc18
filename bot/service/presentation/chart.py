"""The standings chart: every player's points (or Besser-Wertung) over the rounds, as the
data of an inline SVG (``templates/chart.html.j2``), shown below the table in every HTML
Auswertung and in the archive.

No game rules here: the values are the ``points`` of the stored :class:`Result` rows
(what counts in the standings of any game), summed over the Partien and accumulated round
by round; the caption comes from the game's optional template ``<game>/chart_title.txt``
(Monoscrabble: "Besser-Wertung"), else "Punkte".

Drawn so that a person can read it without colour, in light and dark mode and on a
phone: lines in colours that keep at least 3:1 contrast against white and against a dark
background (#121212), a dash pattern of its own from the ninth player on, a dot on every
round, and a legend below with each player's name and final value; text in
``currentColor``; a ``<title>``/``<desc>`` naming every player's values for screen readers.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from jinja2 import TemplateNotFound
from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.games.registry import get_game
from bot.i18n import N_, texts
from bot.render import environment, render
from bot.storage.models import League, Partie, Result

#: Line colours: each has at least 3:1 contrast against white and against #121212
#: (WCAG 1.4.11 for graphics), Okabe-Ito and ColorBrewer tones.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#9467BD", "#A6761D", "#E7298A", "#888888")
#: Dash patterns, one per block of len(COLOURS) players ("" = solid).
DASHES = ("", "7 4", "2 3", "9 3 2 3")

WIDTH = 420          # SVG user units (scaled to the page width by viewBox)
PLOT_TOP = 12
PLOT_HEIGHT = 220
LEFT = 40
RIGHT = 14
LEGEND_ROW = 20


@dataclass
class Series:
    """One player's line: ``name`` and ``values``, the cumulative points after round
    1, 2, ... (one int per round of the chart)."""

    name: str
    values: list[int]


@dataclass
class History:
    """Cumulative points per player over ``rounds`` (1..n), best player first."""

    rounds: list[int]
    series: list[Series] = field(default_factory=list)


def points_history(s: Session, league: League, upto: int | None = None) -> History:
    """Every active player's cumulative standings points after each adjudicated round
    (1..``upto``, default the last with results), from the ``results`` table; players in
    the order of the standings (most points first, then raw score, then name). A game's
    :attr:`~bot.games.base.GameRules.opening_rounds` are left out (their points still count)."""
    partien = list(s.scalars(select(Partie.id).where(Partie.league_id == league.id)))
    per: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    raw: dict[int, int] = defaultdict(int)
    last = 0
    if partien:
        q = select(Result.player_id, Result.round_number, Result.points, Result.score).where(
            Result.partie_id.in_(partien))
        if upto is not None:
            q = q.where(Result.round_number <= upto)
        for pid, rnd, pts, score in s.execute(q):
            per[pid][rnd] += pts
            raw[pid] += score or 0
            last = max(last, rnd)
    n = upto if upto is not None else last
    rounds = list(range(1, n + 1))
    series = []
    for p in league.players:
        if not p.active:
            continue
        acc, values = 0, []
        for r in rounds:
            acc += per[p.id].get(r, 0)
            values.append(acc)
        series.append((p, values))
    series.sort(key=lambda x: (-(x[1][-1] if x[1] else 0), -raw[x[0].id], x[0].name.lower()))
    skip = get_game(league.game).opening_rounds  # a game of turns: the chart counts turns (RONDO's opening is none)
    return History(rounds[skip:], [Series(p.name, v[skip:]) for p, v in series])


def chart_title(game_name: str, lang: str = "de") -> str:
    """The caption of the chart: the game's ``<game>/chart_title.txt``, else "Punkte"."""
    try:
        return environment(lang).get_template(f"{game_name}/chart_title.txt").render().strip()
    except TemplateNotFound:
        return texts(lang).gettext(N_("Punkte"))


def _nice_step(span: float, ticks: int = 5) -> int:
    """A step of 1, 2 or 5 times a power of ten giving about ``ticks`` intervals."""
    raw = max(span / ticks, 1)
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return int(m * mag)
    return int(10 * mag)


def layout(history: History, title: str, lang: str = "de", turns: bool = False) -> dict[str, Any] | None:
    """The geometry of the chart for ``templates/chart.html.j2``, or None before the first
    round: ``width``, ``height``, ``title``, ``desc`` (every player's final value, for
    screen readers), the plot box, ``yticks``/``xticks`` (``pos``, ``label``), and per
    player ``lines`` (``name``, ``colour``, ``dash``, ``points`` as an SVG points string
    starting at round 0 with 0, ``dots``, ``final``, legend position ``lx``/``ly``).
    None as well while every value is 0: flat lines say nothing (Crossword scores only at
    the end; a round in which nobody moved). ``turns``: the game's rounds are turns
    (RONDO), and the axis says so."""
    if not history.rounds or not history.series or not any(v for s in history.series for v in s.values):
        return None
    n = len(history.rounds)
    values = [v for s in history.series for v in s.values] + [0]
    lo, hi = min(values), max(values)
    step = _nice_step(hi - lo or 1)
    lo_t = math.floor(lo / step) * step
    hi_t = math.ceil(hi / step) * step
    if hi_t == lo_t:
        hi_t = lo_t + step
    x0, x1 = LEFT, WIDTH - RIGHT
    y0, y1 = PLOT_TOP, PLOT_TOP + PLOT_HEIGHT

    def X(r: int) -> float:
        return round(x0 + (x1 - x0) * r / n, 1)

    def Y(v: float) -> float:
        return round(y1 - (y1 - y0) * (v - lo_t) / (hi_t - lo_t), 1)

    yticks = [{"pos": Y(v), "label": f"{v}".replace("-", "\u2212")} for v in range(lo_t, hi_t + 1, step)]
    xstep = max(1, math.ceil(n / 10))
    xticks = [{"pos": X(r), "label": str(r)} for r in range(0, n + 1, xstep)]
    if n % xstep and X(n) - xticks[-1]["pos"] >= 18:  # the last round, unless it would overlap
        xticks.append({"pos": X(n), "label": str(n)})
    lines = []
    legend_top = y1 + 42
    for i, s in enumerate(history.series):
        pts = [(X(0), Y(0))] + [(X(r), Y(v)) for r, v in zip(range(1, n + 1), s.values)]
        lines.append({
            "name": s.name, "colour": COLOURS[i % len(COLOURS)], "dash": DASHES[(i // len(COLOURS)) % len(DASHES)],
            "points": " ".join(f"{x:g},{y:g}" for x, y in pts), "dots": pts[1:] if n <= 40 else [],
            "final": s.values[-1], "series": s.values,
            "lx": LEFT, "ly": legend_top + i * LEGEND_ROW,
        })
    desc = "; ".join(f"{s.name}: {s.values[-1]}" for s in history.series)
    t = texts(lang)
    return {"width": WIDTH, "height": legend_top + len(lines) * LEGEND_ROW, "title": title,
            "heading": (t.gettext("{title} nach Zügen", title=title) if turns
                        else t.gettext("{title} nach Runden", title=title)),
            "desc": (t.gettext("{title} nach Zug {n}: {desc}.", title=title, n=n, desc=desc) if turns
                     else t.gettext("{title} nach Runde {n}: {desc}.", title=title, n=n, desc=desc)),
            "xtitle": t.gettext("Zug Nr.") if turns else t.gettext("Runde"),
            "x0": x0, "x1": x1, "y0": y0, "y1": y1, "zero": Y(0), "yticks": yticks, "xticks": xticks,
            "xlabel_y": y1 + 16, "xtitle_y": y1 + 30, "lines": lines, "rounds": n}


#: Lines in the chart of an Auswertung: the leaders of the standings (the table lists
#: everybody; a line per player would make the mail grow with the square of the league).
MAIL_LINES = 10


def render_chart(history: History, title: str, limit: int | None = None, lang: str = "de",
                 turns: bool = False) -> str:
    """The inline SVG (with its heading) of ``history``, or "" while there is nothing to draw
    (before the first round, or while every player has 0). ``limit``: draw only the first
    that many players of the standings (the heading says so)."""
    total = len(history.series)
    if limit is not None and total > limit:
        history = History(history.rounds, history.series[:limit])
    data = layout(history, title, lang, turns)
    if data and len(history.series) < total:
        note = texts(lang).gettext("die ersten {n} von {total} Spielern", n=len(history.series), total=total)
        data["heading"] += f" ({note})"
        data["desc"] = data["desc"].rstrip(".") + f"; {note}."
    return render("chart.html.j2", lang, chart=data) if data else ""


def league_chart(s: Session, league: League, upto: int | None = None, limit: int | None = None,
                 lang: str = "de") -> str:
    """The rendered chart of ``league`` up to round ``upto`` (default: every round) in
    ``lang``; ``limit``: the first that many players only (:data:`MAIL_LINES` in an Auswertung)."""
    return render_chart(points_history(s, league, upto), chart_title(league.game, lang), limit, lang,
                        turns=get_game(league.game).turn_rounds)


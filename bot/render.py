"""Rendering of every mail the bot sends, with the jinja templates in ``templates/``.
No game rules here: the templates get the game's report and public view as data."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from bot import TEMPLATE_DIR
from bot.i18n import DEFAULT, WEEKDAYS as _WEEKDAYS

WEEKDAYS = _WEEKDAYS["de"]


def format_zat(when: datetime | None, tz: str, lang: str = DEFAULT) -> str:
    """``Sonntag, 06.12.2026, 20:00 Uhr (UTC+01:00)`` in the league's time zone; Dutch
    (``lang="nl"``): ``zondag 06-12-2026, 20:00 uur (UTC+01:00)``."""
    if when is None:
        return "–"
    local = when.astimezone(ZoneInfo(tz))
    off = local.strftime("%z")
    if lang == "nl":
        return f"{_WEEKDAYS['nl'][local.weekday()]} {local:%d-%m-%Y, %H:%M} uur (UTC{off[:3]}:{off[3:]})"
    return f"{WEEKDAYS[local.weekday()]}, {local:%d.%m.%Y, %H:%M} Uhr (UTC{off[:3]}:{off[3:]})"


def format_arrival(when: str | datetime | None, tz: str) -> str:
    """An arrival time to the second in the league's time zone: ``06.12.2026, 20:03:15 Uhr``
    (template filter ``ankunft``: ``{{ iso|ankunft(league.timezone) }}``)."""
    if not when:
        return "–"
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    return f"{when.astimezone(ZoneInfo(tz)):%d.%m.%Y, %H:%M:%S} Uhr"


def _cell(text: str, width: int = 4) -> str:
    return text.ljust(width)


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATE_DIR)), undefined=StrictUndefined,
                      autoescape=lambda name: bool(name) and name.endswith(".html.j2"),
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["cell"] = _cell
    env.filters["signed"] = lambda v: f"{v:+d}" if isinstance(v, int) else str(v)
    env.filters["ankunft"] = format_arrival
    return env


def render(template: str, lang: str = DEFAULT, **context: Any) -> str:
    """Render ``templates/<name>`` with ``context``; StrictUndefined: a missing key raises.
    For another language than German, ``templates/<lang>/<name>`` is used when it exists
    (bot.i18n); ``lang`` is passed to the template too."""
    return template_for(template, lang).render(lang=lang, **context)


def template_for(template: str, lang: str = DEFAULT):
    """The jinja template ``template`` in ``lang`` (``<lang>/<template>`` first)."""
    env = environment()
    if lang != DEFAULT:
        return env.select_template([f"{lang}/{template}", template])
    return env.get_template(template)

"""Rendering of every mail the bot sends, with the jinja templates in ``templates/``.
No game rules here: the templates get the game's report and public view as data."""

from __future__ import annotations

import re
import textwrap
from datetime import datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from jinja2 import Environment, FileSystemLoader, StrictUndefined, TemplateNotFound

from bot import TEMPLATE_DIR
from bot.games.verdict import PUBLIC, render_text
from bot.i18n import DEFAULT, texts, translation, weekday


def format_zat(when: datetime | None, tz: str, lang: str = DEFAULT) -> str:
    """``Sonntag, 06.12.2026, 20:00 Uhr (UTC+01:00)`` in the league's time zone; Dutch
    (``lang="nl"``): ``zondag 06-12-2026, 20:00 uur (UTC+01:00)``."""
    if when is None:
        return "–"
    local = when.astimezone(ZoneInfo(tz))
    off = local.strftime("%z")
    return texts(lang).gettext("{weekday}, {dt:%d.%m.%Y, %H:%M} Uhr (UTC{offset})", weekday=weekday(lang, local.weekday()),
                               dt=local, offset=f"{off[:3]}:{off[3:]}")


#: German names of the zone abbreviations zoneinfo gives (Duden: MEZ, MESZ); other zones
#: keep their abbreviation.
_ZONE_DE = {"CET": "MEZ", "CEST": "MESZ"}


def zone_name(local: datetime, lang: str = DEFAULT) -> str:
    """The abbreviation of ``local``'s time zone as a reader of ``lang`` knows it:
    ``MEZ``/``MESZ`` in German, ``CET``/``CEST`` in Dutch, ``UTC``; an offset
    (``UTC+05:30``) where zoneinfo has no abbreviation (``+0530``)."""
    name = local.tzname() or ""
    if not name or name[0] in "+-":
        off = local.strftime("%z")
        return f"UTC{off[:3]}:{off[3:]}" if off else "UTC"
    return _ZONE_DE.get(name, name) if lang == "de" else name


def format_arrival(when: str | datetime | None, tz: str, lang: str = DEFAULT) -> str:
    """An arrival time to the second in the league's time zone, with the zone (a race is
    decided by the second): ``06.12.2026, 20:03:15 Uhr MEZ`` (template filter ``ankunft``:
    ``{{ iso|ankunft(league.timezone) }}``)."""
    if not when:
        return "–"
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    local = when.astimezone(ZoneInfo(tz))
    return texts(lang).gettext("{dt:%d.%m.%Y, %H:%M:%S} Uhr {zone}", dt=local, zone=zone_name(local, lang))


#: what a line break must not split: a parenthesis of up to 60 characters, a list of single
#: letters ("C E K R U Z", a rack or the letters of a round), a field and its letter ("A2 B"),
#: a command and its argument ("URLAUB von-bis", "AUSWERTUNG 3", "KAUFEN rot"), a count and
#: its noun ("4 Punkte"), a list number and the first word of its item ("4. Dieter")
_KEEP = re.compile(r"\([^()\n]{1,60}\)|(?<![^\s(])(?:[A-ZÄÖÜ?*/] ){2,}[A-ZÄÖÜ?*/](?![^\s).,;:])"
                   r"|\b[A-Z]\d{1,2} [A-ZÄÖÜ](?![^\s.,;:])"
                   r"|\b[A-ZÄÖÜ]{4,} [a-zäöü0-9][^\s]{0,11}(?!\S)"  # a command and its argument: URLAUB von-bis
                   r"|(?<![\d.,:-])\b\d{1,4} [A-ZÄÖÜ][a-zäöüß]+"  # a count and its noun: "4 Punkte", "39 Steine"
                   r"|(?<![\d.,:-])\b\d{1,2}\. [A-ZÄÖÜ]\S*")  # a number of a list and what it numbers: "4. Dieter"


#: a short last word ("6.", "1,") is not left alone on a line: it keeps the word before it
_ORPHAN = re.compile(r" (\S{1,3})$")


def _kept(line: str) -> str:
    """``line`` with the spaces that must not break made non-breaking (:data:`_KEEP`,
    :data:`_ORPHAN`)."""
    return _ORPHAN.sub("\u00a0\\1", _KEEP.sub(lambda m: m.group(0).replace(" ", "\u00a0"), line))


def wrap(text: str, width: int = 72) -> str:
    """``text`` wrapped at ``width`` (each line on its own, as jinja's ``wordwrap``; an
    indented or quoted (``>``) line is left alone) but never inside a short parenthesis or
    a list of letters, and never with a short last word alone on the last line (template
    filter ``wrap``)."""
    return _wrapped(str(text), width)


@lru_cache(maxsize=8192)
def _wrapped(text: str, width: int) -> str:
    """:func:`wrap` of a string, remembered: the same notes and verdicts are wrapped for
    many mails of a round (an acknowledgement's moves, its fixed paragraphs)."""
    lines = [line if line[:1].isspace() or line[:1] == ">" else  # a listing, a board, a quote stay as they are
             textwrap.fill(_kept(line), width, break_long_words=False, break_on_hyphens=False) or ""
             for line in text.split("\n")]
    return "\n".join(lines).replace("\u00a0", " ")


def wordwrap(text: object, width: int = 79, break_long_words: bool = True, wrapstring: str | None = None,
             break_on_hyphens: bool = True) -> str:
    """jinja's ``wordwrap`` with :func:`wrap`'s rules (the template filter ``wordwrap``):
    each line of ``text`` filled to ``width``, continuation lines joined by ``wrapstring``
    (default a newline); no word and no hyphenated word broken, no letter list, field,
    short parenthesis or name kept by ``nobreak`` split, no short last word alone."""
    sep = "\n" if wrapstring is None else wrapstring
    out = [sep.join(textwrap.wrap(_kept(line), width, break_long_words=False, break_on_hyphens=False)) or ""
           for line in str(text).split("\n")]
    return "\n".join(out).replace("\u00a0", " ")


def nobreak(text: object) -> str:
    """``text`` that :func:`wrap` keeps on one line ("Bernd Becker 1": a name and its
    number); its spaces come back as plain spaces (template filter ``nobreak``)."""
    return str(text).replace(" ", "\u00a0")


def _cell(text: str, width: int = 4) -> str:
    return text.ljust(width)


def environment(lang: str = DEFAULT) -> Environment:
    """The jinja environment of ``lang`` (one per language, made once)."""
    return _environment(lang)


def _public_verdict(value: Any, lang: str) -> str:
    """``{{ v|verdict }}`` (also ``{{ v|say }}``): a verdict a game left in its public view
    or state (as data, e.g. Crossword's scored word list at the end, a turn record's
    ``summary``) rendered in ``lang`` for everybody; a text stored before issue 31 as it
    is. A verdict that is not public raises :class:`~bot.games.base.PrivacyError`
    (:mod:`bot.games.verdict`)."""
    if value is None or isinstance(value, str):
        return value or ""
    return render_text(value, lang, PUBLIC)


@lru_cache(maxsize=None)
def _environment(lang: str) -> Environment:
    """The jinja environment of ``lang``: the templates with jinja2's ``i18n`` extension and
    the gettext catalog of ``lang`` installed (``{{ _("Runde %(n)s", n=3) }}``,
    ``{{ ngettext("%(num)s Stein", "%(num)s Steine", n) }}``, ``{% trans %}``; newstyle:
    the placeholders are filled by the call, and ``%`` in a message is written ``%%``)."""
    env = Environment(loader=FileSystemLoader(str(TEMPLATE_DIR)), undefined=StrictUndefined,
                      autoescape=lambda name: bool(name) and name.endswith(".html.j2"),
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                      extensions=["jinja2.ext.i18n"], auto_reload=False)  # a template is read once a process
    env.install_gettext_translations(translation(lang), newstyle=True)
    env.globals["_"] = env.globals["gettext"]  # the same function, without the extension's alias around it
    env.filters["cell"] = _cell
    env.filters["wrap"] = wrap
    env.filters["wordwrap"] = wordwrap
    env.filters["nobreak"] = nobreak
    env.filters["signed"] = lambda v: f"{v:+d}" if isinstance(v, int) else str(v)
    env.filters["ankunft"] = lambda when, tz: format_arrival(when, tz, lang)
    env.filters["verdict"] = lambda v: _public_verdict(v, lang)
    env.filters["say"] = env.filters["verdict"]
    env.globals["lang"] = lang
    return env


def render(template: str, lang: str = DEFAULT, **context: Any) -> str:
    """Render ``templates/<name>`` in ``lang`` (its gettext catalog, bot.i18n) with
    ``context``; StrictUndefined: a missing key raises. ``lang`` is passed to the template too."""
    return template_for(template, lang).render(lang=lang, **context)


def has_template(name: str) -> bool:
    """Whether ``templates/<name>`` exists (a game's optional part, e.g. its private box)."""
    try:
        environment().get_template(name)
        return True
    except TemplateNotFound:
        return False


def template_for(template: str, lang: str = DEFAULT):
    """The jinja template ``template`` in ``lang``: one template for every language, the
    texts from the catalog of ``lang``."""
    return environment(lang).get_template(template)

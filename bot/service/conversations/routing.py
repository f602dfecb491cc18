"""Which of a player's leagues a mail is meant for, found the way a game master would
(issue 33): a player in several running leagues writes without naming the league.

The signs, in this order:

1. the thread: ``In-Reply-To``, then ``References`` (newest first), pointing at one of
   the bot's own mails; every outbox row knows its league (``outbox.league_id``), so
   no table of its own is needed. A Message-ID of a league the sender does not play in
   counts for nothing (a forged header routes no one into a league);
2. the Partie names of the mail's section lines (``Partie R1:``, ``K1:``) that belong
   to exactly one of the player's leagues (names shared by two leagues say nothing);
3. the subject naming a league: its whole name, else a distinctive part of it (``Typ-Dom``
   for ``Typ-Dom-Winter``: words of the name, matched case-insensitively as whole words,
   that occur in only one of the player's league names; a bare number or a word of one
   or two letters alone is never a part, ``Liga 2`` is).

The signs that speak must agree. When they disagree or none speaks the player is asked,
in one mail, with the list of their leagues (:func:`ask`). ``STAND``, ``HILFE`` and
``AUSWERTUNG n`` without a league are answered for each league (:data:`EACH_LEAGUE`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from sqlalchemy import select

from bot.i18n import league_language, texts
from bot.render import wrap
from bot.storage.models import League, OutboxMail, Partie, Player, PlayerAddress
from bot.submission import frame_line

#: commands answered once for each of the player's leagues when the mail names none
EACH_LEAGUE = {"STAND", "HILFE", "AUSWERTUNG"}
_SPLIT = re.compile(r"[\s\-_/.:,;]+")


@dataclass
class Route:
    """What the signs said: ``league`` (None when they disagree or say nothing) and
    ``said``, the pairs (sign, league) for the question: sign ``thread`` | ``partien`` |
    ``subject``; ``partien`` the Partie names that spoke."""

    league: League | None
    said: list[tuple[str, League]] = field(default_factory=list)
    partien: list[str] = field(default_factory=list)


def route(s, rm, text: str, leagues: Sequence[League]) -> Route:
    """The league among ``leagues`` (the sender's running ones, at least one) that the
    mail ``rm`` (a :class:`bot.mail.message.ReadMail`, its new text ``text``) is meant
    for, by the signs of this module's docstring."""
    said: list[tuple[str, League]] = []
    by_id = {lg.id: lg for lg in leagues}
    thread = thread_league(s, rm, by_id)
    if thread is not None:
        said.append(("thread", thread))
    found, names = partie_leagues(s, text, by_id)
    said += [("partien", lg) for lg in found]
    said += [("subject", lg) for lg in subject_leagues(rm.subject or "", leagues)]
    chosen = {lg.id for _, lg in said}
    if len(chosen) == 1:
        return Route(by_id[chosen.pop()], said, names)
    if not said and len(leagues) == 1:
        return Route(leagues[0], said, names)
    return Route(None, said, names)


def thread_league(s, rm, by_id: dict[int, League]) -> League | None:
    """The league of the newest of our mails the mail answers (``In-Reply-To``, then
    ``References`` from the newest), if it is one of ``by_id``; our mails without a
    league (e.g. the question of :func:`ask`) are passed over."""
    ids = [m for m in [rm.in_reply_to, *reversed(rm.references or [])] if m]
    if not ids:
        return None
    rows = dict(s.execute(select(OutboxMail.message_id, OutboxMail.league_id)
                          .where(OutboxMail.message_id.in_(ids[:20]))).all())
    for mid in ids[:20]:
        lid = rows.get(mid)
        if lid is not None:
            return by_id.get(lid)  # a league the sender does not play in: no sign
    return None


def partie_leagues(s, text: str, by_id: dict[int, League]) -> tuple[list[League], list[str]]:
    """The leagues named by the section lines of ``text`` through Partie names that
    belong to exactly one of ``by_id``, and those names."""
    heads = set()
    for line in text.splitlines():
        line = line.strip()
        if ":" in line:
            kind, name, _ = frame_line(line)
            if kind == "header" and name:
                heads.add(name.lower())
    if not heads:
        return [], []
    owners: dict[str, set[int]] = {}
    for lid, name in s.execute(select(Partie.league_id, Partie.name).where(Partie.league_id.in_(list(by_id)))):
        owners.setdefault(name.lower(), set()).add(lid)
    hits = sorted(n for n in heads if len(owners.get(n, ())) == 1)
    found = {next(iter(owners[n])) for n in hits}
    return [by_id[i] for i in sorted(found)], [n.upper() for n in hits]


def _parts(name: str) -> set[str]:
    """The runs of words of a league name (lower case, joined by one space) that may
    stand for it: the whole name, and every run but a lone number or short word."""
    words = [w for w in _SPLIT.split(name.lower()) if w]
    runs = {" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)}
    return {r for r in runs if " " in r or (not r.isdigit() and len(r) > 2)}


def subject_leagues(subject: str, leagues: Sequence[League]) -> list[League]:
    """The leagues ``subject`` names: the longest whole names found in it, else the
    leagues a distinctive part of whose name (one no other of ``leagues`` shares) is in it."""
    words = " " + " ".join(w for w in _SPLIT.split(subject.lower()) if w) + " "
    whole = [lg for lg in leagues if f" {' '.join(_SPLIT.split(lg.name.lower())).strip()} " in words]
    whole = [lg for lg in whole if not any(lg is not o and lg.name.lower() in o.name.lower() for o in whole)]
    if whole:
        return whole
    parts = {lg.id: _parts(lg.name) for lg in leagues}
    named = []
    for lg in leagues:
        mine = parts[lg.id] - set().union(*(p for i, p in parts.items() if i != lg.id))
        if any(f" {p} " in words for p in mine):
            named.append(lg)
    return named


def routed(ctx, rows: list, found, text: str) -> list:
    """The rows (player, league, address) of the sender's running ``rows`` (several) that
    the mail is for: the one league :func:`route` finds; every league for a command of
    :data:`EACH_LEAGUE` (``found``, from ``find_command``) when no sign speaks (the answers
    then name their league in the subject); none when the player was asked (:func:`ask`)."""
    rows = sorted(rows, key=lambda r: r[1].id)
    leagues = [r[1] for r in rows]
    found_route = route(ctx.s, ctx.rm, text, leagues)
    if found_route.league is not None:
        return [r for r in rows if r[1].id == found_route.league.id]
    if found and found[0].name in EACH_LEAGUE and not found_route.said:
        ctx.league_in_subject = True
        return rows
    ctx.player = ctx.league = None  # the question belongs to no league
    ask(ctx, leagues, found_route, rows[0][0].name)
    return []


def ask(ctx, leagues: Sequence[League], found: Route, name: str | None = None) -> None:
    """Answer a mail whose league is unclear, once: what the signs said (when they
    disagree), the player's leagues and how to name one. The mail is not read further."""
    langs = {league_language(lg.options) for lg in leagues}
    lang = langs.pop() if len(langs) == 1 else "de"
    t = texts(lang)
    ctx.record("ignored", "ignored", reason="league unclear",
               said=[[sign, lg.name] for sign, lg in found.said])
    if found.said:
        signs = []
        for sign, lg in found.said:
            if sign == "thread":
                signs.append(t.gettext("sie antwortet auf eine Mail der Liga {league}", league=lg.name))
            elif sign == "partien":
                signs.append(t.gettext("ihre Partien gehören zur Liga {league}", league=lg.name))
            else:
                signs.append(t.gettext("der Betreff nennt die Liga {league}", league=lg.name))
        head = t.gettext("du spielst in mehreren Ligen, und deine Mail passt zu mehr als einer: {signs}.",
                         signs="; ".join(signs))
    else:
        head = t.gettext("du spielst in mehreren Ligen, und aus deiner Mail geht nicht hervor, welche gemeint ist.")
    body = wrap(head + " " + t.gettext("Sie wurde deshalb noch nicht gewertet.")) + "\n\n"
    body += t.gettext("Deine Ligen:") + "\n" + "\n".join(f"  - {lg.name}" for lg in leagues) + "\n\n"
    body += wrap(t.gettext("Schick die Mail bitte noch einmal: als Antwort auf eine Mail der Liga, oder "
                           "mit dem Namen der Liga im Betreff, zum Beispiel:")) + "\n\n"
    body += "  " + t.gettext("Betreff: Züge {league}", league=leagues[0].name)
    ctx.reply(body, name=name or "", lang=lang)


def several_text(s, player: Player, lang: str) -> str:
    """For a player who also plays in other running leagues (by any of their addresses):
    a paragraph naming them and saying how a mail finds its league (the start mail and
    the ``HILFE`` answer); "" for a player of one league."""
    addrs = select(PlayerAddress.email).where(PlayerAddress.player_id == player.id)
    others = list(s.scalars(select(League.name).join(Player, Player.league_id == League.id)
                            .join(PlayerAddress, PlayerAddress.player_id == Player.id)
                            .where(PlayerAddress.email.in_(addrs), League.status == "running", Player.active,
                                   League.id != player.league_id).distinct().order_by(League.name)))
    if not others:
        return ""
    t = texts(lang)
    league = s.get(League, player.league_id)
    return wrap(t.gettext("Du spielst auch in {leagues}. Damit deine Mail in der richtigen Liga ankommt: "
                          "antworte auf eine Mail der Liga (etwa diese), oder schreib den Namen der Liga "
                          "in den Betreff, zum Beispiel „Züge {league}“. STAND und HILFE ohne den Namen "
                          "einer Liga beantworte ich für jede deiner Ligen.",
                          leagues=", ".join(others), league=league.name))

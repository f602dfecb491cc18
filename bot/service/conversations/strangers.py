"""Mail from an address no running league knows (issue 31, attack 6).

Such a mail changes nothing. Who hears of it, and what:

- the sender, at that address alone: the address is not registered, the mail was not
  counted, write from the registered address or ask the game master
  (``unknown_sender``); no name and no address of anyone is in it;
- the game master of each running league the mail names (the league's name as a whole
  word in the subject or text), at ``gm_email``: the unknown address, the subject and
  the players of that league the mail names; at once, later ones within a day in one
  summary (:func:`bot.service.conversations.loops.throttled_notice`);
- each player the mail names, in a league it names (the player's full display name as a
  whole word, NFC-normalised and case-folded; never a part of a word or a name, never a
  player of a league the mail does not name): that a mail from an address not registered
  for them named them and was not counted, WITHOUT the address (it is a stranger's, or
  the player's own other one, which they know). At most one such notice a day per
  player, later ones in one summary: a stranger cannot make the bot mail a player
  at will.

Every such mail is stored with ``flagged`` = ``unknown sender <address>`` (and the
leagues and players it names; ``parse`` has their ids), for the game master's records (``spielleiter ingest
--json``, the database).
"""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.i18n import DEFAULT, gm_language, league_language, texts, tr
from bot.render import render, wrap
from bot.service.conversations.loops import _when, throttled_notice
from bot.service.conversations.mailctx import Incoming
from bot.service.domain.names import name_key
from bot.storage.models import InboundMail, League, Player

#: A named player or GM hears of such mails at most once per this window (then in one summary).
DAY = timedelta(days=1)

#: ``inbound_mails.flagged`` of a mail from an unknown sender starts with this.
FLAG = "unknown sender"


def names(name: str, hay: str) -> bool:
    """Does ``hay`` (already :func:`~bot.service.domain.names.name_key`-normalised:
    NFC, case-folded, white space collapsed) name ``name`` as a whole: the full name,
    not inside a longer word (``"Hallo"`` does not name ``"Hal"``, ``"Anna Albersen"``
    does not name ``"Anna Albers"``)? An empty name names nothing."""
    key = name_key(name)
    return bool(key) and re.search(rf"(?<!\w){re.escape(key)}(?!\w)", hay) is not None


def unknown_sender(ctx: Incoming, text: str) -> None:
    """Handle ``ctx.mail`` from an unknown address (``text``: its new text): record it as
    ignored and flagged, answer the sender, tell the game masters and the players it
    names (see the module docstring). Queues mails; returns nothing.

    The sender's answer is in the language of the running league the mail names (the
    longest name, if several), else in the one language all running leagues share, else
    in each of their languages, German first (:func:`answer_languages`); a named player's
    notice is in the language of that player's league, the GM's in the GM's language."""
    s, addr = ctx.s, ctx.rm.from_addr
    hay = name_key(f"{ctx.rm.subject}\n{text}")
    running = list(s.scalars(select(League).where(League.status == "running").order_by(League.id)))
    leagues = [lg for lg in running if names(lg.name, hay)]
    named = [p for lg in leagues for p in lg.players if p.active and names(p.name, hay)]
    ctx.record("ignored", "ignored", reason=FLAG, leagues=[lg.id for lg in leagues], named=[p.id for p in named])
    flag = f"{FLAG} {addr}"
    if leagues:
        flag += "; names " + "; ".join(
            lg.name + "".join(f", {p.name}" for p in named if p.league_id == lg.id) for lg in leagues)
    ctx.mail.flagged = flag
    langs = answer_languages(running, leagues)
    ctx.reply("\n\n".join(wrap(tr(lang, "unknown_sender")) for lang in langs), lang=langs[0])
    for lg in leagues:
        gm = (lg.gm_email or "").strip()
        if gm and gm.lower() != addr.lower():
            _tell_gm(ctx, lg, gm)
    for p in named:  # not about their game master's own mail (a GM's address is no stranger's)
        if p.email and (p.league.gm_email or "").strip().lower() != addr.lower():
            _tell_player(ctx, p)


def answer_languages(running: list[League], named: list[League]) -> list[str]:
    """The languages to answer an unknown sender in: the language of the ``named`` league
    with the longest name, else the languages of all ``running`` leagues (German first,
    then in league order; German alone when none runs)."""
    if named:
        return [league_language(max(named, key=lambda lg: len(lg.name)).options)]
    langs = list(dict.fromkeys(league_language(lg.options) for lg in running)) or [DEFAULT]
    return sorted(langs, key=lambda lang: lang != DEFAULT)  # stable: the rest in league order


def _since(s: Session, first: int, test) -> list[InboundMail]:
    """The unknown senders' mails from id ``first`` on for which ``test(parse)`` holds."""
    rows = s.scalars(select(InboundMail).where(InboundMail.id >= first, InboundMail.kind == "ignored")
                     .order_by(InboundMail.id))  # not by ``flagged``: the rate limit may write over it
    return [m for m in rows if (m.parse or {}).get("reason") == FLAG and test(m.parse)]


def _tell_player(ctx: Incoming, player: Player) -> None:
    """The named player's notice: no address, no other name; one a day, then a summary."""
    league, s = player.league, ctx.s
    lang = league_language(league.options)
    t = texts(lang)
    gm = bool((league.gm_email or "").strip())

    def render_mail(first: int, summary: bool) -> tuple[str, str]:
        n = len(_since(s, first, lambda parse: player.id in (parse.get("named") or [])))
        if summary:
            body = t.ngettext("seit dem letzten Hinweis kam {n} weitere Mail von einer Adresse, die in {league} "
                              "nicht angemeldet ist, und nennt dich. Sie wurde nicht gewertet und hat nichts "
                              "verändert.",
                              "seit dem letzten Hinweis kamen {n} weitere Mails von Adressen, die in {league} "
                              "nicht angemeldet sind, und nennen dich. Keine wurde gewertet, keine hat etwas "
                              "verändert.", n, league=league.name)
        else:
            body = tr(lang, "named_by_unknown", league=league.name)
        body += "\n\n" + t.gettext(
            "Warst du das, schick deine Züge bitte noch einmal von der Adresse, an die dieser Hinweis geht. "
            "Warst du es nicht, musst du nichts tun.")
        if gm:
            body += " " + t.gettext("Der Spielleiter weiß Bescheid.")
        if not summary:
            body += " " + t.gettext("Weitere solche Mails fasse ich höchstens einmal am Tag in einem Hinweis "
                                    "zusammen.")
        return tr(lang, "subject_notice", league=league.name), render("notice.txt.j2", lang, name=player.name,
                                                                       body=wrap(body), league=league.name)

    throttled_notice(s, ctx.cfg, topic=f"named:{player.id}", item=ctx.mail.id, to=player.email, now=ctx.now,
                     window=DAY, kind="auth", render_mail=render_mail, league_id=league.id)


def _tell_gm(ctx: Incoming, league: League, to: str) -> None:
    """The game master's notice, with the unknown addresses: at once, then a daily summary."""
    s, lang = ctx.s, gm_language(league.options)
    t = texts(lang)
    players = {p.id: p.name for p in league.players}

    def line(m: InboundMail) -> str:
        who = [players[i] for i in (m.parse or {}).get("named") or [] if i in players]
        return t.gettext("  - {when}, von {addr}", when=_when(m.received_at, league.timezone, lang),
                         addr=m.from_addr or "?") + "\n    " + t.gettext(
            "Betreff: {subject}", subject=" ".join((m.subject or "").split())[:50] or "-") + (
            "\n    " + t.gettext("nennt: {names}", names=", ".join(who)) if who else "")

    def render_mail(first: int, summary: bool) -> tuple[str, str]:
        mails = _since(s, first, lambda parse: league.id in (parse.get("leagues") or []))
        n = len(mails)
        body = t.ngettext("{n} Mail nennt {league}, kam aber von einer Adresse, die in keiner laufenden Liga "
                          "angemeldet ist:",
                          "{n} Mails nennen {league}, kamen aber von Adressen, die in keiner laufenden Liga "
                          "angemeldet sind:", n, league=league.name)
        body += "\n\n" + "\n".join(line(m) for m in mails[-10:]) + "\n\n" + t.gettext(
            "Keine wurde gewertet, nichts wurde verändert. Der Absender bekam nur die Antwort, dass seine "
            "Adresse nicht angemeldet ist (ohne Namen, ohne Adressen); ein genannter Spieler erfährt an seiner "
            "Adresse, dass eine Mail ihn nennt, aber nicht, von welcher Adresse. Schreibt ein Spieler von einer "
            "neuen Adresse, kann er sie von seiner angemeldeten aus mit ADRESSE eintragen; Züge, die so nicht "
            "gewertet wurden, kannst du mit SETZE eintragen. Weitere Hinweise dieser Art kommen höchstens "
            "einmal am Tag.")
        subject = t.ngettext("{league}: Mail von unbekannter Adresse", "{league}: {n} Mails von unbekannten "
                             "Adressen", n, league=league.name)
        return subject, render("notice.txt.j2", lang, name=t.gettext("Spielleiter"), body=wrap(body),
                               league=league.name)

    throttled_notice(s, ctx.cfg, topic=f"unknown:{league.id}", item=ctx.mail.id, to=to, now=ctx.now, window=DAY,
                     kind="gm-notice", render_mail=render_mail, league_id=league.id)

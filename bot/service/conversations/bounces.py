"""Bounces: a non-delivery report about one of the bot's outbox mails (part of the
loops and noise of :mod:`bot.service.conversations.loops`).

:func:`handle_bounce` marks that row (``last_error``), flags the stored bounce for the
game master, marks a player's address that failed for good as bouncing and tells the
league's GM (``League.gm_email``) at most once a day
(:func:`~bot.service.conversations.loops.throttled_notice`).
"""

from __future__ import annotations

import textwrap
from datetime import timedelta

from sqlalchemy import select

from bot.i18n import gm_language, texts
from bot.mail.bounce import find_bounce
from bot.render import render, wrap
from bot.service.conversations.loops import _when, throttled_notice
from bot.service.conversations.mailctx import Incoming
from bot.storage.models import InboundMail, League, OutboxMail, Player, PlayerAddress

__all__ = ["handle_bounce", "DAY"]


def handle_bounce(ctx: Incoming) -> bool:
    """Deal with ``ctx.mail`` if it is a bounce; returns True when it was one (then the
    mail is recorded as ``ignored``, reason ``bounce...``, and must not be answered).

    When the report names one of our outbox mails (by Message-ID): that row's
    ``last_error`` says it bounced and the inbound mail's ``flagged`` names recipient and
    report. A permanent failure of a player's address (flufl.bounce) marks the address
    as bouncing (``PlayerAddress.bounced_at``; reports then go to the player's other
    addresses) when the report is about a mail of ours or we wrote to that address in
    the last :data:`BOUNCE_TRUST` days. The league's GM (``gm_email``) is told at most
    once a day (:func:`throttled_notice`), never about a mail to the GM or a notice
    itself. A bounce about nothing of ours is recorded, not flagged (backscatter); so is
    a mere delay warning."""
    bounce = find_bounce(ctx.mail.raw, ctx.rm)
    if bounce is None:
        return False
    if bounce.delayed:  # a warning only: the mail may still arrive
        ctx.record("ignored", "ignored", reason="bounce: delay warning", auto=ctx.rm.auto or bounce.why,
                   recipients=bounce.recipients, report=bounce.summary)
        return True
    s, now = ctx.s, ctx.now
    rows = list(s.scalars(select(OutboxMail).where(OutboxMail.message_id.in_(bounce.message_ids))
                          .order_by(OutboxMail.id))) if bounce.message_ids else []
    if not rows:
        ctx.record("ignored", "ignored", reason="bounce: no mail of ours", auto=ctx.rm.auto or bounce.why,
                   recipients=bounce.recipients, report=bounce.summary)
        return True
    marked = _mark_bouncing(ctx, bounce)
    recipients = bounce.recipients or sorted({r.to_addr.lower() for r in rows})
    for row in rows:
        row.last_error = f"bounced (Unzustellbar, inbound mail {ctx.mail.id}): {bounce.summary}"
    what = ", ".join(f"{r.kind} {r.subject!r}" for r in rows)
    ctx.mail.flagged = (f"Unzustellbar / bounced: Mail an {', '.join(recipients)} kam zurück ({what}): "
                        f"{bounce.summary}")
    ctx.record("ignored", "ignored", reason="bounce", auto=ctx.rm.auto or bounce.why, recipients=recipients,
               permanent=bounce.permanent, outbox=[r.id for r in rows], report=bounce.summary,
               bouncing=[a.email for a in marked])
    leagues = {r.league_id for r in rows if r.league_id} | {a.player.league_id for a in marked}
    if not leagues:
        return True
    ctx.mail.league_id = min(leagues)
    for league in s.scalars(select(League).where(League.id.in_(leagues)).order_by(League.id)):
        gm = (league.gm_email or "").strip()
        if not gm or any(r.kind in ("bounce", "gm-notice") or r.to_addr.lower() == gm.lower() for r in rows):
            continue  # nobody to tell, or telling would loop
        throttled_notice(s, ctx.cfg, topic=f"bounce:{league.id}", item=ctx.mail.id, to=gm, now=now, window=DAY,
                         kind="bounce", league_id=league.id,
                         render_mail=lambda first, summary, league=league: _bounce_notice(ctx, league, first,
                                                                                          summary))
    return True


#: The GM hears about bounces at most once per this window.
DAY = timedelta(days=1)


def _mark_bouncing(ctx: Incoming, bounce) -> list[PlayerAddress]:
    """Mark the player addresses (running leagues) that failed permanently; returns the
    newly marked ones."""
    if not bounce.permanent:
        return []
    out = list(ctx.s.scalars(select(PlayerAddress).join(Player).join(League).where(
        PlayerAddress.email.in_(bounce.permanent), League.status == "running", Player.active,
        PlayerAddress.bounced_at.is_(None))))
    for addr in out:
        addr.bounced_at, addr.bounce_reason = ctx.now, bounce.summary[:300]
    if out:  # written now: the quoted-block check reads the addresses on the connection
        ctx.s.flush()
    return out


def _bounce_notice(ctx: Incoming, league: League, first: int, summary: bool) -> tuple[str, str]:
    """The GM's notice about bounces of the bot's mails (in the GM's language,
    ``gm_language``): each bounce with when, to whom and the report (the server's own
    words, as they came), the addresses now held undeliverable. Returns (subject, text)."""
    s, lang = ctx.s, gm_language(league.options)
    t = texts(lang)
    mails = list(s.scalars(select(InboundMail).where(
        InboundMail.id >= first, InboundMail.flagged.like("Unzustellbar / bounced:%")).order_by(InboundMail.id)))
    mails = [m for m in mails if m.id == ctx.mail.id or m.league_id == league.id]

    def line(m: InboundMail) -> str:
        parse = m.parse or {}
        to = ", ".join(parse.get("recipients") or []) or "?"
        report = str(parse.get("report") or m.flagged.partition(": ")[2])[:400]
        return textwrap.fill(t.gettext("  - {when}: Mail an {to} kam zurück: {report}", when=_when(
            m.received_at, league.timezone, lang), to=to, report=report), 72, subsequent_indent="    ",
            break_long_words=False, break_on_hyphens=False)

    bouncing = list(s.scalars(select(PlayerAddress).join(Player).where(
        Player.league_id == league.id, Player.active, PlayerAddress.bounced_at.is_not(None))))
    body = wrap(t.ngettext("eine Mail des Bots kam als unzustellbar zurück:",
                           "{n} Mails des Bots kamen seit dem letzten Hinweis als unzustellbar zurück:", len(mails)))
    body += "\n\n" + "\n".join(line(m) for m in mails[-10:])
    if bouncing:
        body += "\n\n" + t.gettext("Diese Adressen gelten als dauerhaft unzustellbar:") + "\n" + "\n".join(
            t.gettext("  - {name}: {addr} (seit {when})", name=a.player.name, addr=a.email,
                      when=_when(a.bounced_at, league.timezone, lang)) for a in bouncing)
        body += "\n\n" + wrap(t.gettext(
            "Auswertungen gehen an eine andere Adresse des Spielers, wenn er eine hat; schreibt er wieder von der "
            "Adresse, gilt sie wieder."))
    body += "\n\n" + wrap(t.gettext(
        "Bitte prüf die Adressen; die Rückmeldungen sind im Bot gespeichert und markiert. Weitere Hinweise "
        "dieser Art kommen höchstens einmal am Tag."))
    who = ", ".join(sorted({r for m in mails for r in ((m.parse or {}).get("recipients") or [])})) or "?"
    subject = (t.gettext("{league}: Mail an {who} unzustellbar", league=league.name, who=who) if not summary
               else t.ngettext("{league}: {n} unzustellbare Mail ({who})", "{league}: {n} unzustellbare Mails ({who})",
                               len(mails), league=league.name, who=who))
    return subject, render("notice.txt.j2", lang, name=t.gettext("Spielleiter"), body=body, league=league.name)

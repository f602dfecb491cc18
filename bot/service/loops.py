"""Loops and noise: bounces of our own mails, and a per-sender rate limit.

Both run inside :func:`bot.service.intake.process_mail`'s transaction, on an
:class:`~bot.service.mailctx.Incoming`, and never answer the sender:

- :func:`handle_bounce`: a non-delivery report about one of our outbox mails marks that
  row (``last_error``), flags the stored bounce for the game master and queues ONE
  notice to the league's GM (``League.gm_email``).
- :func:`over_rate_limit`: more than ``cfg.rate_limit_per_hour`` mails from one address
  within an hour are stored but not answered (status ``ignored``, reason ``rate limit``),
  so a mail loop cannot make the bot send without bound.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from bot.mail.bounce import find_bounce
from bot.render import render
from bot.service.mailctx import Incoming
from bot.service.outbox import queue_mail
from bot.storage.models import InboundMail, League, OutboxMail

#: Default of ``[bot] rate_limit_per_hour``.
DEFAULT_RATE_LIMIT = 20


def handle_bounce(ctx: Incoming) -> bool:
    """Deal with ``ctx.mail`` if it is a bounce; returns True when it was one (then the
    mail is recorded as ``ignored`` with reason ``bounce`` and must not be answered).

    When the report names one of our outbox mails (by Message-ID): that row's
    ``last_error`` says it bounced, the inbound mail's ``flagged`` names recipient and
    report, and the league's GM (if ``gm_email`` is set, and the bounced mail was not
    itself to the GM or a bounce notice) gets one notice. A bounce about no mail of
    ours is recorded, not flagged (backscatter); so is a mere delay warning (DSN
    ``Action: delayed``)."""
    bounce = find_bounce(ctx.mail.raw, ctx.rm)
    if bounce is None:
        return False
    if bounce.delayed:  # a warning only: the mail may still arrive
        ctx.record("ignored", "ignored", reason="bounce: delay warning", auto=ctx.rm.auto or bounce.why,
                   recipients=bounce.recipients, report=bounce.summary)
        return True
    s = ctx.s
    rows = list(s.scalars(select(OutboxMail).where(OutboxMail.message_id.in_(bounce.message_ids))
                          .order_by(OutboxMail.id))) if bounce.message_ids else []
    if not rows:
        ctx.record("ignored", "ignored", reason="bounce: no mail of ours", auto=ctx.rm.auto or bounce.why,
                   recipients=bounce.recipients, report=bounce.summary)
        return True
    recipients = bounce.recipients or sorted({r.to_addr.lower() for r in rows})
    for row in rows:
        row.last_error = f"bounced (Unzustellbar, inbound mail {ctx.mail.id}): {bounce.summary}"
    what = ", ".join(f"{r.kind} {r.subject!r}" for r in rows)
    ctx.mail.flagged = (f"Unzustellbar / bounced: Mail an {', '.join(recipients)} kam zurück ({what}): "
                        f"{bounce.summary}")
    ctx.record("ignored", "ignored", reason="bounce", auto=ctx.rm.auto or bounce.why, recipients=recipients,
               outbox=[r.id for r in rows], report=bounce.summary)
    league = s.get(League, rows[0].league_id) if rows[0].league_id else None
    if league is None:
        return True
    ctx.mail.league_id = league.id
    gm = (league.gm_email or "").strip()
    if not gm or any(r.kind == "bounce" or r.to_addr.lower() == gm.lower() for r in rows):
        return True  # nobody to tell, or telling would loop
    body = (f"eine Mail des Bots an {', '.join(recipients)} kam als unzustellbar zurück.\n\n"
            f"Betroffen: {what}\n"
            f"Rückmeldung des Mailservers: {bounce.summary}\n\n"
            "Bitte prüf die Adresse des Spielers (die Rückmeldung ist im Bot gespeichert und markiert).")
    queue_mail(s, ctx.cfg, key=f"bounce:{ctx.mail.id}", kind="bounce", to=gm,
               subject=f"{league.name}: Mail an {', '.join(recipients)} unzustellbar",
               text=render("notice.txt.j2", name=None, body=body), league_id=league.id)
    return True


def over_rate_limit(ctx: Incoming) -> bool:
    """True (and ``ctx.mail`` recorded as ``ignored``, reason ``rate limit``) when the
    sender sent more than ``cfg.rate_limit_per_hour`` mails (this one included) within
    the hour up to this mail's arrival. The first mail over the limit is flagged for
    the GM. A limit of 0 or less switches the check off."""
    limit = getattr(ctx.cfg, "rate_limit_per_hour", DEFAULT_RATE_LIMIT)
    addr = ctx.rm.from_addr
    if not addr or limit is None or limit <= 0:
        return False
    at = ctx.mail.received_at
    n = ctx.s.scalar(select(func.count()).select_from(InboundMail).where(
        InboundMail.from_addr == addr, InboundMail.received_at > at - timedelta(hours=1),
        InboundMail.received_at <= at)) or 0
    if n <= limit:
        return False
    ctx.record("ignored", "ignored", reason="rate limit", limit=limit, count=n)
    if n == limit + 1:
        ctx.mail.flagged = f"rate limit: more than {limit} mails within one hour from {addr} (not answered)"
    return True

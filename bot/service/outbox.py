"""The transactional outbox: mails are rendered completely into ``outbox`` rows inside
the transaction that decides them, and sent afterwards with retries. A row's key is
unique, so re-running a crashed step never queues a second, different mail; its
Message-ID is derived from the key, so a resend is recognisable."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.crash import crashpoint
from bot.mail.compose import compose, make_message_id
from bot.mail.transport import PermanentFailure, TemporaryFailure
from bot.storage.db import Database
from bot.storage.models import OutboxMail

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 8


def queue_mail(session: Session, cfg: Config, *, key: str, kind: str, to: str, subject: str, text: str,
               html: str | None = None, league_id: int | None = None, round_number: int | None = None,
               in_reply_to: str | None = None, status: str = "pending") -> OutboxMail:
    """Queue one mail under ``key``; an existing row with that key is returned unchanged.
    ``status`` ``held`` keeps it back (review mode) until the GM releases it. When the
    key's Message-ID is taken (a withdrawn mail of a rolled-back round keeps its own), a
    numbered variant is used, so the new mail is never mistaken for the old one."""
    existing = session.scalar(select(OutboxMail).where(OutboxMail.key == key))
    if existing is not None:
        return existing
    mid, n = make_message_id(key, cfg.sender_domain), 1
    while session.scalar(select(OutboxMail.id).where(OutboxMail.message_id == mid)) is not None:
        n += 1
        mid = make_message_id(f"{key}#{n}", cfg.sender_domain)
    raw = compose(sender=cfg.sender, to=to, subject=subject, text=text, html=html, message_id=mid,
                  in_reply_to=in_reply_to, references=[in_reply_to] if in_reply_to else None)
    row = OutboxMail(key=key, kind=kind, league_id=league_id, round_number=round_number, to_addr=to,
                     subject=subject, message_id=mid, raw=raw, status=status)
    session.add(row)
    session.flush()
    return row


def deliver(db: Database, sender, cfg: Config, now: datetime | None = None) -> tuple[int, int]:
    """Send every pending outbox row that is due; returns (sent, failed now).

    Temporary failures are retried later with exponential backoff; after
    :data:`MAX_ATTEMPTS` or on a permanent (5xx) failure the row is marked failed."""
    now = now or datetime.now(timezone.utc)
    sent = failed = 0
    with db.session() as s:
        ids = s.scalars(select(OutboxMail.id).where(OutboxMail.status == "pending").order_by(OutboxMail.id)).all()
    for oid in ids:
        with db.session() as s:
            row = s.get(OutboxMail, oid)
            if row is None or row.status != "pending":
                continue
            if row.next_attempt_at is not None and row.next_attempt_at > now:
                continue
            row.attempts += 1
            try:
                crashpoint("before-send")
                sender.send(row.raw, cfg.sender_addr, [row.to_addr])
                crashpoint("after-send")
            except PermanentFailure as exc:
                row.status, row.last_error = "failed", str(exc)
                failed += 1
                log.error("outbox %s to %s failed permanently: %s", row.key, row.to_addr, exc)
                _tell_gm(s, cfg, row, str(exc))
            except (TemporaryFailure, OSError) as exc:
                row.last_error = str(exc)
                if row.attempts >= MAX_ATTEMPTS:
                    row.status = "failed"
                    failed += 1
                    _tell_gm(s, cfg, row, f"nach {row.attempts} Versuchen: {exc}")
                else:
                    row.next_attempt_at = now + timedelta(seconds=30 * 2 ** (row.attempts - 1))
                log.warning("outbox %s to %s: %s (attempt %d)", row.key, row.to_addr, exc, row.attempts)
            else:
                row.status, row.sent_at, row.last_error = "sent", datetime.now(timezone.utc), None
                sent += 1
    return sent, failed


def _tell_gm(s: Session, cfg: Config, row: OutboxMail, why: str) -> None:
    """Queue one notice to the league's game master about a mail that could not be sent
    (never about a mail to the GM or about such a notice itself, so it cannot loop)."""
    from bot.render import render
    from bot.storage.models import League
    league = s.get(League, row.league_id) if row.league_id else None
    if league is None or not league.gm_email or row.kind == "gm-notice" \
            or row.to_addr.lower() == league.gm_email.lower():
        return
    body = (f"die Mail \"{row.subject}\" an {row.to_addr} konnte nicht zugestellt werden ({why}). "
            "Bitte die Adresse prüfen; der Spieler hat sie nicht bekommen.")
    queue_mail(s, cfg, key=f"gm-notice:undeliverable:{row.id}", kind="gm-notice", to=league.gm_email,
               subject=f"{league.name}: Mail nicht zustellbar", text=render("notice.txt.j2", name="Spielleiter",
                                                                          body=body), league_id=league.id)

"""Sending within the mail provider's quotas (``[smtp] max_per_minute``, ``max_per_hour``,
``max_per_day``).

Consumer providers cap how many mails an account may send per minute, hour and day and
refuse (or lock the account) when that is crossed. The outbox paces itself so it never
gets there:

- :class:`Budget` is a token bucket per window whose tokens are the send times of the
  mails themselves: a mail sent at ``t`` holds one token of every window until ``t +
  window``; a mail may go when every window has a token left. The send times come from
  the ``sent_at`` of the outbox rows (:meth:`Budget.load`), so a restart (or a second
  ``spielleiter`` command meanwhile) cannot exceed a quota: nothing is kept in memory
  between passes. Unlike a refilling bucket it never lets a burst and its refill land in
  the same window: within ANY minute (hour, day) at most the limit is sent.
- :func:`order_key` sends answers and notices before Auswertungen, announcements and
  reminders (:data:`BULK`) when both wait.
- :func:`bot.service.stages.outbox.warn_slow` tells a league's GM once per ZAT (key ``quota:<league>:<round>``)
  when the round's mails will take longer than :data:`SLOW` from their queueing to
  go out.

A limit of 0 switches that window off; with ``[maildir]`` nothing is limited.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import case, select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.i18n import DEFAULT, texts
from bot.storage.models import OutboxMail, SendAttempt

#: defaults of ``[smtp] max_per_minute``, ``max_per_hour``, ``max_per_day``: below Gmail's
#: published figure, equal to the 300 a day reported for Outlook.com (lower it there), a
#: conservative guess where a provider publishes none (docs/operator/send-limits.md)
DEFAULTS = {"max_per_minute": 10, "max_per_hour": 100, "max_per_day": 300}
#: the windows of the limits, by config key
WINDOWS = {"max_per_minute": timedelta(minutes=1), "max_per_hour": timedelta(hours=1),
           "max_per_day": timedelta(days=1)}
#: outbox kinds that wait behind answers and notices: mails to every player of a league
BULK = ("auswertung", "reminder", "start", "gm")
#: a ZAT whose mails take longer than this to go out: the GM is told once
SLOW = timedelta(hours=1)
#: :meth:`Budget.eta` looks at most this many mails ahead
ETA_HORIZON = 5_000


def reserve(limit: int) -> int:
    """Mails of a window kept for answers and notices: bulk mail (:data:`BULK`) uses at
    most ``limit - reserve(limit)`` (issue 34): a fifth, at least 1 for a limit of 2 or
    more, so an answer never waits a whole window behind a burst of Auswertungen."""
    return max(1, limit // 5) if limit >= 2 else 0


def order_key():
    """The outbox's send order (an SQL expression list): answers and notices first, then
    :data:`BULK`, each oldest first."""
    return [case((OutboxMail.kind.in_(BULK), 1), else_=0), OutboxMail.id]


@dataclass(frozen=True)
class Limits:
    """The send limits: ``(window, max mails)`` pairs, only those above 0."""

    windows: tuple[tuple[timedelta, int], ...]

    @classmethod
    def from_config(cls, cfg: Config) -> "Limits":
        """From ``[smtp]`` (missing keys: :data:`DEFAULTS`); none with ``[maildir]``."""
        if cfg.smtp is None:
            return cls(())
        out = []
        for key, window in WINDOWS.items():
            n = int(cfg.smtp.get(key, DEFAULTS[key]) or 0)
            if n > 0:
                out.append((window, n))
        return cls(tuple(out))

    def __bool__(self) -> bool:
        return bool(self.windows)

    def text(self, lang: str = DEFAULT) -> str:
        """``10/min, 100/h, 300/Tag`` in ``lang`` (German by default, for the log; the GM's
        language in a notice to the GM)."""
        t = texts(lang)
        names = {timedelta(minutes=1): "min", timedelta(hours=1): "h", timedelta(days=1): t.gettext("Tag")}
        return ", ".join(f"{n}/{names.get(w, w)}" for w, n in self.windows) or t.gettext("keine Grenze")


class Budget:
    """What the limits still allow, from the send times of the mails sent before.

    ``sent``: aware UTC send times (any order). Not thread-safe; one per delivery pass."""

    def __init__(self, limits: Limits, sent: list[datetime]) -> None:
        self.limits = limits
        self.sent = sorted(sent)

    @classmethod
    def load(cls, s: Session, limits: Limits, now: datetime) -> "Budget":
        """The budget at ``now``: every SMTP session begun within the longest window
        (``send_attempts``, recorded before the session starts, so a mail whose sender
        was killed after the server took it still counts), and the ``sent_at`` of outbox
        rows sent without such a record (before migration 0009)."""
        if not limits:
            return cls(limits, [])
        longest = max(w for w, _ in limits.windows)
        tried = s.scalars(select(SendAttempt.at).where(SendAttempt.at > now - longest)).all()
        recorded = select(SendAttempt.outbox_id).where(SendAttempt.outbox_id.is_not(None))
        sent = s.scalars(select(OutboxMail.sent_at).where(OutboxMail.sent_at.is_not(None),
                                                          OutboxMail.sent_at > now - longest,
                                                          OutboxMail.id.not_in(recorded))).all()
        return cls(limits, list(tried) + list(sent))

    def next_free(self, now: datetime, bulk: bool = False) -> datetime:
        """The earliest time at or after ``now`` when one more mail fits every window;
        a ``bulk`` mail (:data:`BULK`) fits only below each limit minus its
        :func:`reserve`, so answers always find room."""
        t = now
        for _ in range(10):  # each round only moves t later; a few suffice
            moved = False
            for window, n in self.limits.windows:
                if bulk:
                    n = n - reserve(n)
                lo = bisect.bisect_right(self.sent, t - window)  # sent in (t - window, t]
                hi = bisect.bisect_right(self.sent, t)
                if hi - lo >= n:
                    t = self.sent[hi - n] + window  # when the oldest token that blocks frees
                    moved = True
            if not moved:
                return t
        return t

    def take(self, at: datetime) -> None:
        """Count a mail sent at ``at``."""
        bisect.insort(self.sent, at)

    def schedule(self, now: datetime, n: int, bulk: bool = False) -> list[datetime]:
        """The earliest send times of ``n`` mails waiting at ``now``, in order (at most
        :data:`ETA_HORIZON` of them); the budget itself is not changed."""
        if not self.limits:
            return [now] * min(n, ETA_HORIZON)
        probe = Budget(self.limits, self.sent)
        out: list[datetime] = []
        t = now
        for _ in range(min(n, ETA_HORIZON)):
            t = probe.next_free(t, bulk)
            probe.take(t)
            out.append(t)
        return out

    def eta(self, now: datetime, n: int) -> datetime:
        """When the ``n``-th of ``n`` mails waiting now could go out at the earliest
        (``now`` for ``n`` <= 0; at most :data:`ETA_HORIZON` mails ahead)."""
        times = self.schedule(now, n)
        return times[-1] if times else now


def pause_seconds(paused_until: datetime | None, now: datetime, default: float) -> float:
    """Seconds the outbox loop waits: ``default``, or less when the budget frees a token
    sooner (at least 0.05 s)."""
    if paused_until is None:
        return default
    return max(0.05, min(default, (paused_until - now).total_seconds()))

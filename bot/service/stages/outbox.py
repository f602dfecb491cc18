"""The transactional outbox: mails are rendered completely into ``outbox`` rows inside
the transaction that decides them, and sent afterwards with retries. A row's key is
unique, so re-running a crashed step never queues a second, different mail; its
Message-ID is derived from the key, so a resend is recognisable."""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Sequence

from sqlalchemy import bindparam, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from bot.config import Config
from bot.crash import crashpoint
from bot.mail.compose import compose, make_message_id
from bot.mail.transport import PermanentFailure, ServerFailure, TemporaryFailure
from bot.games import get_game
from bot.i18n import Texts, gm_language, texts
from bot.render import format_zat, nobreak, render, wrap
from bot.service.domain.league import find_league
from bot.service.stages.quota import BULK, SLOW, Budget, Limits, order_key
from bot.storage.db import BATCH, Database
from bot.storage.models import League, OutboxMail, Player, PlayerAddress, SendAttempt

log = logging.getLogger(__name__)
#: a mail the recipient's server keeps refusing for now (4xx) is given up after this long
#: in the queue, like an MTA's queue lifetime; the GM is told. Server and settings trouble
#: never gives a mail up.
GIVE_UP_AFTER = timedelta(days=3)
#: backoff of one mail after a 4xx for it: 30 s, 1 min, 2 min, ... at most 1 h
RETRY_FIRST, RETRY_MAX = timedelta(seconds=30), timedelta(hours=1)
#: statuses ``spielleiter outbox`` lists by default
WAITING = ("pending", "held", "failed")
#: a claim on an outbox row (:func:`deliver`) older than this is taken to be a dead
#: sender's: the row may be claimed again (longer than any SMTP session with its retries)
CLAIM_TTL = timedelta(minutes=3)
#: marks an Auswertung withdrawn by a rollback (``gm.rollback``): never sent again
WITHDRAWN = ":zurueck"


class Delivery(tuple):
    """What one :func:`deliver` pass did: a ``(sent, failed)`` pair (unpacks and compares
    as one) with ``problem``, the :class:`ServerFailure` that stopped the pass (None if
    none), ``waiting``, the mails still pending after it, and ``paused_until``: when the
    pass stopped because the send limits were reached (:mod:`bot.service.stages.quota`), the
    time the next mail may go (aware UTC), else None."""

    problem: ServerFailure | None
    waiting: int
    paused_until: datetime | None

    def __new__(cls, sent: int, failed: int, problem: ServerFailure | None = None, waiting: int = 0,
                paused_until: datetime | None = None):
        self = super().__new__(cls, (sent, failed))
        self.problem, self.waiting, self.paused_until = problem, waiting, paused_until
        return self

    @property
    def sent(self) -> int:
        return self[0]

    @property
    def failed(self) -> int:
        return self[1]


_TAKEN = select(OutboxMail.id, OutboxMail.key).where(
    or_(OutboxMail.key == bindparam("key"), OutboxMail.message_id == bindparam("mid")))


def queue_mail(session: Session, cfg: Config, *, key: str, kind: str, to: str, subject: str, text: str,
               html: str | None = None, league_id: int | None = None, round_number: int | None = None,
               in_reply_to: str | None = None, status: str = "pending") -> OutboxMail:
    """Queue one mail under ``key``; an existing row with that key is returned unchanged.
    ``status`` ``held`` keeps it back (review mode) until the GM releases it. When the
    key's Message-ID is taken (a withdrawn mail of a rolled-back round keeps its own), a
    numbered variant is used, so the new mail is never mistaken for the old one."""
    mid, n = make_message_id(key, cfg.sender_domain), 1
    free = (session.info.get(BATCH) or {}).get(FREE_KEYS)
    if free is not None and key in free:  # known to be free when the batch began (free_keys)
        free.discard(key)  # queued now (or rolled back with the mail: then a query tells)
        taken = []
    else:
        if session.autoflush:  # as a session query would; on the connection, without the ORM's overhead
            session.flush()
        taken = session.connection().execute(_TAKEN, {"key": key, "mid": mid}).all()  # one query in the usual case
    existing = next((i for i, k in taken if k == key), None)
    if existing is not None:
        return session.get(OutboxMail, existing)  # type: ignore[return-value]
    while taken:
        n += 1
        mid = make_message_id(f"{key}#{n}", cfg.sender_domain)
        taken = session.execute(select(OutboxMail.id).where(OutboxMail.message_id == mid)).all()
    raw = compose(sender=cfg.sender, to=to, subject=subject, text=text, html=html, message_id=mid,
                  in_reply_to=in_reply_to, references=[in_reply_to] if in_reply_to else None)
    row = OutboxMail(key=key, kind=kind, league_id=league_id, round_number=round_number, to_addr=to,
                     subject=subject, message_id=mid, raw=raw, status=status)
    session.add(row)  # written with the transaction's next flush (a query or the commit)
    return row


#: The key of :func:`free_keys`' set among a batch's shared lookups (:data:`bot.storage.db.BATCH`).
FREE_KEYS = "free_keys"


def free_keys(conn, cfg: Config, keys: Sequence[str]) -> set[str]:
    """Of the outbox ``keys`` (e.g. the acknowledgements of a batch's mails, ``ack:<id>``),
    those neither queued nor with their Message-ID taken, in one statement (chunks of 500):
    :func:`queue_mail` in the batch's transaction queues such a key without asking again
    (only the reading of its own mail queues it, once)."""
    mids = {k: make_message_id(k, cfg.sender_domain) for k in keys}
    by_mid = {mid: k for k, mid in mids.items()}
    taken: set[str] = set()
    keys = list(mids)
    for i in range(0, len(keys), 500):
        chunk = keys[i:i + 500]
        rows = conn.execute(select(OutboxMail.key, OutboxMail.message_id).where(
            or_(OutboxMail.key.in_(chunk), OutboxMail.message_id.in_([mids[k] for k in chunk])))).all()
        for key, mid in rows:
            taken.add(key)
            if mid in by_mid:
                taken.add(by_mid[mid])
    return {k for k in keys if k not in taken}


def queue_mails(session: Session, cfg: Config, mails: Sequence[dict[str, Any]]) -> int:
    """Queue several mails at once (each a dict of :func:`queue_mail`'s keywords, e.g. a
    round's Auswertungen), by the same rules: a key already queued is skipped, a taken
    Message-ID gets a numbered variant. One query for the keys and Message-IDs taken and
    one INSERT per :data:`QUEUE_CHUNK` mails (the usual case); returns how many were
    queued (the ones with a numbered Message-ID not counted)."""
    ids = {m["key"]: make_message_id(m["key"], cfg.sender_domain) for m in mails}
    if not ids:
        return 0
    have_keys: set[str] = set()
    have_ids: set[str] = set()
    keys = list(ids)
    for i in range(0, len(keys), 500):  # bounded IN lists
        chunk = keys[i:i + 500]
        for key, mid in session.execute(select(OutboxMail.key, OutboxMail.message_id).where(
                or_(OutboxMail.key.in_(chunk), OutboxMail.message_id.in_([ids[k] for k in chunk])))):
            have_keys.add(key)
            have_ids.add(mid)
    rows: list[dict[str, Any]] = []
    queued = 0
    for m in mails:
        if m["key"] in have_keys:
            continue
        have_keys.add(m["key"])
        if ids[m["key"]] in have_ids:  # rare (a withdrawn mail keeps its Message-ID): one by one
            queue_mail(session, cfg, **m)
            continue
        mid = ids[m["key"]]
        raw = compose(sender=cfg.sender, to=m["to"], subject=m["subject"], text=m["text"], html=m.get("html"),
                      message_id=mid, in_reply_to=m.get("in_reply_to"),
                      references=[m["in_reply_to"]] if m.get("in_reply_to") else None)
        rows.append({"key": m["key"], "kind": m["kind"], "league_id": m.get("league_id"),
                     "round_number": m.get("round_number"), "to_addr": m["to"], "subject": m["subject"],
                     "message_id": mid, "raw": raw, "status": m.get("status", "pending"), "attempts": 0,
                     "created_at": datetime.now(timezone.utc)})
        if len(rows) >= QUEUE_CHUNK:  # bounded memory: a few mails composed at a time
            session.execute(insert(OutboxMail.__table__), rows)
            queued += len(rows)
            rows = []
    if rows:
        session.execute(insert(OutboxMail.__table__), rows)
    return queued + len(rows)


#: :func:`queue_mails` composes and inserts this many mails at a time.
QUEUE_CHUNK = 50


_START = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")


def sender_id() -> str:
    """This process as a sender: ``host:pid:start`` (the claims of the outbox rows)."""
    return f"{socket.gethostname()}:{os.getpid()}:{_START}"


def _dead(claimer: str) -> bool:
    """Whether the sender ``claimer`` (:func:`sender_id`) was a process of this machine
    that is gone (its claims are free at once; another machine's wait for
    :data:`CLAIM_TTL`)."""
    host, _, rest = claimer.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return claimer != sender_id()
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def release_claims(db: Database, keep: str | None = None) -> int:
    """Release the claims of pending rows by other senders than ``keep`` (the service
    that just took the lease: no other sender is alive); returns how many."""
    with db.session() as s:
        q = update(OutboxMail).where(OutboxMail.status == "pending", OutboxMail.claimed_by.is_not(None))
        if keep is not None:
            q = q.where(OutboxMail.claimed_by != keep)
        return s.execute(q.values(claimed_by=None).execution_options(synchronize_session=False)).rowcount


def deliver(db: Database, sender, cfg: Config, now: datetime | None = None, *,
            clock: Callable[[], datetime] | None = None) -> Delivery:
    """Send every pending outbox row that is due, within the send limits; returns a
    :class:`Delivery` (sent, failed).

    Order: answers and notices first, then Auswertungen, announcements and reminders
    (:func:`bot.service.stages.quota.order_key`), each oldest first. The send limits
    (``[smtp] max_per_minute/hour/day``, :class:`bot.service.stages.quota.Budget`, counted from
    the ``sent_at`` of the rows) are kept: when the next mail would cross one, the pass
    stops, ``Delivery.paused_until`` says when it may go, and when a round's
    Auswertungen will take longer than an hour its GM is told once
    (:func:`warn_slow`). ``clock`` (aware UTC) gives the send times
    and the time the limits are checked at (default: the real clock); ``now`` the time
    due dates are checked at (default: ``clock()``).

    Per mail: a 5xx for the recipient or the message (:class:`PermanentFailure`) marks it
    ``failed`` and tells the league's GM; a 4xx for it (:class:`TemporaryFailure`) keeps it
    ``pending`` with its own backoff, and after :data:`GIVE_UP_AFTER` in the queue it is
    failed. A :class:`ServerFailure` (no connection, timeout, TLS, login, settings: no
    mail's fault) is recorded on the mail that met it (``attempts``, ``last_error``), its
    status and due time stay as they are, and the pass stops there (every other mail would
    meet it too): ``Delivery.problem`` says what happened, and the caller tells the
    operator and tries again later; so is a provider's quota answer (kind ``quota``:
    no mail is failed for it). Never raises for a sending error."""
    clock = clock or (lambda: datetime.now(timezone.utc))
    now = now or clock()
    sent = failed = 0
    problem: ServerFailure | None = None
    limits = Limits.from_config(cfg)
    budget: Budget | None = None
    paused: datetime | None = None
    with db.session() as s:
        ids = s.scalars(select(OutboxMail.id).where(OutboxMail.status == "pending").order_by(*order_key())).all()
    me = sender_id()
    pg = not db.is_sqlite
    for oid in ids:
        # 1. claim the row and record the attempt (counted against the limits), committed
        #    before the SMTP session: a kill after it still counts, and no second sender
        #    takes the row while the claim is fresh
        with db.session() as s:
            q = select(OutboxMail).where(OutboxMail.id == oid)
            if pg:  # a row another sender is claiming right now is skipped, not waited for
                q = q.with_for_update(skip_locked=True)
            row = s.scalars(q).first()
            if row is None or row.status != "pending":
                continue
            if row.next_attempt_at is not None and row.next_attempt_at > now:
                continue
            t = clock()
            if limits:
                if budget is None:  # loaded once a mail is due: a pass with nothing to send reads nothing
                    budget = Budget.load(s, limits, t)
                free = budget.next_free(t, bulk=row.kind in BULK)
                if free > t:
                    paused = free
                    break
            free_if = [OutboxMail.claimed_by.is_(None), OutboxMail.claimed_by == me,
                       OutboxMail.claimed_at < t - CLAIM_TTL]
            if row.claimed_by and _dead(row.claimed_by):  # a sender of this machine that died (a crash)
                free_if.append(OutboxMail.claimed_by == row.claimed_by)
            claimed = s.execute(update(OutboxMail).where(
                OutboxMail.id == oid, OutboxMail.status == "pending", or_(*free_if)).values(
                claimed_by=me, claimed_at=t, attempts=OutboxMail.attempts + 1)
                .execution_options(synchronize_session=False)).rowcount
            if claimed != 1:
                continue  # another sender has it
            attempt = SendAttempt(outbox_id=oid, at=t)
            s.add(attempt)
            s.flush()
            attempt_id = attempt.id
            if budget is not None:
                budget.take(t)
            raw, to_addr, attempts = row.raw, row.to_addr, row.attempts + 1
        # 2. the SMTP session, outside any transaction; the row is marked sent as soon as
        #    the server accepted the mail (250 to DATA), before QUIT
        marked = []

        def accepted(oid=oid) -> None:
            with db.session() as s2:
                s2.execute(update(OutboxMail).where(OutboxMail.id == oid).values(
                    status="sent", sent_at=clock(), last_error=None, claimed_by=None)
                    .execution_options(synchronize_session=False))
            marked.append(True)

        error: BaseException | None = None
        try:
            crashpoint("before-send")
            if getattr(sender, "reports_acceptance", False):
                sender.send(raw, cfg.sender_addr, [to_addr], on_accepted=accepted)
            else:
                sender.send(raw, cfg.sender_addr, [to_addr])
            crashpoint("after-send")
        except (PermanentFailure, ServerFailure, TemporaryFailure, OSError) as exc:
            error = exc
        # 3. the outcome
        with db.session() as s:
            row = s.get(OutboxMail, oid)
            row.claimed_by = None
            if marked:
                if error is not None:  # refused for some recipients after DATA: sent to the rest
                    row.last_error = str(error)
                sent += 1
            elif error is None:
                row.status, row.sent_at, row.last_error = "sent", clock(), None
                sent += 1
            elif isinstance(error, PermanentFailure):
                row.status, row.last_error = "failed", str(error)
                failed += 1
                log.error("Postausgang %s an %s endgültig gescheitert: %s", row.key, row.to_addr, error)
                _tell_gm(s, cfg, row, lambda t, e=str(error): e)
            elif isinstance(error, ServerFailure):
                # a server that failed before it could take the mail (refused login,
                # unreachable, TLS, its quota answer): nothing was sent, the attempt does not
                # count against the limits (a break during the session still counts)
                if error.kind in ("login", "unreachable", "tls", "config", "quota"):
                    s.execute(delete(SendAttempt).where(SendAttempt.id == attempt_id))
                row.last_error = error.line()
                problem = error
                log.debug("Postausgang %s an %s: %s (Versuch %d)", row.key, row.to_addr, error.line(), attempts)
            else:
                row.last_error = str(error)
                created = row.created_at or now
                if now - created >= GIVE_UP_AFTER:
                    row.status = "failed"
                    failed += 1
                    _tell_gm(s, cfg, row, lambda t, n=row.attempts, e=str(error): t.ngettext(
                        "nach {n} Versuch: {error}", "nach {n} Versuchen: {error}", n, error=e))
                else:
                    row.next_attempt_at = now + min(RETRY_MAX, RETRY_FIRST * 2 ** min(row.attempts - 1, 20))
                log.warning("Postausgang %s an %s: %s (Versuch %d)", row.key, row.to_addr, error, row.attempts)
        if problem is not None:
            break
    waiting = 0
    if problem is not None or paused is not None:
        with db.session() as s:
            waiting = s.scalar(select(func.count()).select_from(OutboxMail).where(OutboxMail.status == "pending"))
    if paused is not None and budget is not None:
        with db.session() as s:
            rows = s.scalars(select(OutboxMail).where(OutboxMail.status == "pending").order_by(*order_key())).all()
            warn_slow(s, cfg, budget, clock(), list(rows))
        log.debug("Versandgrenze (%s) erreicht: %d Mail(s) warten bis %s", limits.text(), waiting,
                  paused.isoformat(timespec="seconds"))
    return Delivery(sent, failed, problem, waiting, paused)


def warn_slow(s: Session, cfg: Config, budget: Budget, now: datetime, waiting: list[OutboxMail]) -> list[int]:
    """Queue one notice to the GM of each league whose round's mails in ``waiting`` (the
    pending rows in send order) will take longer than :data:`~bot.service.stages.quota.SLOW` from their queueing
    to go out at the pace of ``budget``; once per league and round (the notice's key). The
    notice is in the GM's language (``gm_language``) and names the period as the game's
    subjects do: "Runde 3", in a game of turns "Zug 3" or the opening
    (:meth:`~bot.games.base.GameRules.turn_of`).
    Returns the ids of the leagues told now."""
    last: dict[tuple[int, int], int] = {}
    first: dict[tuple[int, int], datetime] = {}
    for pos, row in enumerate(waiting):
        if row.kind == "auswertung" and row.league_id is not None and row.round_number is not None:
            k = (row.league_id, row.round_number)
            last[k] = pos
            first[k] = min(first.get(k, row.created_at or now), row.created_at or now)
    told: list[int] = []
    keys = {k: f"quota:{k[0]}:{k[1]}" for k in last}
    done = set(s.scalars(select(OutboxMail.key).where(OutboxMail.key.in_(list(keys.values()))))) if keys else set()
    last = {k: pos for k, pos in last.items() if keys[k] not in done}
    if not last:  # every round told already (or none waits): nothing to work out
        return told
    times = budget.schedule(now, max(last.values()) + 1, bulk=True)
    for (league_id, number), pos in sorted(last.items()):
        eta = times[min(pos, len(times) - 1)]
        if eta - first[(league_id, number)] <= SLOW:
            continue
        key = keys[(league_id, number)]
        league = s.get(League, league_id)
        if league is None or not (league.gm_email or "").strip():
            continue
        n = sum(1 for r in waiting if (r.league_id, r.round_number) == (league_id, number) and r.kind == "auswertung")
        lang = gm_language(league.options)
        t = texts(lang)
        when = nobreak(format_zat(eta, league.timezone or cfg.timezone, lang))
        game = get_game(league.game)
        # a game of turns names the turn (RONDO's opening is no turn), as its subjects do
        turn = game.turn_of(number)
        if turn is None:
            subject = t.gettext("{league}: Auswertungen der Runde {round} brauchen länger", league=league.name,
                                round=number)
            which = t.gettext("die Auswertungen der Runde {round}", round=number)
        elif turn >= 1:
            subject = t.gettext("{league}: Auswertungen von Zug {turn} brauchen länger", league=league.name,
                                turn=turn)
            which = t.gettext("die Auswertungen von Zug {turn}", turn=turn)
        else:
            subject = t.gettext("{league}: Auswertungen der Eröffnung brauchen länger", league=league.name)
            which = t.gettext("die Auswertungen der Eröffnung")
        body = t.ngettext(
            "{which} ({n} Mail wartet noch) gehen wegen der Versandgrenzen des Mail-Anbieters ({limits}) nach "
            "und nach hinaus; die letzte voraussichtlich am {when}.",
            "{which} ({n} Mails warten noch) gehen wegen der Versandgrenzen des Mail-Anbieters ({limits}) nach "
            "und nach hinaus; die letzte voraussichtlich am {when}.", n, which=which, limits=budget.limits.text(lang),
            when=when)
        body += " " + t.gettext(
            "Antworten auf Züge gehen vor. Es geht keine Mail verloren; du musst nichts tun. Erlaubt der "
            "Anbieter mehr, können die Grenzen in der Konfiguration erhöht werden ([smtp] max_per_minute, "
            "max_per_hour, max_per_day).")
        queue_mail(s, cfg, key=key, kind="gm-notice", to=league.gm_email, subject=subject,
                   text=render("notice.txt.j2", lang, name=t.gettext("Spielleiter"), body=wrap(body),
                               league=league.name), league_id=league_id)
        told.append(league_id)
    return told


def outbox_rows(db: Database, *, league: str | None = None, statuses: tuple[str, ...] = WAITING) -> list[dict]:
    """The outbox rows with one of ``statuses`` (of league ``league`` if given), oldest
    first, as dicts ``{id, key, kind, status, to, subject, attempts, last_error,
    created_at, next_attempt_at}``. Raises ``LeagueError`` for an unknown league."""
    with db.session() as s:
        q = select(OutboxMail).where(OutboxMail.status.in_(statuses)).order_by(OutboxMail.id)
        if league is not None:
            q = q.where(OutboxMail.league_id == find_league(s, league).id)
        return [dict(id=r.id, key=r.key, kind=r.kind, status=r.status, to=r.to_addr, subject=r.subject,
                     attempts=r.attempts, last_error=r.last_error, created_at=r.created_at,
                     next_attempt_at=r.next_attempt_at) for r in s.scalars(q)]


class RequeueError(ValueError):
    """A mail that cannot be queued again (unknown id, sent, held, withdrawn); the message
    says which and why (German)."""


def requeue(db: Database, ids: list[int] | None = None, *, all_failed: bool = False) -> list[int]:
    """Queue failed (or pending) mails again: status ``pending``, due now, attempts from 0.
    ``ids``: these outbox rows; ``all_failed``: every ``failed`` row except Auswertungen
    withdrawn by a rollback. Returns the ids queued. Raises :class:`RequeueError` (and
    changes nothing) for an unknown id, a mail already sent, one held for review, or a
    withdrawn one: a mail is never sent twice by this."""
    with db.session() as s:
        if all_failed:
            rows = [r for r in s.scalars(select(OutboxMail).where(OutboxMail.status == "failed")
                                         .order_by(OutboxMail.id)) if WITHDRAWN not in r.key]
        else:
            rows = []
            for i in ids or []:
                row = s.get(OutboxMail, i)
                if row is None:
                    raise RequeueError(f"Mail {i} gibt es im Postausgang nicht.")
                if row.status == "sent":
                    raise RequeueError(f"Mail {i} an {row.to_addr} ist schon gesendet.")
                if row.status == "held":
                    raise RequeueError(f"Mail {i} an {row.to_addr} wartet auf die Freigabe (spielleiter gm freigeben).")
                if WITHDRAWN in row.key:
                    raise RequeueError(f"Mail {i} an {row.to_addr} wurde beim Zurücksetzen der Auswertung (ZURUECK) zurückgezogen.")
                rows.append(row)
        for row in rows:
            row.status, row.attempts, row.next_attempt_at = "pending", 0, None
        return [r.id for r in rows]


def _tell_gm(s: Session, cfg: Config, row: OutboxMail, why: Callable[[Texts], str]) -> None:
    """Queue one notice to the league's game master, in the GM's language (``gm_language``),
    about a mail that could not be sent: ``why(texts)`` gives the reason (the server's
    answer as it came); the player it was for is named, if it was for one. Never about a
    mail to the GM or about such a notice itself, so it cannot loop."""
    league = s.get(League, row.league_id) if row.league_id else None
    if league is None or not league.gm_email or row.kind == "gm-notice" \
            or row.to_addr.lower() == league.gm_email.lower():
        return
    lang = gm_language(league.options)
    t = texts(lang)
    body = t.gettext("die Mail \"{subject}\" an {to} konnte nicht zugestellt werden ({why}).", subject=row.subject,
                     to=row.to_addr, why=why(t))
    player = s.scalar(select(Player).join(PlayerAddress).where(
        Player.league_id == league.id, func.lower(PlayerAddress.email) == row.to_addr.lower()).limit(1))
    if player is not None:
        body += " " + t.gettext("{name} hat sie nicht bekommen; bitte die Adresse prüfen.", name=player.name)
    else:
        body += " " + t.gettext("Sie ist nicht angekommen; bitte die Adresse prüfen.")
    queue_mail(s, cfg, key=f"gm-notice:undeliverable:{row.id}", kind="gm-notice", to=league.gm_email,
               subject=t.gettext("{league}: Mail nicht zustellbar", league=league.name),
               text=render("notice.txt.j2", lang, name=t.gettext("Spielleiter"), body=wrap(body), league=league.name),
               league_id=league.id)

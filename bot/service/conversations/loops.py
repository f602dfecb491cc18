"""Loops, floods and noise: nobody can make the bot send without bound, and nobody can
silence a player (issue "nobody can silence a player").

All of it runs inside :func:`bot.service.conversations.intake.process_mail`'s transaction, on an
:class:`~bot.service.conversations.mailctx.Incoming`:

- :func:`gate_answers`: every mail is read; what is capped is what the bot sends back.
  Each address gets at most ``cfg.rate_limit_per_hour`` answers and notices within an
  hour; further ones are kept in the outbox as ``suppressed`` and summed up in ONE mail
  (kind ``summary``) an hour later, which also carries the last withheld answer. A mail
  that proved itself with the right personal or GM code (``ctx.proved``) is always
  answered. Auswertungen, announcements and reminders are no answers and never capped.
- :func:`gate_answers` first: a mail that repeats the sender's last mail, answered
  within the hour before it (the same :func:`repeat_key`: sender, subject without its
  Re:/AW: prefixes and the freshly written text, white space and case aside) is read as
  any mail (a repeated move counts as the later mail, as always), but its answers are
  kept as ``suppressed``: an autoresponder without ``Auto-Submitted`` that answers
  every mail of the bot gets one answer, not one for each of its mails. The mail says so
  (``parse["answer_withheld"]``, ``parse["repeat_of"]``), the first repeat is flagged for
  the GM. The same mail an hour after the answered one is answered again, and so is a
  mail with the right personal or GM code (a GM's second ZURUECK is a second one).
- :func:`auth_failure`: a mail that failed a code (missing, wrong) or whose sender our
  mail server did not authenticate (:mod:`bot.mail.auth`) changes nothing; its owner
  (the player, or the GM of the league) is told at their registered address, at most
  once an hour: the first at once, the rest in one mail an hour later with the count and
  the senders. More than :data:`GUESS_LIMIT` within an hour is flagged as guessing for
  the GM. There is no lock-out: the right code always works (a lock-out would let a
  forger silence the owner); codes are scrypt hashes compared in constant time.
- :func:`throttled_notice`: the "at once, then at most one summary per window" mail
  behind both, also used for the GM's bounce notices (at most one a day).
- :func:`~bot.service.conversations.bounces.handle_bounce` (a module of its own): a
  non-delivery report about one of our outbox mails marks that row (``last_error``),
  flags the stored bounce for the game master and tells the league's GM
  (``League.gm_email``).
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from collections import Counter
from datetime import datetime, timedelta
from typing import Callable
from zoneinfo import ZoneInfo

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.i18n import N_, gm_language, league_language, texts, tr
from bot.mail.compose import compose
from bot.render import render
from bot.service.conversations.mailctx import Incoming
from bot.service.stages.outbox import queue_mail
from bot.storage.db import BATCH
from bot.storage.models import InboundMail, League, OutboxMail, Player, PlayerAddress

#: Default of ``[bot] rate_limit_per_hour``.
DEFAULT_RATE_LIMIT = 20
#: The window of the rate limit and of the code notices.
HOUR = timedelta(hours=1)
#: Wrong codes for one owner within an hour above which it is flagged as guessing.
GUESS_LIMIT = 5
#: Outbox kinds that are no answer to a mail (or throttled on their own): never capped, not counted.
NOT_ANSWERS = frozenset({"auswertung", "gm", "start", "reminder", "summary", "auth", "bounce", "gm-notice"})
#: Key suffix of a deferred summary row (sent when ``next_attempt_at`` is reached).
SAMMEL = "sammel"


# -- at once, then at most one summary per window ----------------------------------------

def _short(text: str) -> str:
    return hashlib.sha256(text.lower().encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _when(dt: datetime, tz: str, lang: str = "de") -> str:
    return tr(lang, "clock", dt=dt.astimezone(ZoneInfo(tz)))


def _rewrite(cfg: Config, row: OutboxMail, subject: str, text: str) -> None:
    """New subject and text for a row not sent yet (its Message-ID stays)."""
    old = email.message_from_bytes(row.raw, policy=email.policy.compat32)
    row.subject = subject
    row.raw = compose(sender=cfg.sender, to=row.to_addr, subject=subject, text=text, message_id=row.message_id,
                      in_reply_to=old.get("In-Reply-To"))


def throttled_notice(s: Session, cfg: Config, *, topic: str, item: int, to: str, now: datetime, window: timedelta,
                     kind: str, render_mail: Callable[[int, bool], tuple[str, str]], at_once: bool = True,
                     league_id: int | None = None) -> tuple[OutboxMail, bool]:
    """Queue a notice about ``item`` (a row id) under ``topic``, at most one per ``window``.

    With ``at_once`` the first notice in a window goes out now; every later item in the
    window is folded into ONE summary row (key ``<topic>:<first item>:sammel``, status
    pending, ``next_attempt_at`` = a window after the previous notice), which is rendered
    again for each new item until it is sent. Without ``at_once`` even the first item
    only starts such a summary, due a window from now. ``render_mail(first item,
    summary)`` gives ``(subject, text)``; a summary covers every item from its first on.
    Returns ``(row, new)``: the row queued or rewritten, and whether it is a new one."""
    last = s.scalar(select(OutboxMail).where(OutboxMail.key.like(f"{topic}:%"))
                    .order_by(OutboxMail.id.desc()).limit(1))
    if last is not None and last.key.endswith(":" + SAMMEL) and last.status == "pending":
        subject, text = render_mail(int(last.key.split(":")[-2]), True)
        _rewrite(cfg, last, subject, text)
        return last, False
    due = None if at_once else now + window
    if last is not None:
        last_time = last.next_attempt_at if last.key.endswith(":" + SAMMEL) and last.next_attempt_at \
            else last.created_at
        if now < last_time + window:
            due = last_time + window
    subject, text = render_mail(item, due is not None)
    row = queue_mail(s, cfg, key=f"{topic}:{item}" + (f":{SAMMEL}" if due else ""), kind=kind, to=to,
                     subject=subject, text=text, league_id=league_id)
    row.created_at, row.next_attempt_at = now, due
    return row, True


# -- the rate limit caps answers, never reading ------------------------------------------

#: The answers to an address since a time, but one row (built once: building the
#: statement and its cache key costs more than running it).
_ANSWERS_SINCE = select(func.count()).select_from(OutboxMail).where(
    func.lower(OutboxMail.to_addr) == bindparam("addr"), OutboxMail.created_at > bindparam("since"),
    OutboxMail.status != "suppressed", OutboxMail.kind.not_in(NOT_ANSWERS), OutboxMail.id != bindparam("row"))


# -- a repeated mail is answered once an hour --------------------------------------------

_RE_PREFIX = re.compile(r"^(\s*(re|aw|fwd?|wg|antw|sv|vs)\s*(\[\d+\])?\s*:\s*)+", re.I)


def repeat_key(from_addr: str, subject: str, text: str, from_name: str = "") -> str:
    """Hex sha256 (64) of what a mail says for :func:`gate_answers`' repeat check: the
    sender's address (case folded) and display name, the subject without its
    ``Re:``/``AW:``/``Fwd:`` prefixes and the text (the freshly written part,
    :attr:`~bot.mail.message.ReadMail.new_text`), each with white space collapsed. Date,
    Message-ID and trace headers are no part of it: two mails an autoresponder sends in
    reply to two of ours have the same key; a player who writes again with other case or
    another name (``ANMELDEN Liga anna ALBERS``) has another one and is answered."""
    def norm(value: str) -> str:
        return " ".join((value or "").split())
    parts = (norm(from_addr).casefold(), norm(from_name), norm(_RE_PREFIX.sub("", subject or "")), norm(text))
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


#: The mails read before one with its repeat key that arrived within the hour before it (built once).
_SAME_KEY = (select(InboundMail.__table__.c.id, InboundMail.__table__.c.parse)
             .where(InboundMail.__table__.c.repeat_key == bindparam("key"),
                    InboundMail.__table__.c.received_at > bindparam("since"),
                    InboundMail.__table__.c.id < bindparam("id"),
                    InboundMail.__table__.c.status.not_in(("stored", "error")))
             .order_by(InboundMail.__table__.c.id))


def answered_repeat(ctx: Incoming) -> int | None:
    """The id of the mail ``ctx.mail`` repeats, else None: the last mail read before it
    with the same :func:`repeat_key` that arrived within the hour before it and was
    answered, when the sender sent nothing else in between. A repeat itself was not
    answered, so the hour runs from the last answered one."""
    mail = ctx.mail
    if not mail.repeat_key:
        return None
    keys = (ctx.s.info.get(BATCH) or {}).get(REPEAT_KEYS)
    if keys is not None and mail.repeat_key not in keys:  # no mail of the hour before has it
        return None
    ctx.s.flush()  # the batch's earlier mails written (read without savepoints, they wait for a query)
    rows = ctx.s.connection().execute(_SAME_KEY, {"key": mail.repeat_key, "since": mail.received_at - HOUR,
                                                  "id": mail.id}).all()
    answered = [i for i, parse in rows if "repeat_of" not in (parse or {})]
    if not answered:
        return None
    # only a repeat of the sender's last mail: after A, B the same A again says something
    # (A stands again) and is answered
    between = ctx.s.connection().execute(_OTHER_BETWEEN, {"first": answered[-1], "id": mail.id,
                                                          "addr": mail.from_addr, "key": mail.repeat_key}).first()
    return answered[-1] if between is None else None


#: The key of :func:`repeat_keys`' set among a batch's shared lookups (:data:`bot.storage.db.BATCH`).
REPEAT_KEYS = "repeat_keys"


def repeat_keys(conn, since: datetime) -> set[str]:
    """The repeat keys (:func:`repeat_key`) of the stored mails that arrived after
    ``since`` (for a batch: an hour before its earliest mail), in one statement: a mail
    of the batch whose key is not among them (nor among the keys of the batch's mails
    read before it, which the reader adds) repeats no mail, and :func:`answered_repeat`
    need not ask."""
    t = InboundMail.__table__
    return set(conn.execute(select(t.c.repeat_key).where(t.c.repeat_key.is_not(None), t.c.received_at > since)
                            .distinct()).scalars())


#: A mail from the same sender with another repeat key read between two (built once).
_OTHER_BETWEEN = (select(InboundMail.__table__.c.id)
                  .where(InboundMail.__table__.c.id > bindparam("first"), InboundMail.__table__.c.id < bindparam("id"),
                         InboundMail.__table__.c.from_addr == bindparam("addr"),
                         InboundMail.__table__.c.repeat_key != bindparam("key"))
                  .limit(1))


def _withhold_repeat(ctx: Incoming, rows: list[OutboxMail]) -> int:
    """Keep the answers ``rows`` to ``ctx.mail`` back when it repeats a mail answered
    within the hour (:func:`answered_repeat`) and carries no right code (``ctx.proved``);
    returns how many were withheld."""
    answers = [r for r in rows if r.kind not in NOT_ANSWERS and r.status == "pending"]
    if not answers or ctx.proved:  # a code proves a person, not a machine: ZURUECK twice means twice
        return 0
    first = answered_repeat(ctx)
    if first is None:
        return 0
    for row in answers:
        row.status, row.last_error = "suppressed", f"withheld: repeats mail {first} within one hour"
    mail = ctx.mail
    earlier = ctx.s.scalar(select(func.count()).select_from(InboundMail).where(
        InboundMail.repeat_key == mail.repeat_key, InboundMail.id > first, InboundMail.id < mail.id)) or 0
    mail.parse = {**(mail.parse or {}), "repeat_of": first,
                  "answer_withheld": f"repeats mail {first} (same sender, subject and text) within one hour; "
                                     "read as usual, answered once"}
    if not earlier and not mail.flagged:  # the first repeat: the GM may want to look (an autoresponder?)
        mail.flagged = (f"repeated mail: {mail.from_addr} sent mail {first} again within one hour; answered once "
                        "(an autoresponder without Auto-Submitted?)")
    return len(answers)


def gate_answers(ctx: Incoming, rows: list[OutboxMail]) -> int:
    """Cap the answers ``rows`` queued while reading ``ctx.mail``; returns how many were
    withheld. Each row's ``created_at`` becomes the reading time. A mail that repeats the
    sender's last one, answered within the hour before it, gets no answer
    (:func:`_withhold_repeat`). A row to an address that already got
    ``cfg.rate_limit_per_hour`` answers within the hour is kept as ``suppressed`` and goes
    into the address's hourly summary; the mail that first hits the limit is flagged for
    the GM. Nothing is capped for a proved mail (``ctx.proved``) or with a limit of 0."""
    s, now = ctx.s, ctx.now
    for row in rows:
        if row.created_at != now:  # process_mail sets it before the flush (no second UPDATE)
            row.created_at = now
    withheld = _withhold_repeat(ctx, rows)
    limit = getattr(ctx.cfg, "rate_limit_per_hour", DEFAULT_RATE_LIMIT)
    batch = s.info.get(BATCH)
    covered = batch.get(ANSWER_ADDRS) if batch is not None else None
    sent = _answered(s, batch, covered, now, rows) if covered is not None else None
    if ctx.proved or limit is None or limit <= 0:
        _count_in(sent, rows, now)
        return withheld
    for row in rows:
        if row.kind in NOT_ANSWERS or row.status != "pending":
            continue
        addr = row.to_addr.lower()
        if sent is not None and addr in covered:  # counted in the batch's memory (_answered)
            since = now - HOUR
            n = sum(1 for at in sent.get(addr, ()) if at > since)
        else:
            s.flush()  # as a session query would (a no-op when nothing is pending)
            n = s.connection().execute(_ANSWERS_SINCE, {"addr": addr, "since": now - HOUR,
                                                        "row": row.id}).scalar() or 0
        if n < limit:
            _count_in(sent, [row], now)
            continue
        row.status, row.last_error = "suppressed", f"withheld: more than {limit} answers within one hour to {addr}"
        withheld += 1
        s.flush()
        summary, new = throttled_notice(
            s, ctx.cfg, topic=f"cap:{_short(addr)}", item=row.id, to=row.to_addr, now=now, window=HOUR,
            kind="summary", at_once=False, league_id=row.league_id,
            render_mail=lambda first, _summary, addr=addr: _cap_summary(ctx, addr, first, limit))
        if new:
            ctx.mail.flagged = (f"rate limit: more than {limit} answers within one hour to {addr}; withheld, "
                                f"summed up in one mail at {summary.next_attempt_at.isoformat(timespec='minutes')}")
    return withheld


#: The keys among a batch's shared lookups (:data:`bot.storage.db.BATCH`) of the addresses
#: whose answers the batch counts in memory (lower case; set by the reader, e.g. every
#: player address of the running leagues) and of those answers, ``{address: [created_at,
#: ...]}`` (:func:`_answered`).
ANSWER_ADDRS, ANSWERED = "answer_addrs", "answered"


def _answered(s: Session, batch: dict, covered: set[str], now: datetime,
              rows: list[OutboxMail]) -> dict[str, list[datetime]]:
    """The answers the rate limit counts to the addresses ``covered``, by address, for a
    batch read in one transaction (:data:`ANSWERED` in its shared lookups): read in one
    statement (a chunk of 500 addresses, through the index on the address and the time)
    when the batch's first mail is answered (every answer since an hour before it, the
    session flushed first, ``rows`` -- the answers to the mail being read -- left out),
    then kept in memory, each mail's answers added as they are let through
    (:func:`_count_in`); an answer to another address is counted with a query as
    without a batch. A command empties the batch's lookups (``forget_batch``): they are
    read again. The same count as :data:`_ANSWERS_SINCE` a mail, as long as no other
    process queues answers while the batch is read (on PostgreSQL one might: the cap is
    an hourly limit, and a batch lasts a second or two)."""
    sent = batch.get(ANSWERED)
    if sent is None:
        s.flush()
        mine = [r.id for r in rows if r.id is not None]
        sent = batch[ANSWERED] = {}
        addrs = sorted(covered)
        for k in range(0, len(addrs), 500):
            for addr, at in s.connection().execute(_ANSWERED_SINCE, {"addrs": addrs[k:k + 500], "mine": mine,
                                                                     "since": now - HOUR}):
                sent.setdefault(addr, []).append(at if at.tzinfo else at.replace(tzinfo=now.tzinfo))
    return sent


def _count_in(sent: dict[str, list[datetime]] | None, rows: list[OutboxMail], now: datetime) -> None:
    """Add the answers among ``rows`` that go out (pending, no kind of :data:`NOT_ANSWERS`)
    to the batch's count (:func:`_answered`; None: no batch, nothing kept)."""
    if sent is None:
        return
    for row in rows:
        if row.kind not in NOT_ANSWERS and row.status == "pending":
            sent.setdefault(row.to_addr.lower(), []).append(now)


#: The answers to these addresses since a time, by address, but some rows
#: (:func:`_answered`, built once).
_ANSWERED_SINCE = select(func.lower(OutboxMail.to_addr), OutboxMail.created_at).where(
    func.lower(OutboxMail.to_addr).in_(bindparam("addrs", expanding=True)), OutboxMail.created_at > bindparam("since"),
    OutboxMail.status != "suppressed", OutboxMail.kind.not_in(NOT_ANSWERS),
    OutboxMail.id.not_in(bindparam("mine", expanding=True)))


def _text_of(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = msg.get_body(("plain",))
    return body.get_content() if body is not None else ""


def _cap_summary(ctx: Incoming, addr: str, first: int, limit: int) -> tuple[str, str]:
    s = ctx.s
    where = (func.lower(OutboxMail.to_addr) == addr, OutboxMail.status == "suppressed", OutboxMail.id >= first,
             OutboxMail.kind.not_in(NOT_ANSWERS))
    n = s.scalar(select(func.count()).select_from(OutboxMail).where(*where)) or 0
    rows = list(reversed(s.scalars(select(OutboxMail).where(*where).order_by(OutboxMail.id.desc()).limit(10)).all()))
    player = s.scalar(select(Player).join(PlayerAddress).where(PlayerAddress.email == addr).limit(1))
    league = s.get(League, rows[-1].league_id) if rows and rows[-1].league_id else None
    tz = league.timezone if league else ctx.cfg.timezone
    lang = league_language(league.options) if league else ctx.lang
    t = texts(lang)
    lines = [f"  - {_when(r.created_at, tz, lang)}: {r.subject}" for r in rows]
    if n > 10:
        lines.insert(0, "  " + t.gettext("... und {n} frühere", n=n - 10))
    body = (t.ngettext("an deine Adresse gingen in der letzten Stunde mehr Antworten, als der Bot verschickt "
                       "(höchstens {limit} je Stunde). {n} Antwort habe ich deshalb zurückgehalten.",
                       "an deine Adresse gingen in der letzten Stunde mehr Antworten, als der Bot verschickt "
                       "(höchstens {limit} je Stunde). {n} Antworten habe ich deshalb zurückgehalten.", n, limit=limit)
            + " " + t.gettext("Gelesen wurde trotzdem jede Mail: wie immer zählt deine letzte Einsendung vor dem ZAT.")
            + "\n\n" + t.gettext("Zurückgehalten:") + "\n" + "\n".join(lines) + "\n\n"
            + t.gettext("Kamen diese Mails nicht von dir, hat jemand deine Adresse als Absender benutzt; dann melde "
                        "dich bitte beim Spielleiter."))
    if rows:
        body += "\n\n" + t.gettext("Meine Antwort auf die letzte dieser Mails:") + "\n\n" + "\n".join(
            f"> {ln}" if ln else ">" for ln in _text_of(rows[-1].raw).rstrip().splitlines())
    subject = f"{league.name + ': ' if league else ''}" + t.ngettext("{n} zurückgehaltene Antwort",
                                                                     "{n} zurückgehaltene Antworten", n)
    return subject, render("notice.txt.j2", lang, name=player.name if player else None, body=body,
                           league=league.name if league else None)


# -- codes: wrong ones change nothing, the owner is told at most once an hour --------------

_WHY = {"code missing": N_("ohne Code"), "code wrong": N_("falscher Code"),
        "GM code missing": N_("ohne Spielleiter-Code"), "GM code wrong": N_("falscher Spielleiter-Code"),
        "wrong sender address": N_("nicht von der Adresse des Spielleiters"),
        "GM code not set for league": N_("Liga ohne Spielleiter-Code")}


def _why_german(reason: str | None, lang: str = "de") -> str:
    """Why a mail failed its code (a stored ``reason``), in ``lang``."""
    if reason and reason.startswith("sender ambiguous"):
        return tr(lang, "why_ambiguous", why=reason.partition(": ")[2])
    if reason and reason.startswith("sender not authenticated"):
        return tr(lang, "why_sender", why=reason.partition(": ")[2])
    if reason in _WHY:
        return texts(lang).gettext(_WHY[reason])
    return reason or texts(lang).gettext("abgelehnt")


def recent_failures(s: Session, owner: str, now: datetime) -> int:
    """How many mails failed ``owner``'s code within the hour up to ``now``."""
    return s.scalar(select(func.count()).select_from(InboundMail).where(
        InboundMail.auth_failure == owner, InboundMail.received_at > now - HOUR)) or 0


def auth_failure(ctx: Incoming, *, owner: str, to: str, name: str | None, subject: str, first_text: str,
                 what: str) -> None:
    """Record that ``ctx.mail`` failed ``owner``'s code (``player:<id>`` or ``gm:<league
    id>``) and tell the owner at ``to``: the first failure within an hour with
    ``first_text`` at once, the later ones in ONE summary an hour later (count, senders;
    ``what`` names what they tried, e.g. "Spielleiter-Befehle für Liga"). More than
    :data:`GUESS_LIMIT` within the hour flags the mail as guessing. Nothing is sent to
    the sender (a forged sender is not the one who wrote)."""
    s, mail, now = ctx.s, ctx.mail, ctx.now
    mail.auth_failure = owner
    s.flush()
    n = recent_failures(s, owner, mail.received_at)
    if n > GUESS_LIMIT:
        mail.flagged = f"{mail.flagged or 'code failed'}; {n} failed codes for {owner} within one hour (guessing?)"
    tz = ctx.league.timezone if ctx.league else ctx.cfg.timezone

    lang = ctx.lang if owner.startswith("player:") else gm_language(ctx.league.options if ctx.league else None)
    league_name = ctx.league.name if ctx.league else None

    def render_mail(first: int, summary: bool) -> tuple[str, str]:
        if not summary:
            return subject, render("notice.txt.j2", lang, name=name,
                                   body=first_text + "\n\n" + tr(lang, "more_in_summary"), league=league_name)
        where = (InboundMail.auth_failure == owner, InboundMail.id >= first)
        n = s.scalar(select(func.count()).select_from(InboundMail).where(*where)) or 0
        senders = Counter(dict(s.execute(select(InboundMail.from_addr, func.count()).where(*where)
                                         .group_by(InboundMail.from_addr)).all()))
        first_at = s.scalar(select(func.min(InboundMail.received_at)).where(*where))
        rows = list(reversed(s.scalars(select(InboundMail).where(*where).order_by(InboundMail.id.desc())
                                       .limit(10)).all()))
        lines = [tr(lang, "auth_line", when=_when(r.received_at, tz, lang), sender=r.from_addr or "?",
                    why=_why_german((r.parse or {}).get("reason"), lang)) for r in rows]
        if n > 10:
            lines.insert(0, tr(lang, "auth_earlier", n=n - 10))
        body = tr(lang, "auth_summary", first=_when(first_at, tz, lang), last=_when(rows[-1].received_at, tz, lang),
                  n=n, mails=tr(lang, "mail_one" if n == 1 else "mail_many"), what=what,
                  senders=", ".join(f"{a or '?'} ({c})" for a, c in senders.most_common(10))) + "\n\n" + "\n".join(lines)
        if n > GUESS_LIMIT:
            body += "\n\n" + tr(lang, "auth_guessing")
        return f"{subject} ({n})", render("notice.txt.j2", lang, name=name, body=body, league=league_name)

    throttled_notice(s, ctx.cfg, topic=f"auth:{owner}", item=mail.id, to=to, now=now, window=HOUR, kind="auth",
                     render_mail=render_mail, league_id=ctx.league.id if ctx.league else None)


def proven(ctx: Incoming, owner: str) -> None:
    """``ctx.mail`` carried ``owner``'s right code: it is answered whatever the rate limit
    says. After more than :data:`GUESS_LIMIT` failed codes within the hour it is flagged
    for the GM (the code may have been guessed), and processed all the same."""
    ctx.proved = True
    n = recent_failures(ctx.s, owner, ctx.mail.received_at)
    if n > GUESS_LIMIT:
        ctx.mail.flagged = f"right code for {owner} after {n} failed codes within one hour (guessed?)"

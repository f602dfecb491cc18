"""The context of one incoming mail while it is read: the session, the stored mail, what
was read from it, who sent it, and how to answer. Shared by intake and the commands."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from bot.config import Config
from bot.mail.auth import SenderAuth
from bot.mail.message import ReadMail
from bot.i18n import DEFAULT, league_language
from bot.render import render
from bot.service.stages.outbox import queue_mail
from bot.storage.db import BATCH, STALE
from bot.storage.models import InboundMail, League, Player


def batch_of(s: Session) -> dict | None:
    """The shared lookups of the batch ``s`` reads in (:data:`BATCH`), or None."""
    return s.info.get(BATCH)


#: The key among a batch's shared lookups of who has answers the batch has not written
#: yet (a mail read without savepoints is flushed only when needed): ``("p", player
#: id)`` of the mail that queued them, ``("a", address)`` they go to.
UNWRITTEN = "unwritten"

#: The key among a batch's shared lookups of the rows of
#: :data:`~bot.service.conversations.senders.SENDERS` by address (player, league, address
#: each): read once for the batch when the running leagues have at most two player
#: addresses a mail of it (:func:`bot.service.conversations.intake.read_pass`).
SENDER_ROWS = "senders"
#: The key among a batch's shared lookups of the answers it queued (read without
#: savepoints), by (league id, address in lower case): the quoted-block check's memory
#: (:func:`bot.service.conversations.quoting.quotable_for`) adds them.
QUEUED_TO = "queued_to"
#: The key in ``Session.info``: True while a mail is read whose submissions may be held
#: for the batch (:func:`bot.service.conversations.intake.process_mail` with ``later``).
DEFER = "spielleiter.defer_submissions"


def written_for(s: Session, player_id: int | None, addr: str | None) -> None:
    """Flush ``s`` when the batch holds answers not yet written for player ``player_id``
    or to ``addr`` (:data:`UNWRITTEN`): a query on the connection (the quoted-block
    check) is about to read them."""
    pending = (s.info.get(BATCH) or {}).get(UNWRITTEN)
    if pending and (("p", player_id) in pending or ("a", (addr or "").lower()) in pending):
        s.flush()
        pending.clear()


def forget_batch(s: Session) -> None:
    """Empty the batch's shared lookups: the mail being read may change what they hold (a
    command: a league's rounds or Partien), so it and the next mail query again; the
    objects the batch keeps loaded are expired once the mail is done (:data:`STALE`)."""
    batch = s.info.get(BATCH)
    if batch is not None:
        s.flush()  # the batch's earlier mails written: a command reads the tables as they stand
        batch.clear()
        batch[STALE] = True


@dataclass
class Incoming:
    """One stored mail being read. ``player``/``league`` are set once the sender is known;
    ``proved`` once it carried the right code."""

    s: Session
    cfg: Config
    mail: InboundMail
    rm: ReadMail
    now: datetime
    player: Player | None = None
    league: League | None = None
    answers: int = field(default=0)
    #: the mail carried its owner's right code (player or GM): always answered (no rate limit)
    proved: bool = False
    #: what our receiving server said of the sender (bot.mail.auth; ``none`` without
    #: ``[bot] authserv_id``); a ``pass`` proves an ADRESSE like a code (issue 31)
    auth: SenderAuth = field(default_factory=SenderAuth)
    #: answered once for each of the player's leagues (bot.service.conversations.routing):
    #: each answer's subject names its league
    league_in_subject: bool = False

    @property
    def reply_subject(self) -> str:
        subj = self.rm.subject or ""
        subj = subj if subj.lower().startswith(("re:", "aw:")) else f"Re: {subj}".strip()
        return f"{subj} ({self.league.name})" if self.league_in_subject and self.league else subj

    def record(self, status: str, kind: str, **parse: Any) -> None:
        """Set the stored mail's status, kind and what was read (JSON)."""
        self.mail.status, self.mail.kind = status, kind
        self.mail.parse = dict(parse)

    @property
    def lang(self) -> str:
        """The language of answers: the league's (bot.i18n) for a player's mail, else German."""
        if self.player is not None and self.league is not None:
            return league_language(self.league.options)
        return DEFAULT

    def reply(self, body: str, *, to: str | None = None, subject: str | None = None, kind: str = "notice",
              name: str | None = None, lang: str | None = None) -> None:
        """Queue an answer (``notice.txt.j2`` in ``lang``, by default :attr:`lang`) to the
        sender (or ``to``). Several answers to one mail get distinct outbox keys."""
        self.answers += 1
        queue_mail(self.s, self.cfg, key=f"{kind}:{self.mail.id}:{self.answers}", kind=kind,
                   to=to or self.rm.from_addr, subject=subject or self.reply_subject,
                   text=render("notice.txt.j2", lang or self.lang, name=name if name is not None else
                               (self.player.name if self.player else None), body=body,
                               league=self.league.name if self.league else None),
                   league_id=self.league.id if self.league else None, in_reply_to=self.rm.message_id)

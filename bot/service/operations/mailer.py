"""Choose the transports from the config: Maildir (embedded) or IMAP + SMTP, and the
database-backed IMAP poll state."""

from __future__ import annotations


from bot.config import Config
from bot.mail.imap import ImapInbox
from bot.mail.maildir import MaildirTransport
from bot.mail.oauth import TokenSource
from bot.mail.smtp import SmtpTransport
from bot.storage.db import Database
from bot.storage.models import PollState


class DbPollState:
    """UIDVALIDITY and last UID per mailbox, kept in the ``poll_state`` table."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, mailbox: str) -> tuple[int | None, int]:
        with self.db.session() as s:
            row = s.get(PollState, mailbox)
            return (row.uidvalidity, row.last_uid) if row else (None, 0)

    def set(self, mailbox: str, uidvalidity: int, last_uid: int) -> None:
        with self.db.session() as s:
            row = s.get(PollState, mailbox)
            if row is None:
                s.add(PollState(mailbox=mailbox, uidvalidity=uidvalidity, last_uid=last_uid))
            else:
                row.uidvalidity, row.last_uid = uidvalidity, last_uid


def _tls(v):
    return v if v in ("starttls",) else bool(v)


def transports(cfg: Config):
    """(poller, sender) for the config."""
    if cfg.imap is not None and cfg.smtp is not None:
        i, m = cfg.imap, cfg.smtp
        tokens = None
        if "oauth2" in (i.get("auth"), m.get("auth")):
            tokens = TokenSource(cfg.oauth)
        poller = ImapInbox(i["host"], int(i.get("port", 993)), i.get("user", ""), i.get("password", ""),
                           tls=_tls(i.get("tls", True)), folder=i.get("folder", "INBOX"),
                           processed_folder=i.get("processed_folder", "Spielleiter/Verarbeitet"),
                           timeout=float(i.get("timeout", 30)), ca_file=i.get("ca_file"),
                           oauth=tokens if i.get("auth") == "oauth2" else None)
        # no user (or an empty one): no AUTH (a relay that takes mail without login); one quick
        # retry for a dropped connection, the outbox's own backoff does the rest
        sender = SmtpTransport(m["host"], int(m.get("port", 587)), m.get("user") or None, m.get("password"),
                               tls=_tls(m.get("tls", "starttls")), timeout=float(m.get("timeout", 30)),
                               retries=1, backoff=1.0, ca_file=m.get("ca_file"),
                               oauth=tokens if m.get("auth") == "oauth2" else None)
        return poller, sender
    md = MaildirTransport(cfg.maildir)
    return md, md

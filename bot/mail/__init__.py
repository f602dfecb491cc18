"""Mail layer: reading, composing, polling (IMAP/Maildir) and sending (SMTP/Maildir).

No game rules and no database code live here; storage is reached only via
the :class:`~bot.mail.transport.StoreCallback` and
:class:`~bot.mail.transport.PollState` protocols.
"""

from .compose import compose, make_message_id
from .imap import ImapInbox
from .maildir import MaildirTransport
from .message import ReadMail, read_mail
from .smtp import SmtpTransport
from .transport import (
    MemoryPollState,
    PermanentFailure,
    Poller,
    PollState,
    Sender,
    ServerFailure,
    StoreCallback,
    TemporaryFailure,
)

__all__ = [
    "ImapInbox", "MaildirTransport", "MemoryPollState", "PermanentFailure", "PollState",
    "Poller", "ReadMail", "Sender", "ServerFailure", "SmtpTransport", "StoreCallback", "TemporaryFailure",
    "compose", "make_message_id", "read_mail",
]

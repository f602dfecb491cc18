"""Crash points: kill the process at a named seam, like a power cut, to test recovery.

When the environment variable ``SPIELLEITER_CRASH_AT`` equals the name given to
:func:`crashpoint`, the process ends at once with ``os._exit(77)``: no ``finally``
blocks, no rollback, no logout, no flushing -- whatever was committed stays, whatever
was not is lost. Without the variable a crash point does nothing.

The crash points (the seams between two stages of the mail flow):

``after-store``
    ``bot/service/conversations/intake.py`` (store callback): the raw mail is committed to
    ``inbound_mails``, before the transport moves it and before it is read; likewise
    ``bot/service/operations/ingest.py`` (``spielleiter ingest``: a batch stored).
``after-read``
    ``bot/service/conversations/intake.py`` (``process_pending``): the reading transaction
    of one batch of stored mails (their submissions, acknowledgements in the outbox) is
    committed, before the next batch; ``bot/service/operations/ingest.py``: the reading
    transaction of one batch is committed, before the next batch is stored.
``before-move``
    ``bot/mail/imap.py`` (``tidy``): the mails are stored, made durable, the poll state
    advanced and the mails read, right before the stored mails are moved to the
    processed folder.
``after-adjudicate``
    ``bot/cli.py`` (``adjudicate``) and ``bot/service/operations/runner.py`` (``Service.fire``):
    the adjudication is committed (Auswertungen in the outbox), before delivery.
``before-send``
    ``bot/service/stages/outbox.py`` (``deliver``): right before the SMTP send of a row.
``after-data``
    ``bot/mail/smtp.py`` (``_send_once``): the server answered 250 to DATA and the row is
    marked sent, before QUIT (issue 34: the attempt counted against the send limits).
``after-send``
    ``bot/service/stages/outbox.py`` (``deliver``): the SMTP server accepted the mail, before
    the row is marked sent (so the mail is sent again, byte-identical, on the next run).

``tests/test_crash.py`` runs the real ``spielleiter`` command with each of them.
"""

from __future__ import annotations

import os
import sys

ENV = "SPIELLEITER_CRASH_AT"
EXIT_CODE = 77

#: Every crash point placed in the code (see the module docstring).
POINTS = ("after-store", "after-read", "before-move", "after-adjudicate", "before-send", "after-data", "after-send")


def crashpoint(name: str) -> None:
    """End the process at once with status 77 when ``SPIELLEITER_CRASH_AT`` is ``name``."""
    if os.environ.get(ENV) == name:
        try:
            sys.stderr.write(f"spielleiter: crash point {name}\n")
            sys.stderr.flush()
        except Exception:  # pragma: no cover - stderr closed
            pass
        os._exit(EXIT_CODE)

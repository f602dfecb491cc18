"""IMAP IDLE (RFC 2177) for ``spielleiter run``: a new mail is read as it arrives.

:class:`IdleWatch` keeps one more IMAP connection of its own, with the folder opened
read-only (``EXAMINE``) and in IDLE, and only listens: when the server says the folder
holds more mails (``* n EXISTS``) it wakes the inbox stage of the service, which polls
as always (:func:`bot.service.operations.runner.poll_inbox`: store, read, tidy; the outbox loop
then sends the acknowledgement). The watch never fetches, stores or moves a mail, so
exactly-once storage and the crash seams stay those of the poll.

- IDLE is ended and started again every :data:`RENEW` seconds (10 min; servers may end
  an IDLE after 30 minutes, RFC 2177 asks clients to renew before 29).
- When the connection drops (or cannot be opened), the watch wakes the inbox stage once:
  its poll either reads what came or fails and starts the usual backoff
  (:class:`~bot.service.operations.health.Outage`). While the inbox stage fails, the watch waits
  without connecting; it connects again ``poll_interval`` seconds (or the backoff) after
  a drop, once the inbox works.
- The poll every ``poll_interval`` seconds stays as the safety net and is all there is
  for a server that does not announce IDLE (one line at start) or with
  ``[imap] idle = false``.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from bot.config import Config
from bot.mail.transport import ServerFailure

log = logging.getLogger(__name__)

#: seconds after which an IDLE is ended and started again (before the 29 minutes of RFC 2177)
RENEW = 10 * 60.0
#: seconds one wait for the server's news lasts (the watch notices a stop this fast)
CHECK = 1.0
#: this many empty answers in a row, each at once, mean the server closed the connection
HOLLOW = 3


def idle_enabled(cfg: Config) -> bool:
    """Whether ``spielleiter run`` uses IDLE: with ``[imap]`` and ``[imap] idle`` not false."""
    return cfg.imap is not None and bool(cfg.imap.get("idle", True))


class IdleWatch:
    """Waits in IMAP IDLE on the inbox folder and calls ``wake()`` when mail arrives.

    ``inbox``: the :class:`~bot.mail.imap.ImapInbox` of the service (its ``connect`` and
    folder); ``wake``: called (from the watch's thread) when new mail is announced, once
    after IDLE started (what arrived before), and once after a dropped connection;
    ``healthy()``: False while the inbox stage is failing (the watch then does not
    connect); ``pause()``: seconds to wait before connecting again after a drop (the
    poll interval or the backoff). :meth:`run` returns when ``stopping`` is set or the
    server has no IDLE. ``renew`` (seconds) defaults to :data:`RENEW`."""

    def __init__(self, inbox, *, wake: Callable[[], None], healthy: Callable[[], bool],
                 pause: Callable[[], float], stopping: threading.Event, renew: float | None = None) -> None:
        self.inbox, self.wake, self.healthy, self.pause = inbox, wake, healthy, pause
        self.stopping, self.renew = stopping, RENEW if renew is None else renew
        #: IDLE commands started (the first and every renewal), for tests and the log
        self.started = 0
        #: times new mail was announced
        self.announced = 0
        #: True while the connection is in IDLE
        self.idling = False
        #: failed sessions since IDLE last worked
        self.failures = 0

    def run(self) -> None:
        """Watch until ``stopping`` is set (or the server has no IDLE). Never raises."""
        while not self.stopping.is_set():
            if not self.healthy():
                self.stopping.wait(self.pause())
                continue
            try:
                if not self._session():
                    log.info("IMAP %s bietet kein IDLE an: neue Mails werden alle %s s abgerufen",
                             self.inbox.where, f"{self.pause():g}")
                    return
            except ServerFailure as exc:
                self.idling = False
                if self.stopping.is_set():
                    return
                self.failures += 1  # one line per outage of the watch, not one per attempt
                log.log(logging.INFO if self.failures == 1 else logging.DEBUG,
                        "IMAP IDLE unterbrochen (%s); Abruf wie gewohnt, neuer IDLE-Versuch in %s s",
                        exc.line(), f"{self.pause():g}")
                self.wake()  # a poll now: it reads what came, or fails and backs off
                self.stopping.wait(self.pause())
            except Exception:  # a bug must not end the service; polling goes on
                self.idling = False
                log.exception("IMAP IDLE gescheitert")
                self.stopping.wait(self.pause())

    def _session(self) -> bool:
        """One connection: EXAMINE, IDLE, listen, renew; returns False when the server has
        no IDLE, True when stopped. Raises :class:`ServerFailure` when it drops."""
        from bot.mail.imap import _close  # imapclient only when IMAP is used
        client = self.inbox.connect()
        try:
            if not client.has_capability("IDLE"):
                return False
            info = client.select_folder(self.inbox.folder, readonly=True)
            count = int(info.get(b"EXISTS", 0))
            client.idle()
            self.started += 1
            self.idling = True
            if self.failures:
                log.info("IMAP IDLE wieder aktiv")
                self.failures = 0
            self.wake()  # mail that came between the last poll and this IDLE
            since = time.monotonic()
            hollow = 0
            while not self.stopping.is_set():
                if time.monotonic() - since >= self.renew:
                    self.idling = False
                    client.idle_done()
                    client.idle()
                    self.started += 1
                    self.idling = True
                    since = time.monotonic()
                new = False
                asked = time.monotonic()
                responses = client.idle_check(timeout=CHECK)
                # imapclient swallows the end of the connection (EOF) and returns nothing,
                # at once, every time: nothing several times in a row, long before the
                # timeout, is a dropped connection
                hollow = hollow + 1 if not responses and time.monotonic() - asked < CHECK / 2 else 0
                if hollow >= HOLLOW:
                    raise ServerFailure("imap", "unreachable", "Verbindung abgebrochen", host=self.inbox.where)
                for resp in responses:
                    if len(resp) < 2 or not isinstance(resp[0], int):
                        if resp and resp[0] == b"BYE":
                            raise ServerFailure("imap", "unreachable", "der Server beendet die Verbindung",
                                                host=self.inbox.where)
                        continue
                    n, what = resp[0], resp[1]
                    if what == b"EXISTS":
                        new = new or n > count
                        count = n
                    elif what == b"EXPUNGE":
                        count = max(0, count - 1)
                if new:
                    self.announced += 1
                    self.wake()
            self.idling = False
            client.idle_done()
            return True
        except ServerFailure:
            raise
        except Exception as exc:
            raise self.inbox._failure(exc, "poll") from exc
        finally:
            self.idling = False
            _close(client)

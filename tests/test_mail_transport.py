"""Transport tests against real servers: Dovecot (IMAP), aiosmtpd (SMTP), Maildir."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import datetime, timezone

import pytest

from bot.mail.compose import compose, make_message_id
from bot.mail.imap import ImapInbox
from bot.mail.maildir import MaildirTransport, _delivery_order
from bot.mail.message import read_mail
from bot.mail.smtp import SmtpTransport
from bot.mail.transport import MemoryPollState, PermanentFailure, Poller, Sender, TemporaryFailure
from tests.mailservers import free_port


def player_mail(n: int) -> bytes:
    return compose(
        sender=f"Spieler {n} <spieler{n}@example.de>",
        to="bot@spiel.example",
        subject=f"Zug {n}",
        text=f"ZUG: WORT{n} – Grüße\n",
        message_id=f"<zug{n}@example.de>",
        date=datetime(2026, 12, 1, 10, n, tzinfo=timezone.utc),  # same bytes every call
        headers={"Auto-Submitted": "no"},
    )


class RecordingStore:
    """Store callback that records what it got; can refuse or raise on demand."""

    def __init__(self):
        self.calls: list[tuple[bytes, dict]] = []
        self.refuse: set[str] = set()   # Message-IDs to answer False for
        self.explode: set[str] = set()  # Message-IDs to raise for
        self.check = None               # optional extra check called with kwargs

    def __call__(self, raw: bytes, *, source: str, uidvalidity, uid) -> bool:
        mid = read_mail(raw).message_id
        if self.check:
            self.check(raw=raw, source=source, uidvalidity=uidvalidity, uid=uid)
        if mid in self.explode:
            raise RuntimeError("database is down")
        if mid in self.refuse:
            return False
        self.calls.append((raw, {"source": source, "uidvalidity": uidvalidity, "uid": uid}))
        return True

    @property
    def ids(self):
        return [read_mail(raw).message_id for raw, _ in self.calls]


# ------------------------------------------------------------------- IMAP


@pytest.fixture
def inbox(dovecot):
    user = dovecot.fresh_user()  # isolated account per test
    box = ImapInbox(dovecot.host, dovecot.port, user, dovecot.password, tls=False, timeout=10)
    return box


def test_imap_poll_stores_moves_and_advances(dovecot, inbox):
    for n in (1, 2, 3):
        dovecot.append(player_mail(n), user=inbox.user)
    store, state = RecordingStore(), MemoryPollState()
    assert isinstance(inbox, Poller)

    assert inbox.poll(store, state) == 3

    assert store.ids == ["<zug1@example.de>", "<zug2@example.de>", "<zug3@example.de>"]
    assert store.calls[0][0] == player_mail(1)  # exact bytes
    assert {c[1]["source"] for c in store.calls} == {"imap:INBOX"}
    uidvalidity, last_uid = state.get("INBOX")
    assert uidvalidity == store.calls[0][1]["uidvalidity"] and uidvalidity > 0
    assert last_uid == store.calls[-1][1]["uid"] == 3
    # the poll (read-only) leaves the folder as it was, unseen
    assert [read_mail(r).message_id for r in dovecot.fetch_all("INBOX", user=inbox.user)] == store.ids
    assert dovecot.flags("INBOX", user=inbox.user) == [(), (), ()]
    # a mail arriving after the poll is not stored yet: tidy leaves it
    dovecot.append(player_mail(4), user=inbox.user)
    assert inbox.tidy(state) == 3
    assert [read_mail(r).message_id for r in dovecot.fetch_all("INBOX", user=inbox.user)] == ["<zug4@example.de>"]
    folders = dovecot.folders(user=inbox.user)
    assert "Spielleiter.Verarbeitet" in folders  # "/" mapped to Dovecot's "."
    moved = dovecot.fetch_all("Spielleiter.Verarbeitet", user=inbox.user)
    assert [read_mail(r).message_id for r in moved] == store.ids
    assert inbox.tidy(state) == 0  # nothing stored is left in the folder

    # the next poll fetches only the new mail, with a higher UID
    assert inbox.poll(store, state) == 1
    assert len(store.calls) == 4 and store.ids[-1] == "<zug4@example.de>"
    assert state.get("INBOX") == (uidvalidity, 4)
    assert inbox.poll(store, state) == 0  # nothing new: nothing fetched twice
    assert len(store.calls) == 4
    assert inbox.untidy == 1
    assert inbox.tidy(state) == 1
    assert dovecot.fetch_all("INBOX", user=inbox.user) == []
    assert len(dovecot.fetch_all("Spielleiter.Verarbeitet", user=inbox.user)) == 4
    # a poll with nothing new and nothing stored left in the folder: tidy does not log in
    assert inbox.poll(store, state) == 0 and inbox.untidy == 0
    logins = []
    real_connect = inbox.connect
    inbox.connect = lambda: logins.append(1) or real_connect()
    assert inbox.tidy(state) == 0 and logins == []


def test_imap_tidy_moves_nothing_without_state_or_after_a_new_uidvalidity(dovecot, inbox):
    dovecot.append(player_mail(1), user=inbox.user)
    assert inbox.tidy(MemoryPollState()) == 0  # never polled: nothing is known stored
    state = MemoryPollState()
    state.set("INBOX", 12345, 99)  # the state of an earlier incarnation of the folder
    assert inbox.tidy(state) == 0
    assert len(dovecot.fetch_all("INBOX", user=inbox.user)) == 1


@pytest.mark.parametrize("failure", ["refuse", "explode"])
def test_imap_store_failure_keeps_mail_for_next_poll(dovecot, inbox, failure):
    for n in (1, 2, 3):
        dovecot.append(player_mail(n), user=inbox.user)
    store, state = RecordingStore(), MemoryPollState()
    getattr(store, failure).add("<zug2@example.de>")

    assert inbox.poll(store, state) == 1  # stops at mail 2
    assert store.ids == ["<zug1@example.de>"]
    assert inbox.tidy(state) == 1
    left = [read_mail(r).message_id for r in dovecot.fetch_all("INBOX", user=inbox.user)]
    assert left == ["<zug2@example.de>", "<zug3@example.de>"]
    assert state.get("INBOX")[1] == 1
    assert dovecot.flags("INBOX", user=inbox.user) == [(), ()]  # still unseen

    getattr(store, failure).clear()
    assert inbox.poll(store, state) == 2
    assert store.ids == ["<zug1@example.de>", "<zug2@example.de>", "<zug3@example.de>"]
    assert inbox.tidy(state) == 2
    assert dovecot.fetch_all("INBOX", user=inbox.user) == []


def test_imap_not_seen_before_stored(dovecot, inbox):
    dovecot.append(player_mail(1), user=inbox.user)
    store, state = RecordingStore(), MemoryPollState()
    seen_at_store = []

    def check(**kw):
        # inspect the server state from a second connection while the poll runs
        seen_at_store.append(dovecot.flags("INBOX", user=inbox.user))

    store.check = check
    store.refuse.add("<zug1@example.de>")
    assert inbox.poll(store, state) == 0
    assert seen_at_store == [[()]]
    assert dovecot.flags("INBOX", user=inbox.user) == [()]  # not \Seen after refusal either


def test_imap_uidvalidity_change_rescans(dovecot, inbox):
    dovecot.append(player_mail(1), user=inbox.user)
    store, state = RecordingStore(), MemoryPollState()
    state.set("INBOX", 12345, 99)  # stale state from a previous incarnation of the mailbox
    assert inbox.poll(store, state) == 1
    assert store.calls[0][1]["uid"] == 1
    assert state.get("INBOX")[0] != 12345


def test_imap_high_last_uid_does_not_refetch_last_mail(dovecot, inbox):
    # "UID 5:*" matches the highest UID even when that is < 5
    dovecot.append(player_mail(1), user=inbox.user)
    client = dovecot.client(inbox.user)
    try:
        uidvalidity = client.select_folder("INBOX")[b"UIDVALIDITY"]
    finally:
        client.logout()
    store, state = RecordingStore(), MemoryPollState()
    state.set("INBOX", uidvalidity, 4)
    assert inbox.poll(store, state) == 0
    assert store.calls == []


def test_imap_existing_processed_folder_and_other_folder_name(dovecot):
    user = dovecot.fresh_user()
    dovecot.append(player_mail(1), folder="Archiv", user=user)  # creates "Archiv"
    dovecot.append(player_mail(2), user=user)
    box = ImapInbox(dovecot.host, dovecot.port, user, dovecot.password, tls=False, processed_folder="Archiv")
    store, state = RecordingStore(), MemoryPollState()
    assert box.poll(store, state) == 1
    assert box.tidy(state) == 1
    assert len(dovecot.fetch_all("Archiv", user=user)) == 2


def test_imap_wrong_password_raises_and_closes(dovecot):
    box = ImapInbox(dovecot.host, dovecot.port, "bot", "falsch", tls=False, timeout=5)
    with pytest.raises(Exception):
        box.poll(RecordingStore(), MemoryPollState())


def test_dovecot_fixture_helpers(dovecot_clean):
    d = dovecot_clean
    d.append(player_mail(1))
    d.append(player_mail(2), folder="Extra")
    assert len(d.fetch_all()) == 1 and "Extra" in d.folders()
    d.reset()
    assert d.fetch_all() == [] and d.folders() == ["INBOX"]


# ------------------------------------------------------------------- Maildir


def test_maildir_poll_move_send_round_trip(tmp_path):
    t = MaildirTransport(tmp_path / "mail")
    for sub in ("inbox", "processed", "outbox"):
        assert (tmp_path / "mail" / sub / "new").is_dir()
    assert isinstance(t, Sender) and isinstance(t, Poller)
    keys = [t.deliver_to_inbox(player_mail(n)) for n in (1, 2, 3)]
    assert len(set(keys)) == 3

    store = RecordingStore()
    store.refuse.add("<zug2@example.de>")
    # mails are handed over in delivery order (the numbers in the key); stop at the refused mail
    order = [read_mail(t.inbox.get_bytes(k)).message_id for k in sorted(t.inbox.keys(), key=_delivery_order)]
    assert order == ["<zug1@example.de>", "<zug2@example.de>", "<zug3@example.de>"]
    assert t.poll(store) == 1
    assert store.ids == ["<zug1@example.de>"]
    assert len(t.inbox) == 2 and len(t.processed) == 1

    store.refuse.clear()
    store.explode.add("<zug3@example.de>")
    assert t.poll(store, MemoryPollState()) == 1
    assert len(t.inbox) == 1

    store.explode.clear()
    assert t.poll(store) == 1
    assert store.ids == ["<zug1@example.de>", "<zug2@example.de>", "<zug3@example.de>"]
    assert {c[1]["source"] for c in store.calls} == {"maildir"}
    assert store.calls[0][1] == {"source": "maildir", "uidvalidity": None, "uid": None}
    assert len(t.inbox) == 0
    assert t.processed_mails() == [player_mail(1), player_mail(2), player_mail(3)]
    assert t.poll(store) == 0

    reply = compose(sender="bot@spiel.example", to="spieler1@example.de", subject="Re: Zug 1", text="Danke!")
    t.send(reply, "bot@spiel.example", ["spieler1@example.de"])
    assert t.sent() == [reply]
    with pytest.raises(PermanentFailure):
        t.send(reply, "bot@spiel.example", [])


# ------------------------------------------------------------------- SMTP


def outgoing(key="outbox:1"):
    mid = make_message_id(key, "spiel.example")
    raw = compose(sender="Spielleiter <bot@spiel.example>", to="Jürgen <juergen@example.de>",
                  subject="Runde 3 – Ergebnis", text="Grüße\n", html="<p>Grüße</p>", message_id=mid)
    return raw, mid


def test_smtp_delivers_exact_bytes(smtpd):
    raw, mid = outgoing()
    t = SmtpTransport(smtpd.host, smtpd.port, retries=0)
    assert isinstance(t, Sender)
    t.send(raw, "bot@spiel.example", ["juergen@example.de", "gm@example.de"])
    assert len(smtpd.messages) == 1
    got = smtpd.messages[0]
    assert got.mail_from == "bot@spiel.example"
    assert got.rcpt_tos == ["juergen@example.de", "gm@example.de"]
    assert got.raw == raw
    assert read_mail(got.raw).message_id == mid


def test_smtp_send_async_and_from_running_loop(smtpd):
    raw, _ = outgoing()
    t = SmtpTransport(smtpd.host, smtpd.port, retries=0)

    async def main():
        await t.send_async(raw, "bot@spiel.example", ["a@example.de"])
        t.send(raw, "bot@spiel.example", ["b@example.de"])  # sync call inside a loop's thread

    asyncio.run(main())
    # and from a plain worker thread
    th = threading.Thread(target=t.send, args=(raw, "bot@spiel.example", ["c@example.de"]))
    th.start()
    th.join()
    assert [m.rcpt_tos for m in smtpd.messages] == [["a@example.de"], ["b@example.de"], ["c@example.de"]]


def test_smtp_retries_451_then_succeeds(smtpd):
    raw, _ = outgoing()
    smtpd.fail_next(2, code=451)
    t = SmtpTransport(smtpd.host, smtpd.port, retries=3, backoff=0.01)
    t.send(raw, "bot@spiel.example", ["juergen@example.de"])
    assert smtpd.attempts == 3
    assert [m.raw for m in smtpd.messages] == [raw]


def test_smtp_451_exhausts_retries(smtpd):
    raw, _ = outgoing()
    smtpd.fail_next(10, code=451)
    t = SmtpTransport(smtpd.host, smtpd.port, retries=2, backoff=0.01)
    with pytest.raises(TemporaryFailure) as info:
        t.send(raw, "bot@spiel.example", ["juergen@example.de"])
    assert info.value.code == 451
    assert smtpd.attempts == 3 and smtpd.messages == []


def test_smtp_550_is_permanent_without_retry(smtpd):
    raw, _ = outgoing()
    smtpd.reject_all(550)
    t = SmtpTransport(smtpd.host, smtpd.port, retries=3, backoff=5)  # a retry would be slow
    start = time.monotonic()
    with pytest.raises(PermanentFailure) as info:
        t.send(raw, "bot@spiel.example", ["nobody@example.de"])
    assert time.monotonic() - start < 2
    assert info.value.code == 550 and "nobody@example.de" in info.value.message
    assert smtpd.messages == [] and smtpd.attempts == 0


def test_smtp_554_on_data_is_permanent(smtpd):
    raw, _ = outgoing()
    smtpd.fail_next(1, code=554)
    t = SmtpTransport(smtpd.host, smtpd.port, retries=3, backoff=5)
    with pytest.raises(PermanentFailure) as info:
        t.send(raw, "bot@spiel.example", ["x@example.de"])
    assert info.value.code == 554 and smtpd.attempts == 1


def test_smtp_connection_refused_is_temporary_after_retries():
    raw, _ = outgoing()
    port = free_port()  # nothing listens here
    t = SmtpTransport("127.0.0.1", port, retries=2, backoff=0.05, timeout=2)
    start = time.monotonic()
    with pytest.raises(TemporaryFailure) as info:
        t.send(raw, "bot@spiel.example", ["x@example.de"])
    assert time.monotonic() - start >= 0.05 + 0.1  # waited for both retries
    assert info.value.code is None


def test_maildir_poll_reads_in_delivery_order(tmp_path):
    """Mails of the same second come out in the order they were delivered (a later
    submission replaces an earlier one, so order matters)."""
    from bot.mail.maildir import MaildirTransport, _delivery_order
    keys = ["1700000000.M99P5Q2.h", "1700000000.M100P5Q3.h", "1699999999.M999999P5Q1.h", "odd-name"]
    assert sorted(keys, key=_delivery_order) == [keys[2], keys[0], keys[1], keys[3]]
    md = MaildirTransport(tmp_path / "md")
    raws = [f"From: a@example.org\r\nSubject: n{i}\r\n\r\nbody {i}\r\n".encode() for i in range(30)]
    for raw in raws:
        md.deliver_to_inbox(raw)
    seen = []
    md.poll(lambda raw, **kw: seen.append(raw) or True)
    assert seen == raws


def test_imap_tidy_without_move_copies_and_expunges_only_the_stored(dovecot, inbox, monkeypatch):
    """A server without MOVE: COPY, \\Deleted and UID EXPUNGE of just the stored mails."""
    from imapclient import IMAPClient
    real = IMAPClient.has_capability
    monkeypatch.setattr(IMAPClient, "has_capability", lambda self, cap: cap.upper() != "MOVE" and real(self, cap))
    for n in (1, 2):
        dovecot.append(player_mail(n), user=inbox.user)
    store, state = RecordingStore(), MemoryPollState()
    assert inbox.poll(store, state) == 2
    dovecot.append(player_mail(3), user=inbox.user)
    assert inbox.tidy(state) == 2
    assert [read_mail(r).message_id for r in dovecot.fetch_all("INBOX", user=inbox.user)] == ["<zug3@example.de>"]
    assert dovecot.flags("INBOX", user=inbox.user) == [()]
    moved = dovecot.fetch_all("Spielleiter.Verarbeitet", user=inbox.user)
    assert [read_mail(r).message_id for r in moved] == ["<zug1@example.de>", "<zug2@example.de>"]

"""Nobody can silence a player (issue 14): forged floods, code guessing, sender
authentication (Authentication-Results), size limits, unreadable mails.

Real components: SQLite and the Maildir transport through ``poll_once``, the real
lexicon; time is moved by shifting the stored times back, as the service would see it
an hour later.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.config import embedded, load_config
from bot.errors import ConfigError
from bot.mail.maildir import MaildirTransport, _delivery_order
from bot.mail.message import read_mail
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import InboundMail, League, OutboxMail, Submission
from tests.helpers import header, league_toml, player_mail, text_of

BOT = "spielleiter@example.org"
GM = "gm@example.org"
GM_CODE = "Leiter-2718"
CODES = {"anna@example.org": "anna-lindwurm", "bernd@example.org": "bernd-kobold", "clara@example.org": "clara-elfe"}
LIGA = "Test-Rondo"


def coded_league(path):
    path = league_toml(path, extra=f'require_code = true\ngm_email = "{GM}"\ngm_code = "{GM_CODE}"')
    text = path.read_text()
    for addr, code in CODES.items():
        text = text.replace(f'email = "{addr}"', f'email = "{addr}"\ncode = "{code}"')
    path.write_text(text)
    return path


@pytest.fixture
def env(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(coded_league(tmp_path / "liga.toml")), cfg)
    deliver(db, md, cfg)
    md.start = set(md.outbox.keys())
    yield db, cfg, md
    for raw in md.sent():  # no code is ever echoed
        assert not any(c.encode() in raw for c in (*CODES.values(), GM_CODE))
    db.dispose()


def new_sent(md) -> list[bytes]:
    return [md.outbox.get_bytes(k) for k in sorted(set(md.outbox.keys()) - md.start, key=_delivery_order)]


def to(raws, addr) -> list[bytes]:
    return [r for r in raws if header(r, "To") == addr]


def mails(db) -> list[InboundMail]:
    with db.session() as s:
        return list(s.scalars(select(InboundMail).order_by(InboundMail.id)))


def an_hour_later(db, hours: float = 1.5) -> None:
    """Move every stored time back, as if ``hours`` had passed."""
    d = timedelta(hours=hours)
    with db.session() as s:
        for m in s.scalars(select(InboundMail)):
            m.received_at -= d
        for r in s.scalars(select(OutboxMail)):
            r.created_at -= d
            if r.next_attempt_at is not None:
                r.next_attempt_at -= d
            if r.sent_at is not None:
                r.sent_at -= d


# -- 1. a forged flood does not silence the real sender ----------------------------------------------

def test_forged_flood_does_not_silence_the_coded_player(env):
    db, cfg, md = env
    for i in range(22):
        md.deliver_to_inbox(player_mail("bernd@example.org", f"Partie R1:\nTOR\n\n(Fälschung {i})"))
    md.deliver_to_inbox(player_mail("bernd@example.org", f"Code: {CODES['bernd@example.org']}\nPartie R1:\nMOND"))
    assert poll_once(db, cfg) == 23
    rows = mails(db)
    assert len(rows) == 23 and all(m.raw for m in rows)
    assert [m.status for m in rows] == ["rejected"] * 22 + ["processed"]
    with db.session() as s:
        subs = s.scalars(select(Submission)).all()
        assert [[m.text for m in x.moves] for x in subs] == [["MOND"]]
    sent = to(new_sent(md), "bernd@example.org")
    acks = [r for r in sent if "Hauptzug" in text_of(r)]
    assert len(acks) == 1 and "MOND" in text_of(acks[0])
    # the forgeries: ONE notice now (not 22), the rest summed up an hour later
    notices = [r for r in sent if r not in acks]
    assert len(notices) == 1 and "nicht gewertet" in text_of(notices[0])
    an_hour_later(db)
    poll_once(db, cfg)
    later = [r for r in to(new_sent(md), "bernd@example.org") if r not in sent]
    assert len(later) == 1
    body = text_of(later[0])
    assert "21" in body and "bernd@example.org" in body


def test_forged_flood_does_not_silence_the_gm(env):
    db, cfg, md = env
    for i in range(30):
        md.deliver_to_inbox(player_mail(GM, f"Code: geraten-{i}", subject=f"PAUSE {LIGA}"))
    md.deliver_to_inbox(player_mail(GM, f"Code: {GM_CODE}", subject=f"PAUSE {LIGA}"))
    poll_once(db, cfg)
    rows = mails(db)
    assert [m.status for m in rows] == ["rejected"] * 30 + ["processed"]
    with db.session() as s:
        assert s.scalar(select(League)).paused
    gm = to(new_sent(md), GM)
    done = [r for r in gm if "ist angehalten" in text_of(r) and "abgelehnt" not in header(r, "Subject")]
    refused = [r for r in gm if "abgelehnt" in header(r, "Subject")]
    assert len(done) >= 1
    # 2. the GM is not mail-bombed: one notice about the wrong codes in this hour
    assert len(refused) == 1
    an_hour_later(db)
    poll_once(db, cfg)
    later = [r for r in to(new_sent(md), GM) if r not in gm]
    assert len(later) == 1 and "29" in text_of(later[0]) and GM in text_of(later[0])


def test_rate_limit_caps_answers_not_reading(env):
    """Without codes a flood from a player's address: every mail is read, the latest
    submission counts, the answers stop at the limit and one summary follows."""
    db, cfg, md = env
    cfg.rate_limit_per_hour = 3
    with db.session() as s:
        s.scalar(select(League)).require_code = False
    for word in ("TOR", "ROT", "ORT", "MOND", "DOM"):
        md.deliver_to_inbox(player_mail("anna@example.org", f"Partie R1:\n{word}"))
    poll_once(db, cfg)
    rows = mails(db)
    assert [m.status for m in rows] == ["processed"] * 5
    with db.session() as s:
        live = s.scalars(select(Submission).where(Submission.superseded_by.is_(None))).all()
        assert [[m.text for m in x.moves] for x in live] == [["DOM"]]
        withheld = s.scalars(select(OutboxMail).where(OutboxMail.status == "suppressed")).all()
        assert len(withheld) == 2
    sent = to(new_sent(md), "anna@example.org")
    assert len(sent) == 3
    assert rows[3].flagged and "rate limit" in rows[3].flagged
    an_hour_later(db)
    poll_once(db, cfg)
    summary = [r for r in to(new_sent(md), "anna@example.org") if r not in sent]
    assert len(summary) == 1
    body = text_of(summary[0])
    assert "2 " in body and "DOM" in body  # the answer to the last mail is in it
    # after the hour a mail is answered again
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    poll_once(db, cfg)
    assert len(to(new_sent(md), "anna@example.org")) == 5


# -- 3. monster mails --------------------------------------------------------------------------------

def big_mail(sender: str, size: int) -> bytes:
    line = "Das ist eine lange Zeile ohne Bedeutung, die sich immer wieder wiederholt und wiederholt. " * 8
    body = "Partie R1:\nTOR\n\n" + "\n".join(line for _ in range(size // len(line) + 1))
    return player_mail(sender, body)


def test_twenty_megabyte_mail_is_stored_cut_and_answered_too_big(env):
    db, cfg, md = env
    raw = big_mail("anna@example.org", 20_000_000)
    assert len(raw) > 20_000_000
    md.deliver_to_inbox(raw)
    poll_once(db, cfg)
    (row,) = mails(db)
    assert row.raw_size == len(raw) and len(row.raw) <= cfg.max_mail_bytes
    assert row.raw.startswith(raw[:2000]) and row.status == "ignored" and "zu groß" in row.parse["reason"]
    assert row.flagged
    (answer,) = to(new_sent(md), "anna@example.org")
    assert "zu groß" in text_of(answer)
    with db.session() as s:
        assert s.scalars(select(Submission)).all() == []


def test_mail_under_the_limit_is_read_from_its_first_64_kb(env):
    db, cfg, md = env
    md.deliver_to_inbox(big_mail("anna@example.org", 3_000_000).replace(
        b"Partie R1:", f"Code: {CODES['anna@example.org']}\r\nPartie R1:".encode(), 1))
    poll_once(db, cfg)
    (row,) = mails(db)
    assert row.status == "processed" and row.raw_size is None
    with db.session() as s:
        assert [[m.text for m in x.moves] for x in s.scalars(select(Submission))] == [["TOR"]]


# -- 4. unreadable mails ------------------------------------------------------------------------------

def nested_mail(sender: str, depth: int) -> bytes:
    s = (f"From: Anna Albers <{sender}>\r\nTo: {BOT}\r\nSubject: Meine Züge\r\nMessage-ID: <tief-{depth}@example.org>\r\n"
         'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b0"\r\n\r\n')
    for i in range(depth):
        s += f'--b{i}\r\nContent-Type: multipart/mixed; boundary="b{i + 1}"\r\n\r\n'
    s += f"--b{depth}\r\nContent-Type: text/plain\r\n\r\nPartie R1:\r\nTOR\r\n--b{depth}--\r\n"
    for i in reversed(range(depth)):
        s += f"--b{i}--\r\n"
    return s.encode()


def test_unreadable_mail_from_a_player_is_answered(env):
    db, cfg, md = env
    md.deliver_to_inbox(nested_mail("anna@example.org", 1500))
    poll_once(db, cfg)
    (row,) = mails(db)
    assert row.from_addr == "anna@example.org" and row.subject == "Meine Züge"
    assert row.status == "ignored" and row.parse["reason"].startswith("unreadable")
    assert row.flagged and "unreadable" in row.flagged
    (answer,) = to(new_sent(md), "anna@example.org")
    body = text_of(answer)
    assert "nicht lesen" in body and "verschachtelt" in body
    assert header(answer, "In-Reply-To") == "<tief-1500@example.org>"


@pytest.mark.parametrize("eol", [b"\r", b"\n"])
def test_deep_nesting_found_with_any_line_end(eol):
    """Python's parser takes a bare CR (or LF) as a line end: the container count must too,
    else a 5,000-deep mail with bare CRs goes to the parser (seconds; found by the fuzz bench)."""
    raw = nested_mail("anna@example.org", 200).replace(b"\r\n", eol)
    m = read_mail(raw)
    assert m.from_addr == "anna@example.org" and m.subject == "Meine Züge"
    assert m.unreadable and "mehr als 32" in m.unreadable


def test_unreadable_mail_from_a_stranger_is_stored_not_answered(env):
    db, cfg, md = env
    md.deliver_to_inbox(nested_mail("fremd@example.net", 1500))
    poll_once(db, cfg)
    (row,) = mails(db)
    assert row.from_addr == "fremd@example.net" and row.status == "ignored" and row.flagged
    assert new_sent(md) == []


def test_config_keys(tmp_path):
    conf = tmp_path / "s.toml"
    conf.write_text('[bot]\nauthserv_id = "mx.example.org"\nmax_mail_bytes = 5000000\n', encoding="utf-8")
    cfg = load_config(conf)
    assert cfg.authserv_id == "mx.example.org" and cfg.max_mail_bytes == 5_000_000
    conf.write_text("[bot]\n", encoding="utf-8")
    cfg = load_config(conf)
    assert cfg.authserv_id is None and cfg.max_mail_bytes == 10 * 1024 * 1024
    conf.write_text('[bot]\nmax_mail_bytes = "groß"\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(conf)
    conf.write_text('[bot]\nmax_mail_bytes = 1000\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(conf)


# -- sender authentication (Authentication-Results, RFC 8601) ---------------------------------------

OUR_MX = "mx.example.org"


def authed(sender: str, body: str, *results: tuple[str, str]) -> bytes:
    """A mail as our server stores it: its Authentication-Results on top (``(authserv-id,
    results)`` in order, topmost first)."""
    head = "".join(f"Authentication-Results: {aid};\r\n\t{res}\r\n" for aid, res in results)
    return head.encode() + player_mail(sender, body)


@pytest.fixture
def open_env(env):
    """The league of ``env`` without codes, and our server's authserv-id configured."""
    db, cfg, md = env
    cfg.authserv_id = OUR_MX
    with db.session() as s:
        s.scalar(select(League)).require_code = False
    return env


def test_dmarc_fail_from_our_server_changes_nothing_and_tells_the_player(open_env):
    db, cfg, md = open_env
    md.deliver_to_inbox(authed("bernd@example.org", "Partie R1:\nTOR",
                               (OUR_MX, "spf=fail smtp.mailfrom=example.org; dkim=none; "
                                        "dmarc=fail (p=reject) header.from=example.org"),
                               ("mx.upstream.example", "dmarc=pass header.from=example.org")))
    poll_once(db, cfg)
    (row,) = mails(db)
    assert row.status == "rejected" and row.parse["reason"] == "sender not authenticated: dmarc=fail"
    assert row.auth_failure.startswith("player:") and row.flagged
    with db.session() as s:
        assert s.scalars(select(Submission)).all() == []
    (notice,) = to(new_sent(md), "bernd@example.org")
    assert "gefälscht" in text_of(notice) and "dmarc=fail" in text_of(notice)


def test_only_our_topmost_authentication_results_count(open_env):
    db, cfg, md = open_env
    # a verdict written upstream (or forged) with another id, or below ours, is not read
    md.deliver_to_inbox(authed("anna@example.org", "Partie R1:\nTOR",
                               ("mx.upstream.example", "dmarc=fail header.from=example.org")))
    md.deliver_to_inbox(authed("bernd@example.org", "Partie R1:\nTOR",
                               (OUR_MX, "dmarc=fail header.from=example.org"),
                               (OUR_MX, "dmarc=pass header.from=example.org")))
    md.deliver_to_inbox(authed("clara@example.org", "Partie R1:\nTOR",
                               (OUR_MX, "spf=fail smtp.mailfrom=example.org; dkim=pass header.d=example.org")))
    poll_once(db, cfg)
    assert [(m.from_addr, m.status) for m in mails(db)] == [
        ("anna@example.org", "processed"), ("bernd@example.org", "rejected"), ("clara@example.org", "processed")]


def test_spf_fail_without_dkim_is_a_forgery_but_the_right_code_proves_the_player(env):
    db, cfg, md = env
    cfg.authserv_id = OUR_MX
    verdict = (OUR_MX, "spf=fail smtp.mailfrom=example.org; dkim=fail header.d=example.org")
    md.deliver_to_inbox(authed("anna@example.org", "Partie R1:\nTOR", verdict))
    md.deliver_to_inbox(authed("anna@example.org", f"Code: {CODES['anna@example.org']}\nPartie R1:\nROT", verdict))
    poll_once(db, cfg)
    rows = mails(db)
    assert [m.status for m in rows] == ["rejected", "processed"]
    assert rows[0].parse["reason"] == "sender not authenticated: spf=fail, no dkim=pass for example.org"
    with db.session() as s:
        assert [[m.text for m in x.moves] for x in s.scalars(select(Submission))] == [["ROT"]]


def test_forged_stranger_is_not_answered_and_header_ignored_without_authserv_id(open_env):
    db, cfg, md = open_env
    md.deliver_to_inbox(authed("fremd@example.net", "Partie R1:\nTOR", (OUR_MX, "dmarc=fail")))
    poll_once(db, cfg)
    assert mails(db)[0].parse["reason"] == "sender not authenticated: dmarc=fail" and new_sent(md) == []
    cfg.authserv_id = None  # not configured: the header is not read at all
    md.deliver_to_inbox(authed("bernd@example.org", "Partie R1:\nTOR", (OUR_MX, "dmarc=fail")))
    poll_once(db, cfg)
    assert mails(db)[1].status == "processed"


# -- Message-ID reuse and re-delivery -----------------------------------------------------------------

def test_message_id_reuse_is_read_but_a_redelivery_is_not(open_env):
    db, cfg, md = open_env
    first = player_mail("anna@example.org", "Partie R1:\nTOR", headers={"Message-ID": "<immer-dieselbe@example.org>"})
    md.deliver_to_inbox(first)
    poll_once(db, cfg)
    # the same mail again, delivered on another path (other trace headers, CRLF changed)
    md.deliver_to_inbox(b"Received: from relay.example.org by mx.example.org; Mon, 7 Dec 2026 20:15:01 +0100\r\n"
                        b"Delivered-To: spielleiter@example.org\r\n" + first.replace(b"\r\n", b"\n"))
    # a different mail reusing the Message-ID (some clients do)
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nROT",
                                    headers={"Message-ID": "<immer-dieselbe@example.org>"}))
    poll_once(db, cfg)
    rows = mails(db)
    # the re-delivery is stored (every received mail is) and read as a repeat: nothing changes
    assert [m.status for m in rows] == ["processed", "ignored", "processed"]
    assert rows[1].parse == {"reason": f"duplicate of mail {rows[0].id}", "duplicate_of": rows[0].id}
    assert rows[1].message_id == rows[2].message_id == "<immer-dieselbe@example.org>"
    assert rows[1].content_sha256 == rows[0].content_sha256 != rows[2].content_sha256
    with db.session() as s:
        live = s.scalars(select(Submission).where(Submission.superseded_by.is_(None))).all()
        assert [[m.text for m in x.moves] for x in live] == [["ROT"]]
    assert len(to(new_sent(md), "anna@example.org")) == 2


def test_reading_that_fails_deep_inside_still_tells_the_player(open_env, monkeypatch):
    """Parsing fails at any depth (here: deep in reading the submission): the mail stays
    stored as ``error``, is flagged, and the registered sender is told from its raw headers."""
    db, cfg, md = open_env
    import bot.service.conversations.intake as intake

    def boom(ctx, text):
        raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(intake, "take_moves", boom)
    md.deliver_to_inbox(player_mail("clara@example.org", "Partie R1:\nTOR"))
    poll_once(db, cfg)
    rows = mails(db)
    assert [m.status for m in rows] == ["error"] and all(m.raw and m.flagged for m in rows)
    assert "RecursionError" in rows[0].error
    (answer,) = new_sent(md)
    assert header(answer, "To") == "clara@example.org" and "nicht lesen" in text_of(answer)


def test_flood_of_wrong_codes_is_flagged_as_guessing_and_the_right_code_after_it(env):
    db, cfg, md = env
    for i in range(7):
        md.deliver_to_inbox(player_mail("anna@example.org", f"Code: rate-{i}\nPartie R1:\nTOR"))
    md.deliver_to_inbox(player_mail("anna@example.org", f"Code: {CODES['anna@example.org']}\nPartie R1:\nROT"))
    poll_once(db, cfg)
    rows = mails(db)
    assert [m.status for m in rows] == ["rejected"] * 7 + ["processed"]
    assert "guessing" in rows[6].flagged and "guessing" not in rows[4].flagged
    assert "guessed" in rows[7].flagged
    with db.session() as s:
        (later,) = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auth", OutboxMail.status == "pending"))
        assert "6 Mails" in text_of(later.raw) and "raten" in text_of(later.raw)


def test_content_hash_streams_like_the_plain_formula(monkeypatch):
    """The body part of the content hash is fed a megabyte at a time (a 20 MB mail was
    copied three times over); with tiny chunks it still equals the plain formula
    ``replace(CRLF, LF).rstrip()`` on every boundary, CRLF split across chunks included."""
    import hashlib
    import random

    import bot.service.stages.store as store
    monkeypatch.setattr(store, "_CHUNK", 7)
    r = random.Random(2026)
    for _ in range(2000):
        raw = bytes(r.choice(b"ab\r\n \t") for _ in range(r.randint(0, 60)))
        start = r.randint(0, len(raw))
        plain = hashlib.sha256(raw[start:].replace(b"\r\n", b"\n").rstrip())
        streamed = hashlib.sha256()
        store._hash_body(streamed, raw, start)
        assert streamed.hexdigest() == plain.hexdigest(), (raw, start)

"""Loops and noise: bounces flagged for the GM, the per-sender rate limit.

Real components only: SQLite, the Maildir transport, and (last test) a real Dovecot
IMAP server with a real aiosmtpd SMTP server.
"""

from __future__ import annotations

import zlib
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.config import embedded, load_config
from bot.errors import ConfigError
from bot.mail.bounce import find_bounce
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail
from tests.helpers import header, league_toml, player_mail, text_of, server_config

BOT = "spielleiter@example.org"
GM = "gm@example.org"


@pytest.fixture
def env(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "liga.toml", extra=f'gm_email = "{GM}"')), cfg)
    deliver(db, md, cfg)
    yield db, cfg, md
    db.dispose()


def crlf(s: str) -> bytes:
    return s.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def postfix_dsn(orig_id: str, rcpt: str = "anna@example.org", rfc822_headers: bool = False) -> bytes:
    """A Postfix DSN: multipart/report with the original attached (message/rfc822, or only
    its headers as text/rfc822-headers)."""
    orig_head = (f"From: Spielleiter <{BOT}>\nTo: {rcpt}\nSubject: Re: =?utf-8?q?Z=C3=BCge?=\n"
                 f"Message-ID: {orig_id}\nAuto-Submitted: auto-generated\n")
    if rfc822_headers:
        third = f"Content-Type: text/rfc822-headers\nContent-Description: Undelivered Message Headers\n\n{orig_head}"
    else:
        third = ("Content-Type: message/rfc822\nContent-Description: Undelivered Message\n\n"
                 f"{orig_head}Content-Type: text/plain; charset=utf-8\n\nHallo Anna,\n")
    return crlf(
        "Return-Path: <>\nFrom: MAILER-DAEMON@mx.example.org (Mail Delivery System)\n"
        f"To: {BOT}\nSubject: Undelivered Mail Returned to Sender\nAuto-Submitted: auto-replied\n"
        f"Message-Id: <20261207201502.{zlib.crc32(orig_id.encode())}@mx.example.org>\nDate: Mon,  7 Dec 2026 20:15:02 +0100 (CET)\n"
        "MIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status;\n"
        "\tboundary=\"4A1B2.1765134902/mx.example.org\"\n\n"
        "This is a MIME-encapsulated message.\n\n--4A1B2.1765134902/mx.example.org\n"
        "Content-Description: Notification\nContent-Type: text/plain; charset=us-ascii\n\n"
        "This is the mail system at host mx.example.org.\n\nI'm sorry to have to inform you that your message "
        "could not\nbe delivered to one or more recipients.\n\n"
        f"<{rcpt}>: host mail.example.org[192.0.2.7] said: 550 5.1.1\n    <{rcpt}>: Recipient address "
        "rejected: User unknown (in reply to RCPT TO command)\n\n"
        "--4A1B2.1765134902/mx.example.org\nContent-Description: Delivery report\n"
        "Content-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example.org\n"
        "Arrival-Date: Mon,  7 Dec 2026 20:15:01 +0100 (CET)\n\n"
        f"Final-Recipient: rfc822; {rcpt}\nOriginal-Recipient: rfc822;{rcpt}\nAction: failed\nStatus: 5.1.1\n"
        "Remote-MTA: dns; mail.example.org\nDiagnostic-Code: smtp; 550 5.1.1 <" + rcpt + ">: Recipient address\n"
        "    rejected: User unknown\n\n"
        f"--4A1B2.1765134902/mx.example.org\n{third}\n--4A1B2.1765134902/mx.example.org--\n")


def exchange_ndr(orig_id: str) -> bytes:
    """An Exchange/Outlook 'Unzustellbar:' notice from an ordinary-looking address, the
    original's Message-ID only in the body text."""
    return crlf(
        "From: Microsoft Outlook <MicrosoftExchange329e71ec88ae4615bbc36ab6ce41109e@firma.example>\n"
        f"To: {BOT}\nSubject: =?utf-8?q?Unzustellbar=3A_Re=3A_Z=C3=BCge?=\nMessage-ID: <ndr-77@firma.example>\n"
        "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
        "Die Nachricht konnte nicht an die folgenden Empfänger zugestellt werden:\n\n"
        "bernd@example.org\nDas Postfach des Empfängers ist voll. 552 5.2.2 mailbox full\n\n"
        f"Originalnachricht-Header:\nMessage-ID: {orig_id}\nSubject: Re: Züge\n")


def ack_row(db, to: str) -> OutboxMail:
    with db.session() as s:
        return s.scalars(select(OutboxMail).where(OutboxMail.kind == "ack", OutboxMail.to_addr == to)).one()


def last_mail(db) -> InboundMail:
    with db.session() as s:
        return s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()


def test_find_bounce_reads_the_dsn():
    b = find_bounce(postfix_dsn("<abc.spielleiter@example.org>"))
    assert b is not None and b.why == "multipart/report delivery-status"
    assert b.recipients == ["anna@example.org"] and b.message_ids[0] == "<abc.spielleiter@example.org>"
    assert b.status == "5.1.1" and "User unknown" in b.diagnostic
    b = find_bounce(postfix_dsn("<h.spielleiter@example.org>", rfc822_headers=True))
    assert b.message_ids[0] == "<h.spielleiter@example.org>"
    b = find_bounce(exchange_ndr("<x1@example.org>"))
    assert b is not None and "<x1@example.org>" in b.message_ids and "552 5.2.2" in b.summary
    assert find_bounce(player_mail("anna@example.org", "Partie R1: TOR", subject="Unzustellbar?")) is None
    assert find_bounce(player_mail("anna@example.org", "Unzustellbar: ich", subject="Re: Züge")) is None
    assert find_bounce(b"\xff\xfe garbage") is None


@pytest.mark.parametrize("variant", ["dsn-rfc822", "dsn-headers", "exchange"])
def test_bounce_of_our_ack_is_flagged_and_gm_told_once(env, variant):
    db, cfg, md = env
    who = "bernd@example.org" if variant == "exchange" else "anna@example.org"
    md.deliver_to_inbox(player_mail(who, "Partie R1:\nTOR"))
    poll_once(db, cfg)
    ack = ack_row(db, who)
    sent_before = md.sent()
    raw = {"dsn-rfc822": lambda: postfix_dsn(ack.message_id),
           "dsn-headers": lambda: postfix_dsn(ack.message_id, rfc822_headers=True),
           "exchange": lambda: exchange_ndr(ack.message_id)}[variant]()
    md.deliver_to_inbox(raw)
    poll_once(db, cfg)
    mail = last_mail(db)
    assert mail.status == "ignored" and mail.parse["reason"] == "bounce"
    assert mail.flagged and "Unzustellbar" in mail.flagged and who in mail.flagged
    assert mail.parse["recipients"] == [who] and mail.parse["outbox"] == [ack.id]
    row = ack_row(db, who)
    assert row.status == "sent" and row.last_error.startswith("bounced")
    new = [r for r in md.sent() if r not in sent_before]
    assert len(new) == 1  # ONE notice, to the GM; nothing to the bounce's sender
    assert header(new[0], "To") == GM and who in header(new[0], "Subject")
    body = text_of(new[0])
    assert who in body and ("5.1.1" in body or "552 5.2.2" in body)
    # the same bounce delivered again (same Message-ID) changes nothing
    md.deliver_to_inbox(raw)
    poll_once(db, cfg)
    assert len(md.sent()) == len(sent_before) + 1


def test_bounce_of_the_gm_notice_does_not_loop(env):
    db, cfg, md = env
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    poll_once(db, cfg)
    md.deliver_to_inbox(postfix_dsn(ack_row(db, "anna@example.org").message_id))
    poll_once(db, cfg)
    with db.session() as s:
        notice = s.scalars(select(OutboxMail).where(OutboxMail.kind == "bounce")).one()
    n = len(md.sent())
    md.deliver_to_inbox(postfix_dsn(notice.message_id, rcpt=GM))
    poll_once(db, cfg)
    mail = last_mail(db)
    assert mail.parse["reason"] == "bounce" and GM in mail.flagged
    with db.session() as s:
        assert s.get(OutboxMail, notice.id).last_error.startswith("bounced")
    assert len(md.sent()) == n  # no notice about the notice


def test_delay_warning_is_not_flagged(env):
    db, cfg, md = env
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    poll_once(db, cfg)
    ack = ack_row(db, "anna@example.org")
    n = len(md.sent())
    md.deliver_to_inbox(postfix_dsn(ack.message_id).replace(b"Action: failed", b"Action: delayed"))
    poll_once(db, cfg)
    mail = last_mail(db)
    assert mail.parse["reason"] == "bounce: delay warning" and mail.flagged is None
    assert ack_row(db, "anna@example.org").last_error is None and len(md.sent()) == n


def test_bounce_of_unknown_mail_is_stored_not_flagged_not_answered(env):
    db, cfg, md = env
    n = len(md.sent())
    md.deliver_to_inbox(postfix_dsn("<fremd-123@spam.example>"))
    poll_once(db, cfg)
    mail = last_mail(db)
    assert mail.status == "ignored" and mail.parse["reason"] == "bounce: no mail of ours"
    assert mail.flagged is None and mail.raw
    assert len(md.sent()) == n


def test_bounce_without_gm_address_is_flagged_only(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
    deliver(db, md, cfg)
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    poll_once(db, cfg)
    n = len(md.sent())
    md.deliver_to_inbox(postfix_dsn(ack_row(db, "anna@example.org").message_id))
    poll_once(db, cfg)
    assert last_mail(db).flagged and len(md.sent()) == n
    db.dispose()


def test_rate_limit_reads_every_mail_but_caps_answers(env):
    """Every mail is read (the latest submission counts); what stops at the limit is the
    answers to the address; other addresses are answered; an hour later one summary."""
    db, cfg, md = env
    cfg.rate_limit_per_hour = 3
    before = md.sent()
    n = len(before)
    for i in range(5):
        md.deliver_to_inbox(player_mail("anna@example.org", f"Partie R1:\nTOR\n\n(Nr. {i})"))
    md.deliver_to_inbox(player_mail("bernd@example.org", "STAND", subject="STAND"))
    assert poll_once(db, cfg) == 6
    with db.session() as s:
        mails = s.scalars(select(InboundMail).order_by(InboundMail.id)).all()
        assert len(mails) == 6 and all(m.raw for m in mails)
        assert [m.status for m in mails] == ["processed"] * 6
        assert mails[3].flagged and "rate limit" in mails[3].flagged and mails[4].flagged is None
        kept = s.scalars(select(OutboxMail).where(OutboxMail.status == "suppressed")).all()
        assert [r.to_addr for r in kept] == ["anna@example.org"] * 2
    sent = [r for r in md.sent() if r not in before]
    assert sorted(header(r, "To") for r in sent) == ["anna@example.org"] * 3 + ["bernd@example.org"]
    # an hour later: the summary, and the sender is answered again
    with db.session() as s:
        for m in s.scalars(select(InboundMail)):
            m.received_at -= timedelta(hours=2)
        for r in s.scalars(select(OutboxMail)):
            r.created_at -= timedelta(hours=2)
            r.next_attempt_at = r.next_attempt_at and r.next_attempt_at - timedelta(hours=2)
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nROT"))
    poll_once(db, cfg)
    assert last_mail(db).status == "processed" and len(md.sent()) == n + 6
    summary = [r for r in md.sent() if "zurückgehaltene" in header(r, "Subject")]
    assert len(summary) == 1 and header(summary[0], "To") == "anna@example.org"


def test_rate_limit_config(tmp_path):
    conf = tmp_path / "s.toml"
    conf.write_text("[bot]\nrate_limit_per_hour = 7\n", encoding="utf-8")
    assert load_config(conf).rate_limit_per_hour == 7
    conf.write_text("[bot]\n", encoding="utf-8")
    assert load_config(conf).rate_limit_per_hour == 20
    conf.write_text('[bot]\nrate_limit_per_hour = "viele"\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(conf)


@pytest.mark.e2e
def test_bounce_through_imap_and_smtp(tmp_path, dovecot, smtpd):
    """A real DSN arriving over IMAP for a mail the bot sent over SMTP: flagged, the GM
    is told over SMTP, the MAILER-DAEMON is never answered."""
    user = dovecot.fresh_user()
    conf = server_config(tmp_path / "spielleiter.toml", dovecot, smtpd, user, sender=f"Spielleiter <{BOT}>")
    liga = league_toml(tmp_path / "liga.toml", extra=f'gm_email = "{GM}"')
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    dovecot.append(player_mail("anna@example.org", "Partie R1:\nTOR"), user=user)
    assert main(["poll", "--config", str(conf)]) == 0
    ack = next(m for m in smtpd.messages if m.rcpt_tos == ["anna@example.org"] and "Hauptzug: TOR" in text_of(m.raw))
    before = len(smtpd.messages)
    dovecot.append(postfix_dsn(header(ack.raw, "Message-ID")), user=user)
    assert main(["poll", "--config", str(conf)]) == 0
    new = smtpd.messages[before:]
    assert [m.rcpt_tos for m in new] == [[GM]]
    cfg = load_config(conf)
    db = Database(cfg.database_url)
    try:
        with db.session() as s:
            bounce = s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()
            assert bounce.flagged and "anna@example.org" in bounce.flagged and bounce.source.startswith("imap")
            row = s.scalars(select(OutboxMail).where(OutboxMail.message_id == header(ack.raw, "Message-ID"))).one()
            assert row.last_error.startswith("bounced")
    finally:
        db.dispose()

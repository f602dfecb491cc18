"""Never answer a machine (issue 15): a corpus of bounces, DSNs, delay warnings,
auto-replies and out-of-office mails (``tests/automail/``, made by
``tests/automail/make_corpus.py``) fed through the intake of a running league: each is
stored, classified (``ignored``, a reason naming the rule) and gets no answer; the
bounced address is read (flufl.bounce, or our fallback), a permanent failure marks the
player's address, and the GM hears of bounces at most once a day.

Real components: SQLite, the Maildir transport, ``spielleiter ingest`` and ``show``.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.config import embedded
from bot.mail.bounce import find_bounce
from bot.mail.maildir import MaildirTransport
from bot.mail.message import read_mail
from bot.service.operations.ingest import ingest
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.operations.runner import poll_once
from bot.service.presentation.view import league_view
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Player, PlayerAddress
from tests.helpers import league_toml, player_mail

CORPUS = Path(__file__).resolve().parent / "automail"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
OUR_ID = "<5f2b1c0d9e8a7b6c5d4e3f2a1b0c9d8e.spielleiter@example.org>"
BOT = "spielleiter@example.org"
GM = "gm@example.org"


def test_the_corpus_is_large_enough():
    assert len(EXPECTED) >= 30 and sum(1 for e in EXPECTED.values() if e["bounced"]) >= 15
    assert sorted(p.name for p in CORPUS.glob("*.eml")) == sorted(EXPECTED)


@pytest.fixture
def env(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    path = league_toml(tmp_path / "liga.toml", extra=f'gm_email = "{GM}"')
    path.write_text(path.read_text().replace('email = "anna@example.org"',
                                             'email = "anna@example.org"\naddresses = ["anna@arbeit.example"]'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    deliver(db, md, cfg)
    yield db, cfg, md, path
    db.dispose()


def our_ack(db, to: str) -> None:
    """The acknowledgement the corpus's bounces are about: sent to ``to``."""
    from bot.mail.compose import compose
    with db.session() as s:
        s.add(OutboxMail(key="ack:corpus", kind="ack", league_id=1, to_addr=to, subject="Re: Züge",
                         message_id=OUR_ID, raw=compose(sender=BOT, to=to, subject="Re: Züge", text="Hallo",
                                                        message_id=OUR_ID),
                         status="sent", attempts=1, sent_at=datetime.now(timezone.utc)))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_automatic_mail_is_never_answered(env, name):
    db, cfg, md, _ = env
    exp = EXPECTED[name]
    our_ack(db, (exp["bounced"] or ["anna@example.org"])[0])
    raw = (CORPUS / name).read_bytes()
    (rep,) = ingest(db, cfg, [(name, raw)])
    assert rep["kind"] == "ignored" and rep["status"] == "ignored", rep
    assert rep["reason"].startswith(("auto: ", "bounce")), rep["reason"]
    sender = read_mail(raw).from_addr
    # no answer at all; the only mail is the GM's notice about a bounce
    assert all(r["to"] == GM and r["kind"] == "bounce" for r in rep["replies"]), rep["replies"]
    with db.session() as s:
        assert not any(r.to_addr.lower() == sender for r in s.scalars(select(OutboxMail)) if r.key != "ack:corpus" and r.kind != "start")
        mail = s.get(InboundMail, rep["id"])
        assert mail.raw == raw
        bouncing = {a.email for a in s.scalars(select(PlayerAddress).where(PlayerAddress.bounced_at.is_not(None)))}
    if exp["bounced"]:
        b = find_bounce(raw)
        assert b is not None and b.recipients == exp["bounced"], (b, exp)
        assert OUR_ID in b.message_ids
        if exp["permanent"]:
            assert b.permanent == exp["bounced"] and not b.delayed
            assert rep["reason"] == "bounce" and rep["flagged"] and exp["bounced"][0] in rep["flagged"]
            assert bouncing == set(exp["bounced"])
            assert len(rep["replies"]) == 1  # the GM is told
        else:
            assert b.delayed and rep["reason"] == "bounce: delay warning" and not bouncing
    else:
        assert find_bounce(raw) is None and rep["reason"].startswith("auto: ") and not bouncing


def test_gm_hears_of_bounces_once_a_day_and_reports_go_to_the_other_address(env):
    db, cfg, md, _ = env
    our_ack(db, "anna@example.org")
    bounces = [(n, (CORPUS / n).read_bytes()) for n, e in sorted(EXPECTED.items()) if e["bounced"]]
    reports = ingest(db, cfg, bounces)
    to_gm = [r for rep in reports for r in rep["replies"]]
    assert len(to_gm) == 2 and all(r["to"] == GM for r in to_gm)  # one now, one summary a day later
    with db.session() as s:
        pending = s.scalars(select(OutboxMail).where(OutboxMail.kind == "bounce").order_by(OutboxMail.id)).all()
        assert pending[0].next_attempt_at is None
        assert pending[1].next_attempt_at > datetime.now(timezone.utc) + timedelta(hours=23)
        anna = s.scalar(select(Player).where(Player.name == "Anna Albers"))
        assert anna.email == "anna@arbeit.example"  # the registered address bounces: reports go to the other
        assert {a.email for a in s.scalars(select(PlayerAddress).where(PlayerAddress.bounced_at.is_not(None)))} \
            == {"anna@example.org", "bernd@example.org", "clara@example.org"}
    view = league_view(db, "Test-Rondo")
    assert {b["address"] for b in view["bouncing"]} == {"anna@example.org", "bernd@example.org", "clara@example.org"}
    assert main(["show", "Test-Rondo", "--json", "--config", str(write_conf(cfg))]) == 0
    # Anna writes from the address again: it works again
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    poll_once(db, cfg)
    with db.session() as s:
        assert s.scalar(select(Player).where(Player.name == "Anna Albers")).email == "anna@example.org"


def write_conf(cfg) -> Path:
    conf = Path(cfg.maildir).parent / "s.toml"
    conf.write_text(f'[database]\nurl = "{cfg.database_url}"\n[maildir]\npath = "{cfg.maildir}"\n', encoding="utf-8")
    return conf


@pytest.mark.parametrize("subject", ["Mail could not be delivered", "Returned Mail - Error During Delivery",
                                     "Delivery failure notification",
                                     "Mail delivery failed: returning message to sender", "Unzustellbar: Züge",
                                     "Non remis : Züge", "Onbestelbaar: Züge", "Automatische Antwort: Züge"])
def test_failure_subjects_from_unknown_senders_get_no_unknown_sender_answer(env, subject):
    """The issue's cases: a report from an ordinary-looking address is no sender to teach."""
    db, cfg, md, _ = env
    from bot.mail.compose import compose
    raw = compose(sender="Mail System <system@mx.example.net>", to=BOT, subject=subject,
                  text="Your message could not be delivered.")
    (rep,) = ingest(db, cfg, [("x.eml", raw.replace(b"Auto-Submitted: auto-generated\r\n", b""))])
    assert rep["kind"] == "ignored" and rep["replies"] == [] and rep["reason"].startswith(("auto: ", "bounce"))


def test_a_players_question_is_still_read(env):
    db, cfg, md, _ = env
    from bot.mail.compose import compose
    raw = compose(sender="anna@example.org", to=BOT, subject="Unzustellbar?", text="Partie R1:\nTOR")
    (rep,) = ingest(db, cfg, [("q.eml", raw.replace(b"Auto-Submitted: auto-generated\r\n", b""))])
    assert rep["kind"] == "submission" and rep["replies"]


def test_a_bounce_with_a_huge_tail_is_still_read():
    """Only the first BOUNCE_LIMIT bytes go to flufl.bounce (its detectors match every
    pattern on every body line: 1 MB of lines took seconds); the report at the top is
    still found, with the bounced address and our Message-ID."""
    from bot.mail.bounce import BOUNCE_LIMIT
    raw = (CORPUS / "postfix-user-unknown.eml").read_bytes()
    cut = raw.rstrip().rfind(b"\n--")  # before the closing boundary
    huge = raw[:cut] + b"\r\n" + b"ab\r\n" * 250_000 + b"\r\n" * 100_000 + raw[cut:]
    assert len(huge) > 10 * BOUNCE_LIMIT
    b = find_bounce(huge)
    assert b is not None and b.recipients == ["anna@example.org"] and b.permanent == ["anna@example.org"]
    assert OUR_ID in b.message_ids


def test_too_many_parts_are_not_parsed():
    """More than MAX_ENTITIES parts (or blocks of a delivery report) in the parsed part:
    the mail is unreadable, its sender still known (the parser makes an object of each)."""
    from bot.mail.message import MAX_ENTITIES
    head = (b"From: Anna <anna@example.org>\r\nTo: spielleiter@example.org\r\nSubject: viele\r\n"
            b"MIME-Version: 1.0\r\n")
    many = head + b'Content-Type: multipart/mixed; boundary="B"\r\n\r\n' + b"--B\r\n\r\nx\r\n" * (MAX_ENTITIES + 1) + b"--B--\r\n"
    m = read_mail(many)
    assert m.from_addr == "anna@example.org" and "zu vielen Teilen" in (m.unreadable or "")
    few = head + b'Content-Type: multipart/mixed; boundary="B"\r\n\r\n' + b"--B\r\n\r\nx\r\n" * 50 + b"--B--\r\n"
    assert read_mail(few).unreadable is None
    dsn = (head + b'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n--B\r\n'
           b"Content-Type: message/delivery-status\r\n\r\n" + b"X: y\r\n\r\n" * (MAX_ENTITIES + 1) + b"--B--\r\n")
    assert "zu vielen Teilen" in (read_mail(dsn).unreadable or "")


@pytest.mark.parametrize("name", ["plain-delivery-failed-en.eml", "plain-delivery-failed-fr.eml",
                                  "plain-delivery-failed-de.eml"])
def test_a_plain_text_report_from_an_ordinary_sender_is_found_by_flufl_bounce(name):
    """No DSN, no MAILER-DAEMON, no automatic-mail header, a subject that only ends in
    "(delivery failed)": flufl.bounce's detectors (its simple matcher) make it a bounce."""
    raw = (CORPUS / name).read_bytes()
    assert read_mail(raw).auto is None
    b = find_bounce(raw)
    assert b is not None and b.why.startswith("flufl.bounce") and b.permanent == EXPECTED[name]["bounced"]


def test_a_players_mail_with_report_words_is_still_read(env):
    """The detectors are asked about a player's mail that says "could not be delivered"
    or "error": it names no failed recipient, so it is read as a move."""
    db, cfg, md, _ = env
    from bot.mail.compose import compose
    raw = compose(sender="anna@example.org", to=BOT, subject="Züge",
                  text="Meine letzte Mail could not be delivered, error 550? Hier nochmal:\n\nPartie R1:\nTOR")
    (rep,) = ingest(db, cfg, [("p.eml", raw.replace(b"Auto-Submitted: auto-generated\r\n", b""))])
    assert rep["kind"] == "submission" and rep["replies"]


def test_every_start_line_of_flufl_bounces_text_detectors_passes_the_word_gate():
    """A mail whose headers say nothing goes to flufl.bounce only when its text has a word
    of :data:`bot.mail.bounce._REPORT_WORDS` (any case: :func:`bot.mail.bounce._report_words`);
    every start line of the library's simple text detectors must have one (checked again
    when the library is upgraded)."""
    from flufl.bounce._detectors import simplematch, simplewarning

    from bot.mail.bounce import _report_words
    starts = [scre.pattern for m in (simplematch, simplewarning) for c in vars(m).values()
              if isinstance(getattr(c, "PATTERNS", None), list) for scre, _, _ in c.PATTERNS]
    assert len(starts) > 50
    assert [p for p in starts if not _report_words(p)] == []

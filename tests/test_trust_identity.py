"""One identity per mail, from one parse (issue 31, "Private and authentic by construction").

The sender is the addr-spec of the one From mailbox, read once with the email library's
header registry (:func:`bot.mail.sender.read_sender`). A From that names a second
address (in its display name, as a second mailbox, or in a Sender field) or a DMARC
verdict of our own server about another domain than the sender's makes the mail
unauthenticated: it changes nothing, and the registered player whose address it claimed
is told as after a wrong code. ``spielleiter check`` reads the newest mails of the inbox
and says whether our server writes ``Authentication-Results`` and with which authserv-id.

Real components: SQLite and the Maildir transport through ``poll_once``, the real lexicon;
the check against the test Dovecot as well.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.config import embedded, load_config
from bot.mail.auth import sender_auth
from bot.mail.maildir import MaildirTransport, _delivery_order
from bot.mail.message import raw_headers, read_mail
from bot.mail.sender import read_sender
from bot.service.operations.check import check_authserv
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.mailer import transports
from bot.service.operations.runner import poll_once
from bot.service.stages.outbox import deliver
from bot.storage.db import Database
from bot.storage.models import InboundMail, League, OutboxMail, Submission
from tests.helpers import header, league_toml, player_mail, server_config, text_of

BOT = "spielleiter@example.org"
OUR_MX = "mx.example.org"
ANNA = "anna@example.org"
ANNA_CODE = "anna-lindwurm"
MALLORY = "mallory@evil.example"


@pytest.fixture
def env(tmp_path):
    """A league without codes (the defaults), our server's authserv-id configured; Anna
    has a personal code all the same (to prove herself when she must)."""
    cfg = embedded(tmp_path / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    cfg.authserv_id = OUR_MX
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    path = league_toml(tmp_path / "liga.toml")
    path.write_text(path.read_text().replace(f'email = "{ANNA}"', f'email = "{ANNA}"\ncode = "{ANNA_CODE}"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    deliver(db, md, cfg)
    md.start = set(md.outbox.keys())
    yield db, cfg, md
    for raw in md.sent():  # no code is ever echoed
        assert ANNA_CODE.encode() not in raw
    db.dispose()


def mail(from_field: str, body: str = "Partie R1:\nTOR", *, results: str | None = None,
         extra: str = "") -> bytes:
    """A player's mail whose From field is ``from_field`` as written, with our server's
    ``Authentication-Results: mx.example.org; <results>`` on top, and ``extra`` header
    lines (CRLF-ended) after From."""
    raw = player_mail(ANNA, body).replace(f"From: {ANNA}\r\n".encode(), f"From: {from_field}\r\n{extra}".encode(), 1)
    assert raw.startswith(f"From: {from_field}\r\n".encode())
    head = f"Authentication-Results: {OUR_MX};\r\n\t{results}\r\n" if results else ""
    return head.encode() + raw


def sent(md) -> list[bytes]:
    return [md.outbox.get_bytes(k) for k in sorted(set(md.outbox.keys()) - md.start, key=_delivery_order)]


def to(raws, addr) -> list[bytes]:
    return [r for r in raws if header(r, "To") == addr]


def rows(db) -> list[InboundMail]:
    with db.session() as s:
        return list(s.scalars(select(InboundMail).order_by(InboundMail.id)))


def moves(db) -> list[list[str]]:
    with db.session() as s:
        return [[m.text for m in x.moves] for x in s.scalars(select(Submission).order_by(Submission.id))]


def run(db, cfg, md, *raws: bytes) -> list[InboundMail]:
    for raw in raws:
        md.deliver_to_inbox(raw)
    poll_once(db, cfg)
    return rows(db)


# -- attack 5: a second address in From, passed by DMARC for the other domain ---------------------

def test_attack5_display_name_address_with_dmarc_pass_for_another_domain_changes_nothing(env):
    """``From: anna@example.org <mallory@evil.example>`` was read as Anna, and our own
    server's ``dmarc=pass header.from=evil.example`` accepted: the verdict was about
    another address than the one taken as the sender."""
    db, cfg, md = env
    (row,) = run(db, cfg, md, mail(f"{ANNA} <{MALLORY}>", results="spf=pass smtp.mailfrom=evil.example; "
                                   "dkim=pass header.d=evil.example; dmarc=pass header.from=evil.example"))
    assert row.status == "rejected" and row.parse["reason"].startswith("sender ambiguous: ")
    assert MALLORY in row.parse["reason"] and row.auth_failure.startswith("player:") and row.flagged
    assert moves(db) == []
    out = sent(md)
    assert to(out, MALLORY) == []  # the forger hears nothing
    (notice,) = to(out, ANNA)  # Anna, whose address was claimed, is told as after a wrong code
    body = text_of(notice)
    assert "nicht gewertet" in body and MALLORY in body and "Code" in body
    assert "Mail nicht gewertet" in header(notice, "Subject")


def test_attack5_without_authserv_id_is_caught_by_the_parse_alone(env):
    db, cfg, md = env
    cfg.authserv_id = None
    (row,) = run(db, cfg, md, mail(f"{ANNA} <{MALLORY}>"))
    assert row.status == "rejected" and moves(db) == []
    assert len(to(sent(md), ANNA)) == 1 and to(sent(md), MALLORY) == []


def test_quoted_display_name_claiming_anna_tells_anna_and_not_the_forger(env):
    """``"anna@example.org" <mallory@evil.example>``: the sender is Mallory (the
    addr-spec), a stranger; the mail claimed Anna's address, so Anna is told."""
    db, cfg, md = env
    for display in (f'"{ANNA}"', "=?utf-8?q?anna=40example=2Eorg?=", f"Anna ({ANNA})"):
        md.deliver_to_inbox(mail(f"{display} <{MALLORY}>"))
    got = run(db, cfg, md)
    assert [r.from_addr for r in got] == [MALLORY] * 3
    assert all(r.status == "rejected" and r.parse["reason"] == f"sender ambiguous: From also names {ANNA}"
               for r in got)
    assert moves(db) == [] and to(sent(md), MALLORY) == []
    (notice,) = to(sent(md), ANNA)  # once; the rest in the hourly summary
    assert MALLORY in text_of(notice)


def an_hour_later(db, hours: float = 1.5) -> None:
    """Move every stored time back, as if ``hours`` had passed."""
    d = timedelta(hours=hours)
    with db.session() as s:
        for m in s.scalars(select(InboundMail)):
            m.received_at -= d
        for r in s.scalars(select(OutboxMail)):
            r.created_at -= d
            r.next_attempt_at = r.next_attempt_at and r.next_attempt_at - d
            r.sent_at = r.sent_at and r.sent_at - d


def test_in_a_dutch_league_anna_is_told_in_dutch_and_the_rest_summed_up(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    path = league_toml(tmp_path / "nl.toml", name="R-NL", partien=("R1",), extra='[options]\nlanguage = "nl"\n')
    path.write_text(path.read_text().replace('game = "rondo"', 'game = "rondonl"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    deliver(db, md, cfg)
    md.start = set(md.outbox.keys())
    run(db, cfg, md, mail(f"{ANNA} <{MALLORY}>", "KAT"), mail(f'"{ANNA}" <{MALLORY}>', "KAT"))
    (notice,) = to(sent(md), ANNA)
    assert "niet eenduidig" in text_of(notice) and MALLORY in text_of(notice)
    an_hour_later(db)
    poll_once(db, cfg)
    later = [r for r in to(sent(md), ANNA) if r != notice]
    assert len(later) == 1 and "afzender niet eenduidig (From also names" in text_of(later[0])
    assert moves(db) == []
    db.dispose()


def test_several_from_addresses_or_another_sender_change_nothing(env):
    db, cfg, md = env
    got = run(db, cfg, md,
              mail(f"Anna <{ANNA}>, Mallory <{MALLORY}>", extra=f"Sender: {MALLORY}\r\n"),
              mail(f"Team: {ANNA}, {MALLORY};"),
              mail(ANNA, extra=f"Sender: Anna <{MALLORY}>\r\n"))
    assert [r.status for r in got] == ["rejected"] * 3
    assert [r.parse["reason"] for r in got] == [
        f"sender ambiguous: From names 2 addresses ({ANNA}, {MALLORY})",
        f"sender ambiguous: From names 2 addresses ({ANNA}, {MALLORY})",
        f"sender ambiguous: Sender {MALLORY} is not From",
    ]
    assert moves(db) == [] and len(to(sent(md), ANNA)) == 1 and to(sent(md), MALLORY) == []


def test_dmarc_header_from_of_another_domain_is_a_forgery(env):
    """A plain ``From: anna@example.org`` whose verdict our server wrote for another
    domain (a second From the server read, or a relabelled result)."""
    db, cfg, md = env
    (row,) = run(db, cfg, md, mail(ANNA, results="dmarc=pass header.from=evil.example"))
    assert row.status == "rejected"
    assert row.parse["reason"] == "sender not authenticated: dmarc=pass header.from=evil.example"
    assert moves(db) == []
    (notice,) = to(sent(md), ANNA)
    assert "gefälscht" in text_of(notice) and "header.from=evil.example" in text_of(notice)


def test_a_legitimate_dmarc_pass_is_accepted(env):
    db, cfg, md = env
    results = ("spf=pass smtp.mailfrom=example.org; dkim=pass header.d=example.org; "
               "dmarc=pass (p=reject) header.from=example.org")
    got = run(db, cfg, md,
              mail(f"Anna Albers <{ANNA}>", results=results),
              mail(f'"{ANNA}" <{ANNA}>', "Partie R2:\nMOND", results=results.replace("example.org", "EXAMPLE.org")),
              mail(f"{ANNA} (Anna)", "Partie R1:\nROT", results=results))
    assert [r.status for r in got] == ["processed"] * 3 and [r.from_addr for r in got] == [ANNA] * 3
    assert moves(db)[-1] == ["ROT"]
    acks = to(sent(md), ANNA)
    assert len(acks) == 3 and all("Hauptzug" in text_of(a) for a in acks)


def test_the_right_code_proves_anna_despite_a_doubtful_from(env):
    db, cfg, md = env
    got = run(db, cfg, md, mail(f"{ANNA} <{MALLORY}>", f"Code: {ANNA_CODE}\nPartie R1:\nROT"),
              mail(f'"{ANNA}" <{MALLORY}>', f"Code: {ANNA_CODE}\nPartie R1:\nTOR"))
    # the addr-spec is Anna's: her code proves her; it is Mallory's: no code helps
    assert [r.status for r in got] == ["processed", "rejected"] and moves(db) == [["ROT"]]
    assert to(sent(md), MALLORY) == []


def test_no_crlf_from_a_claimed_address_reaches_a_header(env):
    """A line break encoded into the display name (``=0D=0A``) stays out of every header
    the bot writes; the name read has none."""
    db, cfg, md = env
    field = f"=?utf-8?q?{ANNA.replace('@', '=40')}=0D=0ABcc=3A_x=40evil=2Eexample?= <{MALLORY}>"
    assert "\n" not in read_mail(mail(field)).from_name
    got = run(db, cfg, md, mail(field), mail(f"Anna Albers <{ANNA}>", "Partie R1:\nROT"))
    assert [r.status for r in got] == ["rejected", "processed"]
    out = sent(md)
    assert len(to(out, ANNA)) == 2
    for raw in out:
        head = raw.split(b"\r\n\r\n", 1)[0]
        assert b"Bcc" not in head and b"evil.example" not in head


def test_gm_commands_from_a_doubtful_from_without_the_code_change_nothing(tmp_path):
    """What held still holds: a GM command needs the GM's address and code, whatever the
    From field claims; the GM is told, the forger is not."""
    gm, gm_code = "gm@example.org", "Leiter-2718"
    cfg = embedded(tmp_path / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    cfg.authserv_id = OUR_MX
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    path = league_toml(tmp_path / "liga.toml", extra=f'gm_email = "{gm}"\ngm_code = "{gm_code}"')
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    deliver(db, md, cfg)
    md.start = set(md.outbox.keys())
    pause = player_mail(gm, "Code: geraten", subject="PAUSE Test-Rondo")
    raws = [pause.replace(f"From: {gm}\r\n".encode(), f"From: {gm} <{MALLORY}>\r\n".encode()),
            pause.replace(f"From: {gm}\r\n".encode(), f'From: "{gm}" <{MALLORY}>\r\n'.encode()),
            f"Authentication-Results: {OUR_MX}; dmarc=pass header.from=evil.example\r\n".encode()
            + player_mail(gm, "", subject="PAUSE Test-Rondo")]
    got = run(db, cfg, md, *raws)
    assert [r.status for r in got] == ["rejected"] * 3
    with db.session() as s:
        assert not s.scalar(select(League)).paused
    out = sent(md)
    assert to(out, MALLORY) == [] and len(to(out, gm)) == 1
    assert "abgelehnt" in header(to(out, gm)[0], "Subject")
    db.dispose()


# -- the one parse -------------------------------------------------------------------------------

@pytest.mark.parametrize("field, addr, problem", [
    (f"Anna <{ANNA}>", ANNA, None),
    (f"{ANNA} (Anna)", ANNA, None),
    (f'"{ANNA.upper()}" <{ANNA}>', ANNA, None),
    (f"{ANNA} <{MALLORY}>", ANNA, f"From also names {MALLORY}"),
    (f'"{ANNA}" <{MALLORY}>', MALLORY, f"From also names {ANNA}"),
    (f"{MALLORY}, {ANNA}", MALLORY, f"From names 2 addresses ({MALLORY}, {ANNA})"),
    ("", "", None),
    ("undisclosed", "", None),
])
def test_read_sender(field, addr, problem):
    rm = read_mail(f"From: {field}\r\nSubject: x\r\n\r\nhallo\r\n".encode())
    assert (rm.from_addr, rm.from_problem) == (addr, problem)
    found = read_sender(raw_headers(f"From: {field}\r\n\r\n".encode()))
    assert (found.addr, found.problem) == (addr, problem)


def test_two_from_fields():
    rm = read_mail(f"From: {ANNA}\r\nFrom: {MALLORY}\r\n\r\nx\r\n".encode())
    assert rm.from_problem == "2 From fields" and set(rm.claimed) == {ANNA, MALLORY}


def test_dmarc_verdict_must_be_about_the_senders_domain():
    def verdict(results: str, sender: str = ANNA):
        return sender_auth(raw_headers(f"Authentication-Results: {OUR_MX}; {results}\r\n\r\n".encode()),
                           sender, OUR_MX)
    assert verdict("dmarc=pass header.from=example.org").verdict == "pass"
    assert verdict("dmarc=pass header.from=Example.ORG.").verdict == "pass"
    assert verdict("dmarc=pass header.from=evil.example").reason == "dmarc=pass header.from=evil.example"
    assert verdict("dmarc=none header.from=evil.example").failed
    assert verdict("dmarc=pass header.from=sub.example.org").failed  # DMARC names the From domain exactly
    assert verdict("dmarc=none header.from=example.org").verdict == "none"


# -- spielleiter check: does our server write Authentication-Results, with which id? -------------

def test_check_reads_the_authserv_id_from_the_newest_maildir_mails(tmp_path):
    cfg = embedded(tmp_path / "var")
    md = MaildirTransport(cfg.maildir)
    poller, _ = transports(cfg)
    line = check_authserv(cfg, poller)
    assert line.status == "WARNUNG" and "noch keine Mail" in line.detail
    md.deliver_to_inbox(player_mail(ANNA, "ohne Kopf"))
    line = check_authserv(cfg, poller)
    assert line.status == "WARNUNG" and "kein" in line.detail and "require_code" in line.detail
    ms = MaildirTransport(tmp_path / "ms")  # Microsoft's way: results without an authserv-id
    ms.deliver_to_inbox(b"Authentication-Results: spf=pass (sender IP is 192.0.2.1) smtp.mailfrom=example.org; "
                        b"dkim=pass header.d=example.org;dmarc=pass action=none header.from=example.org;"
                        b"compauth=pass reason=100\r\n" + player_mail(ANNA, "x"))
    line = check_authserv(cfg, ms)
    assert line.status == "WARNUNG" and "keine authserv-id" in line.detail
    # our server on top, an upstream verdict below; one of them already read (in processed)
    for i in range(3):
        md.deliver_to_inbox(f"Authentication-Results: {OUR_MX};\r\n\tdkim=pass header.d=example.org;\r\n\t"
                            "dmarc=pass header.from=example.org\r\nAuthentication-Results: mx.upstream.example; "
                            f"spf=pass\r\n".encode() + player_mail(ANNA, f"Mail {i}"))
    md.poll(lambda raw, **kw: True)  # everything read and moved to processed, as the service does
    md.deliver_to_inbox(f"Authentication-Results: {OUR_MX}; dmarc=pass header.from=example.org\r\n".encode()
                        + player_mail(ANNA, "neu"))
    before = sorted(p.name for p in (cfg.maildir / "inbox").rglob("*") if p.is_file())
    line = check_authserv(cfg, poller, n=4)
    assert line.status == "WARNUNG" and f'setze [bot] authserv_id = "{OUR_MX}"' in line.detail
    assert "in 4 von 4" in line.detail and ANNA not in line.detail
    assert sorted(p.name for p in (cfg.maildir / "inbox").rglob("*") if p.is_file()) == before  # nothing moved
    cfg.authserv_id = OUR_MX
    line = check_authserv(cfg, poller, n=4)
    assert (line.status, line.detail) == (
        "OK", f'[bot] authserv_id = "{OUR_MX}": Authentication-Results von {OUR_MX} in 4 von 4 neuesten Mails, '
              "mit DMARC-Ergebnis in 4 davon")
    cfg.authserv_id = "mx.example.com"  # a typo: the server's verdicts would never be read
    line = check_authserv(cfg, poller, n=4)
    assert line.status == "FEHLER" and f'setze [bot] authserv_id = "{OUR_MX}"' in line.detail
    line = check_authserv(cfg, poller, n=5)  # the oldest, without any header, too
    assert line.status == "FEHLER" and line.detail.startswith('[bot] authserv_id = "mx.example.com", aber 4 der 5')
    cfg.authserv_id = OUR_MX
    line = check_authserv(cfg, poller, n=5)
    assert line.status == "WARNUNG" and "nur in 4 von 5" in line.detail and "ohne 1x" in line.detail


@pytest.mark.e2e
def test_check_reads_the_authserv_id_over_imap_read_only(tmp_path, dovecot, smtpd, capsys):
    user = dovecot.fresh_user()
    conf = server_config(tmp_path / "spielleiter.toml", dovecot, smtpd, user,
                         db_url=f"sqlite:///{tmp_path / 'bot.sqlite'}", bot=f'authserv_id = "{OUR_MX.upper()}"')
    assert main(["init", "--config", str(conf)]) == 0
    capsys.readouterr()
    assert main(["check", "--config", str(conf)]) == 0  # an empty inbox: a warning, no failure
    assert any(ln.startswith("WARNUNG Absenderprüfung: noch keine Mail") for ln in capsys.readouterr().out.splitlines())
    cfg = load_config(conf)
    processed = "Spielleiter.Verarbeitet"  # Dovecot's delimiter
    dovecot.append(f"Authentication-Results: {OUR_MX}; dmarc=pass header.from=example.org\r\n".encode()
                   + player_mail(ANNA, "alt"), folder=processed, user=user)
    dovecot.append(f"Authentication-Results: {OUR_MX}; dmarc=fail header.from=example.org\r\n".encode()
                   + player_mail(ANNA, "neu"), user=user)
    assert main(["check", "--config", str(conf)]) == 0
    out = capsys.readouterr().out
    assert (f'OK      Absenderprüfung: [bot] authserv_id = "{OUR_MX}": Authentication-Results von {OUR_MX} '
            "in 2 von 2 neuesten Mails, mit DMARC-Ergebnis in 2 davon") in out
    assert dovecot.flags(user=user) == [()]  # not marked \\Seen, not moved
    assert len(dovecot.fetch_all(user=user)) == 1 and len(dovecot.fetch_all(processed, user=user)) == 1
    conf.write_text(conf.read_text().replace(f'authserv_id = "{OUR_MX.upper()}"', 'authserv_id = "mx.tippfehler.org"'))
    assert main(["check", "--config", str(conf)]) == 1
    assert f'FEHLER  Absenderprüfung: [bot] authserv_id = "mx.tippfehler.org", aber die 2 neuesten Mails tragen ' \
           f'oben Authentication-Results von {OUR_MX}: setze [bot] authserv_id = "{OUR_MX}"' in capsys.readouterr().out
    assert cfg.authserv_id == OUR_MX.upper()

"""Real-world mails, end to end through intake: Maildir inbox -> ``poll_once`` -> SQLite.

Each mail is shaped like the output of a real client (Outlook, Gmail, Apple Mail,
Thunderbird, old webmailers) and carries NEW moves; many of them also carry the bot's
own acknowledgement of an OLD mail, quoted in the client's way (or not quoted at all).
The stored submission must hold exactly the new moves, never the quoted old ones.
"""

from __future__ import annotations

import base64
import quopri
from email.header import Header

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Submission
from tests.helpers import league_toml, player_mail, text_of

BOT = "spielleiter@example.org"
OLD = {"R1": ["ALTE", "ALT"], "R2": ["OLDIE"]}  # moves of the first (old) mail
NEW_R1 = ["TOR", "ROT"]


@pytest.fixture
def env(tmp_path):
    """A Rondo league (R1, R2) on SQLite + Maildir, with one old submission already
    acknowledged; yields (db, cfg, md, ack_text)."""
    cfg = embedded(tmp_path / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "liga.toml")), cfg)
    deliver(db, md, cfg)
    md.deliver_to_inbox(player_mail("Anna Albers <anna@example.org>",
                                    "Partie R1:\nALTE\nErsatz: ALT\n\nPartie R2:\nOLDIE\n"))
    assert poll_once(db, cfg) == 1
    with db.session() as s:
        ack = s.scalars(select(OutboxMail).where(OutboxMail.kind == "ack")).one()
        ack_text = text_of(ack.raw)
    assert "  Hauptzug: ALTE" in ack_text and "    -> " in ack_text
    yield db, cfg, md, ack_text
    db.dispose()


def moves_of_last_mail(db) -> dict[str, list[str]]:
    """Partie -> moves of the submissions of the newest inbound mail."""
    from bot.storage.models import Partie
    with db.session() as s:
        mail = s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()
        assert mail.status == "processed", (mail.status, mail.parse, mail.error)
        subs = s.scalars(select(Submission).where(Submission.mail_id == mail.id).order_by(Submission.id)).all()
        return {s.get(Partie, x.partie_id).name: [m.text for m in x.moves] for x in subs}


def quote(text: str, prefix: str = "> ") -> str:
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.splitlines())


def crlf(s: str) -> str:
    return s.replace("\r\n", "\n").replace("\n", "\r\n")


def head(subject: str = "Re: Züge", extra: str = "", frm: str = "Anna Albers <anna@example.org>",
         mid: str = "<new-1@client.example>") -> str:
    if not subject.isascii():  # clients encode a non-ASCII subject (RFC 2047)
        subject = Header(subject, "utf-8").encode()
    return (f"From: {frm}\nTo: Spielleiter <{BOT}>\nSubject: {subject}\n"
            f"Date: Mon, 07 Dec 2026 21:02:11 +0100\nMessage-ID: {mid}\n"
            f"In-Reply-To: <ack-old@example.org>\nMIME-Version: 1.0\n{extra}")


def part(ctype: str, text: str, charset: str, cte: str, params: str = "", disp: str = "") -> str:
    data = text.replace("\n", "\r\n").encode(charset)
    if cte == "quoted-printable":
        body = quopri.encodestring(data).decode("ascii")
    elif cte == "base64":
        body = base64.encodebytes(data).decode("ascii")
    else:
        body = data.decode(charset)
    h = f"Content-Type: {ctype}; charset=\"{charset}\"{params}\nContent-Transfer-Encoding: {cte}\n"
    if disp:
        h += f"Content-Disposition: {disp}\n"
    return h + "\n" + body


def multipart(subtype: str, boundary: str, *parts: str) -> str:
    out = f"Content-Type: multipart/{subtype}; boundary=\"{boundary}\"\n\n"
    for p in parts:
        out += f"--{boundary}\n{p}\n"
    return out + f"--{boundary}--\n"


def to_bytes(s: str, charset: str = "utf-8") -> bytes:
    return crlf(s).encode(charset)


def html_escape(t: str) -> str:
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def html_lines(t: str) -> str:
    return "<br>\n".join(html_escape(x) for x in t.splitlines())


# ------------------------------------------------------------------ the mails

NEW_PLAIN = "Hallo Spielleiter,\n\nhier mein Zug für diese Woche:\n\nPartie R1:\nTOR\nErsatz: ROT\n\nViele Grüße\nAnna\n"


def outlook_html_only(ack: str) -> bytes:
    html = ("<html xmlns:o=\"urn:schemas-microsoft-com:office:office\"><head><meta http-equiv=\"Content-Type\" "
            "content=\"text/html; charset=windows-1252\"><style><!-- p.MsoNormal {margin:0cm;} --></style></head>"
            "<body lang=\"DE\"><div class=\"WordSection1\">"
            "<p class=\"MsoNormal\">Hallo Spielleiter,<o:p></o:p></p><p class=\"MsoNormal\"><o:p>&nbsp;</o:p></p>"
            "<p class=\"MsoNormal\">Partie R1:<o:p></o:p></p><p class=\"MsoNormal\">TOR<o:p></o:p></p>"
            "<p class=\"MsoNormal\">Ersatz: ROT<o:p></o:p></p><p class=\"MsoNormal\"><o:p>&nbsp;</o:p></p>"
            "<p class=\"MsoNormal\">Grüße – Anna<o:p></o:p></p>"
            "<div><div style=\"border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm\">"
            f"<p class=\"MsoNormal\"><b>Von:</b> Spielleiter &lt;{BOT}&gt; <br><b>Gesendet:</b> Montag, 7. "
            "Dezember 2026 20:15<br><b>An:</b> Anna Albers &lt;anna@example.org&gt;<br><b>Betreff:</b> Re: Züge"
            "<o:p></o:p></p></div></div>"
            f"<p class=\"MsoNormal\">{html_lines(ack)}</p></div></body></html>")
    return to_bytes(head("AW: Züge", "X-Mailer: Microsoft Outlook 16.0\nThread-Index: AQHZ\n")
                    + part("text/html", html, "windows-1252", "quoted-printable"), "ascii")


def outlook_alternative(ack: str) -> bytes:
    plain = (NEW_PLAIN + "\n" + "_" * 32 + "\n" f"Von: Spielleiter <{BOT}>\nGesendet: Montag, 7. Dezember 2026 "
             "20:15\nAn: Anna Albers <anna@example.org>\nBetreff: Re: Züge\n\n" + ack)
    html = ("<html><body><div class=\"WordSection1\"><p class=\"MsoNormal\">Partie R1:<br>TOR<br>Ersatz: ROT</p>"
            f"<div style=\"border:none;border-top:solid #E1E1E1 1.0pt\"><p><b>Von:</b> Spielleiter<br>"
            f"<b>Gesendet:</b> Montag, 7. Dezember 2026 20:15</p></div><p>{html_lines(ack)}</p></div></body></html>")
    return to_bytes(head("AW: Züge", "X-Mailer: Microsoft Outlook 16.0\n")
                    + multipart("alternative", "_000_DB9PR_",
                                part("text/plain", plain, "windows-1252", "quoted-printable"),
                                part("text/html", html, "windows-1252", "quoted-printable")), "ascii")


def outlook_original_message(ack: str) -> bytes:
    plain = NEW_PLAIN + "\n-----Ursprüngliche Nachricht-----\n" + f"Von: Spielleiter <{BOT}>\n" \
        "Gesendet: Montag, 7. Dezember 2026 20:15\nAn: anna@example.org\nBetreff: Re: Züge\n\n" + ack
    return to_bytes(head("AW: Züge") + part("text/plain", plain, "windows-1252", "quoted-printable"), "ascii")


def gmail(ack: str, wrapped: bool = False) -> bytes:
    hdr = ("Am Mo., 7. Dez. 2026 um 20:15 Uhr schrieb Spielleiter <\n" f"{BOT}>:" if wrapped else
           f"Am Mo., 7. Dez. 2026 um 20:15 Uhr schrieb Spielleiter <{BOT}>:")
    plain = "Partie R1:\nTOR\nErsatz: ROT\n\n" + hdr + "\n\n" + quote(ack) + "\n"
    html = ("<div dir=\"ltr\"><div>Partie R1:</div><div>TOR</div><div>Ersatz: ROT</div></div><br>"
            "<div class=\"gmail_quote\"><div dir=\"ltr\" class=\"gmail_attr\">Am Mo., 7. Dez. 2026 um 20:15&nbsp;Uhr "
            f"schrieb Spielleiter &lt;<a href=\"mailto:{BOT}\">{BOT}</a>&gt;:<br></div>"
            "<blockquote class=\"gmail_quote\" style=\"margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204)"
            f";padding-left:1ex\">{html_lines(ack)}</blockquote></div>")
    return to_bytes(head("Re: Züge", mid="<CAF=abc+def@mail.gmail.com>")
                    + multipart("alternative", "000000000000a1b2c3",
                                part("text/plain", plain, "UTF-8", "quoted-printable"),
                                part("text/html", html, "UTF-8", "quoted-printable")), "ascii")


def apple_html_only(ack: str) -> bytes:
    html = ("<html><head><meta http-equiv=\"content-type\" content=\"text/html; charset=utf-8\"></head>"
            "<body style=\"overflow-wrap: break-word;\">Partie R1:<div>TOR</div><div>Ersatz: ROT</div>"
            "<div><br><div><br><blockquote type=\"cite\"><div>Am 07.12.2026 um 20:15 schrieb Spielleiter &lt;"
            f"{BOT}&gt;:</div><br class=\"Apple-interchange-newline\"><div><div>{html_lines(ack)}</div></div>"
            "</blockquote></div><br></div></body></html>")
    return to_bytes(head("Re: Züge", "X-Mailer: Apple Mail (2.3774.300.61.1.2)\n")
                    + part("text/html", html, "utf-8", "quoted-printable"), "ascii")


def apple_alternative(ack: str) -> bytes:
    plain = "Partie R1:\nTOR\nErsatz: ROT\n\n" + f"> Am 07.12.2026 um 20:15 schrieb Spielleiter <{BOT}>:\n>\n" \
        + quote(ack) + "\n"
    html = (f"<html><body>Partie R1:<div>TOR</div><div>Ersatz: ROT</div><blockquote type=\"cite\">"
            f"<div>Am 07.12.2026 um 20:15 schrieb Spielleiter:</div>{html_lines(ack)}</blockquote></body></html>")
    return to_bytes(head("Re: Züge", "X-Mailer: Apple Mail (2.3774)\n")
                    + multipart("alternative", "Apple-Mail=_5C0A1E",
                                part("text/plain", plain, "utf-8", "quoted-printable"),
                                part("text/html", html, "utf-8", "quoted-printable")), "ascii")


def thunderbird_flowed(ack: str) -> bytes:
    plain = ("Hallo, \nhier kommt mein Zug, diesmal etwas später als sonst, weil ich unterwegs war und \n"
             "erst jetzt dazu gekommen bin.\n\nPartie R1:\nTOR\nErsatz: ROT\n\nGruß Anna\n\n"
             "Am 07.12.26 um 20:15 schrieb Spielleiter:\n" + quote(ack) + "\n")
    return to_bytes(head("Re: Züge", "User-Agent: Mozilla Thunderbird\n")
                    + part("text/plain", plain, "UTF-8", "8bit", params="; format=flowed"))


def iso_8859_1(ack: str) -> bytes:
    plain = "Grüße aus Köln!\n\nPartie R1: TOR\nErsatz: ROT\n\nSchöne Grüße\nAnna Albers\n"
    return to_bytes(head("Züge") + part("text/plain", plain, "iso-8859-1", "8bit"), "iso-8859-1")


def base64_utf8(ack: str) -> bytes:
    plain = "Partie R1:\nTOR\nErsatz: ROT\n\nLiebe Grüße, Anna\n"
    return to_bytes(head("Züge") + part("text/plain", plain, "utf-8", "base64"), "ascii")


def rfc2047_subject(ack: str) -> bytes:
    # no section line: the Partie comes from the encoded subject "Züge für R1"
    return to_bytes(head("=?UTF-8?Q?Z=C3=BCge_f=C3=BCr_R1?=")
                    + part("text/plain", "TOR\nErsatz: ROT\n", "utf-8", "quoted-printable"), "ascii")


def with_attachment(ack: str) -> bytes:
    pdf = base64.encodebytes(b"%PDF-1.4\n% Partie R2:\nXYZ\n").decode("ascii")
    return to_bytes(head("Züge") + multipart(
        "mixed", "mixed-boundary-42",
        part("text/plain", "Partie R1:\nTOR\nErsatz: ROT\n", "utf-8", "8bit"),
        "Content-Type: application/pdf; name=\"brett.pdf\"\nContent-Disposition: attachment; "
        f"filename=\"brett.pdf\"\nContent-Transfer-Encoding: base64\n\n{pdf}",
        part("text/plain", "Partie R2:\nOLDIE\n", "utf-8", "8bit", disp="attachment; filename=\"alt.txt\"")))


def forwarded(ack: str) -> bytes:
    plain = ("Partie R1:\nTOR\nErsatz: ROT\n\n---------- Forwarded message ---------\n"
             f"Von: Spielleiter <{BOT}>\nDate: Mo., 7. Dez. 2026 um 20:15 Uhr\nSubject: Re: Züge\n"
             "To: <anna@example.org>\n\n" + ack)
    return to_bytes(head("Fwd: Re: Züge") + part("text/plain", plain, "utf-8", "quoted-printable"), "ascii")


def thunderbird_ack_quoted(ack: str) -> bytes:
    plain = "Partie R1:\nTOR\nErsatz: ROT\n\nAm 07.12.26 um 20:15 schrieb Spielleiter:\n" + quote(ack) + "\n"
    return to_bytes(head("Re: Züge") + part("text/plain", plain, "utf-8", "8bit"))


def ack_unquoted(ack: str) -> bytes:
    """The client pasted the acknowledgement below the new moves: no header, no '>'."""
    plain = "Partie R1:\nTOR\nErsatz: ROT\n\n" + ack
    return to_bytes(head("Re: Züge") + part("text/plain", plain, "windows-1252", "quoted-printable"), "ascii")


def ack_unquoted_stripped(ack: str) -> bytes:
    """As above, but the client also stripped the greeting and trailing blanks (``--``)."""
    body = "\n".join(l.rstrip() for l in ack.splitlines() if not l.startswith("Hallo"))
    plain = "Partie R1: TOR\nErsatz: ROT\n" + body
    return to_bytes(head("Re: Züge") + part("text/plain", plain, "utf-8", "8bit"))


def ack_unquoted_html(ack: str) -> bytes:
    """Outlook HTML without the 'Von:' block: the ack as plain paragraphs."""
    html = ("<html><body><p>Partie R1:<br>TOR<br>Ersatz: ROT</p><p>&nbsp;</p>"
            f"<div>{html_lines(ack)}</div></body></html>")
    return to_bytes(head("AW: Züge") + part("text/html", html, "windows-1252", "quoted-printable"), "ascii")


CASES = [outlook_html_only, outlook_alternative, outlook_original_message, gmail,
         lambda a: gmail(a, wrapped=True), apple_html_only, apple_alternative, thunderbird_flowed, iso_8859_1,
         base64_utf8, rfc2047_subject, with_attachment, forwarded, thunderbird_ack_quoted, ack_unquoted,
         ack_unquoted_stripped, ack_unquoted_html]
IDS = ["outlook-html", "outlook-alternative", "outlook-original", "gmail", "gmail-wrapped", "apple-html",
       "apple-alternative", "thunderbird-flowed", "iso-8859-1", "base64", "rfc2047-subject", "attachment",
       "forwarded", "ack-quoted", "ack-unquoted", "ack-unquoted-stripped", "ack-unquoted-html"]


@pytest.mark.parametrize("make", CASES, ids=IDS)
def test_real_client_mail_reads_only_the_new_moves(env, make):
    db, cfg, md, ack = env
    md.deliver_to_inbox(make(ack))
    assert poll_once(db, cfg) == 1
    assert moves_of_last_mail(db) == {"R1": NEW_R1}
    with db.session() as s:
        acks = s.scalars(select(OutboxMail).where(OutboxMail.kind == "ack").order_by(OutboxMail.id)).all()
        assert len(acks) == 2 and acks[1].status == "sent"
        answer = text_of(acks[1].raw)
        assert "Hauptzug: TOR" in answer and "Ersatzzug 1: ROT" in answer
        assert "ALTE" not in answer and "OLDIE" not in answer
        # the old R1 submission is replaced, the old R2 one stays
        subs = s.scalars(select(Submission).order_by(Submission.id)).all()
        assert [x.superseded_by is not None for x in subs] == [True, False, False]


def test_forward_without_comment_sends_the_draft(env):
    db, cfg, md, _ = env
    plain = ("---------- Forwarded message ---------\nFrom: Anna <anna@home.example>\n"
             "Date: Mo., 7. Dez. 2026 um 19:00 Uhr\nSubject: Entwurf\nTo: <anna@example.org>\n\n"
             "Partie R2:\nTOR\nErsatz: ROT\n")
    md.deliver_to_inbox(to_bytes(head("Fwd: Entwurf") + part("text/plain", plain, "utf-8", "8bit")))
    poll_once(db, cfg)
    assert moves_of_last_mail(db) == {"R2": NEW_R1}


def test_quoted_ack_alone_is_no_submission(env):
    """A bare 'reply' that only carries the quoted acknowledgement submits nothing."""
    db, cfg, md, ack = env
    md.deliver_to_inbox(to_bytes(head("Re: Züge") + part("text/plain", "\n" + ack, "utf-8", "8bit")))
    poll_once(db, cfg)
    with db.session() as s:
        mail = s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()
        assert s.scalars(select(Submission).where(Submission.mail_id == mail.id)).all() == []
        subs = s.scalars(select(Submission)).all()
        assert all(x.superseded_by is None for x in subs)

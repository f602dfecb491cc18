"""Tests for bot.mail.message and bot.mail.compose (no servers needed)."""

from __future__ import annotations

import base64
import os
from datetime import datetime, timezone
from email.message import EmailMessage

import pytest
from hypothesis import given, settings, strategies as st

from bot.mail.compose import compose, make_message_id
from bot.mail.message import read_mail


def raw_mail(body: bytes | str, *, headers: str = "", ctype="text/plain; charset=utf-8", cte="8bit") -> bytes:
    head = (
        "From: =?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <Juergen@Example.DE>\r\n"
        "To: Spielleiter <bot@spiel.example>\r\n"
        "Subject: Zug\r\n"
        "Message-ID: <abc123@example.de>\r\n"
        "Date: Tue, 01 Dec 2026 10:00:00 +0100\r\n"
        "MIME-Version: 1.0\r\n"
        f"Content-Type: {ctype}\r\n"
        f"Content-Transfer-Encoding: {cte}\r\n"
        + headers
        + "\r\n"
    ).encode("ascii")
    if isinstance(body, str):
        body = body.encode("utf-8")
    return head + body


# ---------------------------------------------------------------- basics


def test_plain_utf8_headers_and_body():
    m = read_mail(raw_mail("ZUG: GRÜẞE über Öl\r\n", headers="In-Reply-To: <r1@x>\r\nReferences: <r0@x> <r1@x>\r\n"))
    assert m.from_addr == "juergen@example.de"
    assert m.from_name == "Jürgen Müller"
    assert m.to == ["bot@spiel.example"]
    assert m.subject == "Zug"
    assert m.message_id == "<abc123@example.de>"
    assert m.in_reply_to == "<r1@x>"
    assert m.references == ["<r0@x>", "<r1@x>"]
    assert m.date == datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
    assert m.date.tzinfo is not None
    assert m.text.strip() == "ZUG: GRÜẞE über Öl"
    assert m.new_text == "ZUG: GRÜẞE über Öl"
    assert m.auto is None
    assert len(m.raw_sha256) == 64


def test_missing_message_id_and_date():
    raw = b"From: a@b.de\r\nSubject: x\r\n\r\nhallo\r\n"
    m = read_mail(raw)
    assert m.message_id is None and m.date is None and m.in_reply_to is None
    assert m.references == [] and m.to == []


def test_iso_8859_1_quoted_printable():
    body = "Zug: M=FCller gr=FC=DFt =C4pfel\r\n"
    m = read_mail(raw_mail(body, ctype="text/plain; charset=ISO-8859-1", cte="quoted-printable"))
    assert m.text.strip() == "Zug: Müller grüßt Äpfel"


def test_windows_1252_base64():
    text = "„Zug“: Straße – 5 €\r\n".encode("windows-1252")
    body = base64.encodebytes(text).decode("ascii").replace("\n", "\r\n")
    m = read_mail(raw_mail(body, ctype="text/plain; charset=windows-1252", cte="base64"))
    assert m.text.strip() == "„Zug“: Straße – 5 €"


def test_latin1_label_with_cp1252_bytes_and_unknown_charset():
    m = read_mail(raw_mail("„Öl“ \u20ac".encode("windows-1252"), ctype="text/plain; charset=iso-8859-1"))
    assert m.text == "„Öl“ €"
    m = read_mail(raw_mail("Grüße".encode("utf-8"), ctype="text/plain; charset=x-klingon"))
    assert m.text == "Grüße"
    m = read_mail(raw_mail("Grüße".encode("latin-1"), ctype="text/plain; charset=utf-8"))
    assert m.text == "Grüße"  # wrong label: falls back gracefully


def test_html_only_outlook_like():
    html = (
        '<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><style>p.MsoNormal{margin:0}</style></head>'
        '<body lang="DE"><div class="WordSection1"><p class="MsoNormal">ZUG: <b>HAUS</b><o:p></o:p></p>'
        '<p class="MsoNormal">Viele Gr&uuml;&szlig;e <a href="http://x.example/">Link</a></p></div></body></html>'
    )
    m = read_mail(raw_mail(html, ctype="text/html; charset=utf-8"))
    assert "ZUG: HAUS" in m.text
    assert "Viele Grüße Link" in m.text
    assert "<" not in m.text and "http" not in m.text and "MsoNormal" not in m.text


def test_html_to_text_is_plain_not_markdown():
    html = (
        "<p>1. ZUG: H8 *HAUS*</p><p>+ 5 Punkte</p><p>- Anna_B \\ C:\\x</p>"
        "<table><tr><td>A</td><td>B</td></tr></table><p>x&nbsp;y<br>z</p>"
        "<blockquote>alter Zug</blockquote>"
    )
    m = read_mail(raw_mail(html, ctype="text/html; charset=utf-8"))
    lines = [l for l in m.text.split("\n") if l]
    assert lines == ["1. ZUG: H8 *HAUS*", "+ 5 Punkte", "- Anna_B \\ C:\\x", "A B", "x y", "z", "> alter Zug"]
    assert "alter Zug" not in m.new_text


def test_html_blank_line_runs_become_one_blank_line():
    """Runs of white-space lines are folded before html2text (its escapes were quadratic
    over them: a mail part of blank lines stalled the intake for minutes; the fuzz bench's
    worst case html-blank-lines measures it). Lines and one blank line between them stay."""
    html = "<pre>Partie R1:\nTOR\n" + " \n\t\n\x85\n" * 5000 + "ROT\n\n\n  1. KLEE</pre>"
    m = read_mail(raw_mail(html, ctype="text/html; charset=utf-8"))
    assert m.text.split("\n") == ["    Partie R1:", "    TOR", "", "    ROT", "", "      1. KLEE"]  # html2text indents <pre>
    html = "<p>Partie R1:<br>TOR</p>" + "\r\n \r\n" * 5000 + "<p>ROT</p>"
    assert read_mail(raw_mail(html, ctype="text/html; charset=utf-8")).text.split("\n") == ["Partie R1:", "TOR", "", "ROT"]


def test_html_signature_and_reply_header_cut():
    html = (
        "<div>ZUG: HAUS</div><div>-- <br>Hans</div>"
    )
    assert read_mail(raw_mail(html, ctype="text/html; charset=utf-8")).new_text == "ZUG: HAUS"
    html = (
        '<div dir="ltr">ZUG: HAUS</div><br><div class="gmail_quote"><div class="gmail_attr">'
        "Am Di., 1. Dez. 2026 um 10:00 Uhr schrieb Spielleiter &lt;bot@x&gt;:<br></div>"
        '<blockquote class="gmail_quote">Runde 3<br>ZUG: ALT</blockquote></div>'
    )
    assert read_mail(raw_mail(html, ctype="text/html; charset=utf-8")).new_text == "ZUG: HAUS"


def _multipart(html: bool = True, attachment: bool = False) -> bytes:
    msg = EmailMessage()
    msg["From"] = "spieler@example.de"
    msg["To"] = "bot@spiel.example"
    msg["Subject"] = "Zug"
    msg.set_content("ZUG: PLAIN\n")
    if html:
        msg.add_alternative("<p>ZUG: <i>HTML</i></p>", subtype="html")
    if attachment:
        msg.add_attachment(b"ZUG: ANHANG", maintype="text", subtype="plain", filename="zug.txt")
        msg.add_attachment(os.urandom(64), maintype="application", subtype="octet-stream", filename="x.bin")
    return msg.as_bytes()


def test_multipart_alternative_prefers_plain():
    m = read_mail(_multipart())
    assert m.text.strip() == "ZUG: PLAIN"


def test_attachment_ignored():
    m = read_mail(_multipart(html=True, attachment=True))
    assert m.text.strip() == "ZUG: PLAIN"
    assert "ANHANG" not in m.text


def test_html_alternative_used_when_no_plain():
    msg = EmailMessage()
    msg["From"] = "a@b.de"
    msg.add_alternative("<p>ZUG: NUR HTML</p>", subtype="html")
    assert read_mail(msg.as_bytes()).text.strip() == "ZUG: NUR HTML"


def test_rfc2047_subject():
    raw = b"From: a@b.de\r\nSubject: =?UTF-8?Q?Z=C3=BCge?= Runde =?ISO-8859-1?Q?3_f=FCr?= alle\r\n\r\nx\r\n"
    assert read_mail(raw).subject == "Züge Runde 3 für alle"


# ------------------------------------------------------------- new_text

OLD = "> Runde 3: bitte Zug senden\n> ZUG: ALT\n"


@pytest.mark.parametrize(
    "body",
    [
        f"ZUG: HAUS\n\nAm 01.12.2026 um 10:00 schrieb Spielleiter <bot@x>:\n{OLD}",
        f"ZUG: HAUS\n\nAm Di., 1. Dez. 2026 um 10:00 Uhr schrieb Spielleiter\n<bot@x>:\n{OLD}",
        "ZUG: HAUS\n\n-----Ursprüngliche Nachricht-----\nVon: Spielleiter <bot@x>\nGesendet: Dienstag\n"
        "An: spieler@y\nBetreff: Runde 3\n\nZUG: ALT\n",
        "ZUG: HAUS\n\n________________________________\nVon: Spielleiter <bot@x>\n"
        "Gesendet: Dienstag, 1. Dezember 2026 10:00\nAn: spieler@y\nBetreff: Runde 3\n\nZUG: ALT\n",
        "ZUG: HAUS\n\nVon: Spielleiter <bot@x>\nDatum: 1.12.2026\nBetreff: Runde 3\n\nZUG: ALT\n",
        f"ZUG: HAUS\n\nOn Tue, Dec 1, 2026 at 10:00 AM Spielleiter <bot@x> wrote:\n{OLD}",
        f"ZUG: HAUS\n\nOn Tue, Dec 1, 2026 at 10:00 AM Spielleiter <\nbot@x> wrote:\n{OLD}",
        "ZUG: HAUS\n-----Original Message-----\nFrom: bot@x\nSent: Tuesday\nZUG: ALT\n",
        "ZUG: HAUS\n\nFrom: Spielleiter <bot@x>\nSent: Tuesday, December 1, 2026 10:00 AM\nTo: p@y\n"
        "Subject: Runde 3\n\nZUG: ALT\n",
        f"{OLD}ZUG: HAUS\n",
        "ZUG: HAUS\n-- \nJürgen Müller\nZUG: ALT in der Signatur\n",
        "ZUG: HAUS\n--\nJürgen\nZUG: ALT\n",
    ],
)
def test_new_text_strips_quotes_headers_signatures(body):
    m = read_mail(raw_mail(body.replace("\n", "\r\n")))
    assert m.new_text == "ZUG: HAUS"
    assert "ALT" in m.text  # the full text keeps everything


def test_new_text_keeps_greetings_and_inline_lines():
    body = "Hallo,\n\nZUG: HAUS\nGRUSS\n- Hans\n\nViele Grüße\nJürgen\n"
    m = read_mail(raw_mail(body))
    assert m.new_text == "Hallo,\n\nZUG: HAUS\nGRUSS\n- Hans\n\nViele Grüße\nJürgen"


def test_interleaved_quotes_removed():
    body = "> Frage 1?\nAntwort 1\n> Frage 2?\nAntwort 2\n"
    assert read_mail(raw_mail(body)).new_text == "Antwort 1\nAntwort 2"


def test_forward_with_comment_uses_comment_only():
    body = (
        "ZUG: HAUS\n\n---------- Forwarded message ---------\nFrom: Hans <h@x>\n"
        "Date: Tue, Dec 1, 2026\nSubject: Zug\nTo: <bot@x>\n\nZUG: BAUM\n"
    )
    assert read_mail(raw_mail(body)).new_text == "ZUG: HAUS"


@pytest.mark.parametrize(
    "marker",
    ["---------- Forwarded message ---------", "-------- Weitergeleitete Nachricht --------"],
)
def test_forward_without_comment_uses_inner_text(marker):
    body = (
        f"{marker}\nBetreff: Zug\nDatum: Tue, 1 Dec 2026\nVon: Hans <h@x>\nAn: bot@x\n\n"
        "ZUG: BAUM\n-- \nHans\n"
    )
    assert read_mail(raw_mail(body)).new_text == "ZUG: BAUM"


# ------------------------------------------------------------- auto mails


@pytest.mark.parametrize(
    "headers, expected",
    [
        ("Auto-Submitted: auto-replied\r\n", "Auto-Submitted"),
        ("Auto-Submitted: auto-generated\r\n", "Auto-Submitted"),
        ("Precedence: bulk\r\n", "Precedence"),
        ("Precedence: junk\r\n", "Precedence"),
        ("Precedence: list\r\n", "Precedence"),
        ("Precedence: auto_reply\r\n", "Precedence"),
        ("X-Autoreply: yes\r\n", "X-Autoreply"),
        ("X-Autorespond: Abwesenheit\r\n", "X-Autorespond"),
        ("X-Autoreply:\r\n", "X-Autoreply"),
        ("Return-Path: <>\r\n", "Return-Path"),
    ],
)
def test_auto_headers(headers, expected):
    m = read_mail(raw_mail("Ich bin im Urlaub.\r\n", headers=headers))
    assert m.auto is not None and expected in m.auto


@pytest.mark.parametrize(
    "headers", ["Auto-Submitted: no\r\n", "Precedence: normal\r\n", "Return-Path: <juergen@example.de>\r\n"]
)
def test_not_auto(headers):
    assert read_mail(raw_mail("ZUG: HAUS\r\n", headers=headers)).auto is None


@pytest.mark.parametrize("sender", ["MAILER-DAEMON@mx.example.de", "postmaster@example.de"])
def test_daemon_senders(sender):
    raw = f"From: Mail Delivery System <{sender}>\r\nSubject: Undelivered\r\n\r\nsorry\r\n".encode()
    assert read_mail(raw).auto is not None


def test_delivery_status_report():
    raw = (
        b"From: Mail System <bounce@mx.example.de>\r\nTo: bot@spiel.example\r\nSubject: failure\r\n"
        b"MIME-Version: 1.0\r\n"
        b'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        b"--B\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n"
        b"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx\r\n\r\n"
        b"Final-Recipient: rfc822; x@y\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n--B--\r\n"
    )
    m = read_mail(raw)
    assert m.auto is not None and "multipart/report" in m.auto
    assert "Delivery failed." in m.text


# ------------------------------------------------------------- robustness


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\x01\x02\xff\xfe",
        os.urandom(2048),
        b"From: <<<@@@>>>\r\nDate: gestern\r\nSubject: =?UTF-8?B?!!!?=\r\nContent-Type: multipart/mixed\r\n\r\nx",
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!notbase64",
        b'Content-Type: multipart/alternative; boundary="never"\r\n\r\nno parts here',
        b"From: a@b\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=ZZ=C3=\r\n",
    ],
)
def test_broken_mail_does_not_raise(raw):
    m = read_mail(raw)
    assert isinstance(m.text, str) and isinstance(m.new_text, str)
    assert len(m.raw_sha256) == 64


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000))
def test_random_bytes_never_raise(raw):
    read_mail(raw)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=500))
def test_new_text_never_raises(text):
    m = read_mail(b"From: a@b.de\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + text.encode("utf-8", "replace"))
    assert isinstance(m.new_text, str)


# ------------------------------------------------------------- compose


def test_compose_round_trip():
    date = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
    raw = compose(
        sender="Spielleiter <bot@spiel.example>",
        to=["Jürgen Müller <juergen@example.de>", "gm@example.de"],
        subject="Rondo: Runde 3 – Ergebnis für alle",
        text="Grüße!\nZUG: STRAẞE\n" + "lang " * 100 + "\n",
        message_id="<fixed@spiel.example>",
        in_reply_to="<abc@example.de>",
        references=["<root@example.de>"],
        date=date,
        headers={"Reply-To": "bot@spiel.example"},
    )
    assert isinstance(raw, bytes)
    assert all(len(line) <= 998 for line in raw.split(b"\r\n"))
    raw.decode("ascii")  # 7bit-clean on the wire
    m = read_mail(raw)
    assert m.from_addr == "bot@spiel.example" and m.from_name == "Spielleiter"
    assert m.to == ["juergen@example.de", "gm@example.de"]
    assert m.subject == "Rondo: Runde 3 – Ergebnis für alle"
    assert m.message_id == "<fixed@spiel.example>"
    assert m.in_reply_to == "<abc@example.de>"
    assert m.references == ["<root@example.de>", "<abc@example.de>"]
    assert m.date == date
    assert m.text == "Grüße!\nZUG: STRAẞE\n" + "lang " * 100 + "\n"
    # our own mails are automatic: a bot reading them must not answer
    assert m.auto == "Auto-Submitted: auto-generated"
    assert b"Reply-To: bot@spiel.example" in raw


def test_compose_multipart_alternative():
    raw = compose(sender="bot@spiel.example", to="p@example.de", subject="x", text="ZUG: TEXT", html="<p>ZUG: <b>HTML</b></p>")
    import email
    import email.policy

    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in msg.iter_parts()] == ["text/plain", "text/html"]
    assert read_mail(raw).text.strip() == "ZUG: TEXT"


def test_compose_headers_present_and_generated_id():
    raw = compose(sender="Bot <bot@Spiel.Example>", to="p@example.de", subject="x", text="Grüße")
    raw.decode("ascii")  # 7-bit clean even for short UTF-8 bodies
    for header in (b"From:", b"To:", b"Subject:", b"Date:", b"Message-ID:", b"Auto-Submitted: auto-generated", b"MIME-Version: 1.0"):
        assert header in raw
    m = read_mail(raw)
    assert m.message_id.endswith("@spiel.example>")
    assert m.date is not None and abs((m.date - datetime.now(timezone.utc)).total_seconds()) < 60
    assert b"charset=\"utf-8\"" in raw or b"charset=utf-8" in raw


def test_compose_needs_recipient():
    with pytest.raises(ValueError):
        compose(sender="bot@x", to=[], subject="x", text="y")


def test_make_message_id_deterministic():
    a = make_message_id("outbox:42", "spiel.example")
    assert a == make_message_id("outbox:42", "spiel.example")
    assert a != make_message_id("outbox:43", "spiel.example")
    assert a.startswith("<") and a.endswith("@spiel.example>")
    raw = compose(sender="bot@spiel.example", to="p@x.de", subject="s", text="t", message_id=a)
    assert read_mail(raw).message_id == a


@pytest.mark.parametrize("sig", ["Von meinem iPhone gesendet", "Sent from my iPhone", "Verstuurd vanaf mijn iPad",
                                 "Gesendet von meinem Samsung Galaxy", "Envoyé de mon iPhone"])
def test_a_phones_signature_ends_the_fresh_text(sig):
    """Issue 32 (found with the reply corpus): a phone's signature line above the quote was
    read as a move; the fresh text ends there, the moves above it stay."""
    from bot.mail.replies import new_text
    text = f"Partie R1:\nmo*NDES 24 Punkte\nErsatz: mondES\n\n{sig}\n\nAm 1. Dez. schrieb Bot:\n> Hallo"
    got = new_text(text)
    assert "mo*NDES 24 Punkte" in got and "Ersatz: mondES" in got and sig not in got
    assert new_text(f"Sent from my heart, here are my moves:\nPartie R1:\nKATER") .count("KATER") == 1

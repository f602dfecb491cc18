"""Property-based: random and mutated mails through the full ingest path
(``store_raw`` + ``process_mail``) on SQLite, with a Rondo and a Monoscrabble league.

For every mail: no exception escapes, it is stored (the row count grows by exactly the
number of distinct mails), it ends as processed | ignored | late | rejected, and it got
either an answer in the outbox or a recorded reason (``parse.reason`` or ``flagged``).
"""

from __future__ import annotations

import base64
import hashlib
import quopri

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sqlalchemy import func, select

from bot.config import embedded
from bot.service.conversations.intake import process_mail
from bot.service.stages.store import _message_id, content_hash, store_raw
from bot.service.operations.league import create_league, read_league_file
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail
from tests.helpers import league_toml

BOT = "spielleiter@example.org"
RONDO_PLAYERS = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org")]
MONO_PLAYERS = [("Anna Albers", "anna@example.org"), ("Dora Dietz", "dora@example.org")]
FINAL = {"processed", "ignored", "late", "rejected"}
SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


class World:
    """One SQLite database for the module, and the mails stored so far (by sha256, as
    ``store_raw`` dedupes, and by Message-ID with content hash, as reading finds repeats)."""

    def __init__(self, tmp):
        self.cfg = embedded(tmp / "var")
        self.cfg.sender = f"Spielleiter <{BOT}>"
        self.db = Database(self.cfg.database_url)
        self.db.migrate()
        with self.db.session() as s:
            create_league(s, read_league_file(league_toml(tmp / "r.toml", name="Prop-Rondo", partien=("R1", "R2"),
                                                          players=RONDO_PLAYERS)), self.cfg)
            mono = league_toml(tmp / "m.toml", name="Prop-Mono", partien=("M1",), players=MONO_PLAYERS)
            mono.write_text(mono.read_text().replace('game = "rondo"', 'game = "monoscrabble"'))
            create_league(s, read_league_file(mono), self.cfg)
        self.shas: set[str] = set()
        self.mids: set[tuple[str, str]] = set()

    def count(self) -> int:
        with self.db.session() as s:
            return s.scalar(select(func.count()).select_from(InboundMail))

    def feed(self, raws: list[bytes]) -> None:
        """Store and read each mail; assert the properties."""
        before = self.count()
        expected_new = 0
        for raw in raws:
            with self.db.session() as s:
                out_before = s.scalar(select(func.max(OutboxMail.id))) or 0
            sha, mid = hashlib.sha256(raw).hexdigest(), _message_id(raw)
            repeat = mid is not None and (mid, content_hash(raw)) in self.mids
            mail_id, new = store_raw(self.db, raw, source="prop")
            assert new == (sha not in self.shas)  # stored unless the same bytes were
            if not new:
                continue
            expected_new += 1
            self.shas.add(sha)
            if mid:
                self.mids.add((mid, content_hash(raw)))
            status = process_mail(self.db, self.cfg, mail_id)
            with self.db.session() as s:
                mail = s.get(InboundMail, mail_id)
                assert mail.raw == raw
                assert status == mail.status and mail.status in FINAL, (mail.status, mail.error)
                answers = s.scalars(select(OutboxMail).where(OutboxMail.id > out_before)).all()
                # a re-delivery (same Message-ID and content) is read as a repeat: no answer
                assert ("duplicate_of" in (mail.parse or {})) == repeat, (mid, mail.parse)
                if repeat:
                    assert answers == [] and mail.status == "ignored"
                    continue
                reason = (mail.parse or {}).get("reason") or mail.flagged
                assert answers or reason, (mail.kind, mail.parse)
                # never an answer to ourselves or to a daemon
                assert all(a.to_addr.lower() != BOT for a in answers)
                assert all(not a.to_addr.lower().startswith(("mailer-daemon", "postmaster")) for a in answers)
        assert self.count() == before + expected_new


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = World(tmp_path_factory.mktemp("prop"))
    yield w
    w.db.dispose()


# ------------------------------------------------------------------ strategies

SENDERS = ["anna@example.org", "Anna Albers <anna@example.org>", "bernd@example.org", "dora@example.org",
           "fremd@example.net", "MAILER-DAEMON@mx.example.org", BOT, "", "<>", "kaputt@@", "=?utf-8?q?J=C3=BCrgen?= <j@x.de>"]
SUBJECTS = ["Züge", "Re: Züge", "HILFE", "STAND", "AUSWERTUNG 1", "Prop-Rondo R1", "Prop-Mono", "ANMELDEN Prop-Mono Emil",
            "ABMELDEN", "URLAUB 24.12.-06.01.", "Unzustellbar: Re: Züge", "Undelivered Mail Returned to Sender",
            "=?UTF-8?Q?Z=C3=BCge_R2?=", "=?bogus?X?zz?=", ""]
RONDO_LINE = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz*?/ 0123456789-:", min_size=1,
                     max_size=14)
MONO_LINE = st.builds(lambda c, r, d, w, extra: f"{c}{r}{d} {w}{extra}",
                      st.sampled_from("ABCDEFGHIJKLMNOPQ"), st.integers(0, 16), st.sampled_from(["w", "s", ""]),
                      st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜabcdefghijklmnopqrstuvwxyzäöü*", min_size=1,
                              max_size=10),
                      st.sampled_from(["", " 12", " 25 Punkte", "+aderigeS", " PASSE"]))
HEADER_LINE = st.sampled_from(["Partie R1:", "Partie R2:", "R1:", "M1:", "Partie R9:", "Ersatz:", "Hauptzug:",
                               "Code: 1234", "Hallo,", "Viele Grüße", "-- ", "> Partie R1: ALT",
                               "Am 07.12.2026 um 20:15 schrieb Spielleiter <spielleiter@example.org>:",
                               "-----Ursprüngliche Nachricht-----", "---------- Forwarded message ---------",
                               "  Hauptzug: mondE", "    -> gültig: MONDE, 12 Punkte", "PASSE", "HILFE", ""])
BODY = st.lists(st.one_of(RONDO_LINE, MONO_LINE, HEADER_LINE, st.text(max_size=40)), max_size=12).map("\n".join)
CHARSETS = ["utf-8", "iso-8859-1", "windows-1252", "us-ascii", "utf-16", "x-klingon", ""]
CTES = ["8bit", "7bit", "quoted-printable", "base64", "x-uuencode", ""]


def encode_body(text: str, charset: str, cte: str, garble: bool) -> bytes:
    try:
        data = text.encode(charset or "utf-8", "replace")
    except LookupError:
        data = text.encode("utf-8")
    if cte == "quoted-printable":
        data = quopri.encodestring(data)
    elif cte == "base64":
        data = base64.encodebytes(data)
        if garble:
            data = data[: len(data) // 2] + b"!!==\n"
    return data


@st.composite
def mails(draw) -> bytes:
    """A plausible mail, then mutated in headers, charset, transfer encoding, MIME structure."""
    sender = draw(st.sampled_from(SENDERS))
    subject = draw(st.sampled_from(SUBJECTS))
    body = draw(BODY)
    charset, cte = draw(st.sampled_from(CHARSETS)), draw(st.sampled_from(CTES))
    garble = draw(st.booleans())
    mid = draw(st.one_of(st.none(), st.from_regex(r"<[a-z0-9]{1,12}@[a-z]{1,6}\.example>", fullmatch=True),
                         st.sampled_from(["kaputt", "<>", "<a@b> <c@d>"])))
    headers = [f"From: {sender}", f"To: {BOT}", f"Subject: {subject}", "Date: Mon, 07 Dec 2026 21:02:11 +0100",
               "MIME-Version: 1.0"]
    if mid is not None:
        headers.append(f"Message-ID: {mid}")
    extra = draw(st.lists(st.sampled_from([
        "Auto-Submitted: auto-replied", "Auto-Submitted: no", "Precedence: bulk", "X-Autoreply: yes",
        "Return-Path: <>", "In-Reply-To: <x@y>", "References: <a@b> <c@d", "Date: gestern",
        "From: zweiter@example.org", "Subject: =?utf-8?b?!!!?=", "Content-Type: text/html", "X-Long: " + "x" * 1200,
        "Cc: anna@example.org, <broken", "Content-Disposition: attachment"]), max_size=3))
    headers += extra
    ctype_params = f"; charset=\"{charset}\"" if charset else ""
    structure = draw(st.sampled_from(["plain", "html", "alternative", "mixed", "report", "broken-boundary",
                                      "nested", "no-ctype"]))
    payload = encode_body(body, charset, cte, garble)
    cte_h = f"Content-Transfer-Encoding: {cte}\r\n" if cte else ""
    leaf = f"Content-Type: text/plain{ctype_params}\r\n{cte_h}\r\n".encode() + payload
    html_leaf = (f"Content-Type: text/html{ctype_params}\r\n{cte_h}\r\n".encode()
                 + encode_body("<div dir=\"ltr\">" + body.replace("\n", "<br>") + "</div><blockquote>"
                               "Partie R1: ALT</blockquote>", charset, cte, garble))
    b = draw(st.sampled_from(["b1", "=_Part_0_1", "", "x" * 80, "b1\"; x=\"y"]))
    if structure == "plain":
        head_ct, content = f"Content-Type: text/plain{ctype_params}\r\n{cte_h}", payload
    elif structure == "no-ctype":
        head_ct, content = "", payload
    elif structure == "html":
        head_ct, content = "", html_leaf
    else:
        sub = {"alternative": "alternative", "mixed": "mixed", "report": "report; report-type=delivery-status",
               "broken-boundary": "mixed", "nested": "mixed"}[structure]
        parts = [leaf, html_leaf] if structure != "report" else [
            leaf, b"Content-Type: message/delivery-status\r\n\r\nFinal-Recipient: rfc822; anna@example.org\r\n"
                  b"Status: 5.1.1\r\n", b"Content-Type: message/rfc822\r\n\r\nMessage-ID: <m@x>\r\n\r\nhi\r\n"]
        if structure == "nested":
            parts = [b"Content-Type: multipart/alternative; boundary=\"inner\"\r\n\r\n--inner\r\n" + leaf
                     + b"\r\n--inner\r\n" + html_leaf + b"\r\n--inner--\r\n"]
        head_ct = f"Content-Type: multipart/{sub}; boundary=\"{b}\"\r\n"
        sep = b if structure != "broken-boundary" else b + "X"
        content = b"".join(f"--{sep}\r\n".encode() + p + b"\r\n" for p in parts)
        if structure != "broken-boundary" and draw(st.booleans()):
            content += f"--{b}--\r\n".encode()
    raw = ("\r\n".join(headers) + "\r\n").encode("utf-8", "surrogateescape") + head_ct.encode() + b"\r\n" + content
    mutation = draw(st.sampled_from(["none", "none", "truncate", "flip", "lf-only", "nul", "latin1-header"]))
    if mutation == "truncate" and len(raw) > 10:
        raw = raw[: draw(st.integers(1, len(raw) - 1))]
    elif mutation == "flip" and raw:
        i = draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + bytes([raw[i] ^ draw(st.integers(1, 255))]) + raw[i + 1:]
    elif mutation == "lf-only":
        raw = raw.replace(b"\r\n", b"\n")
    elif mutation == "nul":
        raw = raw.replace(b"\r\n\r\n", b"\r\n\x00\r\n", 1)
    elif mutation == "latin1-header":
        raw = b"X-Name: J\xfcrgen\r\n" + raw
    return raw


# ------------------------------------------------------------------ properties

@SETTINGS
@given(st.lists(st.binary(max_size=1500), min_size=1, max_size=3))
def test_random_bytes_are_stored_and_end_well(world, raws):
    world.cfg.rate_limit_per_hour = 0
    world.feed(raws)


@SETTINGS
@given(st.lists(mails(), min_size=1, max_size=3))
def test_mutated_mails_are_stored_and_end_well(world, raws):
    world.cfg.rate_limit_per_hour = 0
    world.feed(raws)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(mails(), min_size=1, max_size=4), st.integers(1, 5))
def test_with_a_rate_limit_every_mail_still_ends_well(world, raws, limit):
    world.cfg.rate_limit_per_hour = limit
    try:
        world.feed(raws)
    finally:
        world.cfg.rate_limit_per_hour = 0


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(RONDO_LINE, MONO_LINE), min_size=1, max_size=6),
       st.sampled_from(["anna@example.org", "bernd@example.org", "dora@example.org"]),
       st.sampled_from(["Züge", "Prop-Rondo", "Prop-Mono", "R2"]), st.integers())
def test_random_move_lines_from_players(world, lines, sender, subject, n):
    from bot.mail.compose import compose
    world.cfg.rate_limit_per_hour = 0
    raw = compose(sender=sender, to=BOT, subject=subject, text="Partie R1:\n" + "\n".join(lines) if n % 3 == 0
                  else "\n".join(lines), headers={"Auto-Submitted": "no", "X-N": str(n)})
    world.feed([raw])

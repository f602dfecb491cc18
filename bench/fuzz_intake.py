"""Fuzzing the intake: N mutated mails through the whole intake, in-process.

Run: ``python bench/fuzz_intake.py [N] [--seed S]`` (default N = 100000). Prints
``name: value unit`` lines; the test suite runs :func:`run` with N = 2000 and requires
0 uncaught exceptions and 0 mails ending in ``error``.

A throwaway SQLite database holds two running leagues (Rondo with personal codes and a
GM code, Monoscrabble without codes), ``[bot] authserv_id`` is set and the rate limit
is on. Each mail is one of a corpus of seed mails (submissions, replies with quotes,
HTML, attachments, forwards, commands, GM commands, bounces, auto-replies, mails with
Authentication-Results) with one to three mutations: byte flips, cuts, wrong charsets,
CRLF changes, deep nesting, huge parts, broken encoded words, header noise. Every mail
goes through :func:`bot.service.stages.store.store_raw` and
:func:`bot.service.conversations.intake.process_mail` as the poller would; the database is emptied of
mails every 500 so it stays small.

Counted: mails, ``uncaught exceptions`` (anything escaping the intake), ``error mails``
(the intake's last-resort handler caught something: a bug as well), answers to our own
address or to a mailer daemon (must be 0), the slowest mail and its mutations.

``--worst``: each worst case up to ``[bot] max_mail_bytes`` (10 MiB of short lines, one
10 MiB line, a 10 MiB base64 attachment, 32 nested parts full of empty lines, a huge
header block, a 20 MiB mail over the limit) read in a fresh process of its own:
CPU seconds (the wall clock too, which on a loaded machine is longer) and peak RSS
(target: at most 2 s and 150 MB each).
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BOT = "spielleiter@example.org"
GM = "gm@example.org"
GM_CODE = "Leiter-2718"
OUR_MX = "mx.example.org"
PLAYERS = [("Anna Albers", "anna@example.org", "anna-code"), ("Bernd Becker", "bernd@example.org", "bernd-code"),
           ("Clara Conrad", "clara@example.org", "clara-code")]
MONO = [("Anna Albers", "anna@example.org"), ("Dora Dietz", "dora@example.org")]
SENDERS = ["Anna Albers <anna@example.org>", "bernd@example.org", "clara@example.org", "dora@example.org",
           "fremd@example.net", GM, "MAILER-DAEMON@mx.example.org", BOT, "=?utf-8?q?J=C3=BCrgen?= <j@x.de>"]


def _print(name: str, value, unit: str) -> None:
    shown = f"{value:.3f}" if isinstance(value, float) else str(value)
    print(f"{name}: {shown} {unit}", flush=True)


# -- the corpus ----------------------------------------------------------------------------------

def _mail(sender: str, subject: str, body: str, *, headers: str = "", ctype: str = "text/plain; charset=utf-8",
          cte: str = "8bit", mid: str | None = None) -> bytes:
    mid = mid or f"<{random.getrandbits(48):x}@example.org>"
    head = (f"From: {sender}\r\nTo: {BOT}\r\nSubject: {subject}\r\nDate: Mon, 07 Dec 2026 21:02:11 +0100\r\n"
            f"Message-ID: {mid}\r\nMIME-Version: 1.0\r\n{headers}Content-Type: {ctype}\r\n"
            f"Content-Transfer-Encoding: {cte}\r\n\r\n")
    return head.encode("utf-8") + body.replace("\n", "\r\n").encode("utf-8")


def _multipart(sender: str, subject: str, parts: list[bytes], sub: str = "mixed", headers: str = "") -> bytes:
    b = f"=_b{random.getrandbits(32):x}"
    head = (f"From: {sender}\r\nTo: {BOT}\r\nSubject: {subject}\r\nDate: Mon, 07 Dec 2026 21:02:11 +0100\r\n"
            f"Message-ID: <{random.getrandbits(48):x}@example.org>\r\nMIME-Version: 1.0\r\n{headers}"
            f"Content-Type: multipart/{sub}; boundary=\"{b}\"\r\n\r\n")
    body = b"".join(f"--{b}\r\n".encode() + p + b"\r\n" for p in parts) + f"--{b}--\r\n".encode()
    return head.encode() + body


def _leaf(text: str, ctype: str = "text/plain; charset=utf-8", cte: str = "8bit", extra: str = "") -> bytes:
    data = text.replace("\n", "\r\n").encode("utf-8")
    if cte == "base64":
        data = base64.encodebytes(data).replace(b"\n", b"\r\n")
    return f"Content-Type: {ctype}\r\nContent-Transfer-Encoding: {cte}\r\n{extra}\r\n".encode() + data


def seeds() -> list[bytes]:
    """One of each kind of mail the bot gets."""
    rondo = "Partie R1:\nmo*NDES 24 Punkte\nErsatz: mondES\n\nPartie R2:\nFeld 2: ST*And/\n"
    mono = "H8w MUS\nErsatz: H8s RE*MUS\nPASSE\n"
    coded = f"Code: anna-code\n{rondo}"
    quote = ("Hier meine Züge:\n\nPartie R1:\nTOR\n\nAm 07.12.2026 um 20:15 schrieb Spielleiter <spielleiter@example.org>:\n"
             "> Hallo Anna,\n> Partie R1: ALT\n")
    pasted = "Partie R1:\nROT\n\nHallo Anna,\n\n  Hauptzug: mondE\n    -> gültig: MONDE, 12 Punkte\n"
    html = "<html><body><div>Partie R1:<br>TOR</div><blockquote>Partie R1: ALT</blockquote></body></html>"
    dsn = ("Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.example.org (Mail Delivery System)\r\n"
           f"To: {BOT}\r\nSubject: Undelivered Mail Returned to Sender\r\nAuto-Submitted: auto-replied\r\n"
           "Message-Id: <dsn-1@mx.example.org>\r\nMIME-Version: 1.0\r\n"
           "Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n"
           "--B\r\nContent-Type: text/plain\r\n\r\n<anna@example.org>: host said: 550 5.1.1 User unknown\r\n"
           "--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
           "Final-Recipient: rfc822; anna@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
           f"--B\r\nContent-Type: message/rfc822\r\n\r\nFrom: {BOT}\r\nTo: anna@example.org\r\n"
           "Message-ID: <0123456789abcdef0123456789abcdef.spielleiter@example.org>\r\n\r\nHallo\r\n--B--\r\n").encode()
    return [
        _mail(SENDERS[0], "Züge", rondo),
        _mail(SENDERS[0], "Züge", coded),
        _mail("dora@example.org", "Prop-Mono", mono),
        _mail("anna@example.org", "Re: Züge", quote),
        _mail("bernd@example.org", "Re: Auswertung", pasted),
        _mail("clara@example.org", "Züge", html, ctype="text/html; charset=utf-8"),
        _multipart("anna@example.org", "Züge", [_leaf(coded), _leaf(html, "text/html; charset=utf-8")], "alternative"),
        _multipart("bernd@example.org", "Züge mit Bild", [_leaf("Code: bernd-code\nPartie R1:\nTOR\n"),
                                                           _leaf("GIF89a" * 200, "image/gif", "base64",
                                                                 "Content-Disposition: attachment; filename=a.gif\r\n")]),
        _mail("anna@example.org", "Fwd: Züge", "---------- Forwarded message ---------\nFrom: x@y\nSubject: a\n\n"
              "Partie R1:\nTOR\n"),
        _mail("clara@example.org", "HILFE", ""),
        _mail("clara@example.org", "STAND", "Code: clara-code\n"),
        _mail("bernd@example.org", "AUSWERTUNG 1", "Code: bernd-code\n"),
        _mail(GM, "PAUSE Fuzz-Rondo", f"Code: {GM_CODE}\n"),
        _mail(GM, "WEITER Fuzz-Rondo", f"Code: {GM_CODE}\n"),
        _mail(GM, "ZAT Fuzz-Rondo +1d", "Code: falsch\n"),
        _mail("fremd@example.net", "Züge", "Partie R1:\nTOR\nAnna Albers\n"),
        _mail("anna@example.org", "Abwesenheit", "Ich bin nicht da.", headers="Auto-Submitted: auto-replied\r\n"),
        _mail("anna@example.org", "Urlaub", "Bin weg.", headers="X-Autoreply: yes\r\nPrecedence: bulk\r\n"),
        _mail("anna@example.org", "Züge", rondo,
              headers=f"Authentication-Results: {OUR_MX}; spf=fail smtp.mailfrom=example.org; dmarc=fail\r\n"),
        _mail("bernd@example.org", "Züge", "Partie R1:\nTOR\n",
              headers=f"Authentication-Results: {OUR_MX}; dkim=pass header.d=example.org; spf=pass\r\n"),
        _mail("anna@example.org", "=?utf-8?q?Z=C3=BCge_R2?=", "Partie R2:\nTOR\n",
              ctype="text/plain; charset=iso-8859-1", cte="quoted-printable"),
        dsn,
    ]


# -- mutations ------------------------------------------------------------------------------------

def m_flip(raw: bytes, r: random.Random) -> bytes:
    b = bytearray(raw)
    for _ in range(r.randint(1, 8)):
        i = r.randrange(len(b))
        b[i] ^= r.randint(1, 255)
    return bytes(b)


def m_cut(raw: bytes, r: random.Random) -> bytes:
    return raw[: r.randrange(1, len(raw))] if len(raw) > 1 else raw


def m_charset(raw: bytes, r: random.Random) -> bytes:
    cs = r.choice(["x-klingon", "utf-16", "utf-7", "us-ascii", "iso-2022-jp", "", "\"", "utf-8\x00"])
    out = raw.replace(b"charset=utf-8", f"charset={cs}".encode(), 1)
    if r.random() < 0.5:
        out = out.replace("ü".encode(), "ü".encode("latin-1"))
    return out


def m_crlf(raw: bytes, r: random.Random) -> bytes:
    return r.choice([lambda x: x.replace(b"\r\n", b"\n"), lambda x: x.replace(b"\r\n", b"\r"),
                     lambda x: x.replace(b"\n", b"\r\n"), lambda x: x.replace(b"\r\n\r\n", b"\r\n \r\n", 1)])(raw)


def m_nest(raw: bytes, r: random.Random) -> bytes:
    depth = r.choice([5, 20, 33, 100, 1500, 5000])
    head = (f"From: anna@example.org\r\nTo: {BOT}\r\nSubject: tief\r\nMIME-Version: 1.0\r\n"
            "Content-Type: multipart/mixed; boundary=\"n0\"\r\n\r\n")
    s = "".join(f"--n{i}\r\nContent-Type: multipart/mixed; boundary=\"n{i + 1}\"\r\n\r\n" for i in range(depth))
    if r.random() < 0.5:
        s = s.replace("multipart/mixed", "message/rfc822", depth // 2)
    tail = "".join(f"--n{i}--\r\n" for i in reversed(range(depth)))
    return head.encode() + s.encode() + raw + tail.encode()


def m_huge(raw: bytes, r: random.Random) -> bytes:
    size = r.choice([300_000, 1_000_000, 3_000_000])
    kind = r.choice(["lines", "line", "base64", "blank"])
    if kind == "lines":
        blob = b"ab\r\n" * (size // 4)
    elif kind == "line":
        blob = b"x" * size
    elif kind == "blank":
        blob = b"\r\n" * (size // 2)
    else:
        blob = base64.encodebytes(os.urandom(size * 3 // 4)).replace(b"\n", b"\r\n")
    if r.random() < 0.5:  # a huge part before the text
        return _multipart("anna@example.org", "Züge", [b"Content-Type: application/octet-stream\r\n"
                                                        b"Content-Transfer-Encoding: base64\r\n\r\n" + blob,
                                                        _leaf("Partie R1:\nTOR\n")])
    return raw + b"\r\n" + blob


def m_encoded_word(raw: bytes, r: random.Random) -> bytes:
    bad = r.choice(["=?utf-8?q?Z=C3=BC", "=?bogus?X?zz?=", "=?utf-8?b?!!!?=", "=?=?=?utf-8?q??=?=",
                    "=?utf-8?q?" + "=C3" * 500 + "?=", "=?iso-8859-1?q?=FC=FC?==?utf-8?b?w7w=?="])
    return raw.replace(b"Subject: ", f"Subject: {bad} ".encode(), 1).replace(
        b"From: ", f"From: {bad} ".encode(), 1 if r.random() < 0.3 else 0)


def m_headers(raw: bytes, r: random.Random) -> bytes:
    noise = r.choice([b"X-Long: " + b"y" * 100_000 + b"\r\n", b"X-Many: a\r\n" * 3000,
                      b"Received: from x by y; gestern\r\n", b"From: zweiter@example.org\r\n",
                      b"Authentication-Results: " + OUR_MX.encode() + b"; ;;==\r\n",
                      b"Message-ID: <fuzz-reuse@example.org>\r\n", b"Content-Type: multipart/report\r\n",
                      b"X-Name: J\xfcrgen\r\n", b"\x00\x00\r\n", b"Subject: " + b"\xff" * 50 + b"\r\n"])
    return noise + raw


MUTATIONS = {"flip": m_flip, "cut": m_cut, "charset": m_charset, "crlf": m_crlf, "nest": m_nest, "huge": m_huge,
             "encoded-word": m_encoded_word, "headers": m_headers}
WEIGHTS = {"flip": 20, "cut": 10, "charset": 12, "crlf": 10, "nest": 3, "huge": 1, "encoded-word": 12, "headers": 10}


def mutate(raw: bytes, r: random.Random) -> tuple[bytes, list[str]]:
    names = r.choices(list(WEIGHTS), weights=list(WEIGHTS.values()), k=r.randint(1, 3))
    for name in names:
        raw = MUTATIONS[name](raw, r) or raw
    return raw, names


# -- the world --------------------------------------------------------------------------------------

def make_world(tmp: Path):
    from bot.config import embedded
    from bot.service.operations.league import create_league, read_league_file
    from bot.storage.db import Database
    cfg = embedded(tmp / "var")
    cfg.sender = f"Spielleiter <{BOT}>"
    cfg.authserv_id = OUR_MX
    db = Database(cfg.database_url)
    db.migrate()

    from sqlalchemy import event

    @event.listens_for(db.engine, "connect")
    def _fast(dbapi_conn, _rec):  # a throwaway database: no fsync
        dbapi_conn.execute("PRAGMA synchronous=OFF")
    db.engine.dispose()
    rondo = tmp / "rondo.toml"
    lines = ['name = "Fuzz-Rondo"', 'game = "rondo"', 'partien = ["R1", "R2"]', "rounds = 20",
             'first_zat = "2099-12-06T20:00:00+01:00"', "seed = 1", "require_code = true", f'gm_email = "{GM}"',
             f'gm_code = "{GM_CODE}"', ""]
    for name, addr, code in PLAYERS:
        lines += ["[[players]]", f'name = "{name}"', f'email = "{addr}"', f'code = "{code}"', ""]
    rondo.write_text("\n".join(lines), encoding="utf-8")
    mono = tmp / "mono.toml"
    lines = ['name = "Prop-Mono"', 'game = "monoscrabble"', 'partien = ["M1"]', "rounds = 20",
             'first_zat = "2099-12-06T20:00:00+01:00"', "seed = 1", ""]
    for name, addr in MONO:
        lines += ["[[players]]", f'name = "{name}"', f'email = "{addr}"', ""]
    mono.write_text("\n".join(lines), encoding="utf-8")
    with db.session() as s:
        create_league(s, read_league_file(rondo), cfg)
        create_league(s, read_league_file(mono), cfg)
    return db, cfg


def _prune(db) -> None:
    from sqlalchemy import delete, update
    from bot.storage.models import InboundMail, OutboxMail, Submission, SubmissionMove
    with db.session() as s:
        s.execute(update(Submission).values(superseded_by=None))
        s.execute(delete(SubmissionMove))
        s.execute(delete(Submission))
        s.execute(delete(OutboxMail).where(OutboxMail.kind.not_in(["start", "auswertung"])))
        s.execute(update(InboundMail).values(player_id=None, league_id=None))
        s.execute(delete(InboundMail))


def run(n: int, seed: int = 1, *, out=print, keep: str | None = None) -> dict:
    """Feed ``n`` mutated mails through the intake; returns the figures (also printed
    through ``out`` as ``name: value unit`` lines when ``out`` is not None)."""
    import logging
    from sqlalchemy import select
    from bot.service.conversations.intake import process_mail
    from bot.service.stages.store import store_raw
    from bot.storage.models import InboundMail, OutboxMail
    logging.disable(logging.CRITICAL)  # the last-resort handler logs every error; we count them
    r = random.Random(seed)
    random.seed(seed)
    corpus = seeds()
    uncaught, errors, bad_answers, stored = [], [], [], 0
    slowest = (0.0, "", 0, 0.0)
    slowest_raw = b""
    t_all = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        db, cfg = make_world(Path(tmp))
        try:
            for i in range(n):
                raw, names = mutate(r.choice(corpus), r)
                t0, c0 = time.perf_counter(), time.process_time()
                try:
                    with db.session() as s:
                        last_out = s.scalar(select(OutboxMail.id).order_by(OutboxMail.id.desc()).limit(1)) or 0
                    mail_id, new = store_raw(db, raw, source="fuzz", max_bytes=cfg.max_mail_bytes)
                    status = process_mail(db, cfg, mail_id) if new else "duplicate"
                    stored += new
                except Exception:
                    uncaught.append((names, traceback.format_exc(limit=8)))
                    continue
                # CPU seconds: the wall clock of one mail on a shared machine is mostly
                # other people's work (the wall time is kept beside it)
                dt, wall = time.process_time() - c0, time.perf_counter() - t0
                if dt > slowest[0]:
                    slowest, slowest_raw = (dt, "+".join(names), len(raw), wall), raw
                if status == "error":
                    with db.session() as s:
                        errors.append((names, (s.get(InboundMail, mail_id).error or "")[:2000]))
                with db.session() as s:
                    for row in s.scalars(select(OutboxMail).where(OutboxMail.id > last_out)):
                        to = row.to_addr.lower()
                        if to == BOT or to.startswith(("mailer-daemon", "postmaster")):
                            bad_answers.append((names, to))
                if (i + 1) % 500 == 0:
                    _prune(db)
                if out is not None and (i + 1) % 2_000 == 0 and i + 1 < n:
                    print(f"# {i + 1} mails: {len(uncaught)} uncaught, {len(errors)} errors, slowest "
                          f"{slowest[0]:.3f} s CPU ({slowest[1]}), {time.perf_counter() - t_all:.0f} s", flush=True)
        finally:
            db.dispose()
    res = {"mails": n, "stored": stored, "uncaught": len(uncaught), "errors": len(errors),
           "bad_answers": len(bad_answers), "slowest_s": slowest[0], "slowest_what": slowest[1],
           "slowest_bytes": slowest[2], "slowest_wall_s": slowest[3], "total_s": time.perf_counter() - t_all,
           "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "uncaught_samples": uncaught[:3], "error_samples": errors[:3], "slowest_raw": slowest_raw}
    if out is not None:
        _print("fuzz mails", n, "mails")
        _print("fuzz stored", stored, "mails")
        _print("fuzz uncaught exceptions", len(uncaught), "exceptions")
        _print("fuzz error mails", len(errors), "mails")
        _print("fuzz answers to ourselves or a daemon", len(bad_answers), "mails")
        _print("fuzz slowest mail", slowest[0], f"s CPU ({slowest[3]:.3f} s wall; {slowest[1]}, {slowest[2]} bytes)")
        if keep:
            Path(keep).write_bytes(slowest_raw)
        _print("fuzz mean per mail", res["total_s"] / max(n, 1) * 1000, "ms")
        _print("fuzz peak RSS", round(res["rss_mb"]), "MB")
        for names, tb in (uncaught[:3] + errors[:3]):
            print(f"# {'+'.join(names)}:\n{tb}", file=sys.stderr)
    return res


# -- worst cases, each in a fresh process ----------------------------------------------------------

def worst_mail(kind: str, limit: int) -> bytes:
    head = (f"From: Anna Albers <anna@example.org>\r\nTo: {BOT}\r\nSubject: Züge Fuzz-Rondo\r\n"
            "Message-ID: <worst@example.org>\r\nMIME-Version: 1.0\r\n")
    room = limit - 4096
    if kind == "short-lines":
        return (head + "Content-Type: text/plain; charset=utf-8\r\n\r\nCode: anna-code\r\nPartie R1:\r\nTOR\r\n").encode() + \
            b"a\r\n" * (room // 3)
    if kind == "one-line":
        return (head + "Content-Type: text/plain; charset=utf-8\r\n\r\nCode: anna-code\r\nPartie R1:\r\nTOR\r\n").encode() + b"x" * room
    if kind == "attachment":
        blob = base64.encodebytes(os.urandom(room * 3 // 4 * 76 // 78 - 1000)).replace(b"\n", b"\r\n")
        return head.encode() + b"Content-Type: multipart/mixed; boundary=\"W\"\r\n\r\n--W\r\n" + _leaf(
            "Code: anna-code\nPartie R1:\nTOR\n") + b"\r\n--W\r\nContent-Type: image/jpeg\r\nContent-Transfer-Encoding: base64\r\n\r\n" \
            + blob + b"\r\n--W--\r\n"
    if kind == "nested-blank":
        depth = 32
        s = "".join(f"--n{i}\r\nContent-Type: multipart/mixed; boundary=\"n{i + 1}\"\r\n\r\n" for i in range(depth))
        s += f"--n{depth}\r\nContent-Type: text/plain\r\n\r\nCode: anna-code\r\nPartie R1:\r\nTOR\r\n"
        body = s.encode() + b"\r\n" * ((room - len(s)) // 2)
        return (head + "Content-Type: multipart/mixed; boundary=\"n0\"\r\n\r\n").encode() + body
    if kind == "html-blank-lines":  # html2text's escapes were quadratic over blank lines
        return (head + "Content-Type: text/html; charset=utf-8\r\n\r\n<p>Code: anna-code<br>Partie R1:<br>TOR</p>"
                "<p>").encode() + b" \r\n" * (room // 3) + b"</p>"
    if kind == "huge-header":
        return head.encode() + b"X-Noise: a\r\n" * (room // 12) + b"\r\nCode: anna-code\r\nPartie R1:\r\nTOR\r\n"
    if kind == "over-limit":  # joined from one shared 37 KB block: no second 20 MB copy while building it
        block = b"Zeile ohne Bedeutung, immer wieder.\r\n" * 1000
        return b"".join([(head + "Content-Type: text/plain; charset=utf-8\r\n\r\nPartie R1:\r\nTOR\r\n").encode()]
                        + [block] * (2 * limit // len(block)))
    raise ValueError(kind)


WORST = ("short-lines", "one-line", "attachment", "nested-blank", "html-blank-lines", "huge-header", "over-limit")


def _one_worst(kind: str) -> None:
    """In a fresh process: read one worst-case mail; print seconds and peak RSS."""
    from bot.service.conversations.intake import process_mail
    from bot.service.stages.store import store_raw
    with tempfile.TemporaryDirectory() as tmp:
        db, cfg = make_world(Path(tmp))
        raw = worst_mail(kind, cfg.max_mail_bytes)
        t0, c0 = time.perf_counter(), time.process_time()
        mail_id, _ = store_raw(db, raw, source="fuzz", max_bytes=cfg.max_mail_bytes)
        status = process_mail(db, cfg, mail_id)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        db.dispose()
    print(f"{dt:.3f} {cpu:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} {status} {len(raw)}")


def worst() -> None:
    for kind in WORST:
        res = subprocess.run([sys.executable, __file__, "--one-worst", kind], capture_output=True, text=True,
                             check=True)
        dt, cpu, rss, status, size = res.stdout.split()
        _print(f"worst {kind} ({int(size) // 1024} KB, {status}) read in", float(cpu), "s CPU")
        _print(f"worst {kind} wall clock", float(dt), "s")
        _print(f"worst {kind} peak RSS", int(rss), "MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep-slowest", metavar="FILE", help="write the slowest mail there (to profile it)")
    ap.add_argument("--no-worst", action="store_true", help="only the fuzzing, not the worst cases")
    ap.add_argument("--worst", action="store_true", help="only the worst cases, each in a fresh process")
    ap.add_argument("--one-worst", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_worst:
        return _one_worst(args.one_worst)
    if args.worst:
        return worst()
    run(args.n, args.seed, keep=args.keep_slowest)
    if not args.no_worst:
        worst()


if __name__ == "__main__":
    main()

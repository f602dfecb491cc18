"""A big Rondo league and realistic player mails for the benchmarks (``bench/ingest.py``,
``bench/adjudicate.py``). Not a benchmark itself.

The league: P players (``Spieler 001`` ... at ``s001@liga.invalid``), 3 Partien
(R1, R2, R3), SQLite and a Maildir in a work folder (the embedded default), the first
ZAT a week ahead. The mails are what players write: for every Partie a ``Partie Rn:``
line, the main move and Ersatzzuege (moves of the round's real positions, found by the
move generator: good ones, weaker ones, now and then a typo), greeting and closing, as

- ``plain``: text/plain, UTF-8 quoted-printable, Thunderbird style;
- ``html``: multipart/alternative whose HTML part carries the moves in ``<div>``/``<br>``
  and whose text part is what a webmailer makes of it (both are read by the bot: the
  text part is preferred, as in every mail client);
- ``reply``: a reply to the bot's start mail, moves on top, then an
  ``Am ... schrieb ...:`` header and the whole start mail quoted with ``>``.

Every mail carries a ``Received:`` header of our server dated before the ZAT.
"""

from __future__ import annotations

import random
import sys
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PARTIEN = ["R1", "R2", "R3"]
LEAGUE = "Big"
KINDS = ("plain", "html", "reply")
_FIRST = ["Anna", "Bernd", "Clara", "Dieter", "Eva", "Frank", "Gisela", "Hans", "Ilse", "Jörg", "Karin",
          "Lothar", "Monika", "Norbert", "Oskar", "Petra", "Rüdiger", "Sabine", "Thomas", "Ute", "Volker",
          "Waltraud"]
_LAST = ["Albers", "Becker", "Conrad", "Dahl", "Engel", "Fischer", "Grüner", "Hoffmann", "Iske", "Jansen",
         "Krüger", "Lange", "Möller", "Neumann", "Otto", "Peters", "Quast", "Richter", "Schäfer", "Többen"]


def player_name(i: int) -> str:
    return f"{_FIRST[i % len(_FIRST)]} {_LAST[(i // len(_FIRST)) % len(_LAST)]} {i:03d}"


def player_addr(i: int) -> str:
    return f"s{i:03d}@liga.invalid"


def partien_of(game: str) -> list[str]:
    """The Partien of the benchmark league: three for Rondo, one for Monoscrabble."""
    return list(PARTIEN) if game == "rondo" else ["M1"]


def league_spec(players: int, *, gm: bool = True, game: str = "rondo") -> dict[str, Any]:
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0)
    spec = {"name": LEAGUE, "game": game, "partien": partien_of(game), "rounds": 20, "seed": "bench",
            "first_zat": first.isoformat(), "zat_interval_days": 7,
            "players": [{"name": player_name(i), "email": player_addr(i)} for i in range(1, players + 1)]}
    if gm:
        spec["gm_email"] = "gm@liga.invalid"
    return spec


def make_league(work: Path, players: int, *, url: str | None = None, rate_limit: int = 0, game: str = "rondo"):
    """Create the league in ``work`` (SQLite + Maildir); returns ``(db, cfg)``. The start
    mails are delivered into the Maildir outbox and then cleared, so a benchmark starts
    with an empty outbox. ``rate_limit``: ``[bot] rate_limit_per_hour`` (0: none)."""
    from bot.config import embedded
    from bot.mail.maildir import MaildirTransport
    from bot.service.operations.league import create_league
    from bot.service.stages.outbox import deliver
    from bot.storage.db import Database

    cfg = embedded(work)
    if url:
        cfg.database_url = url
    cfg.sender = "Spielleiter <spielleiter@liga.invalid>"
    cfg.rate_limit_per_hour = rate_limit
    db = Database(cfg.database_url)
    db.migrate()
    with db.session() as s:
        create_league(s, league_spec(players, game=game), cfg)
    md = MaildirTransport(cfg.maildir)
    deliver(db, md, cfg)
    md.outbox.clear()
    return db, cfg


def ranked_moves(db, cfg) -> dict[str, list[tuple[str, int]]]:
    """Per Partie every valid move of the open round as (notation, score), best first."""
    from sqlalchemy import select

    from bot.games import get_game
    from bot.service.domain.league import league_lexicon
    from bot.storage.models import League, Partie

    with db.session() as s:
        league = s.scalar(select(League).where(League.name == LEAGUE))
        lexicon = league_lexicon(league, cfg)
        out = {}
        for p in s.scalars(select(Partie).where(Partie.league_id == league.id).order_by(Partie.id)):
            if league.game == "rondo":
                from bot.games.rondo.engine import best_moves
                from bot.games.rondo.game import position_of
                pos = position_of(p.state)
                out[p.name] = [(o.notation(pos), o.score) for o in best_moves(pos, lexicon, None)]  # type: ignore[misc]
            else:
                from bot.games.monoscrabble.movegen import generate
                game = get_game(league.game)
                board = p.state["board"]
                moves = sorted(generate(board, p.state["rack"], lexicon), key=lambda m: (-m.score, m.row, m.col))
                out[p.name] = [(game.gen_notation(m, board), m.score) for m in moves[:60]]  # type: ignore[attr-defined]
        return out


def start_mail_text(db, i: int) -> str:
    """The text of player ``i``'s start mail (quoted in a reply)."""
    import email
    from email import policy
    from sqlalchemy import select

    from bot.storage.models import OutboxMail

    with db.session() as s:
        raw = s.scalar(select(OutboxMail.raw).where(OutboxMail.kind == "start", OutboxMail.to_addr == player_addr(i)))
    msg = email.message_from_bytes(raw, policy=policy.default)
    return msg.get_body(preferencelist=("plain",)).get_content()


def _move_lines(ranked: list[tuple[str, int]], rng: random.Random, ersatz: int) -> list[str]:
    """Main move and ``ersatz`` Ersatzzuege, as a player would pick them."""
    if not ranked:
        return ["PASSE"]
    top = ranked[:40]
    pick = rng.randrange(len(top))
    lines = []
    for k in range(ersatz + 1):
        note, score = top[min(len(top) - 1, pick + k)]
        if rng.random() < 0.6:  # the player's own count, as people write it
            note += rng.choice([f" {score} Punkte", f" {score}", f" {score} P.", f" = {score} Pkt.", f" {score}P"])
        lines.append(note)
    if rng.random() < 0.15:  # a typo in the main move's word: an Ersatzzug must count
        word = max((t for t in lines[0].split() if t[-1].isalpha() and t != "Punkte"), key=len)
        lines[0] = lines[0].replace(word, word[:-1] + ("Q" if word[-1] != "Q" else "X"), 1)
    return lines


def mail(i: int, kind: str, ranked: dict[str, list[tuple[str, int]]], rng: random.Random, *,
         ersatz: int = 1, when: datetime, quoted: str = "", bot: str = "spielleiter@liga.invalid") -> bytes:
    """One realistic submission mail of player ``i`` for all Partien (see module docstring)."""
    name = player_name(i)
    first = name.split()[0]
    lines = ["Hallo Spielleiter,", "", "hier meine Züge:", ""]
    for partie in ranked:
        moves = _move_lines(ranked[partie], rng, ersatz)
        lines.append(f"Partie {partie}:")
        lines.append(moves[0])
        lines.extend(f"Ersatz: {m}" for m in moves[1:])
        lines.append("")
    lines += ["Viele Grüße", first]
    msg = EmailMessage()
    msg["Received"] = (f"from mail.provider.invalid (mail.provider.invalid [192.0.2.7]) by mx.liga.invalid "
                       f"with ESMTPS id 4Xy{i:05d}; {format_datetime(when)}")
    msg["From"] = f"{name} <{player_addr(i)}>"
    msg["To"] = f"Spielleiter <{bot}>"
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = make_msgid(domain="provider.invalid")
    msg["User-Agent"] = "Mozilla Thunderbird"
    if kind == "reply":
        msg["Subject"] = f"Re: {LEAGUE}: Spielbeginn"
        msg["In-Reply-To"] = f"<start.{i}@liga.invalid>"
        stamp = when.strftime("%d.%m.%Y um %H:%M")
        body = "\n".join(lines) + f"\n\nAm {stamp} schrieb Spielleiter <{bot}>:\n" + "\n".join(
            "> " + ln if ln else ">" for ln in quoted.splitlines()) + "\n"
        msg.set_content(body, charset="utf-8", cte="quoted-printable")
    elif kind == "html":
        msg["Subject"] = f"{LEAGUE}: meine Züge"
        text = "\n".join(lines) + "\n"
        html = ('<html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8"></head>'
                '<body><div dir="ltr">' + "".join(f"<div>{ln or '<br>'}</div>" for ln in lines)
                + "</div></body></html>")
        msg.set_content(text, charset="utf-8", cte="quoted-printable")
        msg.add_alternative(html, subtype="html", charset="utf-8", cte="quoted-printable")
    else:
        msg["Subject"] = f"{LEAGUE}: Züge"
        msg.set_content("\n".join(lines) + "\n", charset="utf-8", cte="quoted-printable")
    return msg.as_bytes(policy=SMTP)


def make_mails(db, cfg, players: int, n: int, *, ersatz: int = 1, seed: int = 1) -> list[bytes]:
    """``n`` submission mails of players 1..``players`` in turn (plain, html and reply in
    turn), dated in the hour before now."""
    rng = random.Random(seed)
    ranked = ranked_moves(db, cfg)
    quoted = {}
    now = datetime.now(timezone.utc)
    out = []
    for k in range(n):
        i = k % players + 1
        kind = KINDS[k % len(KINDS)]
        if kind == "reply" and i not in quoted:
            quoted[i] = start_mail_text(db, i)
        when = now - timedelta(seconds=3600 - 3600 * k / max(1, n))
        out.append(mail(i, kind, ranked, rng, ersatz=ersatz, when=when, quoted=quoted.get(i, "")))
    return out


def db_bytes(cfg) -> int:
    """Size of the SQLite database (main file and WAL) after a checkpoint."""
    import sqlite3

    path = Path(cfg.database_url[len("sqlite:///"):])
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def emit(name: str, value: float, unit: str) -> None:
    """One ``name: value unit`` line."""
    if isinstance(value, int) or float(value).is_integer() or abs(value) >= 100:
        shown = f"{value:.0f}"
    elif abs(value) >= 1:
        shown = f"{value:.2f}"
    else:
        shown = f"{value:.3f}"
    print(f"{name}: {shown} {unit}", flush=True)

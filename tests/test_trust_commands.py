"""Issue 31 (trust): every command answers, and a repeated mail is answered once.

- Attack 8: ``STAND`` in a running Typ-Dom, Presto or "Wer behält recht?" league failed
  while the situation line was rendered without a player (``'None' has no attribute
  'seat'``) and the player was told the mail could not be read.
- The command matrix: every player command and its aliases, with good and bad arguments,
  from every kind of sender (the player on turn, one out of turn, one who dropped out or
  was removed, a stranger), in every game and variant, before the first ZAT, mid-game
  and after the end: nothing raises, and every mail gets a real answer (a mail in reply
  to it that is not the "could not be read" text). Seeded random over the matrix.
- An autoresponder without ``Auto-Submitted`` that sends the same mail over and over is
  answered once an hour (docs/development/privacy.md, "Loops"); every mail is stored
  raw and the GM sees the repeats as ignored.

All through the embedded service (SQLite, Maildir): the mails are delivered to the
Maildir and read by the service's poll.
"""

from __future__ import annotations

import email
import email.policy
import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.games import get_game
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league
from bot.service.operations.runner import poll_inbox
from bot.service.stages.rounds import adjudicate_league
from bot.storage.db import Database
from bot.storage.models import InboundMail, League, OutboxMail, Partie, Player
from tests.helpers import player_mail

#: what a player is told when reading their mail failed (bot.service.stages.intake._tell_failed)
FAILED = "deine Mail konnte ich nicht lesen"

#: Every game and variant: name -> (game key, league options, players).
GAMES: dict[str, tuple[str, dict, int]] = {
    "rondo": ("rondo", {}, 3),
    "monoscrabble": ("monoscrabble", {}, 3),
    "crossword": ("crossword", {}, 3),
    "typdom-kreuzwort": ("typdom", {"variant": "kreuzwort"}, 3),
    "typdom-point": ("typdom", {"variant": "point"}, 3),
    "typdom-presto": ("typdom-presto", {}, 4),
    "typdom-wbr": ("typdom-wbr", {}, 3),
    "rondonl-de": ("rondonl", {"dictionary": "de", "language": "de"}, 3),
    "rondonl-nl": ("rondonl", {"language": "nl"}, 3),
}


@dataclass
class League_:
    """One league of the matrix: its database, config, Maildir and players' addresses."""

    name: str
    game: str
    db: Database
    cfg: object
    md: MaildirTransport
    players: list[str]


def _league(tmp_path, kind: str, *, rounds: int = 2) -> League_:
    key, options, n = GAMES[kind]
    cfg = embedded(tmp_path / kind)
    cfg.sender = "Spielleiter <spielleiter@trust.invalid>"
    cfg.rate_limit_per_hour = 0  # the matrix mails much more than a player would
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    players = [f"p{i}@trust.invalid" for i in range(n)]
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0).isoformat()
    opts = dict(options)
    spec = {"name": f"T-{kind}", "game": key, "partien": ["P1"], "seed": "3", "first_zat": first,
            "zat_interval_days": 7, "gm_email": "gm@trust.invalid", "review": False, "require_code": False,
            "players": [{"name": f"Spieler {chr(65 + i)}", "email": e} for i, e in enumerate(players)]}
    if "language" in opts:
        spec["language"] = opts.pop("language")
    spec["options"] = opts
    if not get_game(key).fixed_rounds:
        spec["rounds"] = rounds
    with db.session() as s:
        create_league(s, spec, cfg)
    return League_(spec["name"], key, db, cfg, md, players)


def _answers(lg: League_, mails: list[tuple[str, str, bytes]]) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """Deliver ``mails`` (sender, subject, raw), read them with the service's poll; returns
    Message-ID -> (status of the stored mail and its error, [(to, text) of every outbox
    mail in reply to it])."""
    with lg.db.session() as s:
        last = s.scalar(select(OutboxMail.id).order_by(OutboxMail.id.desc()).limit(1)) or 0
        seen = s.scalar(select(InboundMail.id).order_by(InboundMail.id.desc()).limit(1)) or 0
    for _, _, raw in mails:
        lg.md.deliver_to_inbox(raw)
    poll_inbox(lg.db, lg.cfg)
    replies: dict[str, list[tuple[str, str]]] = defaultdict(list)
    out: dict[str, tuple[str, list]] = {}
    with lg.db.session() as s:
        for row in s.scalars(select(OutboxMail).where(OutboxMail.id > last)):
            msg = email.message_from_bytes(row.raw, policy=email.policy.default)
            replies[str(msg["In-Reply-To"] or "")].append((row.to_addr, msg.get_body(("plain",)).get_content()))
        for m in s.scalars(select(InboundMail).where(InboundMail.id > seen)):
            out[m.message_id] = (f"{m.status} {m.error or ''}".strip(), replies.get(m.message_id, []))
    return out


def _ask(lg: League_, sender: str, subject: str, body: str = "") -> tuple[str, list[tuple[str, str]]]:
    raw = player_mail(sender, body or "Gruß", subject=subject)
    mid = str(email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"])
    return _answers(lg, [(sender, subject, raw)])[mid]


# -- attack 8: STAND in the Typ-Dom leagues -----------------------------------------------------

@pytest.mark.parametrize("kind", ["typdom-kreuzwort", "typdom-point", "typdom-presto", "typdom-wbr"])
def test_stand_answers_in_every_typdom_league(tmp_path, kind):
    """Attack 8: ``STAND`` from a player of a running Typ-Dom, Presto or "Wer behält
    recht?" league is answered with the standings and where the Partie stands, never
    with "could not be read"; nobody's rack is in it."""
    lg = _league(tmp_path, kind)
    status, replies = _ask(lg, lg.players[0], "STAND")
    assert status == "processed", status
    assert len(replies) == 1, replies
    to, text = replies[0]
    flat = " ".join(text.split())
    assert to == lg.players[0] and FAILED not in text
    assert f"Wertung {lg.name}" in flat and "Spieler A" in flat and "Partie P1:" in flat
    with lg.db.session() as s:
        state = s.scalars(select(Partie)).one().state
    for rack in state.get("racks", {}).values():  # the situation line shows no rack
        assert f"Bank: {rack}" not in flat and f"Satz: {rack}" not in flat
    lg.db.dispose()

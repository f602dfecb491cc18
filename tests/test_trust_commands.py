"""Issue 31 (trust): every command answers, and a repeated mail is answered once.

- Attack 8: ``STAND`` in a running Typ-Dom, Presto or "Wer behält recht?" league failed
  while the situation line was rendered without a player (``'None' has no attribute
  'seat'``) and the player was told the mail could not be read.
- The command matrix: every player command and its aliases, with good and bad arguments,
  from every kind of sender (the player on turn, one out of turn, one who dropped out or
  was removed, the league's GM, a stranger), in every game and variant, before the first
  ZAT, mid-game and after the end: nothing raises, and every mail gets a real answer (a
  mail in reply to it that is not the "could not be read" text, and no player or GM is
  told their address is unknown). Seeded random over the matrix.
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
from bot.i18n import tr
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league
from bot.service.operations.runner import poll_inbox
from bot.service.stages.rounds import adjudicate_league
from bot.storage.db import Database
from bot.storage.models import InboundMail, League, OutboxMail, Partie, Player
from tests.helpers import player_mail

#: what a player is told when reading their mail failed (bot.service.conversations.intake._tell_failed)
FAILED = "deine Mail konnte ich nicht lesen"

#: what a stranger is told (bot.i18n "unknown_sender"), German and Dutch, its first words
UNKNOWN = [" ".join(tr(lang, "unknown_sender").split())[:40] for lang in ("de", "nl")]


def _flat(text: str) -> str:
    return " ".join(text.split())


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


def _league(tmp_path, kind: str, *, rounds: int = 2, db_url: str | None = None) -> League_:
    """A league of ``kind`` (a key of :data:`GAMES`) through the embedded service (on
    ``db_url``, default SQLite), first ZAT in a week; its start mails queued."""
    key, options, n = GAMES[kind]
    cfg = embedded(tmp_path / kind)
    if db_url:
        cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@trust.invalid>"
    cfg.rate_limit_per_hour = 0  # the matrix mails much more than a player would
    cfg.read_workers = 1  # read in-process (the same results; the machine is shared)
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


# -- the command matrix -----------------------------------------------------------------------

#: Every player command, each alias, with good, bad and missing arguments (``{n}``: a
#: round played, ``{k}``: a number of its own, for a fresh address).
COMMANDS = ["STAND", "STANDINGS", "Re: STAND",
            "AUSWERTUNG", "AUSWERTUNG 0", "AUSWERTUNG {n}", "AUSWERTUNG {n} ALLE", "AUSWERTUNG 99",
            "AUSWERTUNG 99 ALLE", "AUSWERTUNG zwei", "REPORT {n}", "REPORT {n} all", "UITSLAG {n} alles", "UITSLAG",
            "HILFE", "HELP", "hilfe!",
            "URLAUB", "URLAUB 24.12.-06.01.", "URLAUB 24.12.2026-06.01.2027", "URLAUB ENDE", "URLAUB 31.02.-01.03.",
            "URLAUB 10.01.2027-01.01.2027", "HOLIDAY 1.2.-3.2.", "VACATION end", "VAKANTIE 1.2. bis 3.2.",
            "VAKANTIE einde",
            "ADRESSE", "ADRESSE neu{k}@trust.invalid", "ADRESSE keine-adresse", "ADDRESS zweit{k}@trust.invalid",
            "ADRES", "ADRESSE p1@trust.invalid",
            "ANMELDEN", "ANMELDEN {league} Neu {k}", "JOIN", "AANMELDEN {league}",
            "ABMELDEN", "LEAVE", "AFMELDEN"]

#: The senders: the player on turn, a player out of turn, one out of the game, the
#: league's GM (no player), a stranger.
ROLES = ("mover", "waiting", "out", "gm", "stranger")


def _roles(lg: League_, state: dict, out: str | None) -> dict[str, str]:
    """Role -> sender address in ``lg`` now: the player on turn, one who waits (or another
    player when all move at once), one out of the game (``out``; before anyone is, one who
    waits), the GM and a stranger."""
    game = get_game(lg.game)
    with lg.db.session() as s:
        by_key = {str(p.id): p.email for p in s.scalars(select(Player)) if p.active}
    movers = game.movers(state)
    on = [e for k, e in by_key.items() if movers is None or k in movers]
    off = [e for k, e in by_key.items() if movers is not None and k not in movers]
    mover = on[0] if on else lg.players[0]
    waiting = (off or [e for e in by_key.values() if e != mover] or [mover])[0]
    return {"mover": mover, "waiting": waiting, "out": out or waiting, "gm": "gm@trust.invalid",
            "stranger": "fremd@trust.invalid"}


def _matrix_state(lg: League_, stage: str, rng: random.Random, out: str | None, problems: list[str]) -> int:
    """Every command of :data:`COMMANDS` once from a sender of a random role, plus as many
    again at random, in ``lg`` at ``stage``; appends each mail without a real answer to
    ``problems``. Returns how many mails were sent."""
    with lg.db.session() as s:
        partie = s.scalars(select(Partie)).one()
        state = dict(partie.state)
        league = s.scalars(select(League)).one()
        played = sum(1 for r in league.rounds_ if r.status == "adjudicated")
    roles = _roles(lg, state, out)
    picks = [(c, rng.choice(ROLES)) for c in COMMANDS] + [(rng.choice(COMMANDS), rng.choice(ROLES))
                                                         for _ in range(len(COMMANDS) // 2)]
    mails = []
    for i, (cmd, role) in enumerate(picks):
        k = rng.randrange(10**6)
        subject = cmd.format(n=rng.choice([1, 2, max(1, played)]), k=k, league=lg.name)
        sender = roles[role]
        raw = player_mail(sender, f"Gruß ({stage} {i} {k})", subject=subject)
        mails.append((sender, subject, raw, role))
    got = _answers(lg, [(s_, subj, raw) for s_, subj, raw, _ in mails])
    for sender, subject, raw, role in mails:
        mid = str(email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"])
        status, replies = got[mid]
        what = f"{lg.name} {stage}: {subject!r} from {role} {sender}"
        if status.startswith("error"):
            problems.append(f"{what}: {status.splitlines()[0]}")
        elif not replies:
            problems.append(f"{what}: no answer ({status})")
        elif any(FAILED in text for _, text in replies):
            problems.append(f"{what}: answered 'could not be read'")
        elif role != "stranger" and any(_flat(text).find(u) >= 0 for _, text in replies for u in UNKNOWN):
            problems.append(f"{what}: a player (or former one) told the address is unknown")
    return len(mails)


def _drop_out(lg: League_) -> str:
    """Put a player out of the game: in "Wer behält recht?" one who waits drops out (as
    the author of a word that came round unchanged does); elsewhere the GM removes a
    player from the league. Returns the address."""
    with lg.db.session() as s:
        partie = s.scalars(select(Partie)).one()
        players = {str(p.id): p for p in s.scalars(select(Player))}
        state = dict(partie.state)
        if lg.game == "typdom-wbr":
            key = next(k for k in state["active"] if k != state["mover"])
            state["active"] = [k for k in state["active"] if k != key]
            state["out"] = [*state.get("out", []), key]
            partie.state = state
            return players[key].email
        player = players[sorted(players)[-1]]
        player.active = False
        return player.email


def _finish(lg: League_) -> None:
    """Play the league to its end: rounds adjudicated (NMR) until it is over."""
    for _ in range(12):
        with lg.db.session() as s:
            if s.scalars(select(League)).one().status == "finished":
                return
        adjudicate_league(lg.db, lg.cfg, lg.name, force=True)
    with lg.db.session() as s:
        assert s.scalars(select(League)).one().status == "finished"


@pytest.mark.parametrize("kind", list(GAMES))
def test_every_command_answers_in_every_state(tmp_path, kind):
    """Every player command (and alias, with good and bad arguments) from the player on
    turn, one out of turn, one out of the game, the GM and a stranger, before the first ZAT,
    mid-game, after a player is out and after the end: nothing raises, and each mail gets
    a real answer in reply to it (seeded random roles, every command in every state)."""
    rng = random.Random(f"trust/{kind}")
    lg = _league(tmp_path, kind)
    problems: list[str] = []
    sent = _matrix_state(lg, "start", rng, None, problems)
    adjudicate_league(lg.db, lg.cfg, lg.name, force=True)
    sent += _matrix_state(lg, "mid", rng, None, problems)
    out = _drop_out(lg)
    sent += _matrix_state(lg, "out", rng, out, problems)
    _finish(lg)
    sent += _matrix_state(lg, "end", rng, out, problems)
    lg.db.dispose()
    assert sent >= 4 * len(COMMANDS)
    assert not problems, f"{len(problems)} of {sent} mails without a real answer:\n" + "\n".join(problems[:40])


# -- identical mails within an hour: answered once ----------------------------------------------

AUTOREPLY = "Vielen Dank für Ihre Nachricht.\nIch bin bis zum 10. Dezember nicht im Büro und lese keine Mails.\n"


def _arriving(sender: str, body: str, at: datetime, subject: str = "Ihre Nachricht") -> bytes:
    """A mail without ``Auto-Submitted`` (and nothing else that marks it automatic) that
    reached our server at ``at`` (its topmost ``Received:``)."""
    from email.utils import format_datetime

    from bot.mail.compose import compose
    raw = compose(sender=sender, to="spielleiter@trust.invalid", subject=subject, text=body,
                  headers={"Received": f"from mx.absender.invalid by mx.trust.invalid; {format_datetime(at)}"})
    msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    del msg["Auto-Submitted"]  # compose marks the bot's own mails; this sender does not
    return msg.as_bytes()


def _to(lg: League_, addr: str) -> list[OutboxMail]:
    """The answers to ``addr`` (no start mail, Auswertung, ...), in order."""
    from bot.service.conversations.loops import NOT_ANSWERS
    with lg.db.session() as s:
        rows = list(s.scalars(select(OutboxMail).where(OutboxMail.to_addr == addr, OutboxMail.kind.not_in(NOT_ANSWERS))
                              .order_by(OutboxMail.id)))
        s.expunge_all()
    return rows


def test_an_autoresponder_without_auto_submitted_is_answered_once_an_hour(tmp_path, db_url):
    """Issue 31: a player's autoresponder that sets no ``Auto-Submitted`` sends the same
    mail 20 times within an hour: every one is stored raw and read, one is answered (the
    rate limit alone would have let 20 through); the GM sees the repeats (a parse note,
    the first flagged). A different mail from the address is answered; the same mail more
    than an hour after the answered one is answered again, and its repeats are not."""
    lg = _league(tmp_path, "rondo", db_url=db_url)
    lg.cfg.rate_limit_per_hour = 20  # the default: without the repeat check 20 answers a hour
    addr = lg.players[0]
    t0 = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=3)
    for i in range(20):
        lg.md.deliver_to_inbox(_arriving(addr, AUTOREPLY, t0 + timedelta(minutes=3 * i)))
    poll_inbox(lg.db, lg.cfg)
    with lg.db.session() as s:
        mails = list(s.scalars(select(InboundMail).order_by(InboundMail.id)))
        assert len(mails) == 20 and all(m.raw and m.status not in ("stored", "error") for m in mails)
        first = mails[0].id
        assert all(m.parse.get("repeat_of") == first and "answered once" in m.parse["answer_withheld"]
                   for m in mails[1:])
        assert "repeat_of" not in mails[0].parse
        assert "repeated mail" in (mails[1].flagged or "") and not any(
            "repeated mail" in (m.flagged or "") for m in mails[2:])
    rows = _to(lg, addr)
    sent = [r for r in rows if r.status != "suppressed"]
    assert len(sent) == 1 and len(rows) == 20, [(r.kind, r.status) for r in rows]
    assert all(r.last_error == f"withheld: repeats mail {first} within one hour" for r in rows if r not in sent)

    # another mail from the same address within the hour: answered
    lg.md.deliver_to_inbox(_arriving(addr, "STAND bitte", t0 + timedelta(minutes=59), subject="STAND"))
    poll_inbox(lg.db, lg.cfg)
    new = [r for r in _to(lg, addr) if r.id > rows[-1].id]
    assert [r.status for r in new] == ["pending"] and "Wertung T-rondo" in email.message_from_bytes(
        new[0].raw, policy=email.policy.default).get_body(("plain",)).get_content()

    # the same autoreply more than an hour after the answered one: answered again, once
    for minutes in (61, 64):
        lg.md.deliver_to_inbox(_arriving(addr, AUTOREPLY, t0 + timedelta(minutes=minutes)))
        poll_inbox(lg.db, lg.cfg)
    later = [r for r in _to(lg, addr) if r.id > new[-1].id]
    assert [r.status for r in later] == ["pending", "suppressed"]
    lg.db.dispose()


def test_a_repeated_move_counts_and_is_acknowledged_once(tmp_path, db_url):
    """A player who sends the same move twice in a row within the hour gets one
    acknowledgement; both mails are read (the later is the standing submission, as
    always). After A, B the same A again is news (A stands again) and is answered."""
    from bot.storage.models import Submission
    lg = _league(tmp_path, "rondo", db_url=db_url)
    addr = lg.players[1]
    now = datetime.now(timezone.utc).replace(microsecond=0)
    bodies = ["Partie P1:\nABC\n", "Partie P1:\nXYZ\n", "Partie P1:\nABC\n", "Partie P1:\n  ABC \n"]
    for i, body in enumerate(bodies):
        lg.md.deliver_to_inbox(_arriving(addr, body, now - timedelta(minutes=30 - i), subject="Züge"))
        poll_inbox(lg.db, lg.cfg)
    answers = _to(lg, addr)
    assert [r.status for r in answers] == ["pending", "pending", "pending", "suppressed"]
    with lg.db.session() as s:
        subs = list(s.scalars(select(Submission).order_by(Submission.id)))
        assert len(subs) == 4 and subs[-1].superseded_by is None
        assert all(sub.superseded_by is not None for sub in subs[:-1])
    lg.db.dispose()

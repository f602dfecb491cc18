"""Multi-part moves are merged, not wiped (issue 24, item 3), through the service: a later
mail of the same round replaces only the parts of the move it contains, the stored move and
the acknowledgement show the whole move as it now stands (Maildir, SQLite).

Crossword (seed 003): placement, wish and word list are parts. RONDO (seed 004): the
exchanges and the word are parts, the exchanges made first whatever the order of lines."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.games import get_game
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Partie, Submission
from tests.helpers import player_mail, text_of

SIX = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
       ("Clara Conrad", "clara@example.org"), ("Dieter Dahl", "dieter@example.org"),
       ("Edith Ernst", "edith@example.org"), ("Fritz Fuchs", "fritz@example.org")]


@pytest.fixture
def env(tmp_path):
    cfg = embedded(tmp_path / "var")
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    yield db, cfg, MaildirTransport(cfg.maildir)
    db.dispose()


def _create(tmp_path, env, head: list[str], players) -> None:
    db, cfg, md = env
    lines = list(head) + [""]
    for n, e in players:
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', ""]
    (tmp_path / "l.toml").write_text("\n".join(lines), encoding="utf-8")
    with db.session() as s:
        create_league(s, read_league_file(tmp_path / "l.toml"), cfg)
    deliver(db, md, cfg)


def _send(env, sender: str, body: str) -> tuple[list[str], str]:
    """Deliver a mail, read it; (the standing move texts of its submission, the ack)."""
    db, cfg, md = env
    md.deliver_to_inbox(player_mail(sender, body))
    assert poll_once(db, cfg) == 1
    with db.session() as s:
        mail = s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()
        sub = s.scalars(select(Submission).where(Submission.mail_id == mail.id)).one()
        ack = s.scalars(select(OutboxMail).where(OutboxMail.key == f"ack:{mail.id}")).one()
        return [m.text for m in sub.moves], text_of(ack.raw).replace("\r\n", "\n")


def _state(db) -> dict:
    with db.session() as s:
        return dict(s.scalar(select(Partie)).state)


def test_crossword_follow_up_keeps_the_placement(tmp_path, env):
    db, cfg, md = env
    zat = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    _create(tmp_path, env, ['name = "Kreuz"', 'game = "crossword"', 'partien = ["P1"]',
                            f'first_zat = "{zat.isoformat()}"', "zat_interval_days = 7", "seed = 5"], SIX)
    adjudicate_league(db, cfg, "Kreuz", force=True)  # round 1 (the wishes) drawn: round 2 is open
    deliver(db, md, cfg)
    letters = _state(db)["letters"]
    assert _state(db)["round"] == 2 and len(letters) == 6
    pairs = f"A1 {letters[0]}, A2 {letters[1]}, B1 {letters[2]}, B2 {letters[3]}, C1 {letters[4]}, C2 {letters[5]}"
    moves, ack = _send(env, "anna@example.org", f"{pairs}\nWunsch: N")
    assert moves == [f"{pairs}\nWunsch: N"] and "ergänzt" not in ack
    # only the wish: the placement stays, the wish is the new one
    moves, ack = _send(env, "anna@example.org", "Wunsch: T")
    assert moves == [f"{pairs}\nWunsch: T"]
    assert "diese Mail ergänzt deine frühere Einsendung für Partie P1" in ack and "ersetzt" not in ack.split("ZAT")[0]
    assert "Wunsch: T" in ack and pairs in ack
    # Crossword's one rule for a correction (issue 32), as its merge does it
    assert ("Eine spätere Mail vor dem ZAT ersetzt die Teile deines Zugs (Legung, Wunsch, Wortliste), die sie "
            "enthält; die übrigen bleiben.") in " ".join(ack.split())
    # a whole new move (placement and wish): replaced as before
    other = pairs.replace("C1", "D1").replace("C2", "D2")
    moves, ack = _send(env, "anna@example.org", f"{other}\nWunsch: E")
    assert moves == [f"{other}\nWunsch: E"] and "diese Mail ersetzt deine frühere Einsendung" in ack
    # the last-round case of the issue: a mail with only a word list keeps placement and wish
    get = get_game("crossword")
    assert get.merge_move([f"{other}\nWunsch: E"], ["HAUS A1-A4"]) == [f"{other}\nWunsch: E\nHAUS A1-A4"]


def test_rondo_exchange_after_an_invalid_word_merges(tmp_path, env):
    db, cfg, md = env
    zat = (datetime.now(timezone.utc) + timedelta(days=2)).replace(microsecond=0)
    players = [("Jan Jansen", "jan@example.nl"), ("Els de Vries", "els@example.nl")]
    _create(tmp_path, env, ['name = "R-NL"', 'game = "rondonl"', f'first_zat = "{zat.isoformat()}"',
                            'language = "nl"', "seed = 4", "", "[options]", "full_rounds = 2"], players)
    adjudicate_league(db, cfg, "R-NL", force=True)  # the opening by NMR: the lot picks who begins
    deliver(db, md, cfg)
    st = _state(db)
    assert st["phase"] == "play"
    mover = st["order"][0]
    email = dict(zip(st["players"], [e for _, e in players]))[mover]
    hand = st["hands"][mover]
    card = next(c for c in hand if c not in "?/")
    moves, ack = _send(env, email, "QQQQ")  # not a word of the hand: the turn stays open
    assert moves == ["QQQQ"] and _state(db)["turn"] == 0
    moves, ack = _send(env, email, f"RUIL {card}")  # the exchange joins the earlier word
    assert moves == [f"RUIL {card}\nQQQQ"]
    assert "deze mail vult je eerdere inzending voor partij R1 aan" in ack
    assert f"Zet:\n    RUIL {card}\n    QQQQ" in ack  # every line of the move in one column (issue 32)
    # the exchange ends the turn (RONDO: a turn is over with its mail): no "a later mail replaces"
    assert "Je beurt is daarmee voorbij" in ack and "vervangt" not in ack.split("aan:")[1]

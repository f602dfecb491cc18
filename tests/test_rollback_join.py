"""Rolling back a round (ZURUECK) in a league where a player joined by ANMELDEN
(Monoscrabble: joining is allowed at any time, the rounds before count as NMR).

What a German game master expects (docs/operator/gm-commands.md): a rolled back round
is as if it had never been adjudicated; submissions stay, the round's results go. A
joiner's NMR rows for the rounds before they joined are facts of their joining and stay,
but their Besser-Wertung follows the round as adjudicated again (an NMR scores minus the
number of moves that scored more than 0). A joiner's own row of the rolled back round is
made again at the new adjudication, exactly once. Real mails through ``poll_once`` on the
Maildir, SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from bot.config import embedded
from bot.games import get_game
from bot.lexicon import load
from bot.mail.maildir import MaildirTransport
from bot.service.conversations import gm
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.operations.runner import poll_once
from bot.service.presentation.view import league_view
from bot.storage.db import Database
from bot.storage.models import InboundMail, Partie, Player, Result, Round, Submission
from tests.helpers import header, league_toml, player_mail, text_of

LIGA = "Test-Mono"
GM_KEYS = 'gm_email = "gm@example.org"\ngm_code = "Geheim-4711"'
DORA = "dora@example.org"


@pytest.fixture
def mono(tmp_path, db_url):
    cfg = embedded(tmp_path / "var")
    cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    cfg.gm_notice_window = 0  # each notice at once
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    path = league_toml(tmp_path / "mono.toml", name=LIGA, partien=("M1",), rounds=4, extra=GM_KEYS)
    path.write_text(path.read_text().replace('game = "rondo"', 'game = "monoscrabble"'))
    with db.session() as s:
        create_league(s, read_league_file(path), cfg)
    deliver(db, md, cfg)
    yield db, cfg, md
    db.dispose()


def moves(db) -> list[tuple[str, int]]:
    """The open round's moves of Partie M1, best first: (notation, points)."""
    from bot.games.monoscrabble.movegen import generate
    with db.session() as s:
        state = s.scalar(select(Partie)).state
    game = get_game("monoscrabble")
    ranked = sorted(generate(state["board"], state["rack"], load("monoscrabble")), key=lambda m: -m.score)
    return [(game.gen_notation(m, state["board"]), m.score) for m in ranked]


def send(db, cfg, md, sender: str, body: str, subject: str = LIGA) -> None:
    md.deliver_to_inbox(player_mail(sender, body, subject=subject))
    poll_once(db, cfg)


def join(db, cfg, md) -> None:
    send(db, cfg, md, f"Dora Dahl <{DORA}>", "", subject=f"ANMELDEN {LIGA} Dora Dahl")


def process(db, cfg, md) -> None:
    with db.session() as s:
        assert "ausgewertet" in gm.process_now(s, cfg, LIGA)
    deliver(db, md, cfg)


def rollback(db, cfg, md) -> None:
    with db.session() as s:
        assert "zurückgesetzt" in gm.rollback(s, cfg, LIGA)
    deliver(db, md, cfg)


def rows(db, email: str = DORA) -> list[tuple[int, int, bool]]:
    """The player's Result rows: (round, Besser-Wertung, submitted), by round."""
    with db.session() as s:
        pid = s.scalar(select(Player.id).join(Player.addresses).where(Player.addresses.any(email=email)))
        return [(r.round_number, r.points, r.submitted) for r in s.scalars(
            select(Result).where(Result.player_id == pid).order_by(Result.round_number, Result.id))]


def standings(db) -> dict[str, int]:
    return {r["player"]: r["points"] for r in league_view(db, LIGA)["standings"]}


def open_number(db) -> int:
    with db.session() as s:
        return s.scalar(select(Round.number).where(Round.status == "open"))


def sent_to(md, email: str, subject_part: str) -> list[str]:
    return [text_of(r) for r in md.sent() if header(r, "To") == email and subject_part in header(r, "Subject")]


def test_joined_in_the_rolled_back_round_gets_its_row_again_exactly_once(mono):
    """Dora joins in round 2 before its ZAT and plays it; round 2 is rolled back and
    adjudicated again: her NMR row of round 1 stays, her round 2 row goes and comes back once."""
    db, cfg, md = mono
    (top, _), (weaker, _) = moves(db)[0], next(m for m in moves(db) if m[1] < moves(db)[0][1])
    send(db, cfg, md, "anna@example.org", top)
    send(db, cfg, md, "bernd@example.org", weaker)
    process(db, cfg, md)                                    # round 1: Anna 0, Bernd -1, Clara -2
    join(db, cfg, md)
    assert rows(db) == [(1, -2, False)]                     # two moves scored more than her NMR
    r2 = moves(db)
    send(db, cfg, md, DORA, r2[0][0])
    send(db, cfg, md, "anna@example.org", r2[-1][0])
    process(db, cfg, md)
    assert rows(db) == [(1, -2, False), (2, 0, True)]
    after = standings(db)
    assert after[DORA] == -2
    first = sent_to(md, DORA, "Auswertung Runde 2")
    assert len(first) == 1

    rollback(db, cfg, md)
    assert open_number(db) == 2
    assert rows(db) == [(1, -2, False)]                     # her joining's NMR row stays, round 2 goes
    with db.session() as s:                                 # her move for round 2 stays
        assert s.scalar(select(func.count()).select_from(Submission).where(Submission.round_number == 2)) == 2
    notice = sent_to(md, DORA, "zurückgesetzt")
    assert len(notice) == 1 and "Was du für Runde 2 geschickt hast, bleibt gespeichert" in " ".join(notice[0].split())

    process(db, cfg, md)
    assert rows(db) == [(1, -2, False), (2, 0, True)]       # made again, exactly once
    assert standings(db) == after
    again = sent_to(md, DORA, "Auswertung Runde 2")
    assert len(again) == 2 and again[1] == first[0]         # the same Auswertung once more


def test_joined_after_the_rolled_back_round_keeps_an_nmr_row_scored_as_adjudicated_again(mono):
    """Dora joins in round 2; round 1 is rolled back, Bernd sends a move for it, and it is
    adjudicated again: Dora's NMR row of round 1 stays (one row) and scores minus the moves
    that scored more than 0 in the new adjudication; a move she sends for round 1 is refused
    with a German reason (she plays from round 2)."""
    db, cfg, md = mono
    (top, _), (weaker, _) = moves(db)[0], next(m for m in moves(db) if m[1] < moves(db)[0][1])
    send(db, cfg, md, "anna@example.org", top)
    process(db, cfg, md)                                    # round 1: Anna 0, Bernd -1, Clara -1
    join(db, cfg, md)
    assert rows(db) == [(1, -1, False)]
    assert standings(db) == {"anna@example.org": 0, "bernd@example.org": -1, "clara@example.org": -1, DORA: -1}

    rollback(db, cfg, md)
    assert open_number(db) == 1
    assert rows(db) == [(1, -1, False)]                     # a fact of her joining: stays
    notice = sent_to(md, DORA, "zurückgesetzt")
    assert len(notice) == 1
    assert "Was du für Runde 1" not in " ".join(notice[0].split()) and "ab Runde 2" in notice[0]

    send(db, cfg, md, "bernd@example.org", weaker)          # round 1 is open again
    send(db, cfg, md, DORA, top)                            # but not for Dora
    answer = sent_to(md, DORA, "Re:")[-1]
    assert "ab Runde 2" in answer and "gültig" not in answer
    with db.session() as s:
        mail = s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()
        assert mail.status == "ignored" and mail.parse["reason"] == "joined later"
        mail_id = mail.id
        assert s.scalar(select(func.count()).select_from(Submission).where(
            Submission.player_id == s.scalar(select(Player.id).where(Player.name == "Dora Dahl")))) == 0

    with db.session() as s:                                 # nor can the GM set one for her
        with pytest.raises(gm.GMError, match="erst ab Runde 2"):
            gm.set_move(s, cfg, LIGA, "Dora", "M1", [top], mail_id=mail_id)

    process(db, cfg, md)
    assert rows(db) == [(1, -2, False)]                     # one row, scored as round 1 was adjudicated again
    assert standings(db) == {"anna@example.org": 0, "bernd@example.org": -1, "clara@example.org": -2, DORA: -2}
    report = sent_to(md, DORA, "Auswertung Runde 1")
    assert len(report) == 1 and "Dora Dahl" in report[0]
    assert open_number(db) == 2
    send(db, cfg, md, DORA, moves(db)[0][0])                # round 2: she plays
    assert "gültig" in sent_to(md, DORA, "Re:")[-1]


def test_joined_in_round_3_rolled_back_twice(mono):
    """Dora joins in round 3 (rounds 1 and 2 NMR); rounds 2 and 1 are rolled back one
    after the other and adjudicated again with more moves: she keeps one NMR row per
    round, each scored as that round was adjudicated again."""
    db, cfg, md = mono
    send(db, cfg, md, "anna@example.org", moves(db)[0][0])
    process(db, cfg, md)                                    # round 1: one move scored
    send(db, cfg, md, "anna@example.org", moves(db)[0][0])
    process(db, cfg, md)                                    # round 2: one move scored
    join(db, cfg, md)
    with db.session() as s:
        assert s.scalar(select(Player.joined_round).where(Player.name == "Dora Dahl")) == 3
    assert rows(db) == [(1, -1, False), (2, -1, False)]

    rollback(db, cfg, md)                                   # round 2
    rollback(db, cfg, md)                                   # round 1
    assert open_number(db) == 1
    assert rows(db) == [(1, -1, False), (2, -1, False)]
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Result).where(Result.round_number == 2)) == 1  # Dora's
    r1 = moves(db)
    send(db, cfg, md, "bernd@example.org", r1[0][0])
    send(db, cfg, md, "clara@example.org", r1[-1][0])
    process(db, cfg, md)                                    # round 1: three moves scored
    assert rows(db) == [(1, -3, False), (2, -1, False)]
    r2 = moves(db)                                          # round 2 on the new board: two moves
    send(db, cfg, md, "anna@example.org", r2[0][0])
    send(db, cfg, md, "bernd@example.org", r2[-1][0])
    process(db, cfg, md)
    assert rows(db) == [(1, -3, False), (2, -2, False)]
    assert standings(db)[DORA] == -5
    assert open_number(db) == 3
    send(db, cfg, md, DORA, moves(db)[0][0])                # round 3: she plays
    process(db, cfg, md)
    assert rows(db) == [(1, -3, False), (2, -2, False), (3, 0, True)]

"""The reply corpus (issue 24, item 2): real-shaped replies of Outlook, Gmail, Apple Mail,
Thunderbird and web mailers (GMX/web.de, Zimbra) in German, Dutch, English and French,
quoted with and without ``>``, run through the whole intake (Maildir inbox ->
``poll_once`` -> SQLite -> acknowledgement).

Each ``tests/replies/<name>.eml`` has its expectation in ``tests/replies/expected.json``:
the league (``nl``: a Dutch RONDO league, one Partie, the turn's lines; ``de``: a German
Rondo league with Partien R1 and R2), the move lines the stored submission must hold, and
the lines of the bot's own mail the acknowledgement must list as quoted and not counted
(a reply that pastes the bot's start mail without header and without ``>``).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Partie, Submission
from tests.helpers import league_toml, text_of

CORPUS = Path(__file__).parent / "replies"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
NL_PLAYERS = [("Jan Jansen", "jan@example.nl"), ("Els de Vries", "els@example.nl"), ("Piet Pieters", "piet@example.nl")]


@pytest.fixture
def env(tmp_path):
    """A Dutch RONDO league (seed 4, in its opening: every player may send) and a German
    Rondo league (Test-Rondo, R1/R2), their start mails sent; yields (db, cfg, md). Fresh
    for each mail: what a player sent before changes what counts as quoted."""
    tmp = tmp_path
    cfg = embedded(tmp / "var")
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    zat = (datetime.now(timezone.utc) + timedelta(days=2)).replace(microsecond=0)
    lines = ['name = "Rondo-NL"', 'game = "rondonl"', f'first_zat = "{zat.isoformat()}"', 'language = "nl"',
             "seed = 4", "", "[options]", "full_rounds = 1", ""]
    for n, e in NL_PLAYERS:
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', ""]
    (tmp / "nl.toml").write_text("\n".join(lines), encoding="utf-8")
    with db.session() as s:
        create_league(s, read_league_file(tmp / "nl.toml"), cfg)
        create_league(s, read_league_file(league_toml(tmp / "de.toml")), cfg)
    deliver(db, md, cfg)
    yield db, cfg, md
    db.dispose()


def _last(db) -> tuple[dict[str, list[str]], str]:
    """(Partie -> move lines of the newest inbound mail's submissions, its acknowledgement)."""
    with db.session() as s:
        mail = s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()
        assert mail.status == "processed", (mail.status, mail.parse, mail.error)
        subs = s.scalars(select(Submission).where(Submission.mail_id == mail.id).order_by(Submission.id)).all()
        moves = {s.get(Partie, x.partie_id).name: [ln for m in x.moves for ln in m.text.splitlines()] for x in subs}
        ack = s.scalars(select(OutboxMail).where(OutboxMail.key == f"ack:{mail.id}")).one()
        return moves, text_of(ack.raw)


def test_corpus_is_broad():
    """Every client family, every language, with and without '>'."""
    names = set(EXPECTED)
    assert len(names) >= 15 and {n.split("-")[0] for n in names} == {"de", "nl", "en", "fr"}
    for client in ("outlook", "gmail", "apple", "thunderbird", "gmx", "zimbra", "pasted"):
        assert any(client in n for n in names), client
    assert all((CORPUS / f"{n}.eml").exists() for n in names)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reply_yields_its_moves(env, name):
    db, cfg, md = env
    want = EXPECTED[name]
    md.deliver_to_inbox((CORPUS / f"{name}.eml").read_bytes())
    assert poll_once(db, cfg) == 1
    moves, ack = _last(db)
    expected = {"R1": want["moves"]} if want["league"] == "nl" else want["moves"]
    assert moves == expected, ack
    quoted = want.get("quoted", [])
    if quoted:
        label = ("Uit onze mail geciteerd, niet meegeteld: " if want["league"] == "nl"
                 else "Aus unserer Mail zitiert, nicht gewertet: ")
        line = next((ln for ln in ack.splitlines() if ln.startswith(label)), ack)
        assert line[len(label):].split(" | ") == quoted, ack
    else:
        assert "zitiert, nicht gewertet" not in ack and "geciteerd" not in ack
    # the bot's own example (RUIL Q) is neither a move nor an unreadable line
    rest = "\n".join(ln for ln in ack.splitlines() if "zitiert, nicht gewertet" not in ln and "geciteerd" not in ln)
    mine = " ".join(ln for ms in expected.values() for ln in ms)
    assert "RUIL Q" not in rest and ("mo*NDES" not in rest or "mo*NDES" in mine)


def test_the_dutch_outlook_reply_of_the_issue_costs_no_card(env):
    """Issue 24: the player on turn answers with Outlook in Dutch, the bot's whole mail
    unquoted below "-----Oorspronkelijk bericht-----". Only RUIL G and the word are read;
    the example line RUIL Q of the bot's own text never costs the player their Q."""
    from bot.service.stages.rounds import adjudicate_league
    db, cfg, md = env
    adjudicate_league(db, cfg, "Rondo-NL", force=True)  # the opening by NMR: the lot picks who begins
    deliver(db, md, cfg)
    with db.session() as s:
        part = s.scalars(select(Partie).join(Partie.league).where(Partie.league.has(name="Rondo-NL"))).one()
        st = dict(part.state)
        mover = st["order"][0]
        st["hands"] = dict(st["hands"], **{mover: "AGIKQUZ"})
        part.state = st
        email = next(e for (n, e), key in zip(NL_PLAYERS, st["players"]) if key == mover)
        turn_mail = s.scalars(select(OutboxMail).where(OutboxMail.to_addr == email)
                              .order_by(OutboxMail.id.desc())).first()
        bot_text = text_of(turn_mail.raw).replace("\r\n", "\n")
        start = text_of(s.scalars(select(OutboxMail).where(OutboxMail.to_addr == email)
                                  .order_by(OutboxMail.id)).first().raw).replace("\r\n", "\n")
    assert "RUIL Q" in start
    body = ("RUIL G\nAzUKI\n\nMet vriendelijke groet,\nJan\n\n-----Oorspronkelijk bericht-----\n"
            "Van: Spielleiter <spielleiter@example.org>\nVerzonden: dinsdag 24 november 2026 10:00\n"
            f"Aan: {email}\nOnderwerp: Rondo-NL: jouw beurt\n\n{bot_text}\n\n{start}")
    from tests.helpers import player_mail
    md.deliver_to_inbox(player_mail(email, body, subject="RE: Rondo-NL"))
    assert poll_once(db, cfg) == 1
    moves, ack = _last(db)
    assert moves == {"R1": ["RUIL G", "AzUKI"]}, ack
    deliver(db, md, cfg)
    with db.session() as s:
        after = dict(s.scalars(select(Partie).join(Partie.league).where(Partie.league.has(name="Rondo-NL"))).one().state)
    assert after["turn"] == 1  # the exchange ended the turn at once
    assert "Q" in after["hands"][mover] and after["history"][-1]["kind"] != "opening"


def _auswertung_round(db, cfg, md) -> str:
    """Round 1 of Test-Rondo played (Anna SAU/MAX, Bernd LAU/MAU) and adjudicated; the
    text of Clara's Auswertung."""
    from bot.service.stages.rounds import adjudicate_league
    from tests.helpers import PLAYERS, player_mail
    md.deliver_to_inbox(player_mail(PLAYERS[0][1], "Partie R1:\nSAU\nPartie R2:\nMAX"))
    md.deliver_to_inbox(player_mail(PLAYERS[1][1], "Partie R1:\nLAU\nPartie R2:\nMAU"))
    assert poll_once(db, cfg) == 2
    adjudicate_league(db, cfg, "Test-Rondo", force=True)
    deliver(db, md, cfg)
    with db.session() as s:
        mail = s.scalars(select(OutboxMail).where(OutboxMail.to_addr == PLAYERS[2][1], OutboxMail.kind == "auswertung")
                         .order_by(OutboxMail.id.desc())).first()
        return text_of(mail.raw).replace("\r\n", "\n")


def test_lines_equal_to_an_auswertung_are_the_players_own(env):
    """Issue 32: Clara answers the Auswertung (Gmail, above the > quote) with a move
    whose lines equal lines of that Auswertung (its example under "Partie R1:") and a
    move equal to another player's word there (MAX, Anna's word in R2): every line is read."""
    from tests.helpers import PLAYERS, player_mail
    db, cfg, md = env
    ausw = _auswertung_round(db, cfg, md)
    lines = ausw.splitlines()
    at = lines.index("Beispiel (nur die Schreibweise, kein Vorschlag):")
    header, main, ersatz = (ln.strip() for ln in lines[at + 2:at + 5])
    assert header == "Partie R1:" and ersatz.startswith("Ersatz: ") and "MAX" in ausw
    quote = "\n".join("> " + ln for ln in ausw.splitlines())
    body = (f"Partie R1:\n{main}\n{ersatz}\n\nPartie R2:\nMAX\n\n"
            "Am Do., 26. Nov. 2026 um 10:00 Uhr schrieb Spielleiter <spielleiter@example.org>:\n" + quote)
    md.deliver_to_inbox(player_mail(PLAYERS[2][1], body, subject="Re: Test-Rondo: Auswertung Runde 1"))
    assert poll_once(db, cfg) == 1
    moves, ack = _last(db)
    assert moves == {"R1": [main, ersatz.removeprefix("Ersatz: ")], "R2": ["MAX"]}, ack
    assert "zitiert, nicht gewertet" not in ack


def test_a_pasted_block_of_the_auswertung_is_ours(env):
    """Issue 32: a block of several consecutive lines of the Auswertung pasted under the
    player's own move (no header, no >) is the bot's: not read as moves, not reported as
    unreadable; the player's own move above it is read."""
    from tests.helpers import PLAYERS, player_mail
    db, cfg, md = env
    ausw = _auswertung_round(db, cfg, md).splitlines()
    i = ausw.index("Partie R2, Runde 1")
    block = [ln for ln in ausw[i:i + 12]]
    assert sum(1 for ln in block if ln.strip()) >= 8
    body = "Partie R2:\nWAX\n\n" + "\n".join(block) + "\n\nGruß Clara"
    md.deliver_to_inbox(player_mail(PLAYERS[2][1], body, subject="Re: Test-Rondo: Auswertung Runde 1"))
    assert poll_once(db, cfg) == 1
    moves, ack = _last(db)
    assert moves == {"R2": ["WAX"]}, ack
    assert "Neues Wort: MAX" not in ack and "Bestes mögliches Wort" not in ack, ack


def test_a_run_needs_four_lines_in_order_and_headers_never_count():
    """The rule of :func:`bot.service.conversations.quoted.runs` on one mail's lines."""
    from bot.service.conversations.quoted import MIN_RUN, _sequence, runs
    mail = _sequence("Partie R1:\n  mo*NDES 24 Punkte\n  Ersatz: mondES\n  Ersatz: monDES\n\n"
                     "Partie R2:\n  Feld 2: ST*And/\n\nEin Zug beschreibt die ganze neue Auslage\n")
    assert MIN_RUN == 4 and "Partie R1:" not in mail
    example = "Partie R1:\nmo*NDES 24 Punkte\nErsatz: mondES\nErsatz: monDES\n"
    assert not runs(example, [mail])  # three lines under a header: the player's
    assert not runs("Partie R1:\nPartie R2:\n", [mail])
    pasted = example + "\nPartie R2:\nFeld 2: ST*And/\n"
    assert set(runs(pasted, [mail])) == {"mo*NDES 24 Punkte", "Ersatz: mondES", "Ersatz: monDES", "Feld 2: ST*And/"}
    assert runs(example + pasted, [mail])["mo*NDES 24 Punkte"] == 1  # the player's own line is not counted
    shuffled = "Ersatz: monDES\nErsatz: mondES\nmo*NDES 24 Punkte\nFeld 2: ST*And/\n"
    assert not runs(shuffled, [mail])  # not in the mail's order
    assert not runs("KAT\n" + pasted.replace("Ersatz: mondES\n", "MAX\n"), [mail])  # broken by a line of the player


def test_own_example_lines_kept_when_the_same_block_is_pasted_below(env):
    """Issue 32: the example as the player's move, and below it (no header, no >) the
    start mail's example passage pasted: the pasted run goes, the player's own three
    lines above it stay, although they are the same lines."""
    from tests.helpers import PLAYERS, player_mail
    db, cfg, md = env
    own = "Partie R1:\nmo*NDES 24 Punkte\nErsatz: mondES\nErsatz: monDES\n\n"
    pasted = ("So stand es in eurer Mail:\n\n  Partie R1:\n  mo*NDES 24 Punkte\n  Ersatz: mondES\n"
              "  Ersatz: monDES\n\n  Partie R2:\n  Feld 2: ST*And/\n")
    md.deliver_to_inbox(player_mail(PLAYERS[0][1], own + pasted, subject="Re: Test-Rondo: Spielbeginn"))
    assert poll_once(db, cfg) == 1
    moves, ack = _last(db)
    assert moves == {"R1": ["mo*NDES 24 Punkte", "mondES", "monDES"]}, ack
    line = next(ln for ln in ack.splitlines() if ln.startswith("Aus unserer Mail zitiert"))
    assert line.count("mo*NDES") == 1 and "ST*And/" in line, ack


@pytest.mark.parametrize("first_bounces", [False, True])
def test_a_block_of_a_mail_to_the_players_report_address_is_ours(env, first_bounces):
    """A player who writes from a second address pastes a block of the Auswertung the bot
    sent to the first one: the mails to the address the player's answers go to (the first
    that does not bounce; the sender's counts as working) are the player's mails too, so
    the block is the bot's. Once the first address bounces, answers go to the sender's
    and the Auswertung sent to the first is no longer looked at."""
    from bot.storage.models import Player, PlayerAddress
    from tests.helpers import PLAYERS, player_mail
    db, cfg, md = env
    ausw = _auswertung_round(db, cfg, md).splitlines()
    i = ausw.index("Partie R2, Runde 1")
    block = [ln for ln in ausw[i:i + 12]]
    with db.session() as s:
        first = s.scalars(select(PlayerAddress).where(PlayerAddress.email == PLAYERS[2][1])).one()
        s.add(PlayerAddress(player_id=first.player_id, email="clara.zwei@example.org"))
        if first_bounces:
            first.bounced_at, first.bounce_reason = datetime.now(timezone.utc), "550 no such user"
        assert s.get(Player, first.player_id).name == PLAYERS[2][0]
    body = "Partie R2:\nWAX\n\n" + "\n".join(block) + "\n\nGruß Clara"
    md.deliver_to_inbox(player_mail("clara.zwei@example.org", body, subject="Re: Test-Rondo: Auswertung Runde 1"))
    assert poll_once(db, cfg) == 1
    moves, ack = _last(db)
    if first_bounces:  # not one of the mails to this player's answer address: the lines are read as written
        assert "Aus unserer Mail zitiert" not in ack, ack
    else:
        assert moves == {"R2": ["WAX"]}, ack
        assert "Neues Wort: MAX" not in ack and "Bestes mögliches Wort" not in ack, ack

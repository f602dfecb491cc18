"""Issue 32, RONDO (seed 004) mails as a careful game master writes them, through the
service: ``UITSLAG n`` takes the number the subjects use (the turn), the GM copy of a
round report is wholly in the GM's language (a Dutch league with a German GM and a German
league with a Dutch GM), no debug marks such as ``[ok]`` in any mail, and the GM's
new-deadline notice tells only the player on turn to send a move."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from bot.games.rondo.cards import Row
from bot.games.rondonl.engine import best_word
from bot.lexicon import load
from bot.service.conversations.gmschedule import set_zat
from bot.service.operations.league import create_league, read_league_file
from bot.service.operations.runner import poll_once
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.storage.models import League, Partie
from tests.helpers import header, player_mail, text_of

PLAYERS = [("Anna de Vries", "anna@example.org"), ("Bram Jansen", "bram@example.org"),
           ("Carla Peeters", "carla@example.org")]
GM = "gm@example.org"
#: words that give a Dutch text away in a German mail, and the other way round
DUTCH = re.compile(r"\b(punten|waarde|beurt|zet|geen|strepen|uitslag|deadline|spelleider|aan de)\b", re.I)
GERMAN = re.compile(r"\b(Punkte|Wert|Zug|Züge|kein|Striche|Auswertung|Spielleiter|Stand nach|zählt)\b")


def _start(tmp_path, env, name: str, language: str, gm_language: str, dictionary: str) -> None:
    db, cfg, md = env
    zat = (datetime.now(timezone.utc) + timedelta(days=2)).replace(microsecond=0)
    lines = [f'name = "{name}"', 'game = "rondonl"', f'first_zat = "{zat.isoformat()}"', f'language = "{language}"',
             f'gm_language = "{gm_language}"', f'gm_email = "{GM}"', "turn_hours = 24", "seed = 4", "",
             "[options]", "full_rounds = 1", f'dictionary = "{dictionary}"', ""]
    for n, e in PLAYERS:
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', ""]
    (tmp_path / "l.toml").write_text("\n".join(lines), encoding="utf-8")
    with db.session() as s:
        create_league(s, read_league_file(tmp_path / "l.toml"), cfg)
    deliver(db, md, cfg)


def _state(db) -> dict:
    with db.session() as s:
        return dict(s.scalar(select(Partie)).state)


def _opening(env, name: str, lex) -> list:
    """Every player mails their best opening word; the opening is adjudicated. Returns the
    mails sent meanwhile."""
    db, cfg, md = env
    st = _state(db)
    email_of = dict(zip(st["players"], [e for _, e in PLAYERS]))
    n = len(md.sent())
    for key, hand in st["hands"].items():
        best = best_word(Row.empty(), hand.replace("/", ""), lex)
        md.deliver_to_inbox(player_mail(email_of[key], best["notation"] if best else "XYZ"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    if _state(db)["phase"] == "opening":
        adjudicate_league(db, cfg, name, force=True)
        deliver(db, md, cfg)
    return md.sent()[n:]


def _gm_report(sent) -> str:
    (gm,) = [m for m in sent if header(m, "To") == GM and header(m, "Subject").count("Kopie") == 0
             and re.search(r"(?i)auswertung|uitslag", header(m, "Subject"))]
    return text_of(gm)


def test_gm_copy_of_a_dutch_league_is_wholly_german(tmp_path, env):
    db, cfg, md = env
    _start(tmp_path, env, "R-NL", "nl", "de", "nl")
    sent = _opening(env, "R-NL", load("nl"))
    acks = [text_of(m) for m in sent if header(m, "Subject").startswith("Re:")]
    assert acks and all("[ok]" not in a and "[--]" not in a for a in acks)
    gm = _gm_report(sent)
    assert "Eröffnung" in gm and not DUTCH.search(gm), DUTCH.search(gm)
    assert gm.count("\nHand: ") == 3 and "Deine Hand" not in gm and "Du bist" not in gm, gm
    players = [text_of(m) for m in sent if header(m, "To") != GM and "opening" in header(m, "Subject")]
    assert len(players) == 3 and all(not GERMAN.search(t) for t in players), [GERMAN.search(t) for t in players]
    # turn 1: the mover lays a word (with an exchange line); the GM copy stays German
    st = _state(db)
    mover = st["order"][0]
    email_of = dict(zip(st["players"], [e for _, e in PLAYERS]))
    hand = st["hands"][mover]
    best = best_word(Row.from_code(st["row"]), hand.replace("/", ""), load("nl"))
    n = len(md.sent())
    md.deliver_to_inbox(player_mail(email_of[mover], best["notation"] if best else "PAS"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    if _state(db)["turn"] == 0:
        adjudicate_league(db, cfg, "R-NL", force=True)
        deliver(db, md, cfg)
    sent = md.sent()[n:]
    assert all("[ok]" not in text_of(m) for m in sent)
    gm = _gm_report(sent)
    assert "Zug 1" in gm and not DUTCH.search(gm), (DUTCH.search(gm), gm)


def test_gm_copy_of_a_german_league_is_wholly_dutch(tmp_path, env):
    db, cfg, md = env
    _start(tmp_path, env, "R-DE", "de", "nl", "de")
    sent = _opening(env, "R-DE", load("rondo"))
    gm = _gm_report(sent)
    assert "opening" in gm and not GERMAN.search(gm), GERMAN.search(gm)
    # each player's hand as the game master reads about it, not in the player's words
    assert gm.count("\nKaarten: ") == 3 and "Je kaarten" not in gm and "Je bent" not in gm, gm
    mover = dict(zip(_state(db)["players"], [n for n, _ in PLAYERS]))[_state(db)["order"][0]]
    assert f"{mover} is nu aan de beurt." in gm and "Je zet als antwoord" not in gm, gm


def test_uitslag_n_is_the_number_of_the_subject(tmp_path, env):
    """The report of turn 1 is "uitslag beurt 1"; UITSLAG 1 sends that very report."""
    db, cfg, md = env
    _start(tmp_path, env, "R-NL", "nl", "de", "nl")
    _opening(env, "R-NL", load("nl"))
    n = len(md.sent())
    adjudicate_league(db, cfg, "R-NL", force=True)  # turn 1: the player on turn sends nothing
    deliver(db, md, cfg)
    report = next(m for m in md.sent()[n:] if header(m, "To") == "anna@example.org")
    subject = header(report, "Subject")
    assert re.search(r"beurt 1$", subject), subject
    assert "Stand na beurt 1" in text_of(report) and "ronde" not in text_of(report).lower()
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("anna@example.org", "UITSLAG 1", subject="UITSLAG 1"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (copy,) = [m for m in md.sent()[n:] if header(m, "To") == "anna@example.org"
               and header(m, "Subject").startswith("Kopie")]
    assert header(copy, "Subject").endswith(subject) and "Stand na beurt 1" in text_of(copy)


def test_new_deadline_fits_the_recipient(tmp_path, env):
    """Only the player on turn is told to send a move; the others learn who is on turn."""
    db, cfg, md = env
    cfg.gm_notice_window = 0  # the notice at once, not merged with later ones (issue 33)
    _start(tmp_path, env, "R-NL", "nl", "de", "nl")
    _opening(env, "R-NL", load("nl"))
    st = _state(db)
    email_of = dict(zip(st["players"], [e for _, e in PLAYERS]))
    name_of = dict(zip(st["players"], [n for n, _ in PLAYERS]))
    mover = st["order"][0] if "order" in st else st["players"][0]
    n = len(md.sent())
    with db.session() as s:
        league = s.scalar(select(League).where(League.name == "R-NL"))
        set_zat(s, cfg, league, "+2d")
    deliver(db, md, cfg)
    sent = {header(m, "To"): m for m in md.sent()[n:]}
    for key, addr in email_of.items():
        body = " ".join(text_of(sent[addr]).split())
        assert header(sent[addr], "Subject") == "R-NL: nieuwe deadline voor beurt 1"
        assert "deadline van beurt 1" in body and not GERMAN.search(body)
        if key == mover:
            assert "Tot dan kun je je zet sturen of wijzigen." in body
        else:
            assert f"{name_of[mover]} is aan de beurt; jij bent nu niet aan de beurt." in body
            assert "kun je je zet sturen" not in body


def test_archive_index_counts_turns(tmp_path, env):
    """The archive index names RONDO's open turn ("Zug 1"), never a round (issue 32)."""
    from bot.service.presentation.archive import build_archive
    db, cfg, md = env
    _start(tmp_path, env, "R-NL", "nl", "de", "nl")
    _opening(env, "R-NL", load("nl"))
    build_archive(db, tmp_path / "archiv")
    index = (tmp_path / "archiv" / "index.html").read_text(encoding="utf-8")
    assert "Zug 1" in index and "Runde 2" not in index


def test_gm_copy_says_the_reasons_about_the_player(tmp_path, env):
    """A line with cards the player does not hold: the player's own copy says it to them
    ("Deze kaarten heb je niet in je hand"), the game master's copy about them ("Diese
    Karten sind nicht auf der Hand"), in the GM's language (bot.games.verdict.about_mover)."""
    db, cfg, md = env
    _start(tmp_path, env, "R-NL", "nl", "de", "nl")
    st = _state(db)
    email_of = dict(zip(st["players"], [e for _, e in PLAYERS]))
    first = st["players"][0]
    hand = st["hands"][first].replace("/", "").upper()
    absent = "".join([c for c in "ZYXQWVJ" if c not in hand][:3])
    n = len(md.sent())
    for key, h in st["hands"].items():
        best = best_word(Row.empty(), h.replace("/", ""), load("nl"))
        text = best["notation"] if best else "XYZ"
        md.deliver_to_inbox(player_mail(email_of[key], f"{absent}\n{text}" if key == first else text))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    if _state(db)["phase"] == "opening":
        adjudicate_league(db, cfg, "R-NL", force=True)
        deliver(db, md, cfg)
    sent = md.sent()[n:]
    gm = _gm_report(sent)
    assert "Diese Karten sind nicht auf der Hand" in gm and "Diese Karten hast du" not in gm, gm
    mine = [text_of(m) for m in sent if header(m, "To") == email_of[first] and "opening" in header(m, "Subject")]
    assert mine and "Deze kaarten heb je niet in je hand" in mine[0], mine

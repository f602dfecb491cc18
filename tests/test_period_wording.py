"""Wording leftovers of issue 32: what players and game masters read names the game's
period as the game does ("Runde 3"; in a game of turns "Zug 2" or the opening; Dutch
"ronde", "beurt", "de opening") and gives a duration as a game master writes it, in the
recipient's language. Through the real service: league data, GM actions (``run_cli``,
which announces to the players like a mailed command), the mails out of the outbox."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from bot.service.conversations.gm import run_cli
from bot.service.operations.health import inbox_alarm, inbox_recovered, spoken_duration
from bot.service.operations.runner import poll_once
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from tests.helpers import header, player_mail
from tests.test_gm_answers import _league
from tests.test_gm_notices import GERMAN, _outage, text_of


def _mails(md, to: str, since: int = 0) -> list[tuple[str, str]]:
    """(subject, text with its white space folded) of every mail to ``to`` after the
    first ``since`` sent."""
    return [(header(m, "Subject"), " ".join(text_of(m).split())) for m in md.sent()[since:]
            if header(m, "To") == to]


@pytest.mark.parametrize("lang, seconds, text", [
    ("de", 4, "4 Sekunden"), ("de", 1, "1 Sekunde"), ("de", 180, "3 Minuten"), ("de", 65 * 60, "65 Minuten"),
    ("de", 3600 * 2, "2 Stunden"), ("de", 3600 + 60, "61 Minuten"), ("de", 3 * 3600 + 60, "3 Stunden und 1 Minute"),
    ("de", 2 * 3600 + 30 * 60, "2 Stunden und 30 Minuten"),
    ("nl", 1, "1 seconde"), ("nl", 180, "3 minuten"), ("nl", 60, "60 seconden"), ("nl", 3600 * 2, "2 uur"),
    ("nl", 2 * 3600 + 30 * 60, "2 uur en 30 minuten"), ("nl", 5 * 3600 + 60, "5 uur en 1 minuut"),
])
def test_a_duration_reads_as_a_game_master_writes_it(lang, seconds, text):
    assert spoken_duration(seconds, lang) == text


def test_the_inbox_all_clear_gives_the_outage_in_words_of_the_gms_language(env):
    db, cfg, md = env
    _league(env, "Stoor-Comp", "rondonl", "nl", "gm@stoor.example", language="nl")
    _league(env, "Stoer-Liga", "rondo", "de", "gm@stoer.example")
    start, clock = datetime.now(timezone.utc).replace(microsecond=0), [None]
    inbox = _outage(start, clock)
    assert inbox_alarm(db, cfg, inbox) == 2
    clock[0] = start + timedelta(hours=2, minutes=30)
    note = inbox.note()
    assert inbox_recovered(db, cfg, *inbox.succeeded()) == 2
    deliver(db, md, cfg)
    (nl,) = [t for s, t in _mails(md, "gm@stoor.example") if "weer leesbaar" in s]
    (de,) = [t for s, t in _mails(md, "gm@stoer.example") if "wieder lesbar" in s]
    assert ", 2 uur en 30 minuten, 4 pogingen)" in nl and not re.search(r"\d (?:h|min)\b", nl)
    assert ", 2 Stunden und 30 Minuten, 4 Versuche)" in de and not re.search(r"\d (?:h|min)\b", de)
    assert not GERMAN.search(nl)
    # the GM copy's remark while the inbox fails: the same words
    assert "gestört seit 2 Stunden und 30 Minuten)" in " ".join(note("de").split())
    assert "gestoord sinds 2 uur en 30 minuten)" in " ".join(note("nl").split())


def _gm_start(md, gm: str) -> str:
    (text,) = [t for s, t in _mails(md, gm) if s.endswith(("Liga angelegt", "competitie aangemaakt"))]
    return text


def test_the_gm_commands_in_the_start_mail_name_the_leagues_period(env):
    db, cfg, md = env
    _league(env, "Zug-Liga", "rondonl", "de", "gm@zug.example")
    _league(env, "Beurt-Comp", "rondonl", "nl", "gm@beurt.example", language="nl")
    _league(env, "Wer-Liga", "typdom-wbr", "de", "gm@wer.example")
    _league(env, "Runden-Liga", "rondo", "de", "gm@runden.example")
    for gm in ("gm@zug.example", "gm@wer.example"):
        text = _gm_start(md, gm)
        assert "AUSWERTEN <Liga>: den offenen Zug jetzt" in text
        assert "STATUS <Liga>: läuft oder angehalten (seit wann, von wem), Zug, ZAT" in text
        assert "Runde" not in text
    dutch = _gm_start(md, "gm@beurt.example")
    assert "UITWERKEN <competitie>: de open beurt nu" in dutch and not re.search(r"\bronde\b", dutch)
    assert "(sinds, door wie), beurt, deadline" in dutch and not GERMAN.search(dutch.split("-- ")[0])
    rounds = _gm_start(md, "gm@runden.example")
    assert "AUSWERTEN <Liga>: die offene Runde jetzt" in rounds and "Zug, ZAT" not in rounds


def test_a_set_move_names_the_turn_to_the_player(env):
    db, cfg, md = env
    _league(env, "Setz-Liga", "rondonl", "de", "gm@setz.example")
    _league(env, "Zet-Comp", "rondonl", "nl", "gm@zet.example", language="nl")
    for name in ("Setz-Liga", "Zet-Comp"):
        with db.session() as s:
            run_cli(s, cfg, "setze", name, player="Anna Albers", partie="R1", moves=["ABC"])
    deliver(db, md, cfg)
    (de,) = [t for s, t in _mails(md, "anna@setz-liga.example") if "eingetragen" in s]
    assert "in Setz-Liga, Partie R1, diese Züge für die Eröffnung eingetragen" in de and "Runde" not in de
    (nl,) = [t for s, t in _mails(md, "anna@zet-comp.example") if "ingevoerd" in s or "ingevuld" in s]
    assert "partij R1, deze zetten voor de opening ingevoerd" in nl and "ronde" not in nl
    assert not GERMAN.search(nl)


def test_a_rollback_names_the_turn_and_the_opening(env):
    db, cfg, md = env
    _league(env, "Zurueck-Liga", "rondonl", "de", "gm@zurueck.example")
    _league(env, "Terug-Comp", "rondonl", "nl", "gm@terug.example", language="nl")
    for name in ("Zurueck-Liga", "Terug-Comp"):
        adjudicate_league(db, cfg, name, force=True)  # the opening
    deliver(db, md, cfg)
    n = len(md.sent())
    with db.session() as s:
        run_cli(s, cfg, "zurueck", "Zurueck-Liga")
    deliver(db, md, cfg)
    ((subject, text),) = _mails(md, "anna@zurueck-liga.example", n)
    assert subject == "Zurueck-Liga: Eröffnung zurückgesetzt"
    assert text.startswith("Hallo Anna Albers, der Spielleiter hat die Eröffnung von Zurueck-Liga zurückgesetzt: "
                           "die Ergebnisse sind gelöscht, die Partien stehen wieder wie davor, und die Eröffnung "
                           "ist wieder offen.")
    assert "Was du für die Eröffnung geschickt hast, bleibt gespeichert" in text and "Runde" not in text
    with db.session() as s:  # turn 1: adjudicate the opening again and turn 1, then take turn 1 back
        run_cli(s, cfg, "weiter", "Zurueck-Liga")
    for name in ("Zurueck-Liga", "Terug-Comp", "Zurueck-Liga"):  # both at turn 1 now
        adjudicate_league(db, cfg, name, force=True)
    deliver(db, md, cfg)
    n = len(md.sent())
    for name in ("Zurueck-Liga", "Terug-Comp"):
        with db.session() as s:
            run_cli(s, cfg, "zurueck", name)
    deliver(db, md, cfg)
    ((subject, text),) = _mails(md, "anna@zurueck-liga.example", n)
    assert subject == "Zurueck-Liga: Zug 1 zurückgesetzt"
    assert "der Spielleiter hat Zug 1 von Zurueck-Liga zurückgesetzt" in text and "Runde" not in text
    ((subject, text),) = _mails(md, "anna@terug-comp.example", n)
    assert subject == "Terug-Comp: beurt 1 teruggezet"
    assert "de spelleider heeft beurt 2 van Terug-Comp" not in text
    assert "de spelleider heeft beurt 1 van Terug-Comp teruggezet" in text and "ronde" not in text
    assert not GERMAN.search(text)


def test_resuming_after_the_zat_names_the_turn(env):
    db, cfg, md = env
    _league(env, "Weiter-Liga", "rondonl", "de", "gm@weiter.example")
    adjudicate_league(db, cfg, "Weiter-Liga", force=True)  # the opening; now turn 1
    later = datetime.now(timezone.utc) + timedelta(days=30)
    with db.session() as s:
        run_cli(s, cfg, "pause", "Weiter-Liga")
    deliver(db, md, cfg)
    n = len(md.sent())
    with db.session() as s:
        run_cli(s, cfg, "weiter", "Weiter-Liga", now=later)
    deliver(db, md, cfg)
    texts = [t for s, t in _mails(md, "anna@weiter-liga.example", n) if "geht weiter" in s]
    assert texts and "ist schon vorbei: Zug 1 wird jetzt ausgewertet." in texts[0] and "Runde" not in texts[0]


def test_report_without_a_number_asks_for_the_turn(env):
    db, cfg, md = env
    _league(env, "Frage-Liga", "rondonl", "de", "gm@frage.example")
    _league(env, "Vraag-Comp", "rondonl", "nl", "gm@vraag.example", language="nl")
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("anna@frage-liga.example", "\n", subject="AUSWERTUNG"))
    md.deliver_to_inbox(player_mail("anna@vraag-comp.example", "\n", subject="UITSLAG"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (de,) = [t for s, t in _mails(md, "anna@frage-liga.example", n)]
    (nl,) = [t for s, t in _mails(md, "anna@vraag-comp.example", n)]
    assert "Welcher Zug? Bitte so: AUSWERTUNG 3" in de and "Runde" not in de
    assert "Welke beurt? Zo graag: UITSLAG 3" in nl and not GERMAN.search(nl)


def test_the_operators_log_names_the_games_period(env, caplog):
    """The service's log lines for a ZAT that fired (its job, a ZAT caught up before a mail
    is read, one caught up at a pass) name the period as the game does: "Eröffnung" and
    "Zug 1" in RONDO, "Runde 1" in Rondo; never "Runde" in a game of turns."""
    import logging

    from sqlalchemy import select

    from bot.service.operations.runner import Service
    from bot.service.stages.rounds import adjudicate_passed
    from bot.storage.models import League, Round

    db, cfg, md = env
    _league(env, "Log-Comp", "rondonl", "nl", "gm@log.example", language="nl")
    _league(env, "Log-Liga", "rondo", "de", "gm@logliga.example")

    def due(name: str) -> None:  # the open round's ZAT five minutes ago
        with db.session() as s:
            lg = s.scalar(select(League).where(League.name == name))
            s.scalar(select(Round).where(Round.league_id == lg.id, Round.status == "open")).zat = \
                datetime.now(timezone.utc) - timedelta(minutes=5)

    caplog.set_level(logging.INFO)
    due("Log-Comp")
    Service(db, cfg).fire("Log-Comp")  # the ZAT's job
    due("Log-Comp")
    adjudicate_passed(db, cfg, datetime.now(timezone.utc))  # before a mail that came after the ZAT
    due("Log-Liga")
    Service(db, cfg)._adjudicate_due(read=True)  # caught up at a pass
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("bot") and
             ("ausgewertet" in r.getMessage() or "nachgeholt" in r.getMessage())]
    assert "ausgewertet: Log-Comp Eröffnung" in lines
    assert any(ln.startswith("ZAT Log-Comp Zug 1 nachgeholt vor dem Lesen einer Mail von ") for ln in lines)
    assert "ZAT nachgeholt: Log-Liga Runde 1" in lines
    assert not [ln for ln in lines if "Log-Comp" in ln and "Runde" in ln]


def test_only_games_of_rounds_let_players_join():
    """The texts for a late joiner (bot.i18n "joined_later", the rollback's notice to a
    joiner in gmplay.rollback, Monoscrabble's start mail "Du spielst ab Runde n mit") say
    "Runde": right because only a game of rounds lets players join a running league
    (ANMELDEN, ``open_join``: Monoscrabble, seed 001). A game of turns that lets players
    join would need these texts to name the turn (TERMS.md)."""
    from bot.games import load_games

    joinable = [g for g in load_games().values() if g.open_join]
    assert [g.name for g in joinable] == ["monoscrabble"]
    for g in joinable:
        assert not g.turn_rounds and all(g.turn_of(n) is None for n in range(1, 12)), g.name

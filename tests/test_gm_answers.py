"""The answers the bot mails to a game master for a mailed GM command (PAUSE, AUSWERTEN,
ZURUECK, ...) and its refusals (an unknown player) are in the GM's language
(``gm_language``) and name the game's period: "Runde 3", in a game of turns (RONDO) "Zug 2"
or the opening; Dutch "ronde", "beurt", "de opening". The CLI, the operator's tool, stays
German. Through the real service: league data, GM mails with address and code into the
Maildir inbox, ``poll_once``, the answer out of the outbox."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from bot.service.conversations.gm import run_cli
from bot.service.operations.league import create_league
from bot.service.operations.runner import poll_once
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from tests.helpers import header, player_mail, text_of
from tests.test_gm_notices import GERMAN

CODE = "Geheim-4711"


def _league(env, name: str, game: str, gm_language: str, gm: str, language: str = "de") -> None:
    db, cfg, md = env
    cfg.gm_notice_window = 0  # each notice at once (the merging: tests/test_gm_pause.py)
    zat = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    spec = {"name": name, "game": game, "partien": ["R1"], "first_zat": zat.isoformat(), "zat_interval_days": 7,
            "seed": "answers", "gm_email": gm, "gm_code": CODE, "language": language, "gm_language": gm_language,
            "require_code": False,
            "players": [{"name": n, "email": f"{n.split()[0].lower()}@{name.lower()}.example"}
                        for n in ("Anna Albers", "Bernd Becker", "Clara Conrad")]}
    if game == "rondonl":
        spec["turn_hours"] = 48
    with db.session() as s:
        create_league(s, spec, cfg)
    deliver(db, md, cfg)


def _answer(env, gm: str, subject: str) -> str:
    """Mail GM command ``subject`` from ``gm`` with the code; the answer's text, one line."""
    db, cfg, md = env
    n = len(md.sent())
    md.deliver_to_inbox(player_mail(gm, f"Code: {CODE}\n", subject=subject))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (answer,) = [m for m in md.sent()[n:] if header(m, "To") == gm and header(m, "Subject").startswith("Re:")]
    text = text_of(answer)
    assert max(len(line) for line in text.splitlines()) <= 72
    return " ".join(text.split())


def test_a_dutch_gm_of_rondo_reads_beurt_in_the_answers(env):
    db, cfg, md = env
    _league(env, "Beurt-Comp", "rondonl", "nl", "gm@beurt.example", language="nl")
    adjudicate_league(db, cfg, "Beurt-Comp", force=True)  # the opening; now turn 1
    deliver(db, md, cfg)
    # a Dutch GM writes the commands in Dutch, and the answers name them so (PAUZE, VERDER, ...)
    pause = _answer(env, "gm@beurt.example", "PAUZE Beurt-Comp")
    assert "Beurt-Comp is gepauzeerd; beurt 1 wordt pas uitgewerkt na VERDER (of UITWERKEN)" in pause
    assert "3 spelers op de hoogte gebracht." in pause and not GERMAN.search(pause)
    assert pause.startswith("Hallo Spelleider,")
    done = _answer(env, "gm@beurt.example", "UITWERKEN Beurt-Comp")
    assert done.startswith("Hallo Spelleider, Beurt 1 van Beurt-Comp uitgewerkt (partij R1")
    assert "Runde" not in done and "ronde" not in done and not GERMAN.search(done)
    back = _answer(env, "gm@beurt.example", "TERUGDRAAIEN Beurt-Comp")
    assert "Beurt 1 van Beurt-Comp is teruggedraaid en weer open" in back
    assert "(UITWERKEN werkt opnieuw uit, VERDER hervat)" in back
    assert "Runde" not in back and not GERMAN.search(back)
    status = _answer(env, "gm@beurt.example", "STATUS Beurt-Comp")
    assert "Beurt-Comp (RONDO): gepauzeerd sinds" in status and "Beurt 1: deadline" in status
    assert "zetten ontvangen van 0 van de 3 spelers" in status and not GERMAN.search(status)
    later = _answer(env, "gm@beurt.example", "DEADLINE Beurt-Comp +1d")
    assert "Deadline van beurt 1 in Beurt-Comp:" in later and not GERMAN.search(later)
    again = _answer(env, "gm@beurt.example", "VERDER Beurt-Comp")
    assert "Beurt-Comp loopt weer. Volgende deadline:" in again and not GERMAN.search(again)


def test_the_opening_is_named_as_such(env):
    db, cfg, md = env
    _league(env, "Opening-Comp", "rondonl", "nl", "gm@opening.example", language="nl")
    _league(env, "Eroeffnung-Liga", "rondonl", "de", "gm@eroeffnung.example")
    assert "de opening wordt pas uitgewerkt" in _answer(env, "gm@opening.example", "PAUSE Opening-Comp")
    done = _answer(env, "gm@eroeffnung.example", "AUSWERTEN Eroeffnung-Liga")
    assert "Die Eröffnung von Eroeffnung-Liga ausgewertet" in done and "Runde" not in done


def test_a_german_gm_of_a_round_game_reads_runde(env):
    db, cfg, md = env
    _league(env, "Runden-Liga", "rondo", "de", "gm@runden.example")
    pause = _answer(env, "gm@runden.example", "PAUSE Runden-Liga")
    assert "Runden-Liga ist angehalten; Runde 1 wird erst ausgewertet, wenn WEITER kommt" in pause
    done = _answer(env, "gm@runden.example", "AUSWERTEN Runden-Liga")
    assert "Runde 1 von Runden-Liga ausgewertet (Partie R1" in done
    back = _answer(env, "gm@runden.example", "ZURUECK Runden-Liga")
    assert "Runde 1 von Runden-Liga ist zurückgesetzt und wieder offen" in back
    assert "3 Spieler benachrichtigt." in back


def test_a_refusal_is_in_the_gms_language_and_the_cli_stays_german(env):
    db, cfg, md = env
    _league(env, "Fout-Comp", "rondo", "nl", "gm@fout.example")  # German players, a Dutch GM
    nl = _answer(env, "gm@fout.example", "VERWIJDEREN Fout-Comp Xaver")
    assert ("VERWIJDEREN Fout-Comp: niet uitgevoerd: er is geen speler 'Xaver' in Fout-Comp. Spelers in "
            "Fout-Comp: Anna Albers, Bernd Becker, Clara Conrad.") in nl
    assert not GERMAN.search(nl)
    with db.session() as s:
        try:
            run_cli(s, cfg, "entferne", "Fout-Comp", player="Xaver")
        except Exception as exc:  # the operator's tool: German
            assert str(exc).startswith("einen Spieler 'Xaver' gibt es in Fout-Comp nicht")
        else:  # pragma: no cover
            raise AssertionError("ENTFERNE of an unknown player must fail")


def test_review_and_release_name_the_turn(env):
    db, cfg, md = env
    _league(env, "Vrij-Comp", "rondonl", "nl", "gm@vrij.example", language="nl")
    on = _answer(env, "gm@vrij.example", "CONTROLE Vrij-Comp aan")
    assert "Controle van de uitslagen in Vrij-Comp: aan." in on and not GERMAN.search(on)
    done = _answer(env, "gm@vrij.example", "AUSWERTEN Vrij-Comp")
    assert "De opening van Vrij-Comp uitgewerkt" in done and "wachten op vrijgave (VRIJGEVEN)" in done
    free = _answer(env, "gm@vrij.example", "VRIJGEVEN Vrij-Comp")
    assert "uitslagen van Vrij-Comp (de opening) vrijgegeven; ze gaan nu de deur uit." in free
    assert "Runde" not in free and not GERMAN.search(free)


def test_a_dutch_gm_writes_stil_and_controle_in_dutch(env):
    db, cfg, md = env
    _league(env, "Stil-Comp", "rondonl", "nl", "gm@stil.example", language="nl")
    n = len(md.sent())
    pause = _answer(env, "gm@stil.example", "PAUZE Stil-Comp STIL")
    assert "Stil-Comp is gepauzeerd" in pause and "Stil: geen speler op de hoogte gebracht." in pause
    assert not [m for m in md.sent()[n:] if header(m, "To").startswith("anna@")]  # STIL: no notice
    on = _answer(env, "gm@stil.example", "CONTROLE Stil-Comp aan")
    assert "Controle van de uitslagen in Stil-Comp: aan." in on and not GERMAN.search(on)
    off = _answer(env, "gm@stil.example", "CONTROLE Stil-Comp uit")
    assert "Controle van de uitslagen in Stil-Comp: uit." in off and not GERMAN.search(off)


def test_an_answer_names_the_command_by_the_word_the_gm_wrote(env):
    """A Dutch GM who writes the German word reads it back (not the Dutch one he did not
    write), a German GM who writes the Dutch word too; the word of the GM's language only
    when the mail has none (bot.service.conversations.gm._typed)."""
    db, cfg, md = env
    _league(env, "Woord-Comp", "rondo", "nl", "gm@woord.example")
    _league(env, "Wort-Liga", "rondo", "de", "gm@wort.example")
    nl = _answer(env, "gm@woord.example", "ENTFERNE Woord-Comp Xaver")
    assert "ENTFERNE Woord-Comp: niet uitgevoerd: er is geen speler 'Xaver'" in nl and "VERWIJDEREN" not in nl
    de = _answer(env, "gm@wort.example", "Re: verwijderen Wort-Liga Xaver")
    assert "VERWIJDEREN Wort-Liga: nicht ausgeführt: einen Spieler 'Xaver' gibt es in Wort-Liga nicht" in de
    assert "ENTFERNE" not in de
    # the command in the first line of the text, not in the subject
    db, cfg, md = env
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("gm@wort.example", f"Code: {CODE}\npauze: Wort-Liga\n", subject="Hallo"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (answer,) = [m for m in md.sent()[n:] if header(m, "To") == "gm@wort.example"]
    assert "Wort-Liga ist angehalten" in " ".join(text_of(answer).split())


def test_the_question_for_the_league_and_the_refusal_name_the_word_written(env):
    db, cfg, md = env
    _league(env, "Een-Comp", "rondo", "nl", "gm@twee.example")
    _league(env, "Twee-Comp", "rondo", "nl", "gm@twee.example")
    which = _answer(env, "gm@twee.example", "WEITER")  # two leagues: which one?
    assert "voor welke competitie? Graag zo: WEITER <competitie> ... (je competities: Een-Comp, Twee-Comp)" in which
    assert "VERDER" not in which
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("gm@twee.example", "Code: Falsch-0000\n", subject="Pausieren Een-Comp"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (notice,) = [m for m in md.sent()[n:] if "geweigerd" in header(m, "Subject")]
    text = " ".join(text_of(notice).split())
    assert "een spelleidersopdracht PAUSIEREN voor Een-Comp kwam" in text and "PAUZE" not in text


def test_stil_and_still_in_every_place_for_every_gm(env):
    """STILL (Dutch STIL) after the league or in a line of its own below the command, from
    a Dutch and from a German GM: no player is told, the answer says so."""
    db, cfg, md = env
    _league(env, "Zacht-Comp", "rondo", "nl", "gm@zacht.example")
    _league(env, "Leise-Liga", "rondo", "de", "gm@leise.example")
    for gm, command, body, said in (
            ("gm@zacht.example", "PAUZE Zacht-Comp", "Stil", "Stil: geen speler op de hoogte gebracht."),
            ("gm@zacht.example", "VERDER Zacht-Comp STILL", "", "Stil: geen speler op de hoogte gebracht."),
            ("gm@leise.example", "PAUSE Leise-Liga", "STIL", "Still: kein Spieler benachrichtigt."),
            ("gm@leise.example", "WEITER Leise-Liga stil", "", "Still: kein Spieler benachrichtigt.")):
        n = len(md.sent())
        md.deliver_to_inbox(player_mail(gm, f"Code: {CODE}\n{body}\n", subject=command))
        poll_once(db, cfg)
        deliver(db, md, cfg)
        (answer,) = [m for m in md.sent()[n:] if header(m, "To") == gm]  # the answer, no notice
        assert said in " ".join(text_of(answer).split()), command
    loud = _answer(env, "gm@leise.example", "PAUSE Leise-Liga")
    assert "3 Spieler benachrichtigt." in loud


def test_each_gm_word_of_each_language_is_taken():
    """The word an answer names in the GM's language (the catalog's translation of the
    German word, gm.word) is one the bot takes from every GM (gm.GM_WORDS, from the
    registrations): Dutch DEADLINE, PAUZE, ..., STIL, ADRES."""
    from bot.i18n import LANGUAGES, texts
    from bot.service.conversations import registry
    from bot.service.conversations.gm import GM_WORDS, word

    assert {c.name for c in registry.COMMANDS.values() if c.gm} == {n for n in GM_WORDS if n != "STILL"} - {
        "ADRESSE"} | {"ADRESSE-GM"}
    for lang in LANGUAGES:
        for name, spelled in GM_WORDS.items():
            assert word(texts(lang), name) in spelled, (lang, name)
    assert [word(texts("nl"), n) for n in ("ZAT", "PAUSE", "WEITER", "AUSWERTEN", "STILL", "ADRESSE")] == [
        "DEADLINE", "PAUZE", "VERDER", "UITWERKEN", "STIL", "ADRES"]
    for name, spelled in GM_WORDS.items():  # every spelling reaches its command
        if name not in ("STILL", "ADRESSE"):
            assert {registry.ALIASES[w] for w in spelled} == {name}

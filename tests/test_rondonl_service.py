"""RONDO in a German league through the service (Maildir, SQLite and PostgreSQL): German
start mail and acknowledgement, the German word list on request, TAUSCH ending the turn
at once without revealing the drawn card, STAND with marks, show --json hands for the GM.
(The Dutch league runs end to end in tests/test_e2e_rondonl.py.)"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from bot.games.rondo.cards import Row
from bot.games.rondonl.cards import take
from bot.games.rondonl.engine import best_word
from bot.lexicon import load
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.operations.runner import poll_once
from bot.service.presentation.view import league_view
from bot.storage.models import Partie
from tests.helpers import header, player_mail, text_of

PLAYERS = [("Anna Albers", "anna@example.org"), ("Bernd Becker", "bernd@example.org"),
           ("Clara Conrad", "clara@example.org")]


def _state(db):
    with db.session() as s:
        return dict(s.scalar(select(Partie)).state)


def _start(tmp_path, env, name: str, language: str, head=(), options=(), codes: bool = False) -> None:
    """Create a RONDO league ``name`` of :data:`PLAYERS` (first ZAT in two days, one full
    round; ``head``/``options``: more lines for the league table and ``[options]``;
    ``codes``: personal codes ``geheim-0`` ...) and deliver its start mails."""
    db, cfg, md = env
    zat = (datetime.now(timezone.utc) + timedelta(days=2)).replace(microsecond=0)
    lines = [f'name = "{name}"', 'game = "rondonl"', f'first_zat = "{zat.isoformat()}"', f'language = "{language}"',
             "seed = 4", *head, "", "[options]", "full_rounds = 1", *options, ""]
    for i, (n, e) in enumerate(PLAYERS):
        lines += ["[[players]]", f'name = "{n}"', f'email = "{e}"', *([f'code = "geheim-{i}"'] if codes else []), ""]
    (tmp_path / "l.toml").write_text("\n".join(lines), encoding="utf-8")
    with db.session() as s:
        create_league(s, read_league_file(tmp_path / "l.toml"), cfg)
    deliver(db, md, cfg)


def test_german_rondo_league(tmp_path, env):
    db, cfg, md = env
    _start(tmp_path, env, "R-DE", "de", head=('turn_hours = 24',), options=('dictionary = "de"',))
    st = _state(db)
    email_of = dict(zip(st["players"], [e for _, e in PLAYERS]))
    starts = {header(m, "To"): text_of(m) for m in md.sent()}
    assert all(header(m, "Subject") == "R-DE: Spielbeginn" for m in md.sent())
    assert "So spielst du RONDO per Mail" in starts["anna@example.org"] and "Deine Hand: " in starts["anna@example.org"]
    lex = load("rondo")  # the German list, by the league's option
    for key, hand in st["hands"].items():
        best = best_word(Row.empty(), hand.replace("/", ""), lex)
        md.deliver_to_inbox(player_mail(email_of[key], best["notation"] if best else "XYZ"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    st = _state(db)
    if st["phase"] == "opening":  # somebody had no German three-letter word: the opening waits for its ZAT
        from bot.service.stages.rounds import adjudicate_league
        adjudicate_league(db, cfg, "R-DE", force=True)
        deliver(db, md, cfg)
        st = _state(db)
    assert st["phase"] == "play"
    mover = st["order"][0]
    hand = st["hands"][mover]
    # TAUSCH and a word that does not need the drawn card: the turn ends at once
    card = next(c for c in hand if c != "/")
    rest = take(hand, card)
    best = best_word(Row.from_code(st["row"]), rest, lex)
    body = f"TAUSCH {card}\n" + (best["notation"] if best else "PASSE")
    n = len(md.sent())
    md.deliver_to_inbox(player_mail(email_of[mover], body))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    sent = md.sent()[n:]
    ack = next(text_of(m) for m in sent if header(m, "Subject").startswith("Re:")).replace("\r\n", "\n")
    assert f"Zug:\n    TAUSCH {card}\n" in ack and f"1. TAUSCH {card} – Tausch {card}: -2 Punkte." in ack and "[ok]" not in ack
    if best:
        assert f"-> gültig: {best['word']}, {best['score'] - 2} Punkte\n" in ack
        assert "Dein Zug ist damit beendet; der nächste Spieler ist am Zug." in ack  # said once, at the end
        assert "ZAT:" not in ack.split("beendet;")[1]  # no old deadline for a finished turn
    assert "gezogen" not in ack  # the drawn card is not shown before the Auswertung
    after = _state(db)
    drawn = after["history"] and after["hands"][mover]
    assert after["turn"] == 1 and after["scores"][mover] == (best["score"] - 2 if best else -2)
    reports = {header(m, "To"): text_of(m) for m in sent if "Auswertung Zug 1" in header(m, "Subject")}
    assert len(reports) == 3
    assert "Für den Tausch gezogen" in reports[email_of[mover]]
    assert all("Für den Tausch gezogen" not in t for e, t in reports.items() if e != email_of[mover])
    assert "Striche" in reports[email_of[mover]] and drawn
    # STAND shows points and marks, in German
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("clara@example.org", "STAND", subject="STAND"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    stand = text_of(md.sent()[n])
    assert "Wertung R-DE:" in stand and "0 Striche" in stand
    # show --json: the row, turn, seats, hand sizes, marks, and every hand for the GM
    view = league_view(db, "R-DE")
    part = view["partien"][0]
    # players named by address, as in ``players`` (issue 23)
    assert part["turn"] == 1 and part["row"] == after["row"] and part["seats"] == [email_of[k] for k in after["players"]]
    assert part["hand_sizes"][email_of[mover]] == len(after["hands"][mover])
    assert part["marks"][email_of[mover]] == (0 if best else 1)
    assert [p["hand"] for p in part["players"]] == [after["hands"][k] for k in after["players"]]


def test_dutch_league_answers_commands_in_dutch(tmp_path, env):
    """Issue 11: every mail of a Dutch league is Dutch, the command answers too (VAKANTIE,
    ADRES, UITSLAG n with its mistakes); the Dutch aliases reach the same commands."""
    db, cfg, md = env
    _start(tmp_path, env, "R-NL", "nl", head=('turn_hours = 24',))

    def ask(subject: str) -> str:
        n = len(md.sent())
        md.deliver_to_inbox(player_mail("anna@example.org", subject, subject=subject))
        poll_once(db, cfg)
        deliver(db, md, cfg)
        (answer,) = md.sent()[n:]
        return " ".join(text_of(answer).split())

    assert "Vakantie genoteerd: 24.12.2026 tot 06.01.2027" in ask("VAKANTIE 24.12.2026-06.01.2027")
    assert "je vakantie is voorbij" in ask("VAKANTIE EINDE")
    assert "Die datum begrijp ik niet" in ask("VAKANTIE 31.02.2026-01.03.2026")
    assert "Zo graag: ADRES nieuw@example.org" in ask("ADRES")
    assert "bernd@example.org hoort al bij een andere speler" in ask("ADRES bernd@example.org")
    assert "Welke beurt?" in ask("UITSLAG")
    # UITSLAG n takes the number the subjects use: the turn (issue 32)
    assert "Beurt 7 van R-NL is nog niet uitgewerkt." in ask("UITSLAG 7")  # a turn to come: not yet
    assert "Beurt 7 van R-NL is nog niet uitgewerkt." in ask("UITSLAG 7 ALLES")
    help_text = ask("HELP")
    assert "VAKANTIE 24.12.-06.01." in help_text and "ADRES nieuw@example.org" in help_text
    assert not any(w in help_text for w in ("Urlaub", "Befehle", "Runde"))


def test_dutch_league_code_notice_in_dutch(tmp_path, env):
    """A Dutch league that requires personal codes: a mail without the code is told in
    Dutch (subject and text), and nothing is stored as a move."""
    db, cfg, md = env
    _start(tmp_path, env, "R-NLC", "nl", head=('require_code = true',), codes=True)
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("anna@example.org", "PAS", subject="R-NLC"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (notice,) = md.sent()[n:]
    body = " ".join(text_of(notice).split())
    assert header(notice, "Subject") == "R-NLC: mail telt niet"
    assert "zonder je persoonlijke code" in body and "'Code: ...'" in body and "Code:" in body
    assert "Kommen" not in body and "Mail" not in body.replace("mail", "")
    # more wrong codes within the hour: one summary, in Dutch, flagged as guessing
    for i in range(6):
        md.deliver_to_inbox(player_mail("anna@example.org", f"Code: fout-{i}\nPAS", subject="R-NLC"))
    poll_once(db, cfg)
    from bot.storage.models import OutboxMail
    with db.session() as s:
        (later,) = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auth", OutboxMail.status == "pending"))
        text = " ".join(text_of(later.raw).split())
    assert "kwamen er 6 mails (zetten of opdrachten voor R-NLC) zonder de juiste code" in text
    assert "verkeerde code" in text and "iemand je code te raden" in text and "Uhr" not in text


def test_dutch_league_unreadable_mail_answered_in_dutch(tmp_path, env):
    """A Dutch player's mail that cannot be read (too deeply nested) is answered in Dutch,
    with the reason in Dutch."""
    db, cfg, md = env
    _start(tmp_path, env, "R-NLU", "nl")
    n = len(md.sent())
    raw = (b"From: Anna Albers <anna@example.org>\r\nTo: spielleiter@example.org\r\nSubject: zet\r\n"
           b"Message-ID: <diep@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n"
           + b"".join(f'--b{i}\r\nContent-Type: multipart/mixed; boundary="b{i + 1}"\r\n\r\n'.encode() for i in range(40))
           + b"--b40\r\nContent-Type: text/plain\r\n\r\nPAS\r\n")
    md.deliver_to_inbox(raw)
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (answer,) = md.sent()[n:]
    body = " ".join(text_of(answer).split())
    assert "je mail (onderwerp: zet) kon ik niet lezen: hij bestaat uit te veel in elkaar geneste delen (meer dan 32)" in body


def test_unknown_sender_is_answered_in_the_leagues_languages(tmp_path, env):
    """An unknown sender gets the answer in the language of the league the mail names, else
    in the one language all running leagues share, else in each (German first); a player
    the mail names (in a league it names) is told in the language of their league."""
    db, cfg, md = env
    _start(tmp_path, env, "Amstel", "nl")
    md.deliver_to_inbox(player_mail("vreemd@example.net", "Hoi, ik wil meedoen.\nRONDO"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    n = len(md.sent())
    only_nl = [text_of(m) for m in md.sent() if header(m, "To") == "vreemd@example.net"]
    assert len(only_nl) == 1 and "bij geen lopende competitie aangemeld" in only_nl[0]
    assert "keiner laufenden Liga" not in only_nl[0] and "Spelleider-bot" in only_nl[0]
    # a German league runs beside it: both languages, German first, unless a league is named
    (tmp_path / "de").mkdir()
    _start(tmp_path / "de", env, "Rhein", "de", options=('dictionary = "de"',))
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("fremd@example.net", "Ich spiele mit, Anna Albers", subject="Meine Züge"))
    md.deliver_to_inbox(player_mail("vreemd@example.net", "Mijn zetten voor amstel"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    sent = md.sent()[n:]
    both = next(text_of(m) for m in sent if header(m, "To") == "fremd@example.net")
    assert both.index("keiner laufenden Liga") < both.index("bij geen lopende competitie")
    named = next(text_of(m) for m in sent if header(m, "To") == "vreemd@example.net")
    assert "bij geen lopende competitie" in named and "keiner laufenden Liga" not in named
    # the mail names no league: its names are matched in no league (issue 31)
    assert not [m for m in sent if header(m, "To") == "anna@example.org"]
    # naming both leagues: Anna plays in both and is told once per league, each in its
    # league's language, and never the unknown address (issue 31)
    n = len(md.sent())
    md.deliver_to_inbox(player_mail("fremd@example.net", "Für Amstel und Rhein: Anna Albers", subject="Züge"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    sent = md.sent()[n:]
    anna = {header(m, "Subject"): " ".join(text_of(m).split()) for m in sent if header(m, "To") == "anna@example.org"}
    assert "een mail van een adres dat in Amstel niet is aangemeld, noemt je naam" in anna["Amstel: melding"]
    assert "eine Mail von einer Adresse, die in Rhein nicht angemeldet ist, nennt dich" in anna["Rhein: Hinweis"]
    assert not any("fremd@" in text_of(m) for m in sent)

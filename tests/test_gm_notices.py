"""The service's own notices to the game master (a mail the recipient's server refuses,
Auswertungen slowed by the send limits, the inbox that cannot be read and reads again,
the remark on top of the GM copy of an Auswertung made meanwhile, bounces) in the game
master's language (``gm_language``), with the game's term for the period between two
ZATs (Runde, Zug, the opening; Dutch ronde, beurt, opening), wrapped at 72 characters and
signed with the league's name when the notice is about one league. Through the real
stages: leagues created from league data, mails sent through the outbox into a Maildir
whose server may refuse an address."""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from bot.mail.transport import PermanentFailure, ServerFailure
from bot.service.operations.health import Outage, inbox_alarm, inbox_recovered
from bot.service.operations.league import create_league
from bot.service.operations.runner import poll_once
from bot.service.stages.outbox import deliver, queue_mail, warn_slow
from bot.service.stages.quota import Budget, Limits, order_key
from bot.service.stages.rounds import adjudicate_league
from bot.storage.models import League, OutboxMail
from tests.helpers import header
from tests.helpers import text_of as _raw_text
from tests.wording_terms import GERMAN as GERMAN_WORDS

#: German words that no Dutch sentence contains (the wording check's list), and a few of the
#: service's own
GERMAN = re.compile(GERMAN_WORDS.pattern + r"|\b(?:Posteingang|Versuche?|Mail an|zustellbar)\b")


class Refusing:
    """The Maildir, behind a server that refuses every address at ``nirgends.invalid``."""

    def __init__(self, md) -> None:
        self.md = md

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        if any(r.endswith("@nirgends.invalid") for r in recipients):
            raise PermanentFailure("5.1.1 Recipient address rejected: User unknown", 550)
        self.md.send(raw, sender, recipients)


def _league(env, name: str, game: str, gm_language: str, gm: str, *, refused: bool = False,
            language: str = "de") -> None:
    db, cfg, md = env
    zat = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    players = [("Anna Albers", f"anna@{name.lower()}.example"),
               ("Bernd Becker", "bernd@nirgends.invalid" if refused else f"bernd@{name.lower()}.example"),
               ("Clara Conrad", f"clara@{name.lower()}.example")]
    spec = {"name": name, "game": game, "partien": ["R1"], "first_zat": zat.isoformat(), "zat_interval_days": 7,
            "seed": "notices", "gm_email": gm, "language": language, "gm_language": gm_language,
            "require_code": False, "players": [{"name": n, "email": e} for n, e in players]}
    if game != "rondo":
        spec["turn_hours"] = 48
    with db.session() as s:
        create_league(s, spec, cfg)


def text_of(raw: bytes) -> str:
    """The text part, with plain line ends."""
    return _raw_text(raw).replace("\r\n", "\n")


def _to(md, addr: str) -> list[bytes]:
    return [m for m in md.sent() if header(m, "To") == addr]


def _lines_ok(text: str) -> bool:
    return max(len(line) for line in text.splitlines()) <= 72


def test_undeliverable_mail_is_told_in_the_gms_language_and_names_the_player(env):
    db, cfg, md = env
    _league(env, "Liga-De", "rondo", "de", "gm@de.example", refused=True)
    _league(env, "Comp-Nl", "rondonl", "nl", "gm@nl.example", refused=True, language="nl")
    sender = Refusing(md)
    deliver(db, sender, cfg)  # the start mails: Bernd's address is refused in both leagues
    deliver(db, sender, cfg)  # the notices about it
    (de,) = [m for m in _to(md, "gm@de.example") if "zustellbar" in header(m, "Subject")]
    (nl,) = [m for m in _to(md, "gm@nl.example") if "bestelbaar" in header(m, "Subject")]
    assert header(de, "Subject") == "Liga-De: Mail nicht zustellbar"
    assert header(nl, "Subject") == "Comp-Nl: mail onbestelbaar"
    de_text, nl_text = text_of(de), text_of(nl)
    assert "Bernd Becker hat sie nicht bekommen" in " ".join(de_text.split())
    assert "Bernd Becker heeft hem niet gekregen" in " ".join(nl_text.split())
    assert "550 5.1.1" in de_text and "550 5.1.1" in nl_text  # the server's words, as they came
    assert nl_text.startswith("Hallo Spelleider,") and not GERMAN.search(nl_text)
    assert de_text.strip().endswith("Spielleiter-Bot (Liga-De)")
    assert nl_text.strip().endswith("Spelleider-bot (Comp-Nl)")
    assert _lines_ok(de_text) and _lines_ok(nl_text)


def test_undeliverable_mail_to_someone_not_a_player_names_no_player(env):
    db, cfg, md = env
    _league(env, "Liga-De", "rondo", "de", "gm@de.example")
    deliver(db, md, cfg)
    with db.session() as s:
        lg = s.scalar(select(League).where(League.name == "Liga-De"))
        queue_mail(s, cfg, key="notice:fremd", kind="notice", to="fremd@nirgends.invalid",
                   subject="Liga-De: Hinweis", text="Hallo,\n\nHinweis.\n", league_id=lg.id)
    sender = Refusing(md)
    deliver(db, sender, cfg)
    deliver(db, sender, cfg)
    (notice,) = [m for m in _to(md, "gm@de.example") if "zustellbar" in header(m, "Subject")]
    text = " ".join(text_of(notice).split())
    assert "fremd@nirgends.invalid" in text and "Sie ist nicht angekommen" in text
    assert "Spieler" not in text  # the recipient was no player


def _slow(env) -> dict[str, tuple[str, str]]:
    """The send-limit notices (at 2 mails an hour) for every round with Auswertungen
    waiting: GM address -> [(subject, text)]."""
    db, cfg, md = env
    with db.session() as s:
        waiting = s.scalars(select(OutboxMail).where(OutboxMail.status == "pending", OutboxMail.kind == "auswertung")
                            .order_by(*order_key())).all()
        warn_slow(s, cfg, Budget(Limits(((timedelta(hours=1), 2),)), []), datetime.now(timezone.utc), list(waiting))
        out: dict = {}
        for row in s.scalars(select(OutboxMail).where(OutboxMail.key.like("quota:%")).order_by(OutboxMail.id)):
            out.setdefault(row.to_addr, []).append((row.subject, text_of(row.raw)))
        return out


def test_send_limit_notice_names_the_round_or_the_turn_in_the_gms_language(env):
    db, cfg, md = env
    _league(env, "Runden-Liga", "rondo", "de", "gm@runden.example")
    _league(env, "Zug-Liga", "rondonl", "de", "gm@zug.example")
    _league(env, "Beurt-Comp", "rondonl", "nl", "gm@beurt.example", language="nl")
    _league(env, "Ronde-Comp", "rondo", "nl", "gm@ronde.example")  # German players, a Dutch GM
    deliver(db, md, cfg)
    for name in ("Runden-Liga", "Zug-Liga", "Beurt-Comp", "Ronde-Comp"):
        adjudicate_league(db, cfg, name, force=True)
    for name in ("Zug-Liga", "Beurt-Comp"):  # RONDO: after the opening, turn 1 (round 2)
        adjudicate_league(db, cfg, name, force=True)
    got = _slow(env)
    assert [s for s, _ in got["gm@runden.example"]] == ["Runden-Liga: Auswertungen der Runde 1 brauchen länger"]
    assert [s for s, _ in got["gm@zug.example"]] == ["Zug-Liga: Auswertungen der Eröffnung brauchen länger",
                                                      "Zug-Liga: Auswertungen von Zug 1 brauchen länger"]
    assert [s for s, _ in got["gm@beurt.example"]] == [
        "Beurt-Comp: uitslagen van de opening hebben meer tijd nodig",
        "Beurt-Comp: uitslagen van beurt 1 hebben meer tijd nodig"]
    assert [s for s, _ in got["gm@ronde.example"]] == ["Ronde-Comp: uitslagen van ronde 1 hebben meer tijd nodig"]
    zug = " ".join(got["gm@zug.example"][1][1].split())
    assert zug.startswith("Hallo Spielleiter, die Auswertungen von Zug 1 (4 Mails warten noch)")
    assert "Runde" not in zug and "2/h" in zug
    for subject, text in got["gm@beurt.example"] + got["gm@ronde.example"]:
        assert not GERMAN.search(text), text
        assert "2/h" in text and _lines_ok(text)
        assert text.strip().endswith(f"Spelleider-bot ({subject.split(':')[0]})")


def _outage(start: datetime, clock: list) -> Outage:
    quiet = logging.getLogger("tests.gm_notices")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    inbox = Outage("IMAP", 60, clock=lambda: clock[0], logger=quiet)
    for minutes in (0, 5, 65):
        clock[0] = start + timedelta(minutes=minutes)
        inbox.failed(ServerFailure("imap", "login", "[AUTHENTICATIONFAILED] Authentication failed.",
                                   host="imap.example.org:993"))
    return inbox


def test_inbox_alarm_and_recovery_go_in_the_language_of_the_gms_first_league(env):
    db, cfg, md = env
    _league(env, "Eerste", "rondonl", "nl", "gm@nl.example", language="nl")
    _league(env, "Zweite", "rondo", "de", "gm@nl.example")  # the same GM: one mail, in the first league's language
    _league(env, "Dritte", "rondo", "de", "gm@de.example")
    deliver(db, md, cfg)
    start, clock = datetime.now(timezone.utc).replace(microsecond=0), [None]
    inbox = _outage(start, clock)
    assert inbox_alarm(db, cfg, inbox) == 2
    clock[0] = start + timedelta(hours=2)
    assert inbox_recovered(db, cfg, *inbox.succeeded()) == 2
    deliver(db, md, cfg)
    nl = [m for m in _to(md, "gm@nl.example") if "inbox" in header(m, "Subject")]
    de = [m for m in _to(md, "gm@de.example") if "Posteingang" in header(m, "Subject")]
    assert [header(m, "Subject") for m in nl] == ["Spelleider-bot: inbox niet leesbaar",
                                                  "Spelleider-bot: inbox weer leesbaar"]
    assert [header(m, "Subject") for m in de] == ["Spielleiter-Bot: Posteingang nicht lesbar",
                                                  "Spielleiter-Bot: Posteingang wieder lesbar"]
    for m in nl:
        text = text_of(m)
        assert not GERMAN.search(text), text
        assert _lines_ok(text) and text.strip().endswith("\n-- \nSpelleider-bot")  # about no one league
    alarm = " ".join(text_of(nl[0]).split())
    assert "(3 pogingen)" in alarm and "IMAP imap.example.org:993: aanmelding geweigerd" in alarm
    assert "(3 Versuche)" in " ".join(text_of(de[0]).split())
    assert text_of(de[1]).strip().endswith("\n-- \nSpielleiter-Bot")


def test_gm_copy_says_the_inbox_could_not_be_read_in_the_gms_language(env):
    db, cfg, md = env
    _league(env, "Comp-Nl", "rondonl", "nl", "gm@nl.example", language="nl")
    _league(env, "Liga-De", "rondonl", "de", "gm@de.example", language="nl")
    deliver(db, md, cfg)
    start, clock = datetime.now(timezone.utc).replace(microsecond=0), [None]
    inbox = _outage(start, clock)
    for name in ("Comp-Nl", "Liga-De"):
        adjudicate_league(db, cfg, name, force=True, gm_note=inbox.note())
    deliver(db, md, cfg)
    (nl,) = [text_of(m) for m in _to(md, "gm@nl.example") if "uitslag" in header(m, "Subject")]
    (de,) = [text_of(m) for m in _to(md, "gm@de.example") if "Auswertung" in header(m, "Subject")]
    assert " ".join(nl.split()).startswith("Melding voor de spelleider: De inbox kon voor de deadline niet "
                                           "worden gelezen (IMAP imap.example.org:993: aanmelding geweigerd")
    assert "gestoord sinds 65 min" in " ".join(nl.split())
    assert not GERMAN.search(nl.split("\n\n")[0])
    assert " ".join(de.split()).startswith("Hinweis für den Spielleiter: Der Posteingang konnte vor dem ZAT")
    assert _lines_ok(nl.split("\n\n")[0]) and _lines_ok(de.split("\n\n")[0])
    players = [text_of(m) for m in md.sent() if header(m, "To").startswith("anna@")]
    assert players and not any("inbox" in t or "Posteingang" in t for t in players)  # the GM's copy only


def test_bounce_notice_in_the_gms_language(env):
    """A bounce of the bot's mail to a player (a DSN in the inbox): the GM of a league with
    ``gm_language = "nl"`` reads it in Dutch, signed with the league's name."""
    from tests.test_loops import postfix_dsn

    db, cfg, md = env
    _league(env, "Comp-Nl", "rondonl", "nl", "gm@nl.example", language="nl")
    deliver(db, md, cfg)
    with db.session() as s:
        start = s.scalar(select(OutboxMail).where(OutboxMail.to_addr == "anna@comp-nl.example"))
        mid = start.message_id
    md.deliver_to_inbox(postfix_dsn(mid, rcpt="anna@comp-nl.example").replace(
        b"spielleiter@example.org", cfg.sender_addr.encode()))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (notice,) = [m for m in _to(md, "gm@nl.example") if "onbestelbaar" in header(m, "Subject")]
    assert header(notice, "Subject") == "Comp-Nl: mail aan anna@comp-nl.example onbestelbaar"
    text = text_of(notice)
    assert "een mail van de bot kwam terug als onbestelbaar" in text and "anna@comp-nl.example" in text
    assert not GERMAN.search(text), text
    assert text.strip().endswith("Spelleider-bot (Comp-Nl)") and _lines_ok(text)


def test_refused_gm_command_is_told_to_the_gm_in_the_gms_language(env):
    """A GM command with a wrong code: the GM (``gm_language = "nl"``) is told in Dutch, the
    reason too, signed with the league's name; nothing is executed."""
    from tests.helpers import player_mail

    db, cfg, md = env
    _league(env, "Comp-Nl", "rondonl", "nl", "gm@nl.example", language="nl")
    with db.session() as s:
        from bot.service.conversations.identity import hash_code
        s.scalar(select(League).where(League.name == "Comp-Nl")).gm_code_hash = hash_code("Geheim-4711")
    deliver(db, md, cfg)
    md.deliver_to_inbox(player_mail("gm@nl.example", "Code: Falsch-0000\n", subject="PAUSE Comp-Nl"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    (notice,) = [m for m in _to(md, "gm@nl.example") if "geweigerd" in header(m, "Subject")]
    assert header(notice, "Subject") == "Comp-Nl: spelleidersopdracht geweigerd"
    text = text_of(notice)
    assert "met een verkeerde spelleiderscode" in " ".join(text.split())
    assert not GERMAN.search(text), text
    assert text.strip().endswith("Spelleider-bot (Comp-Nl)") and _lines_ok(text)
    with db.session() as s:
        assert not s.scalar(select(League).where(League.name == "Comp-Nl")).paused

"""The gallery of every mail (issue 24): every kind of mail of every game in every language,
rendered from seeded leagues into a folder as text and HTML, checked in under
``tests/gallery/`` and compared by ``tests/test_gallery.py``, so every change of wording is
a reviewed diff.

    .venv/bin/python -m tests.gallery            # write the gallery into tests/gallery/
    .venv/bin/python -m tests.gallery /tmp/g     # ... or into another folder

The leagues are the demo's (bot.demo, seed ``gallery``: Rondo, Monoscrabble, Crossword,
Typ-Dom Point and Kreuzwort, Presto, "Wer behält recht?", Dutch RONDO), played in a few
rounds, plus a German and a Dutch league in which the game master uses every notice
(ZAT, PAUSE, WEITER, NACHRICHT) and a player asks HILFE, STAND and for all moves of a
round; then (:func:`_probe`) in every demo league, ended by then, a move after the end and
HILFE, STAND, AUSWERTUNG 1, and in a running league made from every demo league but
RONDO's ("Lauf-<demo league's name>"; RONDO's are the GM leagues) an invalid
move, a move out of turn (turn games) and the GM's notices - named ``*-probe-<what>``; the
German RONDO league plays on to its end (:func:`_play_to_end`), and a "Wer behält recht?"
league has a player drop out and mail again (:func:`_player_out`). RONDO's reminders (the
opening's and a turn's) are sent an hour before the ZAT. The service's own notices to the
game master, in German and in Dutch (a refused mail, Auswertungen slowed by the send
limits, the inbox alarm and its all-clear, the GM copy's outage remark), come from four
small leagues of their own (:func:`_ops`, :data:`OPS`).
:data:`KINDS` and :data:`SKIPPED` are the coverage matrix tests/test_gallery.py asserts.
Of every league and kind of mail the gallery keeps the first and the last round's
mail to one player, and the game master's copy; times of day are replaced by ``<ZAT>``
and ``<Zeit>`` (the demo plays from the current date). A resent Auswertung (AUSWERTUNG n)
whose HTML equals one kept already is kept as text only."""

from __future__ import annotations

import email
import email.policy
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from tests.wording_terms import TERMS  # the variants and languages of the gallery

GALLERY = Path(__file__).resolve().parent / "gallery"

_DAYS = ("Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag|"
         "maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag")
# (a wrapped line may break a ZAT anywhere: any white space between its parts)
_ZAT = re.compile(rf"(?:{_DAYS}),?\s+\d\d[.-]\d\d[.-]\d{{4}},\s+\d\d:\d\d\s+(?:Uhr|uur)\s+\(UTC[+-]\d\d:\d\d\)")
_TIME = re.compile(r"\d\d[.-]\d\d[.-]\d{4},\s+\d\d:\d\d(?::\d\d)?\s+(?:Uhr|uur)")
# a short time of day without the year, as the notices' lists give it ("27.11. 06:53 Uhr",
# Dutch "27-11 06:53")
_CLOCK = re.compile(r"\b\d\d(?:\.\d\d\.|-\d\d)\s\d\d:\d\d(?:\s+Uhr)?")


#: the kinds of mail kept per round (the first and the last); of the others one per subject
_BY_ROUND = ("ack", "auswertung", "start", "reminder", "welcome")


def normalize(text: str, html: bool = False) -> str:
    """``text`` with the ZATs and times replaced (they follow the date of the run); in
    HTML escaped, so the browser shows the placeholder."""
    lt, gt = ("&lt;", "&gt;") if html else ("<", ">")
    text = _ZAT.sub(f"{lt}ZAT{gt}", text)
    text = _TIME.sub(f"{lt}Zeit{gt}", text)
    text = _CLOCK.sub(f"{lt}Zeit{gt}", text)
    return text.replace("\r\n", "\n")


def _bodies(raw: bytes) -> tuple[str, str | None]:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    text = msg.get_body(("plain",)).get_content()
    html = msg.get_body(("html",))
    return text, html.get_content() if html is not None else None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _extras(work: Path) -> None:
    """A German and a Dutch league of RONDO in which the game master uses every notice and
    a player asks for the commands' answers (all through the mail, as in a real league)."""
    from datetime import datetime, timedelta, timezone

    from bot.config import embedded
    from bot.mail.maildir import MaildirTransport
    from bot.service.conversations import gm
    from bot.service.operations.league import create_league
    from bot.service.stages.outbox import deliver
    from sqlalchemy import select

    from bot.service.domain.league import open_round
    from bot.service.stages.reminders import send_reminders
    from bot.service.stages.rounds import adjudicate_league
    from bot.service.operations.runner import poll_once
    from bot.storage.db import Database
    from bot.storage.models import League
    from tests.helpers import player_mail

    cfg = embedded(work)
    cfg.sender = "Spielleiter <spielleiter@demo.invalid>"
    cfg.rate_limit_per_hour = 0
    db = Database(cfg.database_url)
    md = MaildirTransport(cfg.maildir)
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0)

    def remind(name: str) -> None:
        """The reminders of the open round, an hour before its ZAT."""
        with db.session() as s:
            lg = s.scalar(select(League).where(League.name == name))
            zat = open_round(s, lg).zat
        send_reminders(db, cfg, now=zat - timedelta(hours=1))
        deliver(db, md, cfg)

    for name, lang, players in (
            ("GM-Liga", "de", [("Jürgen Öhler", "juergen@gm.invalid"), ("Bärbel Süß", "baerbel@gm.invalid"),
                               ("Anna Albers", "anna@gm.invalid")]),
            ("GM-Competitie", "nl", [("Anna de Vries", "anna@gm-nl.invalid"), ("Bram Jansen", "bram@gm-nl.invalid"),
                                     ("Carla Peeters", "carla@gm-nl.invalid")])):
        spec = {"name": name, "game": "rondonl", "partien": ["T1"], "language": lang, "first_zat": first.isoformat(),
                "zat_interval_days": 7, "seed": "gallery", "gm_email": "gm@gm.invalid", "require_code": False,
                "turn_hours": 48, "players": [{"name": n, "email": e} for n, e in players]}
        if lang == "de":  # the German league plays one round of turns to its end (_probe)
            spec["options"] = {"dictionary": "de", "full_rounds": 1}
        with db.session() as s:
            create_league(s, spec, cfg)
        cfg.gm_notice_window = 0  # each notice on its own ...
        with db.session() as s:
            gm.set_zat(s, cfg, name, "+2d")
            gm.pause(s, cfg, name)
            gm.resume(s, cfg, name)
            gm.message(s, cfg, name, "Fijne feestdagen!" if lang == "nl" else "Frohe Feiertage!")
        cfg.gm_notice_window = 180.0  # ... and three within the window: one mail (issue 33)
        for step in (lambda s: gm.pause(s, cfg, name), lambda s: gm.set_zat(s, cfg, name, "+1d"),
                     lambda s: gm.resume(s, cfg, name)):
            with db.session() as s:
                step(s)
        deliver(db, md, cfg, now=datetime.now(timezone.utc) + timedelta(minutes=4))
        remind(name)  # the opening's reminder: everyone
        adjudicate_league(db, cfg, name, force=True)
        deliver(db, md, cfg)
        remind(name)  # the reminder of turn 1: the player on turn
        who = players[0][1]
        for subject in ("HILFE", "STAND", "AUSWERTUNG 1 ALLE" if lang == "de" else "UITSLAG 1 ALLES"):
            md.deliver_to_inbox(player_mail(who, subject, subject=subject))
            poll_once(db, cfg)
            deliver(db, md, cfg)
    db.dispose()


#: the kinds of mail of issue 32's coverage matrix: kind -> patterns of gallery file names
#: (any one suffices); tests/test_gallery.py asserts each for every game variant and
#: language (tests.wording_terms.variant) unless :data:`SKIPPED` gives the reason
KINDS: dict[str, tuple[str, ...]] = {
    "start": ("/start-spieler-",),
    "ack valid": ("/ack-spieler-runde",),
    "ack invalid": ("/ack-spieler-probe-ungueltig",),
    "ack out of turn": ("/ack-spieler-probe-ungueltig-spieler",),
    "ack after the end": ("-probe-nach-dem-ende.",),
    "ack player out": ("-probe-ausgeschieden",),
    "ack late": ("-probe-spaet",),
    "auswertung text": ("/auswertung-spieler-runde",),
    "auswertung html": ("/auswertung-spieler-runde",),
    "final auswertung": ("/auswertung-spieler-runde",),
    "reminder": ("/reminder-spieler-",),
    "gm new zat": ("/gm-spieler-probe-gm-zat", "/gm-spieler-neuer-zat", "/gm-spieler-nieuwe-deadline"),
    "gm pause": ("/gm-spieler-probe-gm-pause", "/gm-spieler-angehalten", "/gm-spieler-stilgezet"),
    "gm resume": ("/gm-spieler-probe-gm-weiter", "/gm-spieler-es-geht-weiter", "/gm-spieler-het-gaat-verder"),
    "gm message": ("/gm-spieler-probe-gm-nachricht", "/gm-spieler-nachricht-des", "/gm-spieler-bericht-van"),
    "HILFE": ("-spieler-probe-hilfe", "-spieler-re-hilfe"),
    "STAND": ("-spieler-probe-stand", "-spieler-re-stand"),
    "AUSWERTUNG n": ("-spieler-probe-auswertung-n", "-spieler-probe-uitslag-n", "-spieler-re-auswertung-n",
                     "-spieler-re-uitslag-n"),
}

_NO_TURNS = "no turns: everyone moves in every Runde"
#: (variant, language) -> {kind: why the gallery has no such mail}
SKIPPED: dict[tuple[str, str], dict[str, str]] = {
    key: {"ack player out": "nobody drops out of this game",
          "reminder": "no reminder: the game has one ZAT a week for everyone",
          **({"ack out of turn": _NO_TURNS} if not TERMS[key].turns else {})}
    for key in TERMS}  # every variant and language of tests/wording_terms.py
for _key in (("typdom-wbr", "de"), ("rondonl", "de"), ("rondonl", "nl")):
    # games of turns remind the player on turn; a WbR player drops out (_player_out)
    SKIPPED[_key].pop("reminder")
SKIPPED[("typdom-wbr", "de")].pop("ack player out")


def _probe(work: Path) -> dict[int, str]:
    """In every demo league, through the mail and the GM's commands: a move that is not
    one (an invalid move; after the league's end: the answer after the end), a move of a
    player not on turn (turn games), HILFE, STAND, AUSWERTUNG 1, and the GM's notices
    (new ZAT, PAUSE, WEITER, NACHRICHT) while the league runs. Returns outbox id -> label
    of the mails so produced (the gallery names them by the label)."""
    from sqlalchemy import func, select

    from bot.config import embedded
    from bot.mail.maildir import MaildirTransport
    from bot.service.conversations import gm
    from bot.service.operations.runner import poll_once
    from bot.service.stages.outbox import deliver
    from bot.storage.db import Database
    from bot.storage.models import League, OutboxMail
    from tests.helpers import player_mail

    cfg = embedded(work)
    cfg.sender = "Spielleiter <spielleiter@demo.invalid>"
    cfg.rate_limit_per_hour = 0
    cfg.gm_notice_window = 0  # each GM notice a mail of its own (_extras shows a merged one)
    db = Database(cfg.database_url)
    md = MaildirTransport(cfg.maildir)
    labels: dict[int, str] = {}

    def top() -> int:
        with db.session() as s:
            return s.scalar(select(func.max(OutboxMail.id))) or 0

    def step(label: str, act) -> None:
        before = top()
        act()
        deliver(db, md, cfg)
        with db.session() as s:
            for m in s.scalars(select(OutboxMail).where(OutboxMail.id > before)):
                labels[m.id] = label

    def mail(addr: str, subject: str, body: str):
        return lambda: (md.deliver_to_inbox(player_mail(addr, body, subject=subject)), poll_once(db, cfg))

    from datetime import datetime, timedelta, timezone

    from bot.service.domain.league import open_round
    from bot.service.operations.league import create_league
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0)
    # a running league of every game (the demo's have ended), made from each demo league of
    # the registry (bot.demo.demo_leagues, every game's GameRules.demo_leagues): the invalid
    # move, the move of a player not on turn, the GM's notices. RONDO's running leagues are
    # the GM leagues of _extras.
    from bot.demo import DEMO_KEYS, demo_leagues
    from bot.games import get_game
    running = []
    for entry in demo_leagues():
        if entry["game"] != "rondonl":
            extra = {k: v for k, v in entry.items() if k not in DEMO_KEYS | {"name", "game", "rounds"}}
            running.append(("Lauf-" + entry["name"].removeprefix("Demo-"), entry["game"],
                            dict(extra, seats=min(4, len(entry["players"])))))
    for name, game, extra in running:
        extra = dict(extra)
        seats = extra.pop("seats", 4)
        dom = _slug(name)
        spec = {"name": name, "game": game, "partien": ["T1"], "first_zat": first.isoformat(),
                "zat_interval_days": 7, "seed": "gallery", "gm_email": "gm@gm.invalid", "require_code": False,
                "players": [{"name": n, "email": f"{n.split()[0].lower()}@{dom}.invalid"}
                            for n in ("Anna Albers", "Bernd Becker", "Clara Conrad", "Dieter Dahl")[:seats]],
                **extra}
        with db.session() as s:
            create_league(s, spec, cfg)
        deliver(db, md, cfg)
    with db.session() as s:
        leagues = [(lg.name, lg.game, lg.status, [p.email for p in lg.players], [pt.name for pt in lg.partien])
                   for lg in s.scalars(select(League).order_by(League.id))
                   if lg.name.startswith(("Demo-", "Lauf-", "GM-"))]
    for name, game, status, addrs, partien in leagues:
        over = status == "finished"
        turns = get_game(game).turn_rounds  # one player moves per ZAT: the others are out of turn
        nl = game == "rondonl"
        nl = nl and not name.startswith("GM-Liga")
        bad = "A1 Q QQQXZ" if game == "typdom-wbr" else "QQQXZ"   # read as a move, but not a valid one
        bad = f"Partie {partien[0]}:\n{bad}\n" if len(partien) > 1 else f"{bad}\n"
        subject, body = f"{name}: {'zet' if nl else 'Zug'}", f"Hoi,\n\n{bad}\nGroet\n" if nl else f"Hallo,\n\n{bad}\nGruß\n"

        def bad_move(addr: str, subject=subject, body=body):  # the invalid move, in the league's language
            return mail(addr, subject, body)
        # in a turn game every player: the one on turn gets the invalid move's answer, the
        # others the answer to a move out of turn
        for i, addr in enumerate(addrs if turns and not over else addrs[:1], 1):
            label = "nach-dem-ende" if over else f"ungueltig-spieler{i}" if turns else "ungueltig"
            step(label, bad_move(addr))
        if not over and name.startswith(("Lauf-", "GM-")):
            # a move after the ZAT of a round not yet adjudicated (the league is paused, so
            # the bot does not adjudicate it first): for this one mail the league is paused
            # and the open round's ZAT put an hour back, then both restored
            with db.session() as s3:
                lg = s3.scalar(select(League).where(League.name == name))
                rnd, lg.paused = open_round(s3, lg), True
                saved, rnd.zat = rnd.zat, datetime.now(timezone.utc) - timedelta(hours=1)
            step("spaet", bad_move(addrs[0]))
            with db.session() as s3:
                lg = s3.scalar(select(League).where(League.name == name))
                open_round(s3, lg).zat, lg.paused = saved, False
        if name.startswith("Demo-"):  # the commands in the ended demo leagues
            for cmd in ("HILFE", "STAND", "UITSLAG 1" if nl else "AUSWERTUNG 1"):
                step(_slug(cmd.replace("1", "n")), mail(addrs[0], f"{cmd} {name}", f"{cmd}\n"))
        if name == "GM-Liga":  # plays on to its end: valid moves, the final Auswertung, a move after it
            _play_to_end(db, md, cfg, name)
            step("nach-dem-ende", bad_move(addrs[0]))
        if over or not name.startswith("Lauf-"):
            continue  # (_extras sent the GM-Liga's and the GM-Competitie's notices)
        for label, act in (("zat", lambda: gm.set_zat(s, cfg, name, "+2d")), ("pause", lambda: gm.pause(s, cfg, name)),
                           ("weiter", lambda: gm.resume(s, cfg, name)),
                           ("nachricht", lambda: gm.message(s, cfg, name, "Bericht" if nl else "Frohe Feiertage!"))):
            with db.session() as s:
                before = top()
                act()
            deliver(db, md, cfg)
            with db.session() as s2:
                for m in s2.scalars(select(OutboxMail).where(OutboxMail.id > before)):
                    labels[m.id] = f"gm-{label}"
    labels.update(_player_out(db, md, cfg, first, step, mail))
    db.dispose()
    return labels


def _play_to_end(db, md, cfg, name: str) -> None:
    """RONDO league ``name`` played to its end through the mail: the player on turn sends
    the best word of their hand (the game's demo_player), a turn nobody completes is ended by
    its ZAT."""
    import random

    from sqlalchemy import select

    from bot.games import get_game
    from bot.service.domain.league import league_lexicon
    from bot.service.operations.runner import poll_once
    from bot.service.stages.outbox import deliver
    from bot.service.stages.rounds import adjudicate_league
    from bot.storage.models import League, Partie
    from tests.helpers import player_mail

    game, rng = get_game("rondonl"), random.Random("gallery")
    for _ in range(60):
        with db.session() as s:
            lg = s.scalar(select(League).where(League.name == name))
            if lg.status != "running":
                return
            lexicon = league_lexicon(lg, cfg)
            state = s.scalar(select(Partie).where(Partie.league_id == lg.id)).state
            addr = {str(p.id): p.email for p in lg.players}
        before = state.get("turn"), state.get("phase")
        for key in game.movers(state) or []:
            # (bot.demo's player writes Dutch "punten": here a German player writes "Punkte")
            view = dict(game.public_view(state), mine=game.player_view(state, key), player=key)
            mails = game.demo_player(view, rng, lexicon=lexicon) or []
            lines = [x.replace(" punten", " Punkte") for m in mails for x in m.lines] or ["PASSE"]
            md.deliver_to_inbox(player_mail(addr[key], "Hallo,\n\n" + "\n".join(lines) + "\n\nGruß\n",
                                            subject=f"{name}: Zug"))
        poll_once(db, cfg)  # a complete turn ends here, at once
        with db.session() as s:
            lg = s.scalar(select(League).where(League.name == name))
            after = s.scalar(select(Partie).where(Partie.league_id == lg.id)).state
        if (after.get("turn"), after.get("phase")) == before and lg.status == "running":
            adjudicate_league(db, cfg, name, force=True)
        deliver(db, md, cfg)
    raise AssertionError(f"{name} did not end")


def _player_out(db, md, cfg, first, step, mail) -> dict[int, str]:
    """A "Wer behält recht?" Partie in which a player drops out and then mails again (the
    answer says they are out, since when and why: GameRules.out_note), played through the
    mail as tests/test_e2e_wbr.py plays it: racks and seats set after the start (the start
    mails, written for the racks dealt, are left out of the gallery: label ``""``), Anna
    announces ESEL, Bernd's Ersatzzug builds on, Clara lets the ZAT pass, ESEL comes round
    to Anna, who lacks the L: she is out; then she mails again. Returns the labels."""
    from sqlalchemy import select

    from bot.service.operations.league import create_league
    from bot.service.operations.runner import poll_once
    from bot.service.stages.outbox import deliver
    from bot.service.stages.reminders import send_reminders
    from bot.service.stages.rounds import adjudicate_league
    from bot.storage.models import League, OutboxMail
    from tests.helpers import player_mail

    name = "Aus-WBR"
    a, b, c = (f"{n}@aus-wbr.invalid" for n in ("anna", "bernd", "clara"))
    spec = {"name": name, "game": "typdom-wbr", "partien": ["W1"], "first_zat": first.isoformat(),
            "zat_interval_days": 7, "seed": "gallery", "gm_email": "gm@gm.invalid", "require_code": False,
            "turn_hours": 12, "players": [{"name": n, "email": e} for n, e in
                                          (("Anna Albers", a), ("Bernd Becker", b), ("Clara Conrad", c))]}
    with db.session() as s:
        create_league(s, spec, cfg)
    with db.session() as s:
        lg = s.scalar(select(League).where(League.name == name))
        keys = {p.email: str(p.id) for p in lg.players}
        pt = lg.partien[0]
        pt.state = dict(pt.state, racks={keys[a]: "EEHST", keys[b]: "OS", keys[c]: "R"}, pool="NRI",
                        seat_order=[keys[a], keys[b], keys[c]], active=[keys[a], keys[b], keys[c]], mover=keys[a])
        setup = {m: "" for m in s.scalars(select(OutboxMail.id).where(OutboxMail.league_id == lg.id))}
    deliver(db, md, cfg)
    for who, body in ((a, "M13 E ESEL\n"), (b, "L13 X EXESEL\nErsatz: N13 S\n")):
        md.deliver_to_inbox(player_mail(who, body, subject=f"{name}: Zug"))
        poll_once(db, cfg)  # a valid move ends the turn at once
        deliver(db, md, cfg)
    adjudicate_league(db, cfg, name, force=True)  # Clara's ZAT: NMR; ESEL comes round, Anna is out
    deliver(db, md, cfg)
    send_reminders(db, cfg)  # (the next turn's reminder, due now: not the answer's)
    deliver(db, md, cfg)
    step("ausgeschieden", mail(a, f"{name}: Zug", "Hallo,\n\nO13 O SO\n\nGruß\n"))
    return setup


class _Refusing:
    """The Maildir transport, but the recipient's server refuses every address at
    ``nirgends.invalid`` for good (550 5.1.1: a typo in the league file)."""

    def __init__(self, md) -> None:
        self.md = md

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        from bot.mail.transport import PermanentFailure
        bad = [r for r in recipients if r.endswith("@nirgends.invalid")]
        if bad:
            raise PermanentFailure(f"5.1.1 <{bad[0]}>: Recipient address rejected: User unknown", 550)
        self.md.send(raw, sender, recipients)


#: the leagues of :func:`_ops`: name, game, players' language, GM's language, GM address,
#: players (a player at ``nirgends.invalid`` has an address the server refuses)
OPS = (("Hinweis-Liga", "rondo", "de", "de", "gm@hinweis.invalid",
        [("Anna Albers", "anna@hinweis.invalid"), ("Bernd Becker", "bernd@nirgends.invalid"),
         ("Clara Conrad", "clara@hinweis.invalid")]),
       ("Zug-Liga", "typdom-wbr", "de", "de", "gm@zug.invalid",
        [("Anna Albers", "anna@zug.invalid"), ("Bernd Becker", "bernd@zug.invalid"),
         ("Clara Conrad", "clara@zug.invalid")]),
       ("Melding-Competitie", "rondonl", "nl", "nl", "gm@melding.invalid",
        [("Anna de Vries", "anna@melding.invalid"), ("Bram Jansen", "bram@nirgends.invalid"),
         ("Carla Peeters", "carla@melding.invalid")]),
       ("Ronde-Spelleider", "rondo", "de", "nl", "gm@ronde.invalid",
        [("Anna Albers", "anna@ronde.invalid"), ("Bernd Becker", "bernd@ronde.invalid"),
         ("Clara Conrad", "clara@ronde.invalid")]))
#: the GMs whose inbox notices the gallery keeps (one German, one Dutch)
INBOX_GMS = ("gm@hinweis.invalid", "gm@melding.invalid")
#: the gallery's leagues whose game master reads Dutch (``gm_language = "nl"``)
DUTCH_GM = {_slug(name) for name, _, _, gm_lang, _, _ in OPS if gm_lang == "nl"}


def _ops(work: Path) -> dict[int, str]:
    """The service's own notices to the game master, in a German and a Dutch game
    master's language (``gm_language``), through the real stages: a mail the recipient's
    server refuses (a player's address with a typo: "Mail nicht zustellbar"), a bounce of
    a start mail (a DSN in the inbox), a GM command with a wrong code, the
    Auswertungen that take longer for the send limits (a game of rounds, Rondo, and games
    of turns: "Wer behält recht?", RONDO's opening and its turn 1;
    :func:`bot.service.stages.outbox.warn_slow` at 2 mails an hour), the inbox that cannot
    be read for two hours and reads again (:func:`~bot.service.operations.health.inbox_alarm`,
    :func:`~bot.service.operations.health.inbox_recovered`) and the remark on top of the
    GM copy of an Auswertung made meanwhile. Leagues: :data:`OPS`, each with a GM address
    of its own (the inbox notices go to every GM: only theirs are kept). Returns the
    labels: ``""`` for the mails left out (start mails, the players' Auswertungen, the
    other GMs' inbox notices)."""
    import logging
    from datetime import datetime, timedelta, timezone

    from sqlalchemy import func, select

    from bot.config import embedded
    from bot.mail.maildir import MaildirTransport
    from bot.mail.transport import ServerFailure
    from bot.service.operations.health import Outage, inbox_alarm, inbox_recovered
    from bot.service.operations.league import create_league
    from bot.service.stages.outbox import deliver, warn_slow
    from bot.service.stages.quota import Budget, Limits, order_key
    from bot.service.stages.rounds import adjudicate_league
    from bot.storage.db import Database
    from bot.storage.models import OutboxMail

    cfg = embedded(work)
    cfg.sender = "Spielleiter <spielleiter@demo.invalid>"
    cfg.rate_limit_per_hour = 0
    cfg.gm_notice_window = 0
    db = Database(cfg.database_url)
    sender = _Refusing(MaildirTransport(cfg.maildir))
    labels: dict[int, str] = {}
    ours = {gm for *_, gm, _ in OPS}
    start = datetime.now(timezone.utc).replace(microsecond=0)
    first = start + timedelta(days=7)

    def top() -> int:
        with db.session() as s:
            return s.scalar(select(func.max(OutboxMail.id))) or 0

    def keep(before: int, kept) -> None:
        """Label the mails queued after ``before``: left out unless ``kept(row)``."""
        with db.session() as s:
            for m in s.scalars(select(OutboxMail).where(OutboxMail.id > before)):
                if not kept(m):
                    labels[m.id] = ""

    before = top()
    for name, game, lang, gm_lang, gm, players in OPS:
        spec = {"name": name, "game": game, "partien": ["W1" if game == "typdom-wbr" else "R1"], "language": lang,
                "gm_language": gm_lang, "first_zat": first.isoformat(), "zat_interval_days": 7, "seed": "gallery",
                "gm_email": gm, "require_code": False, "players": [{"name": n, "email": e} for n, e in players]}
        if game != "rondo":
            spec["turn_hours"] = 48
        if gm in INBOX_GMS:
            spec["gm_code"] = "Geheim-4711"
        with db.session() as s:
            create_league(s, spec, cfg)
    outbox_log = logging.getLogger("bot.service.stages.outbox")
    outbox_log.disabled = True  # (the refusals are expected: no log lines)
    try:
        deliver(db, sender, cfg)  # the start mails; two addresses are refused
        deliver(db, sender, cfg)  # the GMs' notices about them
    finally:
        outbox_log.disabled = False
    # kept: the GMs' notices about the refused mails, and the Dutch GM's "Liga angelegt"
    keep(before, lambda m: m.kind == "gm-notice" and ("zustellbar" in m.subject or "bestelbaar" in m.subject
                                                       or m.to_addr == "gm@melding.invalid"))
    # a player's start mail comes back (a DSN in the inbox), and a GM command comes with a
    # wrong code: the GM is told of both
    from bot.service.operations.runner import poll_once
    from tests.helpers import player_mail
    from tests.test_loops import postfix_dsn
    before = top()
    for name, gm in (("Hinweis-Liga", "gm@hinweis.invalid"), ("Melding-Competitie", "gm@melding.invalid")):
        anna = next(e for n, e in next(o for o in OPS if o[0] == name)[5] if n.startswith("Anna"))
        with db.session() as s:
            mid = s.scalar(select(OutboxMail.message_id).where(OutboxMail.to_addr == anna, OutboxMail.kind == "start"))
        sender.md.deliver_to_inbox(postfix_dsn(mid, rcpt=anna).replace(b"spielleiter@example.org",
                                                                       b"spielleiter@demo.invalid"))
        pause = "PAUZE" if gm.endswith("melding.invalid") else "PAUSE"  # (a Dutch GM writes Dutch)
        sender.md.deliver_to_inbox(player_mail(gm, "Code: Falsch-0000\n", subject=f"{pause} {name}"))
        poll_once(db, cfg)
    keep(before, lambda m: m.to_addr in INBOX_GMS)
    # the inbox fails from now on: after two hours every GM is told
    clock = [start]
    quiet = logging.getLogger("tests.gallery.ops")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    inbox = Outage("IMAP", 60, clock=lambda: clock[0], logger=quiet)
    for minutes in (0, 1, 3, 7, 15, 31, 63, 125):
        clock[0] = start + timedelta(minutes=minutes)
        inbox.failed(ServerFailure("imap", "login", "[AUTHENTICATIONFAILED] Authentication failed.",
                                   host="imap.example.org:993"))
    before = top()
    inbox_alarm(db, cfg, inbox)
    keep(before, lambda m: m.to_addr in INBOX_GMS)
    # the ZATs pass meanwhile: the GM copies say the inbox could not be read
    before = top()
    for name, game, *_ in OPS:
        adjudicate_league(db, cfg, name, force=True, gm_note=inbox.note() if name != "Zug-Liga" else None)
    adjudicate_league(db, cfg, "Melding-Competitie", force=True)  # RONDO: after the opening, turn 1
    keep(before, lambda m: m.kind == "auswertung" and m.to_addr in ours and m.round_number == 1
         and not m.to_addr.startswith("gm@ronde") and not m.to_addr.startswith("gm@zug"))
    # the send limits: 2 mails an hour, the Auswertungen take longer
    before = top()
    with db.session() as s:
        waiting = s.scalars(select(OutboxMail).where(OutboxMail.status == "pending", OutboxMail.kind == "auswertung")
                            .order_by(*order_key())).all()
        warn_slow(s, cfg, Budget(Limits(((timedelta(hours=1), 2),)), []), clock[0], list(waiting))
    keep(before, lambda m: m.to_addr in ours)
    # the inbox reads again
    clock[0] = start + timedelta(hours=2, minutes=30)
    before = top()
    inbox_recovered(db, cfg, *inbox.succeeded())
    keep(before, lambda m: m.to_addr in INBOX_GMS)
    # the game masters' commands with the right code: the answers in the GM's language,
    # naming the game's period (Rondo: Runde; RONDO: beurt), and a refused one; the Dutch
    # GM writes the Dutch words (a German word written is answered with that word:
    # tests/test_gm_answers.py)
    before = top()
    for name, gm, words in (("Hinweis-Liga", "gm@hinweis.invalid", ("PAUSE", "AUSWERTEN", "ZURUECK", "ENTFERNE")),
                            ("Melding-Competitie", "gm@melding.invalid",
                             ("PAUZE", "UITWERKEN", "TERUGDRAAIEN", "VERWIJDER"))):
        for command in words:
            subject = f"{command} {name} Xaver" if command in ("ENTFERNE", "VERWIJDER") else f"{command} {name}"
            sender.md.deliver_to_inbox(player_mail(gm, "Code: Geheim-4711\n", subject=subject))
            poll_once(db, cfg)
    keep(before, lambda m: m.to_addr in INBOX_GMS and m.subject.startswith("Re:"))
    db.dispose()
    return labels


def build(out: Path, work: Path | None = None) -> list[Path]:
    """Play the leagues and write the gallery into ``out`` (emptied first); returns the
    files written."""
    from sqlalchemy import select

    from bot.config import embedded
    from bot.demo import run_demo
    from bot.storage.db import Database
    from bot.storage.models import League, OutboxMail

    own = work is None
    work = Path(work or tempfile.mkdtemp(prefix="spielleiter-galerie-"))
    try:
        run_demo(out=work / "eml", rounds={"Demo-Rondo": 2, "Demo-Mono": 2, "Demo-RONDO": 1}, seed="gallery", quiet=True,
                 work=work, gm_email="gm@demo.invalid")
        _extras(work)
        labels = _probe(work)
        labels.update(_ops(work))
        db = Database(embedded(work).database_url)
        with db.session() as s:
            leagues = {lg.id: lg for lg in s.scalars(select(League))}
            groups: dict[tuple, list[OutboxMail]] = defaultdict(list)
            for m in s.scalars(select(OutboxMail).order_by(OutboxMail.id)):
                lg = leagues.get(m.league_id)
                if lg is None:
                    continue
                lang = (lg.options or {}).get("language", "de")
                who = "gm" if m.to_addr.startswith("gm@") else "spieler"
                # notices and command answers: one of each subject (ZAT, PAUSE, HILFE, STAND, ...)
                what = "" if m.kind in _BY_ROUND else _slug(re.sub(r"\d+", "n", m.subject.replace(lg.name, "")))
                if labels.get(m.id) == "":  # a mail written before the test set the state
                    continue
                if m.id in labels:  # a probe's answer: named by what was asked (one of each)
                    what = f"probe-{labels[m.id]}"
                groups[(lg.game, lang, lg.name, m.kind, who, what)].append(m)
            if out.exists():
                shutil.rmtree(out)
            written = []
            htmls: dict[Path, set[str]] = defaultdict(set)  # folder -> the HTML parts written there
            for (game, lang, league, kind, who, what), mails in sorted(groups.items()):
                rounds = sorted({m.round_number or 0 for m in mails})
                keep = {rounds[0], rounds[-1]}
                chosen = {}
                for m in mails:  # the first mail of the first and the last round
                    r = m.round_number or 0
                    if r in keep and r not in chosen:
                        chosen[r] = m
                folder = out / f"{game}-{lang}" / _slug(league)
                folder.mkdir(parents=True, exist_ok=True)
                for r, m in sorted(chosen.items()):
                    text, html = _bodies(m.raw)
                    stem = f"{kind}-{who}-{what}" if what else f"{kind}-{who}-runde{r:02d}"
                    head = f"Betreff: {normalize(m.subject)}\n\n"
                    (folder / f"{stem}.txt").write_text(head + normalize(text), encoding="utf-8")
                    written.append(folder / f"{stem}.txt")
                    html = normalize(html, html=True) if html else None
                    # a resent Auswertung (AUSWERTUNG n) whose HTML equals one kept already is
                    # kept as text only (no byte-equal duplicate); one that differs is kept
                    if html and not (kind == "resend" and html in htmls[folder]):
                        (folder / f"{stem}.html").write_text(html, encoding="utf-8")
                        written.append(folder / f"{stem}.html")
                        htmls[folder].add(html)
        db.dispose()
        return written
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else GALLERY
    files = build(target)
    print(f"{len(files)} Dateien in {target}")

"""The leagues the gallery (tests/gallery.py) plays for its mails: the GM leagues of
RONDO in German and Dutch with every notice of the game master (:func:`_extras`), the probes
in every demo league and in a running league of every game (:func:`_probe`), the German
RONDO league played to its end (:func:`_play_to_end`) and a "Wer behält recht?" player who
drops out (:func:`_player_out`). All through the real service, on the embedded store in
the gallery's work folder."""

from __future__ import annotations

import re
from pathlib import Path


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

"""The service's own notices to the game master for the gallery (tests/gallery.py):
four small leagues (:data:`OPS`) in which mails are refused, a start mail bounces, the
inbox fails and reads again and the send limits slow the Auswertungen (:func:`_ops`)."""

from __future__ import annotations

from pathlib import Path

from tests.gallery_play import _slug


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

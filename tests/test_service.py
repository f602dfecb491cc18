"""The bot's stages end to end on the embedded default (Maildir, real lexicon), on SQLite and on a real
PostgreSQL server (fixture ``db_url``)."""

from __future__ import annotations

import re

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from sqlalchemy import select

from bot.cli import main
from bot.service.presentation.view import league_view
from bot.config import embedded
from bot.games.rondo.movegen import best_moves
from bot.games.rondo.game import position_of
from bot.lexicon import load
from bot.mail.maildir import MaildirTransport
from bot.service.stages.store import store_raw
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_due, adjudicate_league
from bot.service.operations.runner import poll_once, read_stored
from bot.storage.db import Database
from bot.storage.models import InboundMail, OutboxMail, Partie, Player, Result, Round, Submission
from tests.helpers import PLAYERS, header, league_toml, player_mail, text_of


@pytest.fixture
def env(tmp_path, db_url):
    cfg = embedded(tmp_path / "var")
    cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    spec = read_league_file(league_toml(tmp_path / "liga.toml"))
    with db.session() as s:
        create_league(s, spec, cfg)
    deliver(db, md, cfg)
    yield db, cfg, md
    db.dispose()


def states(db):
    with db.session() as s:
        return {p.name: p.state for p in s.scalars(select(Partie).order_by(Partie.id))}


def outbox(db, kind=None):
    with db.session() as s:
        q = select(OutboxMail).order_by(OutboxMail.id)
        if kind:
            q = q.where(OutboxMail.kind == kind)
        return list(s.scalars(q))


def test_league_start_mails_name_the_vorgabe(env):
    db, cfg, md = env
    sent = md.sent()
    assert len(sent) == len(PLAYERS)
    st = states(db)
    body = text_of(sent[0])
    for name, state in st.items():
        assert state["round"] == 1 and len(state["vorgabe"]) == 6 and "/" not in state["vorgabe"]
        assert f"Partie {name}, Runde 1: Vorgabe" in body
    assert header(sent[0], "Auto-Submitted") == "auto-generated"


def test_submission_ack_adjudication_and_standings(env):
    db, cfg, md = env
    lex = load("rondo")
    st = states(db)
    pos1, pos2 = position_of(st["R1"]), position_of(st["R2"])
    best1 = best_moves(pos1, lex, 3)
    best2 = best_moves(pos2, lex, 3)
    assert best1 and best2, "round 1 Vorgaben must allow a word"
    good1, second1 = best1[0], best1[-1]
    # Anna: an invalid main move in R1 (a non-word), then a valid Ersatzzug; R2 main move
    body_a = (f"Hallo Spielleiter,\n\nPartie R1:\nXQZ\nErsatz: {second1.notation(pos1)}\n\n"
              f"Partie R2:\n{best2[0].notation(pos2)} 99 Punkte\n\nViele Grüße\nAnna")
    md.deliver_to_inbox(player_mail("Anna Albers <anna@example.org>", body_a))
    # Bernd: sends R1 twice; the second mail replaces the first
    md.deliver_to_inbox(player_mail("bernd@example.org", "R1: XQZ\n"))
    assert poll_once(db, cfg) == 2
    md.deliver_to_inbox(player_mail("Bernd <bernd@example.org>", f"Partie R1:\n{good1.notation(pos1)}\n"))
    assert poll_once(db, cfg) == 1
    # Clara sends nothing (NMR)

    acks = outbox(db, "ack")
    assert len(acks) == 3
    a_ack = text_of(acks[0].raw)
    assert "Hauptzug: XQZ" in a_ack and "ungültig" in a_ack
    assert f"Ersatzzug 1: {second1.notation(pos1)}" in a_ack
    assert f"gültig: {second1.word}, {second1.score} Punkte" in a_ack
    assert f"Angegeben 99 Punkte, gezählt {best2[0].score} Punkte" in a_ack
    assert "ersetzt" in text_of(acks[2].raw) and "Partie R1" in text_of(acks[2].raw)
    assert header(acks[0].raw, "In-Reply-To")
    with db.session() as s:
        subs = s.scalars(select(Submission).order_by(Submission.id)).all()
        assert [len(x.moves) for x in subs] == [2, 1, 1, 1]
        assert subs[2].superseded_by == subs[3].id

    # before the ZAT nothing happens; with force the round is adjudicated
    assert adjudicate_league(db, cfg, "Test-Rondo") is None
    res = adjudicate_league(db, cfg, "Test-Rondo", force=True)
    assert res["round"] == 1
    view = league_view(db, "Test-Rondo")
    pts = {r["player"]: r["points"] for r in view["standings"]}
    assert pts["anna@example.org"] == second1.score + best2[0].score
    assert pts["bernd@example.org"] == good1.score
    assert pts["clara@example.org"] == 0
    # the best move of R1 (Bernd's) is on the table, unless Anna's scored the same
    r1 = next(p for p in view["partien"] if p["name"] == "R1")
    assert r1["round"] == 2 and "/" in r1["vorgabe"]
    if good1.score > second1.score:
        assert r1["row"] == good1.row.code
    deliver(db, md, cfg)
    reports = outbox(db, "auswertung")
    assert len(reports) == len(PLAYERS)
    txt = text_of(next(r.raw for r in reports if r.to_addr == "clara@example.org"))
    assert "Clara Conrad: 0 Punkte (kein Zug eingegangen – NMR)" in txt  # her own move lines
    # every player's counted word in the round's table, one line each (rank, name, per Partie
    # word and points, total); others' move lines not
    assert re.search(rf"^ *\d+\. Bernd Becker +{good1.word} +{good1.score} ", txt, re.M), txt
    assert f"Bernd Becker: {good1.score} Punkte" not in txt
    bernd = text_of(next(r.raw for r in reports if r.to_addr == "bernd@example.org"))
    assert f"Bernd Becker: {good1.score} Punkte" in bernd and "Deine Züge, Partie R1:" in bernd
    assert "Bestes mögliches Wort:" in txt and "Nächster ZAT:" in txt
    html = next(r.raw for r in reports).decode("utf-8", "replace")
    assert "text/html" in html


def test_late_unknown_auto_and_help(env):
    db, cfg, md = env
    md.deliver_to_inbox(player_mail("fremd@example.net", "mondE"))
    md.deliver_to_inbox(player_mail("anna@example.org", "Bin im Urlaub", headers={"Auto-Submitted": "auto-replied"}))
    md.deliver_to_inbox(player_mail("anna@example.org", "", subject="HILFE"))
    poll_once(db, cfg)
    with db.session() as s:
        mails = s.scalars(select(InboundMail).order_by(InboundMail.id)).all()
        assert [m.status for m in mails] == ["ignored", "ignored", "processed"]
        assert mails[2].kind == "command"
    sent = md.sent()
    unknown = [r for r in sent if header(r, "To") == "fremd@example.net"]
    assert len(unknown) == 1 and "keiner laufenden Liga" in text_of(unknown[0])
    helps = [r for r in sent if header(r, "To") == "anna@example.org" and "Notation" not in header(r, "Subject")]
    assert any("So schickst du deine Züge" in text_of(r) for r in helps)
    assert not any("Urlaub" in header(r, "Subject") for r in sent)
    # a mail after the ZAT whose round was not adjudicated yet (the bot was down at the
    # ZAT): the round is adjudicated first, the mail counts for the next round (issue 26)
    with db.session() as s:
        rnd = s.scalar(select(Round))
        rnd.zat = datetime.now(timezone.utc) - timedelta(minutes=1)
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nTOR"))
    poll_once(db, cfg)
    with db.session() as s:
        after = s.scalars(select(InboundMail).order_by(InboundMail.id.desc())).first()
        assert after.status == "processed" and after.raw
        assert [x.round_number for x in s.scalars(select(Submission))] == [2]
        assert [r.status for r in s.scalars(select(Round).order_by(Round.number))] == ["adjudicated", "open"]
    ack = [text_of(r) for r in md.sent() if "TOR" in text_of(r) and header(r, "To") == "anna@example.org"][-1]
    assert "nach dem ZAT der Runde 1" in ack and "für Runde 2" in " ".join(ack.split())


def _arrived(raw: bytes, when: datetime) -> bytes:
    """``raw`` as our server stamps it on arrival (the topmost Received line)."""
    return f"Received: from mx.example.org by mail.example.org; {format_datetime(when)}\r\n".encode() + raw


def test_a_mail_after_a_passed_zat_counts_for_the_next_round(env):
    """The bot was down at the ZAT of round 1 (an hour ago). The poll finds two mails: Bernd's
    reached the server before the ZAT, Anna's after it. The runner adjudicates round 1
    between them (the intake adjudicates nothing): Bernd's move counts for round 1, Anna's
    for round 2, and round 1 scores Anna as NMR; her acknowledgement says so."""
    db, cfg, md = env
    now = datetime.now(timezone.utc)
    pos = position_of(states(db)["R1"])
    best = best_moves(pos, load("rondo"), 1)[0]
    bernd_move = f"{best.notation(pos)} {best.score}"
    with db.session() as s:
        s.scalar(select(Round)).zat = now - timedelta(hours=1)
    early = player_mail("bernd@example.org", f"Partie R1:\n{bernd_move}")
    md.deliver_to_inbox(_arrived(early, now - timedelta(hours=2)))
    md.deliver_to_inbox(_arrived(player_mail("anna@example.org", "Partie R1:\nTOR"), now - timedelta(minutes=30)))
    poll_once(db, cfg)
    with db.session() as s:
        emails = {p.id: p.email for p in s.scalars(select(Player))}
        subs = {(emails[x.player_id], x.round_number) for x in s.scalars(select(Submission))}
        assert subs == {("bernd@example.org", 1), ("anna@example.org", 2)}
        assert [r.status for r in s.scalars(select(Round).order_by(Round.number))] == ["adjudicated", "open"]
        r1 = {emails[r.player_id]: r for r in s.scalars(select(Result).join(Partie).where(
            Partie.name == "R1", Result.round_number == 1))}
    assert r1["bernd@example.org"].submitted and r1["bernd@example.org"].score == best.score
    assert not r1["anna@example.org"].submitted and r1["anna@example.org"].score == 0
    ack = [text_of(r) for r in md.sent() if "TOR" in text_of(r) and header(r, "To") == "anna@example.org"][-1]
    assert "nach dem ZAT der Runde 1" in ack and "für Runde 2" in " ".join(ack.split())


def test_the_poll_reads_a_batch_in_one_transaction_and_a_failing_mail_loses_nothing_of_the_others(env, monkeypatch):
    """The poll reads its stored mails a batch at a time in one transaction (issue 35):
    a mail whose reading fails after it has written its submission is rolled back alone
    (status ``error``, its sender told, none of its moves kept); the mails before and
    after it are read and answered as usual, each once (SQLite and PostgreSQL)."""
    import bot.service.conversations.intake as intake
    db, cfg, md = env
    real = intake.take_moves

    def half(ctx, text):  # the submission written, then the reading fails
        real(ctx, text)
        if ctx.rm.from_addr == "bernd@example.org":
            raise RuntimeError("kaputt nach dem Schreiben")
    monkeypatch.setattr(intake, "take_moves", half)
    ids = [store_raw(db, player_mail(f"{who}@example.org", f"Partie R1:\n{move}"), source="imap", uidvalidity=7,
                     uid=n)[0] for n, (who, move) in enumerate((("anna", "TOR"), ("bernd", "ROT"), ("clara", "MOND")))]
    assert read_stored(db, cfg) == 3
    with db.session() as s:
        got = [(m.from_addr, m.status) for m in s.scalars(select(InboundMail).where(InboundMail.id.in_(ids))
                                                             .order_by(InboundMail.id))]
        moves = s.execute(select(InboundMail.from_addr, Submission.id).join(Submission, Submission.mail_id == InboundMail.id)
                          .order_by(InboundMail.id)).all()
    assert got == [("anna@example.org", "processed"), ("bernd@example.org", "error"), ("clara@example.org", "processed")]
    assert sorted({a for a, _ in moves}) == ["anna@example.org", "clara@example.org"]
    answers = [o.to_addr for o in outbox(db) if o.kind in ("ack", "notice")]
    assert sorted(answers) == ["anna@example.org", "bernd@example.org", "clara@example.org"]  # each once
    assert "nicht lesen" in text_of([o for o in outbox(db) if o.to_addr == "bernd@example.org"][-1].raw)


def test_a_database_outage_while_a_batch_is_read_leaves_it_stored(env, monkeypatch):
    """The database going away while the poll reads a batch (one transaction, issue 35)
    raises :class:`DatabaseUnavailable` (the service waits and tries again), not an
    error recorded on a mail: the whole batch stays stored, nothing is answered, and the
    next read answers each mail once."""
    from sqlalchemy.exc import OperationalError

    import bot.service.conversations.intake as intake
    from bot.storage.db import DatabaseUnavailable
    db, cfg, md = env
    real = intake.take_moves

    def gone(ctx, text):
        if ctx.rm.from_addr == "bernd@example.org":
            raise OperationalError("INSERT", {}, Exception("server closed the connection unexpectedly"))
        real(ctx, text)
    monkeypatch.setattr(intake, "take_moves", gone)
    for n, (who, move) in enumerate((("anna", "TOR"), ("bernd", "ROT"))):
        store_raw(db, player_mail(f"{who}@example.org", f"Partie R1:\n{move}"), source="imap", uidvalidity=7, uid=n)
    acks = len(outbox(db, "ack"))
    with pytest.raises(DatabaseUnavailable):
        read_stored(db, cfg)
    with db.session() as s:
        assert set(s.scalars(select(InboundMail.status))) == {"stored"}
    assert len(outbox(db, "ack")) == acks
    monkeypatch.setattr(intake, "take_moves", real)
    assert read_stored(db, cfg) == 2
    with db.session() as s:
        assert set(s.scalars(select(InboundMail.status))) == {"processed"}
    assert sorted(o.to_addr for o in outbox(db, "ack")[acks:]) == ["anna@example.org", "bernd@example.org"]


def test_stored_mail_survives_a_crash_before_reading(env):
    db, cfg, md = env
    raw = player_mail("anna@example.org", "Partie R1:\nXQZ")
    mail_id, new = store_raw(db, raw, source="imap", uidvalidity=7, uid=1)
    assert new
    assert store_raw(db, raw, source="imap", uidvalidity=8, uid=1) == (mail_id, False)  # stored once
    # "crash" here: nothing read yet; the next start reads it
    assert read_stored(db, cfg) == 1
    with db.session() as s:
        m = s.get(InboundMail, mail_id)
        assert m.status == "processed" and m.parse["sections"][0]["moves"] == ["XQZ"]
    assert len(outbox(db, "ack")) == 1


def test_missed_zat_runs_at_startup_and_next_zat_is_future(env):
    db, cfg, md = env
    now = datetime.now(timezone.utc)
    with db.session() as s:
        s.scalar(select(Round)).zat = now - timedelta(days=10)
    done = adjudicate_due(db, cfg, now)
    assert [d["round"] for d in done] == [1]
    with db.session() as s:
        rounds = s.scalars(select(Round).order_by(Round.number)).all()
        assert [r.status for r in rounds] == ["adjudicated", "open"]
        assert rounds[1].zat > now
    assert adjudicate_due(db, cfg, now) == []  # nothing twice


def test_whole_league_to_the_end(env):
    db, cfg, md = env
    for _ in range(3):
        assert adjudicate_league(db, cfg, "Test-Rondo", force=True) is not None
    assert adjudicate_league(db, cfg, "Test-Rondo", force=True) is None
    view = league_view(db, "Test-Rondo")
    assert view["status"] == "finished"
    reports = outbox(db, "auswertung")
    assert len(reports) == 3 * len(PLAYERS)
    assert "Schlussauswertung" in reports[-1].subject


def test_cli_commands_on_embedded_default(tmp_path, capsys, monkeypatch, db_url):
    monkeypatch.chdir(tmp_path)
    conf = tmp_path / "bot.toml"
    url = "sqlite:///db.sqlite" if db_url.startswith("sqlite") else db_url
    conf.write_text(f'[database]\nurl = "{url}"\n[maildir]\npath = "mail"\n'
                    '[bot]\nsender = "spielleiter@example.org"\n', encoding="utf-8")
    liga = league_toml(tmp_path / "liga.toml", name="DS-Rondo", partien=("R1", "R2", "R3"), rounds=20,
                       first_zat=datetime(2026, 12, 6, 20, 0, tzinfo=timezone(timedelta(hours=1))))
    assert main(["init", "--config", str(conf)]) == 0
    assert main(["league", "create", str(liga), "--config", str(conf)]) == 0
    assert len(MaildirTransport(tmp_path / "mail").sent()) == 3  # delivered before exit
    capsys.readouterr()
    assert main(["show", "DS-Rondo", "--json", "--config", str(conf)]) == 0
    import json
    view = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in view["partien"]] == ["R1", "R2", "R3"]
    assert all(p["round"] == 1 and p["row"] == "........." and len(p["vorgabe"]) == 6 for p in view["partien"])
    assert view["next_zat"] == "2026-12-06T19:00:00+00:00"
    assert {r["player"] for r in view["standings"]} == {e for _, e in PLAYERS}
    assert main(["adjudicate", "DS-Rondo", "--config", str(conf)]) == 0
    assert "noch nicht erreicht" in capsys.readouterr().out
    assert main(["adjudicate", "DS-Rondo", "--now", "--config", str(conf)]) == 0
    assert "Runde 1 ausgewertet" in capsys.readouterr().out
    assert main(["show", "DS-Rondo", "--json", "--config", str(conf)]) == 0
    view = json.loads(capsys.readouterr().out)
    assert all(p["round"] == 2 for p in view["partien"])
    # ZAT of round 2: one week later, still 20:00 Berlin time
    assert view["next_zat"] == "2026-12-13T19:00:00+00:00"
    assert main(["show", "Nix", "--config", str(conf)]) == 2


def test_unknown_partie_is_answered_and_its_moves_kept_apart(env):
    db, cfg, md = env
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nABC\n\nR3: TOR\nmondE\n\nGruß\nAnna"))
    poll_once(db, cfg)
    ack = text_of(outbox(db, "ack")[0].raw)
    assert "Eine Partie R3 gibt es in Test-Rondo nicht" in ack
    assert "Hauptzug: ABC" in ack and "Ersatzzug 1" not in ack  # mondE belongs to R3, not R1
    with db.session() as s:
        subs = s.scalars(select(Submission)).all()
        assert [[m.text for m in x.moves] for x in subs] == [["ABC"]]


def test_anmelden_is_refused_for_a_rondo_league(tmp_path, db_url):
    """Rondo leagues do not take players mid-season; the answer says where one can join."""
    cfg = embedded(tmp_path / "var")
    cfg.database_url = db_url
    cfg.sender = "spielleiter@example.org"
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    with db.session() as s:
        create_league(s, read_league_file(league_toml(tmp_path / "r.toml")), cfg)
    md.deliver_to_inbox(player_mail("neu@example.org", "", subject="ANMELDEN Test-Rondo Neu"))
    poll_once(db, cfg)
    with db.session() as s:
        assert len(s.scalars(select(Player)).all()) == len(PLAYERS)
    reply = [r for r in md.sent() if header(r, "To") == "neu@example.org"]
    assert len(reply) == 1 and "jederzeit Einstieg" in text_of(reply[0])


def test_arrival_time_from_our_received_header_decides_the_round(env):
    """A mail our server received before the ZAT counts even when the bot reads it after
    the ZAT (it was down, or the ZAT fell between polls); one received after it counts for
    the next round, read after the ZAT's delayed adjudication."""
    from bot.service.stages.store import arrival_time
    db, cfg, md = env
    zat = datetime.now(timezone.utc) - timedelta(minutes=10)
    with db.session() as s:
        s.scalar(select(Round)).zat = zat
    def stamped(when, body):
        raw = player_mail("anna@example.org", body)
        hdr = f"Received: from mx.example.org by imap.example.org; {format_datetime(when)}\r\n".encode()
        return hdr + raw
    early = stamped(zat - timedelta(minutes=3), "Partie R1:\nXQZ")
    late = stamped(zat + timedelta(minutes=3), "Partie R2:\nXQZ")
    assert abs(arrival_time(early) - (zat - timedelta(minutes=3))) < timedelta(seconds=1)
    future = stamped(datetime.now(timezone.utc) + timedelta(days=2), "x")
    assert arrival_time(future) <= datetime.now(timezone.utc) + timedelta(seconds=1)  # never in the future
    md.deliver_to_inbox(early)
    md.deliver_to_inbox(late)
    poll_once(db, cfg)
    with db.session() as s:
        mails = s.scalars(select(InboundMail).order_by(InboundMail.id)).all()
        assert [m.status for m in mails] == ["processed", "processed"]
        assert [([m.text for m in x.moves], x.round_number) for x in s.scalars(select(Submission))] == [
            (["XQZ"], 1), (["XQZ"], 2)]


def test_auswertung_alle_sends_every_players_move_lines(env):
    """Each Auswertung holds the player's own move lines and one line per player;
    ``AUSWERTUNG n ALLE`` sends everybody's complete move lines of round n."""
    db, cfg, md = env
    md.deliver_to_inbox(player_mail("anna@example.org", "Partie R1:\nQQQ\nErsatz: XYZ\n"))
    poll_once(db, cfg)
    adjudicate_league(db, cfg, "Test-Rondo", force=True)
    deliver(db, md, cfg)
    seen = set(md.sent())
    md.deliver_to_inbox(player_mail("bernd@example.org", "", subject="AUSWERTUNG 1 ALLE"))
    md.deliver_to_inbox(player_mail("bernd@example.org", "", subject="AUSWERTUNG 2 ALLE"))
    poll_once(db, cfg)
    answers = [text_of(m) for m in md.sent() if m not in seen]
    assert len(answers) == 2, answers
    one = next(t for t in answers if "Alle Züge" in t)
    two = next(t for t in answers if t is not one)
    assert "Alle Züge der Runde 1 (Test-Rondo)" in one and "Partie R1:" in one
    assert "Anna Albers: 0 Punkte (kein gültiger Zug)" in one
    assert "Hauptzug: QQQ" in one and "Ersatzzug 1: XYZ" in one
    assert "Clara Conrad: 0 Punkte (kein Zug eingegangen – NMR)" in one
    assert "Die Runde 2 von Test-Rondo ist noch nicht ausgewertet." in two

"""The machinery that keeps the bot fast at every league size (issue "fast at every league
size"): each move line read once and handed on, mails stored raw in batches and moved only
after a durable sync, the round's mails queued in bulk and stored compressed, the shared
parts of an Auswertung encoded once, and Auswertungen with one table line per player.
Speed itself is measured by ``bench/``, never here."""

from __future__ import annotations

import re

from sqlalchemy import select, text

from bot.games import get_game
from bot.games.base import GameRules, MoveReport, NotationError
from bot.games.rondo import notation as rondo_notation
from bot.mail.compose import Segments, _qp, compose, qp_lines
from bot.mail.transport import MemoryPollState
from bot.packing import Chunked, Packed, pack, unpack
from bot.service.stages import rounds
from bot.service.conversations.intake import process_pending
from bot.service.stages.store import RawMail, make_store, store_raw, store_raw_batch, store_raw_many
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver, queue_mail, queue_mails
from bot.service.operations.runner import poll_once
from bot.storage.models import CompressedBytes, InboundMail, OutboxMail
from bot import submission
from tests.helpers import header, league_toml, player_mail, text_of


def _league(db, cfg, md, tmp_path, players, **kw):
    spec = read_league_file(league_toml(tmp_path / "liga.toml", players=players, **kw))
    with db.session() as s:
        create_league(s, spec, cfg)
    deliver(db, md, cfg)


# -- each line read once ------------------------------------------------------------


def test_each_move_line_is_parsed_once_from_framing_to_acknowledgement(env, tmp_path, monkeypatch):
    db, cfg, md = env
    _league(db, cfg, md, tmp_path, [("Anna Albers", "anna@example.org")], partien=("R1",))
    calls: list[str] = []
    real = rondo_notation.parse_move

    def counting(text):
        calls.append(text)
        return real(text)
    # every place that could read a line again: the notation, the rules' read_move, the engine
    import bot.games.rondo.engine as engine
    import bot.games.rondo.game as game_mod
    for mod in (rondo_notation, engine, game_mod):
        monkeypatch.setattr(mod, "parse_move", counting)
    submission._read_cached.cache_clear()
    md.deliver_to_inbox(player_mail("anna@example.org", "Hallo,\n\nPartie R1:\nQQQ\nErsatz: XYZ 5 Punkte\nZYX\n\n"
                                                       "Viele Grüße\nAnna"))
    poll_once(db, cfg)
    ack = next(text_of(m) for m in md.sent() if "Re: Züge" in header(m, "Subject"))
    assert "Hauptzug: QQQ" in ack and "Ersatzzug 2: ZYX" in ack and ack.count("ungültig") == 3
    # framing read each line once (the closing too, to tell it from a move); the
    # acknowledgement's check got the read moves and read nothing again (each line is
    # read in the game's spelling, issue 33: the closing's "ü" and "ß" as UE and SS)
    assert sorted(calls) == sorted(["QQQ", "XYZ 5 Punkte", "ZYX", "Viele Gruesse"]), calls


class _Old(GameRules):
    """A game whose ``check_line`` reads the text itself (``reads_parsed_move`` False)."""

    name = alphabet = title = "old"
    new_partie = adjudicate = public_view = None  # type: ignore[assignment]

    def read_move(self, text):
        return text.strip()

    def check_line(self, state, text, lexicon, index=0, *, player=None):
        return MoveReport(index, text, True, score=len(text))


class _New(_Old):
    reads_parsed_move = True

    def check_line(self, state, text, lexicon, index=0, *, player=None, move=None):
        if isinstance(move, NotationError):
            return MoveReport(index, text, False, reason="syntax", message=move.message)
        return MoveReport(index, text, True, score=-1 if move is None else len(move), detail={"move": move})


def test_check_read_hands_the_read_move_on_to_a_game_that_declares_it():
    old, new = _Old(), _New()
    assert old.check_read({}, "ABC", "ABC", None, 0).score == 3  # reads_parsed_move False: the text alone
    r = new.check_read({}, " ABC", "ABC", None, 1, player="7")
    assert r.detail == {"move": "ABC"} and r.score == 3 and r.index == 1
    bad = new.check_read({}, "??", NotationError("nicht lesbar", "??"), None)
    assert not bad.valid and bad.reason == "syntax" and bad.message == "nicht lesbar"
    assert new.check_read({}, "ABC", None, None).score == -1  # not read: the game reads it itself


def test_rondo_and_monoscrabble_check_line_use_the_read_move():
    rondo = get_game("rondo")
    state = rondo.new_partie(seed="1", partie="R1")
    lex = {"MAX"}
    err = NotationError("so nicht", "xx")
    assert rondo.check_line(state, "xx", lex, move=err).message == "so nicht"
    assert rondo.check_line(state, "M!", lex).reason == "syntax"
    mono = get_game("monoscrabble")
    mstate = mono.new_partie(seed="1", partie="M1")
    assert mono.check_line(mstate, "xx", lex, move=err).message == "so nicht"


# -- stored raw in batches, moved after a durable sync ---------------------------------------


def _raw(n: int, body: str = "Partie R1:\nQQQ\n") -> bytes:
    return player_mail("anna@example.org", body, subject=f"Züge {n}", headers={"Message-ID": f"<z{n}@example.org>"})


def test_store_raw_many_dedupes_by_bytes_and_reading_by_message_id(env):
    """Storing dedupes the same bytes only; a re-delivery (same Message-ID and content,
    other trace headers) is stored and found at reading, where it changes nothing."""
    db, cfg, _ = env
    a, b = _raw(1), _raw(2)
    a_again = a.replace(b"Subject:", b"X-Trace: 1\r\nSubject:", 1)  # same Message-ID, other bytes
    first = store_raw(db, a, source="t")
    assert first[1] is True
    out = store_raw_many(db, [RawMail(a, "t"), RawMail(a_again, "t"), RawMail(b, "t"), RawMail(b, "t"),
                              RawMail(b"From: x@y.org\r\n\r\nohne Message-ID\r\n", "t")])
    assert [new for _, new in out] == [False, True, True, False, True]
    assert out[0][0] == first[0] and len({out[1][0], out[2][0], first[0]}) == 3 and out[2][0] == out[3][0]
    with db.session() as s:
        assert s.scalar(select(text("count(*)")).select_from(InboundMail)) == 4
        rows = s.execute(select(InboundMail.status, InboundMail.message_id).order_by(InboundMail.id)).all()
    assert rows == [("stored", None)] * 4  # the headers are read at reading
    process_pending(db, cfg)
    with db.session() as s:
        rows = s.execute(select(InboundMail.id, InboundMail.status, InboundMail.message_id, InboundMail.parse)
                         .order_by(InboundMail.id)).all()
    assert [r.message_id for r in rows] == ["<z1@example.org>", "<z1@example.org>", "<z2@example.org>", None]
    assert rows[1].status == "ignored" and rows[1].parse["duplicate_of"] == first[0]
    assert all("duplicate_of" not in (r.parse or {}) for r in (rows[0], rows[2], rows[3]))


def test_store_raw_batch_skips_bytes_stored_before_in_one_statement(env):
    """The transports' store: one INSERT .. ON CONFLICT DO NOTHING (SQLite and PostgreSQL):
    the same bytes once, in a batch and across batches; a mail over the limit cut."""
    db, _, _ = env
    a, b, c = _raw(1), _raw(2), _raw(3, "Partie R1:\nQQQ\n" + "lang " * 2000)
    from sqlalchemy import event
    statements = []
    event.listen(db.engine, "before_cursor_execute", lambda _c, _cur, sql, *a: statements.append(sql))
    store_raw_batch(db, [RawMail(a, "t", 7, 1), RawMail(b, "t", 7, 2), RawMail(a, "t", 7, 3)], max_bytes=5000)
    store_raw_batch(db, [RawMail(b, "t", 7, 4), RawMail(c, "t", 7, 5)], max_bytes=5000)
    pragmas = [q for q in statements if q.lstrip().upper().startswith("PRAGMA")]
    sent = [q for q in statements if q not in pragmas]  # before the checking SELECT below
    with db.session() as s:
        rows = s.execute(select(InboundMail.uid, InboundMail.raw, InboundMail.raw_size, InboundMail.status)
                         .order_by(InboundMail.id)).all()
    assert [r.uid for r in rows] == [1, 2, 5]
    assert bytes(rows[0].raw) == a and bytes(rows[1].raw) == b and rows[0].raw_size is None
    assert len(rows[2].raw) <= 5000 < len(c) == rows[2].raw_size
    assert {r.status for r in rows} == {"stored"}
    inserts = [q for q in sent if q.lstrip().upper().startswith("INSERT")]
    assert len(inserts) == len(sent) == 2 and all("ON CONFLICT" in q.upper() for q in inserts)  # one statement a batch
    if db.is_sqlite:  # each batch is committed durably (synchronous=FULL for its commit only)
        assert pragmas == ["PRAGMA synchronous=FULL", "PRAGMA synchronous=NORMAL"] * 2
    else:
        assert pragmas == []


def test_answer_cap_counts_by_an_index_not_a_scan_of_the_outbox(env):
    """gate_answers counts an address's answers of the last hour for every mail read: the
    migrated schema has the index on the lower-cased address and the time, and SQLite's
    planner takes it (a scan would make intake quadratic in the outbox)."""
    from datetime import datetime, timezone

    from sqlalchemy import func

    from bot.service.conversations.loops import HOUR, NOT_ANSWERS
    db, _, _ = env
    now = datetime.now(timezone.utc)
    query = select(func.count()).select_from(OutboxMail).where(
        func.lower(OutboxMail.to_addr) == "anna@example.org", OutboxMail.created_at > now - HOUR,
        OutboxMail.status != "suppressed", OutboxMail.kind.not_in(NOT_ANSWERS), OutboxMail.id != 0)
    with db.session() as s:
        if s.bind.dialect.name == "sqlite":
            names = s.execute(text("SELECT name FROM sqlite_master WHERE type = 'index'")).scalars().all()
            sql = str(query.compile(s.bind, compile_kwargs={"literal_binds": True}))
            plan = " ".join(str(r[-1]) for r in s.execute(text("EXPLAIN QUERY PLAN " + sql)))
            assert "ix_outbox_to_created" in plan, plan
            # and a batch's count of its senders' answers, once (loops._answered), through the same index
            from bot.service.conversations.loops import _ANSWERED_SINCE
            state = _ANSWERED_SINCE.compile(s.bind).construct_expanded_state(
                {"addrs": ["anna@example.org", "bernd@example.org"], "mine": [0], "since": "2026-01-01"})
            plan = " ".join(str(r[-1]) for r in s.connection().exec_driver_sql(
                "EXPLAIN QUERY PLAN " + state.statement, tuple(state.parameters[k] for k in state.positiontup)))
            assert "ix_outbox_to_created" in plan, plan
        else:
            names = s.execute(text("SELECT indexname FROM pg_indexes WHERE tablename = 'outbox'")).scalars().all()
        assert "ix_outbox_to_created" in names
        assert s.execute(query).scalar_one() == 0


class _FailingSync:
    """A store that takes mails but cannot make them durable."""

    def __init__(self):
        self.taken = 0

    def __call__(self, raw, *, source, uidvalidity, uid):
        self.taken += 1
        return True

    def sync(self):
        raise OSError("disk full")


def test_maildir_moves_only_what_the_store_made_durable(env):
    db, cfg, md = env
    for n in range(5):
        md.deliver_to_inbox(_raw(n))
    failing = _FailingSync()
    assert md.poll(failing) == 0 and failing.taken == 5
    assert len(md.inbox) == 5 and len(md.processed) == 0  # nothing moved: nothing lost
    store = make_store(db, cfg, "maildir")
    assert md.poll(store, MemoryPollState()) == 5
    assert len(md.inbox) == 0 and len(md.processed) == 5
    with db.session() as s:
        assert s.scalar(select(text("count(*)")).select_from(InboundMail)) == 5


def test_imap_pass_fetches_in_batches_and_advances_after_the_sync(dovecot, env, monkeypatch):
    from bot.mail import imap as imap_mod
    from bot.mail.imap import ImapInbox

    db, cfg, _ = env
    user = dovecot.fresh_user()
    for n in range(7):
        dovecot.append(_raw(n), user=user)
    box = ImapInbox(dovecot.host, dovecot.port, user, dovecot.password, tls=False, timeout=10)
    monkeypatch.setattr(imap_mod, "BATCH", 3)  # 7 mails: three FETCHes
    state = MemoryPollState()
    assert box.poll(_FailingSync(), state) == 0
    assert len(dovecot.fetch_all(user=user)) == 7 and state.get("INBOX") == (None, 0)
    fetched = []
    real_fetch = imap_mod.IMAPClient.fetch
    monkeypatch.setattr(imap_mod.IMAPClient, "fetch",
                        lambda self, msgs, data, *a, **k: fetched.append(list(msgs)) or real_fetch(self, msgs, data, *a, **k))
    assert box.poll(make_store(db, cfg, box.source), state) == 7
    bodies = [m for m in fetched if len(m)]
    assert [len(m) for m in bodies] == [3, 3, 1]  # small mails: no sizes asked for, the batches
    assert state.get("INBOX")[1] == max(u for m in bodies for u in m)
    assert len(dovecot.fetch_all(user=user)) == 7  # the pass changes nothing on the server
    assert box.tidy(state) == 7
    assert dovecot.fetch_all(user=user) == [] and len(dovecot.fetch_all("Spielleiter.Verarbeitet", user=user)) == 7
    with db.session() as s:
        assert s.scalar(select(text("count(*)")).select_from(InboundMail)) == 7


def test_imap_pass_asks_only_large_mails_for_their_size_and_keeps_the_byte_limit(dovecot, env, monkeypatch):
    from bot.mail import imap as imap_mod
    from bot.mail.imap import ImapInbox

    db, cfg, _ = env
    user = dovecot.fresh_user()
    big = "Partie R1:\nQQQ\n" + "Gruss und noch ein paar Zeilen Text\n" * 1700
    mails = [_raw(0), _raw(1, big), _raw(2), _raw(3, big), _raw(4)]  # small, ~60 KB, small, ~60 KB, small
    for raw in mails:
        dovecot.append(raw, user=user)
    box = ImapInbox(dovecot.host, dovecot.port, user, dovecot.password, tls=False, timeout=10)
    monkeypatch.setattr(imap_mod, "BATCH_BYTES", 100_000)
    monkeypatch.setattr(imap_mod, "SMALL", 10_000)
    calls = []
    real_fetch = imap_mod.IMAPClient.fetch
    monkeypatch.setattr(imap_mod.IMAPClient, "fetch",
                        lambda self, msgs, data, *a, **k: calls.append((list(msgs), list(data)))
                        or real_fetch(self, msgs, data, *a, **k))
    assert box.poll(make_store(db, cfg, box.source), MemoryPollState()) == 5
    sized = [m for m, data in calls if data == ["RFC822.SIZE"]]
    bodies = [m for m, data in calls if data == ["BODY.PEEK[]"]]
    assert len(sized) == 1 and len(sized[0]) == 2  # only the two large mails
    # 10k + 60k + 10k fit into 100k; the second large mail starts a batch of its own
    assert [len(m) for m in bodies] == [3, 2]
    with db.session() as s:
        raws = [bytes(r) for r in s.scalars(select(InboundMail.raw).order_by(InboundMail.id))]
    assert [r.replace(b"\r\n", b"\n") for r in raws] == [m.replace(b"\r\n", b"\n") for m in mails]


# -- the round's mails ------------------------------------------------------------------


def test_outbox_mails_are_stored_compressed_and_read_back_unchanged(env):
    db, cfg, _ = env
    body = "".join(f"{i:4d}. Spieler {i:03d}        MONDES     24 TORE       12\n" for i in range(300))
    with db.session() as s:
        queue_mail(s, cfg, key="k:big", kind="auswertung", to="a@example.org", subject="x", text=body)
        queue_mail(s, cfg, key="k:small", kind="ack", to="a@example.org", subject="x", text="kurz")
    with db.session() as s:
        stored = dict(s.execute(text("SELECT key, raw FROM outbox")).all())
        rows = {r.key: r.raw for r in s.scalars(select(OutboxMail))}
    assert bytes(stored["k:big"]).startswith(CompressedBytes.MARK) and len(stored["k:big"]) < len(rows["k:big"]) / 4
    assert bytes(stored["k:small"]) == rows["k:small"]  # short mails as they are
    assert body.splitlines()[299] in text_of(rows["k:big"])


def test_queue_mails_skips_queued_keys_and_numbers_a_taken_message_id(env):
    db, cfg, _ = env
    with db.session() as s:
        queue_mail(s, cfg, key="a", kind="auswertung", to="a@example.org", subject="alt", text="alt")
        queue_mail(s, cfg, key="b", kind="auswertung", to="b@example.org", subject="alt", text="alt")
    with db.session() as s:  # as a rollback does: the row keeps its Message-ID under another key
        row = s.scalar(select(OutboxMail).where(OutboxMail.key == "b"))
        row.key, taken = "b:zurueck", row.message_id
    mails = [dict(key=k, kind="auswertung", to=f"{k}@example.org", subject="neu", text=f"neu {k}")
             for k in ("a", "b", "c", "c")]
    with db.session() as s:
        assert queue_mails(s, cfg, mails) == 1  # "c" (once); "b" one by one, "a" was queued
    with db.session() as s:
        rows = {r.key: r for r in s.scalars(select(OutboxMail))}
    assert set(rows) == {"a", "b", "b:zurueck", "c"} and rows["a"].subject == "alt"
    assert rows["b"].message_id != taken and rows["b"].subject == "neu"
    assert header(rows["c"].raw, "Message-ID") == rows["c"].message_id


def test_segments_encode_like_the_whole_text():
    shared = "Pl.  Spieler             R1\n   1. Anna Albers          MONDES     24\n" * 40 + "Ende = 3 Punkte  "
    enc = qp_lines(shared.rstrip())
    seg = Segments(("Hallo Anna,\n\n", enc, "\n\nGrüße\n"), (shared.rstrip(),))
    assert seg.text() == "Hallo Anna,\n\n" + shared.rstrip() + "\n\nGrüße\n"
    assert _qp(seg) == _qp(seg.text())
    raw = compose(sender="bot@example.org", to="a@example.org", subject="x", text=seg, html=seg)
    assert text_of(raw).replace("\r\n", "\n") == seg.text()


def test_shared_chunks_join_into_each_mails_stream_and_read_back_unchanged():
    shared = Chunked(qp_lines("   1. Anna Albers          MONDES     24\n" * 300))
    mails = [pack([f"To: s{i}@example.org\r\n\r\nHallo {i},\r\n".encode(), shared, b"Gruesse\r\n"])
             for i in range(3)]
    for i, m in enumerate(mails):
        assert isinstance(m, Packed) and unpack(m.packed) == bytes(m)
        assert bytes(m).startswith(f"To: s{i}@example.org".encode()) and bytes(m).endswith(b"Gruesse\r\n")
        assert shared.chunk in m.packed and len(m.packed) < len(m) / 5  # the chunk as made once
    assert pack([b"nur klein"]).packed and unpack(pack([b"nur klein"]).packed) == b"nur klein"
    raw = compose(sender="bot@example.org", to="a@example.org", subject="x",
                  text=Segments(("Hallo,\n\n", shared, "\nEnde\n"), ()))
    assert isinstance(raw, Packed) and unpack(raw.packed) == bytes(raw)
    assert "Anna Albers" in text_of(bytes(raw)) and text_of(bytes(raw)).rstrip().endswith("Ende")


def test_auswertungen_one_line_per_player_72_columns_and_shared_parts_encoded_once(env, tmp_path, monkeypatch):
    db, cfg, md = env
    players = [(f"Spieler {i:02d} Nachname", f"s{i:02d}@example.org") for i in range(1, 31)]
    _league(db, cfg, md, tmp_path, players, partien=("R1", "R2", "R3"),
            extra='gm_email = "gm@example.org"')
    for i, (_, addr) in enumerate(players[:20], 1):
        md.deliver_to_inbox(player_mail(addr, "Partie R1:\nQQQ\nPartie R2:\nXXX\n"))
    poll_once(db, cfg)
    captured = {}
    real = rounds.render_auswertungen
    monkeypatch.setattr(rounds, "render_auswertungen", lambda *a, **k: captured.update(real(*a, **k)) or captured)
    rounds.adjudicate_league(db, cfg, "Test-Rondo", force=True)
    assert len(captured) == 31
    for addr, (txt, html) in captured.items():
        assert _qp(txt) == _qp(txt.text()) and _qp(html) == _qp(html.text())
        assert any(isinstance(p, bytes) for p in txt.pieces)  # the shared parts, encoded once
    with db.session() as s:
        raws = {r.to_addr: r.raw for r in s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung"))}
        stored = s.execute(text("SELECT raw FROM outbox WHERE to_addr = 's05@example.org' AND kind = 'auswertung'")).scalar_one()
    reports = {to: text_of(raw) for to, raw in raws.items()}
    # stored as the raw-deflate stream made with the mail (the shared parts compressed once)
    assert bytes(stored).startswith(CompressedBytes.DEFLATE) and len(stored) < len(raws["s05@example.org"]) / 3
    mine = reports["s05@example.org"]
    picture = re.compile(r"^    (Feld|Karte|Wert) ")
    assert all(len(ln) <= 72 for ln in mine.splitlines() if not picture.match(ln)), mine
    rows = [ln for ln in mine.splitlines() if re.match(r"^ *\d+\. Spieler \d\d ", ln)]
    assert len(rows) == 30 and len({r.split(".", 1)[1][:20] for r in rows}) == 30  # one line per player
    assert "Spieler 05 Nachname: 0 Punkte" in mine and "Spieler 06 Nachname: 0 Punkte" not in mine
    gm = reports["gm@example.org"]
    assert all(f"Spieler {i:02d} Nachname: 0 Punkte" in gm for i in range(1, 31))

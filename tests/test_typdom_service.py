"""Typ-Dom through the service on the embedded Maildir: per-player start mails, the
acknowledgement's rack line, Partien one after another (the Auswertung that ends one shows
the next one's start and each player's new rack, only theirs), HTML with red and black
tiles, show --json for the GM, the league-file checks."""

from __future__ import annotations

import email
import email.policy

import pytest
from sqlalchemy import select

from bot.service.domain.league import LeagueError
from bot.service.operations.league import create_league, read_league_file
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.service.presentation.view import league_view
from bot.storage.models import Partie, Player
from tests.helpers import PLAYERS, header, league_toml, player_mail, text_of


def _board(*words):
    g = [list("." * 25) for _ in range(25)]
    for coord, d, w in words:
        col, row = ord(coord[0]) - 64, int(coord[1:])
        for i, ch in enumerate(w):
            r, c = (row, col + i) if d == "w" else (row + i, col)
            g[r - 1][c - 1] = ch
    return ["".join(r) for r in g]


def _league(tmp_path, extra="", players=PLAYERS, partien=("T1", "T2")):
    path = league_toml(tmp_path / "td.toml", name="TD", partien=partien, rounds=20, players=players,
                       extra='gm_email = "gm@example.org"\n' + extra)
    path.write_text(path.read_text().replace('game = "rondo"', 'game = "typdom"'))
    return path


def test_league_file_checks(tmp_path):
    with pytest.raises(LeagueError, match="2 bis 5"):
        read_league_file(_league(tmp_path, players=PLAYERS[:1]))
    with pytest.raises(LeagueError, match="Steine"):
        read_league_file(_league(tmp_path, 'options = { variant = "point", rack = "12+8" }',
                                 players=PLAYERS + [("Dora", "d@example.org")]))
    assert read_league_file(_league(tmp_path, 'options = { variant = "point", rack = "10+8" }'))


def test_partien_one_after_another_with_private_racks(tmp_path, env):
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, "sequential = true")), cfg)
    deliver(db, md, cfg)
    starts = {m_to(raw): text_of(raw) for raw in md.sent() if "Spielbeginn" in header(raw, "Subject")}
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.scalars(select(Player))}
        t1, t2 = s.scalars(select(Partie).order_by(Partie.id)).all()
        racks1, racks2 = dict(t1.state["racks"]), dict(t2.state["racks"])
    from bot.games.typdom.tiles import rack_text
    for addr, txt in starts.items():
        assert rack_text(racks1[keys[addr]]) in txt
        assert rack_text(racks2[keys[addr]]) not in txt and "sie beginnt, wenn die Partie davor" in txt
    # Anna can end T1 at once: EXAMEN on the table, her rack is the S of EXAMENS
    a, b, c = (e for _, e in PLAYERS)
    with db.session() as s:
        t1 = s.scalars(select(Partie).order_by(Partie.id)).first()
        st = dict(t1.state)
        st["board"] = _board(("M13", "w", "EXAMEN"))
        st["racks"] = dict(st["racks"], **{keys[a]: "S"})
        st["seat_order"] = [keys[a], keys[b], keys[c]]
        t1.state = st
    n = len(md.sent())
    md.deliver_to_inbox(player_mail(a, "Partie T1:\nM13w examenS\n"))
    md.deliver_to_inbox(player_mail(b, "Partie T2:\nM13w EXAMEN\n"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    acks = {m_to(raw): text_of(raw) for raw in md.sent()[n:]}
    assert "Sitzplatz 1/3, Bank: S)" in acks[a] and "EXAMENS" in acks[a]
    assert "Partie T2: diese Partie beginnt erst" in acks[b]
    n = len(md.sent())
    res = adjudicate_league(db, cfg, "TD", force=True)
    assert set(res["partien"]) == {"T1"}
    deliver(db, md, cfg)
    sent = md.sent()[n:]
    by_to = {m_to(raw): raw for raw in sent}
    txt = " ".join(text_of(by_to[b]).split())
    assert "Partie T2 (Kreuzwort-Spiel), Beginn" in txt and "hat alle Steine gelegt – als Erster!" in txt
    # Bernd's own new rack for T2, nobody else's
    assert rack_text(racks2[keys[b]]) in txt
    assert rack_text(racks2[keys[c]]) not in txt
    gm = " ".join(text_of(by_to["gm@example.org"]).split())
    assert all(rack_text(racks2[keys[x]]) in gm for x in (a, b, c))
    html = email.message_from_bytes(by_to[b], policy=email.policy.default).get_body(("html",)).get_content()
    assert "background: #c62828" in html and "background: #222" in html and ">S</td>" in html
    view = league_view(db, "TD")
    t1v, t2v = view["partien"]
    assert t1v["finished"] and t1v["end"]["first_out"] == a and not t2v["finished"]
    assert len(t2v["board"]) == 25 and t2v["seat_order"] and sum(t2v["rack_sizes"].values()) == 39
    assert {p["player"]: p["rack"] for p in t2v["players"]}[b] == racks2[keys[b]]
    assert "Schlussauswertung" not in header(by_to[b], "Subject")


def m_to(raw: bytes) -> str:
    return str(email.message_from_bytes(raw, policy=email.policy.default)["To"])


def _all_text(raw: bytes) -> str:
    """Every text part of a mail (plain and HTML, tags removed), whitespace folded."""
    import html as htmlmod
    import re
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    parts = [p.get_content() for p in msg.walk() if p.get_content_maintype() == "text"]
    return " ".join(htmlmod.unescape(re.sub(r"<[^>]+>", " ", "\n".join(parts))).split())


def test_a_line_that_probes_the_rack_shows_others_nothing_but_that_it_was_invalid(tmp_path, env):
    """Issue 31, attack 2: one line with 27 placements, 14 of every letter and 14 Jollys,
    sent in Anna's name, once made every Auswertung and the archive print "Steine, die
    nicht auf der Bank sind: AAAAAAAAAAAAA BBBBBBBBBBBBBB ..." (14 minus each count: her
    rack). Now Anna alone reads the reason; Bernd's and Clara's Auswertung, Bernd's
    AUSWERTUNG 1 ALLE and every archive page say only that her line was invalid."""
    import re
    from bot.games.typdom.tiles import LETTERS
    from bot.service.presentation.archive import build_archive
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, partien=("T1",))), cfg)
    a, b, c = (e for _, e in PLAYERS)
    rack = "AEHMNRS"
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.scalars(select(Player))}
        t1 = s.scalars(select(Partie)).one()
        st = dict(t1.state)
        st["board"] = _board(("M13", "w", "EXAMEN"))
        st["racks"] = dict(st["racks"], **{keys[a]: rack, keys[b]: "BDIKRST", keys[c]: "CFIKLPW"})
        st["seat_order"] = [keys[a], keys[b], keys[c]]
        t1.state = st
    deliver(db, md, cfg)
    probe = "; ".join([f"A{r}w {ch * 14}" for r, ch in enumerate(LETTERS[:25], 1)]
                      + [f"Y1s {LETTERS[25] * 14}", "N1s " + "*E" * 14])
    assert probe.count(";") == 26
    n = len(md.sent())
    md.deliver_to_inbox(player_mail(a, f"Partie T1:\n{probe}\n"))  # Bernd, in Anna's name
    md.deliver_to_inbox(player_mail(b, "Partie T1:\nR11s KInD\nErsatz: KAUFEN\n"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    acks = {m_to(raw): _all_text(raw) for raw in md.sent()[n:]}
    # the acknowledgement goes to Anna's address only, with the precise reason
    assert set(acks) == {a, b}
    assert f"Nicht auf deiner Bank ({rack}): ************* AAAAAAAAAAAAA BBBBBBBBBBBBBB" in acks[a]
    assert rack not in acks[b] and "AAAAAAAAAAAAA" not in acks[b] and "Bank (" not in acks[b]

    n = len(md.sent())
    adjudicate_league(db, cfg, "TD", force=True)
    deliver(db, md, cfg)
    reports = {m_to(raw): _all_text(raw) for raw in md.sent()[n:]}
    assert {a, b, c, "gm@example.org"} <= set(reports)
    assert f"Nicht auf deiner Bank ({rack}): ************* AAAAAAAAAAAAA BBBBBBBBBBBBBB" in reports[a]
    # the game master reads it about the player
    assert f"Nicht auf der Bank ({rack}): ************* AAAAAAAAAAAAA BBBBBBBBBBBBBB" in reports["gm@example.org"]

    n = len(md.sent())
    md.deliver_to_inbox(player_mail(b, "", subject="AUSWERTUNG 1 ALLE"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    alle = [_all_text(raw) for raw in md.sent()[n:] if m_to(raw) == b]
    assert alle and "Anna Albers" in alle[-1] and "ungültig" in alle[-1]

    out = tmp_path / "archiv"
    build_archive(db, out)
    pages = {p.name: " ".join(re.sub(r"<[^>]+>", " ", p.read_text(encoding="utf-8")).split())
             for p in out.rglob("*.html")}
    assert any(name.startswith("runde-01") for name in pages)

    def leaks(text: str) -> list[str]:
        found = [s for s in ("Nicht auf deiner Bank", "nicht auf der Bank", "Steine, die nicht", rack,
                             "AAAAAAAAAAAAA", "BBBBBBBBBBBBB", "*E*E", "A1w A", "N1s") if s in text]
        # any run of 13 or 14 equal letters: a count of the missing tiles
        found += re.findall(r"([A-Z*])\1{12}", text)
        return found
    for where, text in [("Bernd", reports[b]), ("Clara", reports[c]), ("AUSWERTUNG 1 ALLE", alle[-1]),
                        *pages.items()]:
        assert not leaks(text), (where, leaks(text), text[:3000])

    # the public turn record keeps the index of the failed line, nothing else
    with db.session() as s:
        turns = s.scalars(select(Partie)).one().state["history"][-1]["turns"]
    assert next(t for t in turns if t["player"] == keys[a])["failed"] == [{"index": 0}]


def test_a_dutch_league_reads_typdom_in_dutch(tmp_path, env):
    """The verdicts and the templates come from the catalog: a league with ``language =
    "nl"`` gets its start mail, acknowledgement and Auswertung in Dutch, the mover's own
    reason included."""
    db, cfg, md = env
    with db.session() as s:
        create_league(s, read_league_file(_league(tmp_path, 'language = "nl"', partien=("T1",))), cfg)
    deliver(db, md, cfg)
    a, b, c = (e for _, e in PLAYERS)
    starts = {m_to(raw): text_of(raw) for raw in md.sent()}
    assert "Je plankje (alleen voor jou):" in starts[a] and "Zo stuur je je zetten (Typ-Dom)" in starts[a]
    assert "Deine Bank" not in starts[a] and "So schickst du" not in starts[a]
    with db.session() as s:
        keys = {p.email: str(p.id) for p in s.scalars(select(Player))}
        t1 = s.scalars(select(Partie)).one()
        st = dict(t1.state)
        st["board"] = _board(("M13", "w", "EXAMEN"))
        st["racks"] = dict(st["racks"], **{keys[a]: "AEHMNRS", keys[b]: "BDIKRST", keys[c]: "CFIKLPW"})
        st["seat_order"] = [keys[a], keys[b], keys[c]]
        t1.state = st
    n = len(md.sent())
    md.deliver_to_inbox(player_mail(a, "Partie T1:\nR11s QInD\nReserve: KAUFEN\n"))
    poll_once(db, cfg)
    deliver(db, md, cfg)
    ack = " ".join(text_of(md.sent()[n]).split())
    assert "ongeldig: Niet op je plankje (AEHMNRS): D I Q." in ack and "geldig: koopt 1 steen" in ack
    n = len(md.sent())
    adjudicate_league(db, cfg, "TD", force=True)
    deliver(db, md, cfg)
    reports = {m_to(raw): " ".join(text_of(raw).split()) for raw in md.sent()[n:]}
    assert "De zetten in zitvolgorde:" in reports[b] and "Hoofdzet niet mogelijk, reservezet 1 telt." in reports[b]
    assert "Niet op je plankje" not in reports[b] and "QInD" not in reports[b]
    assert "Niet op je plankje (AEHMNRS): D I Q." in reports[a] and "Je plankje voor de volgende ronde:" in reports[a]
    for who in (a, b, c):  # the game master reads German (gm_language)
        assert "Die Züge in Sitzreihenfolge" not in reports[who] and "Steine auf der Bank" not in reports[who]
    assert "Die Züge in Sitzreihenfolge" in reports["gm@example.org"]

"""``spielleiter demo``: a whole Rondo league on the embedded default.

Rondo: three Partien, four simulated players who mail real RFC 5322 messages into the
bot's Maildir inbox with moves found by the move generator on the full lexicon (some
with Ersatzzuege, one sometimes sending nothing), 20 rounds with each ZAT fired at once.
Then a short Monoscrabble game (moves from the exhaustive generator, strong and weak
players, a fifth player joining by mail), and a Crossword game: six simulated players
of different strengths (placements and wishes from ``bot.games.crossword.movegen``), one
who sometimes sends a broken placement and resends it, one who sometimes sends nothing,
word lists with overlooked words, a wrong and an overlapping claim; two Typ-Dom games
(Point-Typ-Dom with four players, the Kreuzwort-Spiel with three) played until a player is
out: each simulated player mails the best placements of their private rack on the table as
it stands, with Ersatzzüge and ``KAUFEN`` last, so earlier seats sometimes block a main
move; the Typ-Dom race variants: Presto (two races one after another, each player's
crossword from the bot's search mailed with a Received time of their speed, one broken try,
one player who sends nothing, the race closing by itself at the second valid crossword) and
"Wer behält recht?" (three players, one turn after another, each ending with the poll that
reads it; a player who bluffs with words he cannot finish); and a Dutch RONDO table (seed
004: three players with private hands, the opening, one turn per round, each turn ended
early by the mover's mail; one player exchanges a card now and then, one sometimes sends
nothing, so that turn waits for its ZAT). Every
Auswertung is written as an ``.eml`` file, and the final standings are printed. Last, the
archive of every league played (``bot.service.presentation.archive``: standings with their charts,
round pages, player pages) is written to ``<out>/archiv/``, and the path of its
``index.html`` is printed, to open in a browser.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import select

from bot.config import embedded
from bot.games import get_game
from bot.games.crossword import movegen
from bot.games.crossword.grid import Field, Grid
from bot.games.monoscrabble.movegen import generate
from bot.games.rondo.cards import Row
from bot.games.rondo.movegen import best_moves
from bot.games.rondo.game import position_of
from bot.games.rondonl.cards import take
from bot.games.rondonl.engine import best_word
from bot.games.rondonl.seats import side_of
from bot.games.typdom import wbrgen
from bot.games.typdom.movegen import gen_notation, placements
from bot.games.typdom.presto import Crossword, format_crossword
from bot.games.typdom.search import find_crossword
from bot.mail.compose import compose
from bot.mail.maildir import MaildirTransport
from bot.service.domain.league import league_lexicon
from bot.service.operations.league import create_league
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.service.presentation.archive import build_archive
from bot.service.presentation.view import league_view
from bot.storage.db import Database
from bot.storage.models import League, OutboxMail, Partie

PLAYERS = [
    # name, address, style
    ("Anna Albers", "anna@demo.invalid", "stark"),
    ("Bernd Becker", "bernd@demo.invalid", "tippfehler"),
    ("Clara Conrad", "clara@demo.invalid", "vorsichtig"),
    ("Dieter Dahl", "dieter@demo.invalid", "unzuverlaessig"),
]
LATE_JOINER = ("Emil Engel", "emil@demo.invalid", "stark")
#: The six Crossword players: name, address, strength (0-1, how often a letter goes on the
#: best field and a word is listed), style.
CROSSWORD_PLAYERS = [
    ("Anna Albers", "anna@demo.invalid", 1.0, "stark"),
    ("Bernd Becker", "bernd@demo.invalid", 0.8, "tippfehler"),
    ("Clara Conrad", "clara@demo.invalid", 0.6, "vorsichtig"),
    ("Dieter Dahl", "dieter@demo.invalid", 0.5, "unzuverlaessig"),
    ("Edith Ernst", "edith@demo.invalid", 0.15, "anfaengerin"),
    ("Fritz Fuchs", "fritz@demo.invalid", 0.9, "wortjaeger"),
]
PARTIEN = ["R1", "R2", "R3"]
MONO_ROUNDS = 6
RONDONL_ROUNDS = 3
DUTCH = [("Anna de Vries", "anna.nl@demo.invalid", "sterk"), ("Bram Jansen", "bram@demo.invalid", "ruiler"),
         ("Carla Peeters", "carla@demo.invalid", "onbetrouwbaar")]


def _choose(style: str, ranked: list[tuple[str, int]], rng: random.Random) -> list[str]:
    """Move lines (main move first) a player of ``style`` would send, from the moves the
    generator found, best first, as (notation, score)."""
    if not ranked:
        return []
    notes = [f"{n} {sc} Punkte" for n, sc in ranked]
    if style == "stark":
        return notes[:3]
    if style == "tippfehler":
        pick = rng.randrange(min(8, len(notes)))
        lines = [notes[pick]] + notes[pick + 1:pick + 3]
        if rng.random() < 0.4:  # a typo in the main move: an Ersatzzug must count
            bad = ranked[pick][0]
            lines.insert(0, bad[:-1] + ("Q" if bad[-1] != "Q" else "X"))
        return lines
    if style == "vorsichtig":
        lo = len(notes) // 2
        pick = rng.randrange(lo, len(notes)) if len(notes) > 1 else 0
        return [notes[pick]]
    pick = rng.randrange(min(15, len(notes)))
    return [notes[pick]] + notes[pick + 1:pick + 2]


def _rank_rondo(state: dict, lexicon) -> list[tuple[str, int]]:
    pos = position_of(state)
    return [(o.notation(pos), o.score) for o in best_moves(pos, lexicon, None)]  # type: ignore[misc]


def _rank_monoscrabble(state: dict, lexicon) -> list[tuple[str, int]]:
    game = get_game("monoscrabble")
    moves = sorted(generate(state["board"], state["rack"], lexicon), key=lambda m: (-m.score, m.row, m.col))
    return [(game.gen_notation(m, state["board"]), m.score) for m in moves[:60]]  # type: ignore[attr-defined]


def _start(db: Database, cfg, md: MaildirTransport, spec: dict):
    """Create league ``spec``, send its start mails; returns ``(league id, lexicon, keys)``
    with ``keys``: player key (``str(player.id)``) -> (name, address)."""
    with db.session() as s:
        create_league(s, spec, cfg)
    deliver(db, md, cfg)
    with db.session() as s:
        league = s.scalar(select(League).where(League.name == spec["name"]))
        return (league.id, league_lexicon(league, cfg),
                {str(p.id): (p.name, p.email) for p in league.players})


def _save_auswertungen(db: Database, league_id: int, out: Path, prefix: str) -> int:
    """Write every Auswertung of the league to ``out`` as
    ``<prefix>-<round, two digits>-<local part of the address>.eml``; returns their number."""
    with db.session() as s:
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung", OutboxMail.league_id == league_id)
                         .order_by(OutboxMail.id)).all()
        for r in rows:
            (out / f"{prefix}-{r.round_number:02d}-{r.to_addr.split('@')[0]}.eml").write_bytes(r.raw)
        return len(rows)


def _play(db: Database, cfg, md: MaildirTransport, spec: dict, ranker, rng: random.Random, out: Path,
          prefix: str, say, late_joiner_round: int | None = None) -> None:
    """Play league ``spec`` to its end; write its Auswertungen to ``out`` as .eml files."""
    name = spec["name"]
    league_id, lexicon, _ = _start(db, cfg, md, spec)
    multi = len(spec["partien"]) > 1
    players = list(PLAYERS)
    say(f"\nDemo: {name} ({spec['game']}), {len(spec['partien'])} Partie(n), {len(players)} Spieler, "
        f"{spec['rounds']} Runden")
    for rnd in range(1, spec["rounds"] + 1):
        if late_joiner_round == rnd:
            jname, jaddr, _ = LATE_JOINER
            md.deliver_to_inbox(compose(sender=f"{jname} <{jaddr}>", to=cfg.sender_addr,
                                        subject=f"ANMELDEN {name} {jname}", text="Ich möchte mitspielen!",
                                        headers={"Auto-Submitted": "no"}))
            players.append(LATE_JOINER)
            say(f"Runde {rnd:2d}: {jname} meldet sich per Mail an")
        with db.session() as s:
            states = {p.name: p.state for p in s.scalars(select(Partie).where(Partie.league_id == league_id)
                                                         .order_by(Partie.id))}
        ranked = {pname: ranker(state, lexicon) for pname, state in states.items()}
        for pname, addr, style in players:
            if style == "unzuverlaessig" and rng.random() < 0.25:
                continue  # sends nothing this round (NMR)
            body = ["Hallo Spielleiter,", "", f"hier meine Züge für Runde {rnd}:", ""]
            for partie in states:
                lines = _choose(style, ranked[partie], rng)
                if not lines:
                    continue
                if multi:
                    body.append(f"Partie {partie}:")
                body.append(lines[0])
                body.extend(f"Ersatz: {ln}" for ln in lines[1:])
                body.append("")
            body += ["Viele Grüße", pname.split()[0]]
            md.deliver_to_inbox(compose(sender=f"{pname} <{addr}>", to=cfg.sender_addr,
                                        subject=f"{name}: Züge Runde {rnd}", text="\n".join(body),
                                        headers={"Auto-Submitted": "no"}))
        poll_once(db, cfg)
        res = adjudicate_league(db, cfg, name, force=True)
        deliver(db, md, cfg)
        if res:
            words = ", ".join(f"{k}: {v or '–'}" for k, v in res["partien"].items())
            say(f"Runde {rnd:2d}: {words}")
    n = _save_auswertungen(db, league_id, out, f"{prefix}-runde")
    view = league_view(db, name)
    say(f"{n} Auswertungen als .eml in {out}")
    say("Endstand" + (" (alle Partien zusammen):" if multi else " (Besser-Wertung):"
                      if spec["game"] == "monoscrabble" else ":"))
    for r in view["standings"]:
        per = ", ".join(f"{k} {v}" for k, v in r["per_partie"].items()) if multi else \
            f"{r['rounds_played']} Runden gespielt"
        say(f"  {r['rank']:>2}. {r['name']:<16} {r['points']:>5} Punkte  ({per})")


def _crossword_body(style: str, strength: float, grid: list[str], letters: str, rnd: int, last: bool,
                    lexicon, rng: random.Random) -> tuple[list[str], list[str] | None]:
    """The move lines a Crossword player of ``style`` sends in round ``rnd``, and a first,
    broken version (or None) that the player sends before and then corrects."""
    lines: list[str] = []
    pairs: list[tuple[str, str]] = []
    if rnd > 1:
        pairs = movegen.place(grid, letters, lexicon, rng, strength)
        lines.append(", ".join(f"{f} {ch}" for f, ch in pairs))
    if not last:
        lines.append(f"Wunsch: {movegen.wish(grid, lexicon, rng, strength)}")
    else:
        after = Grid(grid).place({Field.parse(f): ch for f, ch in pairs})
        claims = movegen.word_list(after.rows, lexicon, rng, strength)
        if style == "anfaengerin":
            claims.append("HAUS A1-A4")  # a word that is not there
        if style == "wortjaeger" and claims:
            claims.append(claims[0])  # the same word twice: the second overlaps
        lines += ["Wörter:"] + claims
    broken = None
    if style == "tippfehler" and pairs and rng.random() < 0.4:
        f, ch = pairs[0]
        broken = [", ".join([f"{f} {ch}", f"{f} {ch}"] + [f"{g} {c}" for g, c in pairs[1:]])] + lines[1:]
    return lines, broken


def _play_crossword(db: Database, cfg, md: MaildirTransport, spec: dict, rng: random.Random, out: Path,
                    say) -> None:
    """Play a Crossword league (seed 003) with :data:`CROSSWORD_PLAYERS`: seven ZATs, then the
    final Auswertung; writes the Auswertungen to ``out`` as .eml files."""
    name = spec["name"]
    league_id, lexicon, players = _start(db, cfg, md, spec)
    keys = {addr: key for key, (_, addr) in players.items()}
    say(f"\nDemo: {name} (crossword), 6 Spieler, 7 ZATs")
    for rnd in range(1, 8):
        with db.session() as s:
            state = s.scalar(select(Partie).where(Partie.league_id == league_id)).state
        for pname, addr, strength, style in CROSSWORD_PLAYERS:
            if style == "unzuverlaessig" and rng.random() < 0.25:
                continue  # sends nothing this round (NMR)
            lines, broken = _crossword_body(style, strength, state["grids"][keys[addr]], state["letters"], rnd,
                                            rnd == 7, lexicon, rng)
            for body in ([broken] if broken else []) + [lines]:
                text = "\n".join(["Hallo Spielleiter,", "", *body, "", "Viele Grüße", pname.split()[0]])
                md.deliver_to_inbox(compose(sender=f"{pname} <{addr}>", to=cfg.sender_addr,
                                            subject=f"{name}: Runde {rnd}", text=text,
                                            headers={"Auto-Submitted": "no"}))
                poll_once(db, cfg)  # the broken one is answered at once; the player resends
        adjudicate_league(db, cfg, name, force=True)
        deliver(db, md, cfg)
        with db.session() as s:
            after = s.scalar(select(Partie).where(Partie.league_id == league_id)).state
        if not after["finished"]:
            say(f"Runde {rnd}: {'gewünscht' if rnd == 1 else 'gelegt'}, Buchstaben für Runde {rnd + 1}: "
                f"{' '.join(after['letters'])}")
    n = _save_auswertungen(db, league_id, out, "crossword-runde")
    final = after.get("final") or {}
    by_key = {key: pname for key, (pname, _) in players.items()}
    say(f"{n} Auswertungen als .eml in {out}")
    say("Endstand (gelistete Wörter; bestmöglich):")
    view = league_view(db, name)
    best = {by_key[k]: v["best"]["score"] for k, v in final.items()}
    for r in view["standings"]:
        say(f"  {r['rank']:>2}. {r['name']:<16} {r['points']:>5} Punkte  (bestmöglich {best.get(r['name'], 0)})")


def _typdom_lines(style: str, state: dict, key: str, lexicon, rng: random.Random) -> list[str] | None:
    """A simulated Typ-Dom player's turn lines on the table as it stands at mailing time
    (earlier seats may block them: then an Ersatzzug counts): the best single placements
    of their rack by the variant's measure, then ``KAUFEN``; None for no mail (NMR)."""
    if style == "unzuverlaessig" and rng.random() < 0.3:
        return None
    rows, rack = state["board"], state["racks"].get(key, "")
    moves = placements(rows, rack, lexicon)
    if state.get("variant") == "kreuzwort":
        moves.sort(key=lambda m: (-len(m.tiles), -m.score, m.row, m.col, m.direction))
    else:
        moves.sort(key=lambda m: (-m.score, -len(m.tiles), m.row, m.col, m.direction))
    lines = [gen_notation(m, rows) for m in moves[:40]]
    if style == "vorsichtig" and len(lines) > 3:
        lines = lines[len(lines) // 3:]
    if style == "tippfehler" and lines and rng.random() < 0.4:
        lines.insert(0, lines[0][:-1] + ("Q" if lines[0][-1] != "Q" else "X"))
    # different squares first: a later seat's word often takes the square of the best one
    return lines[:3] + ["KAUFEN"]


def _play_typdom(db: Database, cfg, md: MaildirTransport, spec: dict, rng: random.Random, out: Path,
                 prefix: str, say, max_rounds: int = 30) -> None:
    """Play a Typ-Dom league (private racks, turns in seat order) until a player is out."""
    name = spec["name"]
    league_id, lexicon, keys = _start(db, cfg, md, spec)
    styles = {e: st for _, e, st in PLAYERS}
    variant = (spec.get("options") or {}).get("variant", "kreuzwort")
    say(f"\nDemo: {name} (Typ-Dom, {variant}), {len(keys)} Spieler, bis einer fertig ist")
    for rnd in range(1, max_rounds + 1):
        with db.session() as s:
            partie = s.scalar(select(Partie).where(Partie.league_id == league_id, Partie.finished.is_(False)))
            if partie is None:
                break
            state = partie.state
        for key in state["seat_order"]:
            pname, addr = keys[key]
            lines = _typdom_lines(styles.get(addr, "stark"), state, key, lexicon, rng)
            if lines is None:
                continue
            body = ["Hallo Spielleiter,", "", f"mein Zug für Runde {rnd}:", "", lines[0]]
            body += [f"Ersatz: {ln}" for ln in lines[1:]]
            body += ["", "Gruß", pname.split()[0]]
            md.deliver_to_inbox(compose(sender=f"{pname} <{addr}>", to=cfg.sender_addr,
                                        subject=f"{name}: Zug Runde {rnd}", text="\n".join(body),
                                        headers={"Auto-Submitted": "no"}))
        poll_once(db, cfg)
        adjudicate_league(db, cfg, name, force=True)
        deliver(db, md, cfg)
        with db.session() as s:
            st = s.scalar(select(Partie).where(Partie.league_id == league_id)).state
        turns = st["history"][-1]["turns"] if st.get("history") else []
        shown = "; ".join(f"{keys[t['player']][0].split()[0]}: "
                          + (" + ".join(w["word"] for w in t["laid"]) if t["kind"] == "place" else
                             {"buy": "kauft", "nmr": "NMR", "skipped": "–"}.get(t["kind"], "ungültig, kauft"))
                          for t in turns)
        say(f"Runde {rnd:2d}: {shown}")
    n = _save_auswertungen(db, league_id, out, f"{prefix}-runde")
    view = league_view(db, name)
    say(f"{n} Auswertungen als .eml in {out}")
    say("Endstand:")
    for r in view["standings"]:
        say(f"  {r['rank']:>2}. {r['name']:<16} {r['points']:>5} Punkte")


def _presto_mails(style: str, rack: str, lexicon, rng: random.Random) -> list[tuple[int, list[str]]]:
    """A simulated Presto player's mails: (seconds after "Los!", at most four minutes;
    crossword lines); the
    crossword comes from the bot's own search (:mod:`bot.games.typdom.search`), as if the
    player had found it; how fast, and whether a broken try comes first, is the style's."""
    proof = find_crossword(rack, lexicon)
    if proof.status != "found" or (style == "unzuverlaessig" and rng.random() < 0.5):
        return []  # no crossword found (or no time): sends nothing
    lines = format_crossword(Crossword(tuple(proof.rows)))
    speed = {"stark": 60, "tippfehler": 100, "vorsichtig": 160, "unzuverlaessig": 130}[style]
    mails = [(speed + rng.randrange(60), lines)]
    if style == "tippfehler":  # sends too early with a tile left out, then the whole crossword
        broken = list(lines)
        i = max(range(len(broken)), key=lambda k: len(broken[k].strip(".")))
        broken[i] = broken[i][:-1]
        mails.insert(0, (speed // 2, broken))
    return mails


def _play_presto(db: Database, cfg, md: MaildirTransport, spec: dict, rng: random.Random, out: Path, say) -> None:
    """Play a Presto league (seed 002): every Partie is a race; each simulated player mails
    the crossword with a Received time of their speed, the race closes by itself with the
    second valid crossword (or at the ZAT)."""
    name = spec["name"]
    league_id, lexicon, keys = _start(db, cfg, md, spec)
    styles = {e: st for _, e, st in PLAYERS}
    say(f"\nDemo: {name} (Typ-Dom Presto), {len(keys)} Spieler, {len(spec['partien'])} Partien nacheinander")
    for partie in spec["partien"]:
        with db.session() as s:
            state = s.scalar(select(Partie).where(Partie.league_id == league_id, Partie.name == partie)).state
        los = datetime.now(ZoneInfo("UTC")) - timedelta(minutes=5)  # "Los!" (a Received stamp is never later than now)
        for key, (pname, addr) in keys.items():
            for secs, lines in _presto_mails(styles.get(addr, "stark"), state["racks"][key], lexicon, rng):
                text = "\n".join(["Hallo,", "", "fertig!", "", *lines, "", "Gruß", pname.split()[0]])
                md.deliver_to_inbox(compose(sender=f"{pname} <{addr}>", to=cfg.sender_addr,
                                            subject=f"{name}: Partie {partie}", text=text,
                                            headers={"Auto-Submitted": "no", "Received": "from pc by mx.demo.invalid; "
                                                     + format_datetime(los + timedelta(seconds=secs))}))
        poll_once(db, cfg)  # the second valid crossword closes the race at once
        with db.session() as s:
            done = s.scalar(select(Partie).where(Partie.league_id == league_id, Partie.name == partie))
            closed = done.finished
        if not closed:
            adjudicate_league(db, cfg, name, force=True)  # the ZAT
        deliver(db, md, cfg)
        with db.session() as s:
            res = s.scalar(select(Partie).where(Partie.league_id == league_id, Partie.name == partie)).state["result"]
        ranking = ", ".join(f"{r['place']}. {keys[r['player']][0]} ({r['points']})" for r in res["ranking"])
        found = sum(1 for pr in res["proofs"].values() if pr["status"] == "found")
        say(f"Partie {partie}: {ranking or 'niemand fertig'}; "
            f"{'zweites Kreuzwort schließt' if closed else 'ZAT'}; Suche: {found}/{len(keys)} Sätze mit Kreuzwort")
    n = _save_auswertungen(db, league_id, out, "presto-runde")
    say(f"{n} Auswertungen als .eml in {out}")
    say("Endstand:")
    for r in league_view(db, name)["standings"]:
        say(f"  {r['rank']:>2}. {r['name']:<16} {r['points']:>5} Punkte")


def _play_wbr(db: Database, cfg, md: MaildirTransport, spec: dict, rng: random.Random, out: Path, say) -> None:
    """Play a "Wer behält recht?" game turn by turn: the player to move mails the turns
    :mod:`bot.games.typdom.wbrgen` finds (with Ersatzzüge, ``KAUFEN`` last), the unreliable
    one sometimes nothing; each turn ends with the poll that reads its valid move, or at its
    ZAT. The league's ``rounds`` caps the turns."""
    name = spec["name"]
    league_id, lexicon, keys = _start(db, cfg, md, spec)
    words = sorted(w for w in lexicon.words() if 2 <= len(w) <= 7)
    styles = {e: st for _, e, st in PLAYERS}
    max_turns = int(spec["rounds"])
    say(f"\nDemo: {name} (Typ-Dom: Wer behält recht?), {len(keys)} Spieler, höchstens {max_turns} Züge")
    for _ in range(max_turns):
        with db.session() as s:
            partie = s.scalar(select(Partie).where(Partie.league_id == league_id))
            if partie.finished:
                break
            state, turn = partie.state, partie.state["round"]
        mover = state["mover"]
        pname, addr = keys[mover]
        style = styles.get(addr, "stark")
        if not (style == "unzuverlaessig" and rng.random() < 0.2):
            lines = wbrgen.turns(state, mover, lexicon, words, limit=3, bluff=style == "tippfehler")
            if state["duty"] != "complete":
                lines.append("KAUFEN" if state["duty"] != "after_buy" and state["pool"] else "PASSE")
            text = "\n".join([lines[0], *(f"Ersatz: {ln}" for ln in lines[1:])])
            md.deliver_to_inbox(compose(sender=f"{pname} <{addr}>", to=cfg.sender_addr, subject=f"{name}: Zug {turn}",
                                        text=text, headers={"Auto-Submitted": "no"}))
            poll_once(db, cfg)  # a valid move ends the turn at once
        with db.session() as s:
            after = s.scalar(select(Partie).where(Partie.league_id == league_id)).state
        if after["round"] == turn and not after["finished"]:
            adjudicate_league(db, cfg, name, force=True)  # the turn's ZAT
            with db.session() as s:
                after = s.scalar(select(Partie).where(Partie.league_id == league_id)).state
        deliver(db, md, cfg)
        rec = after["history"][-1]
        extra = "".join(f"; {keys[d['player']][0]} scheidet aus (zahlt {d['pays']})" for d in rec["dropouts"])
        say(f"Zug {turn:3d}: {pname.split()[0]}: {rec['summary'] or rec['kind']}{extra}")
    n = _save_auswertungen(db, league_id, out, "wbr-runde")
    view = league_view(db, name)
    say(f"{n} Auswertungen als .eml in {out}")
    say("Endstand:")
    for r in view["standings"]:
        say(f"  {r['rank']:>2}. {r['name']:<16} {r['points']:>5} Punkte")


def _rondonl_lines(state: dict, key: str, style: str, lexicon, rng: random.Random) -> list[str] | None:
    """What a RONDO player of ``style`` mails for their turn (None: nothing, NMR), from
    their own hand only, as a player would."""
    hand = state["hands"][side_of(state, key)]
    row = Row.from_code(state["row"])
    if state["phase"] == "opening":
        best = best_word(Row.empty(), hand.replace("/", ""), lexicon)
        return [best["notation"]] if best else ["PAS"]
    if style == "onbetrouwbaar" and rng.random() < 0.3:
        return None
    if style == "ruiler" and rng.random() < 0.5:
        worst = max((c for c in hand if c not in "?/"), key=lambda c: {"Q": 9, "X": 8, "Y": 7, "C": 6}.get(c, 0),
                    default=None)
        rest = take(hand, worst) if worst else None
        best = best_word(row, rest, lexicon) if rest else None
        if worst and best:
            return [f"RUIL {worst}", f"{best['notation']} {best['score']} punten"]
    best = best_word(row, hand, lexicon)
    return [f"{best['notation']} {best['score']} punten"] if best else ["PAS"]


def _play_rondonl(db: Database, cfg, md: MaildirTransport, base: dict, rng: random.Random, out: Path, say,
                  full_rounds: int) -> None:
    """The Dutch RONDO demo table (see the module docstring)."""
    name = "Demo-RONDO"
    spec = dict(base, name=name, game="rondonl", partien=["T1"], language="nl", turn_hours=48,
                players=[{"name": n, "email": e} for n, e, _ in DUTCH], options={"full_rounds": full_rounds})
    league_id, lexicon, keys = _start(db, cfg, md, spec)
    styles = {e: st for _, e, st in DUTCH}
    game = get_game("rondonl")
    say(f"\nDemo: {name} (rondonl, Nederlands), {len(DUTCH)} spelers, {full_rounds} rondes")
    while True:
        with db.session() as s:
            league = s.scalar(select(League).where(League.id == league_id))
            if league.status != "running":
                break
            state = s.scalar(select(Partie).where(Partie.league_id == league_id)).state
        for key in game.movers(state) or []:
            pname, addr = keys[key]
            lines = _rondonl_lines(state, key, styles[addr], lexicon, rng)
            if lines is None:
                continue
            md.deliver_to_inbox(compose(sender=f"{pname} <{addr}>", to=cfg.sender_addr, subject=f"{name}: beurt",
                                        text="Hoi,\n\n" + "\n".join(lines) + "\n\nGroeten,\n" + pname.split()[0],
                                        headers={"Auto-Submitted": "no"}))
        before = state.get("turn"), state.get("phase")
        poll_once(db, cfg)  # a complete turn ends here, at once
        with db.session() as s:
            after = s.scalar(select(Partie).where(Partie.league_id == league_id)).state
        if (after.get("turn"), after.get("phase")) == before:
            adjudicate_league(db, cfg, name, force=True)  # nobody moved: the turn's ZAT
            with db.session() as s:
                after = s.scalar(select(Partie).where(Partie.league_id == league_id)).state
        deliver(db, md, cfg)
        lt = after.get("last") or {}
        if lt.get("kind") == "opening":
            say(f"  opening: {keys[lt['opener']][0]} begint")
        elif lt:
            who = keys.get(lt.get("player") or "", ("", ""))[0]
            ruil = f" (ruil x{lt['exchanges']})" if lt.get("exchanges") else ""
            say(f"  {lt['kind']:<6} {who:<16} {lt.get('word') or '–':<10} {lt.get('score', 0):>4}{ruil}")
    n = _save_auswertungen(db, league_id, out, "rondonl-ronde")
    view = league_view(db, name)
    say(f"{n} uitslagen als .eml in {out}")
    marks = view["partien"][0]["marks"]  # by address, as show --json names players
    say("Eindstand:")
    for r in view["standings"]:
        m = marks.get(r["player"], 0)
        say(f"  {r['rank']:>2}. {r['name']:<16} {r['points']:>5} punten  {m} {'streep' if m == 1 else 'strepen'}")


def run_demo(out: Path | None = None, rounds: int = 20, seed: str = "1", quiet: bool = False,
             mono_rounds: int = MONO_ROUNDS, crossword: bool = True, typdom: bool = True, race: bool = True,
             rondonl_rounds: int = RONDONL_ROUNDS, work: Path | None = None) -> int:
    """Play the demo leagues (Rondo, then a short Monoscrabble game, a Crossword game, two
    Typ-Dom games, Point-Typ-Dom and Kreuzwort-Spiel, the race variants Presto and "Wer
    behält recht?" (``race``), and a Dutch RONDO table of ``rondonl_rounds`` full rounds,
    when those games are available; ``mono_rounds=0``, ``crossword=False``,
    ``typdom=False``, ``race=False``, ``rondonl_rounds=0`` leave one out); returns 0.
    Auswertungen go to ``out`` (a temp dir if
    None), the archive of the leagues played to ``out/archiv``; ``work``: the working folder
    (database, Maildir; a new temp dir if None))."""
    t0 = time.monotonic()
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, flush=True))
    work = Path(work) if work else Path(tempfile.mkdtemp(prefix="spielleiter-demo-"))
    out = Path(out) if out else work / "auswertungen"
    out.mkdir(parents=True, exist_ok=True)
    cfg = embedded(work)
    cfg.sender = "Spielleiter <spielleiter@demo.invalid>"
    cfg.rate_limit_per_hour = 0  # 20 weeks of mail in seconds: no per-hour limit
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    rng = random.Random(f"demo/{seed}")
    berlin = ZoneInfo("Europe/Berlin")
    first = (datetime.now(berlin) + timedelta(days=7)).replace(hour=20, minute=0, second=0, microsecond=0)
    say(f"Arbeitsordner {work}")
    base = {"first_zat": first.isoformat(), "zat_interval_days": 7, "seed": seed,
            "players": [{"name": n, "email": e} for n, e, _ in PLAYERS]}
    _play(db, cfg, md, dict(base, name="Demo-Rondo", game="rondo", partien=PARTIEN, rounds=rounds),
          _rank_rondo, rng, out, "rondo", say)
    if mono_rounds and _has_game("monoscrabble"):
        _play(db, cfg, md, dict(base, name="Demo-Mono", game="monoscrabble", partien=["M1"], rounds=mono_rounds),
              _rank_monoscrabble, rng, out, "monoscrabble", say, late_joiner_round=min(3, mono_rounds))
    if crossword and _has_game("crossword"):
        _play_crossword(db, cfg, md, dict(base, name="Demo-Kreuz", game="crossword", partien=["P1"],
                                          players=[{"name": n, "email": e} for n, e, _, _ in CROSSWORD_PLAYERS]),
                        rng, out, say)
    if typdom and _has_game("typdom"):
        for variant, n in (("point", 4), ("kreuzwort", 3)):
            spec = dict(base, name=f"Demo-Typ-Dom-{variant}", game="typdom", partien=["T1"],
                        players=base["players"][:n], options={"variant": variant})
            _play_typdom(db, cfg, md, spec, rng, out, f"typdom-{variant}", say)
    if race and _has_game("typdom-presto"):
        _play_presto(db, cfg, md, dict(base, name="Demo-Presto", game="typdom-presto", partien=["P1", "P2"],
                                       sequential=True), rng, out, say)
        _play_wbr(db, cfg, md, dict(base, name="Demo-WBR", game="typdom-wbr", partien=["W1"], rounds=40,
                                    players=base["players"][:3], turn_hours=24), rng, out, say)
    if rondonl_rounds and _has_game("rondonl"):
        _play_rondonl(db, cfg, md, {k: v for k, v in base.items() if k != "players"}, rng, out, say, rondonl_rounds)
    index = write_archive(db, out / "archiv")
    say(f"\nArchiv aller Ligen (im Browser öffnen): {index}")
    say(f"Dauer: {time.monotonic() - t0:.1f} s")
    db.dispose()
    return 0


def write_archive(db: Database, folder: Path) -> Path:
    """The archive of every league in ``db`` (standings, charts, round and player pages),
    as ``spielleiter archive --out folder`` writes it; returns its ``index.html``."""
    build_archive(db, folder)
    return (folder / "index.html").resolve()


def _has_game(name: str) -> bool:
    try:
        get_game(name)
        return True
    except KeyError:
        return False


if __name__ == "__main__":
    sys.exit(run_demo())

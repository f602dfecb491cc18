"""The privacy property (issue 23, docs/development/privacy.md): self-play seeded leagues of every
game with private state through the service (embedded Maildir, SQLite), with random
legal and illegal moves, Ersatzzuege, NMRs, exchanges, Jolly takes, resends and
``AUSWERTUNG n ALLE`` from every player, the archive written after every round; then
check every mail to every player (text and HTML) and every archive page for another
player's private token the rules have not made public yet.

Generic over games: a player's private tokens are read from the game interface
(:meth:`~bot.games.base.GameRules.player_view` after every round, and the ``private``
part of their round reports, e.g. the best move), not from a game's own state keys.
Only the move makers below know a game's notation. Used by ``tests/test_privacy.py``
(a few games) and ``bench/privacy_fuzz.py`` (many).
"""

from __future__ import annotations

import email
import email.policy
import html as htmlmod
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from sqlalchemy import select

from bot.config import embedded
from bot.games import get_game
from bot.mail.maildir import MaildirTransport
from bot.service.presentation.archive import build_archive
from bot.service.operations.league import create_league
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.service.operations.runner import poll_once
from bot.storage.db import Database
from bot.storage.models import Adjudication, League, Partie, Player

NAMES = ["Kasimir Knopf", "Hedwig Hase", "Anna Albers", "Bernd Becker", "Clara Conrad", "Dieter Dahl"]
GM = "gm@privat.invalid"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass
class Leak:
    """One private token found where its owner's opponent (or the archive) can see it."""

    where: str
    owner: str
    token: str
    text: str

    def __str__(self) -> str:
        at = self.text.find(self.token)
        around = self.text[max(0, at - 300):at + 300] if at >= 0 else self.text[:1500]
        return f"{self.where}: private token {self.token!r} of {self.owner}\n---\n{around}\n---"


@dataclass
class Run:
    """What one seeded league produced: mails and archive pages checked, leaks found."""

    game: str
    seed: int
    rounds: int = 0
    mails: int = 0
    pages: int = 0
    leaks: list[Leak] = field(default_factory=list)


# -- what a player holds ----------------------------------------------------------------------

def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, str) and len(v) == 1 for v in value):
            return ["".join(value)]  # a list of tiles or cards is one token
        return [s for v in value for s in _strings(v)]
    return []


def tokens_of(view: dict[str, Any], private: dict[str, Any] | None = None) -> set[str]:
    """The private tokens of one player: every text of their :meth:`player_view` and of
    their report's ``private`` part long enough to identify (a rack, a hand, a grid row,
    the best move), and for a grid (a list of equal rows) each field/letter pair as the
    mails write it (``B3 E``)."""
    out: set[str] = set()
    priv = private or {}
    best = priv.get("best") if isinstance(priv.get("best"), dict) else {}
    for s in _strings(view) + _strings({k: priv[k] for k in ("hand", "rack", "hand_before", "rack_before")
                                        if k in priv}) + _strings(best.get("notation") or []):
        s = s.strip()
        if len(s.replace(" ", "").replace(".", "")) >= 5 and not s.isdigit():
            out.add(s)
    rows = view.get("grid")
    if isinstance(rows, list) and rows and all(isinstance(r, str) for r in rows):
        for r, row in enumerate(rows):
            if row.strip("."):
                out.add(row)
                out.add(row.replace(".", "·"))
            for c, ch in enumerate(row):
                if ch != ".":
                    out.add(f"{'ABCDEF'[r]}{c + 1} {ch}")
    return out


def own_examples(game, state: dict, key: str) -> set[str]:
    """The field/letter pairs a mail's example may show the player ``key`` (Crossword: the
    round's public letters on the player's own free fields, "z. B.: A1 O, A2 U"): theirs,
    whatever another grid holds on the same field."""
    letters = game.public_view(state).get("letters") or ""
    rows = game.player_view(state, key).get("grid") if key else None
    if not letters or not isinstance(rows, list):
        return set()
    return {f"{'ABCDEF'[r]}{c + 1} {ch}" for r, row in enumerate(rows) for c, cell in enumerate(row)
            if cell == "." for ch in set(letters) if ch.isalpha()}


def _multiset(token: str) -> Counter | None:
    """The letters of a rack or hand code (one word, e.g. ``AEHMNRS?``), for "in any
    order"; None for other tokens (texts, grid rows)."""
    if " " in token or "." in token:
        return None
    letters = [ch.upper() for ch in token if ch.isalpha()]
    return Counter(letters) if len(letters) >= 6 else None


def _words(text: str) -> list[Counter]:
    return [Counter(w.upper()) for w in re.findall(r"[A-Za-z]{6,}", text)]


def find_leaks(text: str, secrets: dict[str, set[str]], mine: set[str], where: str,
               public: set[str], wrote: str = "", owners_wrote: dict[str, str] | None = None) -> list[Leak]:
    """Every token of ``secrets`` (owner -> tokens) in ``text`` that is neither the
    recipient's own (``mine``, or in what they wrote themselves: ``wrote``) nor public
    (``public``: in a public text the rules showed; ``owners_wrote``: owner -> their own
    move lines, public once adjudicated, e.g. a best move they played)."""
    out = []
    for owner, toks in secrets.items():
        for tok in toks - mine - public:
            if tok in wrote or (owners_wrote and tok in owners_wrote.get(owner, "")):
                continue
            if len(tok) <= 5 and not re.fullmatch(r"[A-F][1-6] [A-Z]", tok):
                continue
            if re.fullmatch(r"[A-F][1-6] [A-Z]", tok):
                if re.search(rf"(?<![A-Za-z0-9]){re.escape(tok)}(?![A-Za-z0-9])", text):
                    out.append(Leak(where, owner, tok, text))
                continue
            # a token counts as a whole: another player's red tiles AAEEOU are not in the
            # recipient's own AAEEOUY, nor "rot: A" in "rot: A A E E E" (a list of tiles goes on)
            if re.search(rf"(?<![A-Za-z?*#])(?<![A-Z?*#] ){re.escape(tok)}(?![A-Za-z?*#])(?! [A-Z?*#](?![A-Za-z]))",
                         text):
                out.append(Leak(where, owner, tok, text))
                continue
            ms = _multiset(tok)
            if ms and sum(ms.values()) >= 6 and any(w == ms for w in _words(text)):
                out.append(Leak(where, owner, f"{tok} (als Buchstaben in anderer Reihenfolge)", text))
    return out


def mail_texts(raw: bytes) -> tuple[str, str]:
    """(recipient, the mail's text and its HTML as text)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    parts = []
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            body = part.get_content()
            if part.get_content_subtype() == "html":
                body = htmlmod.unescape(re.sub(r"<[^>]+>", " ", body))
            parts.append(body)
    return str(msg["To"]).lower(), "\n".join(parts)


# -- move makers: the notation of each game -----------------------------------------------------

def _rand_word(rng: random.Random, letters: str, n: int) -> str:
    return "".join(rng.choice(letters) for _ in range(n))


def typdom_moves(rng: random.Random, game, state: dict, key: str, lexicon) -> list[str]:
    rack = state.get("racks", {}).get(key, "")
    letters = [t for t in rack if t.isalpha()] or list("E")
    lines = []
    coord = f"{rng.choice('JKLMNOP')}{rng.randint(9, 17)}{rng.choice('ws')}"
    if rng.random() < 0.3:
        try:
            best = game.best_turn(state["board"], rack, lexicon, state.get("variant", "kreuzwort"))
            if best and best.get("notation"):
                lines.append(best["notation"])
        except Exception:  # noqa: BLE001 - a move maker, not the rules
            pass
    lines.append(f"{coord} Q{''.join(rng.sample(letters, min(4, len(letters))))}N")  # a Q they may lack
    lines.append(f"{coord} {''.join(rng.sample(letters, min(3, len(letters))))}")
    lines.append(rng.choice(["KAUFEN", "KAUFEN rot", "KAUFEN 2", "JOLLY M13; M12s HeRZ", f"M13w *{rng.choice('AEX')}TEM",
                             f"{coord} {'Q' * rng.randint(8, 15)}",  # many tiles not held
                             # issue 31, attack 2: every letter 14 times and 14 Jollys in one line
                             "; ".join(f"{c}{r}w {ch * 14}" for (c, r), ch in zip(
                                 [(x, y) for x in "ABCDEFGHIJKLMNOPQRSTUVWXY" for y in (1, 3, 5)], LETTERS))]))
    rng.shuffle(lines)
    return lines[:rng.randint(1, 4)]


def wbr_moves(rng: random.Random, game, state: dict, key: str, lexicon) -> list[str]:
    rack = state.get("racks", {}).get(key, "")
    letters = [t for t in rack if t.isalpha()] or list("E")
    coord = f"{rng.choice('KLMNO')}{rng.randint(11, 15)}"
    word = _rand_word(rng, "".join(letters), 4)
    return [rng.choice([f"{coord} {rng.choice(letters)} {rng.choice(letters)}{word}",
                        f"{coord} Q QUARK", "KAUFEN", "KAUFEN rot", "PASSE", f"FERTIG {word}",
                        f"{coord} *{rng.choice('AEH')} {word}"])]


def presto_moves(rng: random.Random, game, state: dict, key: str, lexicon) -> list[str]:
    rack = state.get("racks", {}).get(key, "")
    letters = [t for t in rack if t.isalpha()] or list("E")
    rng.shuffle(letters)
    rows = ["".join(letters[i:i + 5]) for i in range(0, min(len(letters), 10), 5)]
    if rng.random() < 0.5:
        rows.append("QUARZ")
    return ["\n".join(rows)]


def crossword_moves(rng: random.Random, game, state: dict, key: str, lexicon) -> list[str]:
    rows = state.get("grids", {}).get(key) or ["......"] * 6
    letters = state.get("letters", "")
    last = int(state["round"]) >= int(state.get("rounds", 7))
    wish = f"Wunsch: {rng.choice(LETTERS)}"
    if int(state["round"]) == 1:
        return [wish]
    empty = [(r, c) for r in range(6) for c in range(6) if rows[r][c] == "."]
    rng.shuffle(empty)
    if rng.random() < 0.2:  # an occupied field or a letter not in this round
        empty = [(r, c) for r in range(6) for c in range(6)]
        rng.shuffle(empty)
    placed = ", ".join(f"{'ABCDEF'[r]}{c + 1} {ch}" for (r, c), ch in zip(empty, letters))
    out = [placed] if placed else []
    if last:
        out += [f"{rows[r][:4].replace('.', 'E')} {'ABCDEF'[r]}1-{'ABCDEF'[r]}4" for r in range(2)]
    else:
        out.append(wish)
    return ["\n".join(out)]


def rondonl_moves(rng: random.Random, game, state: dict, key: str, lexicon) -> list[str]:
    from bot.games.rondonl.seats import side_of
    side = side_of(state, key)
    hand = state["hands"][side] if side is not None else "ABC"
    cards = [c for c in hand if c.isalpha()] or ["A"]
    if state.get("phase") == "opening":
        return ["".join(rng.sample(cards, min(3, len(cards))))]
    lines = []
    lacking = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in cards] or ["Q"]
    if rng.random() < 0.4:
        lines.append(f"TAUSCH {rng.choice(cards)}")
    elif rng.random() < 0.3:  # issue 31, attack 1: an exchange of cards not held
        lines.append(f"TAUSCH {''.join(rng.sample(lacking, min(2, len(lacking))))}")
    lines.append(rng.choice(["PASSE", "".join(rng.sample(cards, min(4, len(cards)))), "QQQQ",
                             state.get("row", "").replace(".", "").lower() + rng.choice(cards),
                             # a word with cards not held
                             state.get("row", "").replace(".", "").lower() + "".join(rng.sample(lacking, 2))]))
    return ["\n".join(lines)]


#: Every game with private state: (game key, league options, players, move maker).
PRIVATE_GAMES: dict[str, tuple[str, dict, int, Callable]] = {
    "typdom": ("typdom", {"variant": "kreuzwort"}, 3, typdom_moves),
    "typdom-point": ("typdom", {"variant": "point"}, 3, typdom_moves),
    "typdom-wbr": ("typdom-wbr", {}, 3, wbr_moves),
    "typdom-presto": ("typdom-presto", {}, 4, presto_moves),
    "crossword": ("crossword", {}, 6, crossword_moves),
    "rondonl": ("rondonl", {"language": "nl"}, 3, rondonl_moves),
    "rondonl-de": ("rondonl", {"language": "de"}, 3, rondonl_moves),
}


def boilerplate(game_key: str) -> str:
    """Every text the game's templates write literally (help, examples in footers): a
    token found there is an example, not a secret."""
    from bot.render import TEMPLATE_DIR
    root = Path(TEMPLATE_DIR)
    files = list((root / game_key).rglob("*")) + list((root / "nl" / game_key).rglob("*"))
    return "\n".join(f.read_text(encoding="utf-8") for f in files if f.is_file())


def play(kind: str, seed: int, work: Path, *, rounds: int = 4, lexicon=None) -> Run:
    """Self-play one seeded league of ``kind`` (a key of :data:`PRIVATE_GAMES`) for up to
    ``rounds`` rounds and check every mail and archive page; returns the :class:`Run`."""
    from bot.service.domain.league import league_lexicon
    game_key, options, n, mover = PRIVATE_GAMES[kind]
    game = get_game(game_key)
    rng = random.Random(f"{kind}/{seed}")
    cfg = embedded(work / "var")
    cfg.sender = "Spielleiter <spielleiter@privat.invalid>"
    cfg.rate_limit_per_hour = 0
    db = Database(cfg.database_url)
    db.migrate()
    md = MaildirTransport(cfg.maildir)
    players = [{"name": NAMES[i], "email": f"p{i}@privat.invalid"} for i in range(n)]
    first = (datetime.now(timezone.utc) + timedelta(days=7)).replace(microsecond=0).isoformat()
    spec = {"name": f"Privat-{kind}", "game": game_key, "partien": ["P1"], "players": players, "seed": str(seed),
            "first_zat": first, "zat_interval_days": 7, "gm_email": GM, "review": False, "require_code": False,
            "options": dict(options)}
    if not game.fixed_rounds:
        spec["rounds"] = rounds
    run = Run(kind, seed)
    try:
        with db.session() as s:
            create_league(s, spec, cfg)
        with db.session() as s:
            keys = {p.email: str(p.id) for p in s.scalars(select(Player))}
            lexicon = league_lexicon(s.scalars(select(League)).one(), cfg)
        owner_of = {k: e for e, k in keys.items()}
        seen: dict[str, set[str]] = {k: set() for k in keys.values()}
        wrote: dict[str, str] = {e: "" for e in keys}
        sent = 0
        archive = work / "archiv"
        for rnd in range(1, 100):
            with db.session() as s:
                lg = s.scalars(select(League)).one()
                if lg.status == "finished":
                    break
                partie = s.scalars(select(Partie)).one()
                state = dict(partie.state)
            for k in keys.values():
                seen[k] |= tokens_of(game.player_view(state, k))
            movers = game.movers(state)
            for email_, k in keys.items():
                if movers is not None and k not in movers and rng.random() > 0.2:
                    continue
                if rng.random() < 0.15:
                    continue  # NMR
                lines = mover(rng, game, state, k, lexicon)
                if len(lines) > 1 and not game.multiline:
                    body = lines[0] + "\n" + "\n".join(f"Ersatz: {x}" for x in lines[1:])
                else:
                    body = "\n".join(lines)
                wrote[email_] += "\n" + body
                for _ in range(2 if rng.random() < 0.2 else 1):  # a resend: the later mail counts
                    md.deliver_to_inbox(_mail(email_, f"Partie P1:\n{body}\n", f"{spec['name']} Züge"))
            poll_once(db, cfg)
            adjudicate_league(db, cfg, spec["name"], force=True)
            run.rounds += 1
            with db.session() as s:
                done = s.scalars(select(Adjudication).order_by(Adjudication.id)).all()
                for adj in done:
                    for pl in adj.report["players"]:
                        seen[pl["player"]] |= tokens_of({}, pl.get("private"))
                    for k in keys.values():
                        seen[k] |= tokens_of(game.player_view(adj.report["state_after"], k))
                partie = s.scalars(select(Partie)).one()
                state_now = dict(partie.state)
                finished = s.scalars(select(League)).one().status == "finished"
            for email_ in keys:
                md.deliver_to_inbox(_mail(email_, "", f"AUSWERTUNG {rnd} ALLE"))
            poll_once(db, cfg)
            deliver(db, md, cfg)
            # what the rules have made public: the public view (e.g. every rack at the end)
            public = "\n".join(_strings(game.public_view(state_now))) + "\n" + boilerplate(game_key)
            if finished:
                for k in keys.values():
                    public += "\n" + "\n".join(tokens_of(game.player_view(state_now, k)))
            all_sent = md.sent()
            owned = {e: w for e, w in wrote.items()}
            for raw in all_sent[sent:]:
                to, text = mail_texts(raw)
                run.mails += 1
                if to == GM:
                    continue
                mine = seen.get(keys.get(to, ""), set()) | own_examples(game, state_now, keys.get(to, ""))
                others = {owner_of[k]: v for k, v in seen.items() if owner_of[k] != to}
                run.leaks += find_leaks(text, others, mine, f"Mail an {to} (Runde {rnd})",
                                        {t for t in set().union(*seen.values()) if t in public}, wrote.get(to, ""),
                                        owned if game.move_text_public(state_now) else None)
            sent = len(all_sent)
            build_archive(db, archive)
            for page in sorted(archive.rglob("*.html")):
                run.pages += 1
                text = htmlmod.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))
                run.leaks += find_leaks(text, {owner_of[k]: v for k, v in seen.items()}, set(),
                                        f"Archiv {page.relative_to(archive)} (Runde {rnd})",
                                        {t for t in set().union(*seen.values()) if t in public}, "",
                                        owned if game.move_text_public(state_now) else None)
            if finished or run.rounds >= rounds:
                break
    finally:
        db.dispose()
    return run


def _mail(sender: str, body: str, subject: str) -> bytes:
    from tests.helpers import player_mail
    return player_mail(sender, body, subject=subject)

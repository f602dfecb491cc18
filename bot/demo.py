"""``spielleiter demo``: every game played through the real service on the embedded default.

The leagues are data, each game's own (``GameRules.demo_leagues``,
:func:`demo_leagues`): a Rondo league of three Partien and 20 rounds; a short
Monoscrabble game with a fifth player joining by mail; a Crossword game of six players
of different strengths (one resends a broken placement, one lists a word that is not
there, one a word twice); two Typ-Dom games (Point-Typ-Dom with four players, the
Kreuzwort-Spiel with three) played until a player is out; the race variants Presto (two
races one after another, each closing by itself at the second valid crossword) and "Wer
behält recht?" (three players, one turn after another); and a Dutch RONDO table (three
players with private hands, the opening, three rounds of turns).

One loop plays them all (:func:`play_league`), and it knows no game: in every round each
simulated player (name, address, style: :mod:`bot.games.demoplay`) sees what their start
mail shows of each Partie (:func:`~bot.service.domain.league.partie_views`), and the game's
own demo player (:meth:`~bot.games.base.GameRules.demo_player`) says what they mail. The
mails are real RFC 5322 messages delivered into the bot's Maildir inbox; then the bot
polls (a round that a game ends early, a turn or a race, ends there) and a round still
open gets its ZAT at once. Every Auswertung is written as an ``.eml`` file, and the final
standings are printed. Last, the archive of every league played
(:mod:`bot.service.presentation.archive`: standings with their charts, round pages,
player pages) is written to ``<out>/archiv/``, and the path of its ``index.html`` is
printed, to open in a browser. The rng is seeded from ``seed``: a run replays alike.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Sequence
from zoneinfo import ZoneInfo

from sqlalchemy import select

from bot.config import Config, embedded
from bot.games import get_game
from bot.games.registry import GAME_CLASSES
from bot.mail.compose import compose
from bot.mail.maildir import MaildirTransport
from bot.service.domain.league import find_league, league_lexicon, open_round, partie_views, playing
from bot.service.operations.league import create_league
from bot.service.operations.runner import poll_once
from bot.service.presentation.archive import build_archive
from bot.service.presentation.view import league_view
from bot.service.stages.outbox import deliver
from bot.service.stages.rounds import adjudicate_league
from bot.storage.db import Database
from bot.storage.models import Adjudication, OutboxMail, Partie

#: The simulated players' names and addresses per language of the league, in seat order
#: (a demo league's ``players`` gives their styles), and the player who joins by mail.
CAST: dict[str, list[tuple[str, str]]] = {
    "de": [("Anna Albers", "anna@demo.invalid"), ("Bernd Becker", "bernd@demo.invalid"),
           ("Clara Conrad", "clara@demo.invalid"), ("Dieter Dahl", "dieter@demo.invalid"),
           ("Edith Ernst", "edith@demo.invalid"), ("Fritz Fuchs", "fritz@demo.invalid")],
    "nl": [("Anna de Vries", "anna.nl@demo.invalid"), ("Bram Jansen", "bram@demo.invalid"),
           ("Carla Peeters", "carla@demo.invalid")],
}
JOINER: tuple[str, str, str] = ("Emil Engel", "emil@demo.invalid", "stark")


def demo_leagues() -> list[dict[str, Any]]:
    """The demo's leagues, in the order they are played: every registered game's
    :attr:`~bot.games.base.GameRules.demo_leagues` (registry order), each with its
    ``game``, the styles of its ``players`` and ``joiner`` named from :data:`CAST` and
    :data:`JOINER`. Besides the keys of a league file: ``players`` (the simulated
    players: name, address, style), ``eml`` (the start of the .eml files' names),
    ``joiner`` (a player who joins by mail, and in which round), ``max_rounds`` (the demo stops after so many rounds, for games
    that end by themselves) and ``rounds_option`` (the option that counts the rounds of a
    game whose league file has none, for :func:`run_demo`'s ``rounds``)."""
    out = []
    for name in GAME_CLASSES:
        for entry in get_game(name).demo_leagues:
            cast = CAST[str(entry.get("language", "de"))]
            players = [(n, e, style) for (n, e), style in zip(cast, entry["players"])]
            joiner = entry.get("joiner")
            out.append(dict(entry, game=name, players=players,
                            **({"joiner": (JOINER[:2] + (joiner[0],), joiner[1])} if joiner else {})))
    return out


#: The keys of a :func:`demo_leagues` entry that are the demo's, not the league file's.
DEMO_KEYS = {"players", "eml", "joiner", "max_rounds", "rounds_option"}

#: What the simulated players write and the demo prints, per language of the league.
WORDS = {
    "de": {"hello": "Hallo Spielleiter,", "bye": "Viele Grüße", "moves": "Züge Runde {n}", "move": "Zug {n}",
           "opening": "Eröffnung", "round": "Runde",
           "turn": "Zug", "players": "Spieler", "points": "Punkte", "none": "kein Zug", "early": "vor dem ZAT beendet",
           "join": "Ich möchte mitspielen!", "joined": "meldet sich per Mail an", "final": "Endstand",
           "all": "alle Partien zusammen", "saved": "Auswertungen als .eml in"},
    "nl": {"hello": "Hoi,", "bye": "Groeten,", "moves": "zetten ronde {n}", "move": "beurt {n}", "opening": "beurt",
           "round": "Ronde", "turn": "Beurt",
           "players": "spelers", "points": "punten", "none": "geen zet", "early": "voor de ZAT beëindigd",
           "join": "Ik wil meedoen!", "joined": "meldt zich per mail aan", "final": "Eindstand",
           "all": "alle partijen samen", "saved": "uitslagen als .eml in"},
}


@dataclass
class Demo:
    """Where the demo plays: the database, the config, the Maildir, the folder of the .eml
    files, the seeded rng, and ``say`` (prints a line, or nothing)."""

    db: Database
    cfg: Config
    md: MaildirTransport
    out: Path
    rng: random.Random
    say: Callable[..., None]


def league_spec(entry: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    """The league file of a :func:`demo_leagues` entry: ``base`` (first ZAT, interval, seed,
    ...) with the entry's league-file keys and its players."""
    spec = {**base, **{k: v for k, v in entry.items() if k not in DEMO_KEYS}}
    spec["players"] = [{"name": n, "email": e} for n, e, _ in entry["players"]]
    return spec


def _mail(demo: Demo, words: Mapping[str, str], who: tuple[str, str], subject: str, body: Sequence[str],
          at: datetime | None = None) -> None:
    """Deliver one mail of a simulated player into the bot's inbox (``at``: its arrival)."""
    name, addr = who
    headers = {"Auto-Submitted": "no"}
    if at is not None:
        headers["Received"] = f"from pc by mx.demo.invalid; {format_datetime(at)}"
    text = "\n".join([words["hello"], "", *body, "", words["bye"], name.split()[0]])
    demo.md.deliver_to_inbox(compose(sender=f"{name} <{addr}>", to=demo.cfg.sender_addr, subject=subject, text=text,
                                     headers=headers))


def _moves(demo: Demo, name: str, styles: Mapping[str, str]) -> tuple[int, list[tuple[tuple[str, str], list]]]:
    """The open round's number and every player's mails for it (in seat order): per
    player, a list of mails, each a list of (Partie name, :class:`DemoMail`)."""
    with demo.db.session() as s:
        league = find_league(s, name)
        game = get_game(league.game)
        lexicon = league_lexicon(league, demo.cfg)
        number = open_round(s, league).number
        played = {p.name for p in playing(league, league.partien)}
        out = []
        for player in (p for p in league.players if p.active):  # seat order (both lists are by id)
            mails: list[list] = []
            for view in partie_views(game, league, player):
                if view["name"] not in played:
                    continue
                got = game.demo_player(dict(view, player=str(player.id)), demo.rng, lexicon=lexicon,
                                       style=styles.get(player.email, "stark")) or []
                for i, m in enumerate(got):
                    if i == len(mails):
                        mails.append([])
                    mails[i].append((view["name"], m))
            out.append(((player.name, player.email), mails))
        return number, out


def _round_line(demo: Demo, name: str, number: int, words: Mapping[str, str]) -> str:
    """What the round ``number`` came to, per Partie: the word on the board when the game
    has one, every player's points (or that they sent no move)."""
    with demo.db.session() as s:
        league = find_league(s, name)
        game = get_game(league.game)
        names = {str(p.id): p.name.split()[0] for p in league.players}
        parts = []
        for partie, adj in s.execute(select(Partie.name, Adjudication).join(Partie).where(
                Partie.league_id == league.id, Adjudication.round_number == number).order_by(Partie.id)):
            report = adj.report
            movers = game.movers(report.get("state_before") or {})
            shown = [f"{names.get(p['player'], '?')} {p['points']}" if p.get("submitted") else
                     f"{names.get(p['player'], '?')} {words['none']}" for p in report.get("players", [])
                     if p.get("submitted") or movers is None or p["player"] in movers]
            word = (report.get("board_move") or {}).get("word")
            parts.append(f"{partie}{' ' + word if word else ''}: {', '.join(shown) or '–'}")
    label = words["turn"] if game.turn_rounds or game.relative_zat else words["round"]
    return f"{label} {game.shown_number(number):3d}: " + "; ".join(parts)


def play_league(demo: Demo, entry: Mapping[str, Any], base: Mapping[str, Any]) -> None:
    """Play the league of ``entry`` (:func:`demo_leagues`) to its end, or ``max_rounds``: each
    round the players' mails (:meth:`~bot.games.base.GameRules.demo_player`; a player
    with two mails has the first read before sending the second), a poll, the ZAT when
    the round is still open; then write its Auswertungen to ``demo.out`` and print the
    final standings."""
    spec = league_spec(entry, base)
    name, game = spec["name"], get_game(spec["game"])
    lang = str(spec.get("language", "de"))
    words = WORDS.get(lang, WORDS["de"])
    styles = {e: st for _, e, st in entry["players"]}
    joiner, join_round = entry.get("joiner") or (None, 0)
    join_round = min(join_round, int(spec.get("rounds") or join_round))  # a short league: in its last round
    if joiner:
        styles[joiner[1]] = joiner[2]
    with demo.db.session() as s:
        create_league(s, spec, demo.cfg)
    deliver(demo.db, demo.md, demo.cfg)
    demo.say(f"\nDemo: {name} ({game.title}), {len(spec['partien'])} Partie(n), {len(entry['players'])} "
             f"{words['players']}" + (f", {spec['rounds']} {words['round']}n" if spec.get("rounds") else ""))
    for _ in range(int(entry.get("max_rounds", 1000))):
        with demo.db.session() as s:
            league = find_league(s, name)
            running = league.status == "running" and open_round(s, league) is not None
            number = open_round(s, league).number if running else 0
        if not running:
            break
        if joiner and number == join_round:
            _mail(demo, words, joiner[:2], f"ANMELDEN {name} {joiner[0]}", [words["join"]])
            poll_once(demo.db, demo.cfg)
            demo.say(f"{words['round']} {number:3d}: {joiner[0]} {words['joined']}")
        number, mails = _moves(demo, name, styles)
        opened = datetime.now(timezone.utc) - timedelta(minutes=5)  # a Received time is never later than now
        shown = game.shown_number(number)
        subject = (words["opening"] if shown < 1 else
                   words["move" if game.turn_rounds or game.relative_zat else "moves"].format(n=shown))
        for who, queue in mails:
            for i, sections in enumerate(queue):
                multi = len(sections) > 1
                body: list[str] = []
                for partie, m in sections:
                    body += ([f"Partie {partie}:"] if multi else []) + list(m.lines) + ([""] if multi else [])
                after = next((m.after for _, m in sections if m.after is not None), None)
                _mail(demo, words, who, f"{name}: {subject}", body,
                      None if after is None else opened + timedelta(seconds=after))
                if i < len(queue) - 1:
                    poll_once(demo.db, demo.cfg)  # the first one is answered before the correction
        poll_once(demo.db, demo.cfg)  # a round that ends early (a turn, a race) ends here
        with demo.db.session() as s:
            rnd = open_round(s, find_league(s, name))
            early = rnd is None or rnd.number != number
        if not early:
            adjudicate_league(demo.db, demo.cfg, name, force=True)  # the ZAT, at once
        deliver(demo.db, demo.md, demo.cfg)
        demo.say(_round_line(demo, name, number, words) + (f" ({words['early']})" if early else ""))
    n = save_auswertungen(demo.db, name, demo.out, entry.get("eml", name.lower()))
    demo.say(f"{n} {words['saved']} {demo.out}")
    _standings(demo, name, game, lang, words)


def _standings(demo: Demo, name: str, game: Any, lang: str, words: Mapping[str, str]) -> None:
    """Print the final standings: rank, name, points; per Partie when there are several,
    and what the game shows after the points (:meth:`~bot.games.base.GameRules.standings_note`)."""
    view = league_view(demo.db, name)
    with demo.db.session() as s:
        league = find_league(s, name)
        keys = {p.email: str(p.id) for p in league.players}
        states = [p.state for p in league.partien]
    multi = len(states) > 1
    demo.say(f"{words['final']}" + (f" ({words['all']}):" if multi else ":"))
    for r in view["standings"]:
        per = "  (" + ", ".join(f"{k} {v}" for k, v in r["per_partie"].items()) + ")" if multi else ""
        note = "".join(game.standings_note(st, keys.get(r["player"], ""), lang) for st in states)
        demo.say(f"  {r['rank']:>2}. {r['name']:<16} {r['points']:>5} {words['points']}{per}{note}")


def save_auswertungen(db: Database, name: str, out: Path, prefix: str) -> int:
    """Write every Auswertung of league ``name`` to ``out`` as
    ``<prefix>-<round, two digits>-<local part of the address>.eml``; returns their number."""
    with db.session() as s:
        league = find_league(s, name)
        rows = s.scalars(select(OutboxMail).where(OutboxMail.kind == "auswertung", OutboxMail.league_id == league.id)
                         .order_by(OutboxMail.id)).all()
        for r in rows:
            (out / f"{prefix}-{r.round_number:02d}-{r.to_addr.split('@')[0]}.eml").write_bytes(r.raw)
        return len(rows)


def run_demo(out: Path | None = None, rounds: Mapping[str, int] | None = None, seed: str = "1",
             quiet: bool = False, work: Path | None = None, leagues: Collection[str] | None = None,
             gm_email: str | None = None) -> int:
    """Play the demo leagues (:func:`demo_leagues`); returns 0.
    ``leagues``: the names of the leagues to play (default: all); ``rounds``: league name
    -> the rounds it plays instead of its entry's (its ``rounds_option`` when it has one).
    Auswertungen go to ``out`` (``work/auswertungen`` if None), the archive of the leagues
    played to ``out/archiv``; ``work``: the working folder (database, Maildir; a new
    temp dir if None); ``gm_email``: the game master of every league, who gets the GM
    copy of every Auswertung (None: the leagues have none)."""
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
    demo = Demo(db, cfg, MaildirTransport(cfg.maildir), out, random.Random(f"demo/{seed}"), say)
    berlin = ZoneInfo("Europe/Berlin")
    first = (datetime.now(berlin) + timedelta(days=7)).replace(hour=20, minute=0, second=0, microsecond=0)
    say(f"Arbeitsordner {work}")
    base = {"first_zat": first.isoformat(), "zat_interval_days": 7, "seed": seed,
            **({"gm_email": gm_email} if gm_email else {})}
    for entry in demo_leagues():
        if leagues is not None and entry["name"] not in leagues:
            continue
        if rounds and entry["name"] in rounds:
            entry = with_rounds(entry, rounds[entry["name"]])
        play_league(demo, entry, base)
    index = write_archive(db, out / "archiv")
    say(f"\nArchiv aller Ligen (im Browser öffnen): {index}")
    say(f"Dauer: {time.monotonic() - t0:.1f} s")
    db.dispose()
    return 0


def with_rounds(entry: Mapping[str, Any], n: int) -> dict[str, Any]:
    """``entry`` playing ``n`` rounds (in its ``rounds_option`` when it has one)."""
    option = entry.get("rounds_option")
    if option:
        return dict(entry, options={**(entry.get("options") or {}), option: n})
    return dict(entry, rounds=n)


def write_archive(db: Database, folder: Path) -> Path:
    """The archive of every league in ``db`` (standings, charts, round and player pages),
    as ``spielleiter archive --out folder`` writes it; returns its ``index.html``."""
    build_archive(db, folder)
    return (folder / "index.html").resolve()


if __name__ == "__main__":
    sys.exit(run_demo())

"""Commands by mail: a registry, and the player commands.

A command is the first word of the subject or of the first line of the mail (German,
with English and Dutch aliases), e.g. ``HILFE``, ``STAND``, ``AUSWERTUNG 3``; its help line
(for HILFE) is a message of the catalogs, in the league's language (bot.i18n). Player commands act
for the sender; game-master commands (``gm=True``, in :mod:`bot.service.conversations.gm`) check the
GM's address and code themselves. Every command is answered by mail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Callable

from sqlalchemy import select

from bot.games import get_game, load_games
from bot.mail.compose import compose, make_message_id
from bot.i18n import N_, league_language, texts, tr
from bot.render import format_zat, render
from bot.service.operations.league import open_round, partie_views
from bot.service.conversations.mailctx import Incoming
from bot.service.stages.outbox import queue_mail
from bot.service.stages.rounds import joiner_nmr_points
from bot.storage.models import League, OutboxMail, Partie, Player, PlayerAddress, Result, Round

Handler = Callable[[Incoming, str], None]


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    needs_player: bool = True
    gm: bool = False
    help: str = ""


COMMANDS: dict[str, Command] = {}
ALIASES: dict[str, str] = {}


def command(name: str, *aliases: str, needs_player: bool = True, gm: bool = False, help: str = ""):
    """Register a mail command under ``name`` and its ``aliases`` (upper case)."""
    def deco(fn: Handler) -> Handler:
        COMMANDS[name] = Command(name, fn, needs_player, gm, help)
        for a in (name, *aliases):
            ALIASES[a.upper()] = name
        return fn
    return deco


_PREFIX = re.compile(r"^((re|aw|fwd?|wg)\s*:\s*)+", re.I)


def find_command(subject: str, text: str) -> tuple[Command, str] | None:
    """(command, the rest of its line) written as the subject or the first line."""
    _load_gm()
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    for cand in (subject or "", first):
        line = _PREFIX.sub("", cand.strip()).strip()
        word, _, rest = line.partition(" ")
        name = ALIASES.get(word.upper().rstrip(".!:"))
        if name:
            return COMMANDS[name], rest.strip()
    return None


def _load_gm() -> None:
    try:
        import bot.service.conversations.gm  # noqa: F401  (registers the game-master commands)
    except ModuleNotFoundError as exc:
        if exc.name != "bot.service.conversations.gm":
            raise


# -- player commands ----------------------------------------------------------------------

@command("HILFE", "HELP", help=N_("HILFE: diese Hilfe mit der Notation"))
def _hilfe(ctx: Incoming, arg: str) -> None:
    game = get_game(ctx.league.game)
    ctx.record("processed", "command", command="HILFE")
    ctx.reply(render(f"{game.name}/hilfe.txt", ctx.lang, league=ctx.league) + "\n" + command_list(ctx.lang),
              kind="command")


@command("STAND", "STANDINGS", help=N_("STAND: die aktuelle Wertung"))
def _stand(ctx: Incoming, arg: str) -> None:
    """The standings (:func:`standings_text`); after the end of the league said to be the
    final ones."""
    ctx.record("processed", "command", command="STAND")
    body = standings_text(ctx.s, ctx.league, ctx.lang)
    if ctx.league.status == "finished":
        body = texts(ctx.lang).gettext("Die Liga {league} ist zu Ende; das ist der Endstand.",
                                       league=ctx.league.name) + "\n\n" + body
    ctx.reply(body, kind="command")


def standings_text(s, league, lang: str) -> str:
    """The standings of ``league`` as the ``STAND`` answer gives them (in ``lang``), with
    each game's note after the points (RONDO's marks), where each running Partie stands
    and who is on turn, and the next ZAT while it runs."""
    from bot.service.presentation.standings import standings
    table = standings(s, league)
    game = get_game(league.game)
    partien = list(s.scalars(select(Partie).where(Partie.league_id == league.id).order_by(Partie.id)))
    states = [p.state for p in partien]

    def note(key: str) -> str:  # e.g. RONDO's marks (GameRules.standings_note)
        return "".join(n for st in states if (n := game.standings_note(st, key, lang)))

    width = max([len(r["name"]) for r in table] + [10])
    body = tr(lang, "standings_title", league=league.name) + "\n\n" + "\n".join(
        f"{r['rank']:>3}. {r['name'].ljust(width)} {r['points']:>5}  ("
        + texts(lang).ngettext("{n} Runde gespielt", "{n} Runden gespielt", r["rounds_played"]) + ")"
        + note(str(r["player_id"])) for r in table)
    # where each running Partie stands (the acknowledgement's situation line) and who is on turn
    t, names = texts(lang), {str(p.id): p.name for p in league.players}
    lines = []
    for p in partien:
        if p.finished:
            continue
        view = game.public_view(p.state)
        line = t.gettext("Partie {name}: {situation}", name=p.name, situation=render(
            f"{game.name}/situation.txt.j2", lang, mine=None, **view).strip())
        if view.get("mover") and view.get("phase", "play") == "play":
            line += "; " + t.gettext("am Zug: {name}", name=names.get(str(view["mover"]), view["mover"]))
        lines.append(line)
    if lines:
        body += "\n\n" + "\n".join(lines)
    rnd = open_round(s, league)
    if rnd:
        body += "\n\n" + tr(lang, "next_zat", zat=format_zat(rnd.zat, league.timezone, lang))
    return body


@command("AUSWERTUNG", "REPORT", "UITSLAG",
         help=N_("AUSWERTUNG n: die Auswertung der Runde n noch einmal; AUSWERTUNG n ALLE: alle Züge der Runde"))
def _auswertung(ctx: Incoming, arg: str) -> None:
    ctx.record("processed", "command", command="AUSWERTUNG", arg=arg)
    m = re.match(r"\s*(\d+)", arg)
    if not m:
        return ctx.reply(tr(ctx.lang, "cmd_which_round"), kind="command")
    n = int(m.group(1))
    if re.search(r"\b(alle|all|alles)\b", arg, re.I):
        return _auswertung_alle(ctx, n)
    row = ctx.s.scalar(select(OutboxMail).where(OutboxMail.key == f"auswertung:{ctx.league.id}:{n}:{ctx.player.id}"))
    if row is None:
        done = ctx.s.scalar(select(Round.id).where(Round.league_id == ctx.league.id, Round.number == n,
                                                   Round.status == "adjudicated"))
        if done is None and 1 <= n <= ctx.league.rounds:  # a round to come: not yet, rather than "not for you"
            return ctx.reply(tr(ctx.lang, "cmd_not_adjudicated", n=n, league=ctx.league.name), kind="command")
        return ctx.reply(tr(ctx.lang, "cmd_no_report", n=n), kind="command")
    import email
    import email.policy
    orig = email.message_from_bytes(row.raw, policy=email.policy.default)
    text = orig.get_body(("plain",)).get_content()
    html_part = orig.get_body(("html",))
    key = f"resend:{ctx.mail.id}"
    raw = compose(sender=ctx.cfg.sender, to=ctx.rm.from_addr, subject=tr(ctx.lang, "copy_subject", subject=row.subject), text=text,
                  html=html_part.get_content() if html_part is not None else None,
                  message_id=make_message_id(key, ctx.cfg.sender_domain), in_reply_to=ctx.rm.message_id,
                  references=[row.message_id])
    ctx.s.add(OutboxMail(key=key, kind="resend", league_id=ctx.league.id, round_number=n, to_addr=ctx.rm.from_addr,
                         subject=tr(ctx.lang, "copy_subject", subject=row.subject), message_id=make_message_id(key, ctx.cfg.sender_domain),
                         raw=raw))


def _auswertung_alle(ctx: Incoming, n: int) -> None:
    """``AUSWERTUNG n ALLE``: every player's complete move lines of round ``n`` (main move,
    Ersatzzuege, verdicts), rendered from the stored reports as the asking player may see
    them: their own whole, everybody else's public verdicts only (docs/development/privacy.md)."""
    from bot.service.presentation.report import render_all_moves
    from bot.service.stages.rounds import round_data
    data = round_data(ctx.s, ctx.league, n)
    if not data:
        return ctx.reply(tr(ctx.lang, "cmd_not_adjudicated", n=n, league=ctx.league.name), kind="command")
    game = get_game(ctx.league.game)
    from bot.games.base import Audience
    viewer = str(ctx.player.id) if ctx.player is not None else None
    text = render_all_moves(game, league={"name": ctx.league.name}, round=n, partien=data,
                            audience=Audience(viewer=viewer), lang=ctx.lang)
    ctx.reply(text, kind="command")


@command("ABMELDEN", "LEAVE", "AFMELDEN", help=N_("ABMELDEN: aus der Liga austreten (ab der nächsten Auswertung)"))
def _abmelden(ctx: Incoming, arg: str) -> None:
    ctx.record("processed", "command", command="ABMELDEN")
    game = get_game(ctx.league.game)
    if not game.open_join:
        return ctx.reply(tr(ctx.lang, "cmd_no_leave", league=ctx.league.name), kind="command")
    ctx.player.active = False
    ctx.reply(tr(ctx.lang, "cmd_left", league=ctx.league.name), kind="command")


_DATE = r"(\d{1,2})\.(\d{1,2})\.(\d{2,4})?"


def _date(d: str, mo: str, y: str | None, today: date) -> date:
    year = int(y) + (2000 if y and len(y) == 2 else 0) if y else today.year
    return date(year, int(mo), int(d))


@command("URLAUB", "HOLIDAY", "VACATION", "VAKANTIE",
         help=N_("URLAUB 24.12.-06.01.: keine Erinnerungen in der Zeit (URLAUB ENDE: wieder Erinnerungen)"))
def _urlaub(ctx: Incoming, arg: str) -> None:
    ctx.record("processed", "command", command="URLAUB", arg=arg)
    if arg.strip().lower() in ("ende", "aus", "off", "end", "einde"):
        ctx.player.away_from = ctx.player.away_to = None
        return ctx.reply(tr(ctx.lang, "cmd_away_end"), kind="command")
    m = re.match(rf"\s*{_DATE}\s*(?:-|–|bis)\s*{_DATE}", arg)
    if not m:
        return ctx.reply(tr(ctx.lang, "cmd_away_how"), kind="command")
    today = ctx.now.date()
    try:
        start = _date(m.group(1), m.group(2), m.group(3), today)
        end = _date(m.group(4), m.group(5), m.group(6), today)
        if end < start and not m.group(6):
            end = end.replace(year=end.year + 1)
        if not m.group(3) and not m.group(6) and end < today:  # "1.2.-3.2." in November: the coming one
            start, end = start.replace(year=start.year + 1), end.replace(year=end.year + 1)
    except ValueError:
        return ctx.reply(tr(ctx.lang, "cmd_away_date"), kind="command")
    if end < start:
        return ctx.reply(tr(ctx.lang, "cmd_away_order"), kind="command")
    ctx.player.away_from, ctx.player.away_to = start, end
    ctx.reply(tr(ctx.lang, "cmd_away_set", start=f"{start:%d.%m.%Y}", end=f"{end:%d.%m.%Y}"), kind="command")


@command("ADRESSE", "ADDRESS", "ADRES", help=N_("ADRESSE neu@example.org: Auswertungen an eine neue Adresse"))
def _adresse(ctx: Incoming, arg: str) -> None:
    ctx.record("processed", "command", command="ADRESSE")
    m = re.search(r"[\w.+-]+@[\w-]+(\.[\w-]+)+", arg)
    if not m:
        return ctx.reply(tr(ctx.lang, "cmd_address_how"), kind="command")
    new = m.group(0).lower()
    taken = ctx.s.scalar(select(PlayerAddress).join(Player).where(
        PlayerAddress.email == new, Player.league_id == ctx.league.id, PlayerAddress.player_id != ctx.player.id))
    if taken:
        return ctx.reply(tr(ctx.lang, "cmd_address_taken", new=new, league=ctx.league.name), kind="command")
    addrs = list(ctx.player.addresses)
    existing = next((a for a in addrs if a.email == new), None)
    if existing is None:
        existing = PlayerAddress(player_id=ctx.player.id, email=new)
        ctx.s.add(existing)
        ctx.s.flush()
    old_first = ctx.player.email
    _make_primary(ctx, existing)
    body = tr(ctx.lang, "cmd_address_set", new=new, all=", ".join(a.email for a in ctx.player.addresses))
    ctx.reply(body, kind="command")
    if new != old_first:
        ctx.reply(body, to=new, kind="command")


def _make_primary(ctx: Incoming, addr: PlayerAddress) -> None:
    """Make ``addr`` the player's first address (reports go to the first) by swapping
    its value with the first row's (a temporary value keeps the unique key intact)."""
    ctx.s.refresh(ctx.player, ["addresses"])
    first = ctx.player.addresses[0]
    if first is addr:
        return
    new, old = addr.email, first.email
    addr.email = f"~{addr.id}~"
    ctx.s.flush()
    first.email = new
    ctx.s.flush()
    addr.email = old
    ctx.s.flush()


@command("ANMELDEN", "JOIN", "AANMELDEN", needs_player=False,
         help=N_("ANMELDEN <Liga> <Name>: mitspielen (in Ligen, die jederzeit Einstieg erlauben)"))
def _anmelden(ctx: Incoming, arg: str) -> None:
    """A new player joins a running league whose game allows it, from the open round on;
    the rounds before count as NMR (shared/RULES.md, Monoscrabble)."""
    ctx.record("processed", "command", command="ANMELDEN")
    if ctx.player is not None:
        return ctx.reply(tr(ctx.lang, "cmd_already_joined", league=ctx.league.name), kind="command")
    games = load_games()
    open_leagues = [lg for lg in ctx.s.scalars(select(League).where(League.status == "running")).all()
                    if games.get(lg.game) is not None and games[lg.game].open_join]
    text = (ctx.rm.subject + " " + ctx.rm.new_text[:200]).lower()
    named = [lg for lg in open_leagues if lg.name.lower() in text]
    choice = named or open_leagues
    if len(choice) != 1:
        names = ", ".join(lg.name for lg in open_leagues) or "keine"
        return ctx.reply("Anmelden geht nur bei Ligen, die jederzeit Einstieg erlauben (" + names + "). "
                         "Bitte den Namen der Liga in den Betreff schreiben: 'ANMELDEN <Liga> <Dein Name>'.",
                         kind="command")
    league = choice[0]
    name = re.sub(re.escape(league.name), "", arg, flags=re.I).strip(" ,:-") or ctx.rm.from_name \
        or ctx.rm.from_addr.split("@")[0]
    rnd = open_round(ctx.s, league)
    joined = rnd.number if rnd else league.rounds + 1
    player = Player(league_id=league.id, name=name[:100], joined_round=joined)
    ctx.s.add(player)
    ctx.s.flush()
    ctx.s.add(PlayerAddress(player_id=player.id, email=ctx.rm.from_addr))
    ctx.player, ctx.league = player, league
    ctx.mail.player_id, ctx.mail.league_id = player.id, league.id
    for partie in ctx.s.scalars(select(Partie).where(Partie.league_id == league.id)):
        for r in range(1, joined):
            ctx.s.add(Result(partie_id=partie.id, round_number=r, player_id=player.id,
                             points=joiner_nmr_points(ctx.s, partie.id, r), score=0, submitted=False))
    game = get_game(league.game)
    ctx.s.flush()
    views = partie_views(game, league, player)
    lang = league_language(league.options)
    text = render(f"{game.name}/start.txt.j2", lang, recipient=player, league=league, partien=views,
                  next_zat=format_zat(rnd.zat, league.timezone, lang) if rnd else "–", joined=joined)
    queue_mail(ctx.s, ctx.cfg, key=f"join:{ctx.mail.id}", kind="start", to=ctx.rm.from_addr,
               subject=tr(lang, "subject_welcome", league=league.name), text=text, league_id=league.id, round_number=joined,
               in_reply_to=ctx.rm.message_id)


def command_list(lang: str = "de") -> str:
    """The player commands with their help lines (for HILFE), in ``lang`` (the catalogs
    name each command by its word in that language: UITSLAG, VAKANTIE, ...)."""
    import textwrap
    t = texts(lang)
    return "\n".join([t.gettext("Befehle (als Betreff oder erste Zeile der Mail):")]
                     + [textwrap.fill(t.gettext(c.help), 72, initial_indent="  ", subsequent_indent="      ",
                                      break_on_hyphens=False)
                        for c in COMMANDS.values() if not c.gm and c.help])

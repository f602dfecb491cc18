"""Commands by mail: the player commands (their table; the registry is
:mod:`bot.service.conversations.registry`).

A command is the first word of the subject or of the first line of the mail (German,
with English and Dutch aliases), e.g. ``HILFE``, ``STAND``, ``AUSWERTUNG 3``; its help line
(for HILFE) is a message of the catalogs, in the league's language (bot.i18n). Player commands act
for the sender; game-master commands (``gm=True``, in :mod:`bot.service.conversations.gm`) check the
GM's address and code themselves. Every command is answered by mail.
"""

from __future__ import annotations

import email
import email.policy
import re
import textwrap
from datetime import date

from sqlalchemy import func, select

from bot.games import get_game, load_games
from bot.games.base import Audience
from bot.games.verdict import render_text
from bot.mail.compose import compose, make_message_id
from bot.i18n import N_, gm_language, league_language, texts, tr
from bot.render import format_zat, render, wrap
from bot.service.domain.league import open_round, partie_views
from bot.service.domain.names import bad_name_chars, free_name, name_key, normal_name
from bot.service.conversations.mailctx import Incoming
from bot.service.conversations.table import CommandTable
from bot.service.stages.outbox import queue_mail
from bot.service.presentation.report import render_all_moves
from bot.service.conversations.routing import several_text
from bot.service.presentation.standings import standings
from bot.service.stages.rounds import joiner_nmr_points, round_data
from bot.storage.models import AddressChange, League, OutboxMail, Partie, Player, PlayerAddress, Result, Round

#: the player commands, in the order HILFE lists them (the game master's are in
#: :mod:`bot.service.conversations.gm`; :mod:`bot.service.conversations.registry` lists both)
COMMANDS = CommandTable()
ALIASES = COMMANDS.aliases
command = COMMANDS.command


# -- player commands ----------------------------------------------------------------------

@command("HILFE", "HELP", help=N_("HILFE: diese Hilfe mit der Notation"))
def _hilfe(ctx: Incoming, arg: str) -> None:
    game = get_game(ctx.league.game)
    ctx.record("processed", "command", command="HILFE")
    several = several_text(ctx.s, ctx.player, ctx.lang) if ctx.player is not None else ""
    ctx.reply(render(f"{game.name}/hilfe.txt", ctx.lang, league=ctx.league) + "\n" + command_list(ctx.lang)
              + ("\n\n" + several if several else ""), kind="command")


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
    table = standings(s, league)
    game = get_game(league.game)
    partien = list(s.scalars(select(Partie).where(Partie.league_id == league.id).order_by(Partie.id)))
    states = [p.state for p in partien]

    def note(key: str) -> str:  # e.g. RONDO's marks (GameRules.standings_note)
        return "".join(render_text(n, lang) for st in states if (n := game.standings_note(st, key, lang)))

    width = max([len(r["name"]) for r in table] + [10])
    body = tr(lang, "standings_title", league=league.name) + "\n\n" + "\n".join(
        f"{r['rank']:>3}. {r['name'].ljust(width)} {r['points']:>5} "
        + texts(lang).ngettext("Punkt", "Punkte", r["points"]) + "  ("
        + (texts(lang).ngettext("{n} Zug gespielt", "{n} Züge gespielt", r["rounds_played"]) if game.turn_rounds
           else texts(lang).ngettext("{n} Runde gespielt", "{n} Runden gespielt", r["rounds_played"])) + ")"
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
         help=N_("AUSWERTUNG n: die Auswertung n (die Zahl aus ihrem Betreff) noch einmal; AUSWERTUNG n ALLE: mit allen Zügen"))
def _auswertung(ctx: Incoming, arg: str) -> None:
    ctx.record("processed", "command", command="AUSWERTUNG", arg=arg)
    m = re.match(r"\s*(\d+)", arg)
    # the number the player gives is the one the subjects use: the turn in a game of turns
    # (RONDO "uitslag beurt 3" is round 4), mapped by the game (issue 32)
    game = get_game(ctx.league.game)
    if not m:
        return ctx.reply(tr(ctx.lang, "cmd_which_turn" if game.turn_rounds else "cmd_which_round"), kind="command")
    shown = int(m.group(1))
    n = game.round_of(shown)
    if re.search(r"\b(alle|all|alles)\b", arg, re.I):
        return _auswertung_alle(ctx, n, shown)
    row = ctx.s.scalar(select(OutboxMail).where(OutboxMail.key == f"auswertung:{ctx.league.id}:{n}:{ctx.player.id}"))
    if row is None:
        done = ctx.s.scalar(select(Round.id).where(Round.league_id == ctx.league.id, Round.number == n,
                                                   Round.status == "adjudicated"))
        if done is None and 1 <= n <= ctx.league.rounds:  # a round to come: not yet, rather than "not for you"
            return ctx.reply(tr(ctx.lang, "cmd_not_adjudicated_turn" if game.turn_rounds else "cmd_not_adjudicated",
                                n=shown, league=ctx.league.name), kind="command")
        return ctx.reply(tr(ctx.lang, "cmd_no_report_turn" if game.turn_rounds else "cmd_no_report", n=shown),
                         kind="command")
    orig = email.message_from_bytes(row.raw, policy=email.policy.default)
    text = orig.get_body(("plain",)).get_content()
    html_part = orig.get_body(("html",))
    key = f"resend:{ctx.mail.id}:{ctx.league.id}"  # one per league (routing.EACH_LEAGUE)
    raw = compose(sender=ctx.cfg.sender, to=ctx.rm.from_addr, subject=tr(ctx.lang, "copy_subject", subject=row.subject), text=text,
                  html=html_part.get_content() if html_part is not None else None,
                  message_id=make_message_id(key, ctx.cfg.sender_domain), in_reply_to=ctx.rm.message_id,
                  references=[row.message_id])
    ctx.s.add(OutboxMail(key=key, kind="resend", league_id=ctx.league.id, round_number=n, to_addr=ctx.rm.from_addr,
                         subject=tr(ctx.lang, "copy_subject", subject=row.subject), message_id=make_message_id(key, ctx.cfg.sender_domain),
                         raw=raw))


def _auswertung_alle(ctx: Incoming, n: int, shown: int | None = None) -> None:
    """``AUSWERTUNG n ALLE``: every player's complete move lines of round ``n`` (main move,
    Ersatzzuege, verdicts), rendered from the stored reports as the asking player may see
    them: their own whole, everybody else's public verdicts only (docs/development/privacy.md)."""
    data = round_data(ctx.s, ctx.league, n)
    if not data:
        game = get_game(ctx.league.game)
        return ctx.reply(tr(ctx.lang, "cmd_not_adjudicated_turn" if game.turn_rounds else "cmd_not_adjudicated",
                            n=n if shown is None else shown, league=ctx.league.name), kind="command")
    game = get_game(ctx.league.game)
    viewer = str(ctx.player.id) if ctx.player is not None else None
    text = render_all_moves(game, league={"name": ctx.league.name}, round=n,
                            shown=n if shown is None else shown, partien=data,
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
    """``ADRESSE neu@example.org``: reports go to the new address from now on. Every mail is
    addressed to a person in a role, so an address can belong to one player only and never
    to the bot or a game master (:func:`address_refusal`). A change takes effect at once
    only when it is proven: the player's personal code, or a sender our receiving server
    authenticated (``[bot] authserv_id``, bot.mail.auth: ``pass``); otherwise it waits for
    the game master (``gm adresse ok|nein``, :class:`~bot.storage.models.AddressChange`),
    who is told at once, as is the player's current address, and the new address gets
    nothing until then. ``ADRESSE NEIN`` refuses a waiting change. Source: issue 31."""
    m = re.search(r"[\w.+-]+@[\w-]+(\.[\w-]+)+", arg)
    if not m and re.fullmatch(r"\s*(nein|no|nee|stop|stopp)\W*", arg, re.I):
        return _adresse_nein(ctx)
    ctx.record("processed", "command", command="ADRESSE", arg=arg[:200])
    if not m:
        return ctx.reply(tr(ctx.lang, "cmd_address_how"), kind="command")
    new = m.group(0).lower()
    t = texts(ctx.lang)
    why = address_refusal(ctx.s, ctx.cfg, ctx.player, new, ctx.lang)
    if why:
        ctx.mail.parse = dict(ctx.mail.parse, refused=new)
        return ctx.reply(wrap(why + " " + t.gettext("Nichts wurde verändert.")), kind="command")
    own = any(a.email == new for a in ctx.player.addresses)
    if own or ctx.proved or ctx.auth.verdict == "pass":
        withdraw_changes(ctx.s, ctx.player, by="adresse", now=ctx.now)
        old_first = ctx.player.email
        set_address(ctx.s, ctx.player, new)
        ctx.mail.parse = dict(ctx.mail.parse, address=new, proven="code" if ctx.proved else
                              "own" if own else ctx.auth.reason or "pass")
        body = wrap(tr(ctx.lang, "cmd_address_set", new=new, all=", ".join(a.email for a in ctx.player.addresses)))
        ctx.reply(body, kind="command")
        if new != old_first:
            ctx.reply(body, to=new, kind="command")
        return
    _adresse_pending(ctx, new)


def address_refusal(s, cfg, player: Player, new: str, lang: str) -> str | None:
    """Why ``new`` cannot become an address of ``player`` (a German sentence in ``lang``),
    or None. Refused: the bot's own address, the address of any league's game master,
    and an address of any other player of any league, except the same person's row in
    another league (a player there who shares one of ``player``'s addresses). An
    address the player already has is never refused. Source: issue 31 (one address, one
    person in one role: a player who took the GM's address got the GM's copy)."""
    t = texts(lang)
    if any(a.email == new for a in player.addresses):
        return None
    if new == (cfg.sender_addr or "").lower():
        return t.gettext("{new} ist die Adresse des Spielleiter-Bots selbst; an sie kann keine Auswertung "
                         "gehen.", new=new)
    if s.scalar(select(League.id).where(func.lower(League.gm_email) == new).limit(1)) is not None:
        return t.gettext("{new} ist die Adresse eines Spielleiters; sie kann nicht die Adresse eines "
                         "Spielers werden.", new=new)
    mine = {a.email for a in player.addresses}
    for other in s.scalars(select(Player).join(PlayerAddress).where(PlayerAddress.email == new,
                                                                     Player.id != player.id)):
        same_person = other.league_id != player.league_id and any(a.email in mine for a in other.addresses)
        if not same_person:
            return t.gettext("{new} gehört schon einem anderen Spieler; eine Adresse kann nur einem Spieler "
                             "gehören.", new=new)
    return None


def set_address(s, player: Player, new: str) -> None:
    """Add ``new`` to ``player``'s addresses (if it is not one) and make it the first, where
    reports go."""
    existing = next((a for a in player.addresses if a.email == new), None)
    if existing is None:
        existing = PlayerAddress(player_id=player.id, email=new)
        s.add(existing)
        s.flush()
    _make_primary(s, player, existing)


def pending_change(s, player: Player) -> AddressChange | None:
    """The player's address change that waits for the game master, or None."""
    return s.scalar(select(AddressChange).where(AddressChange.player_id == player.id,
                                                AddressChange.status == "pending")
                    .order_by(AddressChange.id.desc()).limit(1))


def withdraw_changes(s, player: Player, *, by: str, now, status: str = "superseded") -> list[AddressChange]:
    """Close every waiting address change of ``player`` (``status``, decided ``by``)."""
    rows = list(s.scalars(select(AddressChange).where(AddressChange.player_id == player.id,
                                                      AddressChange.status == "pending")))
    for row in rows:
        row.status, row.decided_at, row.decided_by = status, now, by
    return rows


def _adresse_pending(ctx: Incoming, new: str) -> None:
    """An unproven ADRESSE: stored as waiting; the player's current address (and the
    sending one, where it differs) and the game master are told at once; nothing goes
    to ``new``."""
    player, league, lang = ctx.player, ctx.league, ctx.lang
    t = texts(lang)
    withdraw_changes(ctx.s, player, by="adresse", now=ctx.now)
    old = player.email
    change = AddressChange(player_id=player.id, email=new, old_email=old, from_addr=ctx.rm.from_addr,
                           mail_id=ctx.mail.id, requested_at=ctx.now)
    ctx.s.add(change)
    ctx.s.flush()
    ctx.mail.parse = dict(ctx.mail.parse, address=new, pending=change.id)
    body = t.gettext("von {sender} kam die Bitte, deine Mails aus {league} ab jetzt an {new} zu schicken. "
                     "Die Mail trug deinen persönlichen Code nicht, und der Mailserver hat den Absender nicht "
                     "bestätigt; deshalb gilt die neue Adresse erst, wenn der Spielleiter sie bestätigt. Bis "
                     "dahin geht alles weiter an {old}.", sender=ctx.rm.from_addr, league=league.name, new=new,
                     old=old)
    body += "\n\n" + t.gettext("Warst du das nicht, antworte mit ADRESSE NEIN oder schreib dem Spielleiter; "
                               "dann bleibt alles, wie es ist.")
    if player.code_hash:
        body += "\n\n" + t.gettext("Warst du es, geht es auch gleich: schick ADRESSE {new} noch einmal, mit "
                                   "deinem Code in einer eigenen Zeile ('Code: ...').", new=new)
    subject = t.gettext("{league}: Bitte um eine neue Adresse", league=league.name)
    for to in dict.fromkeys([old, ctx.rm.from_addr]):
        ctx.reply(wrap(body), to=to, subject=subject, kind="command")
    gm_address_notice(ctx.s, ctx.cfg, league, player, change)


def gm_address_notice(s, cfg, league: League, player: Player, change: AddressChange) -> None:
    """Tell the league's game master (if it has a ``gm_email``) that ``change`` waits for
    them, with how to confirm or refuse it by mail and on the machine."""
    if not league.gm_email:
        return
    t = texts(gm_language(league.options))
    text = t.gettext(
        "{name} ({old}) soll Auswertungen ab jetzt an {new} bekommen; die Bitte kam von {sender}, ohne "
        "persönlichen Code und ohne vom Mailserver bestätigten Absender, sie kann also gefälscht sein. "
        "Bis du entscheidest, geht nichts an {new}; {old} ist benachrichtigt.",
        name=player.name, old=change.old_email, new=change.email, sender=change.from_addr or "?")
    text = wrap(text) + "\n\n" + t.gettext("Bestätigen:") + f"\n  ADRESSE {league.name} OK {player.name}\n" \
        f"  spielleiter gm adresse {league.name} ok '{player.name}'\n" + t.gettext("Ablehnen:") + \
        f"\n  ADRESSE {league.name} NEIN {player.name}\n  spielleiter gm adresse {league.name} nein " \
        f"'{player.name}'\n" + t.gettext("(per Mail mit deinem Spielleiter-Code in einer eigenen Zeile)")
    queue_mail(s, cfg, key=f"gm-notice:adresse:{change.id}", kind="gm-notice", to=league.gm_email,
               subject=t.gettext("{league}: Adressänderung wartet auf dich", league=league.name),
               text=render("notice.txt.j2", t.lang, name=t.gettext("Spielleiter"), body=text, league=league.name),
               league_id=league.id)


def _adresse_nein(ctx: Incoming) -> None:
    """``ADRESSE NEIN``: the player refuses the address change that waits for the game
    master (e.g. one they did not ask for); the game master is told."""
    ctx.record("processed", "command", command="ADRESSE", arg="NEIN")
    t = texts(ctx.lang)
    rows = withdraw_changes(ctx.s, ctx.player, by="player", now=ctx.now, status="refused")
    if not rows:
        return ctx.reply(t.gettext("für dich wartet keine Adressänderung; alles bleibt, wie es ist."),
                         kind="command")
    new = ", ".join(r.email for r in rows)
    ctx.reply(wrap(t.gettext("die Bitte, deine Mails an {new} zu schicken, ist abgelehnt; alles geht weiter an "
                             "{old}.", new=new, old=ctx.player.email)), kind="command")
    league = ctx.league
    if league.gm_email:
        g = texts(gm_language(league.options))
        queue_mail(ctx.s, ctx.cfg, key=f"gm-notice:adresse-nein:{rows[-1].id}", kind="gm-notice",
                   to=league.gm_email, subject=g.gettext("{league}: Adressänderung abgelehnt", league=league.name),
                   text=render("notice.txt.j2", g.lang, name=g.gettext("Spielleiter"), body=wrap(g.gettext(
                       "{name} hat die Adressänderung an {new} selbst abgelehnt (ADRESSE NEIN von {sender}); "
                       "du musst nichts mehr tun.", name=ctx.player.name, new=new, sender=ctx.rm.from_addr)),
                                   league=league.name),
                   league_id=league.id)


def _make_primary(s, player: Player, addr: PlayerAddress) -> None:
    """Make ``addr`` the player's first address (reports go to the first) by swapping
    its value with the first row's (a temporary value keeps the unique key intact)."""
    s.refresh(player, ["addresses"])
    first = player.addresses[0]
    if first is addr:
        return
    new, old = addr.email, first.email
    addr.email = f"~{addr.id}~"
    s.flush()
    first.email = new
    s.flush()
    addr.email = old
    s.flush()
    s.refresh(player, ["addresses"])


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
        t = texts(ctx.lang)
        names = ", ".join(lg.name for lg in open_leagues) or tr(ctx.lang, "none")
        return ctx.reply(t.gettext("Anmelden geht nur bei Ligen, die jederzeit Einstieg erlauben ({names}). Bitte "
                                   "den Namen der Liga in den Betreff schreiben: 'ANMELDEN <Liga> <Dein Name>'.",
                                   names=names), kind="command")
    league = choice[0]
    name = _join_name(ctx, league, re.sub(re.escape(league.name), "", arg, flags=re.I).strip(" ,:-")
                      or ctx.rm.from_name or "")
    if name is None:
        return
    rnd = open_round(ctx.s, league)
    joined = rnd.number if rnd else league.rounds + 1
    player = Player(league_id=league.id, name=name, joined_round=joined)
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


def _join_name(ctx: Incoming, league: League, given: str) -> str | None:
    """The name a joiner asked for (the ``ANMELDEN`` line, else the sender's display
    name, never the address), NFC-normalised (:func:`~bot.service.domain.names.normal_name`,
    at most 100 characters); or None after answering why not (in the league's language):
    no name, a control or format character (:func:`~bot.service.domain.names.bad_name_chars`,
    e.g. U+202E), an ``@`` (a display name that is an address), or a name that a player
    of the league has already, compared NFC-normalised and case-folded (issue 31: a name
    is no identity; the answer suggests a free one, "Anna Albers 2")."""
    lang = league_language(league.options)
    t = texts(lang)
    word, your = t.gettext("ANMELDEN"), t.gettext("Dein Name")  # the command as the league's language writes it
    how = f"\n\n  {word} {league.name} <{your}>"
    if bad := bad_name_chars(given):
        ctx.reply(wrap(t.gettext("dein Name enthält unsichtbare Steuer- oder Formatzeichen ({chars}), etwa "
                                 "eine Umkehr der Schreibrichtung; damit melde ich niemanden an. Bitte schreib "
                                 "deinen Namen nur mit sichtbaren Zeichen:", chars=", ".join(bad)) + how),
                  kind="command", lang=lang)
        return None
    name = normal_name(normal_name(given)[:100])
    if not name:
        ctx.reply(wrap(t.gettext("bitte schreib deinen Namen dazu:") + how), kind="command", lang=lang)
        return None
    if "@" in name:  # names are public (every Auswertung, the archive), addresses never
        ctx.reply(wrap(t.gettext("dein Name sieht aus wie eine Mail-Adresse; Namen stehen in jeder Auswertung "
                                 "und im Archiv, Adressen nie. Bitte melde dich mit deinem Namen an:") + how),
                  kind="command", lang=lang)
        return None
    taken = {name_key(p.name) for p in league.players}
    if name_key(name) in taken:
        ctx.reply(wrap(t.gettext("in {league} spielt schon jemand mit dem Namen {name}. Bitte melde dich mit "
                                 "einem eigenen Namen an, etwa mit einer Initiale oder einer Zahl dahinter:",
                                 league=league.name, name=name)
                       + f"\n\n  {word} {league.name} {free_name(name, taken)}"),
                  kind="command", lang=lang)
        return None
    return name


def command_list(lang: str = "de") -> str:
    """The player commands with their help lines (for HILFE), in ``lang`` (the catalogs
    name each command by its word in that language: UITSLAG, VAKANTIE, ...)."""
    t = texts(lang)
    return "\n".join([t.gettext("Befehle (als Betreff oder erste Zeile der Mail):")]
                     + [textwrap.fill(t.gettext(c.help), 72, initial_indent="  ", subsequent_indent="      ",
                                      break_on_hyphens=False)
                        for c in COMMANDS.values() if not c.gm and c.help])

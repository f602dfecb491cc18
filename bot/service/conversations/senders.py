"""Who sent a mail, when it is not a player of a running league taking part, and the
answers that change nothing (:mod:`bot.service.conversations.intake` decides which
applies): a doubtful From field that names a player, a player whose league has ended or
who left it, a league's game master writing as a player, a mail without the right
personal code or from a sender our server did not authenticate, a mail too large or
unreadable. Each records the mail's outcome and answers only a registered sender."""

from __future__ import annotations

from sqlalchemy import bindparam, func, select

from bot.games import get_game
from bot.i18n import gm_language, texts, tr, unreadable_reason
from bot.mail.auth import SenderAuth
from bot.service.conversations.commands import standings_text
from bot.service.conversations.loops import auth_failure
from bot.service.conversations.mailctx import Incoming
from bot.storage.models import League, Player, PlayerAddress

#: Every active player's player, league and address rows in the running leagues, in the
#: order of the address rows (built once; :data:`SENDER` of one address).
SENDERS = (select(Player, League, PlayerAddress).join(PlayerAddress, PlayerAddress.player_id == Player.id)
           .join(League, League.id == Player.league_id)
           .where(League.status == "running", Player.active).order_by(PlayerAddress.id))
#: The sender's player, league and address row in the running leagues (built once).
SENDER = SENDERS.where(PlayerAddress.email == bindparam("addr"))


def failure(auth: SenderAuth) -> str:
    """The words of a recorded reason: ``ambiguous`` (the From field) or ``not authenticated``."""
    return "ambiguous" if auth.ambiguous else "not authenticated"


def claimed_player(ctx: Incoming) -> bool:
    """Does the doubtful From field of a stranger's mail name a player of a running
    league (``ReadMail.claimed``, in order)? Sets ``ctx.player`` and ``ctx.league`` (the
    first such player) and the mail's, for the notice to that player."""
    for addr in ctx.rm.claimed:
        if addr == ctx.rm.from_addr:
            continue
        row = ctx.s.execute(SENDER, {"addr": addr}).first()
        if row is not None:
            ctx.player, ctx.league, _ = row
            ctx.mail.player_id, ctx.mail.league_id = ctx.player.id, ctx.league.id
            return True
    return False


def registered(ctx: Incoming) -> bool:
    """Is the sender a player of a running league or a league's GM? Sets ``ctx.player``
    and ``ctx.league`` (the first match) for the greeting."""
    addr = ctx.rm.from_addr
    row = ctx.s.execute(select(Player, League).join(PlayerAddress, PlayerAddress.player_id == Player.id)
                        .join(League, League.id == Player.league_id)
                        .where(PlayerAddress.email == addr, League.status == "running", Player.active)).first()
    if row is not None:
        ctx.player, ctx.league = row
        ctx.mail.player_id, ctx.mail.league_id = ctx.player.id, ctx.league.id
        return True
    gm_of = ctx.s.scalar(select(League).where(func.lower(League.gm_email) == addr).limit(1))
    if gm_of is not None:
        ctx.league = gm_of
        return True
    return False


#: Commands that need no personal code (they change nothing).
OPEN_COMMANDS = {"HILFE", "STAND"}
#: Commands a player of a league that has ended still gets answered (they change nothing;
#: an Auswertung goes only to the registered address it was asked from).
AFTER_END_COMMANDS = OPEN_COMMANDS | {"AUSWERTUNG"}


def finished_player(ctx: Incoming) -> bool:
    """Is the sender a player of a league that has ended (and of no running one)? Sets
    ``ctx.player`` and ``ctx.league``: the league named in the subject, else the one that
    ended last."""
    return _take_player(ctx, League.status == "finished")


def former_player(ctx: Incoming) -> bool:
    """Is the sender a player who left a running league (``ABMELDEN``) or was taken out of
    it by the GM, and plays in no running league? Sets ``ctx.player`` and ``ctx.league``:
    the league named in the subject, else the last one."""
    return _take_player(ctx, League.status == "running", Player.active.is_(False))


def _take_player(ctx: Incoming, *where) -> bool:
    """The sender's player rows in leagues matching ``where`` (newest first): the one
    whose league the subject names, else the newest, set as ``ctx.player`` and
    ``ctx.league`` (and on the mail). False when there is none."""
    rows = ctx.s.execute(select(Player, League).join(PlayerAddress, PlayerAddress.player_id == Player.id)
                         .join(League, League.id == Player.league_id)
                         .where(PlayerAddress.email == ctx.rm.from_addr, *where)
                         .order_by(League.id.desc(), Player.id.desc())).all()
    if not rows:
        return False
    subj = (ctx.rm.subject or "").lower()
    named = [r for r in rows if r[1].name.lower() in subj]
    ctx.player, ctx.league = (named or rows)[0]
    ctx.mail.player_id, ctx.mail.league_id = ctx.player.id, ctx.league.id
    return True


def not_playing(ctx: Incoming) -> None:
    """A mail from a player who no longer plays in a running league (left or taken out):
    it changes nothing; the answer says so, how to come back, and the standings."""
    ctx.record("ignored", "ignored", reason="player left the league")
    t, league = texts(ctx.lang), ctx.league
    body = t.gettext("du spielst in {league} nicht mehr mit; deine Mail wurde nicht als Zug gewertet.",
                     league=league.name)
    game = get_game(league.game)
    body += " " + (t.gettext("Mit ANMELDEN {league} kannst du wieder einsteigen.", league=league.name)
                   if game.open_join else t.gettext("Willst du wieder mitspielen, schreib bitte dem Spielleiter."))
    ctx.reply(body + "\n\n" + standings_text(ctx.s, league, ctx.lang))


def game_master(ctx: Incoming) -> bool:
    """Is the sender the GM (``gm_email``) of a league, and no player? Sets ``ctx.league``:
    the league named in the subject, else the last running one, else the last one."""
    leagues = list(ctx.s.scalars(select(League).where(func.lower(League.gm_email) == ctx.rm.from_addr)
                                 .order_by(League.id.desc())))
    if not leagues:
        return False
    subj = (ctx.rm.subject or "").lower()
    named = [lg for lg in leagues if lg.name.lower() in subj]
    running = [lg for lg in leagues if lg.status == "running"]
    ctx.league = (named or running or leagues)[0]
    ctx.mail.league_id = ctx.league.id
    return True


def gm_not_player(ctx: Incoming, command: str | None) -> None:
    """A mail from a league's GM that is no GM command (a player command, or moves): the
    GM plays in no league of theirs; the answer says how GM commands go. Changes nothing."""
    ctx.record("ignored", "ignored", reason="game master, not a player", command=command)
    t = texts(gm_language(ctx.league.options))
    first = (t.gettext("{command} ist ein Befehl für Spieler; du bist Spielleiter von {league} und spielst dort "
                       "nicht mit.", command=command, league=ctx.league.name) if command else
             t.gettext("du bist Spielleiter von {league} und spielst dort nicht mit; deine Mail wurde nicht als "
                       "Zug gewertet.", league=ctx.league.name))
    ctx.reply(first + " " + t.gettext(
        "Spielleiter-Befehle gehen so: BEFEHL <Liga> ... als Betreff, dein Spielleiter-Code in einer eigenen "
        "Zeile ('Code: ...'); die Liste steht in der Mail zum Start der Liga. STAND und HILFE gehen auch so."),
        name=t.gettext("Spielleiter"), lang=gm_language(ctx.league.options))


def game_over(ctx: Incoming) -> None:
    """A registered player's mail after their league ended: "Die Partie ist beendet" and
    the final standings, in the league's language; nothing is stored as a move."""
    ctx.record("ignored", "ignored", reason="league finished")
    lang = ctx.lang
    ctx.reply(tr(lang, "game_over", league=ctx.league.name) + "\n\n" + standings_text(ctx.s, ctx.league, lang))


def bad_code(ctx: Incoming, code: str | None, auth: SenderAuth) -> None:
    """A mail without the right personal code (in a league that requires one), or whose
    sender our mail server did not authenticate or whose From field is doubtful (a second
    address, issue 31) and that carries no right code, changes nothing. The player is
    told at the registered address (the real player even when the sender was forged; for
    a doubtful From, the player whose address it named), at most once an hour
    (:func:`bot.service.conversations.loops.auth_failure`); the code is never echoed."""
    reason = f"sender {failure(auth)}: {auth.reason}" if auth.failed and not (
        ctx.league.require_code and code) else "code missing" if not code else "code wrong"
    ctx.record("rejected", "submission", reason=reason)
    ctx.mail.flagged = {"code missing": "personal code missing", "code wrong": "personal code wrong"}.get(
        reason, reason)
    lang = ctx.lang
    if reason.startswith("sender ambiguous"):
        mine = {a.email for a in ctx.player.addresses} if ctx.player.addresses else {ctx.player.email}
        addr = next((a for a in ctx.rm.claimed if a in mine), ctx.rm.from_addr)
        others = [a for a in ctx.rm.claimed if a != addr][:3]
        text = tr(lang, "from_ambiguous", addr=addr, others=", ".join(others) or ctx.rm.from_addr)
    elif reason.startswith("sender"):
        text = tr(lang, "code_forged", addr=ctx.rm.from_addr, why=auth.reason)
    else:
        text = tr(lang, "code_missing" if not code else "code_wrong", addr=ctx.rm.from_addr)
    auth_failure(ctx, owner=f"player:{ctx.player.id}", to=ctx.player.email, name=ctx.player.name,
                 subject=tr(lang, "subject_not_counted", league=ctx.league.name), first_text=text,
                 what=tr(lang, "what_player", league=ctx.league.name))


def too_big(ctx: Incoming, auth: SenderAuth) -> None:
    """A mail larger than ``[bot] max_mail_bytes``: stored cut, not read, flagged; a
    registered sender (player or GM, not a forged one) is told."""
    size, limit = ctx.mail.raw_size, ctx.cfg.max_mail_bytes
    ctx.record("ignored", "ignored", reason=f"zu groß: {size} Bytes (höchstens {limit})", size=size)
    ctx.mail.flagged = f"too large: {size} bytes, stored cut to {len(ctx.mail.raw)}"
    if auth.failed or not registered(ctx):
        return
    mb = lambda n: f"{n / 1024 / 1024:.1f}".replace(".", ",")  # noqa: E731
    ctx.reply(tr(ctx.lang, "mail_too_big", size=mb(size), limit=mb(limit)))


def unreadable(ctx: Incoming, auth: SenderAuth) -> None:
    """A mail whose structure or text could not be read: stored, flagged for the GM; a
    registered sender (player or GM, not a forged one) is told why in one line."""
    why = ctx.rm.unreadable
    ctx.record("ignored", "ignored", reason=f"unreadable: {why}")
    ctx.mail.flagged = f"unreadable mail from {ctx.rm.from_addr}: {why}"
    if auth.failed or not registered(ctx):
        return
    lang = ctx.lang
    ctx.reply(tr(lang, "mail_unreadable", subject=ctx.rm.subject or tr(lang, "empty_subject"),
                 why=unreadable_reason(why, lang)))

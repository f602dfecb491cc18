"""The game master's side: a Spielleiter who only supervises.

The operations are plain functions over a session (one transaction, the caller's), so
mail commands and the CLI (``spielleiter gm ...``) share them. Each one changes the
league, is announced to the players by mail (queued in the outbox, in the league's
language: bot.i18n, through ``notice.txt.j2``), is written to the log, and returns what
was done (the answer to the GM): a :class:`~bot.service.conversations.gmbase.Said`,
German as a ``str`` (the CLI), in the GM's language (``gm_language``) by ``render`` (the
mail). A request that cannot be done raises
:class:`GMError` before anything is changed; it too is German as a ``str`` and renders in
the GM's language for the mail.

By mail a GM command must come from the league's ``gm_email`` AND carry the GM's code
(``Code: ...`` in a line of its own); otherwise nothing changes, the mail is flagged and
the GM's registered address is told (the code is never echoed). By CLI no code is
needed: the user on the machine is the GM. CLI operations are recorded as stored
"mails" (``inbound_mails``, source ``cli``) so that every GM action leaves a row.

The operations live in :mod:`~bot.service.conversations.gmschedule` (``set_zat``, ``pause``,
``resume``, ``status``, ``process_now``) and :mod:`~bot.service.conversations.gmplay`
(``allow_word``, ``deny_word``, ``set_move``, ``remove_player``, ``rollback``, ``message``,
``set_review``, ``release``, ``decide_address``), over :mod:`~bot.service.conversations.gmbase`;
this module reads them from mails (:data:`GM_COMMANDS`) and from the CLI (:func:`run_cli`).
"""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
from datetime import datetime
from typing import Any, Callable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.config import Config
from bot.i18n import N_, Texts, gm_language, texts
from bot.mail.compose import compose
from bot.render import wrap
from bot.service.conversations.identity import check_code, take_code
from bot.service.domain.league import LeagueError, find_league
from bot.service.conversations.loops import auth_failure, proven
from bot.service.conversations.commands import COMMANDS as PLAYER_COMMANDS
from bot.service.conversations.mailctx import Incoming
from bot.service.conversations.table import REPLY_PREFIX, CommandTable
from bot.storage.models import (InboundMail, League, Player, PlayerAddress)

log = logging.getLogger(__name__)

from bot.service.conversations.gmbase import (GMError, said, utcnow)
from bot.service.conversations.gmplay import (allow_word, decide_address, deny_word, message, release,
                                              remove_player, rollback, set_move, set_review)
from bot.service.conversations.gmschedule import pause, process_now, resume, set_zat, status


def _decision(rest: str, league: League) -> tuple[bool, str]:
    """(confirmed?, player) of ``OK <Spieler>`` / ``NEIN <Spieler>``."""
    word, _, who = rest.strip().partition(" ")
    w = word.lower()
    if w in ("ok", "ja", "yes") and who.strip():
        return True, who.strip()
    if w in ("nein", "nee", "no") and who.strip():
        return False, who.strip()
    raise GMError(N_("bitte so: ADRESSE {league} OK <Spieler> oder ADRESSE {league} NEIN <Spieler>."),
                  league=league.name)


# -- by mail -----------------------------------------------------------------------------

Op = Callable[[Session, Config, League, str, str, Incoming], str]


def _match_league(leagues: Sequence[League], arg: str) -> tuple[League | None, str]:
    low = arg.lower()
    for lg in sorted(leagues, key=lambda x: -len(x.name)):
        name = lg.name.lower()
        if low == name or (low.startswith(name) and low[len(name)].isspace()):
            return lg, arg[len(name):].strip()
    return None, arg


def _body(ctx: Incoming, name: str) -> str:
    """The mail text after the command line (all of it when the command is the subject),
    without the code line."""
    _, text = take_code(ctx.rm.new_text)
    if _first_word(ctx.rm.subject or "") in GM_WORDS[name]:
        return text.strip()
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines[1:]).strip()


#: the game master's words, each by its German word (the msgid, marked N_() where it is
#: registered: :func:`_gm_command` for the commands) -> every spelling a GM may write
#: for it, upper case (the German, the Dutch, the English: PAUSE, PAUZE, ...). The answers
#: name a command in the GM's language by the catalog's translation of the German word
#: (:func:`word`; tests/test_gm_answers.py checks that it is one of the spellings). Besides
#: the commands: STILL (Dutch STIL), no mail to the players (:func:`_quiet`).
GM_WORDS: dict[str, tuple[str, ...]] = {N_("STILL"): ("STILL", "STIL")}


def word(t: Texts, name: str) -> str:
    """GM command (or word) ``name`` as the answers in the language of ``t`` write it."""
    return t.gettext(name) if name in GM_WORDS else name


def _first_word(line: str) -> str:
    """The first word of ``line`` as :func:`~bot.service.conversations.registry.find_command`
    reads a command word: after ``Re:``/``AW:``, upper case, without a trailing ``.!:``."""
    return REPLY_PREFIX.sub("", line.strip()).strip().partition(" ")[0].upper().rstrip(".!:")


def _typed(ctx: Incoming, name: str, t: Texts) -> str:
    """GM command ``name`` as the answer to ``ctx`` names it: the word the GM wrote (the
    subject's or the first line's first word, upper case), so a Dutch GM who writes the
    German PAUSE reads PAUSE and a German GM who writes PAUZE reads PAUZE; the word of the
    language of ``t`` (:func:`word`) when the mail has none of its spellings."""
    _, text = take_code(ctx.rm.new_text)
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    for line in (ctx.rm.subject or "", first):
        if (w := _first_word(line)) in GM_WORDS.get(name, ()):
            return w
    return word(t, name)


def _quiet(ctx: Incoming, name: str, rest: str) -> tuple[str, bool]:
    """``rest`` without STILL, and whether the GM wrote it (in any spelling of
    :data:`GM_WORDS`: Dutch STIL) as the last or first word after the league or in a line
    of its own below the command."""
    still = GM_WORDS["STILL"]
    rest, quiet = _take_word(rest, *still)
    return rest, quiet or any(ln.strip().upper() in still for ln in _body(ctx, name).splitlines())


def _gm_mail(ctx: Incoming, arg: str, name: str, op: Op) -> bool | None:
    s, sender = ctx.s, (ctx.rm.from_addr or "").lower()
    code, _ = take_code(ctx.rm.new_text)
    leagues = s.scalars(select(League).order_by(League.id)).all()
    league, rest = _match_league(leagues, arg)
    gm_of = [lg for lg in leagues if lg.gm_email and lg.gm_email.lower() == sender]
    if league is None:
        is_player = s.scalar(select(PlayerAddress.id).join(Player).join(League).where(
            PlayerAddress.email == sender, Player.active, League.status == "running").limit(1)) is not None
        if is_player and not any(check_code(code, lg.gm_code_hash) for lg in gm_of):
            return False  # e.g. "Weiter so, hier meine Züge": a player's mail, not a GM command
        subj = (ctx.rm.subject or "").lower()
        named = [lg for lg in leagues if re.search(rf"(?<!\S){re.escape(lg.name.lower())}(?!\S)", subj)]
        choice = named if len(named) == 1 else gm_of
        league = choice[0] if len(choice) == 1 else None
    if league is None:
        ctx.record("rejected", "command", command=name, reason="league unknown")
        if gm_of:  # in the language of the GM's first league
            g = texts(gm_language(gm_of[0].options))
            return ctx.reply(g.gettext("für welche Liga? Bitte so: {command} <Liga> ... (deine Ligen: {leagues}). "
                                       "Nichts wurde verändert.", command=_typed(ctx, name, g),
                                       leagues=", ".join(lg.name for lg in gm_of)),
                             name=g.gettext("Spielleiter"), lang=g.lang)
        ctx.mail.flagged = f"GM command {name} from {sender}: no league of this GM"
        return ctx.reply(texts(ctx.lang).gettext(
            "Spielleiter-Befehle nimmt der Bot nur von der Adresse des Spielleiters einer Liga an; deine Mail "
            "wurde nicht ausgeführt und hat nichts verändert."))
    ctx.league = league
    ctx.mail.league_id = league.id
    ok_addr = bool(league.gm_email) and sender == league.gm_email.lower()
    ok_code = check_code(code, league.gm_code_hash)
    if not (ok_addr and ok_code):
        reason = ("wrong sender address" if not ok_addr else "GM code not set for league"
                  if not league.gm_code_hash else "GM code missing" if not code else "GM code wrong")
        ctx.record("rejected", "command", command=name, league=league.name, reason=reason)
        ctx.mail.flagged = f"GM command {name} for {league.name}: {reason} (from {sender})"
        log.warning("Spielleiter-Befehl %s für %s abgelehnt: %s (von %s)", name, league.name, reason, sender)
        if league.gm_email:  # at most one notice an hour, however many arrive (bot.service.conversations.loops)
            t = texts(gm_language(league.options))  # the GM's language
            why = {"wrong sender address": t.gettext("von {sender}, nicht von der Adresse des Spielleiters",
                                                     sender=sender),
                   "GM code not set for league": t.gettext("an eine Liga ohne Spielleiter-Code (gm_code in der "
                                                           "Ligadatei)"),
                   "GM code missing": t.gettext("ohne den Spielleiter-Code"),
                   "GM code wrong": t.gettext("mit einem falschen Spielleiter-Code")}[reason]
            auth_failure(ctx, owner=f"gm:{league.id}", to=league.gm_email, name=t.gettext("Spielleiter"),
                         subject=t.gettext("{league}: Spielleiter-Befehl abgelehnt", league=league.name),
                         first_text=wrap(t.gettext(
                             "ein Spielleiter-Befehl {command} für {league} kam {why} und wurde nicht ausgeführt; "
                             "nichts wurde verändert. Ein Befehl braucht die Adresse des Spielleiters und den Code "
                             "in einer eigenen Zeile ('Code: ...'). Warst du das nicht, prüfe bitte, wer den Code "
                             "kennt.", command=_typed(ctx, name, t), league=league.name, why=why)),
                         what=t.gettext("Spielleiter-Befehle für {league}", league=league.name))
        return None
    proven(ctx, f"gm:{league.id}")
    rest, quiet = _quiet(ctx, name, rest)
    s.info.update(gm_still=quiet, gm_by=f"mail {sender}", gm_now=ctx.now, gm_notice_due=None)
    g = texts(gm_language(league.options))  # the answer is in the GM's language; the record German
    try:
        done = op(s, ctx.cfg, league, rest, _body(ctx, name), ctx)
    except LeagueError as exc:
        ctx.record("processed", "command", command=name, league=league.name, arg=rest, error=str(exc))
        return ctx.reply(wrap(g.gettext("{command} {league}: nicht ausgeführt: {why}", command=_typed(ctx, name, g),
                                        league=league.name, why=exc.render(g.lang))),
                         name=g.gettext("Spielleiter"), kind="command", lang=g.lang)
    ctx.record("processed", "command", command=name, league=league.name, arg=rest, done=str(done))
    ctx.reply(wrap(said(done, g.lang)), name=g.gettext("Spielleiter"), kind="command", lang=g.lang)
    return None


#: the game master's mail commands (listed with the players' in
#: :mod:`bot.service.conversations.registry`)
GM_COMMANDS = CommandTable()
ALIASES = GM_COMMANDS.aliases
command = GM_COMMANDS.command


def _take_word(rest: str, *word: str) -> tuple[str, bool]:
    """``rest`` without a leading or trailing ``word`` (one of them, any case), and whether
    it was there."""
    words = rest.split()
    if words and words[-1].upper() in word:
        return " ".join(words[:-1]), True
    if words and words[0].upper() in word:
        return " ".join(words[1:]), True
    return rest, False


def _gm_command(name: str, *aliases: str, help: str = "", help_turns: str = "", shown: str | None = None):
    """Register ``op`` as the GM mail command ``name`` (its German word, marked N_(): the
    answers name it in the GM's language by the catalog, :data:`GM_WORDS`) and its
    ``aliases`` (the Dutch and English words); ``shown``: the word the GM writes and the
    answers use, when the registry's name is not that word (ADRESSE-GM: ADRESSE, spelled
    as the player's command is); ``help_turns``: the help line in a game of turns, where it
    names the period "Zug"."""
    def deco(op: Op) -> Op:
        @command(name, *aliases, gm=True, needs_player=False, help=help, help_turns=help_turns)
        def handler(ctx: Incoming, arg: str) -> bool | None:
            return _gm_mail(ctx, arg, shown or name, op)
        table = PLAYER_COMMANDS.aliases if shown else ALIASES
        GM_WORDS[shown or name] = tuple(w for w, n in table.items() if n == (shown or name))
        return op
    return deco


def _on_off(value: str) -> bool:
    v = value.strip().lower()
    if v in ("an", "ein", "on", "ja", "yes", "1", "true", "aan"):
        return True
    if v in ("aus", "off", "nein", "no", "0", "false", "uit", "nee"):
        return False
    raise GMError(N_("'{value}': bitte 'an' oder 'aus'."), value=value)


@_gm_command(N_("ZAT"), "DEADLINE", help=N_("ZAT <Liga> <+2d | +12h | 13.12.2026 20:00> [ALLE] [STILL]"))
def _m_zat(s, cfg, lg, rest, body, ctx):
    rest, alle = _take_word(rest, "ALLE")
    if not rest:
        raise GMError(N_("welcher ZAT? Bitte so: ZAT {league} +2d oder ZAT {league} 13.12.2026 20:00."),
                      league=lg.name)
    return set_zat(s, cfg, lg, rest, now=ctx.now, alle=alle)


@_gm_command(N_("STATUS"), help=N_("STATUS <Liga>: läuft oder angehalten (seit wann, von wem), Runde, ZAT"),
             help_turns=N_("STATUS <Liga>: läuft oder angehalten (seit wann, von wem), Zug, ZAT"))
def _m_status(s, cfg, lg, rest, body, ctx):
    return status(s, cfg, lg, now=ctx.now)


@_gm_command(N_("PAUSE"), "PAUSIEREN", "ANHALTEN", "PAUZE", "PAUZEER", help=N_("PAUSE <Liga>"))
def _m_pause(s, cfg, lg, rest, body, ctx):
    return pause(s, cfg, lg, now=ctx.now)


@_gm_command(N_("WEITER"), "RESUME", "FORTSETZEN", "VERDER", "HERVAT", help=N_("WEITER <Liga>"))
def _m_weiter(s, cfg, lg, rest, body, ctx):
    return resume(s, cfg, lg, now=ctx.now)


@_gm_command(N_("AUSWERTEN"), "PROCESS", "ADJUDICATE", "UITWERKEN", help=N_("AUSWERTEN <Liga>: die offene Runde jetzt"),
             help_turns=N_("AUSWERTEN <Liga>: den offenen Zug jetzt"))
def _m_auswerten(s, cfg, lg, rest, body, ctx):
    return process_now(s, cfg, lg, now=ctx.now)


@_gm_command(N_("ERLAUBE"), "ERLAUBEN", "ALLOW", "TOESTAAN", help=N_("ERLAUBE <Liga> <WORT>"))
def _m_erlaube(s, cfg, lg, rest, body, ctx):
    return allow_word(s, cfg, lg, rest, now=ctx.now)


@_gm_command(N_("VERBIETE"), "VERBIETEN", "SPERRE", "DENY", "VERBIEDEN", "VERBIED", help=N_("VERBIETE <Liga> <WORT>"))
def _m_verbiete(s, cfg, lg, rest, body, ctx):
    return deny_word(s, cfg, lg, rest, now=ctx.now)


@_gm_command(N_("SETZE"), "SETZEN", "SET", "INVOEREN", help=N_("SETZE <Liga> <Spieler> <Partie>, die Züge darunter"))
def _m_setze(s, cfg, lg, rest, body, ctx):
    who, partie = _player_partie(lg, rest)
    moves: list[str] = []
    for ln in body.splitlines():  # the lines right below the command, up to the first empty line
        if not ln.strip() and moves:
            break
        moves.append(ln)
    return set_move(s, cfg, lg, who, partie, moves, mail_id=ctx.mail.id, now=ctx.now)


def _player_partie(league: League, rest: str) -> tuple[str, str]:
    words = rest.split()
    names = {p.name.lower() for p in league.partien}
    if words and words[-1].rstrip(":").lower() in names:
        return " ".join(words[:-1]), words[-1].rstrip(":")
    if len(league.partien) == 1:
        return rest, league.partien[0].name
    raise GMError(N_("welche Partie? Bitte so: SETZE {league} <Spieler> <Partie> (Partien: {names}), die Züge "
                     "in den Zeilen darunter."), league=league.name, names=", ".join(p.name for p in league.partien))


@_gm_command(N_("ENTFERNE"), "ENTFERNEN", "REMOVE", "VERWIJDEREN", "VERWIJDER", help=N_("ENTFERNE <Liga> <Spieler>"))
def _m_entferne(s, cfg, lg, rest, body, ctx):
    return remove_player(s, cfg, lg, rest, now=ctx.now)


@_gm_command(N_("ZURUECK"), "ZURÜCK", "ROLLBACK", "TERUGDRAAIEN",
             help=N_("ZURUECK <Liga>: die letzte Auswertung zurücknehmen"))
def _m_zurueck(s, cfg, lg, rest, body, ctx):
    return rollback(s, cfg, lg, now=ctx.now)


@_gm_command(N_("NACHRICHT"), "MESSAGE", "RUNDMAIL", "RONDMAIL", help=N_("NACHRICHT <Liga>, der Text darunter"))
def _m_nachricht(s, cfg, lg, rest, body, ctx):
    return message(s, cfg, lg, "\n".join(x for x in (rest, body) if x), now=ctx.now)


@_gm_command(N_("REVIEW"), "PRUEFUNG", "PRÜFUNG", "CONTROLE", help=N_("REVIEW <Liga> an|aus"))
def _m_review(s, cfg, lg, rest, body, ctx):
    return set_review(s, cfg, lg, _on_off(rest), now=ctx.now)


@_gm_command(N_("FREIGEBEN"), "FREIGABE", "RELEASE", "VRIJGEVEN",
             help=N_("FREIGEBEN <Liga>: zurückgehaltene Auswertungen senden"))
def _m_freigeben(s, cfg, lg, rest, body, ctx):
    return release(s, cfg, lg, now=ctx.now)


@_gm_command("ADRESSE-GM", help=N_("ADRESSE <Liga> OK|NEIN <Spieler>: eine wartende Adressänderung"),
             shown=N_("ADRESSE"))
def _m_adresse(s, cfg, lg, rest, body, ctx):
    # reached through find_command: ADRESSE with OK|NEIN <Spieler> (bot.service.conversations.registry)
    ok, who = _decision(rest, lg)
    return decide_address(s, cfg, lg, who, ok, by="gm", now=ctx.now)


# -- by CLI ------------------------------------------------------------------------------

CLI_OPS = ("zat", "status", "pause", "weiter", "auswerten", "erlaube", "verbiete", "setze", "entferne", "zurueck",
           "nachricht", "review", "freigeben", "adresse")


def cli_record(s: Session, cfg: Config, league: League, op: str, args: dict[str, Any], now: datetime) -> InboundMail:
    """Store a CLI GM action like a mail (source ``cli``), so every GM action has a row."""
    body = f"spielleiter gm {op} {league.name}\n" + "\n".join(f"{k}: {v}" for k, v in args.items()) + \
        f"\n{now.isoformat()} {uuid.uuid4().hex}\n"
    raw = compose(sender=cfg.sender, to=cfg.sender, subject=f"{op.upper()} {league.name} (CLI)", text=body)
    row = InboundMail(source="cli", sha256=hashlib.sha256(raw).hexdigest(), raw=raw, from_addr=cfg.sender_addr,
                      subject=f"{op.upper()} {league.name} (CLI)", status="processed", kind="command",
                      league_id=league.id, received_at=now,
                      parse={"command": op.upper(), "league": league.name, "via": "cli", **args})
    s.add(row)
    s.flush()
    return row


def run_cli(s: Session, cfg: Config, op: str, name: str, *, now: datetime | None = None, still: bool = False,
            **kw: Any) -> str:
    """Run GM operation ``op`` (one of :data:`CLI_OPS`) on league ``name``; returns the answer.
    ``still``: no notice to the players (``--still``)."""
    now = utcnow(now)
    league = find_league(s, name)
    if op == "status":
        return status(s, cfg, league, now=now)
    s.info.update(gm_still=bool(still), gm_by="cli", gm_now=now, gm_notice_due=None)
    rec = cli_record(s, cfg, league, op, {k: v for k, v in dict(kw, still=still or None).items()
                                          if v is not None}, now)
    if op == "zat":
        done = set_zat(s, cfg, league, kw["when"], now=now, alle=bool(kw.get("alle")))
    elif op == "pause":
        done = pause(s, cfg, league, now=now)
    elif op == "weiter":
        done = resume(s, cfg, league, now=now)
    elif op == "auswerten":
        done = process_now(s, cfg, league, now=now)
    elif op == "erlaube":
        done = allow_word(s, cfg, league, kw["word"], now=now)
    elif op == "verbiete":
        done = deny_word(s, cfg, league, kw["word"], now=now)
    elif op == "setze":
        done = set_move(s, cfg, league, kw["player"], kw["partie"], kw["moves"], mail_id=rec.id, now=now)
    elif op == "entferne":
        done = remove_player(s, cfg, league, kw["player"], now=now)
    elif op == "zurueck":
        done = rollback(s, cfg, league, now=now)
    elif op == "nachricht":
        done = message(s, cfg, league, kw["text"], now=now)
    elif op == "review":
        done = set_review(s, cfg, league, _on_off(kw["mode"]), now=now)
    elif op == "freigeben":
        done = release(s, cfg, league, now=now)
    elif op == "adresse":
        done = decide_address(s, cfg, league, kw["player"], kw["decision"].lower() in ("ok", "ja", "yes"),
                              by="cli", now=now)
    else:
        raise GMError(N_("unbekannter Spielleiter-Befehl {op!r}."), op=op)
    rec.parse = dict(rec.parse or {}, done=str(done))
    return done

"""The ``spielleiter`` command for the game master.

Every command takes ``--config FILE`` (see :mod:`bot.config`); without it the embedded
default (SQLite and Maildir under ``./var``) is used. A command that queues mail
delivers the outbox before it exits.

Exit statuses: 0 done; 1 a failed check or case (``check``, ``conformance``, ``lexicon
check``); 2 a wrong config, argument or league; a mail server failure gives one line on
stderr (the traceback only with ``--debug``) and :func:`exit_status`: IMAP 10 + kind,
SMTP 20 + kind, the kinds in the order of ``ServerFailure.KINDS`` (login refused,
unreachable, TLS, folder missing, settings, temporarily refused, unexpected answer, the
provider's sending quota reached). A
command whose own work was done (a league created, a round adjudicated) says so on stdout
and still exits with that status; its mails wait in the outbox (``spielleiter outbox``).
``oauth login`` exits 1 when no grant was stored. 77 is a crash point (``bot/crash.py``).

Each command imports the floors it needs (the service, the demo, the word lists) when it
runs, so ``spielleiter --help`` and a light command stay quick: those imports are deferred
on purpose and say so.
"""


from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback

from bot.config import load_config
from bot.errors import ConfigError
from bot.mail.transport import ServerFailure

from bot.cli.commands import (cmd_adjudicate, cmd_archive, cmd_check, cmd_conformance, cmd_demo, cmd_gm,
                               cmd_ingest, cmd_init, cmd_league_create, cmd_lexicon_build, cmd_lexicon_check,
                               cmd_lexicon_export, cmd_oauth_login, cmd_outbox, cmd_outbox_retry, cmd_poll,
                               cmd_run, cmd_show, cmd_top, report_failure)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS,
                        help="TOML-Konfiguration (Standard: ./spielleiter.toml oder SQLite+Maildir in ./var)")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="Fehler mit Traceback zeigen, ausführlich protokollieren")
    p = argparse.ArgumentParser(prog="spielleiter", parents=[common],
                                description="Spielleiter: Postspiele (Rondo, ...) per E-Mail leiten.")
    sub = p.add_subparsers(dest="command", required=True, metavar="BEFEHL")

    def add(name, func, help_):
        sp = sub.add_parser(name, parents=[common], help=help_, description=help_)
        sp.set_defaults(func=func)
        return sp

    add("init", cmd_init, "Datenbank anlegen bzw. auf den neuesten Stand bringen")
    lg = sub.add_parser("league", parents=[common], help="Ligen verwalten")
    lgs = lg.add_subparsers(dest="league_command", required=True, metavar="BEFEHL")
    c = lgs.add_parser("create", parents=[common], help="Liga aus einer TOML-Ligadatei anlegen")
    c.add_argument("file", metavar="LEAGUE.toml")
    c.set_defaults(func=cmd_league_create)
    add("poll", cmd_poll, "Posteingang einmal abrufen, Züge lesen und bestätigen")
    ig = add("ingest", cmd_ingest, "Mails aus .eml-Dateien wie beim Abruf speichern, lesen und bestätigen")
    ig.add_argument("files", nargs="+", metavar="FILE.eml", help="Rohmails ('-': stdin)")
    ig.add_argument("--dry-run", action="store_true", help="nur zeigen, was geschähe: nichts speichern/senden")
    ig.add_argument("--json", action="store_true", help="je Mail eine JSON-Zeile")
    a = add("adjudicate", cmd_adjudicate, "offene Runde einer Liga auswerten, wenn der ZAT erreicht ist")
    a.add_argument("name", metavar="NAME")
    a.add_argument("--now", action="store_true", help="sofort auswerten, auch vor dem ZAT")
    sh = add("show", cmd_show, "Stand einer Liga zeigen")
    sh.add_argument("name", metavar="NAME")
    sh.add_argument("--json", action="store_true")
    add("run", cmd_run, "als Dienst laufen: regelmäßig abrufen und ZATs auslösen")
    ar = add("archive", cmd_archive, "statisches Archiv der Ligen schreiben (HTML, ohne Server lesbar)")
    ar.add_argument("--out", metavar="DIR", help="Zielordner (Standard: [archive] path der Konfiguration)")
    ar.add_argument("--league", metavar="NAME", help="nur die Seiten dieser Liga (und die Übersicht)")
    ar.add_argument("--pdf", action="store_true", help="dazu jede Runde und die Tabelle als A4-PDF (WeasyPrint)")
    d = add("demo", cmd_demo, "Demo-Liga mit simulierten Spielern komplett durchspielen")
    d.add_argument("--out", metavar="DIR", help="Ordner für die Auswertungen (.eml) und das Archiv (DIR/archiv)")
    d.add_argument("--rounds", type=int, default=20, help="Runden der Rondo-Liga (Standard: 20)")
    d.add_argument("--seed", default="1")
    lx = sub.add_parser("lexicon", parents=[common], help="Wörterbuch bauen und prüfen")
    lxs = lx.add_subparsers(dest="lexicon_command", required=True, metavar="BEFEHL")
    b = lxs.add_parser("build", parents=[common],
                       help="Wortlisten bauen: igerman98 (hunspell-de-de), OpenTaal (hunspell-nl, wenn installiert)")
    b.add_argument("--source", default=None, choices=["igerman98", "opentaal"],
                   help="nur dieses Wörterbuch bauen")
    b.set_defaults(func=cmd_lexicon_build)
    ck = lxs.add_parser("check", parents=[common], help="sagen, ob und warum ein Wort gültig ist")
    ck.add_argument("word", metavar="WORD")
    ck.add_argument("--game", default=None, help="Spiel oder Alphabet (rondo, rondonl, nl, nl-namen ...); ohne --league nötig")
    ck.add_argument("--league", default=None, help="mit Erlaubt- und Sperrliste dieser Liga")
    ck.set_defaults(func=cmd_lexicon_check)
    ex = lxs.add_parser("export", parents=[common], help="die ganze Wortliste eines Spiels ausgeben, ein Wort je Zeile")
    ex.add_argument("--game", default=None, help="Spiel oder Alphabet (rondo, rondonl, nl, nl-namen ...); ohne --league nötig")
    ex.add_argument("--league", default=None, help="mit Erlaubt- und Sperrliste dieser Liga")
    ex.set_defaults(func=cmd_lexicon_export)
    gm = sub.add_parser("gm", parents=[common], help="Spielleiter-Befehle (ZAT, Pause, Rücknahme, ...)")
    gms = gm.add_subparsers(dest="gm_command", required=True, metavar="BEFEHL")
    for op, aliases, help_, extra in [
            ("zat", ["deadline"], "ZAT der offenen Runde verschieben (+2d, +12h, 13.12.2026 20:00)",
             [("when", {"nargs": "+", "metavar": "ZEIT"})]),
            ("status", [], "Zustand der Liga: läuft oder angehalten (seit wann, von wem), Runde, ZAT", []),
            ("pause", [], "Liga anhalten: der ZAT wird nicht ausgeführt", []),
            ("weiter", ["resume"], "angehaltene Liga fortsetzen", []),
            ("auswerten", ["process"], "offene Runde sofort auswerten", []),
            ("erlaube", ["allow"], "Wort erlauben", [("word", {"metavar": "WORT"})]),
            ("verbiete", ["deny"], "Wort sperren", [("word", {"metavar": "WORT"})]),
            ("setze", ["set"], "Züge für einen Spieler eintragen (Hauptzug, dann Ersatzzüge)",
             [("player", {"metavar": "SPIELER"}), ("partie", {"metavar": "PARTIE"}),
              ("moves", {"nargs": "+", "metavar": "ZUG"})]),
            ("entferne", ["remove"], "Spieler austragen", [("player", {"metavar": "SPIELER"})]),
            ("zurueck", ["rollback"], "letzte Auswertung zurücknehmen", []),
            ("nachricht", ["message"], "Nachricht an alle Spieler ('-': von stdin)",
             [("text", {"nargs": "+", "metavar": "TEXT"})]),
            ("review", [], "Auswertungen vor dem Versand prüfen: an oder aus",
             [("mode", {"choices": ["an", "aus", "on", "off"]})]),
            ("freigeben", ["release"], "zurückgehaltene Auswertungen senden", []),
            ("adresse", ["address"], "wartende Adressänderung eines Spielers bestätigen (ok) oder ablehnen (nein)",
             [("decision", {"choices": ["ok", "nein", "ja", "no"], "metavar": "ok|nein"}),
              ("player", {"metavar": "SPIELER"})])]:
        g = gms.add_parser(op, aliases=aliases, parents=[common], help=help_, description=help_)
        g.add_argument("name", metavar="NAME")
        for dest, kw in extra:
            g.add_argument(dest, **kw)
        if op == "zat":
            g.add_argument("--alle", action="store_true",
                           help="die ZATs der späteren Runden um dieselbe Zeit mitverschieben")
        if op not in ("status", "nachricht", "freigeben"):
            g.add_argument("--still", action="store_true", help="ohne Mitteilung an die Spieler")
        g.set_defaults(func=cmd_gm, gm_command=op)
    ob = add("outbox", cmd_outbox, "wartende Mails zeigen (pending, held, failed) und erneut senden")
    ob.add_argument("--league", metavar="NAME", default=None, help="nur Mails dieser Liga")
    ob.add_argument("--status", choices=["pending", "held", "failed", "sent", "all"], default=None)
    ob.add_argument("--json", action="store_true", help="je Mail eine JSON-Zeile")
    obs = ob.add_subparsers(dest="outbox_command", required=False, metavar="BEFEHL")
    rt = obs.add_parser("retry", parents=[common], help="fehlgeschlagene Mails wieder einreihen und senden")
    rt.add_argument("ids", nargs="*", type=int, metavar="ID")
    rt.add_argument("--all-failed", action="store_true", help="alle fehlgeschlagenen (nicht zurückgenommene)")
    rt.set_defaults(func=cmd_outbox_retry)
    add("check", cmd_check, "Konfiguration, Datenbank, IMAP, SMTP und Lexikon prüfen (sendet nichts)")
    oa = sub.add_parser("oauth", parents=[common], help="OAuth2-Zugang für IMAP/SMTP (Microsoft, Google)")
    oas = oa.add_subparsers(dest="oauth_command", required=True, metavar="BEFEHL")
    ol = oas.add_parser("login", parents=[common], help="dem Bot Zugang zum Postfach geben (Code im Browser "
                                                      "eingeben) und das Token speichern")
    ol.set_defaults(func=cmd_oauth_login)
    cf = add("conformance", cmd_conformance, "Regelfälle prüfen (PASS/FAIL je Fall)")
    cf.add_argument("files", nargs="+", metavar="FILE")
    tp = add("top", cmd_top, "bestes Wort je Stellung (eine JSON-Zeile je Fall)")
    tp.add_argument("files", nargs="+", metavar="CASES.json")
    return p


def _negative_times(argv: list[str]) -> list[str]:
    """``spielleiter gm zat NAME -3d``: a time back (``-3d``, ``-1d 6h``) is the ZEIT, not an
    option; it gets a leading space, which argparse does not read as an option and
    :func:`~bot.service.conversations.gmbase.parse_zat` strips."""
    import re
    if len(argv) < 3 or argv[0] != "gm" or argv[1] not in ("zat", "deadline"):
        return argv
    return [f" {a}" if i >= 2 and re.fullmatch(r"-\d+\s*[a-zäöü]+(\s*\d+\s*[a-zäöü]+)*", a, re.I) else a
            for i, a in enumerate(argv)]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(_negative_times(list(sys.argv[1:] if argv is None else argv)))
    args.debug = getattr(args, "debug", False)
    cfg = None
    if args.debug:
        logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        cfg = load_config(getattr(args, "config", None))
        return int(args.func(args, cfg) or 0)
    except ConfigError as exc:
        print(f"Konfiguration: {exc}", file=sys.stderr)
        return 2
    except ServerFailure as exc:
        return report_failure(exc, args)
    except BrokenPipeError:  # e.g. `spielleiter lexicon export | head`: the reader has gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:
        from bot.service.domain.league import LeagueError  # deferred: loaded when the command runs
        from bot.storage.db import EXIT_DATABASE, database_failure  # deferred: loaded when the command runs
        if isinstance(exc, LeagueError):
            print(f"Fehler: {exc}", file=sys.stderr)
            return 2
        failure = database_failure(exc, cfg.database_url) if cfg is not None else None
        if failure is not None:  # the database is down: one line, its own exit status
            if args.debug:
                traceback.print_exception(exc, file=sys.stderr)
            print(failure.line(), file=sys.stderr)
            return EXIT_DATABASE
        raise


if __name__ == "__main__":
    sys.exit(main())

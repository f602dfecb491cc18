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
import json
import logging
import os
import sys
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

from bot.config import load_config
from bot.errors import ConfigError
from bot.render import format_zat
from bot.crash import crashpoint
from bot.mail.transport import ServerFailure


def exit_status(exc: ServerFailure) -> int:
    """The exit status for a mail server failure: IMAP 10-17, SMTP 20-27 (module docstring)."""
    return (10 if exc.service == "imap" else 20) + ServerFailure.KINDS.index(exc.kind)


def _report(exc: ServerFailure, args=None) -> int:
    """Print the failure's one line (with ``--debug`` the traceback too); its exit status."""
    if getattr(args, "debug", False):
        traceback.print_exception(exc, file=sys.stderr)
    print(exc.line(), file=sys.stderr)
    return exit_status(exc)


def _db(cfg, migrate: bool = True):
    from bot.storage.db import Database  # deferred: loaded when the command runs
    db = Database(cfg.database_url)
    if migrate:
        db.migrate()
    return db


def _deliver(db, cfg, args=None) -> int:
    """Deliver the outbox; print what happened to stderr. Returns 0, or the exit status
    of the SMTP failure that kept mails queued."""
    from bot.service.operations.mailer import transports  # deferred: loaded when the command runs
    from bot.service.stages.outbox import deliver  # deferred: loaded when the command runs
    _, sender = transports(cfg)
    done = deliver(db, sender, cfg)
    if done.sent or done.failed:
        print(f"Postausgang: {done.sent} gesendet, {done.failed} fehlgeschlagen.", file=sys.stderr)
    if done.problem is not None:
        status = _report(done.problem, args)
        print(f"Postausgang: {done.waiting} Mail(s) warten und gehen beim nächsten Lauf hinaus "
              "(spielleiter outbox zeigt sie).", file=sys.stderr)
        return status
    if done.paused_until is not None:
        from bot.render import format_zat  # deferred: loaded when the command runs
        print(f"Postausgang: {done.waiting} Mail(s) warten wegen der Versandgrenzen ([smtp] max_per_*); "
              f"die nächste darf ab {format_zat(done.paused_until, cfg.timezone)} hinaus "
              "(spielleiter run sendet sie dann).", file=sys.stderr)
    return 0


def cmd_init(args, cfg) -> int:
    _db(cfg)
    if cfg.maildir:
        from bot.mail.maildir import MaildirTransport  # deferred: loaded when the command runs
        MaildirTransport(cfg.maildir)
    print(f"Datenbank bereit: {cfg.database_url}")
    return 0


def cmd_league_create(args, cfg) -> int:
    from bot.render import format_zat  # deferred: loaded when the command runs
    from bot.service.operations.league import create_league, read_league_file  # deferred: loaded when the command runs
    spec = read_league_file(args.file)
    db = _db(cfg)
    with db.session() as s:
        league = create_league(s, spec, cfg)
        n = len(league.partien)
        print(f"Liga {league.name} angelegt: {n} {'Partie' if n == 1 else 'Partien'}, {len(league.players)} "
              f"Spieler, erster ZAT {format_zat(league.first_zat, league.timezone)}.")
    return _deliver(db, cfg, args)


def _poll(db, cfg, args) -> tuple[int | None, int]:
    """Poll the inbox; returns (mails stored or None, exit status). A failure is printed."""
    from bot.service.operations.runner import poll_inbox  # deferred: loaded when the command runs
    try:
        return poll_inbox(db, cfg), 0
    except ServerFailure as exc:
        return None, _report(exc, args)


def cmd_poll(args, cfg) -> int:
    from bot.service.stages.reminders import send_reminders  # deferred: loaded when the command runs
    db = _db(cfg)
    n, status = _poll(db, cfg, args)
    if n is not None:
        print(f"{n} neue Mail(s) gespeichert.")
    send_reminders(db, cfg)
    sent = _deliver(db, cfg, args)  # the outbox goes out whether or not the inbox could be read
    return status or sent


def cmd_ingest(args, cfg) -> int:
    """Feed .eml files as the poller would; ``--dry-run`` stores nothing (see bot.service.operations.ingest)."""
    from bot.service.operations.ingest import ingest, print_reports  # deferred: loaded when the command runs
    mails = []
    for f in args.files:
        try:
            mails.append((f, sys.stdin.buffer.read() if f == "-" else Path(f).read_bytes()))
        except OSError as exc:
            print(f"Fehler: {f}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    db = _db(cfg)
    if not args.dry_run:
        from bot.service.conversations.intake import process_pending  # deferred: loaded when the command runs
        process_pending(db, cfg)
    print_reports(ingest(db, cfg, mails, dry_run=args.dry_run), as_json=args.json, out=sys.stdout)
    if not args.dry_run:
        return _deliver(db, cfg, args)
    return 0


def cmd_adjudicate(args, cfg) -> int:
    from bot.service.conversations.gmbase import partien_words  # deferred: loaded when the command runs
    from bot.service.stages.rounds import adjudicate_league  # deferred: loaded when the command runs
    db = _db(cfg)
    # first read what is in the inbox: mail sent before the ZAT counts; if the inbox cannot
    # be read, the round is adjudicated with what is stored and the GM's copy says so
    try:
        from bot.service.operations.runner import poll_inbox  # deferred: loaded when the command runs
        poll_inbox(db, cfg)
        status, note = 0, None
    except ServerFailure as exc:
        status = _report(exc, args)
        note = (f"Der Posteingang konnte vor der Auswertung nicht gelesen werden ({exc.line()}). Ausgewertet "
                "wurde, was bis dahin gespeichert war; Züge, die noch auf dem Server liegen, fehlen. Wenn nötig "
                "nach dem nächsten Abruf mit ZURUECK zurücknehmen und neu auswerten.")
    res = adjudicate_league(db, cfg, args.name, datetime.now(timezone.utc), force=args.now, gm_note=note)
    if res is None:
        print(f"{args.name}: der ZAT ist noch nicht erreicht (mit --now sofort auswerten).")
        sent = _deliver(db, cfg, args)  # Auswertungen left in the outbox by a crashed earlier run
        return status or sent
    crashpoint("after-adjudicate")
    print(f"{res['league']}, Runde {res['round']} ausgewertet: {partien_words(res['partien'])}.")
    sent = _deliver(db, cfg, args)
    _refresh_archive(db, cfg)
    return status or sent


def cmd_show(args, cfg) -> int:
    from bot.service.presentation.view import league_view  # deferred: loaded when the command runs
    db = _db(cfg)
    view = league_view(db, args.name)
    if args.json:
        print(json.dumps(view, ensure_ascii=False, indent=2))
        return 0
    of = f" von {view['rounds']}" if view.get("rounds_fixed", True) else ""
    state = view.get("paused_text") or {"running": "läuft", "finished": "beendet"}.get(view["status"], view["status"])
    print(f"{view['league']} ({view['game']}), Runde {view['round']}{of}, "
          f"Status {state}, nächster ZAT {view['next_zat_local'] or '-'}")
    for p in view["partien"]:  # the game's own picture with every private part (GameRules.gm_picture)
        first, *rest = p["picture"] or [""]
        print(f"  Partie {p['name']}: {first}")
        for line in rest:
            print(f"      {line}")
    for r in view["standings"]:
        print(f"  {r['rank']:>2}. {r['name']:<24} {r['points']:>5}")
    for b in view.get("bouncing", []):
        print(f"  unzustellbar seit {_local(b['since'], view['timezone'])}: {b['player']} <{b['address']}> ({b['reason']})")
    for c in view.get("address_changes", []):
        print(f"  Adressänderung wartet seit {_local(c['since'], view['timezone'])}: {c['name']} <{c['old_address']}> -> "
              f"<{c['new_address']}> (Bitte von {c['from']}; spielleiter gm adresse {view['league']} ok|nein "
              f"'{c['name']}')")
    return 0


def _local(iso: str, tz: str) -> str:
    """An ISO time of ``show --json`` as ``show`` prints it: the league's local time with zone."""
    from datetime import datetime
    return format_zat(datetime.fromisoformat(iso), tz)


def cmd_run(args, cfg) -> int:
    from bot.service.operations.runner import Service  # deferred: loaded when the command runs
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.debug:  # the migrations' "Context impl ...", "Running upgrade ..." lines (issue 33)
        logging.getLogger("alembic").setLevel(logging.WARNING)
    db = _wait_for_database(cfg)
    Service(db, cfg).start()
    return 0


def _wait_for_database(cfg):
    """The service's database, created or migrated; while it is unreachable the service
    waits (one line, backoff, one line when it is back) instead of exiting, as it does
    for an outage later on."""
    from bot.service.operations.health import Outage  # deferred: loaded when the command runs
    from bot.storage.db import database_failure  # deferred: loaded when the command runs
    outage = Outage("Datenbank", cfg.poll_interval)
    while True:
        try:
            db = _db(cfg)
        except Exception as exc:
            failure = database_failure(exc, cfg.database_url)
            if failure is None:
                raise
            time.sleep(outage.failed(failure))
            continue
        outage.succeeded()
        return db


def cmd_archive(args, cfg) -> int:
    """Write the static archive (see bot.service.presentation.archive)."""
    from bot.service.presentation.archive import ArchiveError, build_archive  # deferred: loaded when the command runs
    out = args.out or cfg.archive_path
    if not out:
        print("Fehler: wohin? --out ORDNER angeben oder [archive] path in der Konfiguration.", file=sys.stderr)
        return 2
    db = _db(cfg)
    try:
        res = build_archive(db, out, args.league, pdf=args.pdf)
    except ArchiveError as exc:
        print(f"Fehler: {exc}", file=sys.stderr)
        return 2
    print(f"Archiv {out}: {len(res.written)} Dateien geschrieben, {res.unchanged} unverändert, "
          f"{len(res.removed)} entfernt.")
    return 0


def _refresh_archive(db, cfg) -> None:
    """After a command that may have adjudicated or changed a round: the archive at
    ``[archive] path`` follows (only when something changed)."""
    if cfg.archive_path:
        from bot.service.presentation.archive import refresh_archive  # deferred: loaded when the command runs
        refresh_archive(db, cfg)


def cmd_demo(args, cfg) -> int:
    from bot.demo import run_demo  # deferred: loaded when the command runs
    return run_demo(out=Path(args.out) if args.out else None, rounds=args.rounds, seed=args.seed)


def cmd_lexicon_build(args, cfg) -> int:
    from bot.lexicon import cli_build  # deferred: loaded when the command runs
    return cli_build(cfg.lexicon_dir, source=args.source)


def cmd_lexicon_check(args, cfg) -> int:
    from bot.lexicon import cli_check  # deferred: loaded when the command runs
    if args.league:  # the league's word lists (its options: e.g. RONDO's dictionary) and its GM lists
        from bot.service.domain.league import find_league, league_lexicon  # deferred: loaded when the command runs
        db = _db(cfg)
        with db.session() as s:
            verdict = league_lexicon(find_league(s, args.league), cfg).check(args.word)
        print(verdict.reason)
        return 0 if verdict.valid else 1
    return cli_check(args.word, game=args.game or "rondo", cache_dir=cfg.lexicon_dir)


def cmd_lexicon_export(args, cfg) -> int:
    """Print the game's whole word list, one word a line (with a league's lists if given)."""
    from bot.lexicon import alphabet_for_game, load  # deferred: loaded when the command runs
    if args.league:  # the league's word lists (its options) and its GM lists
        from bot.service.domain.league import find_league, league_lexicon  # deferred: loaded when the command runs
        db = _db(cfg)
        with db.session() as s:
            lex = league_lexicon(find_league(s, args.league), cfg)
    else:
        lex = load(alphabet_for_game(args.game or "rondo").name, cfg.lexicon_dir)
    out = sys.stdout
    for word in lex.words():
        out.write(word + "\n")
    return 0


def cmd_gm(args, cfg) -> int:
    """``spielleiter gm OP NAME ...``: the game master's operations (see bot.service.conversations.gm)."""
    from bot.service.conversations.gm import run_cli  # deferred: loaded when the command runs
    db = _db(cfg)
    kw = {k: getattr(args, k) for k in ("when", "word", "player", "partie", "moves", "text", "mode",
                                            "decision", "alle", "still")
          if getattr(args, k, None)}
    for k in ("when", "text"):
        if isinstance(kw.get(k), list):
            kw[k] = " ".join(kw[k])
    if kw.get("text") == "-":
        kw["text"] = sys.stdin.read()
    with db.session() as s:
        done = run_cli(s, cfg, args.gm_command, args.name, **kw)
    print(done)
    sent = _deliver(db, cfg, args)
    _refresh_archive(db, cfg)
    return sent


def cmd_outbox(args, cfg) -> int:
    """List the mails waiting in the outbox (pending, held, failed), or those of ``--status``."""
    from bot.service.stages.outbox import WAITING, outbox_rows  # deferred: loaded when the command runs
    statuses = WAITING if not args.status else \
        ("pending", "held", "failed", "sent") if args.status == "all" else (args.status,)
    rows = outbox_rows(_db(cfg), league=args.league, statuses=statuses)
    if args.json:
        for r in rows:
            print(json.dumps({k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()},
                             ensure_ascii=False))
        return 0
    if not rows:
        print("Der Postausgang ist leer." if not args.status else f"Keine Mail mit Status {args.status}.")
        return 0
    for r in rows:
        print(f"{r['id']:>5}  {r['status']:<7} {r['attempts']:>2} Versuch(e)  {r['to']}  \"{r['subject']}\"  "
              f"[{r['key']}]")
        if r["last_error"]:
            print(f"       letzter Fehler: {r['last_error']}")
    counts = {st: sum(1 for r in rows if r["status"] == st) for st in statuses}
    print(", ".join(f"{n} {st}" for st, n in counts.items() if n))
    return 0


def cmd_outbox_retry(args, cfg) -> int:
    """Queue failed mails again (by id, or every failed one) and deliver."""
    from bot.service.stages.outbox import RequeueError, requeue  # deferred: loaded when the command runs
    if not args.ids and not args.all_failed:
        print("Fehler: welche Mails? IDs angeben (spielleiter outbox zeigt sie) oder --all-failed.",
              file=sys.stderr)
        return 2
    db = _db(cfg)
    try:
        ids = requeue(db, args.ids, all_failed=args.all_failed)
    except RequeueError as exc:
        print(f"Fehler: {exc}", file=sys.stderr)
        return 2
    print(f"{len(ids)} Mail(s) wieder in der Warteschlange" + (f": {', '.join(map(str, ids))}." if ids else "."))
    return _deliver(db, cfg, args)


def cmd_check(args, cfg) -> int:
    """Check config, database, inbox, outbox server and lexicon; one line each."""
    from bot.service.operations.check import run_checks  # deferred: loaded when the command runs
    lines = run_checks(cfg, lambda line: print(line, flush=True),
                       lambda text: print(text, file=sys.stderr, flush=True))
    bad = [ln for ln in lines if ln.status == "FEHLER"]
    if not bad:
        print("Alles bereit.")
        return 0
    print(f"{len(bad)} Prüfung(en) fehlgeschlagen.")
    return 1


def cmd_oauth_login(args, cfg) -> int:
    """Grant the bot OAuth2 access (bot.mail.oauth.login), then log in to IMAP and SMTP
    with it (those that use it). 0 done; 1 no grant stored; a server's failure status."""
    from bot.mail.oauth import OAuthError, login  # deferred: loaded when the command runs
    if cfg.oauth is None:
        raise ConfigError("kein Abschnitt [oauth] in der Konfiguration (siehe docs/operator/oauth2.md).")
    try:
        login(cfg.oauth, out=lambda line: print(line, flush=True))
    except OAuthError as exc:
        print(str(exc) if "OAuth2" in str(exc) else f"OAuth2: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("OAuth2: abgebrochen; nichts gespeichert.", file=sys.stderr)
        return 1
    print(f"OAuth2-Zugang gespeichert in {cfg.oauth.token_file} (nur für diesen Benutzer lesbar).", flush=True)
    from bot.service.operations.mailer import transports  # deferred: loaded when the command runs
    poller, sender = transports(cfg)
    for name, what in (("imap", poller), ("smtp", sender)):
        if getattr(what, "oauth", None) is not None:
            print(f"{name.upper()} {what.where}: {what.check()}", flush=True)
    return 0


def cmd_conformance(args, cfg) -> int:
    from bot.conformance import run_conformance  # deferred: loaded when the command runs
    return run_conformance(args.files, sys.stdout)


def cmd_top(args, cfg) -> int:
    from bot.conformance import run_top  # deferred: loaded when the command runs
    return run_top(args.files, sys.stdout)


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
    d.add_argument("--rounds", type=int, default=20)
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
    ck.add_argument("--game", default=None, help="Spiel oder Alphabet (rondo, rondonl, nl, nl-namen ...), Standard rondo")
    ck.add_argument("--league", default=None, help="mit Erlaubt- und Sperrliste dieser Liga")
    ck.set_defaults(func=cmd_lexicon_check)
    ex = lxs.add_parser("export", parents=[common], help="die ganze Wortliste eines Spiels ausgeben, ein Wort je Zeile")
    ex.add_argument("--game", default=None, help="Spiel oder Alphabet (rondo, rondonl, nl, nl-namen ...), Standard rondo")
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
        return _report(exc, args)
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

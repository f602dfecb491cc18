"""The commands of ``spielleiter`` (:mod:`bot.cli`): one ``cmd_<name>(args, cfg)`` each,
returning the exit status; the floors a command needs are imported when it runs
(deferred on purpose, so ``spielleiter --help`` stays quick)."""


from __future__ import annotations

import json
import logging
import sys
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

from bot.errors import ConfigError
from bot.i18n import texts
from bot.render import format_zat
from bot.crash import crashpoint
from bot.mail.transport import ServerFailure


def exit_status(exc: ServerFailure) -> int:
    """The exit status for a mail server failure: IMAP 10-17, SMTP 20-27 (module docstring)."""
    return (10 if exc.service == "imap" else 20) + ServerFailure.KINDS.index(exc.kind)


def report_failure(exc: ServerFailure, args=None) -> int:
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
        status = report_failure(done.problem, args)
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
        return None, report_failure(exc, args)


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
        from bot.service.operations.runner import read_stored  # deferred: loaded when the command runs
        read_stored(db, cfg)
    print_reports(ingest(db, cfg, mails, dry_run=args.dry_run), as_json=args.json, out=sys.stdout)
    if not args.dry_run:
        return _deliver(db, cfg, args)
    return 0


def _period(db, league: str, number: int) -> str:
    """Round ``number`` of ``league`` as the game names it, German (the operator's tool):
    "Runde 3", in a game of turns "Zug 2" or "Eröffnung"."""
    from bot.games import get_game  # deferred: loaded when the command runs
    from bot.service.domain.league import find_league
    from bot.service.presentation.archive_info import period_label
    with db.session() as s:
        return period_label(get_game(find_league(s, league).game), number, "de")


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
        status = report_failure(exc, args)
        note = lambda lang, exc=exc: texts(lang).gettext(  # noqa: E731 (in the GM's language)
            "Der Posteingang konnte vor der Auswertung nicht gelesen werden ({error}). Ausgewertet wurde, was "
            "bis dahin gespeichert war; Züge, die noch auf dem Server liegen, fehlen. Wenn nötig nach dem "
            "nächsten Abruf mit ZURUECK zurücknehmen und neu auswerten.", error=exc.line(lang))
    res = adjudicate_league(db, cfg, args.name, datetime.now(timezone.utc), force=args.now, gm_note=note)
    if res is None:
        print(f"{args.name}: der ZAT ist noch nicht erreicht (mit --now sofort auswerten).")
        sent = _deliver(db, cfg, args)  # Auswertungen left in the outbox by a crashed earlier run
        return status or sent
    crashpoint("after-adjudicate")
    print(f"{res['league']}, {_period(db, res['league'], res['round'])} ausgewertet: "
          f"{partien_words(res['partien'])}.")
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
    # the operator's tool: German; the round as the game names it ("Zug 3" in a game of turns)
    of = f" von {view['rounds']}" if view.get("rounds_fixed", True) and view["period"].startswith("Runde") else ""
    state = view.get("paused_text") or {"running": "läuft", "finished": "beendet"}.get(view["status"], view["status"])
    print(f"{view['league']} ({view['game']}), {view['period']}{of}, "
          f"Status {state}, nächster ZAT {view['next_zat_local'] or '-'}"
          + (f" ({view['zat_waits']})" if view.get("zat_waits") and view["next_zat_local"] else ""))
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
    return run_demo(out=Path(args.out) if args.out else None, rounds={"Demo-Rondo": args.rounds}, seed=args.seed)


def cmd_lexicon_build(args, cfg) -> int:
    from bot.lexicon import cli_build  # deferred: loaded when the command runs
    status = cli_build(cfg.lexicon_dir, source=args.source, layers=game_layers())
    if status == 0:
        prepare_gaddags(cfg.lexicon_dir, source=args.source)
    return status


def prepare_gaddags(lexicon_dir=None, source: str | None = None) -> list[dict]:
    """After the word lists are built: the GADDAG file (:func:`bot.games.gaddag.prepare`) of
    every game's word list whose game reads it over one (``GameRules.search_gaddag``;
    Typ-Dom), with ``source`` only those of that source dictionary.  It goes where the
    turns look it up, beside the word graph (the default lexicon cache,
    :func:`bot.lexicon.default_cache_dir`).  Prints one line each; returns the stats."""
    from bot.games.gaddag import prepare  # deferred: loaded when the command runs
    from bot.games.registry import GAME_CLASSES, get_game  # deferred: loaded when the command runs
    from bot.lexicon import get_alphabet, load  # deferred: loaded when the command runs
    out, seen = [], []
    for name in GAME_CLASSES:
        game = get_game(name)
        key = (game.alphabet, game.word_rules)
        if not game.search_gaddag or key in seen:
            continue
        seen.append(key)
        if source is not None and get_alphabet(game.alphabet).source != source:
            continue
        st = prepare(load(game.alphabet, lexicon_dir, game.word_rules))
        print(f"Suchgraph (GADDAG) {game.alphabet}: {st['nodes']} Knoten (nodes), "
              f"{'gebaut' if st['built'] else 'aktuell'} ({'built' if st['built'] else 'current'}) "
              f"in {st['seconds']:.1f} s -> {st['path']}")
        out.append(st)
    return out


def game_layers() -> dict:
    """The build-time word-rule layers of every registered game, by the name its alphabet
    gives them (``Alphabet.rules``; Typ-Dom's ``typdom``): what ``lexicon build`` passes
    to the lexicon, which knows no game."""
    from bot.games.registry import GAME_CLASSES, get_game  # deferred: loaded when the command runs
    from bot.lexicon import get_alphabet  # deferred: loaded when the command runs
    from bot.lexicon.rules import layers_of  # deferred: loaded when the command runs
    layers: dict = {}
    for name in GAME_CLASSES:
        game = get_game(name)
        for alpha in {game.alphabet, *game.lexicon_alphabets()}:
            layers.update(layers_of(get_alphabet(alpha).rules, game.word_rules))
    return layers


def cmd_lexicon_check(args, cfg) -> int:
    from bot.lexicon import cli_check  # deferred: loaded when the command runs
    if args.league:  # the league's word lists (its options: e.g. RONDO's dictionary) and its GM lists
        from bot.service.domain.league import find_league, league_lexicon  # deferred: loaded when the command runs
        db = _db(cfg)
        with db.session() as s:
            verdict = league_lexicon(find_league(s, args.league), cfg).check(args.word)
        print(verdict.reason)
        return 0 if verdict.valid else 1
    found = _game_words(args.game)
    if found is None:
        return 2
    return cli_check(args.word, found[0], cache_dir=cfg.lexicon_dir, rules=found[1])


def _game_words(name: str | None):
    """``(alphabet, word rules)`` of ``--game NAME``: a game's (asked of the game:
    ``GameRules.alphabet``, ``word_rules``) or an alphabet's own (``nl-namen``, no rules);
    None, after a German line on stderr, when NAME is missing or unknown (there is no
    default game)."""
    from bot.games.registry import GAME_CLASSES, get_game  # deferred: loaded when the command runs
    from bot.lexicon import ALPHABETS  # deferred: loaded when the command runs
    if name in GAME_CLASSES:
        game = get_game(name)
        return game.alphabet, game.word_rules
    if name in ALPHABETS:
        return name, None
    known = ", ".join(sorted(GAME_CLASSES))
    print(f"Unbekanntes Spiel {name!r} (bekannt: {known}; oder ein Alphabet: {', '.join(ALPHABETS)})."
          if name else f"Welches Spiel? --game SPIEL oder --league LIGA angeben (Spiele: {known}).",
          file=sys.stderr)
    return None


def cmd_lexicon_export(args, cfg) -> int:
    """Print the game's whole word list, one word a line (with a league's lists if given)."""
    from bot.lexicon import load  # deferred: loaded when the command runs
    if args.league:  # the league's word lists (its options) and its GM lists
        from bot.service.domain.league import find_league, league_lexicon  # deferred: loaded when the command runs
        db = _db(cfg)
        with db.session() as s:
            lex = league_lexicon(find_league(s, args.league), cfg)
    else:
        found = _game_words(args.game)
        if found is None:
            return 2
        lex = load(found[0], cfg.lexicon_dir, found[1])
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
    """Grant the bot OAuth2 access (bot.mail.oauth_login.login), then log in to IMAP and SMTP
    with it (those that use it). 0 done; 1 no grant stored; a server's failure status."""
    from bot.mail.oauth import OAuthError  # deferred: loaded when the command runs
    from bot.mail.oauth_login import login  # deferred: loaded when the command runs
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

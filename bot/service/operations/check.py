"""``spielleiter check``: is the configuration usable? For the game master after editing it.

Each check gives one line (``OK``/``FEHLER``/``WARNUNG``, what, detail) and nothing is
sent: the config file (every section and key known, every value of the right type), the
database (reachable, schema current), the inbox (IMAP: login, folder exists, processed
folder there or created; Maildir: folders writable), whether our receiving server vouches
for senders (the newest mails' ``Authentication-Results``, read-only:
:func:`check_authserv`), the outbox server (SMTP: connect, EHLO, STARTTLS/TLS, AUTH when a
user is set; QUIT before MAIL), the OAuth2 token file when ``[oauth]`` is set, and the
word lists of every game (built, loadable).
"""

from __future__ import annotations
from collections import Counter

import os
import time
import re
import tomllib
from dataclasses import dataclass
from typing import Callable

from bot.config import Config, problems
from bot.games.registry import GAME_CLASSES, get_game
from bot.lexicon import load
from bot.lexicon.cache import is_built
from bot.mail.auth import topmost_authserv_ids
from bot.mail.message import raw_headers
from bot.mail.oauth import TokenSource
from bot.mail.transport import ServerFailure
from bot.service.operations.mailer import transports
from bot.service.stages.quota import Limits
from bot.storage.db import alembic_config, make_engine


@dataclass
class CheckLine:
    """One check's outcome: ``status`` is ``OK``, ``FEHLER`` or ``WARNUNG``."""

    status: str
    what: str
    detail: str
    failure: ServerFailure | None = None

    def __str__(self) -> str:
        return f"{self.status:<7} {self.what}: {self.detail}"


def check_config_file(cfg: Config) -> list[CheckLine]:
    """Unknown sections and keys (typos) and wrong types, each named with section and key."""
    if cfg.source is None:
        return [CheckLine("OK", "Konfiguration", "keine Datei: eingebaute Vorgabe (SQLite und Maildir in ./var)")]
    data = tomllib.loads(cfg.source.read_text(encoding="utf-8"))
    wrong = problems(data)
    if not wrong:
        return [CheckLine("OK", "Konfiguration", str(cfg.source))]
    return [CheckLine("FEHLER", "Konfiguration", w) for w in wrong]


def check_database(cfg: Config) -> CheckLine:
    """Connect and compare the schema revision with the newest migration (changes nothing)."""
    # deferred on purpose: Alembic loads only when the schema is migrated or checked
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    shown = cfg.database_url.split("@")[-1] if "@" in cfg.database_url else cfg.database_url
    try:
        head = ScriptDirectory.from_config(alembic_config(cfg.database_url)).get_current_head()
        engine = make_engine(cfg.database_url)
        try:
            with engine.connect() as conn:
                current = MigrationContext.configure(conn).get_current_revision()
        finally:
            engine.dispose()
    except Exception as exc:
        return CheckLine("FEHLER", "Datenbank", f"{shown}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if current == head:
        return CheckLine("OK", "Datenbank", f"{shown} (Schema {current}, aktuell)")
    if current is None:
        return CheckLine("WARNUNG", "Datenbank", f"{shown}: noch leer; spielleiter init legt sie an")
    return CheckLine("WARNUNG", "Datenbank", f"{shown}: Schema {current}, aktuell ist {head}; spielleiter init "
                                             "bringt sie auf den neuesten Stand")


def check_inbox(cfg: Config, poller) -> CheckLine:
    """IMAP: log in, the folder exists, the processed folder exists or is created.
    Maildir: the folders exist or can be made, and are writable."""
    if cfg.imap is None:
        path = cfg.maildir
        bad = [str(path / sub) for sub in ("inbox", "processed", "outbox")
               if not (path / sub).is_dir() or not os.access(path / sub, os.W_OK)]
        if bad:
            return CheckLine("FEHLER", "Maildir", "nicht beschreibbar: " + ", ".join(bad))
        return CheckLine("OK", "Maildir", str(path))
    try:
        return CheckLine("OK", "IMAP", poller.check())
    except ServerFailure as exc:
        return CheckLine("FEHLER", "IMAP", exc.line().removeprefix("IMAP "), exc)


#: How many of the newest mails :func:`check_authserv` reads.
NEWEST = 5


def check_authserv(cfg: Config, poller, n: int = NEWEST) -> CheckLine:
    """Does our receiving mail server vouch for senders? Reads the header blocks of the
    ``n`` newest mails of the inbox (IMAP: the folder, then the processed folder; Maildir:
    ``inbox``, then ``processed``; read-only, nothing is moved or marked read) and finds the
    authserv-id of each mail's topmost ``Authentication-Results`` (the one the last
    server, ours, added; RFC 8601). Says what to set (``[bot] authserv_id = "..."``):

    - ``OK``: the configured id is on top of every mail read;
    - ``FEHLER``: no mail carries the configured id, most carry one other id on top (a
      typo: the server's verdicts are never read);
    - ``WARNUNG``: no mail to read yet, no ``Authentication-Results`` at all or only ones
      without an authserv-id (Microsoft writes ``Authentication-Results: spf=...``; only
      personal codes stop a forged sender then), an id found but none configured, or the
      mails disagree. Names no sender (the operator's terminal is no place for players'
      addresses)."""

    what = "Absenderprüfung"
    try:
        heads = poller.newest(n)
    except ServerFailure as exc:
        return CheckLine("WARNUNG", what, "Postfach nicht lesbar: " + exc.line(), exc)
    ours = (cfg.authserv_id or "").strip().lower() or None
    setting = f'[bot] authserv_id = "{ours}"' if ours else "[bot] authserv_id"
    if not heads:
        return CheckLine("WARNUNG", what, "noch keine Mail im Postfach: ob der Mailserver Authentication-Results "
                                          "schreibt, zeigt spielleiter check nach der ersten Mail")
    tops, dmarc = [], 0
    for head in heads:
        hdr = raw_headers(head)
        ids = topmost_authserv_ids(hdr)
        tops.append(ids[0] if ids else None)
        if ids and ids[0] == (ours or ids[0]):
            value = str((hdr.get_all("Authentication-Results") or [""])[0])
            dmarc += bool(re.search(r"(?i)\bdmarc\s*=", value))
    k = len(heads)
    found = Counter(t for t in tops if t)
    with_dmarc = "" if not found else f", mit DMARC-Ergebnis in {dmarc} davon" if dmarc else \
        (", ohne DMARC-Ergebnis (nur SPF/DKIM: ein gefälschter Absender fällt nur auf, wenn SPF scheitert und "
         "keine DKIM-Signatur seiner Domain passt)")
    codes_only = "gefälschte Absender hält nur der persönliche Code auf (require_code in der Ligadatei)"
    if not found:
        return CheckLine("WARNUNG", what, f"keine der {k} neuesten Mails trägt Authentication-Results: der "
                                          "Mailserver prüft Absender nicht (oder schreibt es nicht dazu); "
                                          + codes_only
                         + (f"; {setting} wird nie gefunden" if ours else ""))
    if all("=" in i for i in found):  # "Authentication-Results: spf=pass ...": no authserv-id (Microsoft)
        return CheckLine("WARNUNG", what, f"die Authentication-Results der neuesten Mails ({sum(found.values())} "
                                          f"von {k}) tragen keine authserv-id (sie beginnen gleich mit dem Ergebnis, "
                                          f"wie bei Microsoft): [bot] authserv_id lässt sich damit nicht nutzen; "
                                          f"{codes_only}")
    best, best_n = found.most_common(1)[0]
    share = f"in {found.get(ours or best, 0)} von {k} neuesten Mails"
    if ours and found.get(ours, 0) == k:
        return CheckLine("OK", what, f"{setting}: Authentication-Results von {ours} {share}{with_dmarc}")
    if ours and ours not in found and 2 * best_n > k:
        most = f"die {k} neuesten Mails tragen" if best_n == k else f"{best_n} der {k} neuesten Mails tragen"
        return CheckLine("FEHLER", what, f"{setting}, aber {most} oben Authentication-Results "
                                         f'von {best}: setze [bot] authserv_id = "{best}"')
    if ours:
        return CheckLine("WARNUNG", what, f"{setting}: Authentication-Results von {ours} nur {share} (oben: "
                         + ", ".join(f"{i} {c}x" for i, c in found.most_common(3))
                         + f", ohne {k - sum(found.values())}x); prüf, ob alle Mails über diesen Server kommen")
    if best_n == k:
        return CheckLine("WARNUNG", what, f"der Mailserver {best} schreibt Authentication-Results (in {k} von {k} "
                                          f'neuesten Mails{with_dmarc}): setze [bot] authserv_id = "{best}", damit '
                                          "der Bot gefälschte Absender erkennt")
    return CheckLine("WARNUNG", what, "Authentication-Results uneinheitlich (oben: "
                     + ", ".join(f"{i} {c}x" for i, c in found.most_common(3))
                     + f", ohne {k - sum(found.values())}x von {k}): vermutlich [bot] authserv_id = \"{best}\"; "
                       "erst setzen, wenn alle Mails über diesen Server kommen")


def check_outbox(cfg: Config, sender) -> CheckLine:
    """SMTP: connect, EHLO, TLS, AUTH when configured; nothing is sent. The OK line also
    names the send limits (``[smtp] max_per_*``)."""
    if cfg.smtp is None:
        return CheckLine("OK", "Versand", f"Maildir {cfg.maildir / 'outbox'}")
    try:
        return CheckLine("OK", "SMTP", f"{sender.host}:{sender.port}, {sender.check()}, "
                                       f"Versandgrenzen {Limits.from_config(cfg).text()}")
    except ServerFailure as exc:
        return CheckLine("FEHLER", "SMTP", exc.line().removeprefix("SMTP "), exc)


def check_oauth(cfg: Config) -> CheckLine | None:
    """The OAuth2 token file (``[oauth]``): there, 0600, until when valid, refresh token;
    None without ``[oauth]``. Renews nothing (the IMAP and SMTP logins do)."""
    if cfg.oauth is None:
        return None
    ok, text = TokenSource(cfg.oauth).describe()
    used = any((table or {}).get("auth") == "oauth2" for table in (cfg.imap, cfg.smtp))
    if not used:  # [oauth] set up, but IMAP and SMTP still log in with the password
        return CheckLine("OK" if ok else "WARNUNG", "OAuth2", text + " (nicht benutzt: [imap]/[smtp] auth = \"oauth2\")")
    return CheckLine("OK" if ok else "FEHLER", "OAuth2", text)


def check_lexicon(cfg: Config, progress: Callable[[str], None] | None = None) -> list[CheckLine]:
    """Every game's word list is built (or is built now) and loads. ``progress`` is told,
    before a word list is built (seconds, once per dictionary), which one and from what,
    and afterwards how long it took (issue 33: ``check`` was silent for 22 s)."""
    out, seen = [], set()
    for game in sorted(GAME_CLASSES):
        try:
            rules = get_game(game)  # the game names its word list: alphabet and word rules
            alpha = rules.alphabet
            if alpha in seen:
                continue
            seen.add(alpha)
            building = progress is not None and not is_built(alpha, cfg.lexicon_dir)
            if building:
                progress(f"Lexikon {alpha}: die Wortliste wird gebaut (einmalig, dauert einige Sekunden) ...")
                t0 = time.perf_counter()
            lex = load(alpha, cfg.lexicon_dir, rules.word_rules)
            if building:
                progress(f"Lexikon {alpha}: gebaut in {time.perf_counter() - t0:.0f} s")
            out.append(CheckLine("OK", f"Lexikon {alpha}", f"{len(lex)} Wörter"))
        except Exception as exc:
            out.append(CheckLine("FEHLER", f"Lexikon {game}", f"{exc} (spielleiter lexicon build)"))
    return out


def run_checks(cfg: Config, emit: Callable[[CheckLine], None],
               progress: Callable[[str], None] | None = None) -> list[CheckLine]:
    """Run every check in order, calling ``emit`` with each line as it is known; returns
    all lines. ``progress``: told what takes long while it runs (a word list being built).
    Nothing is sent and no mail is moved."""
    lines: list[CheckLine] = []

    def add(line: CheckLine) -> None:
        lines.append(line)
        emit(line)

    for line in check_config_file(cfg):
        add(line)
    add(check_database(cfg))
    poller, sender = transports(cfg)
    oauth = check_oauth(cfg)
    if oauth is not None:
        add(oauth)
    inbox = check_inbox(cfg, poller)
    add(inbox)
    if inbox.status == "OK":
        add(check_authserv(cfg, poller))
    add(check_outbox(cfg, sender))
    for line in check_lexicon(cfg, progress):
        add(line)
    return lines

"""Configuration (TOML): ``--config FILE``.

::

    [database]
    url = "sqlite:///var/spielleiter.sqlite"     # or postgresql+psycopg://user:pw@host/db

    [imap]                                        # real mail ...
    host = "imap.example.org"
    port = 993
    user = "spielleiter@example.org"
    password = "..."
    tls = true                                    # true | false | "starttls"
    ca_file = "meine-ca.pem"                      # optional: also trust these certificates
    folder = "INBOX"
    processed_folder = "Spielleiter/Verarbeitet"
    idle = true                                   # IMAP IDLE in ``run`` when the server has it

    [smtp]
    host = "smtp.example.org"
    port = 587
    user = "spielleiter@example.org"
    password = "..."
    tls = "starttls"
    sender = "Spielleiter <spielleiter@example.org>"
    max_per_minute = 10                           # send limits of the provider (0: none);
    max_per_hour = 100                            # docs/operator/send-limits.md
    max_per_day = 300

    [maildir]                                     # ... or the embedded default: no server
    path = "var/mail"
    sender = "Spielleiter <liga@example.org>"     # From of outgoing mails (default: [bot] sender)

    [bot]
    timezone = "Europe/Berlin"
    poll_interval = 60                            # seconds
    sender = "spielleiter@localhost"              # with [maildir]
    rate_limit_per_hour = 20                      # answers (and notices) per address and hour; 0: no limit
    inbox_alarm_minutes = 60                      # IMAP failing this long: one mail to every GM
    authserv_id = "mx.example.org"                # trust the Authentication-Results of this server (RFC 8601)
    max_mail_bytes = 10485760                     # larger mails: stored cut, answered "zu groß"
    read_workers = 2                              # processes reading MIME of a batch (default: CPUs; 1: off)
    gm_notice_minutes = 3                         # GM notices within this time: one mail per player (0: each at once)

    [lexicon]
    path = "var/lexicon"                          # cache of the built word lists

    [archive]                                     # optional: the static league archive
    path = "/var/www/liga"                        # rewritten after each adjudication
    pdf = false                                   # also A4 PDFs of the round pages

Every section and key the bot knows is in :data:`SCHEMA`; a known key with a wrong type
is a :class:`ConfigError` naming section and key, an unknown key (a typo) is reported by
``spielleiter check`` (:func:`problems`). A new key goes into :data:`SCHEMA`.

``rate_limit_per_hour``: every mail is stored and read; what is capped is what the bot
sends back: at most this many answers and notices per address within an hour, the rest
is summed up in one mail an hour later (a mail with the right personal or GM code is
always answered). ``authserv_id``: the authserv-id (RFC 8601) our receiving mail server
writes into its ``Authentication-Results`` header; unset (default): the header is not
read. ``max_mail_bytes`` (default 10 MiB, at least 64 KiB): a larger mail is stored only
up to this size and answered "zu groß"; of any mail only the first 64 KiB of text are
read for moves. ``read_workers`` (default: the number of CPUs, 1: off): worker
processes that read the MIME of a batch of 20 or more stored mails ahead of the main
process (:mod:`bot.service.stages.readpool`).

``[imap] ca_file`` / ``[smtp] ca_file`` (unset by default): a PEM file of certificates the
bot trusts in addition to the system's CAs when it checks the server's certificate: the
game master's private CA, or the server's self-signed certificate itself. The file must
exist and hold at least one certificate (a :class:`ConfigError` otherwise), and it needs
``tls = true`` or ``"starttls"``. There is no option to switch the check off: the server
name must match the certificate too. (OpenSSL's ``SSL_CERT_FILE`` also works, but it
replaces the system's CAs for both servers.)

``[imap] auth`` / ``[smtp] auth`` = ``"oauth2"`` (default ``"password"``): log in with an
OAuth2 access token (SASL XOAUTH2) instead of the password, from ``[oauth]`` (``provider``
``"microsoft"``, ``"google"`` or ``"generic"``, ``client_id``, ``client_secret`` for
Google, ``tenant`` for Microsoft, ``token_file``, ``scope`` and the endpoints
``token_endpoint``, ``device_endpoint``, ``authorize_endpoint``, ``redirect_uri`` to
override the provider's presets); checked by :func:`bot.mail.oauth.settings_from_config`,
the tokens come from ``spielleiter oauth login`` (docs/operator/oauth2.md).

``[imap] idle`` (default true): ``spielleiter run`` waits in IMAP IDLE for new mail when
the server offers it and reads it at once (:mod:`bot.service.stages.idle`); false: polling
only. ``[smtp] max_per_minute``, ``max_per_hour``, ``max_per_day`` (defaults 10, 100,
300; 0: no limit in that window): the outbox never sends more within any minute, hour or
day (:mod:`bot.service.stages.quota`; the provider's limits: ``docs/operator/send-limits.md``).

Relative paths are relative to the config file. Without a config file the embedded
default is used: SQLite and a Maildir under ``./var``.
"""

from __future__ import annotations

import difflib
import os
import ssl
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from email.utils import parseaddr
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot.errors import ConfigError
from bot.mail.oauth import OAuthSettings, settings_from_config
from bot.mail.transport import ca_file_problem


#: Default of ``[bot] max_mail_bytes`` (10 MiB) and its smallest allowed value (64 KiB).
DEFAULT_MAX_MAIL_BYTES = 10 * 1024 * 1024
MIN_MAX_MAIL_BYTES = 64 * 1024


def _default_workers() -> int:
    """The default of ``[bot] read_workers``: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: the sections and keys of the config file with their types: ``str``, ``int``, ``float``
#: (an int is fine too), ``bool``, or a tuple of allowed values/types
SCHEMA: dict[str, dict[str, Any]] = {
    "database": {"url": str},
    "imap": {"host": str, "port": int, "user": str, "password": str, "tls": (True, False, "starttls"),
             "auth": ("password", "oauth2"),
             "ca_file": str, "folder": str, "processed_folder": str, "timeout": float, "idle": bool},
    "smtp": {"host": str, "port": int, "user": str, "password": str, "tls": (True, False, "starttls"),
             "auth": ("password", "oauth2"),
             "ca_file": str, "sender": str, "timeout": float, "max_per_minute": int, "max_per_hour": int,
             "max_per_day": int},
    "maildir": {"path": str, "sender": str},
    "bot": {"timezone": str, "poll_interval": float, "sender": str, "rate_limit_per_hour": int,
            "inbox_alarm_minutes": float, "authserv_id": str, "max_mail_bytes": int,
            "read_workers": int, "gm_notice_minutes": float},
    "lexicon": {"path": str},
    "archive": {"path": str, "pdf": bool},
    # OAuth2 for [imap]/[smtp] auth = "oauth2" (bot.mail.oauth)
    "oauth": {"provider": ("microsoft", "google", "generic"), "client_id": str, "client_secret": str,
              "tenant": str, "scope": str, "token_file": str, "token_endpoint": str, "device_endpoint": str,
              "authorize_endpoint": str, "redirect_uri": str},
}
_TYPE_NAMES = {str: "ein Text in Anführungszeichen", int: "eine ganze Zahl", float: "eine Zahl",
               bool: "true oder false"}


def _type_problem(want: Any, value: Any) -> str | None:
    if isinstance(want, tuple):
        if any(value is v or (type(value) is type(v) and value == v) for v in want):
            return None
        return "erlaubt sind " + ", ".join('"%s"' % v if isinstance(v, str) else str(v).lower() for v in want)
    ok = (isinstance(value, (int, float)) and not isinstance(value, bool)) if want is float else \
        (isinstance(value, int) and not isinstance(value, bool)) if want is int else isinstance(value, want)
    return None if ok else f"muss {_TYPE_NAMES[want]} sein, nicht {value!r}"


def problems(data: dict[str, Any], *, unknown: bool = True) -> list[str]:
    """What is wrong with the parsed TOML ``data``: one German line per problem, each
    naming section and key (``[smtp] port: muss eine ganze Zahl sein, nicht '587'``).
    ``unknown``: also report sections and keys the bot does not know (typos), with the
    nearest known name."""
    out = []
    for section, table in data.items():
        known = SCHEMA.get(section)
        if known is None:
            if unknown:
                near = difflib.get_close_matches(section, SCHEMA, n=1)
                out.append(f"[{section}]: unbekannter Abschnitt" + (f" (gemeint: [{near[0]}]?)" if near else ""))
            continue
        if not isinstance(table, dict):
            out.append(f"[{section}]: muss ein Abschnitt sein, nicht {table!r}")
            continue
        for key, value in table.items():
            if key not in known:
                if unknown:
                    near = difflib.get_close_matches(key, known, n=1)
                    out.append(f"[{section}] {key}: unbekannter Schlüssel" + (f" (gemeint: {near[0]}?)" if near else ""))
                continue
            why = _type_problem(known[key], value)
            if why:
                out.append(f"[{section}] {key}: {why}")
    tz = data.get("bot", {}).get("timezone") if isinstance(data.get("bot"), dict) else None
    if isinstance(tz, str):
        try:
            ZoneInfo(tz)
        except Exception:
            out.append(f"[bot] timezone: unbekannte Zeitzone {tz!r} (z. B. \"Europe/Berlin\")")
    return out


@dataclass
class Config:
    database_url: str
    timezone: str = "Europe/Berlin"
    poll_interval: float = 60.0
    sender: str = "spielleiter@localhost"
    imap: dict[str, Any] | None = None
    smtp: dict[str, Any] | None = None
    maildir: Path | None = None
    lexicon_dir: Path | None = None
    source: Path | None = None
    #: answers and notices per address within one hour; the rest is summed up an hour later (0: no limit)
    rate_limit_per_hour: int = 20
    #: seconds of IMAP failures before every GM gets one mail about it (``[bot] inbox_alarm_minutes``)
    inbox_alarm_after: float = 3600.0
    #: the folder of the static league archive (``[archive] path``), refreshed by the service
    archive_path: Path | None = None
    #: also write A4 PDFs into the archive (``[archive] pdf``)
    archive_pdf: bool = False
    #: the authserv-id of our receiving server: its Authentication-Results header is trusted (None: not read)
    authserv_id: str | None = None
    #: larger mails are stored cut to this size and answered "zu groß"
    max_mail_bytes: int = DEFAULT_MAX_MAIL_BYTES
    #: worker processes reading stored mails' MIME for a batch (``[bot] read_workers``; 1: none)
    read_workers: int = field(default_factory=lambda: _default_workers())
    #: seconds a game master's notice waits for further ones of its league, merged into one
    #: mail per player (``[bot] gm_notice_minutes``, default 3; 0: each at once; issue 33)
    gm_notice_window: float = 180.0
    extra: dict[str, Any] = field(default_factory=dict)
    #: ``[oauth]`` resolved (:class:`bot.mail.oauth.OAuthSettings`), None without it
    oauth: OAuthSettings | None = None

    @property
    def sender_addr(self) -> str:
        return _addr_of(self.sender)

    @property
    def sender_domain(self) -> str:
        return self.sender_addr.rpartition("@")[2] or "localhost"


@lru_cache(maxsize=64)
def _addr_of(sender: str) -> str:
    """The address of ``sender`` ("Name <addr>"), parsed once (asked for every mail)."""
    return parseaddr(sender)[1] or sender


def _resolve(base: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else (base / p)


def _ca_file(base: Path, section: str, table: dict[str, Any]) -> Path:
    """``[section] ca_file`` resolved against the config's folder, checked: it needs TLS,
    exists and holds at least one PEM certificate. Raises :class:`ConfigError`."""

    value = table["ca_file"]
    if not value.strip():
        raise ConfigError(f"[{section}] ca_file: leer; weglassen oder eine PEM-Datei angeben.")
    if table.get("tls", True if section == "imap" else "starttls") is False:
        raise ConfigError(f"[{section}] ca_file: gilt nur mit TLS; tls = true oder \"starttls\" setzen "
                          "(oder ca_file weglassen).")
    path = _resolve(base, value)
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=str(path))
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise ConfigError(f"[{section}] ca_file {path}: {ca_file_problem(exc)}.") from None
    return path


def embedded(base: Path) -> Config:
    """The embedded default: SQLite and Maildir below ``base``."""
    base = base.resolve()
    return Config(database_url=f"sqlite:///{base / 'spielleiter.sqlite'}", maildir=base / "mail",
                  lexicon_dir=None)


def load_config(path: str | Path | None) -> Config:
    """Read a TOML config; ``None`` gives the embedded default in ``./var``.
    Raises :class:`ConfigError` on missing or contradictory settings."""
    if path is None:
        env = os.environ.get("SPIELLEITER_CONFIG")
        if env:
            path = env
        elif Path("spielleiter.toml").exists():
            path = "spielleiter.toml"
        else:
            return embedded(Path("var"))
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"Konfigurationsdatei {p} nicht gefunden.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: kein gültiges TOML: {exc}") from None
    wrong = problems(data, unknown=False)
    if wrong:
        raise ConfigError(f"{p}: " + "; ".join(wrong))
    base = p.resolve().parent
    db = data.get("database", {})
    url = db.get("url")
    if not url:
        url = f"sqlite:///{base / 'spielleiter.sqlite'}"
    elif url.startswith("sqlite:///") and not url.startswith("sqlite:////"):
        rel = url[len("sqlite:///"):]
        if rel and rel != ":memory:":
            url = f"sqlite:///{_resolve(base, rel)}"
    botsec = data.get("bot", {})
    try:
        rate_limit = int(botsec.get("rate_limit_per_hour", 20))
    except (TypeError, ValueError):
        raise ConfigError("[bot] rate_limit_per_hour muss eine ganze Zahl sein (0: keine Grenze).") from None
    try:
        max_bytes = int(botsec.get("max_mail_bytes", DEFAULT_MAX_MAIL_BYTES))
    except (TypeError, ValueError):
        raise ConfigError("[bot] max_mail_bytes muss eine ganze Zahl sein (Bytes).") from None
    if max_bytes < MIN_MAX_MAIL_BYTES:
        raise ConfigError(f"[bot] max_mail_bytes muss mindestens {MIN_MAX_MAIL_BYTES} sein (64 KiB).")
    try:
        workers = int(botsec.get("read_workers", _default_workers()))
    except (TypeError, ValueError):
        raise ConfigError("[bot] read_workers muss eine ganze Zahl sein (1: kein Lesen in Nebenprozessen).") from None
    if workers < 1:
        raise ConfigError("[bot] read_workers muss mindestens 1 sein (1: kein Lesen in Nebenprozessen).")
    authserv = botsec.get("authserv_id")
    if authserv is not None and (not isinstance(authserv, str) or not authserv.strip()):
        raise ConfigError("[bot] authserv_id muss der Name des eigenen Mailservers sein (Text).")
    cfg = Config(database_url=url, timezone=botsec.get("timezone", "Europe/Berlin"),
                 poll_interval=float(botsec.get("poll_interval", 60)), source=p, rate_limit_per_hour=rate_limit,
                 inbox_alarm_after=60.0 * float(botsec.get("inbox_alarm_minutes", 60)),
                 authserv_id=authserv.strip() if authserv else None, max_mail_bytes=max_bytes,
                 read_workers=workers)
    window = float(botsec.get("gm_notice_minutes", 3))
    if window < 0:
        raise ConfigError("[bot] gm_notice_minutes darf nicht negativ sein (0: jede Mitteilung sofort).")
    cfg.gm_notice_window = 60.0 * window
    if "imap" in data or "smtp" in data:
        if "maildir" in data:
            raise ConfigError("Entweder [imap]/[smtp] oder [maildir] angeben, nicht beides.")
        for sec in ("imap", "smtp"):
            if sec not in data:
                raise ConfigError(f"[{sec}] fehlt (mit [imap] braucht es auch [smtp] und umgekehrt).")
            for key in ("host",):
                if key not in data[sec]:
                    raise ConfigError(f"[{sec}] {key} fehlt.")
        cfg.imap = dict(data["imap"])
        cfg.smtp = dict(data["smtp"])
        for key in ("max_per_minute", "max_per_hour", "max_per_day"):
            if cfg.smtp.get(key, 0) < 0:
                raise ConfigError(f"[smtp] {key} darf nicht negativ sein (0: keine Grenze).")
        for sec, table in (("imap", cfg.imap), ("smtp", cfg.smtp)):
            if "ca_file" in table:
                table["ca_file"] = str(_ca_file(base, sec, table))
        cfg.sender = cfg.smtp.get("sender") or cfg.smtp.get("user") or botsec.get("sender", cfg.sender)
    else:
        md = data.get("maildir", {})
        cfg.maildir = _resolve(base, md.get("path", "mail"))
        cfg.sender = md.get("sender") or botsec.get("sender", cfg.sender)
    cfg.oauth = settings_from_config(data, base, cfg.database_url, p)
    lex = data.get("lexicon", {})
    if "path" in lex:
        cfg.lexicon_dir = _resolve(base, lex["path"])
    arch = data.get("archive", {})
    if "path" in arch:
        cfg.archive_path = _resolve(base, arch["path"])
    cfg.archive_pdf = bool(arch.get("pdf", False))
    cfg.extra = data
    return cfg

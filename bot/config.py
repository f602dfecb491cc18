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
    folder = "INBOX"
    processed_folder = "Spielleiter/Verarbeitet"

    [smtp]
    host = "smtp.example.org"
    port = 587
    user = "spielleiter@example.org"
    password = "..."
    tls = "starttls"
    sender = "Spielleiter <spielleiter@example.org>"

    [maildir]                                     # ... or the embedded default: no server
    path = "var/mail"

    [bot]
    timezone = "Europe/Berlin"
    poll_interval = 60                            # seconds
    sender = "spielleiter@localhost"              # with [maildir]
    rate_limit_per_hour = 20                      # more mails/hour from one address: stored, not answered

    [lexicon]
    path = "var/lexicon"                          # cache of the built word lists

Relative paths are relative to the config file. Without a config file the embedded
default is used: SQLite and a Maildir under ``./var``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from email.utils import parseaddr
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """The configuration file is missing a key or has a wrong value (message names it)."""


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
    #: more mails than this within one hour from one address are stored but not answered (0: no limit)
    rate_limit_per_hour: int = 20
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def sender_addr(self) -> str:
        return parseaddr(self.sender)[1] or self.sender

    @property
    def sender_domain(self) -> str:
        return self.sender_addr.rpartition("@")[2] or "localhost"


def _resolve(base: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else (base / p)


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
    cfg = Config(database_url=url, timezone=botsec.get("timezone", "Europe/Berlin"),
                 poll_interval=float(botsec.get("poll_interval", 60)), source=p, rate_limit_per_hour=rate_limit)
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
        cfg.sender = cfg.smtp.get("sender") or cfg.smtp.get("user") or botsec.get("sender", cfg.sender)
    else:
        md = data.get("maildir", {})
        cfg.maildir = _resolve(base, md.get("path", "mail"))
        cfg.sender = botsec.get("sender", cfg.sender)
    lex = data.get("lexicon", {})
    if "path" in lex:
        cfg.lexicon_dir = _resolve(base, lex["path"])
    cfg.extra = data
    return cfg

"""Engine, sessions and schema migrations (Alembic) for a database URL."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from bot import MIGRATIONS_DIR


def _sqlite_dir(url: str) -> None:
    """Create the folder of a SQLite file (SQLite creates the file, not its folder)."""
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        Path(url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)


def make_engine(url: str) -> Engine:
    """An engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``).
    SQLite gets WAL and foreign keys, and waits for locks instead of failing. In WAL mode
    it commits with ``synchronous=NORMAL``: a commit survives any crash of the bot at
    once (the crash tests kill it at every stage), and reaches the disk by the next
    :meth:`Database.sync` (before a transport moves mail off the server) or checkpoint;
    so a poll of many mails costs one disk flush per batch, not two per mail."""
    _sqlite_dir(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _rec):  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()
        return engine
    return create_engine(url, pool_pre_ping=True)


def _sqlite_file(url: str) -> Path | None:
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return Path(url[len("sqlite:///"):])
    return None


def alembic_config(url: str):
    """The Alembic config for ``url``: the migrations shipped in the package, no ini file."""
    from alembic.config import Config
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the schema of ``url`` to ``revision`` with the Alembic migrations."""
    from alembic import command
    _sqlite_dir(url)  # Alembic opens its own engine
    command.upgrade(alembic_config(url), revision)


class Database:
    """A database URL with its engine and session factory."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def migrate(self) -> None:
        upgrade(self.url)

    def sync(self) -> None:
        """Make every committed transaction durable on disk (power loss included). A
        transport calls it (through the store callback) before it moves or deletes mails
        it has handed over, or remembers them as stored (the IMAP poll state), so a
        stored mail never exists nowhere. SQLite: one ``fsync``
        of the write-ahead log (commits run with ``synchronous=NORMAL``); PostgreSQL
        commits durably already."""
        path = _sqlite_file(self.url)
        if path is None:
            return
        for p in (path.with_name(path.name + "-wal"), path):
            try:
                fd = os.open(p, os.O_RDONLY)
            except FileNotFoundError:
                continue
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on error."""
        with self.sessions() as s:
            with s.begin():
                yield s

    def dispose(self) -> None:
        self.engine.dispose()

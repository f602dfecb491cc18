"""Engine, sessions and schema migrations (Alembic) for a database URL."""

from __future__ import annotations

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
    SQLite gets WAL and foreign keys, and waits for locks instead of failing."""
    _sqlite_dir(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _rec):  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.close()
        return engine
    return create_engine(url, pool_pre_ping=True)


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

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on error."""
        with self.sessions() as s:
            with s.begin():
                yield s

    def dispose(self) -> None:
        self.engine.dispose()

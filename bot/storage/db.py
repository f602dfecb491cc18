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
    SQLite gets WAL and foreign keys, and waits for locks instead of failing. In WAL mode
    it commits with ``synchronous=NORMAL``: a commit survives any crash of the bot at
    once (the crash tests kill it at every stage), and reaches the disk by the next
    durable commit (:meth:`Database.durable_session`, the raw store's batch before a
    transport moves mail off the server) or checkpoint; so a poll of many mails costs one
    disk flush per batch, not two per mail."""
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
    def durable_session(self) -> Iterator[Session]:
        """A session like :meth:`session` whose commit is durable on disk, power loss
        included, when it returns: what a transport needs before it moves or deletes the
        mails it stored (the raw store's batch). SQLite: the transaction commits with
        ``PRAGMA synchronous=FULL`` (SQLite syncs the write-ahead log at that commit, and
        with it every commit before it); every other commit of the bot stays at
        ``NORMAL`` (it survives a crash of the bot at once, a power cut from the next durable
        commit or checkpoint on). PostgreSQL commits durably anyway. Never opens the
        database's files itself: closing a descriptor of them would drop SQLite's POSIX
        locks of the whole process (issue 26)."""
        if not self.is_sqlite:
            with self.session() as s:
                yield s
            return
        with self.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA synchronous=FULL")
            conn.commit()  # no transaction of the connection's own for the session to join
            try:
                with Session(bind=conn, expire_on_commit=False) as s:
                    with s.begin():
                        yield s
            finally:
                conn.exec_driver_sql("PRAGMA synchronous=NORMAL")
                conn.commit()

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on error."""
        with self.sessions() as s:
            with s.begin():
                yield s

    def dispose(self) -> None:
        self.engine.dispose()

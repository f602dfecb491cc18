"""Engine, sessions and schema migrations (Alembic) for a database URL."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from bot import MIGRATIONS_DIR
from bot.errors import ConfigError
from bot.mail.transport import StoreUnavailable

#: The key in ``Session.info`` of the lookups shared by the mails of a batch read in one
#: transaction (:class:`OneTransaction`: the poll and ``spielleiter ingest``): a dict the
#: readers fill, emptied whenever a mail may change what it holds. A session without it
#: (a mail read on its own, :class:`Database`) queries every time.
BATCH = "spielleiter.batch"
#: Set in a batch's shared lookups by a mail that may have changed what they (and the
#: objects loaded for the batch) hold: they are dropped once the mail is done.
STALE = "stale"

#: Exit status of a command that found the database unreachable (IMAP failures are
#: 10-16, SMTP 20-26, see :func:`bot.mail.transport.exit_status`).
EXIT_DATABASE = 30


class DatabaseUnavailable(StoreUnavailable):
    """The database cannot be used now: the server is down or restarting, the connection
    was cut, the SQLite file cannot be opened or stays locked. No mail and no command is at
    fault; the service waits and tries again (:class:`bot.service.operations.health.Outage`), a
    command prints :meth:`line` and exits with :data:`EXIT_DATABASE`.

    ``where``: the database URL without its password; the message is the driver's first
    line. Has the interface of :class:`~bot.mail.transport.ServerFailure` that
    :class:`~bot.service.operations.health.Outage` uses (``line()``, ``kind``, ``KIND_TEXT``)."""

    KIND_TEXT = {"unreachable": "nicht erreichbar"}
    kind = "unreachable"

    def __init__(self, message: str, where: str, sqlite: bool = False) -> None:
        super().__init__(message)
        self.where, self.sqlite = where, sqlite

    def line(self) -> str:
        """One line for the operator: ``Datenbank postgresql+psycopg://bot:***@db:5432/liga
        nicht erreichbar: connection refused (läuft der Server? ...)``"""
        hint = ("Ordner, Rechte und freien Platz prüfen; hält ein anderes Programm die Datei gesperrt?"
                if self.sqlite else "läuft der Server? stimmen Host, Port, Name und Zugang in [database] url?")
        return f"Datenbank {self.where} nicht erreichbar: {self} ({hint})"


def safe_url(url: str) -> str:
    """``url`` with its password as ``***`` (for log lines and messages)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1]


#: Driver messages of errors that are about the statement or the schema, never an outage.
_NOT_OUTAGE = ("no such table", "no such column", "syntax error", "has no column", "does not exist",
               "violates", "constraint")


def database_failure(exc: BaseException, url: str) -> DatabaseUnavailable | None:
    """``exc`` as a :class:`DatabaseUnavailable` when it (or an exception it was raised
    from) says the database of ``url`` cannot be reached or used now: SQLAlchemy's
    ``OperationalError``/``InterfaceError`` (connection refused or cut, server shutting down
    or starting, SQLite file not openable or locked), or a connection invalidated
    mid-statement; None for every other error (a bug, a schema or constraint problem)."""
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, DatabaseUnavailable):
            return exc
        if isinstance(exc, (OperationalError, InterfaceError)) or (
                isinstance(exc, DBAPIError) and exc.connection_invalidated):
            text = str(getattr(exc, "orig", None) or exc).strip()
            if any(t in text.lower() for t in _NOT_OUTAGE) and not getattr(exc, "connection_invalidated", False):
                return None
            first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
            first = first.removeprefix("connection failed: ")
            return DatabaseUnavailable(first[:200], safe_url(url), sqlite=url.startswith("sqlite"))
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


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
    try:
        return create_engine(url, pool_pre_ping=True)
    except ModuleNotFoundError as exc:  # the URL's driver is not installed
        extra = " (scripts/setup installiert ihn, sonst: pip install 'spielleiter[postgres]')" \
            if exc.name == "psycopg" else ""
        raise ConfigError(f"[database] url {safe_url(url)}: der Datenbanktreiber {exc.name} ist nicht "
                          f"installiert{extra}") from None


def alembic_config(url: str):
    """The Alembic config for ``url``: the migrations shipped in the package, no ini file."""
    # deferred on purpose: Alembic loads only when the schema is migrated or checked
    from alembic.config import Config
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the schema of ``url`` to ``revision`` with the Alembic migrations."""
    # deferred on purpose: Alembic loads only when the schema is migrated or checked
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


class OneTransaction:
    """A stand-in for :class:`~bot.storage.db.Database` whose sessions all live in one
    outer transaction on one connection: each ``session()`` is a SAVEPOINT (committed =
    released, failed = rolled back to the savepoint, so one mail that cannot be read
    loses nothing of the others). :meth:`begin` opens the outer transaction,
    :meth:`commit` commits it, :meth:`close` rolls back whatever is left uncommitted and
    releases the connection. On SQLite the driver's own transaction handling is switched
    off so SAVEPOINTs nest correctly (a separate engine: the main one keeps the driver's,
    which ``PRAGMA synchronous`` of a durable commit needs). Use as a context manager.
    With :attr:`savepoints` False a ``session()`` is no savepoint but the outer
    transaction itself, not flushed at its end (the batch's changes are written with
    one flush, :meth:`flush`, or when a query needs them): a failure is left to the
    caller, who rolls the whole transaction back (:meth:`rollback`;
    ``bot.service.conversations.intake.read_batch`` then reads the batch again with
    savepoints).

    The savepoints of one outer transaction are one ORM session's (``begin_nested``): the
    objects a mail loaded stay loaded for the next (the batch's mails, loaded at once with
    :meth:`hold`; the senders' leagues and players), since every change of the batch goes
    through that session. Whatever a mail may have changed otherwise -- a command, which
    may change rounds and Partien with plain statements (it calls
    ``bot.service.conversations.mailctx.forget_batch``), or a failed mail rolled back
    -- expires them all once the mail is done, and empties the shared lookups."""

    #: How SQLite opens the outer transaction: with the write lock at once (``IMMEDIATE``,
    #: waiting for another writer as any write does), so a batch that has read can always
    #: write (a deferred transaction whose snapshot another process has written past
    #: would fail at its first write instead of waiting).
    BEGIN = "BEGIN IMMEDIATE"

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        if url.startswith("sqlite"):
            @event.listens_for(self.engine, "connect")
            def _no_pysqlite_tx(dbapi_conn, _rec):  # pragma: no cover - trivial
                dbapi_conn.isolation_level = None

            @event.listens_for(self.engine, "begin")
            def _begin(conn):  # pragma: no cover - trivial
                conn.exec_driver_sql(self.BEGIN)
        self.conn = self.engine.connect()
        self.outer = None
        #: lookups shared by the mails of the batch (:data:`bot.storage.db.BATCH`):
        #: emptied at :meth:`begin` and whenever a mail may change them (a command, a failure)
        self.batch: dict = {}
        self.sessions = sessionmaker(bind=self.conn, expire_on_commit=False,
                                     join_transaction_mode="create_savepoint")
        self._shared: Session | None = None  # the ORM session of the outer transaction
        #: each :meth:`session` in a SAVEPOINT of its own; False: in the outer transaction
        #: itself, a failure leaves it to the caller to roll back (``ingest``'s first pass)
        self.savepoints = True
        self._held: list = []  # objects kept loaded for the batch (hold)

    def begin(self) -> None:
        """Open the outer transaction (the sessions are savepoints in it)."""
        self.batch.clear()
        self.outer = self.conn.begin()

    def commit(self) -> None:
        """Commit the outer transaction (the ORM session's work in it first)."""
        self.batch.clear()
        self._held.clear()
        if self._shared is not None:
            s, self._shared = self._shared, None
            s.commit()  # releases the session's own savepoint; nothing is left to flush
            s.close()
        self.outer.commit()

    def rollback(self) -> None:
        """Roll the outer transaction back (the ORM session's work with it); :meth:`begin`
        opens the next."""
        self.batch.clear()
        self._held = []
        try:
            if self._shared is not None:
                self._shared.close()
        finally:
            self._shared = None
            self.outer.rollback()

    def hold(self, objects: list) -> None:
        """Keep ``objects`` (loaded in a :meth:`session`) loaded for the batch, instead of
        those held before: the session's identity map holds only what is referenced
        (until :meth:`commit`, or until a mail expires everything)."""
        self._held = list(objects)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """The outer transaction's ORM session in a SAVEPOINT of its own, with the batch's
        shared lookups (``info[bot.storage.db.BATCH]``)."""
        if self._shared is None:
            self._shared = self.sessions(info={BATCH: self.batch})
        s = self._shared
        try:
            if self.savepoints:
                with s.begin_nested():
                    yield s
            else:  # flushed when a query needs it, when a mail makes the batch stale, and at the end (flush)
                yield s
        except BaseException:
            self._forget(s)
            for key in [k for k in s.info if k != BATCH]:  # what the failed reading left behind
                del s.info[key]
            raise
        if self.batch.get(STALE):
            s.flush()  # what the batch's earlier mails changed is written before it is expired
            self._forget(s)

    def flush(self) -> None:
        """Write what the ORM session of the outer transaction holds unwritten (without
        savepoints a mail's changes are written only when a query needs them, when a mail
        makes the batch's lookups stale, or here: at the end of the batch's reading)."""
        if self._shared is not None:
            self._shared.flush()

    def _forget(self, s: Session) -> None:
        """A mail may have changed what the batch keeps (a command; a failure rolled back):
        every loaded object expired (read again when used), the shared lookups emptied."""
        self.batch.clear()
        self._held.clear()
        s.expire_all()

    def close(self) -> None:
        """Roll back what is not committed and release the connection."""
        try:
            if self._shared is not None:
                self._shared.close()
                self._shared = None
            if self.outer is not None and self.outer.is_active:
                self.outer.rollback()
        finally:
            self.conn.close()
            self.engine.dispose()

    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is None:
            self.close()
            return
        try:  # an error is on its way out (e.g. the database went away): it is the one to see
            self.close()
        except Exception:
            pass

"""Pytest plugin: a real, throwaway PostgreSQL server for the tests.

``postgres_url`` (session) starts ``initdb`` + ``pg_ctl`` from Debian's
``postgresql`` package in a temp dir on 127.0.0.1 at a free port (as the
``postgres`` user when run as root), and yields a SQLAlchemy URL. The env var
``SPIELLEITER_TEST_PG_URL`` (a server URL without a database name, e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432``) uses an existing server instead. Without PostgreSQL the
tests skip, unless ``CI`` is set: then they fail (CI must install it).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid

import pytest

from tests.mailservers import free_port


def _bindir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return os.path.dirname(found[-1]) if found else None


def _as_pg(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class PgCluster:
    """A throwaway PostgreSQL cluster in a temp dir on 127.0.0.1 at a free port, which a
    test may stop (``immediate``: like a crash) and start again on the same port."""

    def __init__(self, bindir: str) -> None:
        self.bindir = bindir
        self.base = tempfile.mkdtemp(prefix="spielleiter-pg-")
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres", "postgres")
        self.data = os.path.join(self.base, "data")
        self.port = free_port()
        self.log = os.path.join(self.base, "log")
        subprocess.run(_as_pg([f"{bindir}/initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync",
                               "-E", "UTF8"]), check=True, capture_output=True)

    @property
    def url(self) -> str:
        """The server's SQLAlchemy URL without a database name."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}"

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        proc = subprocess.run(_as_pg([f"{self.bindir}/pg_ctl", "-D", self.data, "-o", opts, "-l", self.log, "-w",
                                      "-t", "60", "start"]), capture_output=True, text=True)
        if proc.returncode != 0:
            text = open(self.log).read() if os.path.exists(self.log) else ""
            pytest.fail(f"PostgreSQL did not start: {proc.stdout}{proc.stderr}\n{text}")

    def stop(self, mode: str = "immediate") -> None:
        subprocess.run(_as_pg([f"{self.bindir}/pg_ctl", "-D", self.data, "-m", mode, "stop"]), capture_output=True)

    def create_database(self) -> str:
        """A new, empty database; its URL."""
        import psycopg
        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url.replace("postgresql+psycopg://", "postgresql://") + "/postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"{self.url}/{name}"

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


def need_postgres() -> str:
    """The bin folder of Debian's PostgreSQL; skips the test without it (fails under CI)."""
    bindir = _bindir()
    if bindir is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is not installed (apt-get install postgresql); CI must install it")
        pytest.skip("PostgreSQL not installed")
    return bindir


@pytest.fixture(scope="session")
def postgres_server():
    env_url = os.environ.get("SPIELLEITER_TEST_PG_URL")
    if env_url:
        yield env_url
        return
    cluster = PgCluster(need_postgres())
    cluster.start()
    try:
        yield cluster.url
    finally:
        cluster.remove()


@pytest.fixture
def own_postgres():
    """A PostgreSQL cluster of the test's own (started), which it may stop and start."""
    cluster = PgCluster(need_postgres())
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def postgres_url(postgres_server):
    """A fresh, empty database on the session's server for each test."""
    import psycopg
    name = "t_" + uuid.uuid4().hex[:12]
    server = postgres_server.rstrip("/")
    with psycopg.connect(server.replace("postgresql+psycopg://", "postgresql://") + "/postgres",
                         autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield f"{server}/{name}"

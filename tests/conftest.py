import pytest

from bot.config import embedded
from bot.mail.maildir import MaildirTransport
from bot.storage.db import Database

pytest_plugins = ["tests.mailservers", "tests.pgserver", "tests.leagues", "tests.oauthserver"]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty database for each test, once on SQLite and once on the session's real
    PostgreSQL server (``tests/pgserver.py``; skipped without PostgreSQL unless ``CI`` is set)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db' / 'spielleiter.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def env(tmp_path, db_url):
    """(database, config, Maildir) of an embedded service on ``db_url``, migrated; a test
    module with its own ``env`` overrides it."""
    cfg = embedded(tmp_path / "var")
    cfg.database_url = db_url
    cfg.sender = "Spielleiter <spielleiter@example.org>"
    db = Database(cfg.database_url)
    db.migrate()
    yield db, cfg, MaildirTransport(cfg.maildir)
    db.dispose()

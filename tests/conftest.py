import pytest

pytest_plugins = ["tests.mailservers", "tests.pgserver", "tests.leagues", "tests.oauthserver"]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty database for each test, once on SQLite and once on the session's real
    PostgreSQL server (``tests/pgserver.py``; skipped without PostgreSQL unless ``CI`` is set)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db' / 'spielleiter.sqlite'}"
    return request.getfixturevalue("postgres_url")

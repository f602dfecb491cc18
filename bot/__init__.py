"""Spielleiter: a play-by-mail game master for German word games."""

from importlib import resources
from pathlib import Path

__version__ = "0.1.0"

#: The source tree's root (the folder above ``bot/``); only meaningful in a checkout.
ROOT = Path(__file__).resolve().parent.parent


def data_dir(name: str) -> Path:
    """The folder of the package data ``name`` (``templates``, ``grammar``, ``migrations``,
    ``translations``).

    In a wheel the top-level folders of the source tree are the packages
    ``bot.templates``, ``bot.grammar`` and ``bot.migrations`` (``setup.py`` maps them),
    found through :mod:`importlib.resources`; in a checkout without an install the folder
    beside ``bot/`` is used. Raises ``FileNotFoundError`` when neither exists."""
    try:
        found = Path(str(resources.files(f"bot.{name}")))
    except ModuleNotFoundError:
        found = ROOT / name
    if not found.is_dir():
        raise FileNotFoundError(f"package data {name!r} not found (looked in {found})")
    return found


GRAMMAR_DIR = data_dir("grammar")
TEMPLATE_DIR = data_dir("templates")
MIGRATIONS_DIR = data_dir("migrations")

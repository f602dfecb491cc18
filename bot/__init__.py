"""Spielleiter: a play-by-mail game master for German word games."""

from pathlib import Path

__version__ = "0.1.0"

#: The repository root, where ``grammar/``, ``templates/`` and ``migrations/`` live.
ROOT = Path(__file__).resolve().parent.parent
GRAMMAR_DIR = ROOT / "grammar"
TEMPLATE_DIR = ROOT / "templates"
MIGRATIONS_DIR = ROOT / "migrations"

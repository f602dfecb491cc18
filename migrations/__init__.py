"""The Alembic migrations. Installed as ``bot.migrations``; found through
``bot.MIGRATIONS_DIR``."""

"""Storage: SQLAlchemy models, engine/session helpers and migrations (Alembic)."""

"""leagues.paused_at/paused_by (a paused league says since when and by whom) and
outbox.notices (a game master's notices merged into one mail per player; issue 33)

Revision ID: 0010
Revises: 0009 (0009_service_lease)
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (no batch rebuild: ``outbox`` keeps its expression index)
    op.add_column("leagues", sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("leagues", sa.Column("paused_by", sa.String(254), nullable=True))
    op.add_column("outbox", sa.Column("notices", sa.JSON, nullable=True))


def downgrade() -> None:
    op.drop_column("outbox", "notices")
    op.drop_column("leagues", "paused_by")
    op.drop_column("leagues", "paused_at")

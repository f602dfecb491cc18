"""results: raw score and submitted flag (Besser-Wertung, rounds played)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("score", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("submitted", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute("UPDATE results SET score = points")


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("submitted")
        batch.drop_column("score")

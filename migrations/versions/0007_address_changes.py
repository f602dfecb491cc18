"""address_changes: a player's ADRESSE that waits for the game master because it was not
proven (no personal code, sender not authenticated by the receiving server); issue 31

Revision ID: 0007
Revises: 0006 (0006_lookup_indexes)
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "address_changes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("old_email", sa.String(254), nullable=False),
        sa.Column("from_addr", sa.String(254), nullable=True),
        sa.Column("mail_id", sa.Integer(), sa.ForeignKey("inbound_mails.id"), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_by", sa.String(20), nullable=True),
    )
    op.create_index("ix_address_changes_player_id", "address_changes", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_address_changes_player_id", table_name="address_changes")
    op.drop_table("address_changes")

"""service_lease (one service per database, issue 34), send_attempts (every SMTP session
counted against the send limits before it starts) and outbox.claimed_by/claimed_at (a row
is claimed before it is sent, so two senders never send it twice)

Revision ID: 0009
Revises: 0008 (0008_repeat_key)
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "service_lease",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("holder", sa.String(200), nullable=False),
        sa.Column("host", sa.String(200), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "send_attempts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("outbox_id", sa.Integer, nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_send_attempts_at", "send_attempts", ["at"])
    # plain ADD/DROP COLUMN (SQLite 3.35+ has both): a batch rebuild of ``outbox`` would
    # lose its expression index ix_outbox_to_created
    op.add_column("outbox", sa.Column("claimed_by", sa.String(200), nullable=True))
    op.add_column("outbox", sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("outbox", "claimed_at")
    op.drop_column("outbox", "claimed_by")
    op.drop_index("ix_send_attempts_at", "send_attempts")
    op.drop_table("send_attempts")
    op.drop_table("service_lease")

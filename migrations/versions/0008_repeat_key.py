"""inbound_mails.repeat_key: what a mail says (sender, subject and text, normalised), so
identical mails from one address within an hour are answered once (issue 31, an
autoresponder without Auto-Submitted; bot.service.conversations.loops.gate_answers), with its
index on the key and the arrival time

Revision ID: 0008
Revises: 0007 (0007_address_changes)
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_mails") as b:
        b.add_column(sa.Column("repeat_key", sa.String(64), nullable=True))
        b.create_index("ix_inbound_mails_repeat_key", ["repeat_key", "received_at"])


def downgrade() -> None:
    with op.batch_alter_table("inbound_mails") as b:
        b.drop_index("ix_inbound_mails_repeat_key")
        b.drop_column("repeat_key")

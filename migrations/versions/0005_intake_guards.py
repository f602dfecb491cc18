"""Intake guards: inbound_mails.raw_size (a mail stored cut because it was too large),
inbound_mails.content_sha256 (dedupe by Message-ID and content),
inbound_mails.auth_failure (whose code a mail failed, to count wrong codes per owner and
hour), player_addresses.bounced_at/bounce_reason (a permanent bounce of the address)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""
from alembic import op
import sqlalchemy as sa

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_mails") as b:
        b.add_column(sa.Column("raw_size", sa.BigInteger(), nullable=True))
        b.add_column(sa.Column("content_sha256", sa.String(64), nullable=True))
        b.add_column(sa.Column("auth_failure", sa.String(40), nullable=True))
        b.create_index("ix_inbound_mails_auth_failure", ["auth_failure"])
    with op.batch_alter_table("player_addresses") as b:
        b.add_column(sa.Column("bounced_at", sa.DateTime(timezone=True), nullable=True))
        b.add_column(sa.Column("bounce_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("player_addresses") as b:
        b.drop_column("bounce_reason")
        b.drop_column("bounced_at")
    with op.batch_alter_table("inbound_mails") as b:
        b.drop_index("ix_inbound_mails_auth_failure")
        b.drop_column("auth_failure")
        b.drop_column("content_sha256")
        b.drop_column("raw_size")

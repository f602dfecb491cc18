"""codes, GM code, pause, review mode, reminders, holidays, flagged mails

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("leagues") as b:
        b.add_column(sa.Column("require_code", sa.Boolean(), nullable=False, server_default=sa.false()))
        b.add_column(sa.Column("gm_code_hash", sa.String(200), nullable=True))
        b.add_column(sa.Column("paused", sa.Boolean(), nullable=False, server_default=sa.false()))
        b.add_column(sa.Column("review", sa.Boolean(), nullable=False, server_default=sa.false()))
        b.add_column(sa.Column("reminder_hours", sa.Integer(), nullable=False, server_default="24"))
    with op.batch_alter_table("players") as b:
        b.add_column(sa.Column("code_hash", sa.String(200), nullable=True))
        b.add_column(sa.Column("away_from", sa.Date(), nullable=True))
        b.add_column(sa.Column("away_to", sa.Date(), nullable=True))
    with op.batch_alter_table("inbound_mails") as b:
        b.add_column(sa.Column("flagged", sa.Text(), nullable=True))
    with op.batch_alter_table("rounds") as b:
        b.add_column(sa.Column("reminded_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as b:
        b.drop_column("reminded_at")
    with op.batch_alter_table("inbound_mails") as b:
        b.drop_column("flagged")
    with op.batch_alter_table("players") as b:
        for c in ("away_to", "away_from", "code_hash"):
            b.drop_column(c)
    with op.batch_alter_table("leagues") as b:
        for c in ("reminder_hours", "review", "paused", "gm_code_hash", "require_code"):
            b.drop_column(c)

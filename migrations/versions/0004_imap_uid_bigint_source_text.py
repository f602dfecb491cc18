"""inbound_mails.source as text (``imap:<folder>`` is longer than 20 characters for
most folders), IMAP UIDVALIDITY/UID as bigint (unsigned 32-bit; PostgreSQL's integer
ends at 2**31-1)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_mails") as b:
        b.alter_column("source", type_=sa.Text(), existing_type=sa.String(20), existing_nullable=False)
        b.alter_column("uidvalidity", type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=True)
        b.alter_column("uid", type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=True)
    with op.batch_alter_table("poll_state") as b:
        b.alter_column("uidvalidity", type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=True)
        b.alter_column("last_uid", type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=False)


def downgrade() -> None:
    # values above 2**31-1 or sources longer than 20 characters cannot go back
    with op.batch_alter_table("poll_state") as b:
        b.alter_column("last_uid", type_=sa.Integer(), existing_type=sa.BigInteger(), existing_nullable=False)
        b.alter_column("uidvalidity", type_=sa.Integer(), existing_type=sa.BigInteger(), existing_nullable=True)
    with op.batch_alter_table("inbound_mails") as b:
        b.alter_column("uid", type_=sa.Integer(), existing_type=sa.BigInteger(), existing_nullable=True)
        b.alter_column("uidvalidity", type_=sa.Integer(), existing_type=sa.BigInteger(), existing_nullable=True)
        b.alter_column("source", type_=sa.String(20), existing_type=sa.Text(), existing_nullable=False)

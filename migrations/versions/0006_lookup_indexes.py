"""indexes for the lookups done per mail and per round (issue "fast at every league
size"): a player's submissions of a round, the answers to an address within an hour
(the answer cap of bot.service.conversations.loops.gate_answers, by lower-cased address), the mails
and outbox rows waiting by status

Revision ID: 0006
Revises: 0005 (0005_intake_guards)
Create Date: 2026-11-23
"""
from alembic import op
import sqlalchemy as sa

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

INDEXES = [
    ("ix_submissions_partie_round_player", "submissions", ["partie_id", "round_number", "player_id"]),
    ("ix_outbox_to_created", "outbox", [sa.text("lower(to_addr)"), "created_at"]),
    ("ix_inbound_mails_status", "inbound_mails", ["status"]),
    ("ix_outbox_status", "outbox", ["status"]),
]


def upgrade() -> None:
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns)


def downgrade() -> None:
    for name, table, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)

"""Background tasks: one row per work holding its current or last background job's claim, heartbeat, progress,
stop request and outcome (core.tasks), so any tab or server sees a job another one runs, can stop it, and knows a
job whose server died (a running row with a quiet heartbeat) from a live one.

Revision ID: 0008
Revises: 0007
"""
import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "work_tasks",
        sa.Column("work_id", sa.Integer, sa.ForeignKey("works.id", ondelete="CASCADE"), primary_key=True,
                  autoincrement=False),
        sa.Column("kind", sa.String(50), nullable=False),
        sa.Column("owner", sa.String(100), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("params", sa.JSON, nullable=False),
        sa.Column("stop_requested", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("message", sa.Text, nullable=False, server_default=""),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("rate_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("rate_base", sa.Integer, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_table("work_tasks")

"""Reading positions (issue 33): a reader's place in a work (chapter and passage), per user ("" in local mode), with
where their last visit began.

Revision ID: 0011
Revises: 0010
"""
import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reading_positions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, sa.ForeignKey("works.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("user", sa.String(320), nullable=False),
        sa.Column("chapter", sa.Integer, nullable=False),
        sa.Column("passage", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("visit_chapter", sa.Integer, nullable=False),
        sa.Column("visit_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("work_id", "user", name="uq_reading_position_user"),
    )


def downgrade() -> None:
    op.drop_table("reading_positions")

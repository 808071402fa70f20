"""The writer's desk (issue 34): chapter plans (the planner's outline, as the writer edited it) and the story
bible's notes and pinned facts per entity.

Revision ID: 0012
Revises: 0011
"""
import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def _work() -> sa.Column:
    return sa.Column("work_id", sa.Integer, sa.ForeignKey("works.id", ondelete="CASCADE"), nullable=False,
                     index=True)


def upgrade() -> None:
    op.create_table(
        "chapter_plans",
        sa.Column("id", sa.Integer, primary_key=True),
        _work(),
        sa.Column("chapter", sa.Integer, nullable=False),
        sa.Column("plan", sa.JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("work_id", "chapter", name="uq_chapter_plan"),
    )
    op.create_table(
        "bible_entries",
        sa.Column("id", sa.Integer, primary_key=True),
        _work(),
        sa.Column("entity", sa.String(300), nullable=False),
        sa.Column("names", sa.JSON, nullable=False),
        sa.Column("entity_type", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("states", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("bible_entries")
    op.drop_table("chapter_plans")

"""Chapter summaries: one row per version (generated or edited by the user), with the KG lines the model was given.

Revision ID: 0004
Revises: 0003
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "summaries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, sa.ForeignKey("works.id", ondelete="CASCADE"), nullable=False),
        sa.Column("chapter_id", sa.Integer, sa.ForeignKey("chapters.id", ondelete="CASCADE"), nullable=False),
        sa.Column("mode", sa.String(20), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("chapter_revision", sa.Integer, nullable=False),
        sa.Column("kg_lines", sa.JSON, nullable=False),
        sa.Column("user_edited", sa.Boolean, nullable=False),
        sa.Column("job_id", sa.Integer, sa.ForeignKey("jobs.id", ondelete="SET NULL")),
        sa.Column("parent_id", sa.Integer, sa.ForeignKey("summaries.id", ondelete="SET NULL")),
        sa.Column("stats", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_summaries_work_chapter_mode", "summaries", ["work_id", "chapter_id", "mode"])
    op.create_index("ix_summaries_chapter_id", "summaries", ["chapter_id"])


def downgrade() -> None:
    op.drop_index("ix_summaries_chapter_id", table_name="summaries")
    op.drop_index("ix_summaries_work_chapter_mode", table_name="summaries")
    op.drop_table("summaries")

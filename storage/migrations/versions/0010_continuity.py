"""Continuity (issue 32): each chapter's story states (and the revision and extractor version they were read
from), the flags of the last check, and the flags a user marked intended.

Revision ID: 0010
Revises: 0009
"""
import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def _chapter() -> sa.Column:
    return sa.Column("chapter_id", sa.Integer, sa.ForeignKey("chapters.id", ondelete="CASCADE"), nullable=False,
                     index=True)


def _work() -> sa.Column:
    return sa.Column("work_id", sa.Integer, sa.ForeignKey("works.id", ondelete="CASCADE"), nullable=False,
                     index=True)


def upgrade() -> None:
    op.create_table(
        "story_state_chapters",
        sa.Column("chapter_id", sa.Integer, sa.ForeignKey("chapters.id", ondelete="CASCADE"), primary_key=True,
                  autoincrement=False),
        _work(),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("version", sa.String(20), nullable=False),
    )
    op.create_table(
        "story_states",
        sa.Column("id", sa.Integer, primary_key=True),
        _work(),
        _chapter(),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
        sa.Column("sentence", sa.Text, nullable=False),
        sa.Column("start_char", sa.Integer, nullable=False),
        sa.Column("end_char", sa.Integer, nullable=False),
        sa.Column("cue", sa.String(200), nullable=False),
        sa.Column("confidence", sa.Float, nullable=False),
    )
    op.create_table(
        "continuity_flags",
        sa.Column("id", sa.Integer, primary_key=True),
        _work(),
        _chapter(),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("entity", sa.String(300), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("sentence", sa.Text, nullable=False),
        sa.Column("start_char", sa.Integer, nullable=False),
        sa.Column("end_char", sa.Integer, nullable=False),
        sa.Column("prior_chapter", sa.Integer, nullable=False),
        sa.Column("prior_sentence", sa.Text, nullable=False),
        sa.Column("prior_start", sa.Integer, nullable=False),
        sa.Column("prior_end", sa.Integer, nullable=False),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("flag_key", sa.String(32), nullable=False),
    )
    op.create_table(
        "continuity_marks",
        sa.Column("id", sa.Integer, primary_key=True),
        _work(),
        sa.Column("flag_key", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("sentence", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("work_id", "flag_key", name="uq_continuity_marks_work_key"),
    )


def downgrade() -> None:
    for table in ("continuity_marks", "continuity_flags", "story_states", "story_state_chapters"):
        op.drop_table(table)

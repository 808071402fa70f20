"""Embeddings of the sentences of each passage, computed at import beside the passage vectors, so the extractive
answer reads the cited sentences' vectors instead of embedding them at question time (issue 31).

Revision ID: 0013
Revises: 0012
"""
import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sentence_vectors",
        sa.Column("chunk_id", sa.Integer(), sa.ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("model", sa.String(100), primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
    )
    op.create_index("ix_sentence_vectors_model_key", "sentence_vectors", ["model", "key"])


def downgrade() -> None:
    op.drop_index("ix_sentence_vectors_model_key", table_name="sentence_vectors")
    op.drop_table("sentence_vectors")

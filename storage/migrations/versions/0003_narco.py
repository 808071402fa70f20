"""NARCO question edges (with evidence sentence and question embedding), built-passage marks, cached passage
embeddings.

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _chunk_fk() -> sa.ForeignKey:
    return sa.ForeignKey("chunks.id", ondelete="CASCADE")


def _work_fk() -> sa.ForeignKey:
    return sa.ForeignKey("works.id", ondelete="CASCADE")


def upgrade() -> None:
    op.create_table(
        "narco_edges",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("from_chunk_id", sa.Integer, _chunk_fk(), nullable=False),
        sa.Column("to_chunk_id", sa.Integer, _chunk_fk(), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("evidence", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("embedding", sa.LargeBinary),
    )
    op.create_index("ix_narco_edges_work_to", "narco_edges", ["work_id", "to_chunk_id"])
    op.create_index("ix_narco_edges_from_chunk_id", "narco_edges", ["from_chunk_id"])
    op.create_table(
        "narco_nodes",
        sa.Column("chunk_id", sa.Integer, _chunk_fk(), primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("window", sa.Integer, nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("built_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_narco_nodes_work_id", "narco_nodes", ["work_id"])
    op.create_table(
        "chunk_vectors",
        sa.Column("chunk_id", sa.Integer, _chunk_fk(), primary_key=True),
        sa.Column("model", sa.String(100), primary_key=True),
        sa.Column("dim", sa.Integer, nullable=False),
        sa.Column("vector", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    for table in ("chunk_vectors", "narco_nodes", "narco_edges"):
        op.drop_table(table)

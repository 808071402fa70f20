"""Embeddings of short texts (facts, entity names) keyed by the text's SHA-1, for retrieval by meaning.

Revision ID: 0006
Revises: 0005
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "text_vectors",
        sa.Column("model", sa.String(100), primary_key=True),
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("text_vectors")

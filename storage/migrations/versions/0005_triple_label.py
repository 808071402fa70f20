"""Knowledge-graph triples get a readable predicate label (the verb's lemma with its particle: "sell to").

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("kg_triples") as batch:
        batch.add_column(sa.Column("label", sa.String(300), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("kg_triples") as batch:
        batch.drop_column("label")

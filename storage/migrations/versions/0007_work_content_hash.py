"""Works remember the SHA-256 of the file they were imported from, so a second import of the same file can ask
whether to open the work already in the library or import a copy. Works imported before this revision have none.

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("works") as batch:
        batch.add_column(sa.Column("content_sha256", sa.String(64), nullable=True))
        batch.create_index("ix_works_content_sha256", ["content_sha256"])


def downgrade() -> None:
    with op.batch_alter_table("works") as batch:
        batch.drop_index("ix_works_content_sha256")
        batch.drop_column("content_sha256")

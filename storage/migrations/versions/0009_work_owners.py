"""Sign-in: who owns each work, and the works shared read-only with other users (core.services.access).

`works.owner` is NULL for every work made before sign-in was configured (and for everything made in local mode):
such a work keeps all its data; while sign-in is on it belongs to the admin named in FABULA_ADMIN (README).

Revision ID: 0009
Revises: 0008
"""
import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("works") as batch:
        batch.add_column(sa.Column("owner", sa.String(320), nullable=True))
        batch.create_index("ix_works_owner", ["owner"])
    op.create_table(
        "work_shares",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, sa.ForeignKey("works.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user", sa.String(320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("work_id", "user", name="uq_work_share_user"),
    )
    op.create_index("ix_work_shares_work_id", "work_shares", ["work_id"])
    op.create_index("ix_work_shares_user", "work_shares", ["user"])


def downgrade() -> None:
    op.drop_table("work_shares")
    with op.batch_alter_table("works") as batch:
        batch.drop_index("ix_works_owner")
        batch.drop_column("owner")

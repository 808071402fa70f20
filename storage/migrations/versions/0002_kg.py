"""Knowledge graph: per-chapter extraction results, resolved entities and their names, user decisions, build state.

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

NAME = 200


def _work_fk() -> sa.ForeignKey:
    return sa.ForeignKey("works.id", ondelete="CASCADE")


def _chapter_fk() -> sa.ForeignKey:
    return sa.ForeignKey("chapters.id", ondelete="CASCADE")


def upgrade() -> None:
    op.create_table(
        "kg_state",
        sa.Column("work_id", sa.Integer, _work_fk(), primary_key=True),
        sa.Column("extractor", sa.String(20), nullable=False),
        sa.Column("llm", sa.String(200)),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("chapters", sa.Integer, nullable=False),
        sa.Column("stats", sa.JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "kg_chapters",
        sa.Column("chapter_id", sa.Integer, _chapter_fk(), primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("extractor", sa.String(20), nullable=False),
        sa.Column("stats", sa.JSON, nullable=False),
        sa.Column("extracted_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_kg_chapters_work_id", "kg_chapters", ["work_id"])
    op.create_table(
        "kg_mentions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("chapter_id", sa.Integer, _chapter_fk(), nullable=False),
        sa.Column("chunk_id", sa.Integer, sa.ForeignKey("chunks.id", ondelete="SET NULL")),
        sa.Column("chunk_index", sa.Integer, nullable=False),
        sa.Column("name", sa.String(NAME), nullable=False),
        sa.Column("type", sa.String(20), nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_index("ix_kg_mentions_work_name", "kg_mentions", ["work_id", "name"])
    op.create_index("ix_kg_mentions_chapter_id", "kg_mentions", ["chapter_id"])
    op.create_index("ix_kg_mentions_chunk_id", "kg_mentions", ["chunk_id"])
    op.create_table(
        "kg_triples",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("chapter_id", sa.Integer, _chapter_fk(), nullable=False),
        sa.Column("chunk_id", sa.Integer, sa.ForeignKey("chunks.id", ondelete="SET NULL")),
        sa.Column("chunk_index", sa.Integer, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("relation", sa.String(300), nullable=False),
        sa.Column("object", sa.Text, nullable=False),
        sa.Column("subject_name", sa.String(NAME)),
        sa.Column("object_name", sa.String(NAME)),
        sa.Column("sentence", sa.Text, nullable=False),
    )
    op.create_index("ix_kg_triples_work_subject", "kg_triples", ["work_id", "subject_name"])
    op.create_index("ix_kg_triples_work_object", "kg_triples", ["work_id", "object_name"])
    op.create_index("ix_kg_triples_chapter_id", "kg_triples", ["chapter_id"])
    op.create_index("ix_kg_triples_chunk_id", "kg_triples", ["chunk_id"])
    op.create_table(
        "kg_aliases",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("chapter_id", sa.Integer, _chapter_fk(), nullable=False),
        sa.Column("chunk_index", sa.Integer, nullable=False),
        sa.Column("name_a", sa.String(NAME), nullable=False),
        sa.Column("name_b", sa.String(NAME), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("sentence", sa.Text, nullable=False),
    )
    op.create_index("ix_kg_aliases_work_id", "kg_aliases", ["work_id"])
    op.create_index("ix_kg_aliases_chapter_id", "kg_aliases", ["chapter_id"])
    op.create_table(
        "kg_entities",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("label", sa.String(300), nullable=False),
        sa.Column("type", sa.String(20), nullable=False),
        sa.Column("first_chapter", sa.Integer, nullable=False),
        sa.Column("mentions", sa.Integer, nullable=False),
        sa.Column("user_label", sa.Boolean, nullable=False),
    )
    op.create_index("ix_kg_entities_work_id", "kg_entities", ["work_id"])
    op.create_table(
        "kg_entity_names",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("entity_id", sa.Integer, sa.ForeignKey("kg_entities.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(NAME), nullable=False),
        sa.Column("first_chapter", sa.Integer, nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("joined_via", sa.String(NAME)),
        sa.Column("joined_chapter", sa.Integer),
        sa.UniqueConstraint("work_id", "name", name="uq_kg_entity_names_work_name"),
    )
    op.create_index("ix_kg_entity_names_entity_id", "kg_entity_names", ["entity_id"])
    op.create_table(
        "kg_decisions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_id", sa.Integer, _work_fk(), nullable=False),
        sa.Column("op", sa.String(20), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_kg_decisions_work_id", "kg_decisions", ["work_id"])


def downgrade() -> None:
    for table in ("kg_decisions", "kg_entity_names", "kg_entities", "kg_aliases", "kg_triples", "kg_mentions",
                  "kg_chapters", "kg_state"):
        op.drop_table(table)

"""Knowledge-graph tables (migration 0002). Portable SQL only, like storage.models.

Extraction results (mentions, triples, alias evidence) hang off their chapter, so deleting or re-extracting a
chapter removes exactly its contribution; entities and their names are rewritten by resolution; user decisions are
kept apart so re-extraction never loses them.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, utcnow

NAME_CHARS = 200


class KgStateRow(Base):
    __tablename__ = "kg_state"
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), primary_key=True)
    extractor: Mapped[str] = mapped_column(String(20))
    llm: Mapped[str | None] = mapped_column(String(200), nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    chapters: Mapped[int] = mapped_column(Integer, default=0)
    stats: Mapped[dict] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class KgChapterRow(Base):
    """Which revision of a chapter was extracted, by which extractor (an edited chapter is re-extracted)."""

    __tablename__ = "kg_chapters"
    chapter_id: Mapped[int] = mapped_column(ForeignKey("chapters.id", ondelete="CASCADE"), primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    revision: Mapped[int] = mapped_column(Integer)
    extractor: Mapped[str] = mapped_column(String(20))
    stats: Mapped[dict] = mapped_column(JSON, default=dict)
    extracted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class KgMentionRow(Base):
    __tablename__ = "kg_mentions"
    __table_args__ = (Index("ix_kg_mentions_work_name", "work_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"))
    chapter_id: Mapped[int] = mapped_column(ForeignKey("chapters.id", ondelete="CASCADE"), index=True)
    chunk_id: Mapped[int | None] = mapped_column(ForeignKey("chunks.id", ondelete="SET NULL"), nullable=True,
                                                 index=True)
    chunk_index: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(NAME_CHARS))
    type: Mapped[str] = mapped_column(String(20))
    count: Mapped[int] = mapped_column(Integer)


class KgTripleRow(Base):
    """An Open IE / LLM triple with its source sentence: an edge when subject_name or object_name is set."""

    __tablename__ = "kg_triples"
    __table_args__ = (Index("ix_kg_triples_work_subject", "work_id", "subject_name"),
                      Index("ix_kg_triples_work_object", "work_id", "object_name"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"))
    chapter_id: Mapped[int] = mapped_column(ForeignKey("chapters.id", ondelete="CASCADE"), index=True)
    chunk_id: Mapped[int | None] = mapped_column(ForeignKey("chunks.id", ondelete="SET NULL"), nullable=True,
                                                 index=True)
    chunk_index: Mapped[int] = mapped_column(Integer)
    subject: Mapped[str] = mapped_column(Text)
    relation: Mapped[str] = mapped_column(String(300))
    label: Mapped[str | None] = mapped_column(String(300), nullable=True)   # migration 0005
    object: Mapped[str] = mapped_column(Text)
    subject_name: Mapped[str | None] = mapped_column(String(NAME_CHARS), nullable=True)
    object_name: Mapped[str | None] = mapped_column(String(NAME_CHARS), nullable=True)
    sentence: Mapped[str] = mapped_column(Text)


class KgAliasRow(Base):
    __tablename__ = "kg_aliases"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    chapter_id: Mapped[int] = mapped_column(ForeignKey("chapters.id", ondelete="CASCADE"), index=True)
    chunk_index: Mapped[int] = mapped_column(Integer)
    name_a: Mapped[str] = mapped_column(String(NAME_CHARS))
    name_b: Mapped[str] = mapped_column(String(NAME_CHARS))
    kind: Mapped[str] = mapped_column(String(20))
    sentence: Mapped[str] = mapped_column(Text)


class KgEntityRow(Base):
    __tablename__ = "kg_entities"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    label: Mapped[str] = mapped_column(String(300))
    type: Mapped[str] = mapped_column(String(20))
    first_chapter: Mapped[int] = mapped_column(Integer)
    mentions: Mapped[int] = mapped_column(Integer)
    user_label: Mapped[bool] = mapped_column(Boolean, default=False)


class KgEntityNameRow(Base):
    __tablename__ = "kg_entity_names"
    __table_args__ = (UniqueConstraint("work_id", "name", name="uq_kg_entity_names_work_name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"))
    entity_id: Mapped[int] = mapped_column(ForeignKey("kg_entities.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(NAME_CHARS))
    first_chapter: Mapped[int] = mapped_column(Integer)
    count: Mapped[int] = mapped_column(Integer)
    joined_via: Mapped[str | None] = mapped_column(String(NAME_CHARS), nullable=True)
    joined_chapter: Mapped[int | None] = mapped_column(Integer, nullable=True)


class KgDecisionRow(Base):
    """A user's merge / split / rename / retype, by names (never by entity id, which resolution may change)."""

    __tablename__ = "kg_decisions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    op: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

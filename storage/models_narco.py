"""NARCO and QA tables (migration 0003). Portable SQL only, like storage.models.

Edges and embeddings hang off chunks with ON DELETE CASCADE: a chapter edit cuts new chunks (new ids), which drops
exactly that chapter's edges, build marks and cached vectors, and the next build or query redoes them. Vectors are
float32 blobs (numpy `tobytes()`), searched in numpy.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, utcnow


class NarcoEdgeRow(Base):
    """One retrospective question from a later passage (to_chunk) answered by an earlier one (from_chunk)."""

    __tablename__ = "narco_edges"
    __table_args__ = (Index("ix_narco_edges_work_to", "work_id", "to_chunk_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"))
    from_chunk_id: Mapped[int] = mapped_column(ForeignKey("chunks.id", ondelete="CASCADE"), index=True)
    to_chunk_id: Mapped[int] = mapped_column(ForeignKey("chunks.id", ondelete="CASCADE"))
    question: Mapped[str] = mapped_column(Text)
    evidence: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(Text, default="")
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)


class NarcoNodeRow(Base):
    """A passage whose edges to its preceding window were built (possibly none were found), and how."""

    __tablename__ = "narco_nodes"
    chunk_id: Mapped[int] = mapped_column(ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    window: Mapped[int] = mapped_column(Integer)
    model: Mapped[str] = mapped_column(String(200))
    built_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChunkVectorRow(Base):
    """A passage's embedding under one embedding model, so retrieval never re-embeds a book."""

    __tablename__ = "chunk_vectors"
    chunk_id: Mapped[int] = mapped_column(ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True)
    model: Mapped[str] = mapped_column(String(100), primary_key=True)
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


class TextVectorRow(Base):
    """An embedding of any short text (a fact, an entity's name) keyed by the text's SHA-1 (migration 0006):
    content-addressed, so it survives re-extraction (new triple ids, same text) and is shared between works."""

    __tablename__ = "text_vectors"
    model: Mapped[str] = mapped_column(String(100), primary_key=True)
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


class SentenceVectorRow(Base):
    """The embedding of one sentence of a passage (migration 0013; split by core.ingest.sentences.split_sentences,
    as the extractive reader splits a cited passage), so answering looks the cited sentences up by the text's SHA-1
    instead of embedding them. Hangs off its chunk (ON DELETE CASCADE): a removed work or edited chapter leaves no
    rows behind."""

    __tablename__ = "sentence_vectors"
    __table_args__ = (Index("ix_sentence_vectors_model_key", "model", "key"),)
    chunk_id: Mapped[int] = mapped_column(ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True)
    model: Mapped[str] = mapped_column(String(100), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(40))
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)

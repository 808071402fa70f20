"""Continuity tables (migration 0010, issue 32). Portable SQL only, like storage.models.

A chapter's story states hang off the chapter (replaced with each extraction of it, marked with the revision and the
state extractor's version they were read from); flags hang off the chapter their new sentence is in. "Intended"
marks are kept apart, by a key of the flag's kind, name and sentence, so rebuilding never loses them.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, utcnow
from storage.models_kg import NAME_CHARS


class StoryStateChapterRow(Base):
    """Which revision of a chapter its states were read from, by which version of the state extractor."""

    __tablename__ = "story_state_chapters"
    chapter_id: Mapped[int] = mapped_column(ForeignKey("chapters.id", ondelete="CASCADE"), primary_key=True,
                                            autoincrement=False)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    revision: Mapped[int] = mapped_column(Integer)
    version: Mapped[str] = mapped_column(String(20))


class StoryStateRow(Base):
    __tablename__ = "story_states"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    chapter_id: Mapped[int] = mapped_column(ForeignKey("chapters.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(NAME_CHARS))
    kind: Mapped[str] = mapped_column(String(10))
    key: Mapped[str] = mapped_column(String(40))
    value: Mapped[str] = mapped_column(String(NAME_CHARS))
    sentence: Mapped[str] = mapped_column(Text)
    start_char: Mapped[int] = mapped_column(Integer)
    end_char: Mapped[int] = mapped_column(Integer)
    cue: Mapped[str] = mapped_column(String(200))
    confidence: Mapped[float] = mapped_column(Float)


class ContinuityFlagRow(Base):
    __tablename__ = "continuity_flags"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    chapter_id: Mapped[int] = mapped_column(ForeignKey("chapters.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    entity: Mapped[str] = mapped_column(String(300))
    name: Mapped[str] = mapped_column(String(NAME_CHARS))
    sentence: Mapped[str] = mapped_column(Text)
    start_char: Mapped[int] = mapped_column(Integer)
    end_char: Mapped[int] = mapped_column(Integer)
    prior_chapter: Mapped[int] = mapped_column(Integer)
    prior_sentence: Mapped[str] = mapped_column(Text)
    prior_start: Mapped[int] = mapped_column(Integer)
    prior_end: Mapped[int] = mapped_column(Integer)
    confidence: Mapped[float] = mapped_column(Float)
    detail: Mapped[str] = mapped_column(Text)
    flag_key: Mapped[str] = mapped_column(String(32))


class ContinuityMarkRow(Base):
    """A flag the user marked "intended": kept by its key until the sentence changes."""

    __tablename__ = "continuity_marks"
    __table_args__ = (UniqueConstraint("work_id", "flag_key", name="uq_continuity_marks_work_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    flag_key: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(NAME_CHARS))
    sentence: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

"""The writer's desk (migration 0012, issue 34): chapter plans and the story bible's notes and pins. Portable SQL
only, like storage.models; deleting a work deletes both."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, utcnow


class ChapterPlanRow(Base):
    __tablename__ = "chapter_plans"
    __table_args__ = (UniqueConstraint("work_id", "chapter", name="uq_chapter_plan"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    chapter: Mapped[int] = mapped_column(Integer)
    plan: Mapped[dict] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class BibleEntryRow(Base):
    __tablename__ = "bible_entries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    entity: Mapped[str] = mapped_column(String(300))
    names: Mapped[list] = mapped_column(JSON, default=list)
    entity_type: Mapped[str] = mapped_column(String(40), default="")
    kind: Mapped[str] = mapped_column(String(10))
    text: Mapped[str] = mapped_column(Text)
    states: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

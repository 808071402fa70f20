"""Chapter summaries (migration 0004). Portable SQL only, like storage.models.

One row per version: generating or editing adds a row and never changes one, so the history is complete and a
user's edit cannot be overwritten. Rows hang off their chapter (ON DELETE CASCADE); `chapter_revision` says which
text of the chapter a summary was made from, so an edited chapter shows its summary as out of date.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, utcnow


class SummaryRow(Base):
    __tablename__ = "summaries"
    __table_args__ = (Index("ix_summaries_work_chapter_mode", "work_id", "chapter_id", "mode"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"))
    chapter_id: Mapped[int] = mapped_column(ForeignKey("chapters.id", ondelete="CASCADE"), index=True)
    mode: Mapped[str] = mapped_column(String(20))
    text: Mapped[str] = mapped_column(Text)
    model: Mapped[str] = mapped_column(String(200))
    chapter_revision: Mapped[int] = mapped_column(Integer)
    kg_lines: Mapped[list] = mapped_column(JSON, default=list)
    user_edited: Mapped[bool] = mapped_column(Boolean, default=False)
    job_id: Mapped[int | None] = mapped_column(ForeignKey("jobs.id", ondelete="SET NULL"), nullable=True)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("summaries.id", ondelete="SET NULL"), nullable=True)
    stats: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

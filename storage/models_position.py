"""Reading positions (migration 0011, issue 33): a reader's place in a work. Portable SQL only, like storage.models.

One row per work and user ("" is the local app's one reader); deleting a work deletes its places.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, utcnow


class ReadingPositionRow(Base):
    __tablename__ = "reading_positions"
    __table_args__ = (UniqueConstraint("work_id", "user", name="uq_reading_position_user"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), index=True)
    user: Mapped[str] = mapped_column(String(320))
    chapter: Mapped[int] = mapped_column(Integer)
    passage: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    visit_chapter: Mapped[int] = mapped_column(Integer)
    visit_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

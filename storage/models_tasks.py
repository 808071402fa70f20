"""Background tasks (migration 0008): one row per work, the work's current or last background task (core.tasks).

The primary key is the work: a claim is an INSERT, or an UPDATE of a row whose task ended or went quiet, so two
servers can never both hold a work. Portable SQL only, like storage.models.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, utcnow


class WorkTaskRow(Base):
    __tablename__ = "work_tasks"
    work_id: Mapped[int] = mapped_column(ForeignKey("works.id", ondelete="CASCADE"), primary_key=True,
                                         autoincrement=False)
    kind: Mapped[str] = mapped_column(String(50))
    owner: Mapped[str] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(20))
    params: Mapped[dict] = mapped_column(JSON, default=dict)
    stop_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    message: Mapped[str] = mapped_column(Text, default="")
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    rate_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    rate_base: Mapped[int] = mapped_column(Integer, default=0)

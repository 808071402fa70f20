"""ContinuityRepository: core.continuity.store.ContinuityStore on SQLAlchemy, a mixin of storage.repository.SqlStore.

One session per method (commit on success, roll back on error); bulk rows through one executemany.
"""
from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from core.continuity.model import Flag, State
from core.store import NotFound
from storage.models import ChapterRow, WorkRow, utcnow
from storage.models_continuity import ContinuityFlagRow, ContinuityMarkRow, StoryStateChapterRow, StoryStateRow
from storage.models_kg import NAME_CHARS


def _state_row(work_id: int, chapter_id: int, s: State) -> dict[str, Any]:
    return {"work_id": work_id, "chapter_id": chapter_id, "name": s.name[:NAME_CHARS], "kind": s.kind[:10],
            "key": s.key[:40], "value": s.value[:NAME_CHARS], "sentence": s.sentence, "start_char": s.start,
            "end_char": s.end, "cue": s.cue[:200], "confidence": float(s.confidence)}


def delete_states(s: Session, chapter_id: int) -> None:
    """A chapter's stored states and their mark, in the caller's transaction."""
    s.execute(delete(StoryStateRow).where(StoryStateRow.chapter_id == chapter_id))
    s.execute(delete(StoryStateChapterRow).where(StoryStateChapterRow.chapter_id == chapter_id))


def write_states(s: Session, work_id: int, chapter_id: int, revision: int, version: str,
                 states: Sequence[State]) -> None:
    """A chapter's states and the mark that they were read from `revision`, in the caller's transaction
    (storage.kg_repository.kg_replace_chapter's too); delete_states first."""
    if states:
        s.execute(insert(StoryStateRow), [_state_row(work_id, chapter_id, st) for st in states])
    s.add(StoryStateChapterRow(chapter_id=chapter_id, work_id=work_id, revision=revision, version=version))


class _ChapterChanged(Exception):
    """Rolls states_replace_chapter's transaction back when the chapter was saved since it was read."""


class ContinuityRepository:
    """Mixed into SqlStore, which provides `session()`."""

    def session(self) -> AbstractContextManager[Session]:  # pragma: no cover - provided by SqlStore
        raise NotImplementedError

    def _chapter_ids(self, s: Session, work_id: int) -> dict[int, int]:
        return {i: cid for i, cid in s.execute(select(ChapterRow.index, ChapterRow.id)
                                               .where(ChapterRow.work_id == work_id))}

    # ---- states ------------------------------------------------------------------------------------------------
    def states_replace_chapter(self, work_id: int, chapter_index: int, revision: int, version: str,
                               states: Sequence[State]) -> bool:
        try:
            with self.session() as s:
                row = s.scalar(select(ChapterRow).where(ChapterRow.work_id == work_id,
                                                        ChapterRow.index == chapter_index))
                if row is None:
                    raise NotFound(f"Work {work_id} has no chapter {chapter_index}.")
                # the first write takes SQLite's write lock, so the revision read after it is the current one
                delete_states(s, row.id)
                if s.scalar(select(ChapterRow.revision).where(ChapterRow.id == row.id)) != revision:
                    raise _ChapterChanged
                write_states(s, work_id, row.id, revision, version, states)
        except _ChapterChanged:
            return False
        return True

    def states_chapters(self, work_id: int) -> dict[int, tuple[int, str]]:
        with self.session() as s:
            q = (select(ChapterRow.index, StoryStateChapterRow.revision, StoryStateChapterRow.version)
                 .join(ChapterRow, ChapterRow.id == StoryStateChapterRow.chapter_id)
                 .where(StoryStateChapterRow.work_id == work_id))
            return {i: (rev, ver) for i, rev, ver in s.execute(q)}

    def states_list(self, work_id: int, upto_chapter: int | None = None, *, chapter: int | None = None,
                    names: Sequence[str] | None = None) -> list[State]:
        with self.session() as s:
            t = StoryStateRow
            q = (select(ChapterRow.index, t.name, t.kind, t.key, t.value, t.sentence, t.start_char, t.end_char,
                        t.cue, t.confidence).join(ChapterRow, ChapterRow.id == t.chapter_id)
                 .where(t.work_id == work_id).order_by(ChapterRow.index, t.id))
            if upto_chapter is not None:
                q = q.where(ChapterRow.index <= upto_chapter)
            if chapter is not None:
                q = q.where(ChapterRow.index == chapter)
            if names is not None:
                q = q.where(t.name.in_(list(names)))
            return [State(i, n, k, key, v, text, a, b, cue, conf) for i, n, k, key, v, text, a, b, cue, conf
                    in s.execute(q)]

    # ---- flags -------------------------------------------------------------------------------------------------
    def flags_replace(self, work_id: int, chapters: Sequence[int], flags: Sequence[Flag]) -> None:
        with self.session() as s:
            ids = self._chapter_ids(s, work_id)
            wanted = [ids[c] for c in chapters if c in ids]
            if wanted:
                s.execute(delete(ContinuityFlagRow).where(ContinuityFlagRow.work_id == work_id,
                                                          ContinuityFlagRow.chapter_id.in_(wanted)))
            rows = [{"work_id": work_id, "chapter_id": ids[f.chapter], "kind": f.kind, "entity": f.entity[:300],
                     "name": f.name[:NAME_CHARS], "sentence": f.sentence, "start_char": f.start, "end_char": f.end,
                     "prior_chapter": f.prior_chapter, "prior_sentence": f.prior_sentence,
                     "prior_start": f.prior_start, "prior_end": f.prior_end, "confidence": float(f.confidence),
                     "detail": f.detail, "flag_key": f.key} for f in flags if f.chapter in ids]
            if rows:
                s.execute(insert(ContinuityFlagRow), rows)

    def flags_list(self, work_id: int, chapter: int | None = None) -> list[Flag]:
        with self.session() as s:
            f = ContinuityFlagRow
            q = (select(f.kind, f.entity, f.name, ChapterRow.index, f.sentence, f.start_char, f.end_char,
                        f.prior_chapter, f.prior_sentence, f.prior_start, f.prior_end, f.confidence, f.detail)
                 .join(ChapterRow, ChapterRow.id == f.chapter_id).where(f.work_id == work_id)
                 .order_by(ChapterRow.index, f.start_char, f.id))
            if chapter is not None:
                q = q.where(ChapterRow.index == chapter)
            return [Flag(k, e, n, c, text, a, b, pc, ps, pa, pb, conf, d) for k, e, n, c, text, a, b, pc, ps, pa, pb,
                    conf, d in s.execute(q)]

    # ---- intended marks ----------------------------------------------------------------------------------------
    def intended_add(self, work_id: int, flag: Flag) -> None:
        with self.session() as s:
            if s.get(WorkRow, work_id) is None:
                raise NotFound(f"No work with id {work_id}.")
            exists = s.scalar(select(ContinuityMarkRow.id).where(ContinuityMarkRow.work_id == work_id,
                                                                 ContinuityMarkRow.flag_key == flag.key))
            if exists is None:
                s.add(ContinuityMarkRow(work_id=work_id, flag_key=flag.key, kind=flag.kind,
                                        name=flag.name[:NAME_CHARS], sentence=flag.sentence, created_at=utcnow()))

    def intended_remove(self, work_id: int, key: str) -> bool:
        with self.session() as s:
            result = s.execute(delete(ContinuityMarkRow).where(ContinuityMarkRow.work_id == work_id,
                                                               ContinuityMarkRow.flag_key == key))
            return bool(getattr(result, "rowcount", 0))

    def intended_keys(self, work_id: int) -> set[str]:
        with self.session() as s:
            return set(s.scalars(select(ContinuityMarkRow.flag_key).where(ContinuityMarkRow.work_id == work_id)))

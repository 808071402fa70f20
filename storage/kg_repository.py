"""KgRepository: core.kg.store.KgStore on SQLAlchemy, a mixin of storage.repository.SqlStore.

One session per method (self.session(): commit on success, roll back on error). Bulk rows go through
`session.execute(insert(Model), rows)` (one executemany), which keeps a chapter's write in the low milliseconds.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from core.continuity.model import State
from core.kg.store import NewEntity
from core.kg.types import (INTERACTION_RELATIONS, ChapterExtraction, DatedAlias, Decision, EntityName, KgEntity,
                           KgState, NameCount, StoredTriple)
from core.store import NotFound
from storage.continuity_repository import delete_states, write_states
from storage.models import ChapterRow, ChunkRow, WorkRow, utcnow
from storage.models_kg import (NAME_CHARS, KgAliasRow, KgChapterRow, KgDecisionRow, KgEntityNameRow, KgEntityRow,
                               KgMentionRow, KgStateRow, KgTripleRow)

_RELATION_CHARS = 300


def _cut(text: str | None, limit: int) -> str | None:
    return None if text is None else text[:limit]


class _ChapterChanged(Exception):
    """Raised inside kg_replace_chapter's transaction to roll it back when the chapter was saved meanwhile."""


class KgRepository:
    """Mixed into SqlStore, which provides `session()`."""

    def session(self) -> AbstractContextManager[Session]:  # pragma: no cover - provided by SqlStore
        raise NotImplementedError

    # ---- per-chapter extraction results ---------------------------------------------------------------------
    def _chapter(self, s: Session, work_id: int, index: int) -> ChapterRow:
        row = s.scalar(select(ChapterRow).where(ChapterRow.work_id == work_id, ChapterRow.index == index))
        if row is None:
            raise NotFound(f"Work {work_id} has no chapter {index}.")
        return row

    def kg_replace_chapter(self, work_id: int, extraction: ChapterExtraction, extractor: str,
                           revision: int | None = None,
                           states: tuple[str, Sequence[State]] | None = None) -> bool:
        """Replace the chapter's contribution with `extraction`, marked with the chapter's revision. `revision` is
        the revision the extraction was read from: when the chapter has been saved since, nothing is written and
        False is returned (the chapter stays pending), so an edit made during a build is never marked as read.
        `states` (version, located states): the chapter's story states, replaced in the same transaction
        (storage.continuity_repository), so a crash between the two never leaves a chapter read without them."""
        try:
            with self.session() as s:
                chapter = self._chapter(s, work_id, extraction.chapter_index)
                # The first write opens the transaction (SQLite begins on DML) and takes the write lock, so the
                # revision read after it is the current one and no save can commit until this one has.
                self._delete_chapter_rows(s, [chapter.id])
                current = s.scalar(select(ChapterRow.revision).where(ChapterRow.id == chapter.id))
                if revision is not None and current != revision:
                    raise _ChapterChanged
                chunk_ids = {i: cid for i, cid in s.execute(select(ChunkRow.index, ChunkRow.id)
                                                             .where(ChunkRow.chapter_id == chapter.id))}
                base = {"work_id": work_id, "chapter_id": chapter.id}
                if extraction.mentions:
                    s.execute(insert(KgMentionRow), [
                        {**base, "chunk_index": m.chunk_index, "chunk_id": chunk_ids.get(m.chunk_index),
                         "name": m.name[:NAME_CHARS], "type": m.type, "count": m.count} for m in extraction.mentions])
                if extraction.triples:
                    s.execute(insert(KgTripleRow), [
                        {**base, "chunk_index": t.chunk_index, "chunk_id": chunk_ids.get(t.chunk_index),
                         "subject": t.subject, "relation": t.relation[:_RELATION_CHARS], "object": t.object,
                         "subject_name": _cut(t.subject_name, NAME_CHARS),
                         "object_name": _cut(t.object_name, NAME_CHARS), "sentence": t.sentence,
                         "label": _cut(t.label, _RELATION_CHARS) or None}
                        for t in extraction.triples])
                if extraction.aliases:
                    s.execute(insert(KgAliasRow), [
                        {**base, "chunk_index": a.chunk_index, "name_a": a.name_a[:NAME_CHARS],
                         "name_b": a.name_b[:NAME_CHARS], "kind": a.kind[:20], "sentence": a.sentence}
                        for a in extraction.aliases])
                s.add(KgChapterRow(chapter_id=chapter.id, work_id=work_id, revision=current,
                                   extractor=extractor, stats=dict(extraction.stats), extracted_at=utcnow()))
                if states is not None:
                    delete_states(s, chapter.id)
                    write_states(s, work_id, chapter.id, chapter.revision if current is None else current, *states)
                self._bump(s, work_id)
        except _ChapterChanged:  # rolled back: the chapter's earlier extraction (if any) stays, marked as it was
            return False
        return True

    def _delete_chapter_rows(self, s: Session, chapter_ids: list[int]) -> None:
        for model in (KgMentionRow, KgTripleRow, KgAliasRow):
            s.execute(delete(model).where(model.chapter_id.in_(chapter_ids)))
        s.execute(delete(KgChapterRow).where(KgChapterRow.chapter_id.in_(chapter_ids)))

    def kg_extracted_chapters(self, work_id: int) -> dict[int, tuple[int, str]]:
        with self.session() as s:
            q = (select(ChapterRow.index, KgChapterRow.revision, KgChapterRow.extractor)
                 .join(ChapterRow, ChapterRow.id == KgChapterRow.chapter_id).where(KgChapterRow.work_id == work_id))
            return {i: (rev, ex) for i, rev, ex in s.execute(q)}

    def kg_chapter_stats(self, work_id: int) -> dict[int, dict[str, Any]]:
        """Chapter index -> the extraction counters stored with that chapter's extraction (same transaction)."""
        with self.session() as s:
            q = (select(ChapterRow.index, KgChapterRow.stats)
                 .join(ChapterRow, ChapterRow.id == KgChapterRow.chapter_id).where(KgChapterRow.work_id == work_id))
            return {i: dict(stats or {}) for i, stats in s.execute(q)}

    # ---- inputs of resolution and views ----------------------------------------------------------------------
    @staticmethod
    def _upto(q: Any, upto_chapter: int | None) -> Any:
        return q if upto_chapter is None else q.where(ChapterRow.index <= upto_chapter)

    def kg_name_counts(self, work_id: int, upto_chapter: int | None = None) -> list[NameCount]:
        with self.session() as s:
            q = (select(KgMentionRow.name, ChapterRow.index, KgMentionRow.type, func.sum(KgMentionRow.count))
                 .join(ChapterRow, ChapterRow.id == KgMentionRow.chapter_id).where(KgMentionRow.work_id == work_id)
                 .group_by(KgMentionRow.name, ChapterRow.index, KgMentionRow.type)
                 .order_by(ChapterRow.index, KgMentionRow.name, KgMentionRow.type))
            return [NameCount(n, i, t, int(c)) for n, i, t, c in s.execute(self._upto(q, upto_chapter))]

    def kg_name_edges(self, work_id: int, upto_chapter: int | None = None) -> list[tuple[int, str, str]]:
        with self.session() as s:
            q = (select(ChapterRow.index, KgTripleRow.subject_name, KgTripleRow.object_name)
                 .join(ChapterRow, ChapterRow.id == KgTripleRow.chapter_id)
                 .where(KgTripleRow.work_id == work_id, KgTripleRow.subject_name.is_not(None),
                        KgTripleRow.object_name.is_not(None),
                        KgTripleRow.relation.not_in(sorted(INTERACTION_RELATIONS))).order_by(KgTripleRow.id))
            return [(i, a, b) for i, a, b in s.execute(self._upto(q, upto_chapter))]

    def kg_aliases(self, work_id: int, upto_chapter: int | None = None) -> list[DatedAlias]:
        with self.session() as s:
            q = (select(KgAliasRow.name_a, KgAliasRow.name_b, KgAliasRow.kind, ChapterRow.index)
                 .join(ChapterRow, ChapterRow.id == KgAliasRow.chapter_id).where(KgAliasRow.work_id == work_id)
                 .order_by(KgAliasRow.id))
            return [DatedAlias(a, b, k, i) for a, b, k, i in s.execute(self._upto(q, upto_chapter))]

    def kg_triples(self, work_id: int, upto_chapter: int | None = None, *, kind: str = "all",
                   names: Sequence[str] | None = None, chapter: int | None = None) -> list[StoredTriple]:
        with self.session() as s:
            t = KgTripleRow
            q = (select(t.id, ChapterRow.index, t.chunk_id, t.chunk_index, t.subject, t.relation, t.object, t.sentence,
                        t.subject_name, t.object_name, t.label).join(ChapterRow, ChapterRow.id == t.chapter_id)
                 .where(t.work_id == work_id).order_by(ChapterRow.index, t.id))
            if kind == "edges":
                q = q.where(or_(t.subject_name.is_not(None), t.object_name.is_not(None)))
            elif kind == "facts":
                q = q.where(and_(t.subject_name.is_(None), t.object_name.is_(None)))
            if names is not None:
                wanted = list(names)
                q = q.where(or_(t.subject_name.in_(wanted), t.object_name.in_(wanted)))
            if chapter is not None:
                q = q.where(ChapterRow.index == chapter)
            return [StoredTriple(*row) for row in s.execute(self._upto(q, upto_chapter))]

    # ---- resolved entities -----------------------------------------------------------------------------------
    def kg_save_entities(self, work_id: int, entities: Sequence[tuple[int | None, NewEntity]]) -> list[KgEntity]:
        """Replace the work's entities: rows whose id is given are updated in place, others inserted, the rest
        deleted; names are rewritten. One transaction."""
        with self.session() as s:
            s.execute(delete(KgEntityNameRow).where(KgEntityNameRow.work_id == work_id))
            existing = set(s.scalars(select(KgEntityRow.id).where(KgEntityRow.work_id == work_id)))
            keep = {eid for eid, _ in entities if eid is not None and eid in existing}
            stale = existing - keep
            if stale:
                s.execute(delete(KgEntityRow).where(KgEntityRow.id.in_(stale)))
            out: list[KgEntity] = []
            name_rows: list[dict[str, Any]] = []
            for eid, ent in entities:
                first = min(n.first_chapter for n in ent.names)
                mentions = sum(n.count for n in ent.names)
                values: dict[str, Any] = {"label": ent.label[:300], "type": ent.type, "first_chapter": first,
                                          "mentions": mentions, "user_label": bool(ent.user_label)}
                if eid in keep:
                    s.execute(update(KgEntityRow).where(KgEntityRow.id == eid).values(**values))
                else:
                    row = KgEntityRow(work_id=work_id, **values)
                    s.add(row)
                    s.flush()
                    eid = row.id
                assert eid is not None
                name_rows.extend({"work_id": work_id, "entity_id": eid, "name": n.name[:NAME_CHARS],
                                  "first_chapter": n.first_chapter, "count": n.count, "joined_via": n.joined_via,
                                  "joined_chapter": n.joined_chapter} for n in ent.names)
                out.append(KgEntity(eid, values["label"], ent.type, list(ent.names), first, mentions,
                                    values["user_label"]))
            if name_rows:
                s.execute(insert(KgEntityNameRow), name_rows)
            self._bump(s, work_id)
            return out

    def kg_entities(self, work_id: int) -> list[KgEntity]:
        with self.session() as s:
            names: dict[int, list[EntityName]] = defaultdict(list)
            q = select(KgEntityNameRow).where(KgEntityNameRow.work_id == work_id).order_by(KgEntityNameRow.id)
            for n in s.scalars(q):
                names[n.entity_id].append(EntityName(n.name, n.first_chapter, n.count, n.joined_via, n.joined_chapter))
            rows = s.scalars(select(KgEntityRow).where(KgEntityRow.work_id == work_id).order_by(KgEntityRow.id))
            return [KgEntity(r.id, r.label, r.type, names.get(r.id, []), r.first_chapter, r.mentions, r.user_label)
                    for r in rows]

    # ---- user decisions --------------------------------------------------------------------------------------
    def kg_add_decision(self, work_id: int, op: str, payload: dict[str, Any]) -> Decision:
        with self.session() as s:
            if s.get(WorkRow, work_id) is None:
                raise NotFound(f"No work with id {work_id}.")
            row = KgDecisionRow(work_id=work_id, op=op, payload=payload, created_at=utcnow())
            s.add(row)
            s.flush()
            self._bump(s, work_id)
            return Decision(row.id, op, dict(payload))

    def kg_decisions(self, work_id: int) -> list[Decision]:
        with self.session() as s:
            q = select(KgDecisionRow).where(KgDecisionRow.work_id == work_id).order_by(KgDecisionRow.id)
            return [Decision(r.id, r.op, dict(r.payload or {})) for r in s.scalars(q)]

    # ---- build state -----------------------------------------------------------------------------------------
    def _bump(self, s: Session, work_id: int) -> None:
        """Advance the work's graph version (the cache key of every view)."""
        row = s.get(KgStateRow, work_id)
        if row is None:
            if s.get(WorkRow, work_id) is None:
                raise NotFound(f"No work with id {work_id}.")
            s.add(KgStateRow(work_id=work_id, extractor="offline", llm=None, version=1, chapters=0, stats={},
                             updated_at=utcnow()))
        else:
            row.version += 1
            row.updated_at = utcnow()

    def kg_state(self, work_id: int) -> KgState | None:
        with self.session() as s:
            row = s.get(KgStateRow, work_id)
            if row is None:
                return None
            return KgState(row.work_id, row.extractor, row.llm, row.version, row.chapters, dict(row.stats or {}))

    def kg_set_state(self, work_id: int, *, extractor: str, llm: str | None, chapters: int,
                     stats: dict[str, Any]) -> KgState:
        with self.session() as s:
            self._bump(s, work_id)
            s.flush()
            row = s.get(KgStateRow, work_id)
            assert row is not None
            row.extractor, row.llm, row.chapters, row.stats = extractor, llm, chapters, stats
            return KgState(row.work_id, row.extractor, row.llm, row.version, row.chapters, dict(row.stats))


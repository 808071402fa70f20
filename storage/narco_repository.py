"""NarcoRepository: core.narco.store.NarcoStore on SQLAlchemy, a mixin of storage.repository.SqlStore.

One session per method (self.session(): commit on success, roll back on error). Vectors go in and out as float32
numpy arrays stored with `tobytes()`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

import numpy as np
from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session, aliased

from core.narco.types import NewQuestionEdge, QuestionEdge
from storage.models import ChapterRow, ChunkRow, utcnow
from storage.models_kg import KgStateRow
from storage.models_narco import ChunkVectorRow, NarcoEdgeRow, NarcoNodeRow, SentenceVectorRow, TextVectorRow


def _blob(vector: np.ndarray | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()


def _edge(row: Any, with_embedding: bool) -> QuestionEdge:
    """A QuestionEdge from narco_edges' columns (its ten fields, then the embedding blob when selected)."""
    edge = QuestionEdge(*row[:10])
    return replace(edge, embedding=_vector(row[10])) if with_embedding else edge


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


class NarcoRepository:
    """Mixed into SqlStore, which provides `session()`."""

    def session(self) -> AbstractContextManager[Session]:  # pragma: no cover - provided by SqlStore
        raise NotImplementedError

    # ---- edges ---------------------------------------------------------------------------------------------
    def narco_replace_edges(self, work_id: int, to_chunk_ids: Sequence[int], edges: Sequence[NewQuestionEdge], *,
                            window: int, model: str) -> None:
        ids = list(to_chunk_ids)
        with self.session() as s:
            s.execute(delete(NarcoEdgeRow).where(NarcoEdgeRow.work_id == work_id, NarcoEdgeRow.to_chunk_id.in_(ids)))
            s.execute(delete(NarcoNodeRow).where(NarcoNodeRow.chunk_id.in_(ids)))
            if edges:
                s.execute(insert(NarcoEdgeRow), [
                    {"work_id": work_id, "from_chunk_id": e.from_chunk_id, "to_chunk_id": e.to_chunk_id,
                     "question": e.question, "evidence": e.evidence, "answer": e.answer,
                     "embedding": _blob(e.embedding)} for e in edges])
            if ids:
                now = utcnow()
                s.execute(insert(NarcoNodeRow), [{"chunk_id": cid, "work_id": work_id, "window": window,
                                                  "model": model[:200], "built_at": now} for cid in ids])

    def narco_edges(self, work_id: int, upto_chapter: int | None = None, *, to_chapter: int | None = None,
                    with_embeddings: bool = False) -> list[QuestionEdge]:
        """Edges in reading order of their later end; `upto_chapter` keeps edges whose both ends are visible."""
        src_chunk, dst_chunk = aliased(ChunkRow), aliased(ChunkRow)
        src_ch, dst_ch = aliased(ChapterRow), aliased(ChapterRow)
        cols = [NarcoEdgeRow.id, NarcoEdgeRow.from_chunk_id, NarcoEdgeRow.to_chunk_id, src_ch.index, src_chunk.index,
                dst_ch.index, dst_chunk.index, NarcoEdgeRow.question, NarcoEdgeRow.evidence, NarcoEdgeRow.answer]
        if with_embeddings:
            cols.append(NarcoEdgeRow.embedding)
        q = (select(*cols)
             .join(src_chunk, NarcoEdgeRow.from_chunk_id == src_chunk.id)
             .join(src_ch, src_chunk.chapter_id == src_ch.id)
             .join(dst_chunk, NarcoEdgeRow.to_chunk_id == dst_chunk.id)
             .join(dst_ch, dst_chunk.chapter_id == dst_ch.id)
             .where(NarcoEdgeRow.work_id == work_id))
        if upto_chapter is not None:
            q = q.where(dst_ch.index <= upto_chapter, src_ch.index <= upto_chapter)
        if to_chapter is not None:
            q = q.where(dst_ch.index == to_chapter)
        q = q.order_by(dst_ch.index, dst_chunk.index, src_ch.index, src_chunk.index, NarcoEdgeRow.id)
        with self.session() as s:
            return [_edge(row, with_embeddings) for row in s.execute(q)]

    def narco_built(self, work_id: int) -> dict[int, tuple[int, str]]:
        with self.session() as s:
            q = select(NarcoNodeRow.chunk_id, NarcoNodeRow.window, NarcoNodeRow.model).where(
                NarcoNodeRow.work_id == work_id)
            return {cid: (window, model) for cid, window, model in s.execute(q)}

    # ---- passage embeddings --------------------------------------------------------------------------------
    def chunk_vectors(self, work_id: int, model: str) -> dict[int, np.ndarray]:
        q = (select(ChunkVectorRow.chunk_id, ChunkVectorRow.vector)
             .join(ChunkRow, ChunkVectorRow.chunk_id == ChunkRow.id)
             .join(ChapterRow, ChunkRow.chapter_id == ChapterRow.id)
             .where(ChapterRow.work_id == work_id, ChunkVectorRow.model == model))
        with self.session() as s:
            return {cid: np.frombuffer(blob, dtype=np.float32) for cid, blob in s.execute(q)}

    def put_chunk_vectors(self, model: str, vectors: Mapping[int, np.ndarray]) -> None:
        if not vectors:
            return
        ids = list(vectors)
        with self.session() as s:
            s.execute(delete(ChunkVectorRow).where(ChunkVectorRow.model == model, ChunkVectorRow.chunk_id.in_(ids)))
            s.execute(insert(ChunkVectorRow), [{"chunk_id": cid, "model": model, "dim": int(np.asarray(v).shape[-1]),
                                                "vector": _blob(v)} for cid, v in vectors.items()])

    # ---- embeddings of short texts, by content ---------------------------------------------------------------
    def text_vectors(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors among `keys` (SHA-1 hex of the texts) under `model`."""
        return self._vectors_by_key(TextVectorRow, model, keys)

    def _vectors_by_key(self, row: Any, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """key -> vector of the `row` table's vectors among `keys` under `model`."""
        out: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(keys))
        with self.session() as s:
            for start in range(0, len(wanted), 500):  # stay under SQLite's bound-parameter limit
                q = select(row.key, row.vector).where(row.model == model, row.key.in_(wanted[start:start + 500]))
                out.update({k: np.frombuffer(blob, dtype=np.float32) for k, blob in s.execute(q)})
        return out

    def put_text_vectors(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        if not vectors:
            return
        keys = list(vectors)
        with self.session() as s:
            for start in range(0, len(keys), 500):
                s.execute(delete(TextVectorRow).where(TextVectorRow.model == model,
                                                      TextVectorRow.key.in_(keys[start:start + 500])))
            s.execute(insert(TextVectorRow), [{"model": model, "key": k, "dim": int(np.asarray(v).shape[-1]),
                                               "vector": _blob(v)} for k, v in vectors.items()])

    # ---- embeddings of each passage's sentences --------------------------------------------------------------
    def sentence_vectors(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored sentence vectors among `keys` (SHA-1 hex of the sentences) under `model`, whichever passage
        holds them (the same sentence in two passages has the same vector)."""
        return self._vectors_by_key(SentenceVectorRow, model, keys)

    def put_sentence_vectors(self, model: str, vectors: Mapping[int, Sequence[tuple[str, np.ndarray]]]) -> None:
        """Replace the sentence vectors of the given chunks: chunk id -> [(SHA-1 of the sentence, vector)] in
        reading order."""
        if not vectors:
            return
        ids = list(vectors)
        rows = [{"chunk_id": cid, "model": model, "position": i, "key": key, "dim": int(np.asarray(v).shape[-1]),
                 "vector": _blob(v)} for cid, pairs in vectors.items() for i, (key, v) in enumerate(pairs)]
        with self.session() as s:
            for start in range(0, len(ids), 500):
                s.execute(delete(SentenceVectorRow).where(SentenceVectorRow.model == model,
                                                          SentenceVectorRow.chunk_id.in_(ids[start:start + 500])))
            if rows:
                s.execute(insert(SentenceVectorRow), rows)

    def sentence_vector_chunks(self, work_id: int, model: str) -> set[int]:
        """Ids of the work's chunks whose sentences are embedded under `model`."""
        q = (select(SentenceVectorRow.chunk_id).distinct()
             .join(ChunkRow, SentenceVectorRow.chunk_id == ChunkRow.id)
             .join(ChapterRow, ChunkRow.chapter_id == ChapterRow.id)
             .where(ChapterRow.work_id == work_id, SentenceVectorRow.model == model))
        with self.session() as s:
            return set(s.scalars(q))

    # ---- cache key -----------------------------------------------------------------------------------------
    def qa_signature(self, work_id: int) -> tuple[int, ...]:
        with self.session() as s:
            chunks = s.execute(select(func.count(ChunkRow.id), func.coalesce(func.max(ChunkRow.id), 0))
                               .join(ChapterRow, ChunkRow.chapter_id == ChapterRow.id)
                               .where(ChapterRow.work_id == work_id)).one()
            edges = s.execute(select(func.count(NarcoEdgeRow.id), func.coalesce(func.max(NarcoEdgeRow.id), 0))
                              .where(NarcoEdgeRow.work_id == work_id)).one()
            vectors = s.scalar(select(func.count()).select_from(ChunkVectorRow)
                               .join(ChunkRow, ChunkVectorRow.chunk_id == ChunkRow.id)
                               .join(ChapterRow, ChunkRow.chapter_id == ChapterRow.id)
                               .where(ChapterRow.work_id == work_id)) or 0
            kg = s.scalar(select(KgStateRow.version).where(KgStateRow.work_id == work_id)) or 0
            return (int(chunks[0]), int(chunks[1]), int(kg), int(edges[0]), int(edges[1]), int(vectors))

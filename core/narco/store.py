"""NarcoStore: what NARCO edges and cached passage embeddings need from persistence (storage.narco_repository).

Edges are replaced per target passage: storing the edges of a batch of passages first deletes whatever those
passages had, then marks them built, in one transaction, so a build killed midway and resumed never duplicates an
edge. Edges and embeddings hang off their chunks, so an edited chapter (whose chunks are cut anew) loses exactly its
own edges and vectors and is built again.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from core.narco.types import NewQuestionEdge, QuestionEdge


class NarcoStore(Protocol):
    # edges
    def narco_replace_edges(self, work_id: int, to_chunk_ids: Sequence[int], edges: Sequence[NewQuestionEdge], *,
                            window: int, model: str) -> None: ...
    def narco_edges(self, work_id: int, upto_chapter: int | None = None, *, to_chapter: int | None = None,
                    with_embeddings: bool = False) -> list[QuestionEdge]: ...
    # chunk id -> (window, model) of the passages whose edges were built
    def narco_built(self, work_id: int) -> dict[int, tuple[int, str]]: ...

    # passage embeddings, keyed by chunk id and embedding model
    def chunk_vectors(self, work_id: int, model: str) -> dict[int, np.ndarray]: ...
    def put_chunk_vectors(self, model: str, vectors: Mapping[int, np.ndarray]) -> None: ...
    # embeddings of short texts (facts, entity names), keyed by the SHA-1 hex of the text and the embedding model
    def text_vectors(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]: ...
    def put_text_vectors(self, model: str, vectors: Mapping[str, np.ndarray]) -> None: ...
    # embeddings of each passage's sentences (split_sentences): looked up by the SHA-1 hex of the sentence, stored and
    # replaced per chunk id (chunk id -> [(key, vector)] in reading order)
    def sentence_vectors(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]: ...
    def put_sentence_vectors(self, model: str, vectors: Mapping[int, Sequence[tuple[str, np.ndarray]]]) -> None: ...
    def sentence_vector_chunks(self, work_id: int, model: str) -> set[int]: ...

    # a cheap fingerprint of everything QA reads for a work (chunks, KG version, edges, vectors): a cache key
    def qa_signature(self, work_id: int) -> tuple[int, ...]: ...

"""What QA reads from a work, loaded once and sliced per question: passages, KG facts, NARCO edges, embeddings.

A `Corpus` holds everything in reading order; `corpus.upto(n)` is the spoiler-safe view a reader of chapter n may
see (prefix slices of passages and facts, and only edges whose both ends are in chapters <= n), without copying.
The service builds a corpus from the store (and caches it); the benchmark builds one from any document with
`corpus_from_text`, which cuts passages and extracts facts offline exactly as a book import would.
"""
from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from core.narco.types import QuestionEdge

EMPTY_VECTORS = np.zeros((0, 384), dtype=np.float32)


@dataclass(frozen=True)
class Passage:
    chunk_id: int | None
    chapter: int
    index: int  # position within its chapter
    text: str


@dataclass(frozen=True)
class FactRecord:
    """A KG triple with where it came from; `text` is what edit distance compares ("head relation tail")."""

    subject: str
    relation: str
    object: str
    chapter: int
    chunk_index: int
    chunk_id: int | None
    sentence: str

    @property
    def text(self) -> str:
        return " ".join(p for p in (self.subject, self.relation, self.object) if p)


@dataclass
class Corpus:
    passages: list[Passage]
    facts: list[FactRecord] = field(default_factory=list)
    passage_vectors: np.ndarray | None = None  # (len(passages), d) unit rows, or None when not embedded
    edges: list[QuestionEdge] = field(default_factory=list)
    edge_vectors: np.ndarray | None = None     # (len(edges), d) unit rows of the questions

    def __post_init__(self) -> None:
        if self.passage_vectors is not None and self.passage_vectors.shape[0] != len(self.passages):
            raise ValueError("passage_vectors must have one row per passage")
        if self.edge_vectors is not None and self.edge_vectors.shape[0] != len(self.edges):
            raise ValueError("edge_vectors must have one row per edge")

    @cached_property
    def _passage_chapters(self) -> list[int]:
        return [p.chapter for p in self.passages]

    @cached_property
    def _fact_chapters(self) -> list[int]:
        return [f.chapter for f in self.facts]

    @cached_property
    def fact_texts(self) -> list[str]:
        return [f.text for f in self.facts]

    @cached_property
    def row_of_chunk(self) -> dict[int, int]:
        return {p.chunk_id: i for i, p in enumerate(self.passages) if p.chunk_id is not None}

    @property
    def chapters(self) -> int:
        return self.passages[-1].chapter if self.passages else 0

    def upto(self, chapter: int | None) -> CorpusView:
        """Everything a reader of `chapter` may see (the whole corpus for None)."""
        if chapter is None:
            return CorpusView(self, len(self.passages), len(self.facts), None)
        return CorpusView(self, bisect.bisect_right(self._passage_chapters, chapter),
                          bisect.bisect_right(self._fact_chapters, chapter), chapter)


@dataclass
class CorpusView:
    corpus: Corpus
    n_passages: int
    n_facts: int
    chapter: int | None

    @property
    def passages(self) -> Sequence[Passage]:
        return self.corpus.passages[:self.n_passages]

    @property
    def facts(self) -> Sequence[FactRecord]:
        return self.corpus.facts[:self.n_facts]

    @property
    def fact_texts(self) -> Sequence[str]:
        return self.corpus.fact_texts[:self.n_facts]

    @property
    def passage_vectors(self) -> np.ndarray | None:
        vectors = self.corpus.passage_vectors
        return None if vectors is None else vectors[:self.n_passages]

    def edge_rows(self, side: str = "outgoing") -> tuple[np.ndarray, np.ndarray, list[int]]:
        """(question vectors, owner passage row, edge positions) of the edges visible in this view. An edge is
        visible when its later end (the passage asking) is in a visible chapter; it is owned by the passage it is
        asked from ("outgoing"), the one that answers it ("incoming"), or both."""
        corpus = self.corpus
        if corpus.edge_vectors is None or not corpus.edges:
            return EMPTY_VECTORS, np.zeros(0, dtype=np.int64), []
        rows, owners = [], []
        for m, edge in enumerate(corpus.edges):
            if self.chapter is not None and edge.to_chapter > self.chapter:
                continue
            ends = {"outgoing": (edge.to_chunk_id,), "incoming": (edge.from_chunk_id,),
                    "both": (edge.to_chunk_id, edge.from_chunk_id)}[side]
            for chunk_id in ends:
                row = corpus.row_of_chunk.get(chunk_id)
                if row is not None and row < self.n_passages:
                    rows.append(m)
                    owners.append(row)
        if not rows:
            return EMPTY_VECTORS, np.zeros(0, dtype=np.int64), []
        return corpus.edge_vectors[rows], np.asarray(owners, dtype=np.int64), rows


def corpus_from_text(text: str, *, facts: bool = True, chapter: int = 1) -> Corpus:
    """A one-chapter corpus from any document: passages of at most 240 words (chunk ids are their positions)
    and, with `facts`, the offline Open IE extractor's triples (edges and facts alike, as in the paper's G)."""
    from core.ingest import chunk_text
    chunks = chunk_text(text)
    passages = [Passage(i, chapter, i, t) for i, t in enumerate(chunks)]
    records: list[FactRecord] = []
    if facts and chunks:
        from core.kg.offline import ChapterText, OfflineExtractor
        (extraction,) = list(OfflineExtractor().extract([ChapterText(chapter, chunks)]))
        records = [FactRecord(t.subject, t.relation, t.object, chapter, t.chunk_index, t.chunk_index, t.sentence)
                   for t in extraction.triples]
    return Corpus(passages, records)

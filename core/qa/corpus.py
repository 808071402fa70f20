"""What QA reads from a work, loaded once and sliced per question: passages, KG facts, NARCO edges, embeddings.

A `Corpus` holds everything in reading order; `corpus.upto(n)` is the spoiler-safe view a reader of chapter n may
see (prefix slices of passages and facts, and only edges whose both ends are in chapters <= n), without copying.
The service builds a corpus from the store (and caches it); the benchmark builds one from any document with
`corpus_from_text`, which cuts passages and extracts facts offline exactly as a book import would.

For search, a view also gives its BM25 scores (an index over exactly the visible passages, built on first use and
kept for the few views a session asks about) and, when the corpus has an entity index, its passage-entity graph
(core.retrieval.graphrank), cached the same way.
"""
from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np

from core.narco.types import QuestionEdge
from core.retrieval.entities import EntityIndex

if TYPE_CHECKING:
    from core.retrieval.graphrank import ViewGraph

T = TypeVar("T")

EMPTY_VECTORS = np.zeros((0, 384), dtype=np.float32)
VIEW_CACHE = 8  # BM25 indexes and view graphs kept per corpus (one per reader position asked about)


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
    subject_entity: int | None = None  # position in the corpus's EntityIndex, when the end is an entity
    object_entity: int | None = None

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
    entities: EntityIndex | None = None        # the graph's entities and where they occur (graph mode)
    fact_vectors: np.ndarray | None = None     # (len(facts), d) unit rows of the fact texts (kg by meaning)
    entity_vectors: np.ndarray | None = None   # (entities.size, d) unit rows of the entity labels
    _views: OrderedDict = field(default_factory=OrderedDict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.passage_vectors is not None and self.passage_vectors.shape[0] != len(self.passages):
            raise ValueError("passage_vectors must have one row per passage")
        if self.edge_vectors is not None and self.edge_vectors.shape[0] != len(self.edges):
            raise ValueError("edge_vectors must have one row per edge")
        if self.fact_vectors is not None and self.fact_vectors.shape[0] != len(self.facts):
            raise ValueError("fact_vectors must have one row per fact")
        if self.entities is not None and self.entities.mentions.shape[0] != len(self.passages):
            raise ValueError("the entity index must have one row per passage")

    def cached(self, key: tuple[object, ...], make: Callable[[], T]) -> T:
        """A per-view artefact (BM25 index, view graph), built once and kept for the last VIEW_CACHE keys."""
        if key in self._views:
            self._views.move_to_end(key)
            return cast(T, self._views[key])  # the key names what `make` built for it
        value = make()
        self._views[key] = value
        while len(self._views) > VIEW_CACHE:
            self._views.popitem(last=False)
        return value

    @cached_property
    def passage_tokens(self) -> list[list[str]]:
        from core.retrieval.hybrid import tokenize
        return tokenize([p.text for p in self.passages])

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

    @property
    def fact_vectors(self) -> np.ndarray | None:
        vectors = self.corpus.fact_vectors
        return None if vectors is None else vectors[:self.n_facts]

    def bm25_scores(self, question: str) -> np.ndarray:
        """BM25 of each visible passage for the question (IDF over the visible passages only)."""
        from core.retrieval.hybrid import Bm25Index
        corpus = self.corpus
        index = corpus.cached(("bm25", self.n_passages),
                              lambda: Bm25Index(tokens=corpus.passage_tokens[:self.n_passages]))
        return index.scores(question)

    def graph(self) -> ViewGraph | None:
        """The passage-entity graph of this view (core.retrieval.graphrank.ViewGraph), or None without entities."""
        from core.retrieval.graphrank import ViewGraph
        corpus = self.corpus
        if corpus.entities is None:
            return None
        index = corpus.entities

        def make() -> ViewGraph:
            _, owners, rows = self.edge_rows("outgoing")
            pairs = []
            for owner, m in zip(owners, rows):
                other = corpus.row_of_chunk.get(corpus.edges[m].from_chunk_id)
                if other is not None and other < self.n_passages:
                    pairs.append((int(owner), other))
            return ViewGraph.build(index, self.n_passages, self.chapter, pairs)

        return corpus.cached(("graph", self.n_passages, self.chapter), make)

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

"""Passage and fact search for one question over a spoiler-safe view: what rag, graph and kg-by-meaning rank by.

    passage_match(view, question, query_vec, "hybrid")   -> (scores, cosine) over the visible passages
    graph_search(view, question, query_vec, "hybrid")   -> (PageRank fused with the match, cosine, trace)
    graph_context(view, question, query_vec, room=r, count=c) -> GraphFound: graph mode's excerpts within r tokens
    facts_by_meaning(view, query_vec, k)                 -> [(fact row, cosine)], best first

Everything is arrays the corpus prepared once (vectors, BM25 tokens, the entity index), so a question costs one
query embedding and milliseconds of arithmetic (bench/graphrag_bench.py --latency measures it).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.qa.corpus import CorpusView, Passage
from core.retrieval.communities import detect_communities
from core.retrieval.entities import EntityIndex
from core.retrieval.excerpts import excerpt_runs
from core.retrieval.facts import top_k
from core.retrieval.global_view import CommunityReport, global_view
from core.retrieval.graph_context import MATCH_WEIGHT, select_context
from core.retrieval.graphrank import DAMPING, Seed, link_entities
from core.retrieval.hybrid import rrf, tokenize
from core.retrieval.questions import content_query, question_scope
from core.retrieval.sentences import SentenceIndex
from core.retrieval.walk import WalkGraph, WalkRanking

HYBRID_WEIGHTS = (1.0, 1.0)  # reciprocal rank fusion weights of (MiniLM cosine, BM25)


def passage_match(view: CorpusView, question: str, query_vec: np.ndarray | None,
                  how: str = "hybrid") -> tuple[np.ndarray, np.ndarray]:
    """(ranking score, cosine) of every visible passage. hybrid: reciprocal rank fusion of MiniLM cosine and BM25
    (a passage sharing no word with the question gets nothing from BM25); dense: cosine; bm25: BM25 alone."""
    n = view.n_passages
    vectors = view.passage_vectors
    cosine = (vectors @ query_vec.astype(np.float32) if vectors is not None and query_vec is not None
              else np.zeros(n, dtype=np.float32))
    if how == "dense":
        if vectors is None or query_vec is None:
            raise ValueError("dense passage search needs passage embeddings and a query embedding")
        return cosine, cosine
    lexical = view.bm25_scores(question)
    if how == "bm25":
        return lexical, cosine
    if vectors is None or query_vec is None:
        raise ValueError("hybrid passage search needs passage embeddings and a query embedding")
    return rrf([cosine, lexical], weights=HYBRID_WEIGHTS, ignore_zero=[False, True]), cosine


def facts_by_meaning(view: CorpusView, query_vec: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The `k` visible facts nearest the question by MiniLM cosine (Andrus eq. 2), best first."""
    vectors = view.fact_vectors
    if vectors is None:
        raise ValueError("fact selection by meaning needs fact embeddings")
    if k < 1 or vectors.shape[0] == 0:
        return []
    return [(r.index, r.score) for r in top_k(vectors @ query_vec.astype(np.float32), k)]


@dataclass
class GraphTrace:
    """What graph mode walked: the seeds, the strongest entities and the relationships among them (entity ids are
    the store's, for "show in graph"); the question's scope and, for a whole-book or creative question, the reports
    of the communities its entities belong to (core.retrieval.global_view)."""

    seeds: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    passage_seeds: int = 0
    damping: float = DAMPING
    scope: str = "local"
    sentence_seeds: int = 0
    communities: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"seeds": self.seeds, "entities": self.entities, "edges": self.edges,
                "passage_seeds": self.passage_seeds, "damping": self.damping, "scope": self.scope,
                "sentence_seeds": self.sentence_seeds, "communities": self.communities}

    @property
    def entity_ids(self) -> list[int]:
        return [e["entity_id"] for e in self.entities]

    @property
    def reports(self) -> list[str]:
        return [c["report"] for c in self.communities]


def graph_search(view: CorpusView, question: str, query_vec: np.ndarray,
                 search: str = "hybrid") -> tuple[np.ndarray, np.ndarray, GraphTrace | None]:
    """(score, cosine, trace) of every visible passage: the walk's PageRank fused with the passage match by
    reciprocal rank (core.retrieval.graph_context.MATCH_WEIGHT); without an entity index (no graph built yet) the
    passage match itself and no trace."""
    found = graph_context(view, question, query_vec, search)
    return found.scores, found.cosine, found.trace


@dataclass
class GraphFound:
    scores: np.ndarray                          # (visible passages,) the passage ranking
    cosine: np.ndarray                          # (visible passages,) MiniLM cosine with the question
    excerpts: list[tuple[Passage, float, int]]  # (excerpt, value of its passage's first pick, row), in the order
    #                                             chosen; an excerpt is a run of consecutive sentences, verbatim
    trace: GraphTrace | None


def graph_context(view: CorpusView, question: str, query_vec: np.ndarray, search: str = "hybrid", *,
                  room: int = 0, count: Callable[[str], int] | None = None) -> GraphFound:
    """Graph mode's search: seeds, the walk over passages, entities and sentences (core.retrieval.walk), and, with
    a `room` in tokens of `count`, the sentences that fill it (core.retrieval.graph_context), as excerpts of their
    passages (same chapter, position and chunk id, so citations and "show in reader" work). A whole-book or
    creative question (core.retrieval.questions) is searched by its content words and gets its global view."""
    scope = question_scope(question)
    query = content_query(question) if scope == "creative" else question
    match, cosine = passage_match(view, query, query_vec, search)
    corpus, n = view.corpus, view.n_passages
    index = corpus.entities
    sentences = corpus.cached(("sentences",), lambda: SentenceIndex.build([p.text for p in corpus.passages], index))
    n_sentences = sentences.upto(n)
    sentence_match = sentences.bm25(n_sentences).scores(query) if n_sentences else np.zeros(0, dtype=np.float32)
    graph = view.graph()
    walk: WalkGraph | None = None
    seeds: list[Seed] = []
    if graph is not None and index is not None and n:
        walk = corpus.cached(("walk", n, view.chapter), lambda: WalkGraph.build(graph, sentences, index))
        hits: list[tuple[float, int | None, int | None, str]] = []
        if view.fact_vectors is not None:
            facts = view.facts
            hits = [(sim, facts[i].subject_entity, facts[i].object_entity, facts[i].text)
                    for i, sim in facts_by_meaning(view, query_vec, 5)]
        seeds = link_entities(query, index, graph, query_vec, entity_vectors=corpus.entity_vectors, fact_hits=hits)
    reports: list[CommunityReport] = []
    near: dict[int, float] = {}
    if walk is not None and graph is not None and index is not None and scope != "local":
        communities = corpus.cached(("communities", n, view.chapter),
                                    lambda: detect_communities(graph, index, view.chapter))
        found_view = global_view(communities, index, seeds)
        reports, near = found_view.reports, found_view.near
    if count is None or room <= 0:
        ranking = walk.rank(seeds, match, sentence_match) if walk is not None else None
        scores = rrf([ranking.passages, match], weights=(1.0, MATCH_WEIGHT)) if ranking is not None else match
        return GraphFound(scores, cosine, [], _trace(index, ranking, scope, reports) if ranking else None)
    chosen = select_context(walk, sentences, n, tokenize([query])[0], seeds, match, sentence_match, room=room,
                            count=count, scope=scope, context_entities=near)
    passages = view.passages
    excerpts = [(Passage(passages[row].chunk_id, passages[row].chapter, passages[row].index, text), score, row)
                for row, ids, score in chosen.groups for text in excerpt_runs(sentences, passages[row].text, ids)]
    trace = _trace(index, chosen.ranking, scope, reports) if chosen.ranking is not None else None
    return GraphFound(chosen.passages, cosine, excerpts, trace)


def _trace(index: EntityIndex | None, ranking: WalkRanking, scope: str,
           reports: list[CommunityReport]) -> GraphTrace:
    assert index is not None
    ents = index.entities
    return GraphTrace(
        seeds=[{"entity_id": ents[s.entity].id, "label": s.label, "how": s.how, "weight": round(s.weight, 3),
                "evidence": s.evidence} for s in ranking.seeds],
        entities=[{"entity_id": ents[e].id, "label": ents[e].label, "type": ents[e].type, "score": round(v, 5)}
                  for e, v in ranking.entity_scores.items()],
        edges=[{"source": ents[a].id, "target": ents[b].id, "source_label": ents[a].label,
                "target_label": ents[b].label, "weight": round(w, 2), "labels": labels[:4]}
               for a, b, w, labels in ranking.subgraph],
        passage_seeds=ranking.passage_seeds, scope=scope, sentence_seeds=ranking.sentence_seeds,
        communities=[{"report": r.text, "chapters": list(r.chapters), "members": len(r.community.members),
                      "focus": [ents[e].label for e in r.focus]} for r in reports])

"""Passage and fact search for one question over a spoiler-safe view: what rag, graph and kg-by-meaning rank by.

    passage_match(view, question, query_vec, "hybrid")   -> (scores, cosine) over the visible passages
    graph_search(view, question, query_vec, "hybrid")   -> (PageRank fused with the match, cosine, trace)
    facts_by_meaning(view, query_vec, k)                 -> [(fact row, cosine)], best first

Everything is arrays the corpus prepared once (vectors, BM25 tokens, the entity index), so a question costs one
query embedding and milliseconds of arithmetic (bench/graphrag_bench.py --latency measures it).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.qa.corpus import CorpusView
from core.retrieval.facts import top_k
from core.retrieval.graphrank import DAMPING, link_entities, rank
from core.retrieval.hybrid import rrf

HYBRID_WEIGHTS = (1.0, 1.0)  # reciprocal rank fusion weights of (MiniLM cosine, BM25)
# Graph mode fuses the PageRank rank with the passage match's rank (reciprocal rank fusion, this weight on the
# match): PageRank alone reorders passages a question names plainly (LF-SQuAD answer in prompt 94.2 vs rag's 95.3);
# fused, 96.3 (weight 1: 96.7, but LF-QUOREF one question below rag), GraphRAG-Bench evidence unchanged (400 q).
GRAPH_MATCH_WEIGHT = 2.0


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
    the store's, for "show in graph")."""

    seeds: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    passage_seeds: int = 0
    damping: float = DAMPING

    def as_dict(self) -> dict[str, Any]:
        return {"seeds": self.seeds, "entities": self.entities, "edges": self.edges,
                "passage_seeds": self.passage_seeds, "damping": self.damping}

    @property
    def entity_ids(self) -> list[int]:
        return [e["entity_id"] for e in self.entities]


def graph_search(view: CorpusView, question: str, query_vec: np.ndarray,
                 search: str = "hybrid") -> tuple[np.ndarray, np.ndarray, GraphTrace | None]:
    """(score, cosine, trace) of every visible passage: the PageRank mass fused with the passage match by reciprocal
    rank (GRAPH_MATCH_WEIGHT); without an entity index (no graph built yet) the passage match itself and no trace."""
    match, cosine = passage_match(view, question, query_vec, search)
    graph = view.graph()
    index = view.corpus.entities
    if graph is None or index is None or view.n_passages == 0:
        return match, cosine, None
    hits: list[tuple[float, int | None, int | None, str]] = []
    if view.fact_vectors is not None:
        facts = view.facts
        hits = [(sim, facts[i].subject_entity, facts[i].object_entity, facts[i].text)
                for i, sim in facts_by_meaning(view, query_vec, 5)]
    seeds = link_entities(question, index, graph, query_vec, entity_vectors=view.corpus.entity_vectors,
                          fact_hits=hits)
    ranking = rank(graph, seeds, match)
    ents = index.entities
    trace = GraphTrace(
        seeds=[{"entity_id": ents[s.entity].id, "label": s.label, "how": s.how, "weight": round(s.weight, 3),
                "evidence": s.evidence} for s in ranking.seeds],
        entities=[{"entity_id": ents[e].id, "label": ents[e].label, "type": ents[e].type, "score": round(v, 5)}
                  for e, v in ranking.entity_scores.items()],
        edges=[{"source": ents[a].id, "target": ents[b].id, "source_label": ents[a].label,
                "target_label": ents[b].label, "weight": round(w, 2), "labels": labels[:4]}
               for a, b, w, labels in ranking.subgraph],
        passage_seeds=ranking.passage_seeds)
    scores = ranking.scores
    if GRAPH_MATCH_WEIGHT > 0:
        scores = rrf([scores, match], weights=(1.0, GRAPH_MATCH_WEIGHT))
    return scores, cosine, trace

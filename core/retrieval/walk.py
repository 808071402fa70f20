"""The graph walk of graph mode: personalized PageRank over passages, entities and sentences (LinearRAG's relation-
free tri-graph, with the relationships of Fabula's own graph added), started from the question.

    walk = WalkGraph.build(view_graph, sentences, index)                # once per spoiler-safe view (cached)
    seeds = link_entities(question, index, view_graph, query_vec, ...)   # core.retrieval.graphrank
    ranked = walk.rank(seeds, passage_match, sentence_match)           # -> WalkRanking (passages, sentences, entities)

Nodes: the visible passages, the entities they name and their sentences. Directed, weighted edges (each node's
out-weights are normalized and split between kinds of neighbour, SHARES):
  passage -> its entities by salience (tf-idf: a name said five times in a passage and rarely elsewhere is what the
             passage is about) and -> its sentences;
  entity  -> the passages naming it (more often: heavier), the sentences naming it, and the entities the book
             relates it to (triples and interaction edges of Fabula's graph, log-weighted);
  sentence -> its passage and the entities it names (rarer: heavier).
The walk restarts at the question's seed entities (named, meant, from near facts), at the sentences and passages
that match it in words and meaning, and at the entities those best sentences name (LinearRAG's semantic bridging:
a one-hop seed the question never names, "the man who sold Buck" -> Manuel). Mass reaches a passage that shares no
word with the question through an entity both name, and a sentence's mass tells which of a passage's sentences
the walk went through (core.retrieval.excerpts keeps those).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations

import numpy as np
from scipy import sparse

from core.retrieval.entities import EntityIndex
from core.retrieval.graphrank import DAMPING, SPECIFICITY, Seed, ViewGraph, personalized_pagerank
from core.retrieval.sentences import SentenceIndex

# how a node's out-weight is split between its kinds of neighbour (renormalized when a kind is missing)
SHARES = {"passage": {"entity": 0.5, "sentence": 0.5, "passage": 0.2},
          "entity": {"passage": 0.3, "sentence": 0.4, "entity": 0.3},
          "sentence": {"passage": 0.5, "entity": 0.5}}
# how the restart mass is split between seed kinds (renormalized over the kinds the question has)
RESET_SHARES = {"entity": 0.35, "sentence": 0.35, "passage": 0.3}
SENTENCE_SEEDS = 30      # best-matching sentences that restart the walk
PASSAGE_SEEDS = 20       # best-matching passages that restart the walk
BRIDGE_SENTENCES = 8     # the best-matching sentences whose entities become one-hop seeds
BRIDGE_WEIGHT = 0.5      # a bridged entity's seed weight, relative to a named one
SUBGRAPH_ENTITIES = 12


@dataclass
class WalkRanking:
    passages: np.ndarray                 # (n_passages,) PageRank mass
    sentences: np.ndarray                # (n_sentences,) PageRank mass
    entities: np.ndarray                 # (n_entities,) PageRank mass
    seeds: list[Seed]
    entity_scores: dict[int, float]      # the strongest SUBGRAPH_ENTITIES
    subgraph: list[tuple[int, int, float, list[str]]]
    passage_seeds: int
    sentence_seeds: int


@dataclass
class WalkGraph:
    base: ViewGraph
    n_sentences: int
    adjacency: sparse.csr_matrix         # directed, (n + m + s) square
    entity_idf: np.ndarray               # (m,) log((n + 1) / (passages naming it + 0.5)), 0 for unseen entities
    sentence_entities: sparse.csr_matrix = field(repr=False)  # (s, m) mentions in the visible sentences
    labels: list[str] = field(default_factory=list, repr=False)

    @cached_property
    def entity_sentences(self) -> sparse.csc_matrix:
        """sentence_entities by columns (an entity's sentences are sliced per question)."""
        return sparse.csc_matrix(self.sentence_entities)

    @property
    def n_passages(self) -> int:
        return self.base.n_passages

    @property
    def n_entities(self) -> int:
        return self.base.n_entities

    @classmethod
    def build(cls, base: ViewGraph, sentences: SentenceIndex, index: EntityIndex) -> WalkGraph:
        n, m = base.n_passages, base.n_entities
        s = sentences.upto(n)
        counts = index.mentions[:n].tocsr().astype(np.float32)
        df = np.asarray((counts > 0).sum(axis=0)).ravel().astype(np.float64)
        idf = np.where(df > 0, np.log((n + 1.0) / (df + 0.5)), 0.0)
        tf = counts.copy()
        tf.data = 1.0 + np.log(tf.data)
        p_to_e = sparse.csr_matrix(tf.multiply(idf[None, :]))
        e_to_p = sparse.csr_matrix(tf.T)
        sent_ent = sentences.mentions[:s].tocsr() if sentences.mentions.shape[1] == m else \
            sparse.csr_matrix((s, m), dtype=np.float32)
        sent_ent = sparse.csr_matrix(sent_ent[:, :m])
        owner = sentences.passage[:s]
        ones = np.ones(s, dtype=np.float32)
        s_to_p = sparse.csr_matrix((ones, (np.arange(s), owner)), shape=(s, n))
        p_to_s = sparse.csr_matrix(s_to_p.T)
        s_to_e = sparse.csr_matrix(sent_ent.multiply(idf[None, :]))
        e_to_s = sparse.csr_matrix(sent_ent.T)
        rel = _relations(base, m)
        narco = _narco(base)
        blocks = [[_share(narco, "passage", "passage"), _share(p_to_e, "passage", "entity"),
                   _share(p_to_s, "passage", "sentence")],
                  [_share(e_to_p, "entity", "passage"), _share(rel, "entity", "entity"),
                   _share(e_to_s, "entity", "sentence")],
                  [_share(s_to_p, "sentence", "passage"), _share(s_to_e, "sentence", "entity"),
                   sparse.csr_matrix((s, s), dtype=np.float32)]]
        adjacency = sparse.bmat(blocks, format="csr", dtype=np.float64)
        adjacency.eliminate_zeros()
        return cls(base, s, adjacency, idf, sent_ent, [e.label for e in index.entities])

    def rank(self, seeds: Sequence[Seed], passage_match: np.ndarray, sentence_match: np.ndarray, *,
             damping: float = DAMPING) -> WalkRanking:
        """Personalized PageRank from the seeds (their weight divided by (passages naming them) ** SPECIFICITY),
        the best `SENTENCE_SEEDS` sentences and `PASSAGE_SEEDS` passages of the question's match (min-max scaled),
        and the entities of the best `BRIDGE_SENTENCES` sentences (bridges)."""
        n, m, s = self.n_passages, self.n_entities, self.n_sentences
        seeds = list(seeds) + self._bridges(seeds, sentence_match)
        entity_mass = np.zeros(m)
        for seed in seeds:
            entity_mass[seed.entity] += seed.weight / max(self.base.passage_degree[seed.entity], 1.0) ** SPECIFICITY
        passage_mass = _top_scaled(passage_match, PASSAGE_SEEDS)
        sentence_mass = _top_scaled(sentence_match, SENTENCE_SEEDS)
        parts = {"passage": passage_mass, "entity": entity_mass, "sentence": sentence_mass}
        live = {k: v for k, v in parts.items() if v.sum() > 0}
        if not live:
            return WalkRanking(np.zeros(n), np.zeros(s), np.zeros(m), seeds, {}, [], 0, 0)
        total = sum(RESET_SHARES[k] for k in live)
        reset = np.concatenate([RESET_SHARES[k] / total * v / v.sum() if k in live else np.zeros(v.size)
                                for k, v in (("passage", passage_mass), ("entity", entity_mass),
                                             ("sentence", sentence_mass))])
        scores = personalized_pagerank(self.adjacency, reset, damping)
        ent = scores[n:n + m]
        strongest = [int(e) for e in np.argsort(-ent, kind="stable")[:SUBGRAPH_ENTITIES] if ent[e] > 0]
        edges = self.base.entity_edges
        sub = [(a, b, *edges[(a, b)]) for a, b in combinations(sorted(strongest), 2) if (a, b) in edges]
        sub.sort(key=lambda x: -x[2])
        return WalkRanking(scores[:n], scores[n + m:], ent, seeds, {e: float(ent[e]) for e in strongest}, sub,
                           int(np.count_nonzero(passage_mass)), int(np.count_nonzero(sentence_mass)))

    def _bridges(self, seeds: Sequence[Seed], sentence_match: np.ndarray) -> list[Seed]:
        """The entities named by the best-matching sentences that are not seeds yet: one hop from the question."""
        if sentence_match.size == 0 or self.n_entities == 0:
            return []
        have = {seed.entity for seed in seeds}
        top = [int(i) for i in np.argsort(-sentence_match, kind="stable")[:BRIDGE_SENTENCES] if sentence_match[i] > 0]
        if not top:
            return []
        best = float(sentence_match[top[0]])
        found: dict[int, float] = {}
        for i in top:
            row = self.sentence_entities.getrow(i)
            for e in row.indices:
                e = int(e)
                if e not in have and self.base.visible[e]:
                    found[e] = max(found.get(e, 0.0), BRIDGE_WEIGHT * float(sentence_match[i]) / best)
        return [Seed(e, self.labels[e], w, "bridge") for e, w in sorted(found.items())]


def _share(block: sparse.spmatrix, source: str, target: str) -> sparse.csr_matrix:
    """`block` with each row scaled to sum to SHARES[source][target] (empty rows stay empty)."""
    block = sparse.csr_matrix(block, dtype=np.float64)
    sums = np.asarray(block.sum(axis=1)).ravel()
    scale = np.divide(SHARES[source][target], sums, out=np.zeros_like(sums), where=sums > 0)
    return sparse.csr_matrix(sparse.diags(scale) @ block)


def _relations(base: ViewGraph, m: int) -> sparse.csr_matrix:
    if not base.entity_edges:
        return sparse.csr_matrix((m, m), dtype=np.float64)
    a = np.array([k[0] for k in base.entity_edges], dtype=np.int64)
    b = np.array([k[1] for k in base.entity_edges], dtype=np.int64)
    w = np.log1p(np.array([v[0] for v in base.entity_edges.values()], dtype=np.float64))
    return sparse.csr_matrix((np.concatenate([w, w]), (np.concatenate([a, b]), np.concatenate([b, a]))),
                             shape=(m, m))


def _narco(base: ViewGraph) -> sparse.csr_matrix:
    n = base.n_passages
    return sparse.csr_matrix(base.adjacency[:n, :n])


def _top_scaled(scores: np.ndarray, k: int) -> np.ndarray:
    """The best `k` scores min-max scaled (the k-th gets nothing, as in core.retrieval.graphrank.rank); 0 elsewhere;
    only positive scores count."""
    mass = np.zeros(scores.size)
    k = min(k, int(np.count_nonzero(scores > 0)))
    if k <= 0:
        return mass
    top = np.argsort(-scores, kind="stable")[:k]
    lo = float(scores[top].min()) if k > 1 else 0.0
    hi = float(scores[top].max())
    mass[top] = (scores[top] - lo) / (hi - lo) if hi > lo else 1.0
    return mass

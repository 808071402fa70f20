"""Graph retrieval in the spirit of HippoRAG 2 (Gutiérrez et al. 2025), on Fabula's own graph.

Nodes are the passages a reader may see and the entities they mention; edges join a passage to the entities it
names, two entities the book relates (triples, interaction edges), and two passages a NARCO question connects.
Personalized PageRank starts from the question: the entities it names or means (seeds) and the passages that
match it lexically and densely (passage seeds); probability flows from a seed entity to the passages naming it and,
through its relationships, to passages two hops away that never name anything in the question.

    graph = ViewGraph.build(index, n_passages=412, upto=9, narco_pairs=[(3, 80)])
    seeds = link_entities(question, index, graph, query_vec, fact_hits=..., entity_vectors=...)
    ranking = rank(graph, seeds, passage_scores, params)       # -> GraphRanking (scores, seeds, subgraph)

Graph mode walks core.retrieval.walk's tri-graph, which adds the passages' sentences to this ViewGraph (its base:
visibility, passage degrees, relationships and NARCO pairs) and ranks from the same seeds (link_entities).

PageRank comes from scikit-network (sparse power iteration on a CSR matrix built once per view): on Pride and
Prejudice's view graph it answers in about a millisecond, where networkx rebuilds its matrix from Python objects on
every call (bench/graphrag_bench.py --ppr-libraries measures networkx, scikit-network and igraph).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from core.retrieval.entities import EntityIndex

DAMPING = 0.5            # HippoRAG 2's damping: half the mass restarts at the seeds at every step
PASSAGE_SHARE = 0.5      # the reset mass given to passage seeds when the question also has entity seeds
PASSAGE_SEEDS = 20       # passages seeded by the question's lexical/dense match (the best ones)
NAME_LINK_MIN = 0.65     # cosine of question and entity name above which an unnamed entity is a seed
FACT_LINK_TOP = 5        # facts nearest the question by meaning whose entities become seeds
FACT_LINK_MIN = 0.5      # ... only when at least this similar
SUBGRAPH_ENTITIES = 12   # entities shown as "the subgraph used"
SPECIFICITY = 0.5        # a seed entity's weight is divided by (passages naming it) ** SPECIFICITY


@dataclass(frozen=True)
class Seed:
    entity: int          # position in the EntityIndex
    label: str
    weight: float        # before normalization
    how: str             # "named" (the question names it), "meaning" (name embedding) or "fact" (a near fact)
    evidence: str = ""   # the name matched, or the fact


@dataclass
class ViewGraph:
    """The passage-entity graph of one spoiler-safe view, as a symmetric CSR adjacency: rows 0..n-1 are passages,
    n..n+m-1 entities (only entities mentioned in a visible passage carry edges)."""

    n_passages: int
    n_entities: int
    adjacency: sparse.csr_matrix
    visible: np.ndarray          # (m,) bool: the entity is mentioned up to this view
    passage_degree: np.ndarray   # (m,) how many visible passages mention each entity
    entity_edges: dict[tuple[int, int], tuple[float, list[str]]] = field(default_factory=dict)

    @classmethod
    def build(cls, index: EntityIndex, n_passages: int, upto: int | None,
              narco_pairs: Sequence[tuple[int, int]] = ()) -> ViewGraph:
        m = index.size
        incidence = index.mentions[:n_passages].copy()
        incidence.data[:] = 1.0                                     # a passage names an entity: one edge
        degree = np.asarray(incidence.sum(axis=0)).ravel()
        visible = degree > 0
        pairs: dict[tuple[int, int], list] = defaultdict(lambda: [0.0, []])
        for rel in index.relations:
            if upto is not None and rel.chapter > upto:
                break
            if rel.a == rel.b or not (visible[rel.a] and visible[rel.b]):
                continue
            key = (min(rel.a, rel.b), max(rel.a, rel.b))
            pairs[key][0] += rel.weight
            if rel.label not in pairs[key][1]:
                pairs[key][1].append(rel.label)
        n = n_passages + m
        blocks = [sparse.coo_matrix(incidence)]
        rows = [blocks[0].row, blocks[0].col + n_passages]
        cols = [blocks[0].col + n_passages, blocks[0].row]
        vals = [blocks[0].data, blocks[0].data]
        if pairs:
            a = np.array([k[0] for k in pairs]) + n_passages
            b = np.array([k[1] for k in pairs]) + n_passages
            w = np.log1p(np.array([v[0] for v in pairs.values()], dtype=np.float32))
            rows += [a, b]
            cols += [b, a]
            vals += [w, w]
        if narco_pairs:
            p = np.array([x for x, y in narco_pairs if x < n_passages and y < n_passages], dtype=np.int64)
            q = np.array([y for x, y in narco_pairs if x < n_passages and y < n_passages], dtype=np.int64)
            ones = np.ones(p.size, dtype=np.float32)
            rows += [p, q]
            cols += [q, p]
            vals += [ones, ones]
        adjacency = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                      shape=(n, n), dtype=np.float32)
        adjacency.sum_duplicates()
        edges = {k: (v[0], v[1]) for k, v in pairs.items()}
        return cls(n_passages, m, adjacency, visible, degree, edges)


def link_entities(question: str, index: EntityIndex, graph: ViewGraph, query_vec: np.ndarray | None = None, *,
                  entity_vectors: np.ndarray | None = None,
                  fact_hits: Sequence[tuple[float, int | None, int | None, str]] = ()) -> list[Seed]:
    """The question's seed entities: those it names (by name or alias), those whose name it means (embedding
    similarity >= NAME_LINK_MIN), and the ends of the facts nearest it by meaning ((similarity, entity a, entity b,
    fact text), best first). Only entities a reader of this view has met count."""
    seeds: dict[int, Seed] = {}

    def add(e: int | None, weight: float, how: str, evidence: str) -> None:
        if e is None or not graph.visible[e]:
            return
        if e not in seeds or seeds[e].weight < weight:
            seeds[e] = Seed(e, index.entities[e].label, weight, how, evidence)

    for e, name in index.find_in_question(question).items():
        add(e, 1.0, "named", name)
    if query_vec is not None and entity_vectors is not None and entity_vectors.shape[0] == index.size:
        sims = entity_vectors @ query_vec.astype(np.float32)
        for hit in np.flatnonzero(sims >= NAME_LINK_MIN):
            add(int(hit), float(sims[hit]), "meaning", index.entities[int(hit)].label)
    for sim, a, b, text in list(fact_hits)[:FACT_LINK_TOP]:
        if sim < FACT_LINK_MIN:
            break
        for end in (a, b):
            add(end, float(sim), "fact", text)
    return sorted(seeds.values(), key=lambda s: (-s.weight, s.label))


def personalized_pagerank(adjacency: sparse.csr_matrix, reset: np.ndarray, damping: float = DAMPING) -> np.ndarray:
    """PageRank scores with restarts at `reset` (any non-negative vector; normalized here), by scikit-network."""
    from sknetwork.ranking import PageRank
    total = float(reset.sum())
    if total <= 0:
        raise ValueError("personalized PageRank needs a non-zero reset vector")
    model = PageRank(damping_factor=damping, solver="piteration", n_iter=30, tol=1e-7)
    return np.asarray(model.fit_predict(adjacency, weights=reset / total), dtype=np.float64)


@dataclass
class GraphRanking:
    scores: np.ndarray               # (n_passages,) the PageRank mass of each passage
    seeds: list[Seed]
    entity_scores: dict[int, float]  # entity position -> PageRank mass, the strongest SUBGRAPH_ENTITIES
    subgraph: list[tuple[int, int, float, list[str]]]   # entity pairs among those, with weight and labels
    passage_seeds: int


def rank(graph: ViewGraph, seeds: Sequence[Seed], passage_scores: np.ndarray, *, damping: float | None = None,
         passage_share: float | None = None, passage_seeds: int | None = None) -> GraphRanking:
    """Personalized PageRank from the seeds. `passage_scores` (n_passages,) is the question's lexical/dense match
    (higher is better); its best `passage_seeds` passages restart the walk with `passage_share` of the mass (all of
    it when there is no seed entity), in proportion to their min-max normalized score (the last of them gets none).
    An entity seed's weight is divided by (the passages naming it) ** SPECIFICITY, so a name on every page spreads
    its mass thinly (HippoRAG's node specificity)."""
    damping = DAMPING if damping is None else damping
    passage_share = PASSAGE_SHARE if passage_share is None else passage_share
    passage_seeds = PASSAGE_SEEDS if passage_seeds is None else passage_seeds
    n, m = graph.n_passages, graph.n_entities
    reset = np.zeros(n + m, dtype=np.float64)
    entity_mass = np.zeros(m, dtype=np.float64)
    for s in seeds:
        entity_mass[s.entity] += s.weight / max(graph.passage_degree[s.entity], 1.0) ** SPECIFICITY
    passage_mass = np.zeros(n, dtype=np.float64)
    k = min(passage_seeds, n)
    if k:
        top = np.argsort(-passage_scores, kind="stable")[:k]
        lo = float(passage_scores[top].min()) if k > 1 else 0.0
        hi = float(passage_scores[top].max())
        passage_mass[top] = (passage_scores[top] - lo) / (hi - lo) if hi > lo else 1.0
    if entity_mass.sum() > 0 and passage_mass.sum() > 0:
        reset[n:] = (1 - passage_share) * entity_mass / entity_mass.sum()
        reset[:n] = passage_share * passage_mass / passage_mass.sum()
    elif entity_mass.sum() > 0:
        reset[n:] = entity_mass
    elif passage_mass.sum() > 0:
        reset[:n] = passage_mass
    else:
        return GraphRanking(np.zeros(n), list(seeds), {}, [], 0)
    scores = personalized_pagerank(graph.adjacency, reset, damping)
    ent = scores[n:]
    strongest = [int(e) for e in np.argsort(-ent, kind="stable")[:SUBGRAPH_ENTITIES] if ent[e] > 0]
    chosen = set(strongest)
    sub = [(a, b, w, labels) for (a, b), (w, labels) in graph.entity_edges.items() if a in chosen and b in chosen]
    sub.sort(key=lambda x: -x[2])
    return GraphRanking(scores[:n], list(seeds), {e: float(ent[e]) for e in strongest}, sub, k)

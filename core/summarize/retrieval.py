"""Knowledge-graph edge retrieval for chapter k (KGScore paper, section 3.4).

    chapter_graph = chapter_edges(graph_as_of(data, k), k, name_counts)   # E_k: induced subgraph of N_k, no later edges
    ranked = rank_edges(chapter_graph.edges, embed, KEYWORDS)            # eqs. (2)-(4), best first

N_k is the set of entities mentioned in chapter k. G[N_k] keeps only edges whose ends are both in N_k (a self-loop
has one end); edges extracted from chapters after k are dropped. Each edge's predicate is compared with every keyword
by the cosine of their sentence embeddings (s_ij); the scores of each keyword are z-scored over all edges (some
keywords score higher across the board), weighted, and summed into the edge's score S_i.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.kg.types import INTERACTION_RELATIONS

EmbedFn = Callable[[Sequence[str]], np.ndarray]  # texts -> one row per text (core.nlp.embed: unit rows)


@dataclass(frozen=True)
class KgEdge:
    """One edge of E_k as it will be shown. `node` is the entity it is grouped under (its subject entity); `object`
    is None for a self-loop (a description of `subject`); `rank_text` is the predicate compared with the keywords.
    `role` is "both" (entity -> entity), "subject" (entity + description) or "object" (the entity is the object of a
    phrase that is not an entity: "a servant; brought a note for; Jane", grouped under Jane like a self-loop)."""

    id: int
    node: str
    subject: str
    predicate: str
    object: str | None
    object_node: str | None
    chapter: int
    rank_text: str
    role: str = "both"

    @property
    def is_self_loop(self) -> bool:
        return self.object_node is None

    @property
    def line(self) -> str:
        """`subject; predicate; object`, or `subject; predicate` for a description."""
        return "; ".join(p for p in (self.subject, self.predicate, self.object) if p)


@dataclass
class ChapterGraph:
    """E_k with what linearization needs: mentions of each entity in chapter k and the name it is shown by."""

    chapter: int
    edges: list[KgEdge]
    mentions: dict[str, int] = field(default_factory=dict)   # node -> mentions in chapter k
    names: dict[str, str] = field(default_factory=dict)      # node -> its commonest name in chapter k


@dataclass(frozen=True)
class ScoredEdge:
    edge: KgEdge
    score: float


def chapter_name(aliases: Sequence[str], label: str, counts: Mapping[str, int]) -> str:
    """The name of an entity used most in the chapter (ties: its label, then the shorter, then alphabetical)."""
    return min([label, *aliases], key=lambda n: (-counts.get(n, 0), n != label, len(n), n))


def chapter_edges(graph: Any, chapter: int, name_counts: Mapping[str, int]) -> ChapterGraph:
    """E_k from `graph` (core.kg.graph.graph_as_of(data, chapter), a networkx MultiDiGraph): the entities
    mentioned in `chapter` (N_k), the edges among them, none from a later chapter. `name_counts` maps each surface
    name to its mentions in `chapter` (for choosing the name an entity is shown by)."""
    present = {n: int(d.get("mentions_by_chapter", {}).get(chapter, 0)) for n, d in graph.nodes(data=True)}
    present = {n: c for n, c in present.items() if c > 0}
    names = {n: chapter_name(graph.nodes[n].get("aliases", []), graph.nodes[n]["label"], name_counts)
             for n in present}
    edges: list[KgEdge] = []
    for u, v, key, d in graph.edges(keys=True, data=True):
        if u not in present or v not in present or int(d.get("chapter", 0)) > chapter:
            continue
        if d.get("relation") in INTERACTION_RELATIONS:  # who is with whom: no fact for a summary's context
            continue
        edges.append(_edge(key, u, v, d, names))
    edges.sort(key=lambda e: e.id)
    return ChapterGraph(chapter, edges, present, names)


def _edge(key: int, u: str, v: str, d: Mapping[str, Any], names: Mapping[str, str]) -> KgEdge:
    relation, chapter = " ".join(str(d.get("relation", "")).split()), int(d.get("chapter", 0))
    predicate = " ".join(str(d.get("predicate", relation)).split())
    role = d.get("role", "both")
    if u != v:
        return KgEdge(key, u, names[u], relation, names[v], v, chapter, relation or predicate, "both")
    if role == "object":  # "<phrase> <relation> Entity": keep the reading order, group it under the entity
        return KgEdge(key, u, " ".join(str(d.get("subject", "")).split()), relation, names[u], None, chapter,
                      predicate, "object")
    return KgEdge(key, u, names[u], predicate, None, None, chapter, predicate, "subject" if role == "subject" else
                  "both")


def zscore_columns(matrix: np.ndarray) -> np.ndarray:
    """Eq. (2): each column minus its mean, over its (population) standard deviation; a constant column is 0."""
    if matrix.size == 0:
        return matrix.astype(np.float64)
    m = matrix.astype(np.float64)
    mean, std = m.mean(axis=0), m.std(axis=0)
    safe = np.where(std > 1e-12, std, 1.0)
    return np.where(std > 1e-12, (m - mean) / safe, 0.0)


def edge_scores(similarities: np.ndarray, weights: Sequence[float]) -> np.ndarray:
    """Eqs. (2)-(4): S_i = sum_j w_j * (s_ij - mu_j) / sigma_j, for s_ij = cos(p_i, q_j) given one row per edge."""
    if similarities.shape[0] == 0:
        return np.zeros(0)
    return zscore_columns(similarities) @ np.asarray(weights, dtype=np.float64)


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """cos(a_i, b_j) for every pair of rows (vectors need not be unit length)."""
    return _unit(a) @ _unit(b).T


def _unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms > 0, norms, 1.0)


def rank_edges(edges: Sequence[KgEdge], embed: EmbedFn, keywords: Sequence[tuple[str, float]]) -> list[ScoredEdge]:
    """The edges best first by S_i (ties: the earlier extracted edge first). One embedding call for all
    distinct predicates and one for the keywords."""
    if not edges:
        return []
    texts = list(dict.fromkeys(e.rank_text for e in edges))
    row = {t: i for i, t in enumerate(texts)}
    per_text = cosine_matrix(np.asarray(embed(texts)), np.asarray(embed([k for k, _ in keywords])))
    similarities = per_text[[row[e.rank_text] for e in edges]]   # one row per edge: mu and sigma are over E_k
    scores = edge_scores(similarities, [w for _, w in keywords]).tolist()
    order = sorted(range(len(edges)), key=lambda i: (-round(scores[i], 9), edges[i].id))
    return [ScoredEdge(edges[i], scores[i]) for i in order]

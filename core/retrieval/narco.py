"""NARCO-enhanced passage retrieval (Xu et al., eq. 2):

    S_i = q · v_i + λ · max_j (q · e_ij)

q is the unit query embedding, v_i passage i's unit embedding, e_ij the unit embeddings of the retrospective
questions attached to passage i (its edges), λ = 0.1 in the paper. A passage without questions gets the plain
similarity (the max over an empty set contributes nothing), so with no edges at all NARCO ranks exactly as RAG.
"""
from __future__ import annotations

import numpy as np

from core.retrieval.facts import Ranked, top_k

DEFAULT_LAMBDA = 0.1


def narco_scores(query_vec: np.ndarray, node_vecs: np.ndarray, edge_vecs: np.ndarray, edge_owner: np.ndarray,
                 lam: float = DEFAULT_LAMBDA) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(S, q·v, best edge index or -1) per node. `edge_owner[m]` is the node row that edge question m belongs to."""
    q = query_vec.astype(np.float32)
    node_sim = node_vecs @ q if node_vecs.shape[0] else np.zeros(0, dtype=np.float32)
    best_edge = np.full(node_vecs.shape[0], -1, dtype=np.int64)
    if edge_vecs.shape[0] == 0 or node_vecs.shape[0] == 0:
        return node_sim.astype(np.float64), node_sim, best_edge
    edge_sim = edge_vecs @ q
    owner = np.asarray(edge_owner, dtype=np.int64)
    # max over each node's questions: sort edges by (owner, similarity) so the last edge of each owner is its best
    order = np.lexsort((edge_sim, owner))
    last = np.r_[owner[order][1:] != owner[order][:-1], True]
    best = order[last]
    best_edge[owner[best]] = best
    bonus = np.zeros(node_vecs.shape[0], dtype=np.float64)
    bonus[owner[best]] = edge_sim[best]
    return node_sim.astype(np.float64) + lam * bonus, node_sim, best_edge


def rank_narco(query_vec: np.ndarray, node_vecs: np.ndarray, edge_vecs: np.ndarray, edge_owner: np.ndarray, k: int,
               lam: float = DEFAULT_LAMBDA, mask: np.ndarray | None = None) -> list[Ranked]:
    """The `k` nodes with the highest S (ties: later node first); masked-out nodes are never returned."""
    scores, _, _ = narco_scores(query_vec, node_vecs, edge_vecs, edge_owner, lam)
    return top_k(scores, k, mask)

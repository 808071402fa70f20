"""Communities of the book's graph (GraphRAG's global view, without an LLM): groups of characters, places and things
the book keeps together, each with its members, relationships and chapters.

    found = detect_communities(view_graph, index)      # Leiden (scikit-network) on the entities' relationships
    found[0].members, found[0].relationships, found[0].chapters
    report_text(found[0], index)   -> "Elizabeth, Darcy, Wickham, Lydia ... (chapters 1-61). Elizabeth - Darcy: ..."

Leiden (Traag et al. 2019; scikit-network's implementation, the library graph mode already uses for PageRank) on the
undirected entity graph of one spoiler-safe view: an edge per related pair, weighted log(1 + summed triple weight), as
the walk weighs it. It runs without node shuffling and with a fixed random state on a graph whose nodes are entity
positions in a fixed order, so the same view gives the same communities in every process (hash seeds play no part:
tests/unit/test_graph_global.py runs it under two PYTHONHASHSEEDs). Entities related to no one are left out (a
community of one says nothing a passage does not). Microsoft GraphRAG summarizes each community with an LLM; here
the report is the community's own structure, and with a capable model core.retrieval.global_search maps over those
reports and reduces the answers.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from core.retrieval.entities import EntityIndex
from core.retrieval.graphrank import ViewGraph

# Leiden's resolution: 1 gave communities of 100-200 entities on GraphRAG-Bench's books, 3 gives 20-50
RESOLUTION = 3.0
RANDOM_STATE = 2022
MIN_MEMBERS = 2
REPORT_MEMBERS = 12     # members named in a report
REPORT_RELATIONSHIPS = 8


@dataclass(frozen=True)
class Community:
    id: int                                                  # 0 = the largest (by summed mentions)
    members: tuple[int, ...]                                 # entity positions, most mentioned first
    relationships: tuple[tuple[int, int, float, tuple[str, ...]], ...]   # (a, b, weight, labels), heaviest first
    chapters: tuple[int, ...]                                # chapters with a relationship inside the community
    mentions: int                                            # passages naming a member, summed over members


def detect_communities(graph: ViewGraph, index: EntityIndex, upto: int | None = None) -> list[Community]:
    """The communities of the view's entity graph, largest first; [] when no two visible entities are related."""
    m = graph.n_entities
    if not graph.entity_edges or m == 0:
        return []
    a = np.array([k[0] for k in graph.entity_edges], dtype=np.int64)
    b = np.array([k[1] for k in graph.entity_edges], dtype=np.int64)
    w = np.log1p(np.array([v[0] for v in graph.entity_edges.values()], dtype=np.float64))
    related = np.unique(np.concatenate([a, b]))
    local = {int(e): i for i, e in enumerate(related)}
    la = np.array([local[int(x)] for x in a])
    lb = np.array([local[int(x)] for x in b])
    size = related.size
    adjacency = sparse.csr_matrix((np.concatenate([w, w]), (np.concatenate([la, lb]), np.concatenate([lb, la]))),
                                  shape=(size, size))
    from sknetwork.clustering import Leiden
    labels = Leiden(resolution=RESOLUTION, shuffle_nodes=False, sort_clusters=True, return_probs=False,
                    return_aggregate=False, random_state=RANDOM_STATE).fit_predict(adjacency)
    groups: dict[int, list[int]] = defaultdict(list)
    for i, label in enumerate(labels):
        groups[int(label)].append(int(related[i]))
    degree = graph.passage_degree
    community_of = {int(related[i]): int(label) for i, label in enumerate(labels)}
    inside: dict[int, list[tuple[int, int, float, tuple[str, ...]]]] = defaultdict(list)
    for (x, y), (wt, labels_) in graph.entity_edges.items():
        if community_of[x] == community_of[y]:
            inside[community_of[x]].append((x, y, wt, tuple(labels_)))
    chapters_of: dict[tuple[int, int], set[int]] = defaultdict(set)
    for rel in index.relations:
        if upto is not None and rel.chapter > upto:
            break
        chapters_of[(min(rel.a, rel.b), max(rel.a, rel.b))].add(rel.chapter)
    found = []
    for label, members in groups.items():
        if len(members) < MIN_MEMBERS:
            continue
        ordered = tuple(sorted(members, key=lambda e: (-degree[e], index.entities[e].label, e)))
        rels = sorted(inside[label], key=lambda r: (-r[2], r[0], r[1]))
        chapters: set[int] = set()
        for x, y, _, _ in rels:
            chapters |= chapters_of.get((x, y), set())
        found.append((ordered, tuple(rels), tuple(sorted(chapters)), int(sum(degree[e] for e in members))))
    found.sort(key=lambda c: (-c[3], c[0]))
    return [Community(i, members, rels, chapters, mentions) for i, (members, rels, chapters, mentions)
            in enumerate(found)]


def chapter_ranges(chapters: Sequence[int]) -> str:
    """"1-4, 7, 9-10" for [1, 2, 3, 4, 7, 9, 10]."""
    runs: list[list[int]] = []
    for c in sorted(set(chapters)):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def report_text(community: Community, index: EntityIndex, *, members: int = REPORT_MEMBERS,
                relationships: int = REPORT_RELATIONSHIPS) -> str:
    """The community as one paragraph: its members, the chapters it acts in, its strongest relationships."""
    label = [e.label for e in index.entities]
    names = ", ".join(label[e] for e in community.members[:members])
    more = len(community.members) - members
    head = f"{names}{f' and {more} more' if more > 0 else ''}"
    where = f" (chapters {chapter_ranges(community.chapters)})" if community.chapters else ""
    rels = "; ".join(f"{label[a]} – {label[b]}: {', '.join(labels[:3])}"
                     for a, b, _, labels in community.relationships[:relationships])
    return f"{head}{where}." + (f" {rels}." if rels else "")

"""Entity ids that survive re-resolution: a rebuilt graph's clusters take the ids of the entities they continue, so
user decisions, links and bookmarks that name an entity keep pointing at it."""
from __future__ import annotations

from collections import Counter

from core.kg.resolve import Cluster
from core.kg.types import KgEntity


def assign_ids(clusters: list[Cluster], previous: list[KgEntity]) -> list[int | None]:
    """Reuse the id of the previous entity sharing the most mentions' worth of names with each cluster (each id at
    most once), so ids survive re-resolution; None where a cluster is new."""
    owner = {n.name: e.id for e in previous for n in e.names}
    overlaps: list[tuple[int, int, int]] = []   # (-shared mentions, cluster index, entity id)
    for i, cluster in enumerate(clusters):
        shared: Counter[int] = Counter()
        for n in cluster.names:
            if n.name in owner:
                shared[owner[n.name]] += max(n.count, 1)
        overlaps.extend((-count, i, eid) for eid, count in shared.items())
    ids: list[int | None] = [None] * len(clusters)
    used: set[int] = set()
    for _, i, eid in sorted(overlaps):
        if ids[i] is None and eid not in used:
            ids[i] = eid
            used.add(eid)
    return ids

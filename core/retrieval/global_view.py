"""The global view of a whole-book or creative question: the communities of the entities it names, told from those
entities' side, and the chapters where those communities act.

    view = global_view(communities, index, seeds, max_communities=3)
    view.reports      -> [CommunityReport(community, text, focus, chapters)], most relevant first
    view.members      -> entity positions of those communities (their sentences become candidates)

Which communities: those holding a seed entity (the question names or means it), in the order of their best seed's
weight; when no seed lies in any community, the communities whose members the walk reached most (PageRank mass).
A report names the community's members most related to the question's own entities first (the summed weight of
their relationships with the seeds), then the others by mentions, and the relationships that involve a seed
before the rest: a question about Jereed gets the Moors, the palms and Captain Balfour, not the Sultan the whole
book revolves around. In the single prompt the communities steer which sentences fill it (their members nearest the
question count toward coverage, MEMBER_SHARE, and the sentences naming them are candidates): a report's own text
took room from sentences and lowered evidence recall on the tuning books (bench/README.md). With a capable model
each report becomes one map prompt of GraphRAG's global search (core.retrieval.global_search).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from core.retrieval.communities import Community, chapter_ranges
from core.retrieval.entities import EntityIndex
from core.retrieval.graphrank import Seed

MAX_COMMUNITIES = 3
REPORT_MEMBERS = 10
REPORT_RELATIONSHIPS = 6


@dataclass(frozen=True)
class CommunityReport:
    community: Community
    text: str
    focus: tuple[int, ...]        # the seed entities it holds
    chapters: tuple[int, ...]


MEMBER_SHARE = 0.1       # coverage weight of a community member near the seeds, relative to a named seed
NEAR_MEMBERS = 10        # members per community (those most related to the seeds) the prompt's sentences may cover


@dataclass
class GlobalView:
    reports: list[CommunityReport] = field(default_factory=list)
    members: set[int] = field(default_factory=set)
    near: dict[int, float] = field(default_factory=dict)   # members most related to the seeds -> coverage weight


def global_view(communities: Sequence[Community], index: EntityIndex, seeds: Sequence[Seed], *,
                entity_mass: Mapping[int, float] | None = None,
                max_communities: int = MAX_COMMUNITIES) -> GlobalView:
    """The reports of the communities that matter to the question (see the module docstring)."""
    if not communities:
        return GlobalView()
    weight: dict[int, float] = defaultdict(float)
    for s in seeds:
        weight[s.entity] = max(weight[s.entity], s.weight)
    home = {e: c for c in communities for e in c.members}
    score: dict[int, float] = defaultdict(float)
    for e, w in weight.items():
        if e in home:
            score[home[e].id] = max(score[home[e].id], w)
    if not score and entity_mass:
        for e, mass in entity_mass.items():
            if e in home:
                score[home[e].id] += mass
    chosen = sorted(score, key=lambda c: (-score[c], c))[:max_communities]
    by_id = {c.id: c for c in communities}
    out = GlobalView()
    for cid in chosen:
        community = by_id[cid]
        focus = tuple(e for e in community.members if e in weight)
        out.reports.append(CommunityReport(community, focused_report(community, index, focus), focus,
                                           community.chapters))
        out.members.update(community.members)
        near = _nearness(community, focus)
        for e in sorted(near, key=lambda e: (-near[e], e))[:NEAR_MEMBERS]:
            out.near.setdefault(e, MEMBER_SHARE)
    return out


def _nearness(community: Community, focus: Sequence[int]) -> dict[int, float]:
    """Each member's summed relationship weight with the focus entities (the focus itself left out)."""
    focus_set = set(focus)
    near: dict[int, float] = defaultdict(float)
    for a, b, w, _ in community.relationships:
        if a in focus_set and b not in focus_set:
            near[b] += w
        if b in focus_set and a not in focus_set:
            near[a] += w
    return near


def focused_report(community: Community, index: EntityIndex, focus: Sequence[int], *,
                   members: int = REPORT_MEMBERS, relationships: int = REPORT_RELATIONSHIPS) -> str:
    """One paragraph: the members nearest the focus entities first, the chapters, the focus's relationships first."""
    label = [e.label for e in index.entities]
    near = _nearness(community, focus)
    focus_set = set(focus)
    rank = {e: i for i, e in enumerate(community.members)}  # most mentioned first
    ordered = sorted(community.members, key=lambda e: (e not in focus_set, -near.get(e, 0.0), rank[e]))
    shown = ordered[:members]
    more = len(ordered) - len(shown)
    head = ", ".join(label[e] for e in shown) + (f" and {more} more" if more > 0 else "")
    where = f" (chapters {chapter_ranges(community.chapters)})" if community.chapters else ""
    rels = sorted(community.relationships, key=lambda r: (not (r[0] in focus_set or r[1] in focus_set), -r[2]))
    lines = "; ".join(f"{label[a]} – {label[b]}: {', '.join(labels[:3])}" for a, b, _, labels in rels[:relationships])
    return f"People, places and things together in the book: {head}{where}." + (f" {lines}." if lines else "")

"""The writer's knowledge-graph context block (Remember Me, Appendix A.1.2) and which chapters it shows.

For chapter N the block shows what chapter 1 introduced (foundational), what each milestone chapter introduced
(every fifth chapter from 6: 6, 11, 16, ...), what the three chapters before N introduced (N-3..N-1, leaving out 1
and milestones, already shown), then the cumulative characters and organisations, their relationships, and the
other entities and relationships. Everything is computed from a `StoryGraph` snapshot, so this module needs no store.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from core.write.prompts import (KG_CHARACTER_RELATIONS, KG_CHARACTERS, KG_FOUNDATIONAL, KG_HEADER, KG_MILESTONE,
                                KG_OTHER_ENTITIES, KG_OTHER_RELATIONS, KG_RECENT)

CHARACTER_TYPES = frozenset({"character", "organization"})
MILESTONE_START, MILESTONE_STEP, RECENT = 6, 5, 3
MAX_ITEMS = 60  # per line of the block: a long story must not crowd the chapters out of the prompt


@dataclass(frozen=True)
class GraphNode:
    label: str
    type: str
    first_chapter: int


@dataclass(frozen=True)
class GraphEdge:
    source: str
    relation: str
    target: str
    chapter: int
    source_type: str = "object"
    target_type: str = "object"

    @property
    def text(self) -> str:
        return f"{self.source} -[{self.relation}]-> {self.target}"

    @property
    def involves_character(self) -> bool:
        return self.source_type in CHARACTER_TYPES or self.target_type in CHARACTER_TYPES


@dataclass
class StoryGraph:
    """The story's graph as of some chapter: canonical nodes (with the chapter that introduced them) and edges."""

    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)

    def upto(self, chapter: int) -> StoryGraph:
        return StoryGraph([n for n in self.nodes if n.first_chapter <= chapter],
                          [e for e in self.edges if e.chapter <= chapter])


@dataclass(frozen=True)
class ContextChapters:
    """Which earlier chapters' introductions chapter `n` is shown."""

    n: int
    foundational: int | None
    milestones: tuple[int, ...]
    recent: tuple[int, ...]

    @property
    def shown(self) -> tuple[int, ...]:
        first = (self.foundational,) if self.foundational else ()
        return tuple(sorted({*first, *self.milestones, *self.recent}))


def is_milestone(chapter: int) -> bool:
    return chapter >= MILESTONE_START and (chapter - MILESTONE_START) % MILESTONE_STEP == 0


def select_context_chapters(n: int) -> ContextChapters:
    """Chapter 1, the milestones before n, and n-3..n-1 without chapter 1 and milestones."""
    if n < 1:
        raise ValueError(f"chapter numbers start at 1, got {n}")
    milestones = tuple(range(MILESTONE_START, n, MILESTONE_STEP))
    recent = tuple(k for k in range(max(1, n - RECENT), n) if k != 1 and not is_milestone(k))
    return ContextChapters(n, 1 if n > 1 else None, milestones, recent)


def _node_text(node: GraphNode) -> str:
    return f"{node.label} ({node.type})"


def _join(items: Sequence[str]) -> str:
    items = list(dict.fromkeys(items))
    if not items:
        return "(none)"
    extra = len(items) - MAX_ITEMS
    return "; ".join(items[:MAX_ITEMS]) + (f"; ... and {extra} more" if extra > 0 else "")


def introduced_in(graph: StoryGraph, chapter: int) -> str:
    """The nodes first seen in `chapter` and the relationships it stated."""
    nodes = [_node_text(n) for n in graph.nodes if n.first_chapter == chapter]
    edges = [e.text for e in graph.edges if e.chapter == chapter]
    return _join(nodes + edges)


def kg_block(graph: StoryGraph, n: int) -> str:
    """The block for writing chapter `n`, from the graph of chapters before it; '' when it knows nothing yet."""
    graph = graph.upto(n - 1)
    if not graph.nodes and not graph.edges:
        return ""
    chosen = select_context_chapters(n)
    lines = [KG_HEADER]
    if chosen.foundational:
        lines.append(KG_FOUNDATIONAL.format(items=introduced_in(graph, 1)))
    lines += [KG_MILESTONE.format(m=m, items=introduced_in(graph, m)) for m in chosen.milestones]
    lines += [KG_RECENT.format(k=k, items=introduced_in(graph, k)) for k in chosen.recent]
    characters = [n for n in graph.nodes if n.type in CHARACTER_TYPES]
    others = [n for n in graph.nodes if n.type not in CHARACTER_TYPES]
    lines.append(KG_CHARACTERS.format(items=_join([_node_text(c) for c in characters])))
    lines.append(KG_CHARACTER_RELATIONS.format(items=_join([e.text for e in graph.edges if e.involves_character])))
    lines.append(KG_OTHER_ENTITIES.format(items=_join([_node_text(o) for o in others])))
    lines.append(KG_OTHER_RELATIONS.format(items=_join([e.text for e in graph.edges if not e.involves_character])))
    return "\n".join(lines)

"""Edge linearization (KGScore paper, section 3.4) and filling the context budget with edges.

Edges are gathered best-ranked first while the prompt still fits, then arranged: grouped by subject entity, subjects in
decreasing order of mentions in the chapter; inside a group, self-loops (descriptions, no object) first, then the
edges to each object, objects again by mentions in the chapter. Ties keep the better-ranked edge first.

Two formats: "lines" (`subject; predicate; object` per line, subject and object always written out: for models used
without fine-tuning) and "tokens" (`<subject> Romeo <predicate> in love <object> Juliet <predicate> ...`: the format
with special tokens for fine-tuned models, Figure 1b).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from core.summarize.retrieval import KgEdge

SUBJECT_TOKEN, OBJECT_TOKEN, PREDICATE_TOKEN, CHAPTER_TOKEN = "<subject>", "<object>", "<predicate>", "<chapter>"


@dataclass
class SubjectGroup:
    node: str
    self_loops: list[KgEdge] = field(default_factory=list)
    objects: list[tuple[str, list[KgEdge]]] = field(default_factory=list)   # (object node, its edges)

    @property
    def edges(self) -> list[KgEdge]:
        return [*self.self_loops, *(e for _, es in self.objects for e in es)]


def arrange(ranked: Sequence[KgEdge], mentions: Mapping[str, int]) -> list[SubjectGroup]:
    """The gathered edges (best first) grouped and ordered as the paper describes."""
    first_seen: dict[str, int] = {}
    for i, e in enumerate(ranked):
        first_seen.setdefault(e.node, i)
        if e.object_node is not None:
            first_seen.setdefault(e.object_node, i)

    def order(node: str) -> tuple[int, int]:
        return -mentions.get(node, 0), first_seen.get(node, len(ranked))

    groups: dict[str, SubjectGroup] = {}
    by_object: dict[str, dict[str, list[KgEdge]]] = {}
    for e in ranked:
        group = groups.setdefault(e.node, SubjectGroup(e.node))
        if e.is_self_loop:
            group.self_loops.append(e)
        else:
            by_object.setdefault(e.node, {}).setdefault(e.object_node or "", []).append(e)
    for node, objects in by_object.items():
        groups[node].objects = [(o, objects[o]) for o in sorted(objects, key=order)]
    return [groups[n] for n in sorted(groups, key=order)]


def linearize_lines(ranked: Sequence[KgEdge], mentions: Mapping[str, int]) -> list[str]:
    """One `subject; predicate; object` line per edge, in the arranged order."""
    return [e.line for g in arrange(ranked, mentions) for e in g.edges]


def linearize_tokens(ranked: Sequence[KgEdge], mentions: Mapping[str, int], names: Mapping[str, str]) -> str:
    """The special-token format: each subject once, each new object once, then its predicates."""
    parts: list[str] = []
    for g in arrange(ranked, mentions):
        parts.append(f"{SUBJECT_TOKEN} {names.get(g.node) or g.edges[0].subject}")
        parts.extend(f"{PREDICATE_TOKEN} {e.rank_text}" for e in g.self_loops)
        for object_node, edges in g.objects:
            parts.append(f"{OBJECT_TOKEN} {names.get(object_node) or edges[0].object}")
            parts.extend(f"{PREDICATE_TOKEN} {e.predicate}" for e in edges)
    return " ".join(parts)


def linearize(ranked: Sequence[KgEdge], mentions: Mapping[str, int], names: Mapping[str, str],
              fmt: str = "lines") -> tuple[str, list[str]]:
    """(the text given to the model, the lines shown to the user) for the gathered edges."""
    lines = linearize_lines(ranked, mentions)
    text = "\n".join(lines) if fmt == "lines" else linearize_tokens(ranked, mentions, names)
    return text, lines


def fill(ranked: Sequence[KgEdge], fits: Callable[[Sequence[KgEdge]], bool], limit: int | None = None) -> \
        list[KgEdge]:
    """The longest best-first prefix of `ranked` for which `fits(prefix)` holds (the whole prompt it would make is
    within budget). Binary search over the prefix length; only a length that was checked to fit is returned, so the
    result never exceeds the budget even if adding an edge could ever shorten the prompt."""
    n = len(ranked) if limit is None else min(limit, len(ranked))
    if n == 0 or not fits(ranked[:0]):
        return []
    if fits(ranked[:n]):
        return list(ranked[:n])
    lo, hi = 0, n - 1  # lo fits; nothing above hi does
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(ranked[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return list(ranked[:lo])

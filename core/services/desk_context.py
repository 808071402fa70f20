"""What the writer's desk adds to the writer's prompt for chapter n (issue 34): the chapter's plan as the writer left
it, and the canon, the pinned facts of the entities in the chapter.

Which entities are in a chapter not yet written: those the plan names (its characters, its beats, where it goes),
and when the plan names none, those in play in the last two chapters (as the continuity block chooses them) and,
for chapter 1, those of the premise. A pin of an entity the chapter does not name stays out, so the prompt is not
crowded with the whole bible. Most relevant first: the plan's characters in its order, then the entities named most
often; the block stops at its budget (an eighth of a small context window at most) and says how many it left out.

Imports only stores and pure modules: write_service imports it, and the plan and bible services import
write_service.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from core.kg.types import KgEntity
from core.store import Store
from core.write.bible import CANON_BUDGET_TOKENS, BibleEntry, canon_block, mentions, named_in
from core.write.plan import ChapterPlan, plan_block


@dataclass(frozen=True)
class DeskContext:
    plan: str          # the plan block ("" without a plan)
    canon: str         # the canon block ("" without a pin in the chapter)
    left_out: int      # pins of the chapter's entities that did not fit the budget

    @property
    def block(self) -> str:
        return "\n\n".join(p for p in (self.plan, self.canon) if p)


def entity_names(entries: Sequence[BibleEntry], graph: Iterable[KgEntity]) -> dict[str, tuple[str, ...]]:
    """Entity label -> every name it goes by: the bible's own names and, for an entity the graph knows (by label or
    by a shared name), the graph's aliases."""
    graph = list(graph)
    by_name = {n: e for e in graph for n in (e.label, *e.aliases)}
    out: dict[str, tuple[str, ...]] = {}
    for entry in entries:
        names = set(out.get(entry.entity, ())) | set(entry.all_names)
        for name in entry.all_names:
            if name in by_name:
                names |= {by_name[name].label, *by_name[name].aliases}
        out[entry.entity] = tuple(sorted(names, key=lambda n: (-len(n), n)))
    return out


def chapter_entities(plan: ChapterPlan | None, names: dict[str, tuple[str, ...]], in_play: Counter[str],
                     premise: str = "") -> list[str]:
    """The bible's entities in the chapter, most relevant first (see the module docstring)."""
    planned = plan is not None and bool(plan.characters or plan.beats)
    text = "\n".join([*(plan.characters if plan else ()), *(plan.beats if plan else ()), plan.arc if plan else ""])
    order: list[tuple[int, int, str]] = []
    for label, aliases in names.items():
        cast = plan.characters if plan else ()
        position = next((k for k, c in enumerate(cast) if named_in(c, aliases) or named_in(label, [c])), None)
        if planned:
            hits = mentions(text, aliases)
            if position is None and not hits:
                continue
        else:
            hits = sum(in_play[a] for a in aliases) + mentions(premise, aliases)
            if not hits:
                continue
        order.append((position if position is not None else len(names) + 1, -hits, label))
    return [label for *_, label in sorted(order)]


def desk_context(store: Store, work_id: int, n: int, count: Callable[[str], int], context_window: int,
                 premise: str = "") -> DeskContext:
    """The plan and canon blocks of chapter `n` for the writer's prompt."""
    plan = store.plan_get(work_id, n)
    pins = [e for e in store.bible_list(work_id) if e.kind == "pin"]
    if not pins:
        return DeskContext(plan_block(plan), "", 0)
    names = entity_names(pins, store.kg_entities(work_id))
    in_play: Counter[str] = Counter()
    for c in store.kg_name_counts(work_id, n - 1) if n > 1 else ():
        if c.chapter_index >= n - 2:
            in_play[c.name] += c.count
    chosen = chapter_entities(plan, names, in_play, premise if n == 1 else "")
    ranked = [(label, [p.text for p in pins if p.entity == label]) for label in chosen]
    canon, left_out = canon_block(ranked, count, min(CANON_BUDGET_TOKENS, max(context_window // 8, 64)))
    return DeskContext(plan_block(plan), canon, left_out)

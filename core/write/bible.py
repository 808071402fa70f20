"""The story bible's own part (issue 34): what the writer adds to the cards the graph makes, a note per entity and
pinned facts, and the canon block the writer's prompt carries.

A card is made from the graph (core.services.bible_service); an entry is kept by the entity's label and its other
names, so it survives a graph rebuild that gives the entity a new id, and a bible seeded from a book names entities
the new story's graph has not met yet. Pinned facts are canon: for every chapter one of the entity's names is in
(the plan's characters and beats, else the chapters in play), they go into the writer's prompt, most relevant first,
as many as the budget holds (`canon_block`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

KINDS = ("note", "pin")
MAX_TEXT = 2000
CANON_HEADER = "CANON (facts the writer pinned; keep them true):"
CANON_BUDGET_TOKENS = 400   # at most this much of the writer's prompt, or an eighth of a small context window


@dataclass(frozen=True)
class BibleEntry:
    """A note or a pinned fact on an entity. `states`: a pin's story states as the offline parse reads them (the
    continuity checker's input), kept with the pin so a check needs no parse."""

    id: int
    work_id: int
    entity: str
    kind: str
    text: str
    names: tuple[str, ...] = ()
    entity_type: str = ""
    states: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    @property
    def all_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.entity, *self.names)))


@dataclass(frozen=True)
class NewEntry:
    """An entry about to be stored."""

    entity: str
    kind: str
    text: str
    names: tuple[str, ...] = ()
    entity_type: str = ""
    states: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Unknown bible entry kind {self.kind!r}.")
        if not self.entity.strip():
            raise ValueError("A note or a pin needs the entity it is about.")
        if not self.text.strip():
            raise ValueError("The note or fact is empty.")
        if len(self.text) > MAX_TEXT:
            raise ValueError(f"A note or a fact holds at most {MAX_TEXT:,} characters; this one has "
                             f"{len(self.text):,}.")


def _pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    wanted = sorted({n for n in names if n and len(n) > 1}, key=len, reverse=True)
    if not wanted:
        return None
    return re.compile(r"(?<![\w])(?:" + "|".join(re.escape(n) for n in wanted) + r")(?![\w])")


def named_in(text: str, names: Iterable[str]) -> bool:
    """Whether one of the names occurs in the text as a whole word (case as written: "Will" the man, not "will")."""
    pattern = _pattern(names)
    return bool(pattern and pattern.search(text))


def mentions(text: str, names: Iterable[str]) -> int:
    pattern = _pattern(names)
    return len(pattern.findall(text)) if pattern else 0


def canon_block(ranked: Sequence[tuple[str, Sequence[str]]], count: Callable[[str], int],
                budget_tokens: int = CANON_BUDGET_TOKENS) -> tuple[str, int]:
    """(the block, pins left out): the pinned facts of the entities in `ranked` (label, its pins; most relevant
    entity first), one line each, as many as fit `budget_tokens`. "" when there is no pin."""
    lines: list[str] = []
    total = sum(len(pins) for _, pins in ranked)
    for label, pins in ranked:
        for pin in pins:
            line = f"- {label}: {' '.join(pin.split())}"
            if count("\n".join([CANON_HEADER, *lines, line])) > budget_tokens:
                return ("\n".join([CANON_HEADER, *lines]) if lines else ""), total - len(lines)
            lines.append(line)
    return ("\n".join([CANON_HEADER, *lines]) if lines else ""), 0

"""The Remember Me loop as a small explicit state machine: writer -> grapher -> planner, until the story is done.

    state = StoryState(next_chapter=1, phase=Phase.WRITE)
    while state.phase is not Phase.DONE:
        state = step(state, agents, max_chapters)      # persist `state` after each step to resume after a crash

WRITE: the writer drafts chapter n and it is stored (`agents.accept`) -> GRAPH (remembering the final flag).
GRAPH: the grapher extracts chapter n into the story's graph (skipped for a no-KG story) -> PLAN.
PLAN: the planner advances to n + 1 and resets the flags, or ends the story when the writer said the chapter was
final or the chapter limit is reached -> WRITE or DONE. With a plan agent (issue 34) it also outlines chapter n + 1.
A state saved after any step names exactly the work left, so a killed run resumes without redoing a stored chapter.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from enum import Enum
from typing import Any

from core.write.writer import ChapterDraft


class Phase(str, Enum):
    WRITE = "write"
    GRAPH = "graph"
    PLAN = "plan"
    DONE = "done"


@dataclass(frozen=True)
class StoryState:
    next_chapter: int = 1          # the chapter being written (WRITE) or just stored (GRAPH, PLAN)
    phase: Phase = Phase.WRITE
    final: bool = False            # the writer's flag for the chapter just stored
    finished: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"phase": self.phase.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> StoryState:
        if not data:
            return cls()
        return cls(int(data.get("next_chapter", 1)), Phase(data.get("phase", "write")), bool(data.get("final")),
                   bool(data.get("finished")))


@dataclass
class Agents:
    """What the loop calls. `write(n)` drafts chapter n; `accept(draft)` stores it and returns its index;
    `graph(index)` brings the graph up to date with that chapter (None for a story written without a graph)."""

    write: Callable[[int], ChapterDraft]
    accept: Callable[[ChapterDraft], int]
    graph: Callable[[int], object] | None = None  # its result (a build report) is not used
    plan: Callable[[int], object] | None = None   # outlines chapter n before it is written (issue 34); optional


def plan(state: StoryState, max_chapters: int) -> StoryState:
    """The planner: end after a final chapter or at the limit, else advance and reset the flags."""
    n = state.next_chapter
    if state.final or n >= max_chapters:
        return StoryState(n, Phase.DONE, state.final, True)
    return StoryState(n + 1, Phase.WRITE)


def step(state: StoryState, agents: Agents, max_chapters: int) -> StoryState:
    """One transition of the machine (see the module docstring)."""
    if state.phase is Phase.WRITE:
        draft = agents.write(state.next_chapter)
        index = agents.accept(draft)
        return StoryState(index, Phase.GRAPH, draft.final)
    if state.phase is Phase.GRAPH:
        if agents.graph is not None:
            agents.graph(state.next_chapter)
        return replace(state, phase=Phase.PLAN)
    if state.phase is Phase.PLAN:
        planned = plan(state, max_chapters)
        if planned.phase is Phase.WRITE and agents.plan is not None:
            agents.plan(planned.next_chapter)   # the next chapter's outline, before the state says WRITE
        return planned
    return state


def after_accepting(index: int, final: bool) -> StoryState:
    """The state after a chapter was stored outside the loop (accepted on the page, or written by the user)."""
    return StoryState(index, Phase.GRAPH, final)


def run(state: StoryState, agents: Agents, max_chapters: int, *, chapters: int | None = None,
        on_step: Callable[[StoryState], None] | None = None) -> StoryState:
    """Step until DONE, or until `chapters` more chapters have gone through the planner; `on_step` sees (and
    should persist) every new state."""
    planned = 0
    while state.phase is not Phase.DONE and (chapters is None or planned < chapters):
        before = state.phase
        state = step(state, agents, max_chapters)
        if on_step:
            on_step(state)
        planned += before is Phase.PLAN
    return state

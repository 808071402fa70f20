"""The Remember Me context block: which chapters it shows (1, milestones 6, 11, 16 ..., the three recent ones) and
what it says about them."""
from __future__ import annotations

import pytest

from core.write.context import GraphEdge, GraphNode, StoryGraph, is_milestone, kg_block, select_context_chapters


@pytest.mark.parametrize(("n", "milestones", "recent"), [
    (1, (), ()),
    (2, (), ()),              # chapter 1 is foundational, never "recent"
    (4, (), (2, 3)),
    (5, (), (2, 3, 4)),
    (7, (6,), (4, 5)),        # 6 is a milestone, shown once
    (12, (6, 11), (9, 10)),
    (17, (6, 11, 16), (14, 15)),
    (20, (6, 11, 16), (17, 18, 19)),
])
def test_selected_chapters(n: int, milestones: tuple[int, ...], recent: tuple[int, ...]) -> None:
    chosen = select_context_chapters(n)
    assert chosen.milestones == milestones and chosen.recent == recent
    assert chosen.foundational == (1 if n > 1 else None)
    assert all(k < n for k in chosen.shown)


def test_milestones_every_fifth_from_six() -> None:
    assert [k for k in range(1, 30) if is_milestone(k)] == [6, 11, 16, 21, 26]
    with pytest.raises(ValueError):
        select_context_chapters(0)


def _graph() -> StoryGraph:
    nodes = [GraphNode("Elena Voss", "character", 1), GraphNode("Millbrook", "location", 1),
             GraphNode("Mara Quill", "character", 3), GraphNode("The Guild", "organization", 6),
             GraphNode("Silver Key", "object", 8), GraphNode("Late Arrival", "character", 9)]
    edges = [GraphEdge("Elena Voss", "lives in", "Millbrook", 1, "character", "location"),
             GraphEdge("Mara Quill", "mentor of", "Elena Voss", 3, "character", "character"),
             GraphEdge("Silver Key", "opens", "Millbrook", 8, "object", "location")]
    return StoryGraph(nodes, edges)


def test_block_sections_for_chapter_nine() -> None:
    block = kg_block(_graph(), 9)
    lines = block.splitlines()
    assert lines[0] == "KNOWLEDGE GRAPH (use this to maintain consistency):"
    assert lines[1] == ("## Introduced in Chapter 1 (foundational): Elena Voss (character); Millbrook (location); "
                        "Elena Voss -[lives in]-> Millbrook")
    assert lines[2] == "## Introduced in Chapter 6 (milestone): The Guild (organization)"
    assert lines[3:5] == ["## New in Chapter 7: (none)",
                          "## New in Chapter 8: Silver Key (object); Silver Key -[opens]-> Millbrook"]
    assert "Chapter 3" not in block and "Chapter 5" not in block   # neither recent nor a milestone for chapter 9
    characters = next(ln for ln in lines if ln.startswith("## All Characters"))
    assert "Mara Quill (character)" in characters and "The Guild (organization)" in characters  # cumulative
    assert "Late Arrival" not in block                              # introduced in chapter 9 itself: not yet known
    relations = next(ln for ln in lines if ln.startswith("## All Character Relationships"))
    assert "Mara Quill -[mentor of]-> Elena Voss" in relations and "Silver Key" not in relations
    assert next(ln for ln in lines if ln.startswith("## Other Entities")).endswith("Silver Key (object)")
    assert next(ln for ln in lines if ln.startswith("## Other Relationships")).endswith(
        "Silver Key -[opens]-> Millbrook")


def test_block_is_empty_before_anything_is_known() -> None:
    assert kg_block(_graph(), 1) == ""
    assert kg_block(StoryGraph(), 5) == ""


def test_long_lists_are_capped() -> None:
    graph = StoryGraph([GraphNode(f"Person {i}", "character", 1) for i in range(100)])
    line = kg_block(graph, 2).splitlines()[1]
    assert "Person 59 (character)" in line and "Person 60" not in line and line.endswith("... and 40 more")

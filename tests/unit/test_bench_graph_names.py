"""bench/graph_names_scoring: top-10 types, merged aliases and wrong merges against a small gold list."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from graph_names_scoring import alias_merges, judge_top, wrong_merges  # noqa: E402

GOLD = [{"type": "character", "names": ["Sol-leks", "Solleks"]},
        {"type": "character", "names": ["John Thornton", "Thornton"]},
        {"type": ["organization", "character"], "names": ["Moors", "Moor"]},
        {"type": "location", "names": ["San Francisco", "Frisco"]},
        {"type": "character", "names": ["Mr. March"]}, {"type": "character", "names": ["Mrs. March", "Marmee"]}]


def _e(i: int, names: list[str], kind: str, mentions: int) -> dict:
    return {"id": i, "label": names[0], "names": names, "type": kind, "mentions": mentions}


def test_types_right_unjudged_and_either_of_two_types() -> None:
    top = [_e(1, ["Sol-leks"], "character", 29), _e(2, ["Moors"], "character", 20), _e(3, ["Time"], "character", 9),
           _e(4, ["Frisco"], "organization", 1)]
    rows = judge_top(top, GOLD)["rows"]
    assert [r["verdict"] for r in rows] == ["right", "right", "unjudged", "wrong"]


def test_aliases_merged_count_the_gold_names_the_graph_has() -> None:
    entities = [_e(1, ["Sol-leks"], "character", 29), _e(2, ["Solleks"], "character", 1),
                _e(3, ["Thornton", "John Thornton"], "character", 100)]
    top = judge_top(entities[:1] + entities[2:], GOLD)["rows"]
    merged = alias_merges(top, entities, GOLD)
    assert (merged["found"], merged["merged"]) == (4, 3) and merged["missed"] == ["Sol-leks ~ Solleks"]


def test_a_wrong_merge_is_one_entity_with_two_gold_entities_names() -> None:
    entities = [_e(1, ["Mr. March", "Mrs. March"], "character", 9), _e(2, ["Moors", "Moor"], "organization", 5)]
    wrong = wrong_merges(entities, GOLD)
    assert [w["id"] for w in wrong] == [1] and wrong[0]["gold"] == ["Mr. March", "Mrs. March"]

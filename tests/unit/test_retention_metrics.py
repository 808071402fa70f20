"""The Remember Me formulas on hand-built chapter sets; presence matrix; dropped threads."""
from __future__ import annotations

import pytest

from core.metrics.retention import RetentionRow, dropped_threads, presence_matrix, retention_series

# Four chapters of a small story. Expected values worked out by hand below each formula.
CH1 = {"Anna", "Tom", "Mara"}
CH2 = {"Anna", "Tom", "Bob"}
CH3 = {"Anna", "Eve"}
CH4 = {"Mara", "Bob", "Eve", "Zed"}


def test_five_metrics_by_hand() -> None:
    rows = retention_series([CH1, CH2, CH3, CH4])
    # chapter 1: all new; C1 ∩ C1 / |C1| = 3/3; no previous chapter; nothing historical: 0 / |{} ∪ C1| = 0/3
    assert rows[0] == RetentionRow(total=3, new=3, chapter1=1.0, rolling=None, cumulative=0.0)
    # chapter 2: new = {Bob}; C2 ∩ C1 = {Anna, Tom} -> 2/3; rolling 2/3;
    # cumulative: C2 ∩ {Anna, Tom, Mara} = 2, {Anna, Tom, Mara} ∪ C2 = 4 -> 2/4
    assert rows[1] == RetentionRow(total=3, new=1, chapter1=2 / 3, rolling=2 / 3, cumulative=0.5)
    # chapter 3: new = {Eve}; C3 ∩ C1 = {Anna} -> 1/3; C3 ∩ C2 = {Anna} -> 1/3;
    # all previous = {Anna, Tom, Mara, Bob}: ∩ = 1, ∪ C3 = 5 -> 1/5
    assert rows[2] == RetentionRow(total=2, new=1, chapter1=1 / 3, rolling=1 / 3, cumulative=0.2)
    # chapter 4: new = {Zed}; C4 ∩ C1 = {Mara} -> 1/3; C4 ∩ C3 = {Eve} -> 1/2;
    # all previous = {Anna, Tom, Mara, Bob, Eve}: ∩ = {Mara, Bob, Eve} = 3, ∪ C4 = 6 -> 3/6
    assert rows[3] == RetentionRow(total=4, new=1, chapter1=1 / 3, rolling=0.5, cumulative=0.5)


def test_relationship_pairs_are_sets_too() -> None:
    r1 = {("Anna", "Tom")}
    r2 = {("Anna", "Tom"), ("Anna", "Bob")}
    r3: set[tuple[str, str]] = set()
    rows = retention_series([r1, r2, r3])
    assert rows[1] == RetentionRow(total=2, new=1, chapter1=1.0, rolling=1.0, cumulative=0.5)
    # an empty chapter: nothing retained, nothing new; rolling over a non-empty previous chapter is 0/2
    assert rows[2] == RetentionRow(total=0, new=0, chapter1=0.0, rolling=0.0, cumulative=0.0)


def test_undefined_ratios_are_none() -> None:
    rows = retention_series([set(), set(), {"Anna"}, set()])
    assert [r.chapter1 for r in rows] == [None, None, None, None]  # chapter 1 is empty: |C1| = 0
    assert rows[1].rolling is None and rows[1].cumulative is None  # 0/0 on both
    assert rows[2].rolling is None and rows[2].cumulative == 0.0 and rows[2].new == 1
    assert rows[3].rolling == 0.0 and rows[3].cumulative == 0.0


def test_no_chapters() -> None:
    assert retention_series([]) == []


def test_presence_matrix_orders_by_mentions() -> None:
    counts = [{"Anna": 3, "Tom": 1}, {"Tom": 1}, {"Anna": 1, "Eve": 5}]
    p = presence_matrix(counts, [1, 2, 3])
    assert p.threads == ["Eve", "Anna", "Tom"]
    assert p.counts == [[0, 0, 5], [3, 0, 1], [1, 1, 0]]
    assert presence_matrix(counts, [1, 2, 3], top=1).threads == ["Eve"]


def test_dropped_thread_never_returns() -> None:
    counts = [{"Anna": 2, "Tom": 1}, {"Anna": 1, "Tom": 1}, {"Anna": 1, "Tom": 1}, {"Anna": 1}, {"Anna": 1},
              {"Anna": 1}]
    found = dropped_threads(counts, [1, 2, 3, 4, 5, 6], k=2, min_chapters=3, min_mentions=99)
    assert [(d.thread, d.first_seen, d.last_seen, d.absent_for, d.returned_at, d.chapters_present, d.mentions)
            for d in found] == [("Tom", 1, 3, 3, None, 3, 3)]
    assert dropped_threads(counts, [1, 2, 3, 4, 5, 6], k=3, min_chapters=3) == []  # absent 3, not more than 3


def test_long_absence_that_ends_is_reported_with_return() -> None:
    counts = [{"Mara": 12}, {}, {}, {}, {"Mara": 1}]
    found = dropped_threads(counts, [1, 2, 3, 4, 5], k=2, min_chapters=3, min_mentions=10)
    assert len(found) == 1
    assert (found[0].last_seen, found[0].absent_for, found[0].returned_at) == (1, 3, 5)


def test_not_prominent_is_not_dropped() -> None:
    counts = [{"Walk-on": 1}, {}, {}, {}, {}]
    assert dropped_threads(counts, [1, 2, 3, 4, 5], k=1, min_chapters=2, min_mentions=2) == []
    # prominence is judged when the gap starts: mentions made after the gap do not count
    counts = [{"Bob": 1}, {}, {}, {}, {"Bob": 50}]
    assert dropped_threads(counts, [1, 2, 3, 4, 5], k=1, min_chapters=2, min_mentions=10) == []


def test_dropped_relationships_and_ordering() -> None:
    pair = ("Anna", "Tom")
    counts = [{pair: 4, ("Anna", "Eve"): 10}, {pair: 4}, {pair: 4}, {}, {}, {}, {pair: 1}]
    found = dropped_threads(counts, list(range(1, 8)), k=2, min_chapters=3, min_mentions=10)
    # the never-returned thread comes first, then the one that came back
    assert [(d.thread, d.returned_at) for d in found] == [(("Anna", "Eve"), None), (pair, 7)]


def test_counts_and_chapters_must_match() -> None:
    with pytest.raises(ValueError):
        dropped_threads([{}], [1, 2], k=1)

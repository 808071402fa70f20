"""The Remember Me paper's retention metrics, per chapter, over any per-chapter sets (characters or relationships);
plus the presence matrix and "dropped threads" built on the same per-chapter counts.

For chapter i with entity set C_i (C_1 the first chapter, P_i = C_1 ∪ ... ∪ C_{i-1} all previous chapters):

* total       = |C_i|
* new         = |C_i \\ P_i|   (entities never seen before; in chapter 1 every entity is new)
* chapter 1 retention  = |current ∩ chapter_1| / |chapter_1|                 = |C_i ∩ C_1| / |C_1|
* rolling retention    = |current ∩ previous| / |previous|                   = |C_i ∩ C_{i-1}| / |C_{i-1}|
* cumulative retention = |current ∩ all previous| / |all previous ∪ current| = |C_i ∩ P_i| / |P_i ∪ C_i|

The three ratios are quoted from the paper. Where a denominator is zero the ratio is undefined and is None (the
paper's n column counts only the chapters where it is defined: Table 2 has 233 of 270 chapters for relationship
chapter-1 retention). Taken literally the formulas give, in chapter 1: chapter-1 retention 1.0, rolling retention
None (there is no previous chapter), cumulative retention 0.0 (nothing is historical yet).
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence, Set
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

T = TypeVar("T", bound=Hashable)

METRICS = ("total", "new", "chapter1", "rolling", "cumulative")
METRIC_LABELS = {"total": "Total", "new": "New", "chapter1": "Chapter 1 Retention", "rolling": "Rolling Retention",
                 "cumulative": "Cumulative Retention"}


@dataclass(frozen=True)
class RetentionRow:
    total: int
    new: int
    chapter1: float | None
    rolling: float | None
    cumulative: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def retention_series(chapters: Sequence[Set[T]]) -> list[RetentionRow]:
    """The five metrics for each chapter, in order; `chapters[0]` is chapter 1."""
    rows: list[RetentionRow] = []
    seen: set[T] = set()
    first: Set[T] = chapters[0] if chapters else set()
    previous: Set[T] | None = None
    for current in chapters:
        rows.append(RetentionRow(
            total=len(current),
            new=len(current - seen),
            chapter1=_ratio(len(current & first), len(first)),
            rolling=_ratio(len(current & previous), len(previous)) if previous is not None else None,
            cumulative=_ratio(len(current & seen), len(seen | current)),
        ))
        seen |= current
        previous = current
    return rows


@dataclass(frozen=True)
class Presence:
    """Mention counts: rows are threads (characters or relationships), columns chapters."""

    threads: list[Any]
    chapters: list[int]
    counts: list[list[int]]


def presence_matrix(per_chapter: Sequence[Mapping[T, int]], chapters: Sequence[int],
                    top: int | None = None) -> Presence:
    """Threads ordered by total mentions (most first, ties by name), optionally only the `top` most mentioned."""
    totals: dict[T, int] = {}
    for counts in per_chapter:
        for key, n in counts.items():
            totals[key] = totals.get(key, 0) + n
    threads = sorted(totals, key=lambda k: (-totals[k], str(k)))[:top]
    return Presence(threads=list(threads), chapters=list(chapters),
                    counts=[[counts.get(t, 0) for counts in per_chapter] for t in threads])


@dataclass(frozen=True)
class DroppedThread:
    """A thread that was prominent and then went missing for more than K chapters.

    `last_seen` is the chapter before the gap; `returned_at` is None when it never came back (a dropped thread),
    otherwise the chapter it reappeared in (a long absence). Counts are up to `last_seen`.
    """

    thread: Any
    first_seen: int
    last_seen: int
    absent_for: int
    returned_at: int | None
    chapters_present: int
    mentions: int


def dropped_threads(per_chapter: Sequence[Mapping[T, int]], chapters: Sequence[int], k: int,
                    min_chapters: int = 3, min_mentions: int = 10) -> list[DroppedThread]:
    """Threads absent for more than `k` consecutive chapters after being prominent.

    Prominent, at the moment the gap starts, means present in at least `min_chapters` chapters or mentioned at
    least `min_mentions` times so far. A gap still open at the last chapter counts (the thread was dropped); every
    qualifying gap of a thread is reported. Never-returned threads come first, then the longest absences.
    """
    if len(per_chapter) != len(chapters):
        raise ValueError("One count mapping per chapter is needed.")
    found: list[DroppedThread] = []
    for thread in {key for counts in per_chapter for key in counts}:
        first: int | None = None
        last: int | None = None
        present = mentions = 0
        for pos, counts in enumerate(per_chapter):
            n = counts.get(thread, 0)
            if n <= 0:
                continue
            if first is not None and last is not None and pos - last - 1 > k and \
                    (present >= min_chapters or mentions >= min_mentions):
                found.append(DroppedThread(thread, chapters[first], chapters[last], pos - last - 1, chapters[pos],
                                           present, mentions))
            first = pos if first is None else first
            last, present, mentions = pos, present + 1, mentions + n
        if first is None or last is None:
            continue
        gap = len(per_chapter) - 1 - last
        if gap > k and (present >= min_chapters or mentions >= min_mentions):
            found.append(DroppedThread(thread, chapters[first], chapters[last], gap, None, present, mentions))
    return sorted(found, key=lambda d: (d.returned_at is not None, -d.absent_for, -d.mentions, str(d.thread)))

"""Hostile shapes of plain text, made here rather than committed (8 to 25 MB each): every file under the upload limit
imports, or is refused, in time linear in its size. "Chapter 1" then a million short lines took over 15 minutes
before the sentence splitter stopped slicing the paragraph before every full stop.

Each shape is imported in a child process (tests/support/hostile.py) at a quarter of its size and at full size. The
time bounds hold on a loaded two-core machine: the full-size import must take at most SECONDS_PER_MB per megabyte
(three times the goal of 30 s for 25 MB), and at most LINEAR_SLACK times the quarter-size import plus a second,
where linear work takes four times as long and quadratic work sixteen. bench/ingest.py measures the same shapes.
"""
from __future__ import annotations

import pytest

from storage.repository import SqlStore
from tests.support.hostile import import_in_child
from tests.support.hostile_shapes import SHAPES

SECONDS_PER_MB = 3.6
LINEAR_SLACK = 8
PEAK_MB_PER_MB = 30  # bound on the growth of the importing process's memory, per megabyte of input
MAX_CHAPTER_WORDS = 5000


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape_imports_in_linear_time(tmp_path, name: str) -> None:  # noqa: ANN001 - pytest's tmp_path
    shape = SHAPES[name]
    runs = []
    for size in (shape.full // 4, shape.full):
        url = f"sqlite:///{tmp_path / f'{size}.db'}"
        SqlStore.from_url(url).engine.dispose()  # migrated before the clock starts
        data = shape.make(size)
        mb = len(data) / 1e6
        bound = max(10.0, SECONDS_PER_MB * mb)
        outcome = import_in_child(url, shape.filename, data, timeout=bound * 2 + 20)
        runs.append((mb, outcome))
        assert outcome.kind == ("rejected" if shape.rejected else "imported"), f"{name}: {outcome.message}"
        assert outcome.seconds <= bound, f"{name} at {mb:.1f} MB took {outcome.seconds:.1f} s (bound {bound:.0f} s)"
        assert outcome.peak_mb <= max(100, PEAK_MB_PER_MB * mb), f"{name} grew by {outcome.peak_mb:.0f} MB"
        if shape.rejected:
            assert shape.rejected in outcome.message
            continue
        store = SqlStore.from_url(url)
        chapters = store.list_chapters(outcome.work_id)
        assert chapters and max(c.word_count for c in chapters) <= MAX_CHAPTER_WORDS
        words = sum(c.word_count for c in chapters)
        assert words >= 0.99 * len(data.split()) - 2  # nothing lost but a heading
        store.engine.dispose()
    (quarter_mb, quarter), (full_mb, full) = runs
    assert full.seconds <= LINEAR_SLACK * quarter.seconds + 1, (
        f"{name}: {quarter_mb:.1f} MB in {quarter.seconds:.2f} s but {full_mb:.1f} MB in {full.seconds:.2f} s: "
        "not linear")

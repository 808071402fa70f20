"""A store for Ray workers in tests: it holds a graph build of one book after its first chapter is committed until
the test has killed that worker (and written a marker file), so a kill sent from the driver always lands mid-book
however loaded the machine is. Open it with functools.partial(open_pausing, source=..., marker=...)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from storage.repository import SqlStore

HOLD_S = 120.0   # at most: a test that never kills the worker still ends


class PausingStore(SqlStore):
    source: str = ""
    marker: Path = Path()

    def kg_replace_chapter(self, work_id: int, *args: Any, **kwargs: Any) -> bool:
        if (not self.marker.exists() and self.get_work(work_id).settings.get("source_file") == self.source
                and self.kg_extracted_chapters(work_id)):
            deadline = time.monotonic() + HOLD_S
            while not self.marker.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return super().kg_replace_chapter(work_id, *args, **kwargs)


def open_pausing(url: str, *, source: str, marker: str) -> SqlStore:
    store = PausingStore.from_url(url)
    store.source, store.marker = source, Path(marker)
    return store

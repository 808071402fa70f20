"""One book import in a fresh interpreter, for the hostile-input tests (tests/support/hostile.py).

    python -m tests.support.import_child DB_URL FILENAME DATA_PATH

imports the bytes at DATA_PATH as FILENAME into the database at DB_URL with `library.import_book` and prints one JSON
object: kind ("imported", "rejected" or "crashed"), message, work_id, seconds and peak_mb (the growth of this
process's peak resident memory during the import, which counts what libxml2 and zlib allocate too). A fresh
interpreter rather than a fork: a fork of a pytest-xdist worker with other threads running can hang on a lock one of
them held (seen once in eleven CI runs)."""
from __future__ import annotations

import json
import resource
import sys
import time
import traceback
from pathlib import Path


def main(argv: list[str]) -> int:
    db_url, filename, data_path = argv
    data = Path(data_path).read_bytes()
    from core.ingest import IngestError
    from core.services import library
    from storage.repository import SqlStore
    store = SqlStore.from_url(db_url)  # opened (and migrated) before the clock starts
    start_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    work_id = None
    try:
        work = library.import_book(store, filename, data)
        kind, message, work_id = "imported", "", work.id
    except IngestError as exc:
        kind, message = "rejected", str(exc)
    except BaseException:  # noqa: BLE001 - reported to the parent as a failure of the contract
        kind, message = "crashed", traceback.format_exc()
    seconds = time.perf_counter() - started
    peak_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start_rss) / 1024  # KiB on Linux
    print(json.dumps({"kind": kind, "message": message, "work_id": work_id, "seconds": seconds, "peak_mb": peak_mb}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

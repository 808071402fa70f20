"""Import speed and chapter detection for the 11 novels and 2 EPUBs (a temp SQLite file, the real service).

    .venv/bin/python bench/ingest.py            # prints a Markdown table, writes bench/results/ingest.json
"""
from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from _common import SHARED_DATA, table, write_results

from core.services.library import import_book
from storage.repository import SqlStore


def main() -> None:
    files = sorted((SHARED_DATA / "novels" / "txt").glob("*.txt")) + sorted((SHARED_DATA / "novels" / "epub").glob("*.epub"))
    if not files:
        raise SystemExit(f"no novels under {SHARED_DATA}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlStore.from_url(f"sqlite:///{Path(tmp) / 'bench.db'}")
        for path in files:
            data = path.read_bytes()
            # Baseline in the same run: the least any importer must do (decode and split into words).
            start = time.perf_counter()
            len(data.decode("utf-8", errors="replace").split())
            baseline = time.perf_counter() - start
            start = time.perf_counter()
            work = import_book(store, path.name, data)
            seconds = time.perf_counter() - start
            chapters = store.list_chapters(work.id)
            rows.append({"book": path.name, "title": work.title, "chapters": len(chapters), "words": work.word_count,
                         "chunks": len(store.list_chunks(work.id)), "seconds": round(seconds, 3),
                         "baseline_s": round(baseline, 4), "ratio": round(seconds / baseline, 1),
                         "words_per_s": round(work.word_count / seconds), "first": chapters[0].title,
                         "last": chapters[-1].title})
        store.engine.dispose()
    total_words = sum(r["words"] for r in rows)
    total_s = sum(r["seconds"] for r in rows)
    print(table(rows, ["book", "chapters", "words", "chunks", "seconds", "ratio", "words_per_s", "first", "last"]))
    total_base = sum(r["baseline_s"] for r in rows)
    print(f"\nall: {total_words:,} words in {total_s:.2f} s = {total_words / total_s:,.0f} words/s; "
          f"{total_s / total_base:.0f}x the bare decode+split baseline ({total_base:.3f} s)")
    path = write_results("ingest", {"rows": rows, "total_words": total_words, "total_seconds": total_s,
                                      "baseline_seconds": total_base})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

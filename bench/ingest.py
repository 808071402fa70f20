"""Import speed and chapter detection for the 11 novels and 2 EPUBs, .docx/.pdf editions of three of them,
GraphRAG-Bench's ten flattened novels, and pathological shapes up to 25 MB (a temp SQLite file, the real service).

    .venv/bin/python bench/ingest.py            # prints a Markdown table, writes bench/results/ingest.json
"""
from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

from _common import SHARED_DATA, table, write_results

from core.domain import Work
from core.services.library import import_book
from storage.repository import SqlStore


def main() -> None:
    files = (sorted((SHARED_DATA / "novels" / "txt").glob("*.txt"))
             + sorted((SHARED_DATA / "novels" / "epub").glob("*.epub")))
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
        editions = edition_rows(store)
        flattened = graphrag_rows(store)
        store.engine.dispose()
    shapes, machine = shape_rows()
    total_words = sum(r["words"] for r in rows)
    total_s = sum(r["seconds"] for r in rows)
    print(table(rows, ["book", "chapters", "words", "chunks", "seconds", "ratio", "words_per_s", "first", "last"]))
    total_base = sum(r["baseline_s"] for r in rows)
    print(f"\nall: {total_words:,} words in {total_s:.2f} s = {total_words / total_s:,.0f} words/s; "
          f"{total_s / total_base:.0f}x the bare decode+split baseline ({total_base:.3f} s)")
    print("\nWord and PDF editions made by tests/support/book_files.py, against the .txt import of the same novel:\n")
    print(table(editions, ["book", "format", "MB", "chapters", "txt_chapters", "words", "words_vs_txt", "seconds",
                           "txt_seconds", "MB_per_s"]))
    print("\nGraphRAG-Bench's novels, each a whole book on one line:\n")
    print(table(flattened, ["book", "MB", "chapters", "headings", "max_words", "min_words", "seconds", "first"]))
    print(f"\nPathological shapes (each imported in a child process; {machine}):\n")
    print(table(shapes, ["shape", "MB", "outcome", "chapters", "max_words", "seconds", "s_per_MB", "peak_MB"]))
    path = write_results("ingest", {"rows": rows, "total_words": total_words, "total_seconds": total_s,
                                      "baseline_seconds": total_base, "editions": editions,
                                      "graphrag_bench_books": flattened, "shapes": shapes, "shapes_machine": machine})
    print(f"wrote {path}")


EDITION_NOVELS = ("a_christmas_carol_pg46.txt", "the_call_of_the_wild_pg215.txt", "pride_and_prejudice_pg1342.txt")
_WORD = re.compile(r"[^\W_]+")


def edition_rows(store: SqlStore) -> list[dict]:
    """A .docx (heading styles, italics, tracked changes) and a typeset .pdf (running headers, page numbers, line-end
    hyphens, an outline) of a few novels, imported like the .txt: chapters, shared words, seconds (the fastest of
    three imports, the .txt's too) and MB/s."""
    from tests.support.book_files import make_docx, make_pdf

    rows = []
    for name in EDITION_NOVELS:
        path = SHARED_DATA / "novels" / "txt" / name
        txt, txt_seconds = _fastest_import(store, name, path.read_bytes())
        chapters = [store.get_chapter(txt.id, c.index) for c in store.list_chapters(txt.id)]
        sections = [(c.title, c.text) for c in chapters]
        want = Counter(w.lower() for c in chapters for w in _WORD.findall(c.text))
        files = {"docx": make_docx(txt.title, "Bench", sections, italic=lambda w: w in ("Buck", "Scrooge", "Darcy")),
                 "pdf": make_pdf(txt.title, "Bench", sections, outline=True),
                 "pdf (no outline)": make_pdf(txt.title, "Bench", sections, outline=False)}
        for kind, data in files.items():
            work, seconds = _fastest_import(store, f"{path.stem}.{kind.split()[0]}", data)
            got = [store.get_chapter(work.id, c.index) for c in store.list_chapters(work.id)]
            words = Counter(w.lower() for c in got for w in _WORD.findall(c.text))
            rows.append({"book": path.stem, "format": kind, "MB": round(len(data) / 1e6, 3), "chapters": len(got),
                         "txt_chapters": len(chapters), "words": sum(words.values()),
                         "words_vs_txt": f"{sum((words & want).values()) / sum(want.values()):.2%}",
                         "seconds": round(seconds, 3), "txt_seconds": round(txt_seconds, 3),
                         "MB_per_s": round(len(data) / 1e6 / seconds, 2)})
    return rows


def graphrag_rows(store: SqlStore) -> list[dict]:
    """GraphRAG-Bench's ten dev novels, flattened onto one line each: chapters found (headings inside the running text,
    else sections of about 4,000 words), the longest and shortest, and seconds (the fastest of three imports)."""
    rows = []
    for path in sorted((SHARED_DATA / "graphrag_bench_novel" / "books").glob("*.txt")):
        data = path.read_bytes()
        work, seconds = _fastest_import(store, path.name, data)
        chapters = store.list_chapters(work.id)
        words = [c.word_count for c in chapters]
        parts = sum(c.title.startswith("Part ") for c in chapters)
        rows.append({"book": path.stem, "MB": round(len(data) / 1e6, 3), "chapters": len(chapters),
                     "headings": "no" if parts == len(chapters) else "yes", "max_words": max(words),
                     "min_words": min(words), "seconds": round(seconds, 3), "first": chapters[0].title})
    return rows


def shape_rows() -> tuple[list[dict], str]:
    """Each pathological shape of tests/support/hostile_shapes.py at the size issue 19 names and at 25 MB, imported
    in a child process (seconds and peak memory growth of the child): the goal is 30 s for 25 MB, 1.2 s/MB."""
    from tests.support.hostile import import_in_child
    from tests.support.hostile_shapes import SHAPES

    load_before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape in SHAPES.items():
            scaled = shape.units_for(25_000_000)
            for units in [shape.full] + ([scaled] if scaled > shape.full * 1.05 else []):
                url = f"sqlite:///{Path(tmp) / f'{name}-{units}.db'}"
                SqlStore.from_url(url).engine.dispose()
                data = shape.make(units)
                outcome = import_in_child(url, shape.filename, data, timeout=600)
                mb = len(data) / 1e6
                row = {"shape": name, "MB": round(mb, 1), "outcome": outcome.kind, "chapters": 0, "max_words": 0,
                       "seconds": round(outcome.seconds, 2), "s_per_MB": round(outcome.seconds / mb, 3),
                       "peak_MB": round(outcome.peak_mb)}
                if outcome.work_id is not None:
                    store = SqlStore.from_url(url)
                    words = [c.word_count for c in store.list_chapters(outcome.work_id)]
                    row.update(chapters=len(words), max_words=max(words))
                    store.engine.dispose()
                rows.append(row)
    machine = (f"{_cpu_name()}, {os.cpu_count()} cores, load average {load_before:.1f} before and "
               f"{os.getloadavg()[0]:.1f} after")
    return rows, machine


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def _fastest_import(store: SqlStore, name: str, data: bytes, runs: int = 3) -> tuple[Work, float]:
    """The last work imported and the fastest of `runs` imports: the 2 cores are shared, single timings wander 3x."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work = import_book(store, name, data)
        best = min(best, time.perf_counter() - start)
    return work, best


if __name__ == "__main__":
    main()

"""Retention metrics (Remember Me) for the 11 novels: seconds per book, per-book means, and a sanity check that
Elizabeth and Darcy persist through Pride and Prejudice.

    .venv/bin/python bench/retention.py        # prints Markdown tables, writes bench/results/retention.json

The KG vs no-KG writing experiment of the paper needs the story writer; `compare_works` below is what it will call
with the two groups of generated stories.
"""
from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from _common import SHARED_DATA, table, write_results

from core.metrics.extract import load_nlp
from core.services import retention_service as retention
from core.services.library import import_book
from core.store import Store
from storage.repository import SqlStore

PRIDE = "pride_and_prejudice_pg1342.txt"


def compare_works(store: Store, kg_stories: Sequence[int], plain_stories: Sequence[int],
                  params: retention.RetentionParams | None = None) -> dict[str, Any]:
    """The paper's Tables 1-2 for two groups of works (KG-guided vs naive prompting): per metric the mean, SD and
    n (chapters) of each group, Welch's t, p and Cohen's d, chapters pooled per group as in the paper."""
    comparison = retention.compare_works(store, list(kg_stories), list(plain_stories), params)
    tables = {kind: [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}
                     for row in comparison.table(kind)] for kind in retention.KINDS}
    return {"works_a": list(kg_stories), "works_b": list(plain_stories), "label_a": comparison.label_a,
            "label_b": comparison.label_b, "table1_characters": tables["characters"],
            "table2_relationships": tables["relationships"]}


def _mean(values: list[float]) -> float | None:
    return round(fmean(values), 3) if values else None


def book_row(path: Path, result: retention.WorkRetention, words: int, first_s: float, cached_s: float) -> dict:
    return {"book": path.stem.rsplit("_pg", 1)[0], "chapters": len(result.chapters), "words": words,
            "seconds": round(first_s, 2), "words_per_s": round(words / first_s), "cached_s": round(cached_s, 3),
            "characters": len(result.presence("characters").threads),
            "chars_per_ch": _mean(result.values("characters", "total")),
            "ch1_ret": _mean(result.values("characters", "chapter1")),
            "rolling": _mean(result.values("characters", "rolling")),
            "cumulative": _mean(result.values("characters", "cumulative")),
            "rels_per_ch": _mean(result.values("relationships", "total")),
            "rel_rolling": _mean(result.values("relationships", "rolling"))}


def persistence(result: retention.WorkRetention, token: str) -> dict[str, Any]:
    """How the most mentioned character whose name contains `token` runs through the book."""
    presence = result.presence("characters")
    name, counts = next((t, c) for t, c in zip(presence.threads, presence.counts) if token in t.split())
    present = [ch for ch, n in zip(presence.chapters, counts) if n]
    gaps = [b - a - 1 for a, b in zip(present, present[1:])]
    return {"character": name, "mentions": sum(counts), "chapters_present": len(present),
            "of_chapters": len(presence.chapters), "fraction": round(len(present) / len(presence.chapters), 3),
            "first": present[0], "last": present[-1], "longest_absence": max(gaps, default=0),
            "dropped_at_k5": "yes" if any(d.thread == name for d in result.dropped(5)) else "no"}


def main() -> None:
    files = sorted((SHARED_DATA / "novels" / "txt").glob("*.txt"))
    if not files:
        raise SystemExit(f"no novels under {SHARED_DATA}")
    start = time.perf_counter()
    load_nlp()
    load_s = time.perf_counter() - start
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlStore.from_url(f"sqlite:///{Path(tmp) / 'bench.db'}")
        for path in files:
            work = import_book(store, path.name, path.read_bytes())
            start = time.perf_counter()
            result = retention.analyse_work(store, work.id)
            first_s = time.perf_counter() - start
            start = time.perf_counter()
            retention.analyse_work(store, work.id)  # everything cached: resolve and count only
            cached_s = time.perf_counter() - start
            rows.append(book_row(path, result, work.word_count, first_s, cached_s))
            results[path.name] = (work.id, result)
            print(f"{path.name}: {first_s:.1f} s", flush=True)
        pride_id, pride = results[PRIDE]
        sanity = [persistence(pride, "Elizabeth"), persistence(pride, "Darcy")]
        # the table format of the KG experiment, exercised on two novels (not the experiment itself)
        example = compare_works(store, [pride_id], [results["little_women_pg514.txt"][0]])
        store.engine.dispose()

    total_words, total_s = sum(r["words"] for r in rows), sum(r["seconds"] for r in rows)
    print(table(rows))
    print(f"\nall: {total_words:,} words in {total_s:.1f} s = {total_words / total_s:,.0f} words/s "
          f"(spaCy load {load_s:.1f} s, not included)\n")
    print("Pride and Prejudice: do Elizabeth and Darcy persist?\n")
    print(table(sanity))
    print(f"\nTable format on two novels (A = {example['label_a']}, B = {example['label_b']}):\n")
    print(table(example["table1_characters"]))
    print()
    print(table(example["table2_relationships"]))
    params = retention.RetentionParams()
    path = write_results("retention", {
        "params": {"window_sentences": params.window_sentences, "verb_links": params.verb_links,
                   "min_pair_count": params.min_pair_count},
        "rows": rows, "total_words": total_words, "total_seconds": round(total_s, 2),
        "spacy_load_seconds": round(load_s, 2), "pride_and_prejudice_persistence": sanity,
        "example_comparison": example,
        "kg_vs_no_kg": "pending: needs generated stories from the story writer (write issue)"})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""A whole library, one book after another vs as Ray tasks (local cluster, 2 CPUs), in the same run: the 11 novels
of ../shared/data/novels/txt and GraphRAG-Bench's 10 novels, each imported and given its offline graph
(`cli.py library ingest DIR --graph [--engine ray]`'s functions) on a fresh SQLite file per engine; then every
book's results compared: chapters, and hashes of its sorted passages, entities (names, type) and triples.

    .venv/bin/python bench/library.py              # all 21 books; prints a table, writes bench/results/library.json
    .venv/bin/python bench/library.py --books 4    # a quick try: 4 of them (the shortest)
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, SHARED_DATA, machine, table, write_results

from core.services.library_ingest import BookResult, fingerprint, plan_folder, run_sequential
from core.services.library_ray import ray_cluster, run_ray
from storage.repository import SqlStore

SOURCES = (SHARED_DATA / "novels" / "txt", SHARED_DATA / "graphrag_bench_novel" / "books")
COMPARED = ("chapters", "passages_sha", "entities_sha", "triples_sha")


def library_folder(target: Path, books: int | None) -> list[Path]:
    """The books, copied into one folder (the shortest `books` of them in quick mode)."""
    files = sorted((p for source in SOURCES for p in source.glob("*.txt")), key=lambda p: p.name)
    if not files:
        raise SystemExit(f"no books under {SHARED_DATA}")
    if books:
        files = sorted(files, key=lambda p: p.stat().st_size)[:books]
    for path in files:
        shutil.copyfile(path, target / path.name)
    return files


def run(engine: str, folder: Path, db: Path, cpus: int) -> dict[str, Any]:
    """Import and graph every book of `folder` on a fresh database; each book's result and fingerprint, the wall."""
    url = f"sqlite:///{db}"
    store = SqlStore.from_url(url)
    plan = plan_folder(store, folder)
    started = time.perf_counter()
    results: list[BookResult] = []
    ray_start_s = 0.0
    if engine == "ray":
        t0 = time.perf_counter()
        with ray_cluster(num_cpus=cpus) as got:
            ray_start_s = time.perf_counter() - t0
            assert got == cpus, f"the local cluster has {got} CPUs, not {cpus}"
            for result in run_ray(SqlStore.from_url, url, plan.books, graph=True):
                results.append(result)
                print(f"  ray: {result.line()}", flush=True)
    else:
        for result in run_sequential(store, plan.books, graph=True):
            results.append(result)
            print(f"  sequential: {result.line()}", flush=True)
    wall = time.perf_counter() - started
    books = {r.file: {"result": r, **(fingerprint(store, r.work_id) if r.work_id else {})} for r in results}
    store.engine.dispose()
    return {"wall_s": round(wall, 2), "ray_start_s": round(ray_start_s, 2), "books": books}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", type=int, default=None, help="only the N shortest books (a quick try)")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray cluster")
    args = parser.parse_args()
    about, commit = machine(), _commit()
    with tempfile.TemporaryDirectory(prefix="fabula-library-") as tmp:
        folder = Path(tmp) / "books"
        folder.mkdir()
        files = library_folder(folder, args.books)
        print(f"{len(files)} books; sequential, then Ray ({args.cpus} CPUs); "
              f"load average {about['load_avg_at_start']:.2f}")
        sequential = run("sequential", folder, Path(tmp) / "sequential.db", args.cpus)
        ray = run("ray", folder, Path(tmp) / "ray.db", args.cpus)
    rows = []
    for name in sorted(sequential["books"]):
        s, r = sequential["books"][name], ray["books"].get(name, {})
        same = bool(r) and all(s.get(k) == r.get(k) for k in COMPARED) and s["result"].status == "imported"
        rows.append({"book": name.removesuffix(".txt"), "words": s["result"].words, "chapters": s.get("chapters", 0),
                     "passages": s.get("passages", 0), "entities": s.get("entities", 0),
                     "triples": s.get("triples", 0), "sequential_s": s["result"].seconds,
                     "ray_s": r["result"].seconds if r else None, "identical": "yes" if same else "NO"})
    speedup = sequential["wall_s"] / ray["wall_s"]
    total = {"books": len(rows), "identical": sum(r["identical"] == "yes" for r in rows),
             "words": sum(r["words"] for r in rows), "sequential_wall_s": sequential["wall_s"],
             "ray_wall_s": ray["wall_s"], "ray_cluster_start_s": ray["ray_start_s"], "speedup": round(speedup, 2),
             "ray_cpus": args.cpus, "started": about["date"], "load_avg_at_start": round(about["load_avg_at_start"], 2),
             "load_avg_at_end": _load()}
    print()
    print(table(rows, ["book", "words", "chapters", "passages", "entities", "triples", "sequential_s", "ray_s",
                       "identical"]))
    print(f"\n{total['books']} books, {total['words']:,} words: sequential {sequential['wall_s']:.1f} s, Ray "
          f"({args.cpus} CPUs) {ray['wall_s']:.1f} s (+ {ray['ray_start_s']:.1f} s cluster start) = "
          f"{speedup:.2f}x; {total['identical']} of {total['books']} books identical; load average "
          f"{total['load_avg_at_start']} at the start, {total['load_avg_at_end']} at the end")
    name = "library" if not args.books else "library_quick"
    path = write_results(name, {"total": total, "books": rows, "commit": commit})
    print(f"wrote {path.relative_to(ROOT)}")
    if total["identical"] != total["books"]:
        raise SystemExit("the engines stored different books")


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _commit() -> str:
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return git.stdout.strip()


if __name__ == "__main__":
    main()

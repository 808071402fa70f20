"""The Remember Me KG vs no-KG experiment (Tables 1-2 of the paper) with the default local model: for a few
premises, a story written through the writer -> grapher -> planner loop with its knowledge graph, and its no-KG
twin (same premise, arc, chapter length and sampling seed, written without the graph), then the character and
relationship retention metrics of the two groups compared (chapters pooled per group, Welch's t, Cohen's d).

    .venv/bin/python bench/retention_writing.py --premises 3 --chapters 4 --words 100-150 --seed 0 \
        --db /tmp/retention_writing.db --stop-at 11:45          # writes bench/results/retention_writing.json

Every pair already in --db with the same --words and --chapters is compared too, so runs with other seeds
(other premises and arcs) add to n. Stories are written round by round (chapter k of every story before chapter k + 1 of any), so a run stopped early
still compares balanced groups. Rerunning with the same --db and --seed resumes: finished stories are kept, and a
story cut off mid-chapter resumes from its saved loop state (write_service keeps it in the work's settings).
The grapher step uses the offline extractor (the LLM grapher is too slow for a CPU run).
"""
from __future__ import annotations

import argparse
import random
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import table, write_results

from core.config import get_settings
from core.metrics.aliases import build_default_resolver
from core.metrics.cooccurrence import surface_counts
from core.services import llm_service, retention_service as retention
from core.services import write_service
from core.write import ARCS, WriteParams
from core.write.params import DecodeParams
from storage.repository import SqlStore

COLUMNS = ["Metric", "M (A)", "SD (A)", "n (A)", "M (B)", "SD (B)", "n (B)", "t", "p", "Cohen's d"]


def _words(value: str) -> tuple[int, int]:
    low, _, high = value.partition("-")
    return int(low), int(high or low)


def plan_stories(count: int, seed: int) -> list[tuple[int, str]]:
    """(premise number, arc) for each pair, drawn without replacement from the paper's 10 premises."""
    rng = random.Random(seed)
    numbers = rng.sample(range(1, 11), min(count, 10))
    return [(n, rng.choice(list(ARCS))) for n in numbers]


def find_or_start(store: Any, title: str, params: WriteParams) -> tuple[int, int]:
    """(KG story id, no-KG twin id), reusing a pair of this title from an earlier (interrupted) run."""
    for work in store.list_works():
        if work.title == title and "twin" in work.settings:
            return work.id, int(work.settings["twin"])
    kg = write_service.start_story(store, title, params)
    twin = write_service.create_twin(store, kg.id)
    return kg.id, twin.id


def write_round(store: Any, ids: list[int], llm: Any, log: list[dict[str, Any]], stop_at: float | None) -> bool:
    """One more chapter for every unfinished story; False when nothing was left to write or time ran out."""
    wrote = False
    for work_id in ids:
        if write_service.story_state(store, work_id).finished:
            continue
        if stop_at is not None and time.time() >= stop_at:
            return False
        start = time.perf_counter()
        result = write_service.next_chapter(store, work_id, llm)
        result["seconds"] = round(time.perf_counter() - start, 1)
        log.append(result)
        wrote = True
        print(f"  work {work_id}: chapter {result['chapter']} ({result['words']} words, {result['seconds']} s, "
              f"final={result['final']} by {result['decided_by']})", flush=True)
    return wrote


def analyse(store: Any, ids: list[int]) -> list[retention.WorkRetention]:
    """Retention per work with the name-shape alias heuristic for both groups: the default resolver would use the
    story's graph for KG stories only, which would make the two groups' character counts differ by method."""
    results = []
    for work_id in ids:
        _, extractions, _ = retention.extract_work(store, work_id)
        resolver = build_default_resolver(surface_counts(extractions))
        results.append(retention.analyse_work(store, work_id, resolver=resolver))
    return results


def story_totals(store: Any, result: retention.WorkRetention, use_kg: bool) -> dict[str, Any]:
    work = store.get_work(result.work_id)
    chars = result.presence("characters")
    rels = result.presence("relationships")
    words = sum(c.word_count for c in store.list_chapters(result.work_id))
    return {"work": result.work_id, "kg": "KG" if use_kg else "no-KG", "premise": work.settings.get("premise", "")[:40],
            "arc": work.settings.get("arc", ""), "chapters": len(result.chapters), "words": words,
            "characters": len(chars.threads), "relationships": len(rels.threads),
            "names": ", ".join(chars.threads[:8])}


def _stop_time(value: str | None) -> float | None:
    """HH:MM (UTC, today) as an epoch time."""
    if not value:
        return None
    hour, minute = (int(x) for x in value.split(":"))
    now = datetime.now(timezone.utc)
    return now.replace(hour=hour, minute=minute, second=0, microsecond=0).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--premises", type=int, default=3, help="story pairs (KG + no-KG twin), at most 10")
    parser.add_argument("--chapters", type=int, default=4, help="max chapters per story")
    parser.add_argument("--words", type=_words, default=(100, 150), help="chapter length MIN-MAX words")
    parser.add_argument("--seed", type=int, default=0, help="premise/arc draw and sampling seed")
    parser.add_argument("--db", default="/tmp/retention_writing.db", help="SQLite file the stories are written to")
    parser.add_argument("--llm", default=None, help="PROVIDER:MODEL (default: the writing role's model)")
    parser.add_argument("--stop-at", default=None, help="HH:MM UTC: write no new chapter after this, then compare")
    parser.add_argument("--analyse-only", action="store_true", help="compare what is in --db, write nothing")
    args = parser.parse_args()

    started = time.perf_counter()
    store = SqlStore.from_url(f"sqlite:///{Path(args.db)}")
    llm_name = args.llm or get_settings().llm_for("writing")
    pairs = []
    for i, (premise, arc) in enumerate(plan_stories(args.premises, args.seed)):
        params = WriteParams(premise=str(premise), arc=arc, min_words=args.words[0], max_words=args.words[1],
                             max_chapters=args.chapters, use_kg=True, extractor="offline", llm=args.llm,
                             decode=DecodeParams(seed=args.seed * 100 + i))
        title = f"RW seed{args.seed} p{premise} {arc} {args.words[0]}-{args.words[1]}w {args.chapters}ch"
        pairs.append(find_or_start(store, title, params))
    kg_ids, nokg_ids = [a for a, _ in pairs], [b for _, b in pairs]
    print(f"{len(pairs)} pairs (KG, no-KG): {pairs}; model {llm_name}", flush=True)

    log: list[dict[str, Any]] = []
    stop_at = _stop_time(args.stop_at)
    if not args.analyse_only:
        llm = llm_service.build_llm(store, "writing", args.llm)
        order = [w for pair in pairs for w in pair]
        round_no = 0
        while True:
            round_no += 1
            print(f"round {round_no} ({time.strftime('%H:%M:%S', time.gmtime())} UTC)", flush=True)
            if not write_round(store, order, llm, log, stop_at):
                break
    write_s = time.perf_counter() - started

    # every pair in --db with this chapter length and limit takes part (earlier runs with other seeds add pairs);
    # only works with chapters count (a twin not yet started would only add an empty group member)
    suffix = f" {args.words[0]}-{args.words[1]}w {args.chapters}ch"
    all_pairs = [(w.id, int(w.settings["twin"])) for w in store.list_works()
                 if w.title.startswith("RW ") and w.title.endswith(suffix) and "twin" in w.settings]
    kg_ids = [a for a, _ in all_pairs if store.list_chapters(a)]
    nokg_ids = [b for _, b in all_pairs if store.list_chapters(b)]
    analysed_at = time.perf_counter()
    kg_results, nokg_results = analyse(store, kg_ids), analyse(store, nokg_ids)
    comparison = retention.compare_results(kg_results, nokg_results)
    analyse_s = time.perf_counter() - analysed_at
    tables = {kind: comparison.table(kind) for kind in retention.KINDS}
    totals = ([story_totals(store, r, True) for r in kg_results] +
              [story_totals(store, r, False) for r in nokg_results])
    n_kg = sum(len(r.chapters) for r in kg_results)
    n_nokg = sum(len(r.chapters) for r in nokg_results)

    print(f"\nA = KG ({len(kg_ids)} stories, {n_kg} chapters), B = no-KG ({len(nokg_ids)} stories, {n_nokg} "
          f"chapters); model {llm_name}; n per metric = chapters where the metric is defined\n")
    print("Table 1: characters\n")
    print(table(tables["characters"], COLUMNS))
    print("\nTable 2: relationships\n")
    print(table(tables["relationships"], COLUMNS))
    print("\nPer story\n")
    print(table(totals))
    print(f"\nwriting {write_s:.0f} s this run ({len(log)} chapters), retention analysis {analyse_s:.1f} s")

    def rounded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()} for r in rows]

    path = write_results("retention_writing", {
        "command": "bench/retention_writing.py " + " ".join(
            f"--{k.replace('_', '-')} {v if not isinstance(v, tuple) else f'{v[0]}-{v[1]}'}"
            for k, v in vars(args).items() if v not in (None, False)),
        "model": llm_name, "extractor": "offline",
        "pairs": [{"kg": a, "nokg": b, "title": store.get_work(a).title} for a, b in all_pairs],
        "kg_works": kg_ids, "nokg_works": nokg_ids, "chapters_kg": n_kg, "chapters_nokg": n_nokg,
        "table1_characters": rounded(tables["characters"]), "table2_relationships": rounded(tables["relationships"]),
        "per_story": totals, "chapters_written_this_run": log, "writing_seconds_this_run": round(write_s, 1),
        "analysis_seconds": round(analyse_s, 1), "comparison": comparison.to_json(),
        "chapter_names": {r.work_id: [c.names for c in r.chapters] for r in kg_results + nokg_results}})
    print(f"wrote {path}")
    store.engine.dispose()


if __name__ == "__main__":
    main()

"""Summaries benchmark on SQuALITY (../shared/data/squality/dev.jsonl, question 1 "What is the plot of the story?",
four human summaries per story).

(a) The KGScore paper's entity-shuffle check (section 4.3): for each story, the two most similar human summaries
    (ROUGE-L F1, both >= 200 words) form a pair; one of them, picked at random, is the "generated" summary, and its
    named entities are shuffled among entities of the same type. A factuality metric should fall a lot and ROUGE-1
    hardly at all. Offline KGScore on all pairs; the Appendix F (LLM) variant with the default local model on the
    first --llm-pairs pairs (slow on a CPU).
(b) KG vs no-KG summaries with the default local model: each story is imported through the real services (it has no
    chapter headings, so import cuts it into ~2,000-word parts at paragraph breaks), its graph built with the offline
    extractor, every part summarized with and without the graph, and the parts' summaries joined into the story's
    summary, scored against each of the four human summaries (mean) with offline KGScore, ROUGE and MiniLM similarity.

    .venv/bin/python bench/summaries.py                      # prints tables, writes bench/results/summaries.json
    .venv/bin/python bench/summaries.py --stories 1 --llm-pairs 0
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, SHARED_DATA, table, write_results

from core.config import get_settings
from core.metrics.entity_shuffle import shuffle_entities
from core.metrics.kgscore import SummaryScorer
from core.metrics.kgscore_llm import LLMEdgeExtractor
from core.metrics.kgscore_offline import OfflineEdgeExtractor
from core.metrics.rouge_wrap import rouge_scores

DATA = SHARED_DATA / "squality" / "dev.jsonl"
METRICS = ("rouge1", "rouge2", "rougeL", "embedding_similarity", "precision", "recall", "f1")
MIN_WORDS = 200
SEED = 13


def load_stories() -> list[dict[str, Any]]:
    stories = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        question = next(q for q in item["questions"] if q["question_number"] == 1)
        stories.append({"id": item["metadata"]["passage_id"], "document": item["document"],
                        "summaries": [r["response_text"].strip() for r in question["responses"]]})
    return stories


def most_similar_pair(summaries: list[str], rng: random.Random) -> tuple[str, str] | None:
    """(prediction, reference): the most similar two long-enough summaries, in random order."""
    long_enough = [s for s in summaries if len(s.split()) >= MIN_WORDS]
    pairs = list(itertools.combinations(long_enough, 2))
    if not pairs:
        return None
    a, b = max(pairs, key=lambda p: rouge_scores(p[0], p[1])["rougeL"])
    return (a, b) if rng.random() < 0.5 else (b, a)


def mean_scores(rows: list[dict[str, Any]]) -> dict[str, float]:
    return {m: statistics.fmean(r[m] for r in rows) for m in METRICS if rows and m in rows[0]}


def change_rows(base: dict[str, float], shuffled: dict[str, float], label: str, n: int) -> list[dict[str, Any]]:
    rows = [{"variant": label, "n": n, "dataset": "baseline", **{m: 100 * v for m, v in base.items()}},
            {"variant": label, "n": n, "dataset": "shuffled entities", **{m: 100 * v for m, v in shuffled.items()}}]
    rows.append({"variant": label, "n": n, "dataset": "change (%)",
                 **{m: (100 * (shuffled[m] - base[m]) / base[m] if base[m] else float("nan")) for m in base}})
    return rows


def make_pairs(stories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    pairs = []
    for story in stories:
        pair = most_similar_pair(story["summaries"], rng)
        if pair:
            shuffled = shuffle_entities(pair[0], random.Random(f"{SEED}-{story['id']}"))
            pairs.append({"id": story["id"], "prediction": pair[0], "reference": pair[1], "shuffled": shuffled.text,
                          "entities": shuffled.entities, "moved": shuffled.moved})
    return pairs


def shuffle_check(label: str, scorer: SummaryScorer, pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean metrics on the pairs before and after the shuffle, and the relative change."""
    started = time.perf_counter()
    base = [scorer.score(p["prediction"], p["reference"]) for p in pairs]
    moved = [scorer.score(p["shuffled"], p["reference"]) for p in pairs]
    out = {"n": len(pairs), "seconds": round(time.perf_counter() - started, 1),
           "baseline": mean_scores(base), "shuffled": mean_scores(moved),
           "mean_edges": {"generated": statistics.fmean(r["generated_edges"] for r in base),
                          "reference": statistics.fmean(r["reference_edges"] for r in base),
                          "generated_shuffled": statistics.fmean(r["generated_edges"] for r in moved)},
           "per_pair": [{"id": p["id"], "f1": b["f1"], "f1_shuffled": m["f1"], "rouge1": b["rouge1"],
                         "rouge1_shuffled": m["rouge1"], "generated_edges": b["generated_edges"],
                         "reference_edges": b["reference_edges"]} for p, b, m in zip(pairs, base, moved)]}
    out["table"] = change_rows(out["baseline"], out["shuffled"], label, len(pairs))
    return out


def kg_vs_no_kg(stories: list[dict[str, Any]], n: int, context: int, summary_tokens: int) -> dict[str, Any]:
    from core.llm import get_llm
    from core.services import kg_service, summary_service
    from core.services.library import import_book
    from core.summarize import SummaryParams
    from storage.repository import SqlStore
    name = get_settings().llm
    llm = get_llm(name)
    scorer = SummaryScorer(OfflineEdgeExtractor())
    params = SummaryParams(context_tokens=context, summary_tokens=summary_tokens)
    per_story, scores = [], {"kg": [], "no_kg": []}
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlStore.from_url(f"sqlite:///{Path(tmp) / 'bench.db'}")
        for story in stories[:n]:
            started = time.perf_counter()
            work = import_book(store, "story.txt", story["document"].encode("utf-8"))
            graph = kg_service.build_graph(store, work.id)
            report = summary_service.summarize(store, work.id, modes=("kg", "no_kg"), params=params, llm=llm)
            row: dict[str, Any] = {"id": story["id"], "parts": len(store.list_chapters(work.id)),
                                   "words": len(story["document"].split()), "graph_edges": graph.edges,
                                   "seconds": round(time.perf_counter() - started, 1)}
            for mode in ("kg", "no_kg"):
                made = sorted((s for s in report.summaries if s["mode"] == mode), key=lambda s: s["chapter"])
                text = "\n".join(s["text"] for s in made)
                results = [scorer.score(text, ref) for ref in story["summaries"]]
                scores[mode].append(mean_scores(results))
                row[mode] = {"summary": text, "scores": scores[mode][-1],
                             "edges_given": [s["stats"]["edges_given"] for s in made],
                             "prompt_tokens": [s["stats"]["prompt_tokens"] for s in made]}
            per_story.append(row)
            print(f"  story {story['id']}: {row['parts']} parts, {row['seconds']} s", flush=True)
    means = {mode: {m: statistics.fmean(s[m] for s in rows) for m in METRICS} for mode, rows in scores.items()}
    return {"llm": name, "n": len(per_story), "context_tokens": context, "summary_tokens": summary_tokens,
            "means": means, "stories": per_story,
            "table": [{"mode": mode, "n": len(per_story), **{m: 100 * v for m, v in means[mode].items()}}
                      for mode in ("kg", "no_kg")]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stories", type=int, default=2, help="stories summarized in (b)")
    parser.add_argument("--llm-pairs", type=int, default=2, help="pairs scored with the LLM variant in (a)")
    parser.add_argument("--context", type=int, default=4096, help="context budget of a summary (tokens)")
    parser.add_argument("--summary-tokens", type=int, default=120)
    parser.add_argument("--shuffle-only", action="store_true",
                        help="run only (a) offline; the other results in bench/results/summaries.json are kept")
    args = parser.parse_args()
    stories = load_stories()
    results: dict[str, Any] = {"data": str(DATA.relative_to(SHARED_DATA.parent.parent)), "seed": SEED,
                               "command": "bench/summaries.py " + " ".join(
                                   f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items())}
    columns = ["variant", "n", "dataset", *METRICS]

    print("(a) entity shuffle, offline KGScore", flush=True)
    pairs = make_pairs(stories)
    results["shuffle"] = {"pairs": len(pairs), "entity_mentions": sum(p["entities"] for p in pairs),
                          "moved_mentions": sum(p["moved"] for p in pairs),
                          "example": {k: pairs[0][k][:700] for k in ("prediction", "shuffled")},
                          "offline": shuffle_check("offline", SummaryScorer(OfflineEdgeExtractor()), pairs)}
    if args.shuffle_only:
        previous = ROOT / "bench" / "results" / "summaries.json"
        if previous.exists():
            kept = json.loads(previous.read_text(encoding="utf-8"))
            results = {**kept, "shuffle": {**kept.get("shuffle", {}), **results["shuffle"]},
                       "shuffle_command": results["command"]}
    write_results("summaries", results)
    print(table(results["shuffle"]["offline"]["table"], columns))
    if args.shuffle_only:
        return

    print(f"\n(b) KG vs no-KG summaries with {get_settings().llm}, n={args.stories}", flush=True)
    results["kg_vs_no_kg"] = kg_vs_no_kg(stories, args.stories, args.context, args.summary_tokens)
    write_results("summaries", results)
    print(table(results["kg_vs_no_kg"]["table"], ["mode", "n", *METRICS]))

    if args.llm_pairs:
        from core.llm import get_llm
        name = get_settings().llm
        print(f"\n(a) entity shuffle, LLM KGScore (Appendix F prompt, {name}), n={args.llm_pairs}", flush=True)
        scorer = SummaryScorer(LLMEdgeExtractor(get_llm(name), max_tokens=192))
        results["shuffle"]["llm"] = {"llm": name, **shuffle_check(f"LLM {name}", scorer, pairs[:args.llm_pairs])}
        write_results("summaries", results)
        print(table(results["shuffle"]["llm"]["table"], columns))
    print("\nwrote bench/results/summaries.json")


if __name__ == "__main__":
    main()

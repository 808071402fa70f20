"""Retrieval on GraphRAG-Bench's Novel books and on long documents: which prompt holds the answer, per mode.

Model-free (no key needed), one run, the answering model's tokenizer counting a 1,000-token budget:
  1. GraphRAG-Bench Novel dev (../shared/data/graphrag_bench_novel, 10 books, 1,041 questions): the share of the gold
     answer's and of the gold evidence's content words (bm25s tokens: lower-cased, English stopwords dropped,
     Snowball-stemmed) that the prompt's context holds (the question itself removed), per question type, for
     traditional, kg (Levenshtein, the Andrus paper), kg-meaning, rag (hybrid BM25 + MiniLM), rag-dense, bm25, narco
     and graph. Means are plain means over the questions of a type; "all" is the plain mean over the four types, the
     way the benchmark's table averages.
  2. LF-SQuAD and LF-QUOREF dev (answer present in the prompt, SQuAD normalisation).
  3. Retrieval latency without the LLM on Pride and Prejudice (bench/graphrag_latency.py; dry runs through the
     service, warm): p50/p95 per mode;
     and personalized PageRank alone with each graph library that is installed (networkx, scikit-network, igraph).
With a model (bench/graphrag_bench_llm.py): answers from `--llm`, judged by `--judge` with the benchmark's answer
accuracy; see that module.

    .venv/bin/python bench/graphrag_bench.py                       # all model-free parts (~25 min on 2 cores)
    .venv/bin/python bench/graphrag_bench.py --parts graphrag --limit 100    # a quick look
    .venv/bin/python bench/graphrag_bench.py --parts latency

Every book is imported and its graph built offline exactly as the app does (SQLite files cached under
bench/.cache/graphrag_bench, reused while the extractor version and the book are unchanged; --rebuild to redo).
Writes bench/results/graphrag_bench.json.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _graphrag_stores  # noqa: E402
from _common import SHARED_DATA, table, write_results  # noqa: E402
from _graphrag_stores import (BENCH_DIR, HOLD_OUT, MODES, SEED, STORES, TYPES, asker, context_of,  # noqa: E402
                              open_store, params, plan_of, recall, selected, words)
from graphrag_latency import latency  # noqa: E402

# ---- 1. GraphRAG-Bench --------------------------------------------------------------------------------------------

def graphrag(args: argparse.Namespace) -> dict[str, Any]:
    modes = selected(args)
    questions = [json.loads(line) for line in (BENCH_DIR / "questions.jsonl").open(encoding="utf-8") if line.strip()]
    if args.limit:
        random.Random(SEED).shuffle(questions)
        questions = questions[:args.limit]
    books = sorted({q["source"] for q in questions})
    docs = [(f"{b}.txt", (BENCH_DIR / "books" / f"{b}.txt").read_text(encoding="utf-8")) for b in books]
    store, ids = open_store("novel", docs, args.rebuild)
    work_of = dict(zip(books, ids))
    ask = asker(store)
    from core.nlp import embed
    texts = [q["question"] for q in questions]
    vectors = dict(zip(texts, embed(texts)))
    scores: dict[str, dict[str, dict[str, list[float]]]] = {m: defaultdict(lambda: defaultdict(list)) for m in modes}
    timing: dict[str, list[float]] = defaultdict(list)
    per_book: dict[str, Any] = {m: defaultdict(lambda: defaultdict(lambda: defaultdict(list))) for m in modes}
    for n, q in enumerate(questions, 1):
        answer_words, evidence_words = words(q["answer"]), words(q.get("evidence") or "")
        for mode in modes:
            t0 = time.perf_counter()
            plan = plan_of(ask, work_of[q["source"]], q["question"], params(mode, args.budget), vectors)
            timing[mode].append(time.perf_counter() - t0)
            found = words(context_of(plan))
            for key, gold in (("answer", answer_words), ("evidence", evidence_words)):
                r = recall(gold, found)
                if r is not None:
                    scores[mode][q["question_type"]][key].append(r)
                    per_book[mode][q["source"]][q["question_type"]][key].append(r)
        if n % 100 == 0:
            print(f"  {n}/{len(questions)} questions", flush=True)
    rows = _rows(modes, scores, timing)
    splits = {}
    for split, keep in (("tune", lambda b: b not in HOLD_OUT), ("held-out", lambda b: b in HOLD_OUT)):
        picked: dict[str, dict[str, dict[str, list[float]]]] = {
            m: defaultdict(lambda: defaultdict(list)) for m in modes}
        for m in modes:
            for book in books:
                if keep(book):
                    for t, by_key in per_book[m][book].items():
                        for key, values in by_key.items():
                            picked[m][t][key] += values
        if any(picked[m] for m in modes):
            splits[split] = {"books": [b for b in books if keep(b)], "rows": _rows(modes, picked, None)}
    counts = {t: sum(1 for q in questions if q["question_type"] == t) for t in TYPES}
    store.engine.dispose()
    return {"n": len(questions), "per_type_n": counts, "books": books, "budget": args.budget, "rows": rows,
            "splits": splits, "store": STORES.get("novel")}


def _rows(modes: list[str], scores: dict[str, Any], timing: dict[str, list[float]] | None) -> list[dict[str, Any]]:
    rows = []
    for mode in modes:
        row: dict[str, Any] = {"mode": mode}
        for key in ("evidence", "answer"):
            per_type = {t: statistics.mean(scores[mode][t][key]) for t in TYPES if scores[mode][t][key]}
            row[f"{key}_all"] = round(100 * statistics.mean(per_type.values()), 1) if per_type else None
            for t in TYPES:
                if t in per_type:
                    row[f"{key}_{_short(t)}"] = round(100 * per_type[t], 1)
        if timing is not None:
            row["ms_per_q"] = round(1000 * statistics.mean(timing[mode]), 1)
        rows.append(row)
    return rows


def _short(question_type: str) -> str:
    return {"Fact Retrieval": "fact", "Complex Reasoning": "reason", "Contextual Summarize": "summ",
            "Creative Generation": "creative"}[question_type]


# ---- 2. LF-SQuAD and LF-QUOREF ------------------------------------------------------------------------------------

def long_documents(args: argparse.Namespace) -> list[dict[str, Any]]:
    import ast

    from core.metrics.token_f1 import normalize_answer
    modes = selected(args)
    rows = []
    for name, label, sample in (("lf_squad", "LF-SQuAD", args.squad), ("lf_quoref", "LF-QUOREF", None)):
        docs = [json.loads(line) for line in (SHARED_DATA / name / "dev.jsonl").open(encoding="utf-8") if line.strip()]
        items = []
        for d, doc in enumerate(docs):
            qs = doc["questions"] if isinstance(doc["questions"], list) else ast.literal_eval(doc["questions"])
            items += [(d, q) for q in qs]
        if sample and len(items) > sample:
            items = random.Random(SEED).sample(items, sample)
        used = sorted({d for d, _ in items})
        store, ids = open_store(name, [(f"{_slug(docs[d]['title'])}.txt", docs[d]["document"]) for d in used],
                                args.rebuild)
        work_of = dict(zip(used, ids))
        ask = asker(store)
        hits: dict[str, list[bool]] = defaultdict(list)
        for d, q in items:
            gold = [normalize_answer(a) for a in q["answers"]]
            for mode in modes:
                plan = plan_of(ask, work_of[d], q["question"], params(mode, args.budget))
                haystack = f" {normalize_answer(context_of(plan))} "
                hits[mode].append(any(g and f" {g} " in haystack for g in gold))
        for mode in modes:
            rows.append({"dataset": label, "mode": mode, "n": len(hits[mode]),
                         "answer_in_prompt": round(100 * sum(hits[mode]) / len(hits[mode]), 1)})
        print(f"  {label}: {len(items)} questions over {len(used)} documents", flush=True)
        store.engine.dispose()
    return rows


def _slug(title: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in title)[:60] or "document"



# ---- main -----------------------------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="*", default=["graphrag", "long", "latency"])
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--limit", type=int, default=0, help="GraphRAG-Bench: a seeded sample of this many questions")
    parser.add_argument("--squad", type=int, default=600, help="LF-SQuAD questions (seeded sample, as bench/qa.py)")
    parser.add_argument("--repeats", type=int, default=3, help="latency: rounds over the 10 questions")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached SQLite stores")
    parser.add_argument("--out", default="graphrag_bench", help="results file name under bench/results")
    parser.add_argument("--llm", help="answers: the answering model, e.g. local:smollm2 or openai:gpt-4o-mini "
                        "(default: the app's answering model)")
    parser.add_argument("--judge", help="answers: the judging model for the benchmark's answer accuracy (default: "
                        "none, token F1 only)")
    parser.add_argument("--n", type=int, default=20, help="answers: questions, a seeded sample stratified by type")
    parser.add_argument("--modes", nargs="*", choices=list(MODES), help="only these modes (default: all)")
    parser.add_argument("--reuse-cache", action="store_true", help="use the newest cached store of each set when "
                        "none matches the current extractor and importer (instead of rebuilding it)")
    args = parser.parse_args()
    _graphrag_stores.REUSE_CACHE = args.reuse_cache
    out: dict[str, Any] = {"args": vars(args)}
    if "graphrag" in args.parts:
        out["graphrag"] = graphrag(args)
        print(f"\nGraphRAG-Bench Novel dev, {out['graphrag']['n']} questions, budget {args.budget}: content-word "
              "recall (%) of the gold evidence and answer in the prompt\n" + table(out["graphrag"]["rows"]), flush=True)
        for split, part in out["graphrag"]["splits"].items():
            print(f"\n{split} books ({', '.join(part['books'])})\n" + table(part["rows"]), flush=True)
    if "long" in args.parts:
        out["long_documents"] = long_documents(args)
        print("\nAnswer present in the prompt (%)\n" + table(out["long_documents"]), flush=True)
    if "latency" in args.parts:
        out["latency"] = latency(args)
        print(f"\nRetrieval latency, Pride and Prejudice (load {out['latency']['load_1min']})\n"
              + table(out["latency"]["rows"]) + "\n\nRetrieval + extractive answer (sentence cache empty), "
              + f"sentence backfill {out['latency']['sentence_backfill']}\n" + table(out["latency"]["extraction"])
              + "\n\nPersonalized PageRank by library\n"
              + table(out["latency"]["ppr_libraries"]), flush=True)
    if "answers" in args.parts:
        from graphrag_bench_llm import answer_phase, report
        out["answers"] = answer_phase(args)
        print("\n" + report(out["answers"]), flush=True)
    path = write_results(args.out, out)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()

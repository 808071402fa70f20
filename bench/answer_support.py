"""Answer support check (core.qa.support): does it tell an answer its cited passages back from an on-topic wrong one?

For each GraphRAG-Bench Novel dev question the sources are what the app cites for it: a dry run through the service
(rag mode, BM25 + MiniLM, budget 1,000 tokens of the default model) on the stores bench/graphrag_bench.py builds.

    positive  the question's gold answer against its own sources
    near      the gold answer of the most similar other question of the same book (MiniLM cosine of the questions):
              an on-topic wrong answer, the case a reader meets (the target: precision >= 0.8 at recall >= 0.8)
    shuffled  the gold answer of another question of the same book and type (a seeded rotation): an off-topic one

Each answer is one sample, judged as the Ask page judges it (AnswerSupport.supported): its sentence scores
aggregated by the rule ("all": every sentence over the threshold, i.e. the lowest score; "mean": the mean score), and
failed outright when it names someone the cited passages lack (names on) or the question does. The candidates are
weightings of four components (best-sentence word share, cited-text word share, MiniLM cosine, question-answer
co-location) x rule x names on/off. On the seeded dev half each candidate's threshold is the highest that keeps
recall >= 0.8, and the candidate with the best dev precision there is kept; the held-back test half is reported once,
per question type, also on the questions whose gold evidence the sources hold (>= 80% of its content words).

    .venv/bin/python bench/answer_support.py --cache /tmp/answers.npz     # the vectors bench/answers.py keeps
    .venv/bin/python bench/answer_support.py --per-type 50 --reuse-store  # 50 questions per type and half
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_results  # noqa: E402
from _qa_runs import SEED, SHORT, TYPES, MemoEmbed, halves, load_questions, per_type, retrieve  # noqa: E402

from core.qa.support import ANSWER_RULE, THRESHOLD, WEIGHTS, check_support  # noqa: E402

TARGET_RECALL = 0.8
PREVIOUS = (0.25, 0.25, 0.5, 0.0)  # the weights before co-location and names (threshold 0.44)
# (best-sentence word share, cited-text word share, cosine, co-location)
CANDIDATES: list[tuple[float, float, float, float]] = [
    (0.25, 0.25, 0.5, 0.0), (0.2, 0.2, 0.3, 0.3), (0.15, 0.15, 0.3, 0.4), (0.1, 0.1, 0.3, 0.5), (0.0, 0.0, 0.4, 0.6),
    (0.25, 0.0, 0.25, 0.5), (0.0, 0.25, 0.25, 0.5), (0.1, 0.1, 0.1, 0.7), (0.0, 0.0, 0.0, 1.0), (0.2, 0.0, 0.5, 0.3)]


def near_negatives(questions: list[dict[str, Any]], memo: MemoEmbed) -> dict[str, str]:
    """Question id -> the gold answer of the most similar other question of the same book."""
    out: dict[str, str] = {}
    by_book: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_book[q["source"]].append(q)
    for qs in by_book.values():
        if len(qs) < 2:
            continue
        vecs = memo([q["question"] for q in qs])
        sims = vecs @ vecs.T
        np.fill_diagonal(sims, -2.0)
        for i, q in enumerate(qs):
            for j in np.argsort(-sims[i]):
                if qs[j]["answer"].strip() != q["answer"].strip():
                    out[q["id"]] = qs[j]["answer"]
                    break
    return out


def shuffled_negatives(questions: list[dict[str, Any]], rng: random.Random) -> dict[str, str]:
    """Question id -> the gold answer of another question of the same book (and type where possible)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        groups[(q["source"], q["question_type"])].append(q)
    out: dict[str, str] = {}
    for (book, _), qs in sorted(groups.items()):
        pool = qs if len(qs) > 1 else [o for o in questions if o["source"] == book and o["id"] != qs[0]["id"]]
        order = pool[:]
        rng.shuffle(order)
        for i, q in enumerate(qs):
            others = [o for o in order if o["id"] != q["id"] and o["answer"].strip() != q["answer"].strip()]
            if others:
                out[q["id"]] = others[i % len(others)]["answer"]
    return out


def evidence_held(q: dict[str, Any], sources: list[str]) -> bool:
    """Whether the cited texts hold at least 80% of the gold evidence's content words (stemmed)."""
    from core.retrieval.hybrid import tokenize
    gold = set(tokenize([q.get("evidence") or ""])[0])
    found = set(tokenize([" ".join(sources)])[0]) if sources else set()
    return bool(gold) and len(gold & found) / len(gold) >= 0.8


def samples(questions: list[dict[str, Any]], sources: dict[str, list[str]], wrong: dict[str, str],
            weights: tuple[float, ...], memo: MemoEmbed, dev: set[str], held: dict[str, bool],
            entities: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per answer: its lowest and mean sentence score, whether a name fails it, label, type, half."""
    rows = []
    for q in questions:
        pairs = [(1, q["answer"])] + ([(0, wrong[q["id"]])] if q["id"] in wrong else [])
        for label, answer in pairs:
            support = check_support(answer, sources[q["id"]], question=q["question"], embed=memo, weights=weights,
                                    entities=entities.get(q["id"]))
            scores = [s.score for s in support.checked]
            if not scores:
                continue
            rows.append({"low": min(scores), "mean": float(np.mean(scores)), "label": label, "qid": q["id"],
                         "names_fail": bool(support.missing_names or support.question_missing),
                         "type": q["question_type"], "dev": q["id"] in dev, "held": held[q["id"]]})
    return rows


def verdicts(rows: list[dict[str, Any]], rule: str, names: bool, threshold: float) -> np.ndarray:
    key = "low" if rule == "all" else "mean"
    return np.array([r[key] >= threshold and not (names and r["names_fail"]) for r in rows], dtype=bool)


def report(rows: list[dict[str, Any]], rule: str, names: bool, threshold: float) -> dict[str, Any]:
    """Precision, recall and F1 of "supported" (answer level), and the AUC of the aggregated score."""
    from sklearn.metrics import roc_auc_score
    if not rows:
        return {}
    yes = verdicts(rows, rule, names, threshold)
    labels = np.array([r["label"] for r in rows])
    tp, fp = int((yes & (labels == 1)).sum()), int((yes & (labels == 0)).sum())
    fn = int((~yes & (labels == 1)).sum())
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    key = "low" if rule == "all" else "mean"
    score = np.array([r[key] - (10.0 if names and r["names_fail"] else 0.0) for r in rows])
    both = len(set(labels.tolist())) == 2
    return {"n_pos": int((labels == 1).sum()), "n_neg": int((labels == 0).sum()),
            "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3),
            "auc": round(float(roc_auc_score(labels, score)), 3) if both else float("nan")}


def threshold_at_recall(rows: list[dict[str, Any]], rule: str, names: bool) -> tuple[float, dict[str, Any]]:
    """The highest threshold keeping recall >= TARGET_RECALL on `rows`, and its report."""
    best = (0.0, report(rows, rule, names, 0.0))
    for t in np.round(np.arange(0.0, 1.0001, 0.005), 3):
        r = report(rows, rule, names, float(t))
        if r["recall"] >= TARGET_RECALL:
            best = (float(t), r)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions (a quick run)")
    parser.add_argument("--mode", default="rag", help="the retrieval mode whose citations are the sources")
    parser.add_argument("--core-only", action="store_true", help="only the weights core.qa.support uses")
    parser.add_argument("--per-type", type=int, default=0, help="at most N questions of each type from each half (a "
                        "seeded sample, the same as bench/answers.py --per-type N; 0: all)")
    parser.add_argument("--cache", type=Path, default=None, help="an .npz of MiniLM vectors kept between runs")
    parser.add_argument("--reuse-store", action="store_true", help="open the newest cached store even when the "
                        "importer or the offline extractor changed since it was built")
    args = parser.parse_args()
    started = time.perf_counter()
    everything = load_questions(args.limit)
    dev, test = halves(everything)
    questions = per_type(everything, dev, args.per_type) + per_type(everything, test, args.per_type)
    memo = MemoEmbed(args.cache)
    print(f"{len(questions)} questions; retrieving sources ({args.mode}, 1,000-token prompts)…", flush=True)
    runs = retrieve(questions, args.mode, reuse=args.reuse_store, memo=memo)
    sources = {qid: [c.text for c in run.result.plan.citations] for qid, run in runs.items()}
    entities = {qid: run.view.corpus.entities for qid, run in runs.items()}
    held = {q["id"]: evidence_held(q, sources[q["id"]]) for q in questions}
    near = near_negatives(everything, memo)  # the nearest of all the book's questions, sampled or not
    shuffled = shuffled_negatives(everything, random.Random(SEED))
    candidates = []
    for weights in (CANDIDATES if not args.core_only else [tuple(WEIGHTS)]):
        rows = samples(questions, sources, near, weights, memo, dev, held, entities)
        for rule in ("all", "mean"):
            for names in (True, False):
                threshold, dev_report = threshold_at_recall([r for r in rows if r["dev"]], rule, names)
                candidates.append({"weights": weights, "rule": rule, "names": names, "threshold": threshold,
                                   "dev_precision": dev_report["precision"], "dev_recall": dev_report["recall"],
                                   "dev_auc": dev_report["auc"], "rows": rows})
        print(f"  weights {weights}: best dev precision "
              f"{max(c['dev_precision'] for c in candidates[-4:]):.3f} ({time.perf_counter() - started:.0f} s)",
              flush=True)
    memo.save()
    chosen = max(candidates, key=lambda c: (c["dev_precision"], c["dev_recall"]))
    weights, rule, names, threshold = chosen["weights"], chosen["rule"], chosen["names"], chosen["threshold"]
    test = [r for r in chosen["rows"] if not r["dev"]]
    results = [{"negatives": "near", "half": "test", "type": "all", **report(test, rule, names, threshold)}]
    results += [{"negatives": "near", "half": "test", "type": SHORT[t],
                 **report([r for r in test if r["type"] == t], rule, names, threshold)} for t in TYPES]
    results.append({"negatives": "near", "half": "test", "type": "evidence in sources",
                    **report([r for r in test if r["held"]], rule, names, threshold)})
    results.append({"negatives": "near", "half": "dev", "type": "all",
                    **report([r for r in chosen["rows"] if r["dev"]], rule, names, threshold)})
    off = [r for r in samples(questions, sources, shuffled, weights, memo, dev, held, entities) if not r["dev"]]
    results.append({"negatives": "shuffled", "half": "test", "type": "all", **report(off, rule, names, threshold)})
    core = [c for c in candidates if c["weights"] == tuple(WEIGHTS) and c["rule"] == ANSWER_RULE and c["names"]]
    if core:  # the check as the app runs it: names on, core's rule and threshold
        rows_core = [r for r in core[0]["rows"] if not r["dev"]]
        results.append({"negatives": "near", "half": "test", "type": f"all (in core: threshold {THRESHOLD}, names)",
                        **report(rows_core, ANSWER_RULE, True, THRESHOLD)})
        results.append({"negatives": "near", "half": "test", "type": "evidence in sources (in core)",
                        **report([r for r in rows_core if r["held"]], ANSWER_RULE, True, THRESHOLD)})
        results.append({"negatives": "near", "half": "test", "type": "gold answers failed by names (in core)",
                        "n_pos": sum(1 for r in rows_core if r["label"] == 1),
                        "precision": round(sum(1 for r in rows_core if r["label"] == 1 and r["names_fail"])
                                           / max(1, sum(1 for r in rows_core if r["label"] == 1)), 3)})
    before = [c for c in candidates if c["weights"] == PREVIOUS and c["rule"] == "all" and not c["names"]]
    if before:  # the check as it was: no co-location, no names, every sentence over 0.44
        old = [r for r in before[0]["rows"] if not r["dev"]]
        results.append({"negatives": "near", "half": "test", "type": "all (previous check, threshold 0.44)",
                        **report(old, "all", False, 0.44)})
    kept = ["weights", "rule", "names", "threshold", "dev_precision", "dev_recall", "dev_auc"]
    print(f"\nchosen: weights {weights}, rule {rule}, names {names}, threshold {threshold:.3f} "
          f"(core.qa.support has {WEIGHTS}, {ANSWER_RULE}, {THRESHOLD})\n")
    print(table(candidates, kept))
    print()
    print(table(results))
    elapsed = round(time.perf_counter() - started, 1)
    path = write_results("answer_support_core" if args.core_only else "answer_support", {
        "command": "bench/answer_support.py " + " ".join(sys.argv[1:]),
        "questions": len(questions), "per_type_cap": args.per_type, "seed": SEED, "budget_tokens": 1000,
        "retrieval": f"{args.mode} (the service's "
        "dry run on the bench/graphrag_bench.py stores)", "target_recall": TARGET_RECALL,
        "chosen": {"weights": list(weights), "rule": rule, "names": names, "threshold": threshold},
        "in_core": {"weights": list(WEIGHTS), "rule": ANSWER_RULE, "threshold": THRESHOLD},
        "candidates": [{k: c[k] for k in kept} for c in candidates], "test": results, "seconds": elapsed})
    print(f"\n{elapsed} s; wrote {path}")


if __name__ == "__main__":
    main()

"""Answer support check (core.qa.support): its weights and threshold measured on GraphRAG-Bench's novel questions.

For each question, the sources are what a real retrieval cites: the book cut into passages as an import would
(core.qa.corpus_from_text, no facts), embedded with MiniLM, and the passages rag mode (BM25 + MiniLM, reciprocal rank
fusion) puts into a 1,000-token prompt (tokens counted as whitespace words here, no chat template).

    positive  the question's gold answer against its own sources
    negative  the gold answer of another question of the same book and type (a seeded derangement; a question alone
              in its book and type borrows from any other question of its book) against the same sources
    near      (reported, not used for choosing) the gold answer of the most similar other question of the same book
              (MiniLM cosine of the questions): an on-topic wrong answer, the harder case

Every checked answer sentence is a sample labelled by its answer, weighted 1 / (checked sentences of its answer), so
that each answer counts once whatever its length. The candidates are 10 weightings of the three components, each with
and without discounting the words an answer repeats from its question. On a seeded half of the questions each
candidate's threshold is the one that maximises balanced accuracy (supported vs not); the candidate with the best dev
balanced accuracy is kept (its balanced accuracy on the near negatives of the dev half is shown beside it).
Precision, recall and F1 of "supported", and the AUC of the score, are reported on the other half,
per question type and overall, plus the answer-level view a reader sees: the share of gold answers with at least one
sentence marked unsupported, and of shuffled answers with none.

    .venv/bin/python bench/answer_support.py              # all 1,041 questions: ~17,000 texts to embed
    .venv/bin/python bench/answer_support.py --limit 60   # the first 60 questions (one book)
    --cache /tmp/answer_support.npz keeps the vectors between runs

Embedding dominates: about 10 minutes on 2 quiet cores (38 minutes at load 6-8), then ~4 minutes of scoring the 20
candidates; with --cache a rerun takes ~5 minutes.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from _common import SHARED_DATA, table, write_results

from core.ingest import split_sentences
from core.nlp import embed
from core.qa import QAParams, corpus_from_text, plan_prompt
from core.qa.support import DISCOUNT_QUESTION_WORDS, THRESHOLD, WEIGHTS, check_support

DATA = SHARED_DATA / "graphrag_bench_novel"
SEED = 2025
BUDGET = 1000
# (best-sentence word share, cited-text word share, cosine with the best sentence)
CANDIDATES: list[tuple[float, float, float]] = [
    (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.5, 0.0, 0.5), (0.25, 0.25, 0.5), (0.35, 0.15, 0.5),
    (0.5, 0.25, 0.25), (0.25, 0.0, 0.75), (0.0, 0.5, 0.5), (0.75, 0.0, 0.25)]
TYPES = ["Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation"]


class MemoEmbed:
    """core.nlp.embed with a memory: a text is embedded once per run (sources recur from question to question),
    optionally kept in an .npz file between runs (--cache)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path is not None and path.exists():
            with np.load(path, allow_pickle=False) as data:
                self.vectors = dict(zip(data["texts"].tolist(), data["vectors"]))

    def __call__(self, texts: Any) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        if missing:
            self.vectors.update(zip(missing, embed(missing)))
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)

    def save(self) -> None:
        if self.path is not None:
            np.savez(self.path, texts=np.array(list(self.vectors)), vectors=np.stack(list(self.vectors.values())))


def load(limit: int | None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (DATA / "questions.jsonl").open(encoding="utf-8") if line.strip()]
    return rows[:limit] if limit else rows


def retrieve(questions: list[dict[str, Any]], memo: MemoEmbed) -> dict[str, list[str]]:
    """Question id -> the texts rag mode cites for it (per book: passages and question vectors embedded once)."""
    by_book: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_book[q["source"]].append(q)
    sources: dict[str, list[str]] = {}
    params = QAParams(mode="rag", budget_tokens=BUDGET)
    for book, qs in by_book.items():
        start = time.perf_counter()
        corpus = corpus_from_text((DATA / "books" / f"{book}.txt").read_text(encoding="utf-8"), facts=False)
        corpus.passage_vectors = memo([p.text for p in corpus.passages])
        view = corpus.upto(None)
        for q, vec in zip(qs, memo([q["question"] for q in qs])):
            plan = plan_prompt(q["question"], view, params, count=lambda t: len(t.split()), query_vec=vec)
            sources[q["id"]] = [c.text for c in plan.citations]
        print(f"  {book}: {len(corpus.passages)} passages, {len(qs)} questions, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    return sources


def negatives(questions: list[dict[str, Any]], rng: random.Random) -> dict[str, str]:
    """Question id -> the gold answer of another question of the same book (and type where possible)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        groups[(q["source"], q["question_type"])].append(q)
    out: dict[str, str] = {}
    for (book, _), qs in sorted(groups.items()):
        pool = qs if len(qs) > 1 else [o for o in questions if o["source"] == book and o["id"] != qs[0]["id"]]
        if not pool:
            continue
        order = pool[:]
        rng.shuffle(order)
        for i, q in enumerate(qs):  # a rotation of the shuffled pool: never the question's own answer
            others = [o for o in order if o["id"] != q["id"] and o["answer"].strip() != q["answer"].strip()]
            if others:
                out[q["id"]] = others[i % len(others)]["answer"]
    return out


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


def samples(questions: list[dict[str, Any]], sources: dict[str, list[str]], wrong: dict[str, str],
            weights: tuple[float, float, float], discount: bool, memo: MemoEmbed,
            dev: set[str]) -> list[dict[str, Any]]:
    """One row per checked answer sentence: its score, label, weight, question type and half."""
    rows = []
    for q in questions:
        pairs = [(1, q["answer"])] + ([(0, wrong[q["id"]])] if q["id"] in wrong else [])
        for label, answer in pairs:
            checked = check_support(answer, sources[q["id"]], question=q["question"], embed=memo, weights=weights,
                                    discount_question=discount).checked
            for s in checked:
                rows.append({"score": s.score, "label": label, "weight": 1 / len(checked), "qid": q["id"],
                             "type": q["question_type"], "dev": q["id"] in dev})
    return rows


def best_threshold(rows: list[dict[str, Any]]) -> tuple[float, float]:
    """(threshold, balanced accuracy): the threshold maximising weighted balanced accuracy on `rows`."""
    scores = np.array([r["score"] for r in rows])
    labels = np.array([r["label"] for r in rows])
    weights = np.array([r["weight"] for r in rows])
    pos, neg = weights[labels == 1].sum(), weights[labels == 0].sum()
    best = (0.0, -1.0)
    for t in np.round(np.arange(0.0, 1.0001, 0.005), 3):
        yes = scores >= t
        tpr = weights[yes & (labels == 1)].sum() / pos
        tnr = weights[~yes & (labels == 0)].sum() / neg
        if (tpr + tnr) / 2 > best[1]:
            best = (float(t), float((tpr + tnr) / 2))
    return best


def report(rows: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """Weighted precision / recall / F1 of "supported", balanced accuracy and AUC, plus the answer-level rates."""
    from sklearn.metrics import roc_auc_score
    if not rows:
        return {}
    scores = np.array([r["score"] for r in rows])
    labels = np.array([r["label"] for r in rows])
    w = np.array([r["weight"] for r in rows])
    yes = scores >= threshold
    tp, fp = w[yes & (labels == 1)].sum(), w[yes & (labels == 0)].sum()
    fn, tn = w[~yes & (labels == 1)].sum(), w[~yes & (labels == 0)].sum()
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    answers: dict[tuple[str, int], bool] = {}
    for r, ok in zip(rows, yes):
        key = (r["qid"], r["label"])
        answers[key] = answers.get(key, True) and bool(ok)
    gold = [ok for (_, label), ok in answers.items() if label == 1]
    shuffled = [ok for (_, label), ok in answers.items() if label == 0]
    both = len(set(labels.tolist())) == 2
    return {"n_pos": len(gold), "n_neg": len(shuffled), "sentences": len(rows),
            "precision": round(float(precision), 3), "recall": round(float(recall), 3), "f1": round(float(f1), 3),
            "balanced_acc": round(float((tp / (tp + fn) + tn / (tn + fp)) / 2), 3) if both else float("nan"),
            "auc": round(float(roc_auc_score(labels, scores, sample_weight=w)), 3) if both else float("nan"),
            "gold_flagged": round(1 - sum(gold) / len(gold), 3) if gold else float("nan"),
            "wrong_passed": round(sum(shuffled) / len(shuffled), 3) if shuffled else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions (a quick run)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="an .npz file keeping the MiniLM vectors between runs (e.g. /tmp/answer_support.npz)")
    args = parser.parse_args()
    started = time.perf_counter()
    questions = load(args.limit)
    rng = random.Random(SEED)
    ids = [q["id"] for q in questions]
    rng.shuffle(ids)
    dev = set(ids[:len(ids) // 2])
    print(f"{len(questions)} questions; retrieving sources (rag, {BUDGET}-token prompts)…", flush=True)
    memo = MemoEmbed(args.cache)
    sources = retrieve(questions, memo)
    wrong, near = negatives(questions, rng), near_negatives(questions, memo)
    # every sentence the checks will embed, in one call (sorted by length inside it: less padding than per question)
    texts = [q["answer"] for q in questions] + list(wrong.values()) + list(near.values())
    texts += [t for q in questions for t in sources[q["id"]]]
    memo([s for t in dict.fromkeys(texts) for s in split_sentences(t)])
    memo.save()
    print(f"  {len(memo.vectors):,} texts embedded ({time.perf_counter() - started:.0f} s)", flush=True)

    candidates = []
    for discount in (False, True):
        for weights in CANDIDATES:
            rows = samples(questions, sources, wrong, weights, discount, memo, dev)
            near_all = samples(questions, sources, near, weights, discount, memo, dev)
            threshold, bal = best_threshold([r for r in rows if r["dev"]])
            dev_near = report([r for r in near_all if r["dev"]], threshold)
            candidates.append({"weights": weights, "discount_question": discount, "threshold": threshold,
                               "dev_balanced_acc": round(bal, 3),
                               "dev_auc": report([r for r in rows if r["dev"]], threshold)["auc"],
                               "dev_near_balanced_acc": dev_near["balanced_acc"], "dev_near_auc": dev_near["auc"],
                               "rows": rows, "near": near_all})
            print(f"  weights {weights}, discount {discount}: dev threshold {threshold:.3f}, balanced accuracy "
                  f"{bal:.3f}, near {dev_near['balanced_acc']:.3f} ({time.perf_counter() - started:.0f} s)",
                  flush=True)
    chosen = max(candidates, key=lambda c: c["dev_balanced_acc"])
    weights, threshold, rows = chosen["weights"], chosen["threshold"], chosen["rows"]
    discount = chosen["discount_question"]
    test = [r for r in rows if not r["dev"]]
    results = [{"half": "test", "type": "all", **report(test, threshold)}]
    results += [{"half": "test", "type": t, **report([r for r in test if r["type"] == t], threshold)}
                for t in TYPES if any(r["type"] == t for r in test)]
    results.append({"half": "dev", "type": "all", **report([r for r in rows if r["dev"]], threshold)})
    near_rows = [r for r in chosen["near"] if not r["dev"]]
    hard = [{"negatives": "nearest question's answer", "type": "all", **report(near_rows, threshold)}]
    hard += [{"negatives": "nearest question's answer", "type": t,
              **report([r for r in near_rows if r["type"] == t], threshold)} for t in TYPES
             if any(r["type"] == t for r in near_rows)]
    columns = ["half", "type", "n_pos", "n_neg", "sentences", "precision", "recall", "f1", "balanced_acc", "auc",
               "gold_flagged", "wrong_passed"]
    print(f"\nchosen weights (best-sentence words, cited-text words, cosine) = {weights}, question words "
          f"discounted: {discount}, threshold {threshold:.3f} (core.qa.support has {WEIGHTS}, "
          f"{DISCOUNT_QUESTION_WORDS}, {THRESHOLD})\n")
    kept = ["weights", "discount_question", "threshold", "dev_balanced_acc", "dev_auc", "dev_near_balanced_acc",
            "dev_near_auc"]
    print(table(candidates, kept))
    print()
    print(table(results, columns))
    print()
    print(table(hard, ["negatives", *columns[1:]]))
    elapsed = round(time.perf_counter() - started, 1)
    path = write_results("answer_support", {
        "command": "bench/answer_support.py" + (f" --limit {args.limit}" if args.limit else ""),
        "questions": len(questions), "seed": SEED, "budget_tokens": BUDGET, "retrieval": "rag (hybrid), "
        "whitespace-word token count",
        "chosen": {"weights": list(weights), "discount_question": discount, "threshold": threshold},
        "in_core": {"weights": list(WEIGHTS), "discount_question": DISCOUNT_QUESTION_WORDS, "threshold": THRESHOLD},
        "candidates": [{k: c[k] for k in kept} for c in candidates],
        "test": results, "near_negatives_test": hard, "seconds": elapsed})
    print(f"\n{elapsed} s; wrote {path}")


if __name__ == "__main__":
    main()

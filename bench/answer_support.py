"""Answer check (core.qa.support + core.qa.relevance): does it tell a right answer from an on-topic wrong one?

For each GraphRAG-Bench Novel dev question the sources are what the app cites for it: a dry run through the service
(rag mode, BM25 + MiniLM, budget 1,000 tokens of the default model) on the stores bench/graphrag_bench.py builds.

    positive  the question's gold answer against its own sources
    near      the gold answer of the most similar other question of the same book (MiniLM cosine of the questions):
              an on-topic wrong answer, the case a reader meets (the target: precision >= 0.8 at recall >= 0.8)
    swap      the gold answer with one of its names (one the question does not ask about) replaced by another name
              the cited passages hold: a confident wrong name that passes the names check ("The Yeehats stole Buck")
    shuffled  the gold answer of another question of the same book and type (a seeded rotation): an off-topic one

Each answer is one sample, judged as the Ask page judges it (AnswerSupport.supported). Two kinds of verdict are
compared, each over ten weightings of the sentence score's four components (best-sentence word share, cited-text
word share, MiniLM cosine, question-answer co-location):
    rule      the sentence scores aggregated ("all": the lowest; "mean") against a threshold, names on or off
    logistic  core.qa.relevance's model: a logistic regression over the mean sentence score and the answer's
              relevance to the question (MiniLM cosine of question and answer; the share of the question's own words
              the answer states, a short answer with the sentence that backs it), fitted on the dev half's right
              answers against its near and swap ones; names on or off
On the seeded dev half each candidate's threshold is the highest that keeps recall >= 0.8, and the candidate with
the best dev precision against near answers is kept; the held-back test half is reported once, per question type
and per kind of wrong answer, also on the questions whose gold evidence the sources hold (>= 80% of its words).
--pmi N adds, on N dev questions, the embedded model's pointwise mutual information of answer and question given
the passages as a fourth input (measured, not used by the app: see core/qa/relevance.py).

    .venv/bin/python bench/answer_support.py --cache /tmp/answers.npz     # the vectors bench/answers.py keeps
    .venv/bin/python bench/answer_support.py --per-type 50 --reuse-store  # 50 questions per type and half
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_results  # noqa: E402
from _qa_runs import SEED, SHORT, TYPES, MemoEmbed, halves, load_questions, per_type, retrieve  # noqa: E402

from core.qa.names import answer_names, question_names  # noqa: E402
from core.qa.relevance import COEFFICIENTS, INTERCEPT, PROBABILITY  # noqa: E402
from core.qa.support import WEIGHTS, check_support  # noqa: E402

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


def swap_negatives(questions: list[dict[str, Any]], sources: dict[str, list[str]], entities: dict[str, Any],
                   rng: random.Random) -> dict[str, str]:
    """Question id -> its gold answer with one of its names (not one the question asks about) replaced by another
    name the cited passages hold; questions whose answer names no one are left out."""
    out: dict[str, str] = {}
    for q in questions:
        ents = entities.get(q["id"])
        asked = {w.lower() for n in question_names(q["question"], ents) for w in n.split()}
        mine = [n for n in answer_names(q["answer"], ents) if not {w.lower() for w in n.split()} & asked]
        if not mine:
            continue
        taken = {w.lower() for n in mine for w in n.split()} | asked
        pool = sorted({n for text in sources[q["id"]] for n in answer_names(text, ents)
                       if not {w.lower() for w in n.split()} & taken and n.lower() not in q["answer"].lower()})
        if pool:
            target, other = rng.choice(mine), rng.choice(pool)
            out[q["id"]] = re.sub(re.escape(target), other, q["answer"])
    return out


def evidence_held(q: dict[str, Any], sources: list[str]) -> bool:
    """Whether the cited texts hold at least 80% of the gold evidence's content words (stemmed)."""
    from core.retrieval.hybrid import tokenize
    gold = set(tokenize([q.get("evidence") or ""])[0])
    found = set(tokenize([" ".join(sources)])[0]) if sources else set()
    return bool(gold) and len(gold & found) / len(gold) >= 0.8


def samples(questions: list[dict[str, Any]], sources: dict[str, list[str]], wrongs: dict[str, dict[str, str]],
            weights: tuple[float, ...], memo: MemoEmbed, dev: set[str], held: dict[str, bool],
            entities: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per answer: its lowest and mean sentence score, whether a name fails it, its relevance to the
    question, the verdict of the check as core runs it, label (1 right; 0 wrong), kind, type, half."""
    rows = []
    for q in questions:
        pairs = [("right", q["answer"])] + [(kind, w[q["id"]]) for kind, w in wrongs.items() if q["id"] in w]
        for kind, answer in pairs:
            support = check_support(answer, sources[q["id"]], question=q["question"], embed=memo, weights=weights,
                                    entities=entities.get(q["id"]))
            scores = [s.score for s in support.checked]
            if not scores or support.relevance is None:
                continue
            rows.append({"low": min(scores), "mean": float(np.mean(scores)), "label": int(kind == "right"),
                         "kind": kind, "qid": q["id"], "question": q["question"], "answer": answer,
                         "names_fail": bool(support.missing_names or support.question_missing),
                         "cosine": support.relevance.cosine, "coverage": support.relevance.coverage,
                         "core": support.supported is True,
                         "type": q["question_type"], "dev": q["id"] in dev, "held": held[q["id"]]})
    return rows


FEATURES = ("mean", "cosine", "coverage")


def fit_logistic(rows: list[dict[str, Any]]) -> tuple[list[float], float]:
    """core.qa.relevance's model fitted on `rows` (right against wrong): (coefficients, intercept)."""
    from sklearn.linear_model import LogisticRegression
    x = np.array([[r[f] for f in FEATURES] for r in rows])
    model = LogisticRegression(C=1.0).fit(x, [r["label"] for r in rows])
    return [round(float(c), 3) for c in model.coef_[0]], round(float(model.intercept_[0]), 3)


def scores(rows: list[dict[str, Any]], model: dict[str, Any]) -> np.ndarray:
    """Each row's score under `model` (names failing push it below any threshold when names are on)."""
    if model["rule"] == "logistic":
        x = np.array([[r[f] for f in FEATURES] for r in rows])
        z = model["intercept"] + x @ np.array(model["coefficients"])
        raw = 1.0 / (1.0 + np.exp(-z))
    else:
        raw = np.array([r["low" if model["rule"] == "all" else "mean"] for r in rows])
    fail = np.array([model["names"] and r["names_fail"] for r in rows], dtype=bool)
    return np.where(fail, raw - 10.0, raw)


def report(rows: list[dict[str, Any]], model: dict[str, Any], threshold: float) -> dict[str, Any]:
    """Precision, recall and F1 of "right" (answer level), and the AUC of the score."""
    from sklearn.metrics import roc_auc_score
    if not rows:
        return {}
    score = scores(rows, model)
    yes = score >= threshold
    labels = np.array([r["label"] for r in rows])
    tp, fp = int((yes & (labels == 1)).sum()), int((yes & (labels == 0)).sum())
    fn = int((~yes & (labels == 1)).sum())
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    both = len(set(labels.tolist())) == 2
    return {"n_pos": int((labels == 1).sum()), "n_neg": int((labels == 0).sum()),
            "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3),
            "auc": round(float(roc_auc_score(labels, score)), 3) if both else float("nan")}


def threshold_at_recall(rows: list[dict[str, Any]], model: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """The highest threshold keeping recall >= TARGET_RECALL on `rows`, and its report."""
    best = (0.0, report(rows, model, 0.0))
    for t in np.round(np.arange(0.0, 1.0001, 0.005), 3):
        r = report(rows, model, float(t))
        if r["recall"] >= TARGET_RECALL:
            best = (float(t), r)
    return best


def of(rows: list[dict[str, Any]], kind: str, **where: Any) -> list[dict[str, Any]]:
    """The right answers and the `kind` wrong ones among `rows` matching `where` (field=value)."""
    return [r for r in rows if r["kind"] in ("right", kind) and all(r[k] == v for k, v in where.items())]


def pmi_rows(questions: list[dict[str, Any]], sources: dict[str, list[str]], wrong: dict[str, str],
             limit: int) -> dict[tuple[str, int], float]:
    """(question id, label) -> the embedded model's PMI of answer and question given the passages, per token."""
    from core.llm import get_llm
    llm = get_llm("local:smollm2")
    out = {}
    for q in questions[:limit]:
        context = "\n".join(sources[q["id"]])[:4000]
        for label, answer in [(1, q["answer"]), (0, wrong.get(q["id"]))]:
            if answer is None:
                continue
            text = " " + answer.strip()
            n = len(llm.token_logprobs("x", text))
            asked = llm.logprob(f"{context}\n\nQuestion: {q['question']}\nAnswer:", text) / n
            unasked = llm.logprob(f"{context}\n\nAnswer:", text) / n
            out[(q["id"], label)] = asked - unasked
    return out


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
    parser.add_argument("--pmi", type=int, default=0, help="also the embedded model's PMI on N dev questions "
                        "(about 6 s a question on 2 cores)")
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
    wrongs = {"near": near_negatives(everything, memo),  # the nearest of all the book's questions, sampled or not
              "swap": swap_negatives(questions, sources, entities, random.Random(SEED)),
              "shuffled": shuffled_negatives(everything, random.Random(SEED))}
    candidates = []
    for weights in (CANDIDATES if not args.core_only else [tuple(WEIGHTS)]):
        rows = samples(questions, sources, wrongs, weights, memo, dev, held, entities)
        dev_near = of(rows, "near", dev=True)
        models: list[dict[str, Any]] = [{"rule": rule, "names": names} for rule in ("all", "mean")
                                        for names in (True, False)]
        coefficients, intercept = fit_logistic([r for r in rows if r["dev"] and r["kind"] != "shuffled"])
        models += [{"rule": "logistic", "names": names, "coefficients": coefficients, "intercept": intercept}
                   for names in (True, False)]
        for model in models:
            threshold, dev_report = threshold_at_recall(dev_near, model)
            candidates.append({"weights": weights, **model, "threshold": threshold,
                               "dev_precision": dev_report["precision"], "dev_recall": dev_report["recall"],
                               "dev_auc": dev_report["auc"], "rows": rows})
        print(f"  weights {weights}: best dev precision "
              f"{max(c['dev_precision'] for c in candidates[-len(models):]):.3f} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    memo.save()
    chosen = max(candidates, key=lambda c: (c["dev_precision"], c["dev_recall"]))
    threshold = chosen["threshold"]
    test_rows = [r for r in chosen["rows"] if not r["dev"]]
    results = []
    for kind in ("near", "swap", "shuffled"):
        results.append({"negatives": kind, "half": "test", "type": "all",
                        **report(of(test_rows, kind), chosen, threshold)})
    results += [{"negatives": "near", "half": "test", "type": SHORT[t],
                 **report(of(test_rows, "near", type=t), chosen, threshold)} for t in TYPES]
    results.append({"negatives": "near", "half": "test", "type": "evidence in sources",
                    **report(of(test_rows, "near", held=True), chosen, threshold)})
    results.append({"negatives": "near", "half": "dev", "type": "all",
                    **report(of(chosen["rows"], "near", dev=True), chosen, threshold)})
    core = [c for c in candidates if c["weights"] == tuple(WEIGHTS) and c["rule"] == "logistic" and c["names"]]
    if core:
        print(f"core's weights, logistic: coefficients {core[0]['coefficients']}, intercept {core[0]['intercept']}, "
              f"dev threshold (names off) "
              f"{[c['threshold'] for c in candidates if c['weights'] == tuple(WEIGHTS) and c['rule'] == 'logistic']}")
    if core:  # the check as the app runs it: core's weights, coefficients and threshold (AnswerSupport.supported)
        rows_core = [r for r in core[0]["rows"] if not r["dev"]]
        in_core = {"rule": "logistic", "names": True, "coefficients": list(COEFFICIENTS), "intercept": INTERCEPT}
        for kind in ("near", "swap"):
            part = of(rows_core, kind)
            results.append({"negatives": kind, "half": "test", "type": f"all (in core: p >= {PROBABILITY}, names)",
                            **report(part, in_core, PROBABILITY)})
            results.append({"negatives": kind, "half": "test", "type": "evidence in sources (in core)",
                            **report([r for r in part if r["held"]], in_core, PROBABILITY)})
            assert all(r["core"] == (s >= PROBABILITY) for r, s in zip(part, scores(part, in_core))), \
                "the bench's model differs from AnswerSupport.supported"
    before = [c for c in candidates if c["weights"] == PREVIOUS and c["rule"] == "all" and not c["names"]]
    if before:  # the check as it was first: no co-location, no names, every sentence over 0.44
        old = [r for r in before[0]["rows"] if not r["dev"]]
        results.append({"negatives": "near", "half": "test", "type": "all (first check, threshold 0.44)",
                        **report(of(old, "near"), before[0], 0.44)})
    rule_only = [c for c in candidates if c["rule"] != "logistic"]
    if rule_only:  # the best check without relevance (the last round's)
        best_rule = max(rule_only, key=lambda c: (c["dev_precision"], c["dev_recall"]))
        results.append({"negatives": "near", "half": "test", "type": "all (best rule without relevance)",
                        **report(of([r for r in best_rule["rows"] if not r["dev"]], "near"), best_rule,
                                 best_rule["threshold"])})
    reader = extractive_check(questions, runs, sources, entities, memo, dev)
    pmi: dict[str, Any] = {}
    if args.pmi:
        pmi = pmi_check(questions, sources, wrongs["near"], chosen, dev, args.pmi)
    kept = ["weights", "rule", "names", "threshold", "dev_precision", "dev_recall", "dev_auc"]
    print(f"\nchosen: weights {chosen['weights']}, rule {chosen['rule']}, names {chosen['names']}, threshold "
          f"{threshold:.3f}" + (f", coefficients {chosen['coefficients']}, intercept {chosen['intercept']}"
                                if chosen["rule"] == "logistic" else "")
          + f"\n(core: weights {WEIGHTS}, coefficients {COEFFICIENTS}, intercept {INTERCEPT}, p >= {PROBABILITY})\n")
    print(table(candidates, kept))
    print()
    print(table(results))
    print("\nThe extractive reader's answers on the held-back half, as the page shows or withholds them\n"
          + table(reader))
    if pmi:
        print("\nWith the embedded model's PMI (dev, 5-fold cross-validated):", pmi)
    elapsed = round(time.perf_counter() - started, 1)
    path = write_results("answer_support_core" if args.core_only else "answer_support", {
        "command": "bench/answer_support.py " + " ".join(sys.argv[1:]),
        "questions": len(questions), "per_type_cap": args.per_type, "seed": SEED, "budget_tokens": 1000,
        "retrieval": f"{args.mode} (the service's "
        "dry run on the bench/graphrag_bench.py stores)", "target_recall": TARGET_RECALL,
        "chosen": {k: chosen[k] for k in ("weights", "rule", "names", "threshold", "coefficients", "intercept")
                   if k in chosen},
        "in_core": {"weights": list(WEIGHTS), "coefficients": list(COEFFICIENTS), "intercept": INTERCEPT,
                    "probability": PROBABILITY},
        "candidates": [{k: c[k] for k in kept + ["coefficients", "intercept"] if k in c} for c in candidates], "test": results, "extractive_answers": reader, "pmi": pmi,
        "seconds": elapsed})
    print(f"\n{elapsed} s; wrote {path}")


def extractive_check(questions: list[dict[str, Any]], runs: dict[str, Any], sources: dict[str, list[str]],
                     entities: dict[str, Any], memo: MemoEmbed, dev: set[str]) -> list[dict[str, Any]]:
    """What a reader meets on the held-back half: the extractive reader's answer to each question (what the page
    shows with the embedded models), right when it holds at least half of the gold answer's new words (its content
    words the question does not hold), passed or failed by the check with and without relevance."""
    from core.qa.words import content_words
    out = []
    for q in questions:
        if q["id"] in dev:
            continue
        extraction = runs[q["id"]].result.extraction
        answer = getattr(extraction, "answer", None)
        new = {st for st, _ in content_words(q["answer"])} - {st for st, _ in content_words(q["question"])}
        if not answer or not new:
            continue
        right = len(new & {st for st, _ in content_words(answer)}) / len(new) >= 0.5
        judged = {name: check_support(answer, sources[q["id"]], question=q["question"], embed=memo,
                                      entities=entities.get(q["id"]), relevant=relevant).supported is True
                  for name, relevant in (("with relevance", True), ("without relevance", False))}
        out.append({"right": right, "type": q["question_type"], **judged})
    rows = []
    for name in ("without relevance", "with relevance"):
        shown = [r for r in out if r[name]]
        right = [r for r in out if r["right"]]
        rows.append({"check": name, "answers": len(out), "right %": round(100 * len(right) / max(1, len(out)), 1),
                     "shown %": round(100 * len(shown) / max(1, len(out)), 1),
                     "right among shown %": round(100 * sum(r["right"] for r in shown) / max(1, len(shown)), 1),
                     "right ones shown %": round(100 * sum(r[name] for r in right) / max(1, len(right)), 1),
                     "wrong ones shown %": round(100 * sum(r[name] for r in out if not r["right"])
                                                 / max(1, len(out) - len(right)), 1)})
    return rows


def pmi_check(questions: list[dict[str, Any]], sources: dict[str, list[str]], near: dict[str, str],
              chosen: dict[str, Any], dev: set[str], limit: int) -> dict[str, Any]:
    """Dev precision at recall 0.8 (5-fold cross-validated logistic models) with and without the PMI input."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    asked = [q for q in questions if q["id"] in dev]
    started = time.perf_counter()
    pmi = pmi_rows(asked, sources, near, limit)
    seconds = time.perf_counter() - started
    rows = [r for r in of(chosen["rows"], "near", dev=True) if (r["qid"], r["label"]) in pmi]
    labels = np.array([r["label"] for r in rows])
    out: dict[str, Any] = {"questions": min(limit, len(asked)), "answers": len(rows),
                           "seconds_per_answer": round(seconds / max(1, len(pmi)), 2)}
    for name, extra in (("without PMI", False), ("with PMI", True)):
        x = np.array([[r[f] for f in FEATURES] + ([pmi[(r["qid"], r["label"])]] if extra else []) for r in rows])
        score = cross_val_predict(LogisticRegression(), x, labels, cv=5, method="decision_function")
        order = np.argsort(-score)
        hits = np.cumsum(labels[order])
        k = int(np.searchsorted(hits, TARGET_RECALL * labels.sum()))
        out[name] = round(float(hits[k] / (k + 1)), 3)
    return out


if __name__ == "__main__":
    main()

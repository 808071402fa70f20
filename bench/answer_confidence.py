"""Is the extractive reader's sentence shown as the answer only when it answers? (issue 37, core.qa.confidence)

With the embedded models the Ask page answers in the book's own words: the sentence the reader
(core.qa.extract) picks from the cited passages. It always finds a best sentence, and on questions that ask why,
how or what someone meant that sentence mostly shares a word or two with the question and says nothing to it
("Why did the Skipper surrender?" -> "The skipper's color subsided."). core.qa.confidence labels each one: an
answer (it states what was asked) or only the closest passage, which the page then shows as such.

Per question set, on the reader's answers (dry runs as the app asks, rag, budget 1,000; the page's answer check
run on each, as the page does): an answer is right when it holds at least half of the gold answer's new words (its
content words the question does not hold; the measure of bench/answer_support.py; QuALITY: the right option's
words). "before": shown as the answer when the check passes (the page until now); "after": and labelled an answer.

    .venv/bin/python bench/answer_confidence.py --sets graphrag_dev --per-type 50   # TOPIC_SHARE chosen here
    .venv/bin/python bench/answer_confidence.py --sets graphrag_test quality narrativeqa --per-type 50
    .venv/bin/python bench/answer_confidence.py --sets lf_squad      # 60 questions of bench/qa.py's sample

QuALITY (5 stories and an essay, 56 questions) and the NarrativeQA sample (50 questions on plot summaries) are
imported and built here as the app does (cached like GraphRAG-Bench's stores).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from typing import Any

from _common import SHARED_DATA, table, write_results
from _qa_runs import MemoEmbed, cached_store, halves, load_questions, novel_store, per_type, retrieve

from core.qa.confidence import EVENT_KINDS, NEVER, SPAN_KINDS
from core.qa.words import content_words

SETS = ("graphrag_dev", "graphrag_test", "quality", "narrativeqa", "lf_squad")
LF_SQUAD = 60   # LF-SQuAD: the first N of bench/qa.py's seeded 600-question sample (as bench/answers.py)


def right(answer: str, question: str, golds: list[str]) -> bool | None:
    """At least half of some gold answer's new words in the answer; None when no gold adds a word."""
    asked = {st for st, _ in content_words(question)}
    said = {st for st, _ in content_words(answer)}
    shares = []
    for gold in golds:
        new = {st for st, _ in content_words(gold)} - asked
        if new:
            shares.append(len(new & said) / len(new))
    return max(shares) >= 0.5 if shares else None


def _group(kind: str) -> str:
    return "a name, place, time or number" if kind in SPAN_KINDS else (
        "why / how / what / yes-no" if kind in EVENT_KINDS else "whole story" if kind in NEVER else "who is X")


def judge(items: list[dict[str, Any]], runs: dict[str, Any], memo: MemoEmbed) -> list[dict[str, Any]]:
    """One row per question the reader answered: right, its kind, and whether the page shows it as the answer
    before and after the labels."""
    from core.qa.support import check_support
    out = []
    for item in items:
        run = runs[item["id"]]
        extraction = run.result.extraction
        answer = getattr(extraction, "answer", None)
        if not answer:
            continue
        verdict = right(answer, item["question"], item["golds"])
        if verdict is None:
            continue
        support = check_support(answer, [c.text for c in run.result.plan.citations], question=item["question"],
                                entities=run.view.corpus.entities, embed=memo)
        before = support.supported is True
        out.append({"id": item["id"], "question": item["question"], "answer": answer, "right": verdict,
                    "kind": extraction.question_type, "group": _group(extraction.question_type),
                    "before": before, "after": before and extraction.confident, "confident": extraction.confident})
    return out


def summarize(name: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups["all"].append(r)
        groups[r["group"]].append(r)
    table_rows = []
    for group, part in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        good = [r for r in part if r["right"]]
        bad = [r for r in part if not r["right"]]
        row: dict[str, Any] = {"set": name, "questions": group, "answers": len(part),
                               "right %": round(100 * len(good) / max(1, len(part)), 1)}
        for when in ("before", "after"):
            shown = [r for r in part if r[when]]
            row[f"shown % ({when})"] = round(100 * len(shown) / max(1, len(part)), 1)
            row[f"right among shown % ({when})"] = round(100 * sum(r["right"] for r in shown) / max(1, len(shown)), 1)
            row[f"right ones shown % ({when})"] = round(100 * sum(r[when] for r in good) / max(1, len(good)), 1)
            row[f"wrong ones shown % ({when})"] = round(100 * sum(r[when] for r in bad) / max(1, len(bad)), 1)
        table_rows.append(row)
    return table_rows


def graphrag(half: str, cap: int, reuse: bool, memo: MemoEmbed) -> tuple[list[dict], dict[str, Any]]:
    questions = load_questions()
    dev, test = halves(questions)
    chosen = per_type(questions, dev if half == "dev" else test, cap)
    store, work_of = novel_store(reuse)
    runs = retrieve(chosen, "rag", "extractive", store, work_of, memo=memo)
    return [{"id": q["id"], "question": q["question"], "golds": [q["answer"]]} for q in chosen], runs


def _import_set(name: str, docs: list[tuple[str, str]], asked: list[tuple[int, dict[str, Any]]], reuse: bool,
                memo: MemoEmbed) -> tuple[list[dict], dict[str, Any]]:
    """`asked`: (index of its document, {"id", "question", "golds"}) per question."""
    store, ids = cached_store(name, docs, reuse)
    work_of = {f"doc{i}": work_id for i, work_id in enumerate(ids)}
    questions = [{**q, "source": f"doc{i}"} for i, q in asked]
    return questions, retrieve(questions, "rag", "extractive", store, work_of, memo=memo)


def quality(reuse: bool, memo: MemoEmbed) -> tuple[list[dict], dict[str, Any]]:
    rows = [json.loads(line) for line in (SHARED_DATA / "quality" / "dev.jsonl").open(encoding="utf-8")]
    docs = [(f"quality-{i}.txt", r["article"]) for i, r in enumerate(rows)]
    asked = [(i, {"id": f"q{i}-{k}", "question": q["question"], "golds": [q["options"][q["gold_label"] - 1]]})
             for i, r in enumerate(rows) for k, q in enumerate(r["questions"])]
    return _import_set("quality", docs, asked, reuse, memo)


def narrativeqa(reuse: bool, memo: MemoEmbed) -> tuple[list[dict], dict[str, Any]]:
    rows = [json.loads(line) for line in (SHARED_DATA / "narrativeqa" / "summaries_qa_dev.jsonl").open(
        encoding="utf-8") if line.strip()]
    passages = list(dict.fromkeys(r["passage"] for r in rows))
    docs = [(f"summary-{i}.txt", p) for i, p in enumerate(passages)]
    asked = [(passages.index(r["passage"]), {"id": f"n{k}", "question": r["question"], "golds": list(r["answer"])})
             for k, r in enumerate(rows)]
    return _import_set("narrativeqa", docs, asked, reuse, memo)


def lf_squad(reuse: bool, memo: MemoEmbed) -> tuple[list[dict], dict[str, Any]]:
    import ast
    import random

    from graphrag_bench import _slug
    docs = [json.loads(line) for line in (SHARED_DATA / "lf_squad" / "dev.jsonl").open(encoding="utf-8")
            if line.strip()]
    items = []
    for d, doc in enumerate(docs):
        qs = doc["questions"] if isinstance(doc["questions"], list) else ast.literal_eval(doc["questions"])
        items += [(d, q) for q in qs]
    items = random.Random(2022).sample(items, 600)[:LF_SQUAD]
    used = sorted({d for d, _ in items})
    asked = [(used.index(d), {"id": f"s{k}", "question": q["question"],
                              "golds": [a for a in q["answers"] if a.strip()]}) for k, (d, q) in enumerate(items)]
    return _import_set("lf_squad", [(f"{_slug(docs[d]['title'])}.txt", docs[d]["document"]) for d in used], asked,
                       reuse, memo)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    parser.add_argument("--per-type", type=int, default=50, help="graphrag: questions per type (a seeded sample)")
    parser.add_argument("--reuse-store", action="store_true", help="open the newest cached stores as they are")
    parser.add_argument("--cache", default=None, help="an .npz of MiniLM vectors kept between runs")
    parser.add_argument("--share", type=float, default=None, help="core.qa.confidence.TOPIC_SHARE for this run")
    parser.add_argument("--out", default="answer_confidence")
    args = parser.parse_args()
    if args.share is not None:
        from core.qa import confidence
        confidence.TOPIC_SHARE = args.share
    from pathlib import Path
    memo = MemoEmbed(Path(args.cache) if args.cache else None)
    results: dict[str, Any] = {"share": args.share, "sets": {}}
    rows: list[dict[str, Any]] = []
    for name in args.sets:
        print(f"{name}:", flush=True)
        if name.startswith("graphrag"):
            items, runs = graphrag(name.split("_")[1], args.per_type, args.reuse_store, memo)
        else:
            items, runs = {"quality": quality, "narrativeqa": narrativeqa, "lf_squad": lf_squad}[name](
                args.reuse_store, memo)
        judged = judge(items, runs, memo)
        memo.save()
        results["sets"][name] = judged
        rows += summarize(name, judged)
    columns = ["set", "questions", "answers", "right %", "shown % (before)", "right among shown % (before)",
               "wrong ones shown % (before)", "shown % (after)", "right among shown % (after)",
               "right ones shown % (after)", "wrong ones shown % (after)"]
    print(table(rows, columns))
    results["rows"] = rows
    write_results(args.out, results)


if __name__ == "__main__":
    sys.exit(main())

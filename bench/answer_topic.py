"""Does the extractive reader's name (the bold span of Ask) come from a sentence about what was asked? (issue 37)

The reader answers a who / where / when / how-many / name question with a name of that type from the best sentences
of the cited passages. Seen on The Legend of Sleepy Hollow: "What is the name of Ichabod's horse?" answered in bold
"Brom", from a sentence about Brom's dog. The topic rule (core.qa.relevance.speaks_to, applied in
core.qa.extract.extract_answer) withholds a span whose sentence mentions none of the question's topic words (its
content words beyond the names it asks about and the words that say what kind of answer is wanted). This bench
measures, per question set, the spans the reader finds with the rule switched off, how many are right, and how the
rule splits them: kept (shown in bold) and withheld (the page says the closest sentence does not mention ...).

Right: GraphRAG-Bench's gold answers are sentences ("Columbus discovered America."), so a span is right when its
normalised words appear in the gold answer; LF-SQuAD and LF-QUOREF's are spans, so a span is right when it holds a
gold answer or a gold answer holds it. Questions are asked as the app asks them (rag, budget 1,000, dry run).

    .venv/bin/python bench/answer_topic.py --sets graphrag_dev            # the half the rule's words were read on
    .venv/bin/python bench/answer_topic.py --sets graphrag_test lf_squad lf_quoref --out answer_topic

The parse roles (core.qa.roles: of a sentence's names, the one nearest the topic words in its parse) are scored the
same way, with and without (--no-roles), e.g. `--reuse-store --out answer_roles` and `--no-roles --out
answer_roles_before`; so are the graph's facts (core.qa.graph_answer; --no-graph-facts).
"""
from __future__ import annotations

import argparse
import ast
import json
import random
import sys
from typing import Any

from _common import SHARED_DATA, table, write_results
from _qa_runs import add_reader_switches, switch_reader_rules

from core.metrics.token_f1 import normalize_answer
from core.qa.words import irregular_bases
from core.qa.names import question_names
from core.qa.relevance import speaks_to

SETS = ("graphrag_dev", "graphrag_test", "lf_squad", "lf_quoref")
LF_SAMPLE = 160   # LF questions: the first N of bench/qa.py's seeded 600-question sample


def _rule_off() -> None:
    """The reader's spans as they were before the rule: the rule is scored here, on the same spans."""
    switch_reader_rules(argparse.Namespace(no_topic_rule=True))


def _row(question: str, extraction: Any, entities: Any, right: bool) -> dict[str, Any]:
    names = question_names(question, entities)
    kept, topic = speaks_to(question, [extraction.quotes[0].text], names, irregular_bases())
    return {"question": question, "span": extraction.span, "right": right, "kept": kept, "topic": list(topic),
            "sentence": extraction.quotes[0].text}


def graphrag(half: str, reuse: bool) -> list[dict[str, Any]]:
    from _qa_runs import halves, load_questions, retrieve
    questions = load_questions()
    dev, test = halves(questions)
    ids = dev if half == "dev" else test
    chosen = [q for q in questions if q["id"] in ids and q["question_type"] in ("Fact Retrieval", "Complex Reasoning")]
    runs = retrieve(chosen, reuse=reuse)
    rows = []
    for q in chosen:
        run = runs[q["id"]]
        ext = run.result.extraction
        if ext is None or not ext.span or not ext.quotes:
            continue
        span = normalize_answer(ext.span)
        right = bool(span) and f" {span} " in f" {normalize_answer(q['answer'])} "
        rows.append(_row(q["question"], ext, run.view.corpus.entities, right))
    return rows


def long_set(name: str, reuse: bool) -> list[dict[str, Any]]:
    from _qa_runs import cached_store
    from graphrag_bench import _slug

    from core.config import get_settings
    from core.llm import get_llm
    from core.qa import QAParams
    from core.services.qa_corpus import load_corpus
    from core.services.qa_service import Asker
    docs = [json.loads(line) for line in (SHARED_DATA / name / "dev.jsonl").open(encoding="utf-8") if line.strip()]
    items = []
    for d, doc in enumerate(docs):
        qs = doc["questions"] if isinstance(doc["questions"], list) else ast.literal_eval(doc["questions"])
        items += [(d, q) for q in qs]
    items = random.Random(2022).sample(items, min(600, len(items)))[:LF_SAMPLE]
    used = sorted({d for d, _ in items})
    store, ids = cached_store(name, [(f"{_slug(docs[d]['title'])}.txt", docs[d]["document"]) for d in used], reuse)
    work_of = dict(zip(used, ids))
    asker = Asker(store, get_llm(get_settings().llm), dry_run=True)
    params = QAParams(mode="rag", budget_tokens=1000, verbalize="template").with_(answer="extractive")
    rows = []
    for d, q in items:
        ext = asker.ask(work_of[d], q["question"], params).extraction
        if ext is None or not ext.span or not ext.quotes:
            continue
        golds = [normalize_answer(a) for a in q["answers"] if a.strip()]
        span = normalize_answer(ext.span)
        right = any(g and (f" {g} " in f" {span} " or f" {span} " in f" {g} ") for g in golds)
        rows.append(_row(q["question"], ext, load_corpus(store, work_of[d]).entities, right))
    store.engine.dispose()
    return rows


def summary(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    kept = [r for r in rows if r["kept"]]
    cut = [r for r in rows if not r["kept"]]
    right = sum(r["right"] for r in rows)

    def share(part: list[dict[str, Any]]) -> float | None:
        return round(100 * sum(r["right"] for r in part) / len(part), 1) if part else None
    return {"set": name, "spans": len(rows), "right": right, "right %": share(rows), "kept": len(kept),
            "right among kept %": share(kept), "withheld": len(cut), "right among withheld %": share(cut),
            "right ones kept %": round(100 * sum(r["right"] for r in kept) / right, 1) if right else None,
            "wrong ones withheld %": round(100 * sum(not r["right"] for r in cut) / (len(rows) - right), 1)
            if len(rows) > right else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    parser.add_argument("--reuse-store", action="store_true", help="open the newest cached stores as they are")
    parser.add_argument("--out", default="answer_topic")
    add_reader_switches(parser)
    args = parser.parse_args()
    _rule_off()
    switch_reader_rules(args)
    out, rows_of = [], {}
    for name in args.sets:
        print(f"{name} ...", file=sys.stderr, flush=True)
        rows = graphrag(name.split("_")[1], args.reuse_store) if name.startswith("graphrag") else \
            long_set(name, args.reuse_store)
        rows_of[name] = rows
        out.append(summary(name, rows))
        print(table(out[-1:]), flush=True)
    print(table(out))
    path = write_results(args.out, {"sets": out, "rows": rows_of})
    print(f"written {path}")


if __name__ == "__main__":
    main()

"""Summaries benchmark on SQuALITY (../shared/data/squality/dev.jsonl: 25 stories, each with question sets 1-4 and
more, four human answers per question; question 1 is "What is the plot of the story?").

(a) The KGScore paper's entity-shuffle check (section 4.3) on each of question sets 1-4: for each story, the two most
    similar answers (ROUGE-L F1, both >= 200 words for question 1, >= 80 for the others) form a pair; one, picked at
    random, is the "generated" summary and its named entities are shuffled among entities of the same type. A
    factuality metric should fall a lot and ROUGE-1 hardly at all. Offline KGScore with the calibrated rule (the
    default: chance-rescaled, one-to-one; core.metrics.kgscore) and, on the same edges, the paper's rule as printed.
    Question set 4 was held out while the metric was changed (HELD_OUT); the Appendix F (LLM) variant with the
    default local model runs on the first --llm-pairs pairs of set 1 (slow on a CPU).
(b) Summaries of each story (question 1's references): each story is imported through the real services (it has no
    chapter headings, so import cuts it into ~2,000-word parts at paragraph breaks) and its graph built with the
    offline extractor; every part is summarized and the parts' summaries joined into the story's summary, scored
    against each of the four human summaries (mean) with ROUGE-1/2/L and offline KGScore:
      extractive  the book's own sentences chosen with the graph (no model), --summary-tokens per part, all stories;
      lead        the story's first words, as many as the extractive summary has, cut at a sentence end;
      kg, no_kg   the embedded model's summaries with and without the graph, on the first --stories stories
                  (a model call per part takes tens of seconds on 2 shared cores).

    .venv/bin/python bench/summaries.py                       # prints tables, writes bench/results/summaries.json
    .venv/bin/python bench/summaries.py --stories 0 --llm-pairs 0 --shuffle-sets 1
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

from _common import SHARED_DATA, table, write_results

from core.config import get_settings
from core.ingest.sentences import split_sentences
from core.metrics.entity_shuffle import shuffle_entities
from core.metrics.kgscore import SummaryScorer
from core.metrics.kgscore_llm import LLMEdgeExtractor
from core.metrics.kgscore_offline import OfflineEdgeExtractor
from core.metrics.rouge_wrap import rouge_scores

DATA = SHARED_DATA / "squality" / "dev.jsonl"
SHUFFLE_METRICS = ("rouge1", "rouge2", "rougeL", "precision", "recall", "f1", "paper_precision", "paper_recall",
                   "paper_f1")
SUMMARY_METRICS = ("words", "rouge1", "rouge2", "rougeL", "precision", "recall", "f1", "paper_f1")
MIN_WORDS = {1: 200}            # the other question sets: 80
HELD_OUT = 4                    # looked at once, after the metric's changes were settled on sets 1-3
SEED = 13


def load_stories() -> list[dict[str, Any]]:
    stories = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        answers = {q["question_number"]: [r["response_text"].strip() for r in q["responses"]]
                   for q in item["questions"]}
        stories.append({"id": item["metadata"]["passage_id"], "document": item["document"], "answers": answers,
                        "summaries": answers[1]})
    return stories


def most_similar_pair(summaries: list[str], rng: random.Random, min_words: int) -> tuple[str, str] | None:
    """(prediction, reference): the most similar two long-enough summaries, in random order."""
    long_enough = [s for s in summaries if len(s.split()) >= min_words]
    pairs = list(itertools.combinations(long_enough, 2))
    if not pairs:
        return None
    a, b = max(pairs, key=lambda p: rouge_scores(p[0], p[1])["rougeL"])
    return (a, b) if rng.random() < 0.5 else (b, a)


def mean_scores(rows: list[dict[str, Any]], metrics: tuple[str, ...]) -> dict[str, float]:
    return {m: statistics.fmean(r[m] for r in rows) for m in metrics if rows and m in rows[0]}


def change_rows(base: dict[str, float], shuffled: dict[str, float], label: str, n: int) -> list[dict[str, Any]]:
    rows = [{"set": label, "n": n, "dataset": "baseline", **{m: 100 * v for m, v in base.items()}},
            {"set": label, "n": n, "dataset": "shuffled entities", **{m: 100 * v for m, v in shuffled.items()}}]
    rows.append({"set": label, "n": n, "dataset": "change (%)",
                 **{m: (100 * (shuffled[m] - base[m]) / base[m] if base[m] else float("nan")) for m in base}})
    return rows


def make_pairs(stories: list[dict[str, Any]], question: int = 1) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    pairs = []
    for story in stories:
        answers = story["answers"].get(question)
        pair = most_similar_pair(answers, rng, MIN_WORDS.get(question, 80)) if answers else None
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
           "entity_mentions": sum(p.get("entities", 0) for p in pairs),
           "moved_mentions": sum(p.get("moved", 0) for p in pairs),
           "baseline": mean_scores(base, SHUFFLE_METRICS), "shuffled": mean_scores(moved, SHUFFLE_METRICS),
           "mean_edges": {"generated": statistics.fmean(r["generated_edges"] for r in base),
                          "reference": statistics.fmean(r["reference_edges"] for r in base),
                          "generated_shuffled": statistics.fmean(r["generated_edges"] for r in moved)},
           "per_pair": [{"id": p["id"], "f1": b["f1"], "f1_shuffled": m["f1"], "rouge1": b["rouge1"],
                         "rouge1_shuffled": m["rouge1"], "generated_edges": b["generated_edges"],
                         "reference_edges": b["reference_edges"]} for p, b, m in zip(pairs, base, moved)]}
    out["table"] = change_rows(out["baseline"], out["shuffled"], label, len(pairs))
    return out


def lead(document: str, words: int) -> str:
    """The story's first sentences within `words` words (at least its first sentence, cut to `words`)."""
    out: list[str] = []
    used = 0
    for sentence in split_sentences(document):
        n = len(sentence.split())
        if used + n > words:
            break
        out.append(sentence)
        used += n
    return " ".join(out) if out else " ".join(document.split()[:words])


def story_summaries(stories: list[dict[str, Any]], model_stories: int, summary_tokens: int, context: int,
                    scorer: SummaryScorer) -> dict[str, Any]:
    """(b): extractive and lead for every story, the embedded model's kg and no_kg on the first `model_stories`."""
    from core.llm import get_llm
    from core.services import kg_service, summary_service
    from core.services.library import import_book
    from core.summarize import SummaryParams
    from storage.repository import SqlStore
    name = get_settings().llm
    llm = get_llm(name) if model_stories else None
    params = SummaryParams(context_tokens=context, summary_tokens=summary_tokens)
    per_story: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlStore.from_url(f"sqlite:///{Path(tmp) / 'bench.db'}")
        for n, story in enumerate(stories):
            started = time.perf_counter()
            work = import_book(store, "story.txt", story["document"].encode("utf-8"))
            graph = kg_service.build_graph(store, work.id)
            modes = ("extractive", "kg", "no_kg") if n < model_stories else ("extractive",)
            timings: dict[str, float] = {}
            texts: dict[str, str] = {}
            for mode in modes:
                t = time.perf_counter()
                report = summary_service.summarize(store, work.id, modes=(mode,), params=params, llm=llm)
                timings[mode] = round(time.perf_counter() - t, 1)
                made = sorted(report.summaries, key=lambda s: s["chapter"])
                texts[mode] = "\n".join(s["text"] for s in made)
            texts["lead"] = lead(story["document"], len(texts["extractive"].split()))
            row: dict[str, Any] = {"id": story["id"], "parts": len(store.list_chapters(work.id)),
                                   "words": len(story["document"].split()), "graph_edges": graph.edges,
                                   "seconds": timings, "summaries": {}}
            for mode, text in texts.items():
                results = [scorer.score(text, ref) for ref in story["summaries"]]
                row["summaries"][mode] = {"text": text, "words": len(text.split()),
                                          **mean_scores(results, SUMMARY_METRICS[1:])}
            per_story.append(row)
            print(f"  story {story['id']}: {row['parts']} parts, {timings} s, "
                  f"{round(time.perf_counter() - started, 1)} s in all", flush=True)
    return {"llm": name, "summary_tokens": summary_tokens, "context_tokens": context, "stories": per_story,
            "table": summary_table(per_story, model_stories)}


def summary_table(per_story: list[dict[str, Any]], model_stories: int) -> list[dict[str, Any]]:
    """Mean scores per method: on every story, and on the stories the model summarized (the same ones for all)."""
    rows = []
    for subset, stories in (("all", per_story), ("model sample", per_story[:model_stories])):
        for method in ("extractive", "lead", "kg", "no_kg"):
            have = [s["summaries"][method] for s in stories if method in s["summaries"]]
            if not have or (subset == "all" and len(have) < len(stories)):
                continue
            rows.append({"stories": subset, "method": method, "n": len(have),
                         **{m: (statistics.fmean(h[m] for h in have) * (1 if m == "words" else 100))
                            for m in SUMMARY_METRICS}})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stories", type=int, default=4, help="stories the embedded model summarizes in (b)")
    parser.add_argument("--llm-pairs", type=int, default=0, help="pairs scored with the LLM variant in (a)")
    parser.add_argument("--shuffle-sets", default="1,2,3,4", help="question sets of the shuffle check (a)")
    parser.add_argument("--context", type=int, default=4096, help="context budget of a model summary (tokens)")
    parser.add_argument("--summary-tokens", type=int, default=160, help="longest summary of a part (tokens)")
    parser.add_argument("--no-summaries", action="store_true", help="run only (a)")
    args = parser.parse_args()
    stories = load_stories()
    results: dict[str, Any] = {"data": str(DATA.relative_to(SHARED_DATA.parent.parent)), "seed": SEED,
                               "held_out_set": HELD_OUT, "command": "bench/summaries.py " + " ".join(
                                   f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items())}
    scorer = SummaryScorer(OfflineEdgeExtractor())
    columns = ["set", "n", "dataset", "rouge1", "rouge2", "rougeL", "precision", "recall", "f1", "paper_f1"]
    results["shuffle"] = {}
    for question in (int(q) for q in args.shuffle_sets.split(",")):
        print(f"(a) entity shuffle, offline KGScore, question set {question}", flush=True)
        check = shuffle_check(f"q{question}" + (" (held out)" if question == HELD_OUT else ""), scorer,
                              make_pairs(stories, question))
        results["shuffle"][f"q{question}"] = check
        print(table(check["table"], columns), flush=True)
    drops = {q: c["table"][2]["f1"] for q, c in results["shuffle"].items()}
    paper_drops = {q: c["table"][2]["paper_f1"] for q, c in results["shuffle"].items()}
    results["shuffle_drop_f1"] = {"calibrated": drops, "paper_rule": paper_drops,
                                  "mean_calibrated": statistics.fmean(drops.values()),
                                  "mean_paper_rule": statistics.fmean(paper_drops.values())}
    print(f"F_KG change, mean over sets: {results['shuffle_drop_f1']['mean_calibrated']:.1f}% (calibrated), "
          f"{results['shuffle_drop_f1']['mean_paper_rule']:.1f}% (paper rule)", flush=True)
    write_results("summaries", results)
    if args.llm_pairs:
        from core.llm import get_llm
        name = get_settings().llm
        print(f"\n(a) entity shuffle, LLM KGScore (Appendix F prompt, {name}), n={args.llm_pairs}", flush=True)
        llm_scorer = SummaryScorer(LLMEdgeExtractor(get_llm(name), max_tokens=192))
        results["shuffle_llm"] = {"llm": name, **shuffle_check(f"LLM {name}", llm_scorer,
                                                               make_pairs(stories, 1)[:args.llm_pairs])}
        write_results("summaries", results)
        print(table(results["shuffle_llm"]["table"], columns))
    if args.no_summaries:
        return
    print(f"\n(b) story summaries: extractive and lead on {len(stories)} stories, {get_settings().llm} on "
          f"{args.stories}", flush=True)
    results["summaries"] = story_summaries(stories, args.stories, args.summary_tokens, args.context, scorer)
    write_results("summaries", results)
    print(table(results["summaries"]["table"], ["stories", "method", "n", *SUMMARY_METRICS]))
    print("\nwrote bench/results/summaries.json")


if __name__ == "__main__":
    main()

"""Loops in the embedded models' text (issue 37): how much of it repeats, before and after the loop guard.

Two measures per text (core/textguard.py's `repetition_stats`): the share of word 8-grams that came earlier in the
same text, and the share of sentences (five words or more) that the text has more than twice. The floor is the same
measure on the books' own chapters (each chapter on its own, as a summary or a story chapter is): the goal is no
generated text above it.

Texts, all by the app's default embedded models and prompts:
  summaries  chapter summaries with the graph (the Summaries page's default "kg" mode; the default summarizing model,
             Gemma 3 270M): the books are imported and their graphs built offline in a temporary database
  chapters   first story chapters of the paper's premises (the writing model, SmolLM2-135M; 800-1,200 words,
             temperature 0.8, top-p 0.95, a fixed seed per premise), through write_service.draft_chapter
Each text is generated once per variant of the decoding guard ("off": plain decoding, as before; "guard": the
default `LoopGuard()`; "nK": no repeated K-token n-gram; "nK+pP": with a repetition penalty P), and measured as
decoded and as shown (after `check_text`, which cuts a loop that got through).

Held-out split: the guard's n-gram size was chosen on the "tune" texts (The Call of the Wild chapters 1-4 and
premise 1, `--split tune`); the other texts were generated once at the end. Besides the issue's two measures the
table gives the share of repeated word 4-grams, which also sees the near-loops an n-gram guard leaves ("The man in the
red swatter. The man in the green swatter."), against the books' own rate.

    .venv/bin/python bench/degeneration.py                         # 20 summaries + 5 chapters, off and guard
    .venv/bin/python bench/degeneration.py --split tune --variants off,n4,n6,n8,n12   # the sweep
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, table, write_results

from core.llm import LLM, GenerationOptions, TextStream
from core.llm.loopguard import LoopGuard
from core.textguard import check_text, repetition_stats

NOVELS = SHARED_DATA / "novels" / "txt"
# (file, chapters): 20 chapters, the first four of The Call of the Wild are the tuning set
BOOKS = (("the_call_of_the_wild_pg215.txt", 7), ("a_christmas_carol_pg46.txt", 5), ("the_time_machine_pg35.txt", 8))
TUNE_CHAPTERS = {("the_call_of_the_wild_pg215.txt", i) for i in range(1, 5)}
TUNE_PREMISES = {1}


def guard_of(variant: str) -> LoopGuard | None:
    """"off" -> None; "guard" -> the default; "n6" -> LoopGuard(6); "n6+p1.1" -> LoopGuard(6, 1.1); "p1.2"."""
    if variant == "off":
        return None
    if variant == "guard":
        return LoopGuard()
    ngram, penalty = 0, 1.0
    for part in variant.split("+"):
        if part.startswith("n"):
            ngram = int(part[1:])
        elif part.startswith("p"):
            penalty = float(part[1:])
        else:
            raise ValueError(f"unknown variant part {part!r}")
    return LoopGuard(ngram, penalty)


class Guarded:
    """The model with every call's loop guard set to one variant (the app's callers leave the default)."""

    def __init__(self, llm: LLM, guard: LoopGuard | None) -> None:
        self._llm, self._guard = llm, guard

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    def complete(self, messages: Any, options: GenerationOptions | None = None, **overrides: Any) -> Any:
        return self._llm.complete(messages, GenerationOptions.build(options, **overrides, loop_guard=self._guard))

    def stream(self, messages: Any, options: GenerationOptions | None = None, **overrides: Any) -> TextStream:
        return self._llm.stream(messages, GenerationOptions.build(options, **overrides, loop_guard=self._guard))


def repeated_4grams(text: str) -> tuple[int, int]:
    """(word 4-grams, those that came earlier in the text): a looser measure that also sees the near-loops an exact
    8-gram misses ("The man in the red swatter. The man in the green swatter. The man with the green swatter.")."""
    words = [w for w in (re.sub(r"[^\w']+", "", t.lower()) for t in text.split()) if w]
    grams = [tuple(words[i:i + 4]) for i in range(len(words) - 3)]
    return len(grams), len(grams) - len(set(grams))


def measure(text: str) -> dict[str, Any]:
    stats = repetition_stats(text)
    fours, repeated_fours = repeated_4grams(text)
    return {"words": len(text.split()), "ngrams": stats.ngrams, "repeated_ngrams": stats.repeated_ngrams,
            "sentences": stats.sentences, "repeated_sentences": stats.repeated_sentences,
            "ngram_share": round(stats.ngram_share, 4), "sentence_share": round(stats.sentence_share, 4),
            "fourgrams": fours, "repeated_fourgrams": repeated_fours}


class Kept:
    """Generated texts kept in a JSON-lines file as they come (`--keep`): a run that stops midway, or a second run
    with more variants, generates only what is missing (the texts are seeded or greedy, so they are the same)."""

    def __init__(self, paths: str | None, only: bool = False) -> None:
        self.path = Path(paths.split(",")[0]) if paths else None  # new texts go to the first file
        self.only = only  # measure what is kept, generate nothing
        self.texts: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.added: list[dict[str, Any]] = []
        for path in (Path(p) for p in (paths or "").split(",") if p):
            if path.exists():
                for line in path.read_text(encoding="utf-8").splitlines():
                    item = json.loads(line)
                    self.texts[(item["kind"], item["item"], item["variant"])] = item

    def complete(self, kind: str, item: str, variants: list[str]) -> bool:
        """Whether nothing is to be generated for `item`: every variant is kept, or only kept texts are measured."""
        return self.only or all(self.get(kind, item, v) is not None for v in variants)

    def get(self, kind: str, item: str, variant: str) -> dict[str, Any] | None:
        return self.texts.get((kind, item, variant))

    def add(self, kind: str, item: str, variant: str, text: str, seconds: float) -> dict[str, Any]:
        entry = {"kind": kind, "item": item, "variant": variant, "text": text, "seconds": round(seconds, 1),
                 "load": round(os.getloadavg()[0], 2)}
        self.texts[(kind, item, variant)] = entry
        self.added.append(entry)
        if self.path:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return entry


def row_for(kind: str, split: str, entry: dict[str, Any]) -> dict[str, Any]:
    text = entry["text"]
    checked = check_text(text)
    shown = measure(checked.text)
    return {"kind": kind, "split": split, "item": entry["item"], "variant": entry["variant"],
            "seconds": entry["seconds"], "load": entry["load"], **measure(text), "cut": checked.cut,
            "cut_words": checked.cut_words,
            "shown_ngram_share": shown["ngram_share"], "shown_sentence_share": shown["sentence_share"],
            "text": text}


def floor_rows() -> list[dict[str, Any]]:
    """The books' own chapters, each measured on its own."""
    from core.ingest import read_book
    rows = []
    for name, _ in BOOKS:
        book = read_book(name, (NOVELS / name).read_bytes())
        for i, chapter in enumerate(book.chapters, start=1):
            rows.append({"kind": "book", "item": f"{name.split('_pg')[0]} {i}", **measure(chapter.text)})
    return rows


def summaries(store: Any, variants: list[str], split: str, limit: int, kept: Kept,
              context: int | None, books: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    from core.services import kg_service, llm_service
    from core.services.library import import_book
    from core.services.summary_service import KgContext
    from core.summarize import ChapterInput, SummaryParams, summarize_chapter
    rows: list[dict[str, Any]] = []
    llm = llm_service.build_llm(store, "summarizing")
    params = SummaryParams(mode="kg", context_tokens=context)
    done = 0
    for name, count in BOOKS:
        if books and not name.startswith(books):
            continue
        wanted = [i for i in range(1, count + 1) if split == "all" or
                  ((name, i) in TUNE_CHAPTERS) == (split == "tune")][:max(0, limit - done)]
        if not wanted:
            continue
        done += len(wanted)
        items = {i: f"{name.split('_pg')[0]} {i}" for i in wanted}
        if all(kept.complete("summary", items[i], variants) for i in wanted):
            rows += [row_for("summary", _split(name, i), entry) for i in wanted for v in variants
                     if (entry := kept.get("summary", items[i], v)) is not None]
            continue
        work = import_book(store, name, (NOVELS / name).read_bytes())
        kg_service.build_graph(store, work.id)
        kg = KgContext(store, work.id)
        for index in wanted:
            chapter = store.get_chapter(work.id, index)
            passages = [c.text for c in store.list_chunks(work.id, upto_chapter=index) if c.chapter_index == index]
            for variant in variants:
                entry = kept.get("summary", items[index], variant)
                if entry is None:
                    started = time.perf_counter()
                    outcome = summarize_chapter(Guarded(llm, guard_of(variant)),  # type: ignore[arg-type]
                                                ChapterInput(index, chapter.title, chapter.text, passages),
                                                kg.for_chapter(index, params), params)
                    entry = kept.add("summary", items[index], variant, outcome.text, time.perf_counter() - started)
                rows.append(row_for("summary", _split(name, index), entry))
                print({k: v for k, v in rows[-1].items() if k != "text"}, flush=True)
    return rows


def _split(book: str, index: int) -> str:
    return "tune" if (book, index) in TUNE_CHAPTERS else "held-out"


def chapters(store: Any, variants: list[str], split: str, limit: int, seed: int, kept: Kept) -> list[dict[str, Any]]:
    from core.services import llm_service, write_service
    from core.write import WriteParams
    from core.write.params import DecodeParams
    from core.write.writer import fitted_text
    rows: list[dict[str, Any]] = []
    premises = [p for p in range(1, 6) if split == "all" or (p in TUNE_PREMISES) == (split == "tune")][:limit]
    for premise in premises:
        story = write_service.start_story(store, f"Premise {premise}", WriteParams(str(premise), "Rags to Riches"))
        llm = llm_service.build_llm(store, "writing", work_id=story.id)
        for variant in variants:
            item = f"premise {premise}"
            entry = kept.get("chapter", item, variant)
            if entry is None and kept.only:
                continue
            if entry is None:
                decode = replace(DecodeParams(), seed=seed + premise)
                started = time.perf_counter()
                draft = write_service.draft_chapter(store, story.id, Guarded(llm, guard_of(variant)),  # type: ignore
                                                    decode=decode)
                # the draft's text has been through check_text already; the measure is of the decoded text
                raw, _ = fitted_text(llm, write_service.story_params(store, story.id), draft.raw)
                entry = kept.add("chapter", item, variant, raw, time.perf_counter() - started)
            rows.append(row_for("chapter", "tune" if premise in TUNE_PREMISES else "held-out", entry))
            print({k: v for k, v in rows[-1].items() if k != "text"}, flush=True)
    return rows


def summary_table(rows: list[dict[str, Any]], floor: dict[str, float]) -> list[dict[str, Any]]:
    out = []
    keys = sorted({(r["kind"], r["split"], r["variant"]) for r in rows})
    for kind, split, variant in keys:
        mine = [r for r in rows if (r["kind"], r["split"], r["variant"]) == (kind, split, variant)]
        ngrams = sum(r["ngrams"] for r in mine)
        sentences = sum(r["sentences"] for r in mine)
        fours = sum(r["fourgrams"] for r in mine)
        out.append({
            "texts": f"{'summaries' if kind == 'summary' else 'chapters'} ({split})", "variant": variant,
            "n": len(mine),
            "median_words": statistics.median(r["words"] for r in mine),
            "8-grams repeated %": 100 * sum(r["repeated_ngrams"] for r in mine) / max(ngrams, 1),
            "sentences >2x %": 100 * sum(r["repeated_sentences"] for r in mine) / max(sentences, 1),
            "4-grams repeated %": 100 * sum(r["repeated_fourgrams"] for r in mine) / max(fours, 1),
            "above floor": sum(r["ngram_share"] > floor["ngram_share"] or r["sentence_share"] > floor["sentence_share"]
                               for r in mine),
            "cut by check": sum(r["cut"] for r in mine),
            "shown above floor": sum(r["shown_ngram_share"] > floor["ngram_share"] or
                                     r["shown_sentence_share"] > floor["sentence_share"] for r in mine),
            "median s": statistics.median(r["seconds"] for r in mine)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="off,guard")
    ap.add_argument("--split", choices=("all", "tune", "held-out"), default="all")
    ap.add_argument("--summaries", type=int, default=20, help="chapter summaries (of the 20)")
    ap.add_argument("--chapters", type=int, default=5, help="first story chapters (of the paper's 5 premises)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default="degeneration", help="results file name in bench/results")
    ap.add_argument("--kept-only", action="store_true", help="measure the kept texts only (a bounded run)")
    ap.add_argument("--books", default="", help="only the books whose file names start so (comma-separated), to "
                    "share the summaries among processes")
    ap.add_argument("--keep", default=None, help="JSON-lines files of generated texts to reuse (comma-separated); "
                    "new ones are added to the first")
    ap.add_argument("--context", type=int, default=8192,
                    help="the summarizer's context in tokens, prompt and summary (0: the model's whole window, as the "
                         "app does; Gemma's 32,768 filled with graph edges take minutes a summary on 2 busy cores)")
    args = ap.parse_args()
    variants = args.variants.split(",")
    for variant in variants:
        guard_of(variant)  # a typo fails before any model loads
    from storage.repository import SqlStore
    books = floor_rows()
    ngrams = sum(r["ngrams"] for r in books)
    sentences = sum(r["sentences"] for r in books)
    floor = {"ngram_share": sum(r["repeated_ngrams"] for r in books) / ngrams,
             "sentence_share": sum(r["repeated_sentences"] for r in books) / sentences}
    started = time.perf_counter()
    kept = Kept(args.keep, args.kept_only)
    with tempfile.TemporaryDirectory(prefix="fabula-degeneration-") as tmp:
        store = SqlStore.from_url(f"sqlite:///{Path(tmp) / 'bench.db'}")
        rows = chapters(store, variants, args.split, args.chapters, args.seed, kept)
        rows += summaries(store, variants, args.split, args.summaries, kept, args.context or None,
                          tuple(b for b in args.books.split(",") if b))
    if args.kept_only:  # a bounded run: only the texts generated in every variant, so before and after pair up
        have = Counter((r["kind"], r["item"]) for r in rows)
        rows = [r for r in rows if have[(r["kind"], r["item"])] == len(variants)]
    floor_row = {"texts": f"the books' own chapters ({len(books)})", "variant": "-", "n": len(books),
                 "median_words": statistics.median(r["words"] for r in books),
                 "8-grams repeated %": 100 * floor["ngram_share"], "sentences >2x %": 100 * floor["sentence_share"],
                 "4-grams repeated %": 100 * sum(r["repeated_fourgrams"] for r in books) /
                 sum(r["fourgrams"] for r in books)}
    result = summary_table(rows, floor)
    columns = list(result[0]) if result else list(floor_row)
    print(table([floor_row, *result], columns))
    print(f"{len(rows)} texts measured ({len(kept.added)} generated by this run) in "
          f"{time.perf_counter() - started:.0f} s, load {os.getloadavg()}")
    payload = {"floor": floor, "table": [floor_row, *result], "variants": variants, "split": args.split,
               "summary_context_tokens": args.context or "whole window", "seed": args.seed,
               "generated": {"summaries": sum(r["kind"] == "summary" for r in rows),
                             "chapters": sum(r["kind"] == "chapter" for r in rows)},
               "rows": rows, "books": books}
    print(f"wrote {write_results(args.out, payload)}")


if __name__ == "__main__":
    main()

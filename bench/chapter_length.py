"""First chapters from the embedded writer: do they come out at the 800-1,200 words asked (issue 17, goal 4)?

For each of the paper's first premises, chapter 1 is drafted twice from the same prompt and the same sampling seed:
  tokens  the earlier rule: the writer asked for at least 1.45 tokens a word of the lower count (1,160 tokens), and
          a chapter that ended a sentence was kept whole whatever its length
  words   today's `write_service.draft_chapter`: an early end becomes a paragraph break until the text has the lower
          word count, and an embedded writer's chapter past the upper count ends at its last sentence within it
Words, seconds and generated tokens per chapter; "in range" counts chapters of 800-1,200 words.

    .venv/bin/python bench/chapter_length.py                 # 5 premises, the default embedded writer
    .venv/bin/python bench/chapter_length.py --premises 3 --model local:gemma3-270m
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from _common import table, write_results

from core.llm import LLM
from core.services import llm_service, write_service
from core.write import WriteParams
from core.write.params import DecodeParams
from core.write.writer import finish_draft, prompt_text
from storage.repository import SqlStore

OLD_MIN_TOKENS_PER_WORD = 1.45  # the rule this replaces (core/write/params.py before this benchmark)


class _NotEmbedded:
    """Stands in for the writer in `finish_draft` so the earlier rule's fitting applies (it ignored who wrote)."""

    name = "bench:earlier-rule"


def draft(store: SqlStore, story_id: int, llm: LLM, rule: str, seed: int) -> dict[str, Any]:
    params = write_service.story_params(store, story_id)
    decode = replace(params.decode, seed=seed)
    start = time.perf_counter()
    if rule == "words":
        chapter = write_service.draft_chapter(store, story_id, llm, decode=decode)
        text, tokens = chapter.text, None
    else:
        messages = write_service.chapter_messages(store, story_id, 1, llm)
        options = replace(decode, max_tokens=min(decode.max_tokens, params.chapter_tokens())).options()
        options = replace(options, min_tokens=min(int(params.min_words * OLD_MIN_TOKENS_PER_WORD),
                                                  options.max_tokens))
        done = llm.complete(messages, options)
        chapter = finish_draft(_NotEmbedded(), params, 1, done.text, prompt_text(messages))  # type: ignore[arg-type]
        text, tokens = chapter.text, done.output_tokens
    seconds = time.perf_counter() - start
    words = len(text.split())
    return {"rule": rule, "words": words, "seconds": round(seconds, 1), "tokens": tokens,
            "in_range": params.min_words <= words <= params.max_words, "load": round(os.getloadavg()[0], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--premises", type=int, default=5)
    ap.add_argument("--model", default=None, help="the writing model (default: the app's embedded default)")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="fabula-chapters-") as tmp:
        store = SqlStore.from_url(f"sqlite:///{Path(tmp) / 'bench.db'}")
        for premise in range(1, args.premises + 1):
            params = WriteParams(str(premise), "Rags to Riches", 800, 1200, llm=args.model, decode=DecodeParams())
            story = write_service.start_story(store, f"Premise {premise}", params)
            llm = llm_service.build_llm(store, "writing", work_id=story.id)
            for rule in ("tokens", "words"):
                row = {"premise": premise, "model": llm.name, "runtime": llm_service.local_runtime()["runtime"],
                       **draft(store, story.id, llm, rule, args.seed + premise)}
                rows.append(row)
                print(row, flush=True)
    summary = []
    for rule in ("tokens", "words"):
        mine = [r for r in rows if r["rule"] == rule]
        summary.append({"rule": rule, "chapters": len(mine), "in_range": sum(r["in_range"] for r in mine),
                        "min_words": min(r["words"] for r in mine), "median_words": statistics.median(
                            r["words"] for r in mine), "max_words": max(r["words"] for r in mine),
                        "median_seconds": statistics.median(r["seconds"] for r in mine)})
    print(table(rows, ["premise", "rule", "words", "in_range", "seconds", "tokens", "load"]))
    print(table(summary))
    print(f"wrote {write_results('chapter_length', {'rows': rows, 'summary': summary})}")


if __name__ == "__main__":
    main()

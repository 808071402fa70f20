"""The reading companion (issue 33): speed, spoiler safety and recap quality.

(a) Speed on Pride and Prejudice, measured in a process of its own that loads no model: the X-Ray of a
    chapter as of that chapter (cold: the first call after the graph is loaded from the database, which builds the
    graph as of the chapter; warm: the same call again, the graph kept), for chapters 5, 10, ..., 60; and a 300-word
    recap of chapters 1-20 (and of 41-60). Goals: X-Ray <= 300 ms, recap <= 2 s, no model loaded (no spaCy pipeline,
    no MiniLM, no local LLM: checked in core.nlp's caches and sys.modules; torch is imported, not loaded, by spaCy's
    stop-word list that the sentence scoring reads).
(b) Spoiler safety on every shared novel: core.services.companion_audit at every chapter N, for the 10 most mentioned
    characters: the X-Ray of chapter N and each character's card, the recaps of chapters 1..N and N..N, each
    character's timeline and the pair of the two first; every item's chapter <= N and every name shown used by N.
    Reported: items checked, items late (must be 0), cited sentences not found verbatim in the chapter they name.
(c) Recap quality on SQuALITY dev (../shared/data/squality/dev.jsonl, question 1 "What is the plot of the story?",
    four human summaries each): each story imported through the real services (no headings: ~2,000-word parts) and
    its graph built; the product's offline recap of the whole story (companion_service.recap_of) at the references'
    mean length against the lead sentences and TextRank (Mihalcea & Tarau 2004, sumy 0.13's TextRankSummarizer over
    the product's sentence split: sumy's own tokenizer needs NLTK's punkt data, which is not packaged) of the
    recap's own length; ROUGE-1/2 and offline KGScore F1 (core.metrics.kgscore, calibrated rule), mean over the four
    references, then over stories. Stories 1-15 are the development half (where the other DECAYS of the recap are
    tried), stories 16-25 are held out: scored once, with the product's CHAPTER_DECAY (and the decay the dev half
    preferred, if another). Written to bench/results/companion_recap_quality.json.

    .venv/bin/python bench/companion.py                         # all three
    .venv/bin/python bench/companion.py --db /tmp/books.db      # reuse graphs built by an earlier run
    .venv/bin/python bench/companion.py --skip-speed --skip-spoilers --stories 25     # (c) only
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, table, write_results

NOVELS = SHARED_DATA / "novels" / "txt"
SQUALITY = SHARED_DATA / "squality" / "dev.jsonl"
PP = "pride_and_prejudice_pg1342.txt"
DEV_STORIES = 15
DECAYS = (1.0, 0.6, 0.3)
MODEL_MODULES = ("torch", "spacy", "sentence_transformers", "transformers", "openvino", "llama_cpp")


def built_work(store: Any, path: Path) -> int:
    """The novel's work in `store` with its graph built (imported and built once; reused from an earlier run)."""
    from core.services import kg_service
    from core.services.library import import_book
    data = path.read_bytes()
    found = store.find_works_by_content(hashlib.sha256(data).hexdigest())
    work = found[0].id if found else import_book(store, path.name, data).id
    if len(store.kg_extracted_chapters(work)) < len(store.list_chapters(work)):
        kg_service.build_graph(store, work)
    return work


def speed_in_child(db: str, store: Any) -> dict[str, Any]:
    """(a) in a fresh process (the graph built here first), so its sys.modules shows what the views themselves load."""
    import json
    import subprocess
    built_work(store, NOVELS / PP)
    out = subprocess.run([sys.executable, __file__, "--db", db, "--speed-child"], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def speed(store: Any) -> dict[str, Any]:
    from core.services import companion_service as cs
    work = built_work(store, NOVELS / PP)
    rows = []
    for chapter in range(5, 61, 5):
        t = time.perf_counter()
        cards = cs.xray_cards(store, work, chapter, position=chapter).cards
        cold = time.perf_counter() - t
        t = time.perf_counter()
        cs.xray_cards(store, work, chapter, position=chapter)
        warm = time.perf_counter() - t
        rows.append({"chapter": chapter, "cards": len(cards), "cold_ms": 1000 * cold, "warm_ms": 1000 * warm})
    first_load = rows[0]["cold_ms"]
    recaps = []
    for first, last in ((1, 20), (41, 60)):
        times = []
        for _ in range(3):
            t = time.perf_counter()
            told = cs.recap_of(store, work, first, last, words=300)
            times.append(time.perf_counter() - t)
        recaps.append({"chapters": f"{first}-{last}", "words": told.words, "sentences": len(told.sentences),
                       "median_s": statistics.median(times), "first_s": times[0]})
    import core.nlp
    loaded = [f"spaCy {name}" for name in core.nlp._spacy] + (["MiniLM"] if core.nlp._embedder is not None else [])
    loaded += ["a local LLM"] if "core.llm.local" in sys.modules else []
    return {"work": work, "xray": rows, "recap": recaps, "models_loaded": loaded,
            "libraries_imported": [m for m in MODEL_MODULES if m in sys.modules],
            "xray_cold_median_ms": statistics.median(r["cold_ms"] for r in rows[1:]),
            "xray_warm_median_ms": statistics.median(r["warm_ms"] for r in rows),
            "xray_first_call_ms": first_load}


def spoilers(store: Any, books: list[str]) -> dict[str, Any]:
    from core.services.companion_audit import audit_work
    rows = []
    for name in books:
        t = time.perf_counter()
        work = built_work(store, NOVELS / name)
        built = time.perf_counter() - t
        t = time.perf_counter()
        audit = audit_work(store, work)
        rows.append({"novel": name.rsplit("_pg", 1)[0].replace("_", " "), "chapters": audit.chapters,
                     "characters": len(audit.characters), "checked": audit.checked,
                     "x-ray": audit.by_view.get("x-ray", 0), "recap": audit.by_view.get("recap", 0),
                     "timeline": audit.by_view.get("timeline", 0), "late": len(audit.late),
                     "unlocated": audit.unlocated, "build_s": built, "audit_s": time.perf_counter() - t,
                     "late_examples": audit.late[:5]})
        print(f"  {rows[-1]['novel']}: {audit.checked:,} items, {len(audit.late)} late, "
              f"{audit.unlocated} unlocated ({rows[-1]['audit_s']:.0f} s)", flush=True)
    return {"books": rows, "checked": sum(r["checked"] for r in rows), "late": sum(r["late"] for r in rows)}


# ---- (c) recap quality --------------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


class _WordTokenizer:
    """Words for sumy's sentences without NLTK's punkt model (not packaged, and sumy's Tokenizer("english") would
    have to download it): letters and apostrophes, as sumy's own word filter keeps."""
    language = "english"

    @staticmethod
    def to_words(sentence: str) -> tuple[str, ...]:
        return tuple(_WORD.findall(sentence))


def textrank(document: str, words: int) -> str:
    """TextRank (Mihalcea & Tarau 2004) as sumy 0.13 implements it (TextRankSummarizer: shared stemmed words over
    log lengths, power method, damping 0.85), with sumy's English stop words and Snowball stemmer; the sentences are
    the product's own split (core.ingest.sentences, as the lead baseline and the recap use), so no NLTK data is
    needed. The best-rated sentences are taken while they fit `words` words, and printed in story order."""
    from sumy.models.dom import ObjectDocumentModel, Paragraph, Sentence
    from sumy.nlp.stemmers import Stemmer
    from sumy.summarizers.text_rank import TextRankSummarizer
    from sumy.utils import get_stop_words

    from core.ingest.sentences import split_sentences
    tokenizer = _WordTokenizer()
    sentences = [s for s in split_sentences(" ".join(document.split())) if s.strip()]
    model = ObjectDocumentModel([Paragraph([Sentence(s, tokenizer) for s in sentences])])
    summarizer = TextRankSummarizer(Stemmer("english"))
    summarizer.stop_words = get_stop_words("english")
    rating = summarizer.rate_sentences(model)     # keyed by sumy Sentence (its text): repeated sentences share one
    order = sorted(range(len(sentences)), key=lambda i: (-rating[model.sentences[i]], i))
    taken, used, seen = [], 0, set()
    for i in order:
        n = len(sentences[i].split())
        if used + n <= words and sentences[i] not in seen:
            taken.append(i)
            seen.add(sentences[i])
            used += n
    return " ".join(sentences[i] for i in sorted(taken))


def load_stories() -> list[dict[str, Any]]:
    import json
    stories = []
    for line in SQUALITY.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        refs = next(q for q in item["questions"] if q["question_number"] == 1)["responses"]
        stories.append({"id": item["metadata"]["passage_id"], "document": item["document"],
                        "references": [r["response_text"].strip() for r in refs]})
    return stories


def _scores(text: str, references: list[str], scorer: Any) -> dict[str, float]:
    """ROUGE-1/2 F and offline KGScore F1 of `text`, each the mean over the story's four references."""
    from core.metrics.rouge_wrap import rouge_scores
    per = []
    for ref in references:
        r = rouge_scores(text, ref)
        per.append({"rouge1": r["rouge1"], "rouge2": r["rouge2"], "kgscore_f1": scorer.score(text, ref)["f1"]})
    return {"words": len(text.split()), **{m: statistics.fmean(p[m] for p in per) for m in per[0]}}


def recap_quality(n_stories: int) -> dict[str, Any]:
    """(c): per story, the product's recap of the whole work (companion_service.recap_of, the default CHAPTER_DECAY)
    at the references' mean length, lead and TextRank at the recap's own length; on the dev half the other DECAYS
    too, and on the held-out half the decay the dev half preferred (if not the default)."""
    from core.companion.recap import CHAPTER_DECAY, recap
    from core.metrics.kgscore import SummaryScorer
    from core.metrics.kgscore_offline import OfflineEdgeExtractor
    from core.services import companion_service as cs
    from core.services import kg_service
    from core.services.kg_views import load_graph_data
    from core.services.library import import_book
    from storage.repository import SqlStore
    sys.path.insert(0, str(Path(__file__).parent))
    from summaries import lead
    scorer = SummaryScorer(OfflineEdgeExtractor())
    default = f"recap (decay {CHAPTER_DECAY})"
    per_story: list[dict[str, Any]] = []
    chosen: str | None = None
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlStore.from_url(f"sqlite:///{Path(tmp) / 'squality.db'}")
        for n, story in enumerate(load_stories()[:n_stories]):
            half = "dev" if n < DEV_STORIES else "held out"
            if half == "held out" and chosen is None:
                chosen = summarize_quality(per_story, default)["chosen"]
                print(f"  chosen on the dev half: {chosen}", flush=True)
            t = time.perf_counter()
            work = import_book(store, "story.txt", story["document"].encode("utf-8")).id
            kg_service.build_graph(store, work)
            built = time.perf_counter() - t
            target = round(statistics.fmean(len(r.split()) for r in story["references"]))
            t = time.perf_counter()
            texts = {default: cs.recap_of(store, work, words=target).text}
            recap_s = time.perf_counter() - t
            others = [d for d in DECAYS if f"recap (decay {d})" != default] if half == "dev" else \
                [float(chosen.split()[-1].rstrip(")"))] if chosen and chosen != default else []
            if others:
                data = load_graph_data(store, work)
                chapters = [(c.index, store.get_chapter(work, c.index).text) for c in store.list_chapters(work)]
                texts.update({f"recap (decay {d})": recap(chapters, data, target, decay=d).text for d in others})
            words = len(texts[default].split())
            texts["lead"] = lead(story["document"], words)
            texts["textrank (sumy)"] = textrank(story["document"], words)
            row: dict[str, Any] = {"id": story["id"], "half": half, "story_words": len(story["document"].split()),
                                   "parts": len(store.list_chapters(work)), "target_words": target,
                                   "build_s": round(built, 1), "recap_s": round(recap_s, 3),
                                   "methods": {m: _scores(text, story["references"], scorer)
                                               for m, text in texts.items()}}
            if n == 0:
                row["texts"] = texts
            per_story.append(row)
            print(f"  story {n + 1} ({half}, {row['parts']} parts, {built:.0f} s): " + ", ".join(
                f"{m} R1 {v['rouge1']:.3f} R2 {v['rouge2']:.3f} KG {v['kgscore_f1']:.3f}"
                for m, v in row["methods"].items()), flush=True)
    return summarize_quality(per_story, default)


QUALITY_METRICS = ("rouge1", "rouge2", "kgscore_f1")


def summarize_quality(per_story: list[dict[str, Any]], default: str) -> dict[str, Any]:
    """Means per half and method (percent), the decay the dev half prefers (sum of the three metrics), and per
    metric how many stories the default recap beats each baseline on."""
    def mean_rows(half: str, stories: list[dict[str, Any]]) -> list[dict[str, Any]]:
        methods = [m for m in stories[0]["methods"] if all(m in s["methods"] for s in stories)] if stories else []
        rows = []
        for m in methods:
            row: dict[str, Any] = {"half": half, "method": m, "stories": len(stories)}
            row.update({k: statistics.fmean(s["methods"][m][k] for s in stories) * (1 if k == "words" else 100)
                        for k in ("words", *QUALITY_METRICS)})
            if m != default and not m.startswith("recap"):
                row["recap_wins"] = " / ".join(
                    str(sum(s["methods"][default][k] > s["methods"][m][k] for s in stories)) for k in QUALITY_METRICS)
            rows.append(row)
        return rows
    dev = [s for s in per_story if s["half"] == "dev"]
    held = [s for s in per_story if s["half"] == "held out"]
    dev_rows = mean_rows("dev", dev)
    recaps = [r for r in dev_rows if r["method"].startswith("recap")]
    best = max(recaps, key=lambda r: sum(r[k] for k in QUALITY_METRICS), default=None)
    return {"stories": per_story, "default": default, "chosen": best["method"] if best else default,
            "dev": dev_rows, "held_out": mean_rows("held out", held),
            "all": mean_rows("all", per_story) if held else []}


CPU = "Intel Xeon (model 207, no AMX exposed), 2 cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=None, help="SQLite file keeping the novels' graphs between runs")
    parser.add_argument("--books", default="", help="comma-separated novel files (default: all in novels/txt)")
    parser.add_argument("--stories", type=int, default=25, help="SQuALITY stories for (c)")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-spoilers", action="store_true")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--speed-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    from storage.repository import SqlStore
    db = args.db or str(Path(tempfile.mkdtemp(prefix="companion-bench-")) / "books.db")
    store = SqlStore.from_url(f"sqlite:///{db}")
    if args.speed_child:
        import json
        print(json.dumps(speed(store)))
        return
    command = "bench/companion.py " + " ".join(sys.argv[1:])
    results: dict[str, Any] = {"command": command, "cpu": CPU}
    if not args.skip_speed:
        print("(a) speed on Pride and Prejudice", flush=True)
        results["speed"] = speed_in_child(db, store)
        s = results["speed"]
        print(table(s["xray"], ["chapter", "cards", "cold_ms", "warm_ms"]))
        print(table(s["recap"], ["chapters", "words", "sentences", "first_s", "median_s"]))
        print(f"models loaded: {s['models_loaded'] or 'none'}", flush=True)
        write_results("companion", results)
    if not args.skip_spoilers:
        books = [b for b in args.books.split(",") if b] or sorted(p.name for p in NOVELS.glob("*.txt"))
        print(f"\n(b) spoiler audit on {len(books)} novels", flush=True)
        results["spoilers"] = spoilers(store, books)
        write_results("companion", results)
        print(table(results["spoilers"]["books"], ["novel", "chapters", "checked", "x-ray", "recap", "timeline",
                                                   "late", "unlocated", "audit_s"]))
    if not args.skip_quality:
        # A file of its own, so a quality run does not overwrite the speed and audit figures (and the other way).
        print(f"\n(c) recap quality on SQuALITY, {args.stories} stories", flush=True)
        started = time.perf_counter()
        quality = recap_quality(args.stories)
        quality["seconds"] = round(time.perf_counter() - started)
        quality["load_avg_at_end"] = list(os.getloadavg())
        write_results("companion_recap_quality", {"command": command, "cpu": CPU, "data": str(SQUALITY),
                                                  "dev_stories": DEV_STORIES, **quality})
        columns = ["half", "method", "stories", "words", "rouge1", "rouge2", "kgscore_f1", "recap_wins"]
        print(table(quality["dev"], columns))
        print(f"chosen on the dev half: {quality['chosen']} (the product's default: {quality['default']})")
        print(table(quality["held_out"], columns))
        print(table(quality["all"], columns))
        print("wrote bench/results/companion_recap_quality.json")
    if not (args.skip_speed and args.skip_spoilers):
        print("\nwrote bench/results/companion.json")


if __name__ == "__main__":
    main()

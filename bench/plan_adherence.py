"""Plan adherence (issue 34, item 5): are a chapter's planned beats found in it, and beats of other chapters not?

    .venv/bin/python bench/plan_adherence.py                 # tune on the dev split, check the product on dev
    .venv/bin/python bench/plan_adherence.py --held          # ... and on the held-back split (look once, at the end)
    .venv/bin/python bench/plan_adherence.py --keep /tmp/pa  # keep (and reuse) the imported books' SQLite file

Gold: bench/gold/plan_beats.json, real chapters of the shared novels with 2-3 beats and the characters in each,
written by hand from the chapter text. Each chapter is checked (plan_service.adherence, the product's own path: the
book imported with library.import_book, MiniLM, no graph built, so characters are looked for by name) against a
plan holding its own beats (they happen: should be found) and the beats of the other gold chapters of the same book
in the same split (they do not happen: should be flagged missing). Split: in each book, every third gold chapter (in
chapter order, starting with the third) is held back; the rest is dev.

Tuning (dev only): for each OVERLAP_WEIGHT in a small grid, the threshold that maximises the smaller of the two rates
(found, flagged); the product's constants in core/write/adherence.py were set from it. Prints tables and writes
bench/results/plan_adherence.json.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT, SHARED_DATA, table, write_results

from core.nlp import embed
from core.services import library, plan_service
from core.write import adherence
from core.write.plan import ChapterPlan
from storage.repository import SqlStore

GOLD = ROOT / "bench" / "gold" / "plan_beats.json"
NOVELS = SHARED_DATA / "novels" / "txt"
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
CPU = "Intel Xeon (model 207, no AMX exposed), 2 cores"


def split_of(chapters: list[dict[str, Any]]) -> dict[tuple[str, int], str]:
    out: dict[tuple[str, int], str] = {}
    by_book: dict[str, list[int]] = defaultdict(list)
    for c in chapters:
        by_book[c["novel"]].append(c["chapter"])
    for book, numbers in by_book.items():
        for k, n in enumerate(sorted(numbers)):
            out[(book, n)] = "held" if k % 3 == 2 else "dev"
    return out


def cases(chapters: list[dict[str, Any]], split: dict[tuple[str, int], str], which: str) -> list[dict[str, Any]]:
    """Each chapter of the split with its own beats and the foreign beats (other chapters, same book, same split)."""
    mine = [c for c in chapters if split[(c["novel"], c["chapter"])] == which]
    return [c | {"foreign": [b for o in mine if o["novel"] == c["novel"] and o is not c for b in o["beats"]]}
            for c in mine]


class CachedEmbed:
    """MiniLM with a per-run cache: the tuning grid embeds each window once."""

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, embed(missing)))
        return np.stack([self.vectors[t] for t in texts])


def open_books(path: Path, novels: set[str]) -> tuple[SqlStore, dict[str, int]]:
    store = SqlStore.from_url(f"sqlite:///{path}")
    ids: dict[str, int] = {}
    for name in sorted(novels):
        data = (NOVELS / f"{name}.txt").read_bytes()
        work = library.find_same_book(store, data) or library.import_book(store, f"{name}.txt", data)
        ids[name] = work.id
    return store, ids


def tune(store: SqlStore, ids: dict[str, int], dev: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict]:
    """Per overlap weight: the dev threshold maximising min(found, flagged)."""
    cached = CachedEmbed()
    rows, best = [], {"balanced": -1.0}
    texts = {(c["novel"], c["chapter"]): store.get_chapter(ids[c["novel"]], c["chapter"]).text for c in dev}
    windows = {k: adherence.windows(t) for k, t in texts.items()}
    for weight in WEIGHTS:
        own: list[float] = []
        foreign: list[float] = []
        for c in dev:
            scored = adherence.score_beats([*c["beats"], *c["foreign"]], windows[(c["novel"], c["chapter"])],
                                           cached, weight)
            own += [s[0] for s in scored[:len(c["beats"])]]
            foreign += [s[0] for s in scored[len(c["beats"]):]]
        candidates = sorted(set(own + foreign))
        scored_t = [(min(np.mean([s >= t for s in own]), np.mean([s < t for s in foreign])), t) for t in candidates]
        balanced, threshold = max(scored_t)
        above = [t for t in candidates if t > threshold]
        threshold = round((threshold + above[0]) / 2, 3) if above else threshold   # between two dev scores
        row = {"overlap_weight": weight, "threshold": threshold,
               "found": float(np.mean([s >= threshold for s in own])),
               "flagged": float(np.mean([s < threshold for s in foreign])), "balanced": float(balanced)}
        rows.append(row)
        if balanced > best["balanced"] + 1e-9:
            best = row
    return rows, best


def evaluate(store: SqlStore, ids: dict[str, int], split_cases: list[dict[str, Any]]) -> tuple[dict, list[dict]]:
    """The product's path (plan_service.adherence with its constants) on each chapter."""
    own_hits = foreign_hits = own_n = foreign_n = chars_hit = chars_n = 0
    per_book: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    seconds = []
    misses = []
    for c in split_cases:
        plan = ChapterPlan(c["chapter"], tuple(c["beats"] + c["foreign"]), tuple(c["characters"]), source="writer")
        t0 = time.perf_counter()
        result = plan_service.adherence(store, ids[c["novel"]], c["chapter"], plan)
        seconds.append(time.perf_counter() - t0)
        own, foreign = result.beats[:len(c["beats"])], result.beats[len(c["beats"]):]
        own_hits += sum(b.found for b in own)
        foreign_hits += sum(not b.found for b in foreign)
        own_n += len(own)
        foreign_n += len(foreign)
        chars_hit += result.characters_present
        chars_n += len(result.characters)
        book = per_book[c["novel"]]
        book[0] += sum(b.found for b in own)
        book[1] += len(own)
        book[2] += sum(not b.found for b in foreign)
        book[3] += len(foreign)
        misses += [{"novel": c["novel"], "chapter": c["chapter"], "beat": b.beat, "score": b.score,
                    "kind": "own beat missed"} for b in own if not b.found]
        misses += [{"novel": c["novel"], "chapter": c["chapter"], "beat": b.beat, "score": b.score,
                    "kind": "foreign beat found"} for b in foreign if b.found]
    summary = {"chapters": len(split_cases), "own_beats": own_n, "found": own_hits / max(own_n, 1),
               "foreign_beats": foreign_n, "flagged_missing": foreign_hits / max(foreign_n, 1),
               "characters_present": chars_hit / max(chars_n, 1),
               "seconds_per_chapter": float(np.mean(seconds)) if seconds else 0.0}
    books = [{"novel": k, "found": f"{v[0]}/{v[1]}", "flagged missing": f"{v[2]}/{v[3]}"} for k, v in per_book.items()]
    return summary | {"per_book": books, "errors": misses}, books


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--held", action="store_true", help="also evaluate the held-back split (look once, at the end)")
    ap.add_argument("--tune-only", action="store_true", help="only the dev tuning grid (no product run, no file)")
    ap.add_argument("--keep", default=None, help="folder for the imported books' SQLite file (reused)")
    args = ap.parse_args()
    gold = json.loads(GOLD.read_text(encoding="utf-8"))["chapters"]
    split = split_of(gold)
    folder = Path(args.keep or tempfile.mkdtemp(prefix="fabula-plan-adherence-"))
    folder.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    store, ids = open_books(folder / "books.db", {c["novel"] for c in gold})
    dev, held = cases(gold, split, "dev"), cases(gold, split, "held")
    print(f"{len(gold)} chapters ({len(dev)} dev, {len(held)} held), {sum(len(c['beats']) for c in gold)} beats; "
          f"CPU {CPU}; load average {load[0]:.2f}")
    grid, best = tune(store, ids, dev)
    print("\nTuning on dev (score = MiniLM cosine + weight * word overlap; threshold maximises min(found, flagged))")
    print(table(grid))
    print(f"best on dev: overlap weight {best['overlap_weight']}, threshold {best['threshold']}; the product uses "
          f"OVERLAP_WEIGHT={adherence.OVERLAP_WEIGHT}, THRESHOLD={adherence.THRESHOLD}")
    if args.tune_only:
        return
    results: dict[str, Any] = {"tuning_dev": grid, "best_dev": best,
                               "product": {"overlap_weight": adherence.OVERLAP_WEIGHT,
                                           "threshold": adherence.THRESHOLD, "window": adherence.WINDOW}}
    rows = []
    for name, split_cases in (("dev", dev), ("held", held)) if args.held else (("dev", dev),):
        summary, books = evaluate(store, ids, split_cases)
        results[name] = summary
        rows.append({"split": name, **{k: summary[k] for k in ("chapters", "own_beats", "found", "foreign_beats",
                                                               "flagged_missing", "characters_present",
                                                               "seconds_per_chapter")}})
        print(f"\n{name}: per book")
        print(table(books))
    print("\nThe product's check (plan_service.adherence)")
    print(table(rows))
    results["load_average_at_start"] = list(load)
    results["machine_cpu"] = CPU
    path = write_results("plan_adherence", results)
    print(f"\nwrote {path.relative_to(ROOT)} (load average now {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()

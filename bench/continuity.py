"""Continuity checker (issue 32): planted contradictions found, false alarms on clean books, speed.

    .venv/bin/python bench/continuity.py                        # dev plants, every clean book, speed on P&P
    .venv/bin/python bench/continuity.py --split held           # the held-back plants (look once, at the end)
    .venv/bin/python bench/continuity.py --split held2          # held-back sets written blind (2026-11-27): held2,
    .venv/bin/python bench/continuity.py --split held3          # then held3, each looked at once
    .venv/bin/python bench/continuity.py --books the_call_of_the_wild_pg215 --no-speed
    .venv/bin/python bench/continuity.py --keep /tmp/continuity-dbs   # keep (and reuse) each book's SQLite file
    .venv/bin/python bench/continuity.py --split held4 --no-clean --no-speed --llm openai:gpt-4o-mini
        # each planted chapter also read by a capable model (core.services.continuity_reading), its recall beside
        # the rules' (needs the model's key; prints the price before it sends anything)

Clean side: each of the 11 shared novels and the 10 GraphRAG-Bench dev books is imported and its offline graph built
(states and checks included) into its own SQLite file; every flag on an untouched book is a false alarm, counted per
10,000 words. Planted side: bench/gold/continuity_plants.json (hand-written sentences inserted after, or replacing,
a sentence of a chapter; each with its kind and the entity it concerns). A planted book is a copy of the clean one
whose edited chapters go through the product's own incremental path (library.edit_chapter, then
kg_service.update_chapter_graph: that chapter re-read and re-checked). A plant is found when a flag names its entity
(the flag's entity or name is, or shares a name with, the plant's entity) and its new sentence lies within
HIT_WORDS words of the planted sentence in the same chapter. Recall per kind and over all; the split (dev or held)
is chosen on the command line and the held-back plants are meant to be looked at once.

Speed (Pride and Prejudice, same run): the offline graph build with the state extraction, storage and checks
switched off against the full build, and one edited chapter re-read and re-checked (update_chapter_graph: total and
its re-check part). Prints tables and writes bench/results/continuity[_held].json.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from _common import ROOT, SHARED_DATA, machine, table, write_results

from core.continuity.locate import Locator
from core.kg.names import normalize_name
from core.services import continuity_service, kg_service, library
from storage.repository import SqlStore

PLANTS = ROOT / "bench" / "gold" / "continuity_plants.json"
NOVELS = SHARED_DATA / "novels" / "txt"
GRAPHRAG = SHARED_DATA / "graphrag_bench_novel" / "books"
HIT_WORDS = 200
SPEED_BOOK = "pride_and_prejudice_pg1342"
SPEED_CHAPTER = 30


def book_files() -> dict[str, Path]:
    files = {p.stem: p for p in sorted(NOVELS.glob("*.txt"))}
    files.update({p.stem: p for p in sorted(GRAPHRAG.glob("*.txt"))})
    return files


def open_book(cache: Path, name: str, path: Path) -> tuple[SqlStore, int, float | None]:
    """The book's store with its graph built (built now if the file is new or out of date); build seconds or None."""
    store = SqlStore.from_url(f"sqlite:///{cache / (name + '.db')}")
    works = store.list_works()
    work = works[0] if works else library.import_book(store, path.name, path.read_bytes())
    status = kg_service.graph_status(store, work.id)
    if status.up_to_date and not continuity_service.stale_chapters(store, work.id):
        continuity_service.check_work(store, work.id)    # the stored states, checked by today's checks
        return store, work.id, None
    t0 = time.perf_counter()
    kg_service.build_graph(store, work.id)
    return store, work.id, time.perf_counter() - t0


def words_of(store: SqlStore, work_id: int) -> int:
    return sum(c.word_count for c in store.list_chapters(work_id))


# ---- planting ------------------------------------------------------------------------------------------------------

def _plant_text(text: str, plant: dict[str, Any]) -> tuple[str, int] | None:
    """The chapter text with the plant applied, and the planted sentence's offset; None if the anchor is absent."""
    start, end = Locator(text).find(plant["anchor"])
    if start < 0:
        return None
    if plant.get("op", "after") == "replace":
        return text[:start] + plant["text"] + text[end:], start
    return text[:end] + " " + plant["text"] + text[end:], end + 1


def apply_plants(store: SqlStore, work_id: int, plants: list[dict[str, Any]]) -> tuple[dict[str, tuple[int, int]],
                                                                                        list[float]]:
    """Edit the chapters (the library's edit, as a user would), then re-read each edited chapter incrementally.
    Returns plant id -> (chapter, offset) and the seconds of each chapter's update."""
    where: dict[str, tuple[int, int]] = {}
    edited: set[int] = set()
    setups = [{"id": f"{p['id']}/establish", "anchor": p["establish_anchor"], "text": p["establish"]}
              for p in plants if p.get("establish")]
    for plant in setups + plants:
        for info in store.list_chapters(work_id):
            chapter = store.get_chapter(work_id, info.index)
            planted = _plant_text(chapter.text, plant)
            if planted is None:
                continue
            text, offset = planted
            library.edit_chapter(store, work_id, info.index, text, chapter.revision)
            where[plant["id"]] = (info.index, offset)
            edited.add(info.index)
            break
        else:
            print(f"  ! plant {plant['id']}: anchor not found")
    seconds = []
    for index in sorted(edited):
        t0 = time.perf_counter()
        kg_service.update_chapter_graph(store, work_id, index)
        seconds.append(time.perf_counter() - t0)
    # the positions again, in the final texts (a later plant in the same chapter shifts an earlier one)
    for plant in plants:
        if plant["id"] in where:
            index = where[plant["id"]][0]
            start = Locator(store.get_chapter(work_id, index).text).find(plant["text"])[0]
            where[plant["id"]] = (index, start)
    return where, seconds


def _names_of(store: SqlStore, work_id: int, entity: str) -> set[str]:
    """The plant's entity's names in the graph: as written in the plant, or as the graph writes names ("M. Waldman"
    is "Monsieur Waldman" there, "the Time Traveller" "Time Traveller")."""
    forms = {entity.lower(), (normalize_name(entity) or entity).lower()}
    for e in store.kg_entities(work_id):
        if e.label.lower() in forms or any(n.name.lower() in forms for n in e.names):
            return {e.label.lower(), *(n.name.lower() for n in e.names)}
    return forms


def _word_gap(text: str, a: int, b: int) -> int:
    lo, hi = sorted((a, b))
    return len(text[lo:hi].split())


def judge(store: SqlStore, work_id: int, plants: list[dict[str, Any]],
          where: dict[str, tuple[int, int]], flags: list[Any] | None = None) -> tuple[list[dict[str, Any]], int]:
    """Per plant: found or not (and the flag); plus the flags near no plant (false alarms of the planted copy,
    beyond those of the clean book: reported apart). `flags`: the stored (rule-based) flags unless given."""
    if flags is None:
        flags = [v.flag for v in continuity_service.list_flags(store, work_id)]
    used: set[int] = set()
    rows = []
    for plant in plants:
        row = {"id": plant["id"], "book": plant["book"], "kind": plant["kind"], "entity": plant["entity"],
               "found": False, "flag": None}
        if plant["id"] in where:
            chapter, offset = where[plant["id"]]
            text = store.get_chapter(work_id, chapter).text
            names = _names_of(store, work_id, plant["entity"])
            for k, f in enumerate(flags):
                if f.chapter != chapter or f.start < 0 or _word_gap(text, f.start, offset) > HIT_WORDS:
                    continue
                if f.entity.lower() in names or f.name.lower() in names:
                    row.update(found=True, flag=f.as_json())
                    used.add(k)
                    break
        rows.append(row)
    return rows, len(flags) - len(used)


def recall_table(plant_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for r in plant_rows:
        by_kind[r["kind"]].append(r["found"])
    rows = [{"kind": k, "plants": len(v), "found": sum(v), "recall": round(sum(v) / len(v), 2)}
            for k, v in sorted(by_kind.items())]
    total = [r["found"] for r in plant_rows]
    if total:
        rows.append({"kind": "all", "plants": len(total), "found": sum(total),
                     "recall": round(sum(total) / len(total), 2)})
    return rows


def read_planted(store: SqlStore, work_id: int, plants: list[dict[str, Any]], where: dict[str, tuple[int, int]],
                 llm: str) -> dict[str, Any]:
    """Each planted chapter read by `llm` (the price printed first), its findings judged as the rules' flags are."""
    from core.services import continuity_reading
    chapters = sorted({where[p["id"]][0] for p in plants if p["id"] in where})
    plans = [continuity_reading.reading_plan(store, work_id, c, llm) for c in chapters]
    print(f"  {llm} reads {len(chapters)} chapter(s): {sum(p.input_tokens for p in plans):,} tokens, "
          f"{sum(p.usd or 0 for p in plans):.4f} USD", flush=True)
    flags, notes = [], []
    for c in chapters:
        done = continuity_reading.read_chapter(store, work_id, c, llm)
        flags.extend(done.flags)
        notes.extend(f"chapter {c}: {n}" for n in done.notes)
    rows, other = judge(store, work_id, plants, where, flags)
    return {"rows": rows, "other": other, "notes": notes}


# ---- speed ---------------------------------------------------------------------------------------------------------

class _NoContinuity:
    """The build with the state extraction, its storage and the checks switched off (the baseline)."""

    def __enter__(self) -> None:
        import core.kg.offline as offline
        self.saved = (offline.chapter_states, continuity_service.located_states, continuity_service.check_work,
                      continuity_service.stale_chapters)
        offline.chapter_states = lambda *a, **k: []  # type: ignore[assignment]
        continuity_service.located_states = lambda *a, **k: None  # type: ignore[assignment]
        continuity_service.check_work = lambda *a, **k: None  # type: ignore[assignment]
        continuity_service.stale_chapters = lambda *a, **k: set()  # type: ignore[assignment]

    def __exit__(self, *exc: object) -> None:
        import core.kg.offline as offline
        (offline.chapter_states, continuity_service.located_states, continuity_service.check_work,
         continuity_service.stale_chapters) = self.saved


def speed(path: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"book": path.stem, "load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        for label, off in (("build_without_s", True), ("build_with_s", False)):
            store = SqlStore.from_url(f"sqlite:///{tmp}/{label}.db")
            work = library.import_book(store, path.name, path.read_bytes())
            t0 = time.perf_counter()
            if off:
                with _NoContinuity():
                    kg_service.build_graph(store, work.id)
            else:
                report = kg_service.build_graph(store, work.id)
                out["check_whole_s"] = round(report.timings.get("continuity", 0.0), 3)
            out[label] = round(time.perf_counter() - t0, 2)
        chapter = store.get_chapter(work.id, SPEED_CHAPTER)
        text = chapter.text + "\n\nWickham, who had died that spring, walked into the room and bowed to Elizabeth."
        library.edit_chapter(store, work.id, SPEED_CHAPTER, text, chapter.revision)
        t0 = time.perf_counter()
        report = kg_service.update_chapter_graph(store, work.id, SPEED_CHAPTER)
        out["edit_update_s"] = round(time.perf_counter() - t0, 3)
        out["edit_recheck_s"] = report.timings.get("continuity")
        before = store.states_list(work.id, chapter=SPEED_CHAPTER)
        t0 = time.perf_counter()
        continuity_service.recheck_chapter(store, work.id, SPEED_CHAPTER, before)
        out["recheck_only_s"] = round(time.perf_counter() - t0, 3)
    out["added"] = round(out["build_with_s"] / out["build_without_s"] - 1, 3)
    out["load_after"] = os.getloadavg()[0]
    return out


# ---- main ----------------------------------------------------------------------------------------------------------

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    all_plants = json.loads(PLANTS.read_text())["plants"]
    ap.add_argument("--split", choices=(*sorted({p["split"] for p in all_plants}), "all"), default="dev")
    ap.add_argument("--books", nargs="*", help="book file stems (default: all 21)")
    ap.add_argument("--keep", type=Path, help="folder for the books' SQLite files (reused when up to date)")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--no-clean", action="store_true", help="skip the clean-book table (plants only)")
    ap.add_argument("--llm", metavar="PROVIDER:MODEL", help="also have each planted chapter read by this (capable) "
                    "model, core.services.continuity_reading, and report its recall beside the rules'")
    ap.add_argument("--out", help="results file stem under bench/results (default: continuity[_SPLIT][_llm])")
    args = ap.parse_args()
    files = book_files()
    names = args.books or list(files)
    plants = [p for p in all_plants if args.split == "all" or p["split"] == args.split]
    cache = args.keep or Path(tempfile.mkdtemp(prefix="continuity-bench-"))
    cache.mkdir(parents=True, exist_ok=True)
    info = machine()
    clean_rows, plant_rows, updates, extra = [], [], [], 0
    llm_rows: list[dict[str, Any]] = []
    llm_other, llm_notes = 0, []
    planted_books = sorted({p["book"] for p in plants} & set(names))
    for name in names if not args.no_clean else planted_books:
        store, work_id, built = open_book(cache, name, files[name])
        flags = continuity_service.list_flags(store, work_id)
        words = words_of(store, work_id)
        clean_rows.append({"book": name, "words": words, "flags": len(flags),
                           "per_10k_words": round(len(flags) / words * 10_000, 2),
                           "build_s": None if built is None else round(built, 1)})
        print(f"{name}: {len(flags)} flags in {words:,} words", flush=True)
        for v in flags:
            print(f"    [{v.flag.kind}] {v.flag.entity} ch{v.flag.chapter}: {v.flag.sentence[:120]}")
        if name in planted_books:
            copy = cache / f"{name}.planted.db"
            store.engine.dispose()   # the last connection closed: SQLite folds its WAL into the file copied
            shutil.copy(cache / f"{name}.db", copy)
            pstore = SqlStore.from_url(f"sqlite:///{copy}")
            mine = [p for p in plants if p["book"] == name]
            where, seconds = apply_plants(pstore, work_id, mine)
            updates.extend(seconds)
            rows, unexplained = judge(pstore, work_id, mine, where)
            plant_rows.extend(rows)
            extra += max(0, unexplained - len(flags))
            if args.llm:
                read = read_planted(pstore, work_id, mine, where, args.llm)
                llm_rows.extend(read["rows"])
                llm_other += read["other"]
                llm_notes.extend(read["notes"])
            pstore.engine.dispose()
            copy.unlink()
        store.engine.dispose()
    recall_rows = recall_table(plant_rows)
    words = sum(r["words"] for r in clean_rows)
    flags = sum(r["flags"] for r in clean_rows)
    clean_rows.append({"book": "all", "words": words, "flags": flags,
                       "per_10k_words": round(flags / max(words, 1) * 10_000, 2)})
    print(f"\nPlanted contradictions ({args.split}), a hit names the entity within {HIT_WORDS} words:")
    print(table(recall_rows))
    for r in plant_rows:
        if not r["found"]:
            print(f"  missed {r['id']} [{r['kind']}] {r['entity']}")
    print("\nFalse alarms on the clean books:")
    print(table(clean_rows, ["book", "words", "flags", "per_10k_words", "build_s"]))
    result: dict[str, Any] = {"split": args.split, "recall": recall_rows, "plants": plant_rows, "clean": clean_rows,
                              "planted_copies_extra_flags": extra,
                              "edited_chapter_update_s": [round(s, 3) for s in updates]}
    if args.llm:
        result["llm"] = {"model": args.llm, "recall": recall_table(llm_rows), "plants": llm_rows,
                         "findings_near_no_plant": llm_other, "notes": llm_notes}
        print(f"\nThe same plants read by {args.llm} (a finding naming the entity within {HIT_WORDS} words; "
              f"{llm_other} finding(s) near no plant):")
        print(table(result["llm"]["recall"]))
    if not args.no_speed and SPEED_BOOK in files:
        result["speed"] = speed(files[SPEED_BOOK])
        print("\nSpeed (Pride and Prejudice, same run):")
        print(table([result["speed"]]))
    result["machine_at_end"] = {"load_avg": os.getloadavg()[0], **{k: info[k] for k in ("cpu", "cores")}}
    stem = "continuity" if args.split in ("dev", "all") else f"continuity_{args.split}"
    path = write_results(args.out or stem + ("_llm" if args.llm else ""), result)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()

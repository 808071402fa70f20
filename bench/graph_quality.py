"""Graph quality of the offline knowledge graph: (A) GraphRAG-Bench Novel gold evidence triples found as entities and
edges, side by side with LightRAG's graph of the same books; (B) key relationships of six novels (bench/gold/
relationships.json) present as edges; (C) the 10 most mentioned entities typed right (bench/gold/types.json).

    .venv/bin/python bench/graph_quality.py                  # all: 10 GraphRAG-Bench books + 6 novels
    .venv/bin/python bench/graph_quality.py --quick          # smoke run: one short book of each set
    .venv/bin/python bench/graph_quality.py --books Novel-25646 a_christmas_carol
    .venv/bin/python bench/graph_quality.py --shared /work/shared --out /path/baseline.json   # from another worktree
    .venv/bin/python bench/graph_quality.py --books frankenstein --keep /tmp/gq-dbs   # keep the SQLite files
    .venv/bin/python bench/graph_quality.py --rows       # also each gold triple's verdicts, for reading misses

Prints tables and writes bench/results/graph_quality.json (machine, load average, date, git HEAD). When
bench/results/graph_quality_baseline.json exists (a run of the same script on an older tree), its figures are shown
beside today's.

Name matching (one function for every graph and every section; see `names_match`): names are normalized (NFKD
accents dropped, casefold, a final "'s" dropped, other apostrophes removed ("Tom's wife" -> "toms wife"),
punctuation to spaces, a leading "the"/"a"/"an" dropped, spaces collapsed). Two normalized names match when they are
equal, or, when both are proper names (the original has a capital letter: "river" or "the bishop" must match
exactly, and never "Ohio River"), when the token set of the shorter is contained in the longer's,
the shorter has at least one content token (not a stopword or a title such as Mr./Mrs./Miss/Dr.), its content tokens
are at least half of the longer's content tokens, and, when the longer is "X of Y", the shorter contains a content
token of X (so "Hanover" does not match "Princess Frederica of Hanover", but "Princess Frederica" does).
Titles count in the subset test, so "Mr. Bennet" and "Mrs. Bennet" never match. A gold string is looked up exactly
first: if some entity has a name equal to it (after normalization) only those entities are its matches; otherwise
every entity with a name matching by the token rule is. Fabula's entities are matched through their label and every
alias in entity.names; LightRAG's through their one name.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))  # the scoring and report modules beside this script
from graph_quality_report import print_tables  # noqa: E402
from graph_quality_scoring import (A_KEYS, L_KEYS, Graph, NameIndex, adjacency, judge_types,  # noqa: E402
                                   micro_macro, normalize, parse_triples, score_pairs, score_triples)

GOLD_DIR = ROOT / "bench" / "gold"
RESULTS = ROOT / "bench" / "results" / "graph_quality.json"
BASELINE = ROOT / "bench" / "results" / "graph_quality_baseline.json"
QUICK_BOOKS = ("Novel-25646", "a_christmas_carol_pg46")
FALLBACK_INTERACTIONS = frozenset({"appears with", "speaks to"})
CO_MENTIONED = "mentioned with"   # the loosest interaction relation (names up to two sentences apart), shown apart

# ---- building the graphs ----------------------------------------------------------------------------------------

def fabula_graph(store: Any, work_id: int, interactions: frozenset[str]) -> tuple[Graph, list[Any]]:
    entities = store.kg_entities(work_id)
    owner = {n.name: e.id for e in entities for n in e.names}
    all_edges, verb_edges, no_co_mention = [], [], []
    for t in store.kg_triples(work_id, kind="edges"):
        if not (t.subject_name and t.object_name):
            continue
        a, b = owner.get(t.subject_name), owner.get(t.object_name)
        if a is None or b is None or a == b:
            continue
        all_edges.append((a, b))
        if t.relation not in interactions:
            verb_edges.append((a, b))
        if t.relation != CO_MENTIONED:
            no_co_mention.append((a, b))
    graph = Graph(NameIndex({e.id: [e.label, *e.aliases] for e in entities}),
                  {"all": adjacency(all_edges), "no_interaction": adjacency(verb_edges),
                   "no_co_mention": adjacency(no_co_mention)})
    return graph, entities


def lightrag_graph(book: dict[str, Any]) -> Graph:
    names = set(book["entities"]) | {n for p in book["pairs"] for n in p}
    return Graph(NameIndex({n: [n] for n in names}), {"all": adjacency((a, b) for a, b in book["pairs"])})


def build_book(tmp: Path, name: str, data: bytes, n_process: int) -> dict[str, Any]:
    from core.services import kg_service
    from core.services.library import import_book
    from storage.repository import SqlStore
    store = SqlStore.from_url(f"sqlite:///{tmp / (Path(name).stem + '.db')}")
    t0 = time.perf_counter()
    work_id = import_book(store, name, data).id
    t1 = time.perf_counter()
    report = kg_service.build_graph(store, work_id, n_process=n_process)
    t2 = time.perf_counter()
    counts = kg_service.graph_counts(store, work_id)
    return {"store": store, "work_id": work_id, "import_s": round(t1 - t0, 2), "build_s": round(t2 - t1, 2),
            "report_s": getattr(report, "seconds", None), "chapters": len(store.list_chapters(work_id)), **counts}


# ---- the benchmark ----------------------------------------------------------------------------------------------



def load_questions(bench_dir: Path) -> dict[str, list[tuple[str, str, str]]]:
    """Unique gold triples per book (deduplicated on the normalized triple)."""
    per_book: dict[str, dict[tuple[str, str, str], tuple[str, str, str]]] = defaultdict(dict)
    for line in (bench_dir / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        for t in parse_triples(q.get("evidence_triple") or ""):
            per_book[q["source"]].setdefault(tuple(normalize(x) for x in t), t)  # type: ignore[arg-type]
    return {b: list(d.values()) for b, d in per_book.items()}


def run_graphrag(tmp: Path, bench_dir: Path, books: list[str], n_process: int,
                 interactions: frozenset[str]) -> dict[str, Any]:
    triples = load_questions(bench_dir)
    lightrag = json.loads((bench_dir / "lightrag_gpt4omini_graph.json").read_text(encoding="utf-8"))
    per_fab, per_lr, info, exact_fab, exact_lr = {}, {}, {}, {}, {}
    for book in books:
        path = bench_dir / "books" / f"{book}.txt"
        try:
            built = build_book(tmp, path.name, path.read_bytes(), n_process)
        except Exception as exc:  # noqa: BLE001 - an import the app refuses is a result: scored as an empty graph
            built = {"error": f"{type(exc).__name__}: {exc}", "build_s": None}
            graph = Graph(NameIndex({}), {"all": {}, "no_interaction": {}, "no_co_mention": {}})
        else:
            graph, _ = fabula_graph(built["store"], built["work_id"], interactions)
            built["store"].engine.dispose()
        per_fab[book] = score_triples(triples.get(book, []), graph)
        lr_graph = lightrag_graph(lightrag[book])
        per_lr[book] = score_triples(triples.get(book, []), lr_graph)
        exact_fab[book] = score_triples(triples.get(book, []), graph, exact_only=True)
        exact_lr[book] = score_triples(triples.get(book, []), lr_graph, exact_only=True)
        info[book] = {k: v for k, v in built.items() if k not in ("store", "work_id")}
        f, lr = per_fab[book], per_lr[book]
        error = f" {built['error']}" if "error" in built else ""
        print(f"  {book}: {f['n']} triples, build {built['build_s']} s{error}; "
              f"both {f['both']} vs LightRAG {lr['both']}, edge {f['edge_all']} vs {lr['edge_all']}", flush=True)
    ok = [b for b in books if "error" not in info[b]]
    return {"books": {b: {"build": info[b], "fabula": strip_rows(per_fab[b]), "lightrag": strip_rows(per_lr[b])}
                      for b in books},
            "overall": {"fabula": micro_macro(per_fab, A_KEYS), "lightrag": micro_macro(per_lr, L_KEYS)},
            "overall_exact_names_only": {"fabula": micro_macro(exact_fab, A_KEYS),
                                         "lightrag": micro_macro(exact_lr, L_KEYS)},
            "overall_imported_only": {"books": ok,
                                      "fabula": micro_macro({b: per_fab[b] for b in ok}, A_KEYS),
                                      "lightrag": micro_macro({b: per_lr[b] for b in ok}, L_KEYS)},
            "rows": {b: [{**fr, **{f"lightrag_{k}": v for k, v in lr.items() if k != "triple"}}
                         for fr, lr in zip(per_fab[b]["rows"], per_lr[b]["rows"])] for b in books}}


def strip_rows(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != "rows"}


def run_novels(tmp: Path, novels_dir: Path, books: list[str], n_process: int,
               interactions: frozenset[str]) -> dict[str, Any]:
    rel_gold = json.loads((GOLD_DIR / "relationships.json").read_text(encoding="utf-8"))
    type_gold = json.loads((GOLD_DIR / "types.json").read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    for book in books:
        path = novels_dir / f"{book}.txt"
        try:
            built = build_book(tmp, path.name, path.read_bytes(), n_process)
        except Exception as exc:  # noqa: BLE001 - scored as an empty graph, like a GraphRAG-Bench book
            built = {"error": f"{type(exc).__name__}: {exc}", "build_s": None}
            graph, entities = Graph(NameIndex({}), {"all": {}, "no_interaction": {}, "no_co_mention": {}}), []
        else:
            graph, entities = fabula_graph(built["store"], built["work_id"], interactions)
            built["store"].engine.dispose()
        rel = {key: score_pairs(rel_gold[book]["pairs"], graph, key)
               for key in ("all", "no_co_mention", "no_interaction")}
        top = sorted(entities, key=lambda e: (-e.mentions, e.id))[:10]
        top_rows = [{"label": e.label, "names": [e.label, *e.aliases], "type": e.type, "mentions": e.mentions}
                    for e in top]
        types = judge_types(top_rows, type_gold[book]["entities"]) if book in type_gold else None
        out[book] = {"title": rel_gold[book]["title"], "build": {k: v for k, v in built.items()
                                                                 if k not in ("store", "work_id")},
                     "relationships": rel, "types": types}
        print(f"  {book}: build {built['build_s']} s; relationships {rel['all']['hits']}/{rel['all']['n']}; "
              f"types {types['right'] if types else '-'}/10", flush=True)
    n = sum(b["relationships"]["all"]["n"] for b in out.values())
    overall = {"relationships": {key: round(sum(b["relationships"][key]["hits"] for b in out.values()) / n, 4)
                                 if n else None for key in ("all", "no_co_mention", "no_interaction")},
               "relationship_pairs": n}
    tn = sum(b["types"]["n"] for b in out.values() if b["types"])
    overall["types"] = round(sum(b["types"]["right"] for b in out.values() if b["types"]) / tn, 4) if tn else None
    overall["typed_entities"] = tn
    return {"books": out, "overall": overall}


# ---- main -------------------------------------------------------------------------------------------------------

def machine_info() -> dict[str, Any]:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30).stdout
        except Exception:  # noqa: BLE001 - machine info is best effort
            return ""
    from _common import cpu
    return {**cpu(), "cpus": os.cpu_count(), "load_start": round(os.getloadavg()[0], 2),
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "root": str(ROOT),
            "git_head": git("rev-parse", "HEAD").strip(),
            "git_changed": [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()],
            "python": sys.version.split()[0]}


def select(available: list[str], wanted: list[str] | None) -> list[str]:
    if not wanted:
        return available
    return [b for b in available if any(w.casefold() in b.casefold() for w in wanted)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared folder (data/ in it)")
    parser.add_argument("--books", nargs="+", help="substrings of book ids / novel file stems to run")
    parser.add_argument("--quick", action="store_true", help=f"smoke run: {', '.join(QUICK_BOOKS)}")
    parser.add_argument("--n-process", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--baseline", type=Path, default=BASELINE, help="earlier result shown side by side")
    parser.add_argument("--keep", type=Path, help="keep the SQLite files of the built graphs in this folder")
    parser.add_argument("--rows", action="store_true",
                        help="also write every gold triple's verdicts (GraphRAG-Bench) to the JSON (~600 KB)")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from core.kg.types import INTERACTION_RELATIONS as interactions
    except ImportError:  # trees from before the interaction edges
        interactions = FALLBACK_INTERACTIONS

    bench_dir = args.shared / "data" / "graphrag_bench_novel"
    novels_dir = args.shared / "data" / "novels" / "txt"
    rel_books = list(json.loads((GOLD_DIR / "relationships.json").read_text(encoding="utf-8")))
    gr_books = sorted(json.loads((bench_dir / "lightrag_gpt4omini_graph.json").read_text(encoding="utf-8")))
    wanted = list(QUICK_BOOKS) if args.quick else args.books
    gr_sel, nv_sel = select(gr_books, wanted), select(rel_books, wanted)

    result: dict[str, Any] = {"machine": machine_info(), "args": {"books": gr_sel + nv_sel, "quick": args.quick,
                                                                  "n_process": args.n_process,
                                                                  "interaction_relations": sorted(interactions)}}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fabula-bench-gq-") as tmp_name:
        tmp = Path(tmp_name)
        if args.keep:
            tmp = args.keep
            tmp.mkdir(parents=True, exist_ok=True)
            if any(tmp.glob("*.db")):
                parser.error(f"--keep {tmp}: the folder already holds .db files (each build needs a fresh one)")
        if gr_sel:
            print(f"A. GraphRAG-Bench Novel: {len(gr_sel)} books", flush=True)
            result["graphrag"] = run_graphrag(tmp, bench_dir, gr_sel, args.n_process, interactions)
        if nv_sel:
            print(f"B/C. novels: {len(nv_sel)}", flush=True)
            result["novels"] = run_novels(tmp, novels_dir, nv_sel, args.n_process, interactions)
    if not args.rows and "graphrag" in result:
        result["graphrag"].pop("rows", None)
    result["machine"]["load_end"] = round(os.getloadavg()[0], 2)
    result["machine"]["total_s"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    base = None
    if args.baseline.exists() and args.baseline.resolve() != args.out.resolve():
        base = json.loads(args.baseline.read_text(encoding="utf-8"))
    print_tables(result, base)
    print(f"\nwrote {args.out} ({result['machine']['total_s']} s)")


if __name__ == "__main__":
    main()

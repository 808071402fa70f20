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
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

ROOT = Path(__file__).resolve().parents[1]
GOLD_DIR = ROOT / "bench" / "gold"
RESULTS = ROOT / "bench" / "results" / "graph_quality.json"
BASELINE = ROOT / "bench" / "results" / "graph_quality_baseline.json"
QUICK_BOOKS = ("Novel-25646", "a_christmas_carol_pg46")
FALLBACK_INTERACTIONS = frozenset({"appears with", "speaks to"})
CO_MENTIONED = "mentioned with"   # the loosest interaction relation (names up to two sentences apart), shown apart

# ---- pure scoring functions -------------------------------------------------------------------------------------

ARTICLES = frozenset({"the", "a", "an"})
TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "doctor", "sir", "lady", "lord", "madam", "madame", "mme", "mlle",
                    "m", "monsieur", "master", "professor", "prof", "rev", "reverend", "captain", "capt", "colonel",
                    "col", "major", "general", "lieutenant", "inspector", "uncle", "aunt", "old", "young", "little"})
FUNCTION_WORDS = frozenset({"the", "a", "an", "of", "and", "in", "on", "at", "to", "for", "by", "with", "from", "de",
                            "von", "van", "la", "le", "du", "des", "his", "her", "their", "its", "my", "our", "your"})
STOPWORDS = TITLES | FUNCTION_WORDS


def normalize(name: str) -> str:
    """Casefold, drop accents and a final "'s" (other apostrophes removed: "Tom's wife" -> "toms wife", so it never
    matches "Tom"), punctuation to spaces, drop one leading article, collapse spaces."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold().strip()
    text = re.sub(r"['’]s$", "", text)
    text = re.sub(r"['’]", "", text)
    text = re.sub(r"[^\w\s]|_", " ", text)
    words = text.split()
    if len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    return " ".join(words)


def _content(tokens: Iterable[str]) -> set[str]:
    return {t for t in tokens if t not in STOPWORDS}


def names_match(a: str, b: str) -> bool:
    """Do two *normalized* names denote the same thing (module docstring: equality or the token-containment rule)."""
    if not a or not b:
        return False
    if a == b:
        return True
    ta, tb = a.split(), b.split()
    short, long_ = (ta, tb) if len(set(ta)) <= len(set(tb)) else (tb, ta)
    s_set, l_set = set(short), set(long_)
    if not s_set <= l_set or s_set == l_set:
        return False
    s_content, l_content = _content(short), _content(long_)
    if not s_content or len(s_content) * 2 < len(l_content):
        return False
    if "of" in long_:
        head = _content(long_[:long_.index("of")])
        if head and not (s_content & head):
            return False
    return True


def is_proper(name: str) -> bool:
    """A proper name has a capital letter; only proper names take part in the token rule."""
    return any(ch.isupper() for ch in name)


class NameIndex:
    """Entity ids by normalized name; `find` applies the exact-first lookup of the module docstring."""

    def __init__(self, names_by_entity: dict[Any, Iterable[str]]):
        self.by_name: dict[str, set[Any]] = defaultdict(set)
        self.proper: dict[str, set[Any]] = defaultdict(set)   # the names that may match by the token rule
        for ent, names in names_by_entity.items():
            for name in names:
                norm = normalize(name)
                if norm:
                    self.by_name[norm].add(ent)
                    if is_proper(name):
                        self.proper[norm].add(ent)

    def find(self, gold: str | Iterable[str], *, exact_only: bool = False) -> set[Any]:
        """Entities matching a gold string, or any of a list of alternative gold strings (exact matches of any
        alternative win over token-rule matches of all of them). `exact_only`: no token rule (a sensitivity check)."""
        alternatives = [gold] if isinstance(gold, str) else list(gold)
        norms = [n for n in (normalize(g) for g in alternatives) if n]
        exact = set().union(*(self.by_name.get(n, set()) for n in norms)) if norms else set()
        if exact or exact_only:
            return exact
        proper = [n for g, n in ((g, normalize(g)) for g in alternatives) if n and is_proper(g)]
        found: set[Any] = set()
        for name, ents in self.proper.items():
            if any(names_match(n, name) for n in proper):
                found |= ents
        return found


def parse_triples(text: str) -> list[tuple[str, str, str]]:
    """Gold "(subject, relation, object)" strings: several per string ("(..); (..)", trailing periods), nested
    parentheses inside a part kept. A group with more than three comma-separated parts: the subject runs up to the
    first part that starts lowercase (the relation), the object is everything after it. Groups with fewer than
    three parts are dropped."""
    groups, depth, start = [], 0, None
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
            if depth == 0 and start is not None:
                groups.append(text[start:i])
    out = []
    for group in groups:
        parts = [p.strip() for p in _split_top_level(group)]
        if len(parts) < 3 or not all(parts):
            parts = [p for p in parts if p]
            if len(parts) < 3:
                continue
        if len(parts) == 3:
            out.append((parts[0], parts[1], parts[2]))
            continue
        rel = next((i for i in range(1, len(parts) - 1) if parts[i][:1].islower()), 1)
        out.append((", ".join(parts[:rel]), parts[rel], ", ".join(parts[rel + 1:])))
    return out


def _split_top_level(group: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in group:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def adjacency(edges: Iterable[tuple[Any, Any]]) -> dict[Any, set[Any]]:
    """Undirected adjacency of entity pairs, self-loops dropped."""
    adj: dict[Any, set[Any]] = defaultdict(set)
    for a, b in edges:
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    return adj


def joined(subjects: set[Any], objects: set[Any], adj: dict[Any, set[Any]]) -> bool:
    """Some subject entity and some (other) object entity share an edge, either direction."""
    return any(adj.get(s, set()) & objects for s in subjects)


@dataclass
class Graph:
    index: NameIndex
    adj: dict[str, dict[Any, set[Any]]] = field(default_factory=dict)   # edge set name -> adjacency


def score_triples(triples: list[tuple[str, str, str]], graph: Graph, *, exact_only: bool = False) -> dict[str, Any]:
    """Per gold triple: subject found, object found, both, both and joined (for each edge set of the graph)."""
    rows = []
    for s, r, o in triples:
        se, oe = graph.index.find(s, exact_only=exact_only), graph.index.find(o, exact_only=exact_only)
        row = {"triple": [s, r, o], "subject": bool(se), "object": bool(oe), "both": bool(se and oe)}
        for key, adj in graph.adj.items():
            row[f"edge_{key}"] = bool(se and oe and joined(se, oe, adj))
        rows.append(row)
    keys = ["subject", "object", "both", *[f"edge_{k}" for k in graph.adj]]
    return {"n": len(rows), "rows": rows, **rates(rows, keys)}


def rates(rows: list[dict[str, Any]], keys: list[str]) -> dict[str, Any]:
    n = len(rows)
    out: dict[str, Any] = {k: (round(sum(r[k] for r in rows) / n, 4) if n else None) for k in keys}
    out["hits"] = {k: sum(r[k] for r in rows) for k in keys}
    return out


def score_pairs(pairs: list[dict[str, Any]], graph: Graph, edge_set: str) -> dict[str, Any]:
    """Gold relationships {"a": [names], "b": [names]} present as an edge of `edge_set`."""
    rows = []
    adj = graph.adj[edge_set]
    for p in pairs:
        ae, be = graph.index.find(p["a"]), graph.index.find(p["b"])
        rows.append({"a": p["a"][0], "b": p["b"][0], "a_found": bool(ae), "b_found": bool(be),
                     "edge": bool(ae and be and joined(ae, be, adj))})
    hit = sum(r["edge"] for r in rows)
    misses = []
    for r in rows:
        if not r["edge"]:
            absent = [x for x, found in ((r["a"], r["a_found"]), (r["b"], r["b_found"])) if not found]
            misses.append(f"{r['a']} – {r['b']}" + (f" (not found: {', '.join(absent)})" if absent else ""))
    return {"n": len(rows), "hits": hit, "rate": round(hit / len(rows), 4) if rows else None, "misses": misses,
            "rows": rows}


def judge_types(top: list[dict[str, Any]], gold_entities: list[dict[str, Any]]) -> dict[str, Any]:
    """`top`: [{"label", "names", "type", "mentions"}]; gold: [{"type", "names"}]. An entity is judged by the gold
    entries its names match (exact-first lookup over all its names); none -> "unjudged", counted wrong; entries of
    several types -> "ambiguous", right when its type is one of them."""
    index = NameIndex({i: g["names"] for i, g in enumerate(gold_entities)})
    rows = []
    for ent in top:
        hit = index.find(ent["names"])
        types = sorted({gold_entities[i]["type"] for i in hit})
        if not types:
            verdict, ok = "unjudged", False
        else:
            ok = ent["type"] in types
            verdict = ("right" if ok else "wrong") + (" (ambiguous)" if len(types) > 1 else "")
        rows.append({**ent, "gold": types, "verdict": verdict, "ok": ok})
    right = sum(r["ok"] for r in rows)
    return {"n": len(rows), "right": right, "rate": round(right / len(rows), 4) if rows else None, "rows": rows}


def micro_macro(per_book: dict[str, dict[str, Any]], keys: list[str]) -> dict[str, Any]:
    n = sum(b["n"] for b in per_book.values())
    micro = {k: round(sum(b["hits"][k] for b in per_book.values()) / n, 4) if n else None for k in keys}
    books = [b for b in per_book.values() if b["n"]]
    macro = {k: round(sum(b[k] for b in books) / len(books), 4) if books else None for k in keys}
    return {"n": n, "books": len(books), "micro": micro, "macro": macro}


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

A_KEYS = ["subject", "object", "both", "edge_all", "edge_no_co_mention", "edge_no_interaction"]
L_KEYS = ["subject", "object", "both", "edge_all"]


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


# ---- printing ---------------------------------------------------------------------------------------------------

def _f(x: Any) -> str:
    return "–" if x is None else f"{x:.2f}"


def _tree(m: dict[str, Any]) -> str:
    changed = f" + uncommitted changes in {len(m['git_changed'])} files" if m.get("git_changed") else ""
    return f"git {m['git_head'][:10]}{changed}"


def _top_entry(r: dict[str, Any]) -> str:
    verdict = "" if r["ok"] else f" [{r['verdict']}" + (f": gold {'/'.join(r['gold'])}" if r["gold"] else "") + "]"
    return f"{r['label']} ({r['mentions']}) {r['type']}{verdict}"


def _pooled(parts: list[dict[str, Any]], key: str) -> float | None:
    n = sum(p["n"] for p in parts)
    return round(sum(p[key] for p in parts) / n, 4) if n else None


def _s(build: dict[str, Any]) -> str:
    return "import failed" if build.get("error") else f"{build['build_s']:.1f}"


def print_tables(result: dict[str, Any], base: dict[str, Any] | None) -> None:
    m = result["machine"]
    print(f"\nGraph quality — {m['date']}, {_tree(m)}, {m['cpus']} CPUs, load {m['load_start']} -> {m['load_end']}")
    if base:
        bm = base["machine"]
        print(f"baseline: {bm['date']}, {_tree(bm)}, load {bm['load_start']} -> {bm['load_end']}")
    g = result.get("graphrag")
    bg = (base or {}).get("graphrag") or {}
    if g:
        print("\nA. GraphRAG-Bench Novel: gold evidence triples (unique per book) whose subject / object / both are "
              "graph entities, and both joined by an edge (F = Fabula offline, L = LightRAG gpt-4o-mini; "
              "edge-m = Fabula without 'mentioned with' edges; edge-v = without any interaction relation; "
              "F0 = baseline run)\n")
        head = ("| book | n | build s | F subj | F obj | F both | F edge | F edge-m | F edge-v | L subj | L obj "
                "| L both | L edge |")
        if bg:
            head += " F0 both | F0 edge | F0 build s |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for book, b in g["books"].items():
            f, lr = b["fabula"], b["lightrag"]
            line = (f"| {book} | {f['n']} | {_s(b['build'])} | {_f(f['subject'])} | {_f(f['object'])} | "
                    f"{_f(f['both'])} | {_f(f['edge_all'])} | {_f(f.get('edge_no_co_mention'))} | "
                    f"{_f(f['edge_no_interaction'])} | {_f(lr['subject'])} | {_f(lr['object'])} | {_f(lr['both'])} | "
                    f"{_f(lr['edge_all'])} |")
            if bg:
                bb = bg.get("books", {}).get(book)
                line += (f" {_f(bb['fabula']['both'])} | {_f(bb['fabula']['edge_all'])} | {_s(bb['build'])} |"
                         if bb else " | | |")
            print(line)
        imported = g["overall_imported_only"]["books"]
        for label, books in (("", list(g["books"])), (", imported books", imported)):
            if label and len(books) == len(g["books"]):
                continue
            fab = micro_macro({b: g["books"][b]["fabula"] for b in books}, A_KEYS)
            lrg = micro_macro({b: g["books"][b]["lightrag"] for b in books}, L_KEYS)
            # the baseline over the same books (those it has)
            old = {b: bg["books"][b]["fabula"] for b in books if b in bg.get("books", {})}
            bfab = micro_macro(old, ["both", "edge_all"]) if len(old) == len(books) else None
            for avg in ("micro", "macro"):
                f, lr = fab[avg], lrg[avg]
                line = (f"| **{avg}{label}** | {fab['n']} | | {_f(f['subject'])} | {_f(f['object'])} | "
                        f"{_f(f['both'])} | {_f(f['edge_all'])} | {_f(f['edge_no_co_mention'])} | "
                        f"{_f(f['edge_no_interaction'])} | {_f(lr['subject'])} | {_f(lr['object'])} | "
                        f"{_f(lr['both'])} | {_f(lr['edge_all'])} |")
                if bg:
                    line += f" {_f(bfab[avg]['both'])} | {_f(bfab[avg]['edge_all'])} | |" if bfab else " | | |"
                print(line)
        ex = g.get("overall_exact_names_only")
        if ex:
            f, lr = ex["fabula"]["micro"], ex["lightrag"]["micro"]
            print(f"\nSensitivity, exact (normalized) names only, micro over the books run: "
                  f"Fabula both {_f(f['both'])}, "
                  f"edge {_f(f['edge_all'])}, w/o 'mentioned with' {_f(f['edge_no_co_mention'])}, "
                  f"w/o interactions {_f(f['edge_no_interaction'])}; "
                  f"LightRAG both {_f(lr['both'])}, edge {_f(lr['edge_all'])}")
    nv = result.get("novels")
    bn = ((base or {}).get("novels") or {}).get("books", {})
    if nv:
        print("\nB. Key relationships (bench/gold/relationships.json) present as an edge of the offline graph "
              "(all edges / without 'mentioned with' / without any interaction relation)\n")
        head = "| book | pairs | edge | rate | rate w/o mentioned-with | rate w/o interactions | build s |"
        head += " baseline rate | baseline build s |" if bn else ""
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for book, b in nv["books"].items():
            r = b["relationships"]
            line = (f"| {b['title']} | {r['all']['n']} | {r['all']['hits']} | {_f(r['all']['rate'])} | "
                    f"{_f(r['no_co_mention']['rate'])} | {_f(r['no_interaction']['rate'])} | {_s(b['build'])} |")
            if bn:
                bb = bn.get(book)
                line += (f" {_f(bb['relationships']['all']['rate'])} | {_s(bb['build'])} |" if bb else " | |")
            print(line)
        o = nv["overall"]
        same = [bn[b] for b in nv["books"] if b in bn]   # the baseline over the same books
        print(f"| **all** | {o['relationship_pairs']} | | {_f(o['relationships']['all'])} | "
              f"{_f(o['relationships']['no_co_mention'])} | {_f(o['relationships']['no_interaction'])} | |"
              + (f" {_f(_pooled([b['relationships']['all'] for b in same], 'hits'))} | |" if bn else ""))
        for book, b in nv["books"].items():
            if b["relationships"]["all"]["misses"]:
                print(f"  missed, {b['title']}: " + "; ".join(b["relationships"]["all"]["misses"]))
        print("\nC. The 10 most mentioned entities typed right (bench/gold/types.json; unjudged = not in the gold "
              "list, counted wrong)\n")
        head = "| book | right of 10 | rate |" + (" baseline rate |" if bn else "")
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for book, b in nv["books"].items():
            t = b["types"]
            line = f"| {b['title']} | {t['right']}/{t['n']} | {_f(t['rate'])} |"
            if bn:
                bb = bn.get(book)
                line += f" {_f(bb['types']['rate'])} |" if bb and bb.get("types") else " |"
            print(line)
        print(f"| **all** | | {_f(o['types'])} |"
              + (f" {_f(_pooled([b['types'] for b in same if b.get('types')], 'right'))} |" if bn else ""))
        for book, b in nv["books"].items():
            print(f"  {b['title']}: " + "; ".join(_top_entry(r) for r in b["types"]["rows"]))


# ---- main -------------------------------------------------------------------------------------------------------

def machine_info() -> dict[str, Any]:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30).stdout
        except Exception:  # noqa: BLE001 - machine info is best effort
            return ""
    return {"cpus": os.cpu_count(), "load_start": round(os.getloadavg()[0], 2),
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

"""bench/graph_quality.py's tables: GraphRAG-Bench rates beside LightRAG's, key relationships and types, each with
the baseline run when there is one."""
from __future__ import annotations

from typing import Any

from graph_quality_scoring import A_KEYS, L_KEYS, micro_macro

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

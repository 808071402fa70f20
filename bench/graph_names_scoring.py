"""bench/graph_names.py's scoring, pure and unit-tested (tests/unit/test_bench_graph_names.py): the 10 most mentioned
entities of a graph typed right, their aliases merged, and wrong merges, against a hand-written gold list
(bench/gold/entities/<book>.json).

Gold entity: {"type": "character" | [several types], "names": [aliases]}. An entity of the graph is judged by the gold
entries its names match (bench/graph_quality_scoring.NameIndex: exact normalized names first, else the token rule);
none: "unjudged", counted wrong (a top-10 entity that is no entity a reader would name, "Time" or "Mush", is wrong
whatever its type).

Aliases: for each gold entity matched by a top-10 entity, its gold names that the graph has as a name of some entity
(exact normalized match) are "found"; a found name is "merged" when it belongs to that top-10 entity (the most
mentioned one, if several top-10 entities match it). Rate = merged / found, pooled over the book's top 10.
Wrong merge: one graph entity (any, not only the top 10) holding exact names of two gold entities that share no name
("Mr. March" with "Mrs. March", "Sol-leks" with "Spitz").
"""
from __future__ import annotations

from typing import Any

from graph_quality_scoring import NameIndex, normalize


def gold_types(entry: dict[str, Any]) -> list[str]:
    kind = entry["type"]
    return [kind] if isinstance(kind, str) else list(kind)


def judge_top(top: list[dict[str, Any]], gold: list[dict[str, Any]]) -> dict[str, Any]:
    """`top`: [{"id", "label", "names", "type", "mentions"}], most mentioned first. Per entity: the gold entries it
    matches, its verdict, and whether its type is one the gold allows."""
    index = NameIndex({i: g["names"] for i, g in enumerate(gold)})
    rows = []
    for ent in top:
        hit = sorted(index.find(ent["names"]))
        allowed = sorted({t for i in hit for t in gold_types(gold[i])})
        ok = bool(allowed) and ent["type"] in allowed
        verdict = "unjudged" if not hit else "right" if ok else "wrong"
        rows.append({**ent, "gold": hit, "gold_types": allowed, "verdict": verdict, "ok": ok})
    right = sum(r["ok"] for r in rows)
    return {"n": len(rows), "right": right, "rate": round(right / len(rows), 4) if rows else None, "rows": rows}


def alias_merges(top_rows: list[dict[str, Any]], entities: list[dict[str, Any]],
                 gold: list[dict[str, Any]]) -> dict[str, Any]:
    """Merged share of the found gold names of the gold entities the top 10 match (module docstring). `entities`:
    every entity of the graph, [{"id", "names", "mentions"}]."""
    owners: dict[str, set[Any]] = {}
    for e in entities:
        for name in e["names"]:
            owners.setdefault(normalize(name), set()).add(e["id"])
    home: dict[int, Any] = {}
    for row in top_rows:                       # most mentioned first: the first top-10 entity matching a gold entry
        for g in row["gold"]:
            home.setdefault(g, row["id"])
    found = merged = 0
    missed: list[str] = []
    for g, entity_id in sorted(home.items()):
        seen: set[str] = set()
        for name in gold[g]["names"]:
            norm = normalize(name)
            if not norm or norm in seen or norm not in owners:
                continue
            seen.add(norm)
            found += 1
            if entity_id in owners[norm]:
                merged += 1
            else:
                missed.append(f"{gold[g]['names'][0]} ~ {name}")
    return {"found": found, "merged": merged, "rate": round(merged / found, 4) if found else None, "missed": missed}


def wrong_merges(entities: list[dict[str, Any]], gold: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entities holding exact names of two gold entries that share no name (module docstring)."""
    by_name: dict[str, set[int]] = {}
    for i, g in enumerate(gold):
        for name in g["names"]:
            by_name.setdefault(normalize(name), set()).add(i)
    norms = [{normalize(n) for n in g["names"]} for g in gold]
    out = []
    for e in entities:
        hits: dict[int, str] = {}
        for name in e["names"]:
            for i in by_name.get(normalize(name), ()):
                hits.setdefault(i, name)
        distinct = sorted(hits)
        clash = [(a, b) for k, a in enumerate(distinct) for b in distinct[k + 1:] if not norms[a] & norms[b]]
        if clash:
            a, b = clash[0]
            out.append({"id": e.get("id"), "label": e.get("label", ""), "names": [hits[a], hits[b]],
                        "gold": [gold[a]["names"][0], gold[b]["names"][0]]})
    return out

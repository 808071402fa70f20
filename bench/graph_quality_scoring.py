"""bench/graph_quality.py's scoring, pure and unit-tested (tests/unit/test_bench_graph_quality.py): name
normalization and matching (the rule is described in graph_quality.py's docstring), gold-triple parsing, the
entity / edge rates, key relationships, type judgments and micro/macro averages."""
from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

A_KEYS = ["subject", "object", "both", "edge_all", "edge_no_co_mention", "edge_no_interaction"]
L_KEYS = ["subject", "object", "both", "edge_all"]

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

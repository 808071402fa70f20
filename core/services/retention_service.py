"""Retention use cases: which characters and relationships a work keeps, chapter by chapter (Remember Me paper),
dropped threads, the comparison of two works (or two groups of works) and CSV export.

Parsing is the slow part, so each chapter's extraction is stored with `store.put_analysis(..., "retention",
chapter.revision, payload)` as soon as it is done, and reused while the chapter's revision is unchanged: editing
one chapter re-parses only that chapter, and an interrupted run resumes where it stopped. Resolving aliases and
counting relationships are redone on every call (milliseconds), so they always reflect the whole work.
"""
from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.domain import ChapterInfo
from core.kg.characters import chapter_characters, character_resolver
from core.kg.types import KgEntity
from core.metrics.aliases import AliasResolver, build_default_resolver, clean_surface
from core.metrics.cooccurrence import DEFAULT_WINDOW, Pair, count_chapter, surface_counts
from core.metrics.extract import ANALYSIS_KIND, ChapterMentions, extract_chapters, load_nlp
from core.metrics.retention import (METRIC_LABELS, METRICS, DroppedThread, Presence, RetentionRow, dropped_threads,
                                    presence_matrix, retention_series)
from core.metrics.stats import Summary, TestResult, compare
from core.store import Store
from core.wording import counted

if TYPE_CHECKING:
    from spacy.language import Language

KINDS = ("characters", "relationships")
ProgressFn = Callable[[int, int, str], None]


@dataclass(frozen=True)
class RetentionParams:
    """How relationships are counted (see core.metrics.cooccurrence); changing them needs no re-parsing."""

    window_sentences: int = DEFAULT_WINDOW
    verb_links: bool = True
    min_pair_count: int = 1


@dataclass
class ChapterRetention:
    index: int
    title: str
    characters: RetentionRow
    relationships: RetentionRow
    character_counts: Counter[str] = field(default_factory=Counter)
    relationship_counts: Counter[Pair] = field(default_factory=Counter)

    @property
    def names(self) -> list[str]:
        """Characters present, most mentioned first."""
        return [n for n, _ in sorted(self.character_counts.items(), key=lambda kv: (-kv[1], kv[0]))]

    @property
    def pairs(self) -> list[Pair]:
        return [p for p, _ in sorted(self.relationship_counts.items(), key=lambda kv: (-kv[1], kv[0]))]

    def row(self, kind: str) -> RetentionRow:
        return self.characters if kind == "characters" else self.relationships


@dataclass
class WorkRetention:
    work_id: int
    title: str
    chapters: list[ChapterRetention]
    recomputed: list[int] = field(default_factory=list)  # chapters parsed by this call; the rest were cached
    from_graph: bool = False    # characters are the knowledge graph's (core.kg.characters); else spaCy's PERSON names

    def counts(self, kind: str) -> list[Counter[Any]]:
        return [c.character_counts if kind == "characters" else c.relationship_counts for c in self.chapters]

    def values(self, kind: str, metric: str) -> list[float]:
        """One metric's defined per-chapter values (undefined ratios left out, as in the paper's n)."""
        return [v for c in self.chapters if (v := getattr(c.row(kind), metric)) is not None]

    def presence(self, kind: str = "characters", top: int | None = None) -> Presence:
        return presence_matrix(self.counts(kind), [c.index for c in self.chapters], top)

    def dropped(self, k: int, kind: str = "characters", min_chapters: int = 3,
                min_mentions: int = 10) -> list[DroppedThread]:
        return dropped_threads(self.counts(kind), [c.index for c in self.chapters], k, min_chapters, min_mentions)

    def to_json(self) -> dict[str, Any]:
        """The CLI's `retention --json` document."""
        return {"work_id": self.work_id, "title": self.title, "chapters": [
            {"index": c.index, "title": c.title,
             "characters": {**c.characters.as_dict(), "names": c.names},
             "relationships": {**c.relationships.as_dict(), "pairs": [list(p) for p in c.pairs]}}
            for c in self.chapters]}


def stale_chapters(store: Store, work_id: int) -> list[int]:
    """Chapters whose stored extraction is missing, from an older revision, or from another extractor version."""
    cached = store.get_analyses(work_id, ANALYSIS_KIND)
    return [c.index for c in store.list_chapters(work_id) if _cached(cached, c) is None]


def _cached(cached: dict[int, tuple[int, dict[str, Any]]], chapter: ChapterInfo) -> ChapterMentions | None:
    entry = cached.get(chapter.index)
    if entry is None or entry[0] != chapter.revision:
        return None
    return ChapterMentions.from_payload(entry[1])


def extract_work(store: Store, work_id: int, nlp: Language | None = None,
                 on_progress: ProgressFn | None = None) -> tuple[list[ChapterInfo], list[ChapterMentions], list[int]]:
    """Every chapter's extraction, parsing (and storing, one chapter at a time) only the stale ones.

    Returns the chapters, their extractions in the same order, and the indices that were parsed now.
    """
    report = on_progress or (lambda done, total, msg: None)
    chapters = store.list_chapters(work_id)
    cached = store.get_analyses(work_id, ANALYSIS_KIND)
    extractions = {c.index: e for c in chapters if (e := _cached(cached, c)) is not None}
    stale = [c for c in chapters if c.index not in extractions]
    if stale:
        report(0, len(stale), f"Reading {counted(len(stale), 'chapter')} for characters and relationships")
        # the text is fetched lazily, one chapter at a time, as the parser asks for it
        texts = ((c, store.get_chapter(work_id, c.index).text) for c in stale)
        parsed = extract_chapters(texts, nlp if nlp is not None else load_nlp())
        for done, (info, extraction) in enumerate(parsed, start=1):
            store.put_analysis(work_id, info.index, ANALYSIS_KIND, info.revision, extraction.to_payload())
            extractions[info.index] = extraction
            report(done, len(stale), f"Chapter {info.index}: {info.title}")
    return chapters, [extractions[c.index] for c in chapters], [c.index for c in stale]


def graph_entities(store: Store, work_id: int) -> list[KgEntity]:
    """The work's graph entities, read through `kg_entities(work_id)` (core.kg.store.KgStore, which the SQL store
    implements) when the store offers it; [] when the work has no graph."""
    kg_entities = getattr(store, "kg_entities", None)
    return list(kg_entities(work_id)) if callable(kg_entities) else []


def persons_only(resolve: AliasResolver, extractions: Sequence[ChapterMentions]) -> AliasResolver:
    """`resolve` for the surface forms spaCy labelled PERSON somewhere in the work; None for every other name."""
    persons = set().union(*(e.persons() for e in extractions)) if extractions else set()
    return lambda surface: resolve(surface) if surface in persons else None


def resolver_for_work(store: Store, work_id: int, extractions: Sequence[ChapterMentions]) -> AliasResolver:
    """The alias resolver used when the caller gives none. With a knowledge graph: the graph's characters
    (core.kg.characters, the Graph page's definition), and nothing else. Without one: spaCy's PERSON names grouped
    by the default name-shape heuristic (the paper's NER characters)."""
    entities = graph_entities(store, work_id)
    if entities:
        return character_resolver(entities, clean_surface)
    return persons_only(build_default_resolver(surface_counts(list(extractions))), extractions)


def analyse_work(store: Store, work_id: int, params: RetentionParams | None = None,
                 resolver: AliasResolver | None = None, nlp: Language | None = None,
                 on_progress: ProgressFn | None = None) -> WorkRetention:
    """The five metrics for characters and relationships, per chapter, for one work.

    With a knowledge graph (and no `resolver` given), the characters of each chapter are the graph's characters with
    the graph's mention counts (core.kg.characters.chapter_characters), so Retention and the Graph page name the
    same characters; relationships are the co-occurrences and verb links of their names. A given `resolver` (a bench
    comparing works with one heuristic) decides alone, over the PERSON names."""
    params = params or RetentionParams()
    work = store.get_work(work_id)
    chapters, extractions, parsed = extract_work(store, work_id, nlp, on_progress)
    entities = graph_entities(store, work_id) if resolver is None else []
    resolve = persons_only(resolver, extractions) if resolver else resolver_for_work(store, work_id, extractions)
    counts = [count_chapter(e, resolve, params.window_sentences, params.verb_links, params.min_pair_count)
              for e in extractions]
    if entities:
        per_chapter = chapter_characters(entities, store.kg_name_counts(work_id))
        for info, c in zip(chapters, counts):
            c.characters = Counter(per_chapter.get(info.index, {}))
    char_rows = retention_series([set(c.characters) for c in counts])
    rel_rows = retention_series([set(c.relationships) for c in counts])
    return WorkRetention(work_id=work.id, title=work.title, recomputed=parsed, from_graph=bool(entities), chapters=[
        ChapterRetention(index=info.index, title=info.title, characters=cr, relationships=rr,
                         character_counts=c.characters, relationship_counts=c.relationships)
        for info, c, cr, rr in zip(chapters, counts, char_rows, rel_rows)])


def table_rows(result: WorkRetention) -> list[dict[str, Any]]:
    """One flat row per chapter (the CSV and the CLI's text output)."""
    rows = []
    for c in result.chapters:
        row: dict[str, Any] = {"chapter": c.index, "title": c.title}
        for kind in KINDS:
            row.update({f"{kind}_{m}": getattr(c.row(kind), m) for m in METRICS})
        row["characters_names"] = "; ".join(c.names)
        rows.append(row)
    return rows


def _csv(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in rows)
    return buffer.getvalue()


def retention_csv(result: WorkRetention) -> str:
    return _csv(table_rows(result))


@dataclass(frozen=True)
class ComparisonRow:
    kind: str
    metric: str
    label: str
    a: Summary
    b: Summary
    test: TestResult

    @property
    def stars(self) -> str:
        """The paper's marks: * p < 0.05, ** p < 0.01."""
        p = self.test.p
        return "" if p is None else "**" if p < 0.01 else "*" if p < 0.05 else ""


@dataclass
class Comparison:
    label_a: str
    label_b: str
    rows: list[ComparisonRow]

    def table(self, kind: str) -> list[dict[str, Any]]:
        """One of the paper's tables (1: characters, 2: relationships) as rows."""
        return [{"Metric": r.label + r.stars, "M (A)": r.a.mean, "SD (A)": r.a.sd, "n (A)": r.a.n,
                 "M (B)": r.b.mean, "SD (B)": r.b.sd, "n (B)": r.b.n, "t": r.test.t, "p": r.test.p,
                 "Cohen's d": r.test.d} for r in self.rows if r.kind == kind]

    def to_json(self) -> dict[str, Any]:
        def summary(s: Summary) -> dict[str, Any]:
            return {"mean": s.mean, "sd": s.sd, "n": s.n}
        return {"a": self.label_a, "b": self.label_b, "metrics": [
            {"kind": r.kind, "metric": r.metric, "label": r.label, "a": summary(r.a), "b": summary(r.b),
             "t": r.test.t, "p": r.test.p, "d": r.test.d} for r in self.rows]}

    def csv(self) -> str:
        return _csv([{"kind": kind, **row} for kind in KINDS for row in self.table(kind)])


def _label(kind: str, metric: str) -> str:
    noun = "Characters" if kind == "characters" else "Relationships"
    return f"{METRIC_LABELS[metric]} {noun}" if metric in ("total", "new") else METRIC_LABELS[metric]


def compare_results(group_a: Sequence[WorkRetention], group_b: Sequence[WorkRetention]) -> Comparison:
    """Tables 1-2 for two groups of analysed works: each metric's chapters pooled per group (the paper pools
    270 chapters of 50 KG stories against 231 of 50 no-KG stories)."""
    rows = []
    for kind in KINDS:
        for metric in METRICS:
            a = [v for r in group_a for v in r.values(kind, metric)]
            b = [v for r in group_b for v in r.values(kind, metric)]
            sa, sb, test = compare(a, b)
            rows.append(ComparisonRow(kind, metric, _label(kind, metric), sa, sb, test))
    return Comparison(label_a=" + ".join(r.title for r in group_a), label_b=" + ".join(r.title for r in group_b),
                      rows=rows)


def compare_works(store: Store, group_a: int | Sequence[int], group_b: int | Sequence[int],
                  params: RetentionParams | None = None, nlp: Language | None = None,
                  on_progress: ProgressFn | None = None) -> Comparison:
    """Compare two works, or two groups of works (e.g. stories written with and without the knowledge graph)."""
    def analyse(group: int | Sequence[int]) -> list[WorkRetention]:
        ids = [group] if isinstance(group, int) else list(group)
        return [analyse_work(store, i, params, nlp=nlp, on_progress=on_progress) for i in ids]
    return compare_results(analyse(group_a), analyse(group_b))

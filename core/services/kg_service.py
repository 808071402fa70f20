"""Knowledge-graph use cases: build (resumable, per chapter), update one chapter, resolve aliases, user decisions.

    report = build_graph(store, work_id, on_progress=cb)                 # offline, the default
    build_graph(store, work_id, extractor="llm", llm_name="openai:gpt-4o-mini")   # built by llm_service
    update_chapter_graph(store, work_id, 12)                             # after chapter 12 was added or edited
    merge_entities(store, work_id, [3, 17]); split_entity(...); rename_entity(...)

Each chapter's extraction is committed on its own and the job's state names the next chapter, so a build that is
killed (or whose progress callback raises) resumes where it stopped and ends with the same graph: entities are
derived afterwards from everything stored, deterministically. `store` must implement both core.store.Store and
core.kg.store.KgStore (storage.repository.SqlStore does).
"""
from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from core.continuity.model import State
from core.kg.grapher import GrapherExtractor, KnownGraph, node_id
from core.kg.llm_extract import LLMExtractor
from core.kg.offline import VERSION as OFFLINE_VERSION
from core.kg.offline import ChapterText, OfflineExtractor
from core.kg.identity import assign_ids
from core.kg.resolve import MergeGuards, Resolution, ResolutionInput, resolve
from core.kg.types import EXTRACTORS, INTERACTION_RELATIONS, NODE_TYPES, ChapterExtraction, KgEntity
from core.llm import LLM, CostEstimate, MeteredLLM
from core.metrics.extract import ANALYSIS_KIND as RETENTION_KIND
from core.metrics.extract import read_docs
from core.services import continuity_service
from core.services.jobs import JobRunner, ProgressFn, StopFn, unfinished
from core.store import NotFound, Store

JOB_KIND = "kg_build"


class KgError(ValueError):
    """A graph request that cannot be carried out (unknown extractor, missing LLM, bad merge or split)."""


@dataclass
class BuildReport:
    work_id: int
    extractor: str
    chapters: int
    extracted: int
    resumed: bool
    entities: int
    edges: int
    facts: int
    mentions: int
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)  # build_graph: all stored chapters' counters, refusals

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def make_extractor(name: str, *, llm: LLM | None = None, nlp: Any = None, n_process: int = 1) -> Any:
    if name not in EXTRACTORS:
        raise KgError(f"Unknown extractor '{name}'; choose one of {', '.join(EXTRACTORS)}.")
    if name == "offline":   # the Retention page's mentions from the same parse (stored by build_graph)
        return OfflineExtractor(nlp=nlp, n_process=n_process,
                                also={RETENTION_KIND: lambda docs: read_docs(docs).to_payload()})
    if llm is None:
        raise KgError(f"The '{name}' extractor needs an LLM (pass --llm PROVIDER:MODEL or choose one in Settings).")
    return LLMExtractor(llm) if name == "llm" else GrapherExtractor(llm)


def _chapter_texts(store: Store, work_id: int, indices: Sequence[int]) -> list[ChapterText]:
    wanted = set(indices)
    chunks: dict[int, list[str]] = defaultdict(list)
    for chunk in store.list_chunks(work_id, upto_chapter=max(wanted) if wanted else 0):
        if chunk.chapter_index in wanted:
            chunks[chunk.chapter_index].append(chunk.text)
    return [ChapterText(i, chunks.get(i, [])) for i in sorted(wanted)]


def resolution_input(store: Store, work_id: int, upto_chapter: int | None = None) -> ResolutionInput:
    return ResolutionInput(store.kg_name_counts(work_id, upto_chapter), store.kg_name_edges(work_id, upto_chapter),
                           store.kg_aliases(work_id, upto_chapter), store.kg_decisions(work_id))


def resolve_entities(store: Store, work_id: int, guards: MergeGuards | None = None) -> Resolution:
    """Re-derive the work's entities from every stored chapter and the user's decisions (ids kept where the
    same names persist)."""
    result = resolve(resolution_input(store, work_id), guards)
    ids = assign_ids(result.clusters, store.kg_entities(work_id))
    store.kg_save_entities(work_id, list(zip(ids, result.clusters)))
    return result


def known_graph(store: Store, work_id: int, upto_chapter: int) -> KnownGraph:
    """The canonical entities and relationships as of `upto_chapter` (the grapher's reconciliation block)."""
    if upto_chapter < 1:
        return KnownGraph()
    clusters = sorted(resolve(resolution_input(store, work_id, upto_chapter)).clusters, key=lambda c: -c.mentions)
    ids: dict[str, str] = {}
    entities: list[tuple[str, str, str]] = []
    for c in clusters:
        nid = node_id(c.label)
        if nid in {e[0] for e in entities}:
            nid = f"{nid}_{len(entities)}"
        entities.append((nid, c.label, c.type))
        ids.update({n.name: nid for n in c.names})
    rels = []
    for t in store.kg_triples(work_id, upto_chapter, kind="edges")[-200:]:
        a, b = ids.get(t.subject_name or ""), ids.get(t.object_name or "")
        if a and b and a != b and t.relation not in INTERACTION_RELATIONS:
            rels.append((a, b, t.relation))
    rels = list(dict.fromkeys(reversed(rels)))[:60]
    return KnownGraph(entities, rels)


def _outdated(store: Store, work_id: int, done: dict[int, tuple[int, str]]) -> set[int]:
    """Chapters read by an older version of the offline extractor (see core.kg.offline.VERSION)."""
    stats = store.kg_chapter_stats(work_id)
    offline = {i for i, (_, name) in done.items() if name == "offline"}
    # and those whose story states (issue 32) are missing or from another state extractor: the same parse reads them
    return {i for i in offline if stats.get(i, {}).get("version") != OFFLINE_VERSION} | (
        offline & continuity_service.stale_chapters(store, work_id))


def _needs_extraction(store: Store, work_id: int, extractor: str, force: bool) -> list[int]:
    done = store.kg_extracted_chapters(work_id)
    outdated = _outdated(store, work_id, done) if extractor == "offline" else set()
    return [c.index for c in store.list_chapters(work_id)
            if force or done.get(c.index) != (c.revision, extractor) or c.index in outdated]


def build_graph(store: Store, work_id: int, *, extractor: str = "offline", llm: LLM | None = None,
                llm_name: str | None = None, nlp: Any = None, n_process: int = 1, force: bool = False,
                resume: bool = True,
                on_progress: ProgressFn | None = None, should_stop: StopFn | None = None) -> BuildReport:
    """Extract every chapter that is new, edited or from another extractor (all of them with `force`), committing
    each; then resolve aliases. An unfinished earlier build of the same extractor is resumed from its next chapter.

    A chapter saved while the build runs is not marked as read from its old text: its extraction is dropped and the
    chapter is read again at the end (once; if it changes yet again it stays pending, `stats["changed_during_build"]`).
    A build that fails midway keeps the finished chapters and resolves their entities, so the graph so far is shown;
    so does one that `should_stop()` ends between chapters (it raises jobs.JobStopped and resumes like a failed one)."""
    started = time.perf_counter()
    store.get_work(work_id)
    runner = JobRunner(store, work_id, JOB_KIND, on_progress=on_progress, should_stop=should_stop)
    job = runner.resumable(lambda state: state.get("extractor") == extractor) if resume else None
    force = bool(job.state.get("force", force)) if job else force
    start = int(job.state.get("next_chapter", 1)) if job else 1
    todo = [i for i in _needs_extraction(store, work_id, extractor, force) if i >= start]
    llm = _extraction_llm(store, work_id, extractor, llm, llm_name)  # a missing key fails here, before any job
    run = runner.start(len(todo), None if job else {"extractor": extractor, "force": force, "next_chapter": 1,
                                                     "llm": llm_name}, resume=job)
    engine = make_extractor(extractor, llm=None if llm is None else run.metered(llm, "extraction"), nlp=nlp,
                            n_process=n_process)
    timings: defaultdict[str, float] = defaultdict(float)  # seconds per stage
    stored = 0

    def extract(indices: list[int], done: int, total: int, track: bool) -> list[int]:
        """Extract and store `indices`; the chapters saved meanwhile (not stored) are returned."""
        nonlocal stored
        changed: list[int] = []
        revisions = _revisions(store, work_id)  # read before the texts: a save in between is caught, never missed
        stream = engine.extract(_chapter_texts(store, work_id, indices),
                                known=lambda index: known_graph(store, work_id, index - 1))
        for done, extraction in enumerate(_timed(run.each(stream, len(indices)), timings, "extract"), start=done + 1):
            t0 = time.perf_counter()
            index = extraction.chapter_index
            states = continuity_service.located_states(store, work_id, extraction, revisions.get(index))
            if _store_chapter(store, work_id, extraction, extractor, revisions.get(index), states):
                stored += 1
                note = f"{extraction.stats.get('edges', 0)} edges, {extraction.stats.get('facts', 0)} facts"
            else:
                changed.append(index)
                note = "changed while it was read; it is read again"
            run.advance(done, {"next_chapter": index + 1} if track else None)
            timings["store"] += time.perf_counter() - t0
            run.report(done, total, f"Chapter {index}: {note}")
        return changed

    try:
        with run:
            run.report(0, len(todo), f"{len(todo)} chapters to read" if todo
                       else "Every chapter is already in the graph")
            changed = extract(todo, 0, len(todo), track=True)
            if changed:  # saved during the build: their new text, once
                changed = extract(changed, len(todo), len(todo) + len(changed), track=False)
            t0 = time.perf_counter()
            result = resolve_entities(store, work_id)
            timings["resolve"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            continuity_service.check_work(store, work_id)   # issue 32: flags from the states just stored
            timings["continuity"] = time.perf_counter() - t0
            stats = ({k: int(v) for k, v in _stored_totals(store, work_id).items()}
                     | {f"refused_{k}": v for k, v in result.refused.items()}
                     | ({"changed_during_build": len(changed)} if changed else {}))
            store.kg_set_state(work_id, extractor=extractor, llm=llm_name, chapters=len(store.list_chapters(work_id)),
                               stats=stats)
            run.finish(len(todo))
    except Exception:  # an error or a stop, not an interruption: show what is finished
        if stored:
            with suppress(Exception):  # the build's own error is the one to report
                resolve_entities(store, work_id)
        raise
    counts = graph_counts(store, work_id)
    run.report(len(todo), len(todo), f"{counts['entities']} entities, {counts['edges']} edges, {counts['facts']} facts")
    return BuildReport(work_id, extractor, len(store.list_chapters(work_id)), stored, run.resumed, counts["entities"],
                       counts["edges"], counts["facts"], counts["mentions"], round(time.perf_counter() - started, 3),
                       {k: round(v, 3) for k, v in timings.items()}, stats)


def _store_chapter(store: Store, work_id: int, extraction: ChapterExtraction, extractor: str, revision: int | None,
                   states: tuple[str, list[State]] | None) -> bool:
    """Replace the chapter's contribution to the graph (False: it was saved again while it was read), and keep what
    other readers took from the same parse (the Retention page's mentions) beside it, for that revision."""
    if not store.kg_replace_chapter(work_id, extraction, extractor, revision=revision, states=states):
        return False
    if revision is not None:
        for kind, payload in extraction.extra.items():
            store.put_analysis(work_id, extraction.chapter_index, kind, revision, payload)
    return True


def _stored_totals(store: Store, work_id: int) -> Counter[str]:
    """The extraction counters of every chapter in the graph, as stored with each chapter's extraction (in its
    transaction). Summed from the store, not from this run, so a build that was killed and resumed, or run again,
    records the same stats as one uninterrupted build (a resumed run's own counters miss the chapters stored before)."""
    totals: Counter[str] = Counter()
    for stats in store.kg_chapter_stats(work_id).values():
        totals.update({k: v for k, v in stats.items() if isinstance(v, int)})
    return totals


def _revisions(store: Store, work_id: int) -> dict[int, int]:
    return {c.index: c.revision for c in store.list_chapters(work_id)}


def _timed(stream: Any, timings: dict[str, float], key: str) -> Any:
    iterator = iter(stream)
    while True:
        t0 = time.perf_counter()
        try:
            item = next(iterator)
        except StopIteration:
            return
        finally:
            timings[key] += time.perf_counter() - t0
        yield item


def _extraction_llm(store: Store, work_id: int, extractor: str, llm: LLM | None,
                    llm_name: str | None) -> MeteredLLM | None:
    """The extraction model, metered: an injected one (tests, fakes) or the one llm_service.build_llm makes for
    `llm_name` (None: the extraction role's setting). None for the offline extractor."""
    from core.services import llm_service
    if extractor == "offline":
        return None
    if llm is None:
        return llm_service.build_llm(store, "extraction", llm_name, work_id=work_id)
    if isinstance(llm, MeteredLLM):  # already metered (the writer's model): record under this role, once
        return llm.with_context(role="extraction", work_id=work_id)
    return llm_service.metered(store, llm, "extraction", work_id=work_id)


def update_chapter_graph(store: Store, work_id: int, chapter_index: int, *, extractor: str | None = None,
                         llm: LLM | None = None, llm_name: str | None = None, nlp: Any = None) -> BuildReport:
    """Re-extract one chapter (just added or edited) with the work's extractor, replacing only that chapter's
    contribution, then re-resolve. Other chapters are not parsed again."""
    started = time.perf_counter()
    state = store.kg_state(work_id)
    name = extractor or (state.extractor if state else "offline")
    store.get_chapter(work_id, chapter_index)
    llm = _extraction_llm(store, work_id, name, llm, llm_name or (state.llm if state else None))
    engine = make_extractor(name, llm=llm, nlp=nlp)
    before = store.states_list(work_id, chapter=chapter_index)   # what the continuity re-check compares with
    t0 = time.perf_counter()
    for _attempt in range(2):  # a save of the chapter while it was read: read its new text, once
        revision = _revisions(store, work_id).get(chapter_index)
        (extraction,) = list(engine.extract(_chapter_texts(store, work_id, [chapter_index]),
                                            known=lambda index: known_graph(store, work_id, index - 1)))
        t1 = time.perf_counter()
        states = continuity_service.located_states(store, work_id, extraction, revision)
        if _store_chapter(store, work_id, extraction, name, revision, states):
            break
    t2 = time.perf_counter()
    result = resolve_entities(store, work_id)
    t3 = time.perf_counter()
    continuity_service.recheck_chapter(store, work_id, chapter_index, before)   # this chapter and those it touches
    t4 = time.perf_counter()
    counts = graph_counts(store, work_id)
    chapters = len(store.list_chapters(work_id))
    store.kg_set_state(work_id, extractor=name, llm=state.llm if state else None, chapters=chapters,
                       stats=dict(state.stats) if state else {})
    return BuildReport(work_id, name, chapters, 1, False, counts["entities"], counts["edges"], counts["facts"],
                       counts["mentions"], round(time.perf_counter() - started, 3),
                       {"extract": round(t1 - t0, 3), "store": round(t2 - t1, 3), "resolve": round(t3 - t2, 3),
                        "continuity": round(t4 - t3, 3)},
                       {f"refused_{k}": v for k, v in result.refused.items()} | extraction.stats)


@dataclass
class GraphStatus:
    built: bool
    extractor: str | None
    chapters: int            # chapters in the work
    extracted: int           # chapters whose current revision is in the graph
    pending: list[int]       # chapters new or edited since their extraction
    unfinished_job: bool     # a build stopped midway and can be resumed
    outdated: list[int] = field(default_factory=list)   # read by an older offline extractor: the next build re-reads

    @property
    def up_to_date(self) -> bool:
        return self.built and not self.pending and not self.outdated


def graph_status(store: Store, work_id: int) -> GraphStatus:
    state = store.kg_state(work_id)
    chapters = store.list_chapters(work_id)
    done = store.kg_extracted_chapters(work_id)
    extractor = state.extractor if state else None
    pending = [c.index for c in chapters if done.get(c.index, (None, None))[0] != c.revision]
    outdated = sorted(_outdated(store, work_id, done) - set(pending))
    return GraphStatus(bool(done) and bool(store.kg_entities(work_id)), extractor, len(chapters),
                       len(chapters) - len(pending), pending, unfinished(store.latest_job(work_id, JOB_KIND)), outdated)


def graph_counts(store: Store, work_id: int) -> dict[str, int]:
    entities = store.kg_entities(work_id)
    triples = store.kg_triples(work_id)
    edges = sum(1 for t in triples if t.subject_name or t.object_name)
    return {"entities": len(entities), "edges": edges, "facts": len(triples) - edges,
            "mentions": sum(e.mentions for e in entities)}


# ---- user decisions ----------------------------------------------------------------------------------------------

def find_entity(store: Store, work_id: int, ref: str | int) -> KgEntity:
    """An entity by id, or by a label or name (case-insensitive)."""
    entities = store.kg_entities(work_id)
    text = str(ref).strip()
    if text.lstrip("e").isdigit():
        wanted = int(text.lstrip("e"))
        for e in entities:
            if e.id == wanted:
                return e
    low = text.lower()
    for e in sorted(entities, key=lambda e: -e.mentions):
        if e.label.lower() == low or any(n.name.lower() == low for n in e.names):
            return e
    raise NotFound(f"No entity '{text}' in work {work_id}.")


def merge_entities(store: Store, work_id: int, refs: Sequence[str | int]) -> KgEntity:
    """Make two or more entities one; the decision is stored by their names and outlives re-extraction."""
    entities = list({e.id: e for e in (find_entity(store, work_id, r) for r in refs)}.values())
    if len(entities) < 2:
        raise KgError("Choose at least two different entities to merge.")
    names = [n.name for e in entities for n in e.names]
    store.kg_add_decision(work_id, "merge", {"names": names, "labels": [e.label for e in entities]})
    resolve_entities(store, work_id)
    return find_entity(store, work_id, names[0])


def split_entity(store: Store, work_id: int, ref: str | int, names: Sequence[str]) -> tuple[KgEntity, KgEntity]:
    """Move `names` out of an entity into a new one; they will never be merged back automatically."""
    entity = find_entity(store, work_id, ref)
    own = [n.name for n in entity.names]
    moved = [n for n in own if n in set(names)]
    unknown = sorted(set(names) - set(own))
    if unknown:
        raise KgError(f"{', '.join(unknown)} is not a name of '{entity.label}' (its names: {', '.join(own)}).")
    rest = [n for n in own if n not in moved]
    if not moved or not rest:
        raise KgError("A split must leave at least one name on each side.")
    store.kg_add_decision(work_id, "split", {"names": moved, "rest": rest})
    resolve_entities(store, work_id)
    return find_entity(store, work_id, rest[0]), find_entity(store, work_id, moved[0])


def rename_entity(store: Store, work_id: int, ref: str | int, label: str) -> KgEntity:
    label = " ".join(label.split())
    if not label:
        raise KgError("The new name is empty.")
    entity = find_entity(store, work_id, ref)
    store.kg_add_decision(work_id, "rename", {"names": [n.name for n in entity.names], "label": label[:300]})
    resolve_entities(store, work_id)
    return find_entity(store, work_id, entity.names[0].name)


def retype_entity(store: Store, work_id: int, ref: str | int, node_type: str) -> KgEntity:
    """Give an entity another node type ("character", "location", ...); stored by its names, like a rename, so it
    outlives re-extraction."""
    wanted = node_type.strip().lower()
    if wanted not in NODE_TYPES:
        raise KgError(f"Unknown type '{node_type}'; choose one of {', '.join(NODE_TYPES)}.")
    entity = find_entity(store, work_id, ref)
    store.kg_add_decision(work_id, "retype", {"names": [n.name for n in entity.names], "type": wanted})
    resolve_entities(store, work_id)
    return find_entity(store, work_id, entity.names[0].name)


# A rough per-chapter cost model for the LLM extractors, shown before a build: the chapter's text at ~1.35 tokens
# per word plus the prompt's instructions once per ~1,500-word segment, and about 350 output tokens per segment
# (entities with aliases and up to 15 edges).
TOKENS_PER_WORD = 1.35
PROMPT_TOKENS_PER_SEGMENT = 600
OUTPUT_TOKENS_PER_SEGMENT = 350
SEGMENT_WORDS = 1500


def llm_build_estimate(store: Store, work_id: int, force: bool = False, role: str = "extraction") -> CostEstimate:
    """Tokens and price of an LLM build of the chapters a build would (re)read, before anything is spent: its units
    are chapters, its calls segments."""
    from core.services import llm_service
    name = llm_service.resolve_llm_name(store, role)
    status = graph_status(store, work_id)
    wanted = set(range(1, status.chapters + 1)) if force else set(status.pending)
    chapters = [c for c in store.list_chapters(work_id) if c.index in wanted]
    segments = sum(max(1, -(-c.word_count // SEGMENT_WORDS)) for c in chapters)
    words = sum(c.word_count for c in chapters)
    tokens_in = int(words * TOKENS_PER_WORD) + segments * PROMPT_TOKENS_PER_SEGMENT
    return llm_service.estimate_cost(store, name, units=len(chapters), calls=segments, input_tokens=tokens_in,
                                     output_tokens=segments * OUTPUT_TOKENS_PER_SEGMENT)

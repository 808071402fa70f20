"""Chapter summaries: estimate, summarize one chapter or many (resumable job, metered), preview the KG lines, read the
current versions side by side, save a user's edit, export Markdown; and the scorer behind `cli.py kgscore`.

    estimate(store, work_id, [3], ("kg", "no_kg"), SummaryParams(), "local:smollm2")   # before: calls, tokens, $
    report = summarize(store, work_id, chapters=[3], modes=("kg", "no_kg"), on_progress=cb)
    view = chapter_view(store, work_id, 3)          # {"kg": StoredSummary | None, "no_kg": ...}, history, staleness
    save_edit(store, work_id, 3, "kg", "My own summary.")          # kept and shown as the user's from now on
    markdown, filename = export_markdown(store, work_id)

Each (chapter, mode) summary is committed as soon as it is made, and recorded under the job, so a job that is killed
resumes with what is left and ends as an uninterrupted run would (greedy decoding). A summary is never changed in
place: regenerating adds a version, and an edit by the user stays the one shown. `store` must implement
core.store.Store, core.kg.store.KgStore and core.summarize.store.SummaryStore (storage.repository.SqlStore does).
"""
from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.kg.graph import graph_as_of
from core.kg.types import INTERACTION_RELATIONS
from core.llm import LLM, CostEstimate, MeteredLLM, declared_context_window
from core.services import llm_service
from core.services.jobs import JobRunner, ProgressFn, StopFn, unfinished
from core.services.kg_views import load_graph_data
from core.store import NotFound, Store
from core.summarize import (EXTRACTIVE, MODE_LABELS, MODES, ChapterInput, ChapterKg, NewSummary, StoredSummary,
                            SummaryParams, chapter_edges, chapter_signals, current, extractive_summary,
                            latest_generated, plan_prompt, rank_edges, summarize_chapter, target_words)

JOB_KIND = "summaries"
ROLE = "summarizing"
EXTRACTIVE_AUTHOR = "extractive"   # the `model` of an extractive summary: no model wrote it
TEMPLATE_TOKENS = 60          # instruction and chapter markers, for estimates


def embedded(llm_name: str) -> bool:
    """Whether `llm_name` names one of the small embedded models (local:*), whose summaries loop or copy."""
    return llm_name.split(":", 1)[0] == "local"


def approximate_tokens(text: str) -> int:
    """A tokenizer-free count for estimates (English BPE tokenizers give ~1.3 tokens a word)."""
    return int(len(text.split()) * 1.3) + 1


class SummaryError(ValueError):
    """A summary request that cannot be carried out (no graph for KG mode, unknown mode, empty edit)."""


@dataclass
class SummaryReport:
    work_id: int
    job_id: int
    llm: str
    units: int                 # (chapter, mode) summaries asked for
    summarized: int            # made in this run
    skipped: int               # already up to date (or done before the interruption)
    resumed: bool
    seconds: float
    summaries: list[dict[str, Any]] = field(default_factory=list)
    tally: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def summary_dict(s: StoredSummary) -> dict[str, Any]:
    return {"id": s.id, "chapter": s.chapter_index, "mode": s.mode, "text": s.text, "model": s.model,
            "user_edited": s.user_edited, "kg_lines": s.kg_lines, "chapter_revision": s.chapter_revision,
            "created_at": s.created_at.isoformat() if s.created_at else None, "stats": s.stats}


def _check_modes(modes: Sequence[str]) -> tuple[str, ...]:
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise SummaryError(f"Unknown summary mode {', '.join(unknown) or '(none)'}; choose from {', '.join(MODES)}.")
    return tuple(dict.fromkeys(modes))


def _chapters(store: Store, work_id: int, chapters: Sequence[int] | None) -> dict[int, Any]:
    infos = {c.index: c for c in store.list_chapters(work_id)}
    wanted = sorted(set(chapters)) if chapters else sorted(infos)
    missing = [i for i in wanted if i not in infos]
    if missing:
        raise NotFound(f"Work {work_id} has no chapter {missing[0]} (it has {len(infos)}).")
    return {i: infos[i] for i in wanted}


class KgContext:
    """The work's graph, loaded once, and E_k of each chapter ranked by eqs. (2)-(4)."""

    def __init__(self, store: Store, work_id: int, embed: Callable[[Sequence[str]], Any] | None = None) -> None:
        self.store, self.work_id, self._embed = store, work_id, embed
        self._data: Any = None

    @property
    def data(self) -> Any:
        if self._data is None:
            self._data = load_graph_data(self.store, self.work_id)
        return self._data

    def edges(self, chapter: int) -> Any:
        counts = {name: by_chapter.get(chapter, 0) for name, by_chapter in self.data.counts.items()}
        return chapter_edges(graph_as_of(self.data, chapter), chapter, counts)

    def signals(self, chapter: int) -> Any:
        """What the graph says about `chapter` for an extractive summary (None without a graph)."""
        if not self.store.kg_extracted_chapters(self.work_id):
            return None
        return chapter_signals(self.data, chapter)

    def for_chapter(self, chapter: int, params: SummaryParams) -> ChapterKg:
        if self._embed is None:
            from core.nlp import embed
            self._embed = embed
        graph = self.edges(chapter)
        ranked = rank_edges(graph.edges, self._embed, params.keywords)
        return ChapterKg([s.edge for s in ranked], graph.mentions, graph.names)


def require_graph(store: Store, work_id: int) -> None:
    if not store.kg_extracted_chapters(work_id):
        raise SummaryError("This work has no knowledge graph yet: build it on the Graph page (or `cli.py kg build "
                           f"{work_id}`), or summarize without it (no-KG mode).")


def _inputs(store: Store, work_id: int, indices: Sequence[int]) -> dict[int, ChapterInput]:
    passages: dict[int, list[str]] = defaultdict(list)
    for chunk in store.list_chunks(work_id, upto_chapter=max(indices) if indices else 0):
        passages[chunk.chapter_index].append(chunk.text)
    out = {}
    for i in indices:
        chapter = store.get_chapter(work_id, i)
        out[i] = ChapterInput(i, chapter.title, chapter.text, passages.get(i, []))
    return out


def context_window_of(llm_name: str, llm: LLM | None = None) -> int:
    """The model's context window, without a key or a connection (an estimate must work before either exists):
    as its provider declares it, else from the model built without a store (a test's provider)."""
    if llm is not None:
        return llm.context_window
    try:
        declared = declared_context_window(llm_name)
        return declared if declared is not None else llm_service.llm_without_store(ROLE, llm_name).context_window
    except Exception:  # noqa: BLE001 - an estimate falls back to a common size rather than failing
        return 8192


# ---- estimate and preview ----------------------------------------------------------------------------------------

def kg_tokens(data: Any, chapters: Iterable[int]) -> dict[int, int]:
    """About how many tokens all of E_k would take, per chapter k (without building a graph per chapter): edges
    from chapters <= k whose entity ends are both mentioned in k."""
    wanted = set(chapters)
    seen: dict[int, set[int]] = defaultdict(set)                 # entity id -> chapters that mention it
    for name, by_chapter in data.counts.items():
        entity = data.name_to_entity.get(name)
        if entity is not None:
            seen[entity.id].update(c for c, n in by_chapter.items() if n > 0 and c in wanted)
    out: dict[int, int] = defaultdict(int)
    for t in data.edges:
        if t.relation in INTERACTION_RELATIONS:  # co-occurrence and dialogue edges are not facts to summarize
            continue
        ends = [data.name_to_entity.get(n) for n in (t.subject_name, t.object_name) if n]
        ends = [e for e in ends if e is not None]
        if not ends:
            continue
        where = set.intersection(*(seen[e.id] for e in ends))
        cost = approximate_tokens(f"{t.subject}; {t.relation}; {t.object}")
        for k in where:
            if k >= t.chapter_index:
                out[k] += cost
    return dict(out)


def estimate(store: Store, work_id: int, chapters: Sequence[int] | None, modes: Sequence[str], params: SummaryParams,
             llm_name: str, llm: LLM | None = None) -> CostEstimate:
    """Calls, tokens (about 1.3 per word, without loading a tokenizer) and price of summarizing `chapters` in
    `modes` (its units are summaries; an extractive one costs no call); KG mode counts every line of E_k that would
    fit, so it is an upper bound.
    The detail: the chapters and modes, the context size, the chapters longer than it (summarized in parts)."""
    modes = _check_modes(modes)
    infos = _chapters(store, work_id, chapters)
    if all(m == EXTRACTIVE for m in modes):  # no model call, and no model looked at for its window
        return llm_service.estimate_cost(store, llm_name, units=len(infos) * len(modes), calls=0, input_tokens=0,
                                         output_tokens=0, detail={"chapters": list(infos), "modes": list(modes),
                                                                  "context_tokens": 0, "hierarchical_chapters": []})
    window = context_window_of(llm_name, llm)
    context = window if params.context_tokens is None else min(params.context_tokens, window)
    budget = context - params.summary_tokens - TEMPLATE_TOKENS
    kg = kg_tokens(load_graph_data(store, work_id), infos) if "kg" in modes and \
        store.kg_extracted_chapters(work_id) else {}
    calls = tokens_in = tokens_out = 0
    long_chapters = []
    for index in infos:
        text_tokens = approximate_tokens(store.get_chapter(work_id, index).text)
        parts = 1 if text_tokens <= budget else math.ceil(text_tokens / max(context - params.part_tokens - 120, 1))
        body = text_tokens if parts == 1 else parts * params.part_tokens
        if parts > 1:
            long_chapters.append(index)
        for mode in modes:
            if mode == EXTRACTIVE:  # no model call: chosen from the chapter's sentences
                continue
            extra = min(kg.get(index, 0), max(budget - body, 0)) if mode == "kg" else 0
            calls += parts + (1 if parts > 1 else 0)
            tokens_in += (text_tokens + parts * TEMPLATE_TOKENS if parts > 1 else 0) + body + extra + TEMPLATE_TOKENS
            tokens_out += params.summary_tokens + (parts * params.part_tokens if parts > 1 else 0)
    detail = {"chapters": list(infos), "modes": list(modes), "context_tokens": context,
              "hierarchical_chapters": long_chapters}
    return llm_service.estimate_cost(store, llm_name, units=len(infos) * len(modes), calls=calls,
                                     input_tokens=tokens_in, output_tokens=tokens_out, detail=detail)


def preview(store: Store, work_id: int, chapter: int, params: SummaryParams, *, llm: LLM | None = None,
            llm_override: str | None = None, embed: Any = None) -> dict[str, Any]:
    """The KG lines and prompt a KG-mode summary of `chapter` would get (no generation)."""
    require_graph(store, work_id)
    info = _chapters(store, work_id, [chapter])[chapter]
    llm = llm or llm_service.build_llm(store, ROLE, llm_override, work_id=work_id)
    kg = KgContext(store, work_id, embed).for_chapter(info.index, params)
    plan = plan_prompt(llm, _inputs(store, work_id, [chapter])[chapter], kg, params.with_(mode="kg"))
    return {"chapter": chapter, "kg_lines": plan.kg_lines, "prompt": plan.prompt, "prompt_tokens": plan.prompt_tokens,
            "budget": plan.budget, "edges_available": plan.edges_available, "edges_given": plan.edges_given,
            "notes": plan.notes}


# ---- the job -----------------------------------------------------------------------------------------------------

def _up_to_date(versions: list[StoredSummary], revision: int) -> bool:
    shown = current(versions)
    return shown is not None and shown.chapter_revision == revision


def summarize(store: Store, work_id: int, *, chapters: Sequence[int] | None = None, modes: Sequence[str] = ("kg",),
              params: SummaryParams | None = None, llm: LLM | None = None, llm_override: str | None = None,
              force: bool = False, resume: bool = True, on_progress: ProgressFn | None = None,
              embed: Any = None, should_stop: StopFn | None = None) -> SummaryReport:
    """Summarize `chapters` (default: all) in each of `modes` ("extractive" needs no model: none is built when it
    is the only mode). Chapters whose shown summary was made from their
    current text are skipped unless `force` (a forced regeneration adds a version; a user's edit stays shown).
    `should_stop()` is asked between summaries: jobs.JobStopped then, the finished ones kept (the next run resumes)."""
    params = params or SummaryParams()
    started = time.perf_counter()
    store.get_work(work_id)
    modes = _check_modes(modes)
    infos = _chapters(store, work_id, chapters)
    if "kg" in modes:
        require_graph(store, work_id)
    name = llm.name if llm is not None else llm_service.resolve_llm_name(store, ROLE, llm_override)
    units = [(i, m) for i in infos for m in modes]
    signature = {"units": [list(u) for u in units], "force": force, "llm": name, "params": params.signature()}
    history = _grouped(store, work_id)
    runner = JobRunner(store, work_id, JOB_KIND, on_progress=on_progress, should_stop=should_stop)
    job = runner.resumable(lambda state: state.get("signature") == signature) if resume else None
    if job:  # what the job set out to do, less what it finished before it stopped
        done = {u for u, versions in history.items() if any(v.job_id == job.id for v in versions)}
        todo = [u for u in (tuple(x) for x in job.state.get("todo", [])) if u not in done]
    else:
        todo = [u for u in units if force or not _up_to_date(history[u], infos[u[0]].revision)]
    run = runner.start(len(todo), None if job else {"signature": signature, "todo": [list(u) for u in todo]},
                       resume=job)
    if any(m != EXTRACTIVE for _, m in todo):  # an extractive summary needs no model: none is loaded for it
        llm = llm or llm_service.build_llm(store, ROLE, name)
    metered = run.metered(llm, ROLE) if llm is not None else None
    kg = KgContext(store, work_id, embed)
    inputs = _inputs(store, work_id, sorted({c for c, _ in todo}))
    made: list[StoredSummary] = []
    notes: list[str] = []
    with run:
        run.report(0, len(todo), f"{len(todo)} summaries to write" if todo else "Every summary is up to date")
        for n, (index, mode) in enumerate(run.each(todo), start=1):
            if mode == EXTRACTIVE:
                run.report(n - 1, len(todo), f"Chapter {index} (the book's own words): choosing sentences…")
                made.append(_extractive(store, work_id, inputs[index], kg, params, infos[index].revision, run.id))
                notes.extend(f"Chapter {index}: {note}" for note in made[-1].stats["notes"])
                run.advance(n)
                run.report(n, len(todo), f"Chapter {index} (the book's own words): done")
                continue
            assert metered is not None
            label = f"Chapter {index} ({'with' if mode == 'kg' else 'without'} the graph)"
            run.report(n - 1, len(todo), f"{label}: writing…")
            outcome = summarize_chapter(
                metered, inputs[index], kg.for_chapter(index, params) if mode == "kg" else None,
                params.with_(mode=mode), on_part=lambda d, t: run.report(n - 1, len(todo), f"{label}: part {d} of {t}"))
            stats = {"parts": outcome.parts, "calls": outcome.calls, "prompt_tokens": outcome.prompt_tokens,
                     "budget": outcome.budget, "edges_available": outcome.edges_available,
                     "edges_given": outcome.edges_given, "finish_reason": outcome.finish_reason,
                     "notes": outcome.notes}
            made.append(store.summary_add(work_id, index, NewSummary(
                mode, outcome.text, name, infos[index].revision, outcome.kg_lines, job_id=run.id, stats=stats)))
            notes.extend(f"Chapter {index}: {note}" for note in outcome.notes)
            run.advance(n)
            run.report(n, len(todo), f"{label}: done")
    return SummaryReport(work_id, run.id, name, len(units), len(made), len(units) - len(made), run.resumed,
                         round(time.perf_counter() - started, 3), [summary_dict(s) for s in made],
                         llm_service.usage_tally(store, name, job_id=run.id), notes)


def _extractive(store: Store, work_id: int, chapter: ChapterInput, kg: KgContext, params: SummaryParams,
                revision: int, job_id: int) -> StoredSummary:
    """The chapter's own sentences within the summary length (core.summarize.extractive), stored like any summary:
    its "model" says no model wrote it, its stats which sentences were chosen and why."""
    extract = extractive_summary(chapter.text, kg.signals(chapter.number), target_words(params.summary_tokens))
    stats = {"method": EXTRACTIVE, "sentences": [c.index for c in extract.sentences],
             "reasons": [list(c.reasons) for c in extract.sentences], "total_sentences": extract.total_sentences,
             "words": extract.words, "target_words": extract.target_words, "used_graph": extract.used_graph,
             "notes": extract.notes}
    return store.summary_add(work_id, chapter.number, NewSummary(
        EXTRACTIVE, extract.text, EXTRACTIVE_AUTHOR, revision, [], job_id=job_id, stats=stats))


def unfinished_job(store: Store, work_id: int) -> dict[str, Any] | None:
    job = store.latest_job(work_id, JOB_KIND)
    if job and unfinished(job):
        return {"job_id": job.id, "done": job.done, "total": job.total}
    return None


# ---- reading, editing, exporting -----------------------------------------------------------------------------------

def chapter_view(store: Store, work_id: int, chapter: int) -> dict[str, Any]:
    """Per mode: the summary shown, a newer generated version hidden by the user's edit, the version count and
    whether the chapter's text changed since."""
    info = _chapters(store, work_id, [chapter])[chapter]
    out: dict[str, Any] = {"chapter": chapter, "title": info.title, "revision": info.revision}
    for mode in MODES:
        versions = store.summary_history(work_id, chapter, mode)
        shown = current(versions)
        generated = latest_generated(versions)
        out[mode] = {"shown": shown, "versions": len(versions),
                     "stale": bool(shown and shown.chapter_revision != info.revision),
                     "newer_generated": generated if shown and shown.user_edited and generated
                     and generated.id > shown.id else None}
    return out


def overview(store: Store, work_id: int) -> list[dict[str, Any]]:
    """One row per chapter: whether each mode has a summary, by whom."""
    by_key = _grouped(store, work_id)
    rows = []
    for c in store.list_chapters(work_id):
        row: dict[str, Any] = {"chapter": c.index, "title": c.title}
        for mode in MODES:
            shown = current(by_key[(c.index, mode)])
            row[mode] = "—" if shown is None else ("edited by you" if shown.user_edited else "generated") + (
                " (chapter changed since)" if shown.chapter_revision != c.revision else "")
        rows.append(row)
    return rows


def save_edit(store: Store, work_id: int, chapter: int, mode: str, text: str) -> StoredSummary:
    """Store `text` as the user's version of the chapter's summary in `mode` (a new version, shown from now on)."""
    _check_modes([mode])
    text = text.strip()
    if not text:
        raise SummaryError("The summary is empty; write something or keep the current version.")
    info = _chapters(store, work_id, [chapter])[chapter]
    parent = current(store.summary_history(work_id, chapter, mode))
    if parent is not None and parent.text == text:
        return parent
    return store.summary_add(work_id, chapter, NewSummary(
        mode, text, parent.model if parent else "user", info.revision, parent.kg_lines if parent else [],
        user_edited=True, parent_id=parent.id if parent else None))


def export_markdown(store: Store, work_id: int, modes: Sequence[str] = MODES) -> tuple[str, str]:
    """(Markdown of every chapter's shown summaries, a file name)."""
    work = store.get_work(work_id)
    by_key = {(s.chapter_index, s.mode): s for s in (current(v) for v in _grouped(store, work_id).values()) if s}
    lines = [f"# {work.title}: chapter summaries", ""]
    for c in store.list_chapters(work_id):
        lines += [f"## {c.title or f'Chapter {c.index}'}", ""]
        for mode in _check_modes(modes):
            s = by_key.get((c.index, mode))
            by = "" if s is None else (" (edited by the user)" if s.user_edited else f" ({s.model})")
            lines += [f"### {MODE_LABELS[mode]}{by}", "", s.text if s else "*No summary yet.*", ""]
    safe = "".join(ch if ch.isalnum() else "_" for ch in work.title).strip("_")[:60] or "summaries"
    return "\n".join(lines).rstrip() + "\n", f"{safe}_summaries.md"


def _grouped(store: Store, work_id: int) -> dict[tuple[int, str], list[StoredSummary]]:
    groups: dict[tuple[int, str], list[StoredSummary]] = defaultdict(list)
    for s in store.summary_history(work_id):
        groups[(s.chapter_index, s.mode)].append(s)
    return groups


# ---- scoring ---------------------------------------------------------------------------------------------------------

def make_scorer(store: Store | None = None, *, offline: bool = True, llm: LLM | None = None,
                llm_override: str | None = None, **kwargs: Any) -> Any:
    """A SummaryScorer: KGScore with the offline extractor, or with the Appendix F prompt and the extraction LLM
    (metered into `store` when one is given), plus ROUGE and embedding similarity. Build one per batch."""
    from core.metrics.kgscore import SummaryScorer
    if offline:
        from core.metrics.kgscore_offline import OfflineEdgeExtractor
        return SummaryScorer(OfflineEdgeExtractor(), **kwargs)
    from core.metrics.kgscore_llm import LLMEdgeExtractor
    if llm is None:
        llm = llm_service.build_llm(store, "extraction", llm_override) if store is not None else \
            llm_service.llm_without_store("extraction", llm_override)
    elif store is not None and not isinstance(llm, MeteredLLM):  # a model handed in is metered once, like a built one
        llm = llm_service.metered(store, llm, "extraction")
    return SummaryScorer(LLMEdgeExtractor(llm), **kwargs)

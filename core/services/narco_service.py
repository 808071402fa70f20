"""NARCO use cases: estimate, build (resumable, metered, per work or chapter range), status, and a chapter's recap.

    estimate(store, work_id, NarcoParams(window=3), "openai:gpt-4o-mini")     # before starting: pairs, tokens, $
    report = build_edges(store, work_id, llm, NarcoParams(window=3), llm_name=..., on_progress=cb)
    recap(store, work_id, chapter=12)    # earlier passages chapter 12 depends on, by edge degree, with questions

Each passage's edges (to its `window` predecessors) are generated, verified, embedded, and committed with the
passages of its batch; a passage is marked built in the same transaction. A build that is killed resumes by skipping
marked passages, and at temperature 0 ends with the same edges as an uninterrupted run. Usage is metered into the
store under the build's job, so the tally afterwards is what the build cost.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.llm import LLM, CostEstimate
from core.narco import NewQuestionEdge, Node, edge_questions, estimate_pair_cost, rank_recap, window_pairs
from core.narco.graph import PromptSizes, approximate_tokens
from core.services import llm_service
from core.services.jobs import JobRunner, ProgressFn, StopFn, unfinished
from core.store import Store
from core.wording import counted

JOB_KIND = "narco_build"
EmbedFn = Callable[[list[str]], Any]


@dataclass(frozen=True)
class NarcoParams:
    """window: preceding passages each passage is paired with. first/last_chapter: the passages whose edges are
    built (their predecessors may lie before the range). batch_size: passages committed together. force: rebuild
    passages already built. verify: run self-verification (the paper's optional, precision-first second stage)."""

    window: int = 3
    first_chapter: int | None = None
    last_chapter: int | None = None
    verify: bool = True
    batch_size: int = 4
    force: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.window <= 50:
            raise ValueError("the window must be between 1 and 50 passages")
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if self.first_chapter and self.last_chapter and self.first_chapter > self.last_chapter:
            raise ValueError("the first chapter comes after the last one")

    def in_range(self, node: Node) -> bool:
        return (self.first_chapter is None or node.chapter >= self.first_chapter) and \
            (self.last_chapter is None or node.chapter <= self.last_chapter)


@dataclass
class NarcoReport:
    work_id: int
    job_id: int
    passages: int            # passages built in this run
    pairs: int
    generated: int
    kept: int
    malformed: int
    calls: int
    edges_total: int
    resumed: bool
    seconds: float
    tally: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _nodes(store: Store, work_id: int) -> list[Node]:
    store.get_work(work_id)
    return [Node(c.id, c.chapter_index, c.index, c.text) for c in store.list_chunks(work_id)]


def _todo(store: Store, work_id: int, nodes: list[Node], params: NarcoParams) -> list[Node]:
    built = {} if params.force else store.narco_built(work_id)
    return [n for n in nodes if params.in_range(n) and not (n.chunk_id in built and
                                                            built[n.chunk_id][0] >= params.window)]


def estimate(store: Store, work_id: int, params: NarcoParams, llm_name: str,
             count: Callable[[str], int] = approximate_tokens) -> CostEstimate:
    """What a build would do and cost: its units are passages; calls, tokens and price as usually needed, with the
    pairs and the upper bound of tokens in the detail. Tokens are estimated without loading a tokenizer (about 1.3
    tokens a word) unless `count` is given."""
    nodes = _nodes(store, work_id)
    todo = {n.chunk_id for n in _todo(store, work_id, nodes, params)}
    pairs = window_pairs(nodes, params.window, targets=lambda n: n.chunk_id in todo)
    sizes, tokens = PromptSizes.measure(count), {n.chunk_id: count(n.text) for n in nodes}

    def costs(upper_bound: bool) -> list[Any]:
        return [estimate_pair_cost(tokens[p.chunk_id], tokens[c.chunk_id], sizes, verify=params.verify,
                                   upper_bound=upper_bound) for c, ps in pairs for p in ps]
    typical, upper = costs(False), costs(True)
    t_in, t_out = sum(c.input_tokens for c in typical), sum(c.output_tokens for c in typical)
    detail = {"pairs": sum(len(ps) for _, ps in pairs),
              "upper_bound_tokens": round(sum(c.input_tokens + c.output_tokens for c in upper))}
    return llm_service.estimate_cost(store, llm_name, units=len(todo), calls=round(sum(c.calls for c in typical)),
                                     input_tokens=round(t_in), output_tokens=round(t_out), detail=detail)


def build_edges(store: Store, work_id: int, llm: LLM, params: NarcoParams | None = None, *,
                llm_name: str | None = None, on_progress: ProgressFn | None = None,
                embed: EmbedFn | None = None, should_stop: StopFn | None = None) -> NarcoReport:
    """Generate, verify, embed and store the edges of every passage in range that is not built yet. `should_stop()`
    is asked between batches: jobs.JobStopped then, with the finished batches kept (the next build resumes)."""
    params = params or NarcoParams()
    if embed is None:
        from core.nlp import embed as embed_texts
        embed = embed_texts
    started = time.perf_counter()
    name = llm_name or llm.name
    nodes = _nodes(store, work_id)
    todo = _todo(store, work_id, nodes, params)
    runner = JobRunner(store, work_id, JOB_KIND, on_progress=on_progress, should_stop=should_stop)
    earlier = runner.resumable(lambda state: state.get("window") == params.window) if todo else None
    run = runner.start(len(todo), {"window": params.window, "llm": name, "verify": params.verify}, resume=earlier)
    metered = run.metered(llm, "extraction")
    priors_of = {c.chunk_id: ps for c, ps in window_pairs(nodes, params.window)}
    totals = {"pairs": 0, "generated": 0, "kept": 0, "malformed": 0, "calls": 0}
    with run:
        run.report(0, len(todo), f"{len(todo)} passages to connect" if todo else "Every passage is already connected")
        for start in run.each(range(0, len(todo), params.batch_size)):
            batch = todo[start:start + params.batch_size]
            edges: list[NewQuestionEdge] = []
            for position, node in enumerate(batch, start=start + 1):
                found = _passage_edges(metered, node, priors_of.get(node.chunk_id, []), params, totals)
                edges.extend(found)
                run.report(position, len(todo),
                           f"Chapter {node.chapter}, passage {node.index + 1}: {counted(len(found), 'question')} kept")
            vectors = embed([e.question for e in edges]) if edges else []
            edges = [NewQuestionEdge(e.from_chunk_id, e.to_chunk_id, e.question, e.evidence, e.answer, v)
                     for e, v in zip(edges, vectors)]
            built = [n.chunk_id for n in batch if n.chunk_id is not None]  # stored passages: all of them
            store.narco_replace_edges(work_id, built, edges, window=params.window, model=name)
            run.advance(start + len(batch), {"last_chunk": batch[-1].chunk_id})
    tally = llm_service.usage_tally(store, name, job_id=run.id)
    return NarcoReport(work_id, run.id, len(todo), totals["pairs"], totals["generated"], totals["kept"],
                       totals["malformed"], totals["calls"], len(store.narco_edges(work_id)), run.resumed,
                       round(time.perf_counter() - started, 3), tally)


def _passage_edges(llm: LLM, node: Node, priors: list[Node], params: NarcoParams,
                   totals: dict[str, int]) -> list[NewQuestionEdge]:
    found: list[NewQuestionEdge] = []
    assert node.chunk_id is not None, "a stored passage has a chunk id"
    for prior in priors:
        assert prior.chunk_id is not None, "a stored passage has a chunk id"
        result = edge_questions(llm, prior.text, node.text, verify=params.verify)
        totals["pairs"] += 1
        totals["generated"] += len(result.generated)
        totals["kept"] += len(result.kept)
        totals["malformed"] += result.malformed
        totals["calls"] += result.calls
        found.extend(NewQuestionEdge(prior.chunk_id, node.chunk_id, q.question, q.evidence, q.answer)
                     for q in result.kept)
    return found


def status(store: Store, work_id: int) -> dict[str, Any]:
    """Passages, how many are connected, the number of edges, and whether a build stopped midway."""
    nodes = _nodes(store, work_id)
    built = store.narco_built(work_id)
    return {"passages": len(nodes), "built": sum(1 for n in nodes if n.chunk_id in built),
            "edges": len(store.narco_edges(work_id)), "windows": sorted({w for w, _ in built.values()}),
            "unfinished": unfinished(store.latest_job(work_id, JOB_KIND))}


@dataclass
class RecapItem:
    chapter: int
    chunk: int
    chunk_id: int
    degree: int
    text: str
    questions: list[dict[str, Any]]


def recap(store: Store, work_id: int, chapter: int, limit: int = 5) -> list[RecapItem]:
    """The earlier passages `chapter` depends on, most retrospective questions first, each with those questions
    (and the evidence sentence that answers each). Empty when no edges reach back from this chapter."""
    store.get_chapter(work_id, chapter)
    entries = rank_recap(store.narco_edges(work_id, upto_chapter=chapter, to_chapter=chapter), chapter, limit)
    if not entries:
        return []
    texts = {c.id: c.text for c in store.list_chunks(work_id, upto_chapter=chapter - 1)}
    return [RecapItem(e.chapter, e.index, e.chunk_id, e.degree, texts.get(e.chunk_id, ""),
                      [{"question": q.question, "evidence": q.evidence, "answer": q.answer,
                        "asked_from_chunk": q.to_index} for q in e.questions]) for e in entries]

"""Writing use cases: start a story (and its no-KG twin), write the next chapter through the Remember Me loop,
accept / regenerate / write a chapter yourself, export (continuing any work: core.services.continuation_service).

    work = start_story(store, "The Egg", WriteParams(premise=PREMISES[4], arc="Icarus", max_chapters=8))
    result = next_chapter(store, work.id, llm)                # writer -> grapher -> planner, committed per step
    draft = draft_chapter(store, work.id, llm)                # the page: draft, let the user edit, then
    accept_chapter(store, work.id, draft.text, final=draft.final, llm=llm)

The loop's state is kept in the work's settings ("story_state") and saved after every step, so `story next` after
a crash resumes at the step that was cut off (a stored chapter is never written twice). Generated text never
replaces a user's: chapters are only added, and continuations are saved as new revisions.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from core.domain import Chapter, ChapterSource, NewChapter, Work, WorkKind
from core.ingest import chunk_text
from core.kg.types import INTERACTION_RELATIONS
from core.llm import LLM, Completion, LLMError, TextStream, check_llm_name
from core.llm.pricing import CostEstimate
from core.services import continuity_service
from core.services.desk_context import desk_context
from core.services.kg_service import update_chapter_graph
from core.services.library import create_story
from core.services.plan_service import plan_agent, plan_quietly
from core.store import Store
from core.write import loop
from core.write.context import GraphEdge, GraphNode, StoryGraph, kg_block
from core.write.export import ExportChapter
from core.write.formats import render
from core.write.params import DecodeParams, WriteParams
from core.write.writer import ChapterDraft, PriorChapter, finish_draft, prompt_text, writer_messages

PieceFn = Callable[[str], None]
TokensFn = Callable[[int, int, str], None]   # (tokens written, tokens asked, the text so far)
STATE_KEY = "story_state"


class WriteError(ValueError):
    """A writing request that cannot be carried out (not a story, story finished, empty text)."""


# ---- stories ---------------------------------------------------------------------------------------------------

def start_story(store: Store, title: str, params: WriteParams) -> Work:
    """A new story work holding its writing settings; an unknown model name is refused before anything is stored."""
    if params.llm:
        try:
            check_llm_name(params.llm)
        except LLMError as exc:
            raise WriteError(str(exc)) from exc
    return create_story(store, title, params.premise, params.as_settings() | {STATE_KEY: loop.StoryState().as_dict()})


def create_twin(store: Store, work_id: int) -> Work:
    """The same premise and arc written without the graph: a separate work, linked both ways in settings."""
    work = store.get_work(work_id)
    params = replace(story_params(store, work_id), use_kg=False)
    twin = create_story(store, f"{work.title} (no KG)", params.premise,
                        params.as_settings() | {STATE_KEY: loop.StoryState().as_dict(), "twin_of": work_id})
    store.update_work_settings(work_id, {"twin": twin.id})
    return twin


def story_params(store: Store, work_id: int) -> WriteParams:
    work = store.get_work(work_id)
    if work.kind is not WorkKind.STORY or "arc" not in work.settings:
        raise WriteError(f"Work {work_id} is not a story started for writing (start one with `story new`).")
    return WriteParams.from_settings(work.settings)


def writing_model(store: Store, work_id: int) -> str:
    """PROVIDER:MODEL that writes this work: its own model, else the "writing" role's."""
    from core.services import llm_service
    return llm_service.resolve_llm_name(store, "writing", store.get_work(work_id).settings.get("llm"))


def graph_note(store: Store, work_id: int) -> str:
    """How a story's chapters reach its graph, in words for the page: by the grapher, by the offline extractor (and
    why, when "auto" chose it for an embedded model), or not at all."""
    params = story_params(store, work_id)
    if not params.use_kg:
        return "without the graph"
    if params.graph_extractor(writing_model(store, work_id)) == "grapher":
        return "with the graph, read by the LLM grapher"
    return "with the graph, read by the offline extractor" + (
        " (the embedded model cannot write the grapher's JSON; a stronger model in Settings can)"
        if params.extractor == "auto" else "")


def writer_note(store: Store, work_id: int) -> str | None:
    """What to say next to a draft written by an embedded model (None for any other model): what to expect of it, and
    where a better writer is chosen."""
    from core.llm.registry import is_embedded
    name = writing_model(store, work_id)
    if not is_embedded(name):
        return None
    return (f"Written by the embedded model {name}: a model this small repeats itself and loses the thread within a "
            "few paragraphs, so read this draft as a placeholder. A stronger model (Settings → writing) writes "
            "chapters worth keeping.")


def kid_note(store: Store, work_id: int) -> str | None:
    """Before a KID run: None when the work's writing model can run it (an embedded model, whose word probabilities
    KID steers), else why it cannot and what to choose instead."""
    from core.llm.registry import is_embedded
    name = writing_model(store, work_id)
    if is_embedded(name):
        return None
    return (f"KID steers the word probabilities of one of Fabula's own models; this work is written by {name}, "
            "which does not share them. Choose local:gemma3-270m or local:smollm2 as the writing model (Settings → "
            "writing), or another mode.")


def story_state(store: Store, work_id: int) -> loop.StoryState:
    return loop.StoryState.from_dict(store.get_work(work_id).settings.get(STATE_KEY))


def _save_state(store: Store, work_id: int, state: loop.StoryState) -> None:
    store.update_work_settings(work_id, {STATE_KEY: state.as_dict()})


def story_graph(store: Store, work_id: int, upto_chapter: int | None = None) -> StoryGraph:
    """The graph snapshot the context block reads: canonical entities and the edges between names."""
    entities = store.kg_entities(work_id)
    owner = {n.name: e for e in entities for n in e.names}
    nodes = [GraphNode(e.label, e.type, e.first_chapter) for e in sorted(entities, key=lambda e: -e.mentions)]
    edges = []
    for t in store.kg_triples(work_id, upto_chapter, kind="edges"):
        if t.relation in INTERACTION_RELATIONS:  # who is with whom weighs the graph view, not the writer's facts
            continue
        a, b = owner.get(t.subject_name or ""), owner.get(t.object_name or "")
        edges.append(GraphEdge(a.label if a else t.subject, t.relation, b.label if b else t.object, t.chapter_index,
                               a.type if a else "object", b.type if b else "object"))
    graph = StoryGraph(nodes, edges)
    return graph if upto_chapter is None else graph.upto(upto_chapter)


def chapter_messages(store: Store, work_id: int, n: int, llm: LLM) -> list[dict[str, str]]:
    """The writer's messages for chapter n: the last chapters, (for a KG story) the context block, and the chapter's
    plan and canon from the writer's desk (issue 34)."""
    params = story_params(store, work_id)
    prior = [PriorChapter(c.index, c.title, store.get_chapter(work_id, c.index).text)
             for c in store.list_chapters(work_id) if n - 3 <= c.index < n]
    block = kg_block(story_graph(store, work_id, n - 1), n) if params.use_kg and n > 1 else ""
    if params.use_kg and n > 1:   # continuity (issue 32): who is dead, who is whose sister, among those in play
        in_play = {c.name for c in store.kg_name_counts(work_id, n - 1) if c.chapter_index >= n - 2}
        block = "\n\n".join(p for p in (block, continuity_service.prompt_states(store, work_id, in_play, n - 1)) if p)
    desk = desk_context(store, work_id, n, llm.count_tokens, llm.context_window, params.premise).block
    return writer_messages(params, n, prior, block, llm.count_tokens, llm.context_window, desk)


def _next_index(store: Store, work_id: int) -> int:
    return len(store.list_chapters(work_id)) + 1


def draft_chapter(store: Store, work_id: int, llm: LLM, *, decode: DecodeParams | None = None,
                  on_piece: PieceFn | None = None) -> ChapterDraft:
    """Write the next chapter without storing it (the page lets the user edit or regenerate it first)."""
    params = story_params(store, work_id)
    if story_state(store, work_id).finished:
        raise WriteError("This story is finished: its last chapter was marked final.")
    n = _next_index(store, work_id)
    if params.plan and store.plan_get(work_id, n) is None:   # chapter 1, or a plan deleted: outline it first
        plan_quietly(store, work_id, llm, n)
    messages = chapter_messages(store, work_id, n, llm)
    options = replace(decode or params.decode, max_tokens=min((decode or params.decode).max_tokens,
                                                              params.chapter_tokens())).options()
    options = replace(options, min_words=params.min_words)  # an embedded model goes on to the lower count
    done = _drain(llm.stream(messages, options), on_piece)
    raw = done.text if done else ""
    return finish_draft(llm, params, n, raw, prompt_text(messages))


def _drain(stream: TextStream, on_piece: PieceFn | None) -> Completion | None:
    """Read a stream to its end, handing each piece on; its completion."""
    for piece in stream:
        if on_piece:
            on_piece(piece)
    return stream.completion


def _graph_agent(store: Store, work_id: int, params: WriteParams,
                 llm: LLM | None) -> Callable[[int], object] | None:
    if not params.use_kg:
        return None
    extractor = params.graph_extractor(llm.name if llm is not None else writing_model(store, work_id))
    return lambda index: update_chapter_graph(store, work_id, index, extractor=extractor,
                                              llm=llm if extractor != "offline" else None)


def accept_chapter(store: Store, work_id: int, text: str, *, final: bool = False, title: str | None = None,
                   source: ChapterSource = ChapterSource.GENERATED, llm: LLM | None = None) -> Chapter:
    """Store a chapter (generated and perhaps edited, or written by the user), then let the grapher read it and the
    planner advance. The chapter is committed first, so a failing grapher loses nothing (`story next` retries)."""
    params = story_params(store, work_id)
    text = text.strip()
    if not text:
        raise WriteError("The chapter is empty.")
    agents = loop.Agents(write=_no_writer, accept=_no_writer, graph=_graph_agent(store, work_id, params, llm),
                         plan=plan_agent(store, work_id, params, llm))
    save = lambda s: _save_state(store, work_id, s)  # noqa: E731
    state = story_state(store, work_id)
    if state.phase in (loop.Phase.GRAPH, loop.Phase.PLAN):   # finish a turn that was cut off before adding more
        state = loop.run(state, agents, params.max_chapters, chapters=1, on_step=save)
    if state.phase is loop.Phase.DONE:
        raise WriteError("This story is finished: its last chapter was marked final.")
    n = _next_index(store, work_id)
    final = final or n >= params.max_chapters
    chapter = store.add_chapter(work_id, NewChapter(title or f"Chapter {n}", text, chunk_text(text), source))
    state = loop.after_accepting(chapter.index, final)
    save(state)
    loop.run(state, agents, params.max_chapters, chapters=1, on_step=save)
    return chapter


def _no_writer(*_: Any) -> Any:
    raise WriteError("internal: the writer is not part of accepting a chapter")


def next_chapter(store: Store, work_id: int, llm: LLM, *, decode: DecodeParams | None = None,
                 on_piece: PieceFn | None = None) -> dict[str, Any]:
    """One turn of the loop (writer, grapher, planner), resuming a turn that was cut off."""
    params = story_params(store, work_id)
    state = story_state(store, work_id)
    if state.phase is loop.Phase.DONE:
        raise WriteError("This story is finished: its last chapter was marked final.")
    drafts: list[ChapterDraft] = []

    def write(n: int) -> ChapterDraft:
        drafts.append(draft_chapter(store, work_id, llm, decode=decode, on_piece=on_piece))
        return drafts[-1]

    def accept(draft: ChapterDraft) -> int:
        n = _next_index(store, work_id)
        text = draft.text or "(the model wrote nothing)"
        return store.add_chapter(work_id, NewChapter(f"Chapter {n}", text, chunk_text(text),
                                                     ChapterSource.GENERATED)).index

    agents = loop.Agents(write, accept, _graph_agent(store, work_id, params, llm),
                         plan_agent(store, work_id, params, llm))
    state = loop.run(state, agents, params.max_chapters, chapters=1, on_step=lambda s: _save_state(store, work_id, s))
    draft = drafts[-1] if drafts else None
    return {"work_id": work_id, "chapter": state.next_chapter if state.phase is loop.Phase.DONE
            else state.next_chapter - 1, "finished": state.finished, "final": bool(draft and draft.final),
            "decided_by": draft.decided_by if draft else "resumed", "words": len(draft.text.split()) if draft else 0,
            "repetition_cut": draft.cut_note if draft else ""}


def write_story(store: Store, work_id: int, llm: LLM, *, on_chapter: Callable[[dict[str, Any]], None] | None = None,
                decode: DecodeParams | None = None) -> list[dict[str, Any]]:
    """Run the loop until the story decides it is finished (or reaches its chapter limit)."""
    results = []
    while not story_state(store, work_id).finished:
        results.append(next_chapter(store, work_id, llm, decode=decode))
        if on_chapter:
            on_chapter(results[-1])
    return results


# ---- export ------------------------------------------------------------------------------------------------------

def export_story(store: Store, work_id: int, fmt: str = "md") -> tuple[bytes, str, str]:
    """(payload, file name, MIME type) of the whole work as Markdown ("md"), EPUB ("epub") or Word ("docx")."""
    work = store.get_work(work_id)
    chapters = [ExportChapter(c.index, c.title, store.get_chapter(work_id, c.index).text)
                for c in store.list_chapters(work_id)]
    try:
        return render(fmt, work.title, chapters, author=work.author, premise=work.settings.get("premise", ""),
                      arc=work.settings.get("arc", ""), identifier=f"fabula-work-{work_id}")
    except ValueError as exc:
        raise WriteError(str(exc)) from exc


PROMPT_OVERHEAD_TOKENS = 600   # the writer's instructions, premise, arc and plan around the chapters it is shown
GRAPHER_OUTPUT_TOKENS = 500    # the grapher's JSON for one chapter, roughly


def chapter_estimate(store: Store, work_id: int, llm_name: str, decode: DecodeParams | None = None) -> CostEstimate:
    """Before writing the next chapter: its tokens and price, the writer's call (the
    last chapters it is shown, at TOKENS_PER_WORD, and the chapter) plus, for a story with the graph, the grapher's
    read of the chapter. Approximate: the prompt is not built (that needs the model's tokenizer)."""
    from core.services import llm_service
    from core.write.params import TOKENS_PER_WORD
    params = story_params(store, work_id)
    n = _next_index(store, work_id)
    prior = sum(c.word_count for c in store.list_chapters(work_id) if n - 3 <= c.index < n)
    chapter = min((decode or params.decode).max_tokens, params.chapter_tokens())
    writer_in = int(prior * TOKENS_PER_WORD) + PROMPT_OVERHEAD_TOKENS
    grapher = params.use_kg and params.graph_extractor(llm_name) != "offline"
    return llm_service.estimate_cost(store, llm_name, units=1, calls=2 if grapher else 1,
                                     input_tokens=writer_in + (chapter + PROMPT_OVERHEAD_TOKENS if grapher else 0),
                                     output_tokens=chapter + (GRAPHER_OUTPUT_TOKENS if grapher else 0))

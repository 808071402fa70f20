"""The job kinds the background worker runs (core.services.background): each turns a task's JSON params into one
service call with the worker's progress and stop wiring, and returns the line a page shows when it is done.

The params are what a page submits and what Resume submits again, so they hold only plain values; a resumed call
finds its unfinished job row through the service's own JobRunner.resumable.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.services.job_kinds import Controls, job_kind
from core.store import Store
from core.wording import counted


@job_kind("kg_build", "Graph build", "chapters")
def build_graph(store: Store, work_id: int, params: dict[str, Any], controls: Controls) -> str:
    """params: extractor ("offline", "llm", "grapher"), force, llm_name (None: the extraction role's model)."""
    from core.services import kg_service, llm_service
    extractor = str(params.get("extractor", "offline"))
    name = params.get("llm_name")
    if extractor != "offline":
        name = name or llm_service.resolve_llm_name(store, "extraction")
        before = llm_service.usage_tally(store, name, work_id=work_id)
    report = kg_service.build_graph(store, work_id, extractor=extractor, llm_name=name,
                                    force=bool(params.get("force", False)), on_progress=controls.on_progress,
                                    should_stop=controls.should_stop)
    lines = [f"{report.entities} entities, {report.edges} edges, {report.facts} facts in {report.seconds:.1f} s"]
    if changed := report.stats.get("changed_during_build"):
        one = changed == 1
        it, they = ("it", "it is") if one else ("them", "they are")
        lines.append(f"{counted(changed, 'chapter')} {'was' if one else 'were'} saved again while the build read "
                     f"{it}, so {they} not in the graph yet: build again to bring {it} in.")
    if name:  # the tally of this build: what the work's usage grew by
        after = llm_service.usage_tally(store, name, work_id=work_id)
        lines.append(f"This build used {after['calls'] - before['calls']} LLM calls, "
                     f"{after['input_tokens'] - before['input_tokens']:,} input and "
                     f"{after['output_tokens'] - before['output_tokens']:,} output tokens with {name}.")
    return "\n".join(lines)


@job_kind("narco", "NARCO build", "passages")
def build_narco(store: Store, work_id: int, params: dict[str, Any], controls: Controls) -> str:
    """params: llm_name, window, first_chapter, last_chapter."""
    from core.services import llm_service, narco_service
    name = params.get("llm_name") or llm_service.resolve_llm_name(store, "extraction")
    narco = narco_service.NarcoParams(window=int(params.get("window", 3)), first_chapter=params.get("first_chapter"),
                                      last_chapter=params.get("last_chapter"))
    llm = llm_service.build_llm(store, "extraction", name, work_id=work_id)
    report = narco_service.build_edges(store, work_id, llm, narco, llm_name=name, on_progress=controls.on_progress,
                                       should_stop=controls.should_stop)
    return (f"{report.kept} questions kept of {report.generated}; spent {report.tally['input_tokens']:,} + "
            f"{report.tally['output_tokens']:,} tokens ({report.tally['label']})")


@job_kind("summaries", "Summaries", "summaries")
def write_summaries(store: Store, work_id: int, params: dict[str, Any], controls: Controls) -> str:
    """params: chapters, modes, force, context_tokens, summary_tokens."""
    from core.services import summary_service
    from core.summarize import SummaryParams
    settings = SummaryParams(context_tokens=params.get("context_tokens"),
                             summary_tokens=int(params.get("summary_tokens", 200)))
    report = summary_service.summarize(store, work_id, chapters=params.get("chapters"),
                                       modes=tuple(params.get("modes", ("kg",))), params=settings,
                                       force=bool(params.get("force", False)), on_progress=controls.on_progress,
                                       should_stop=controls.should_stop)
    tally = report.tally
    return "\n".join([f"{report.summarized} written, {report.skipped} already up to date · spent "
                      f"{tally['input_tokens']:,} + {tally['output_tokens']:,} tokens ({tally['label']})",
                      *report.notes])


DRAFT_KEY = "draft"   # work setting: the last chapter draft the writer made, kept until accepted or regenerated
DRAFT_SAVE_S = 1.0    # the growing draft goes to the task row (so any tab shows it) at most this often


class _DraftStopped(Exception):
    """Stop was asked while the chapter streamed: the text so far is kept as the draft."""


@dataclass(frozen=True)
class SavedDraft:
    """The chapter draft a story keeps until it is accepted: `id` tells a new draft from one already shown."""

    id: str
    text: str
    final: bool = False
    stopped: bool = False
    note: str = ""  # "Repetition cut: ..." when a loop in the writer's text was cut (core.textguard)


def saved_draft(store: Store, work_id: int) -> SavedDraft | None:
    """The story's kept draft; None when there is none."""
    draft = store.get_work(work_id).settings.get(DRAFT_KEY)
    if not isinstance(draft, dict) or not draft.get("text"):
        return None
    return SavedDraft(str(draft.get("id", "")), draft["text"], bool(draft.get("final")), bool(draft.get("stopped")),
                      str(draft.get("note") or ""))


@job_kind("story_chapter", "Next chapter", "words")
def draft_story_chapter(store: Store, work_id: int, params: dict[str, Any], controls: Controls) -> str:
    """params: temperature, max_tokens. Streams the story's next chapter into the task row, then keeps it as the
    work's draft (a stop or a dropped connection keeps the text so far; the error is still the job's outcome)."""
    import time
    import uuid

    from core.llm import LLMError
    from core.services import llm_service
    from core.services import write_service as ws
    from core.write.tidy import tidy_generated
    from core.write import DecodeParams
    work = store.get_work(work_id)
    llm = llm_service.build_llm(store, "writing", work.settings.get("llm"), work_id=work_id)
    decode = DecodeParams(temperature=float(params.get("temperature", 0.8)),
                          max_tokens=int(params.get("max_tokens", 1700)))
    target = ws.story_params(store, work_id).max_words
    pieces: list[str] = []
    saved_at = 0.0

    def on_piece(piece: str) -> None:
        nonlocal saved_at
        pieces.append(piece)
        if time.monotonic() - saved_at >= DRAFT_SAVE_S:
            saved_at = time.monotonic()
            text = "".join(pieces)
            controls.show(len(text.split()), target, text)
            if controls.should_stop():
                raise _DraftStopped

    def keep(text: str, final: bool, stopped: bool, note: str = "") -> None:
        if stopped:  # a partial chapter: a loop, a next chapter and assistant talk are cut as in a finished draft
            tidy = tidy_generated(text)
            text, note = tidy.text, " ".join(tidy.notes)
        store.update_work_settings(work_id, {DRAFT_KEY: {"id": uuid.uuid4().hex, "text": text, "final": final,
                                                        "stopped": stopped, "note": note}})
    try:
        draft = ws.draft_chapter(store, work_id, llm, decode=decode, on_piece=on_piece)
    except _DraftStopped:
        keep("".join(pieces), False, True)
        return "Stopped: the partial chapter is kept as a draft."
    except LLMError:
        if pieces:
            keep("".join(pieces), False, True)
        raise
    keep(draft.text, draft.final, False, draft.cut_note)
    cut = (" (the model's text was cut where it looped, began a next chapter or talked about itself: see the note "
           "under the draft)") if draft.cut_note else ""
    return f"A draft of {len(draft.text.split()):,} words is ready{cut}: edit it below, then accept it."


@job_kind("story_accept", "Storing the chapter", "steps")
def store_story_chapter(store: Store, work_id: int, params: dict[str, Any], controls: Controls) -> str:
    """params: text, final, title, source ("generated": the kept draft, dropped once stored; "written")."""
    from core.domain import ChapterSource
    from core.services import llm_service
    from core.services import write_service as ws
    work = store.get_work(work_id)
    llm = llm_service.build_llm(store, "writing", work.settings.get("llm"), work_id=work_id)
    source = ChapterSource(params.get("source", ChapterSource.GENERATED.value))
    controls.on_progress(0, 1, "Storing the chapter; the grapher is reading it…")
    chapter = ws.accept_chapter(store, work_id, str(params.get("text", "")), final=bool(params.get("final", False)),
                                title=params.get("title"), source=source, llm=llm)
    if source is ChapterSource.GENERATED:
        store.update_work_settings(work_id, {DRAFT_KEY: None})
    controls.on_progress(1, 1, f"Chapter {chapter.index} stored")
    return f"Chapter {chapter.index} is stored; the grapher has read it."


from core.services import continuation_job  # noqa: E402,F401 - registers "continuation" (its own module: KID's job)

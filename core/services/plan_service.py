"""The plan (issue 34): the planner's outline of each chapter (its beats, its characters, where it goes in the arc),
shown and edited on the Write page, carried into the writer's prompt (core.services.desk_context), and re-planned on
request.

    plan = plan_chapter(store, work_id, llm)                 # the next chapter's outline, by the writing model
    plan = edit_plan(store, work_id, 2, beats="Mara finds the egg\\nTomas laughs", characters="Mara, Tomas")
    plan = plan_chapter(store, work_id, llm, 2, replan=True) # the writer's edits make way for a new outline
    report = adherence(store, work_id, 2)                    # which planned beats and characters chapter 2 has

A plan the writer edited is theirs: the automatic planner (a story started with planning on plans each chapter after
the one before is stored) never replaces it; only "Re-plan" does. A reply without a readable beat leaves the offline
skeleton (the characters in play and the arc's stage) with a note, never invented beats. Imports no other writing
service, so write_service can call it from the loop.
"""
from __future__ import annotations

from collections.abc import Callable

from core.kg.characters import characters
from core.llm import LLM, LLMConfigError, LLMError
from core.llm.registry import is_embedded
from core.nlp import embed
from core.store import Store
from core.write import adherence as adherence_check
from core.write.params import WriteParams
from core.write.plan import PLANNER_TOKENS, ChapterPlan, PlanEdit, outline_only, parse_plan, planner_messages
from core.textfit import keep_end
from core.write.bible import named_in

STORY_END_WORDS = 250
MAX_CHARACTERS = 12
NO_BEATS = ("The planner's reply held no beats Fabula could read, so this is only the outline's skeleton (the "
            "characters in play and the arc's stage): write the beats yourself, or choose a stronger writing model "
            "in Settings and re-plan.")
EMBEDDED = ("Planned by the embedded model {name}: a model this small plans poorly, so read these beats as "
            "suggestions to edit. A stronger model (Settings → writing) plans chapters worth following.")


class PlanError(ValueError):
    """A plan request that cannot be carried out (not a story, a chapter already written, an empty plan)."""


def _params(store: Store, work_id: int) -> WriteParams:
    settings = store.get_work(work_id).settings
    if "arc" not in settings:
        raise PlanError(f"Work {work_id} is not a story started for writing: only a story has a plan.")
    return WriteParams.from_settings(settings)


def _embedded(name: str) -> bool:
    try:
        return is_embedded(name)
    except LLMConfigError:   # a test's fake: not an embedded model
        return False


def next_index(store: Store, work_id: int) -> int:
    return len(store.list_chapters(work_id)) + 1


def story_characters(store: Store, work_id: int, upto: int) -> list[str]:
    """The graph's characters as of chapter `upto`, most mentioned first."""
    return [e.label for e in characters(store.kg_entities(work_id)) if e.first_chapter <= upto][:MAX_CHARACTERS]


def plan_chapter(store: Store, work_id: int, llm: LLM, chapter: int | None = None, *,
                 replan: bool = False) -> ChapterPlan:
    """Plan chapter `chapter` (default: the next one) with `llm` and store the plan. A plan the writer edited is
    kept unless `replan`. LLMError (nothing stored) when the model fails."""
    params = _params(store, work_id)
    n = chapter or next_index(store, work_id)
    if n < 1 or n > params.max_chapters:
        raise PlanError(f"Chapter {n} is outside this story (1 to {params.max_chapters}).")
    kept = store.plan_get(work_id, n)
    if kept is not None and kept.source == "writer" and not replan:
        return kept
    chapters = [c for c in store.list_chapters(work_id) if c.index < n]
    end = keep_end(store.get_chapter(work_id, chapters[-1].index).text,
                   lambda s: len(s.split()) <= STORY_END_WORDS) if chapters else ""
    cast = story_characters(store, work_id, n - 1) if params.use_kg else []
    earlier = [p for p in store.plans_list(work_id) if p.chapter < n]
    reply = llm.complete(planner_messages(params, n, end, cast, earlier), max_tokens=PLANNER_TOKENS,
                         temperature=0.7)
    text = reply.text if hasattr(reply, "text") else str(reply)
    plan = parse_plan(text, n)
    if plan is None:
        plan = outline_only(params, n, cast, NO_BEATS)
    elif _embedded(llm.name):
        plan = ChapterPlan(plan.chapter, plan.beats, plan.characters, plan.arc, plan.source,
                           EMBEDDED.format(name=llm.name))
    return store.plan_put(work_id, plan)


def plan_quietly(store: Store, work_id: int, llm: LLM, chapter: int) -> ChapterPlan:
    """The automatic planner of the loop: as plan_chapter, but a failing model leaves the skeleton with a note
    instead of stopping the story (the writer can re-plan once the model answers again)."""
    try:
        return plan_chapter(store, work_id, llm, chapter)
    except LLMError as exc:
        params = _params(store, work_id)
        cast = story_characters(store, work_id, chapter - 1) if params.use_kg else []
        return store.plan_put(work_id, outline_only(params, chapter, cast,
                                                    f"The planner could not be reached ({exc}); re-plan later."))


def plan_agent(store: Store, work_id: int, params: WriteParams, llm: LLM | None) -> Callable[[int], object] | None:
    """The loop's planner agent: the next chapter's outline, for a story started with planning on (None else)."""
    if not params.plan or llm is None:
        return None
    model = llm
    return lambda index: plan_quietly(store, work_id, model, index)


def edit_plan(store: Store, work_id: int, chapter: int, *, beats: str, characters: str = "",
              arc: str = "") -> ChapterPlan:
    """The writer's outline of a chapter (beats one per line, characters separated by commas), stored as theirs."""
    params = _params(store, work_id)
    if chapter < 1 or chapter > params.max_chapters:
        raise PlanError(f"Chapter {chapter} is outside this story (1 to {params.max_chapters}).")
    plan = PlanEdit(beats, characters, arc).to_plan(chapter)
    if plan.empty:
        raise PlanError("The plan is empty: write at least one beat, a character or where the chapter goes.")
    return store.plan_put(work_id, plan)


def get_plan(store: Store, work_id: int, chapter: int) -> ChapterPlan | None:
    return store.plan_get(work_id, chapter)


def outline(store: Store, work_id: int) -> list[ChapterPlan]:
    """Every chapter's plan, in chapter order (the story's outline)."""
    return store.plans_list(work_id)


def wants_plans(store: Store, work_id: int) -> bool:
    """Whether the story plans each chapter by itself (started with planning on)."""
    try:
        return _params(store, work_id).plan
    except PlanError:
        return False


def set_planning(store: Store, work_id: int, on: bool) -> bool:
    """Switch the story's automatic planner on or off (the Write page's toggle): from the next chapter on, each
    chapter is outlined before it is written. A plan the writer already edited is kept either way."""
    _params(store, work_id)   # PlanError for a work that is not a story
    store.update_work_settings(work_id, {"plan": bool(on)})
    return bool(on)


def _plan_names(store: Store, work_id: int, characters: tuple[str, ...]) -> dict[str, list[str]]:
    """Each planned character's other names, from the graph entity they are (by label or alias, or a label that
    contains the planned name as a word: "Scrooge" is "Ebenezer Scrooge")."""
    entities = store.kg_entities(work_id)
    out: dict[str, list[str]] = {}
    for name in characters:
        entity = next((e for e in entities if name in (e.label, *e.aliases)), None) or next(
            (e for e in entities if e.type == "character" and named_in(e.label, [name])), None)
        out[name] = [entity.label, *entity.aliases] if entity is not None else []
    return out


def adherence(store: Store, work_id: int, chapter: int,
              plan: ChapterPlan | None = None) -> adherence_check.Adherence:
    """Which of chapter `chapter`'s planned beats and characters the written chapter has (core.write.adherence):
    beats by sentence similarity (MiniLM) and shared words, characters by the chapter's graph (or, before the graph
    is built, by name in the text). `plan`: check against this plan instead of the stored one. PlanError when the
    chapter has no plan with a beat or a character."""
    plan = plan or store.plan_get(work_id, chapter)
    if plan is None or not (plan.beats or plan.characters):
        raise PlanError(f"Chapter {chapter} has no plan with beats or characters to check it against.")
    text = store.get_chapter(work_id, chapter).text
    counted = {c.name for c in store.kg_name_counts(work_id, chapter) if c.chapter_index == chapter and c.count > 0}
    graph = counted if counted or store.kg_entities(work_id) else None
    return adherence_check.check(text, plan, embed, graph_names=graph,
                                 aliases=_plan_names(store, work_id, plan.characters))

"""The desk's plan (issue 34): the outline of each chapter (its beats, its characters, where it goes in the arc) shown
and edited as the writer's own (the next chapter is written from it), re-planned by the story's model on request,
the story's "plan each chapter first" switch, and, for a written chapter, which planned beats and characters it has."""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.llm import LLMError
from core.services import plan_service as ps
from core.services import write_service as ws
from core.store import Store
from core.write.plan import ChapterPlan, arc_stage
from views._desk_common import done, small_model_note, writing_llm
from views._shared import plain
from views._state import Slot

SOURCES = {"planner": "planned by the model", "writer": "your plan", "outline": "the offline skeleton (no beats)"}


def _boxes(work_id: int, n: int) -> tuple[Slot[str], Slot[str], Slot[str], Slot[dict[str, Any] | None]]:
    """The beats, characters and arc boxes of chapter n's plan, and the plan they were loaded from."""
    return (Slot(f"desk_plan_beats_{work_id}_{n}", ""), Slot(f"desk_plan_chars_{work_id}_{n}", ""),
            Slot(f"desk_plan_arc_{work_id}_{n}", ""), Slot(f"desk_plan_loaded_{work_id}_{n}", None))


def _as_boxes(plan: ChapterPlan | None) -> tuple[str, str, str]:
    if plan is None:
        return "", "", ""
    return "\n".join(plan.beats), ", ".join(plan.characters), plan.arc


def plan_view(store: Store, work_id: int, *, busy: bool = False) -> None:
    auto: Slot[bool] = Slot(f"desk_plan_auto_{work_id}", False)
    auto.set(ps.wants_plans(store, work_id))   # the story's setting as stored (another tab may have changed it)

    def switched() -> None:   # only a click of the writer's changes the story's setting
        ps.set_planning(store, work_id, auto.get())
    st.toggle("Plan each chapter before it is written", key=auto.key, on_change=switched,
              help="The story's model outlines the next chapter (beats, characters, arc) before writing it, and the "
                   "writer follows the outline. A plan you edited is never replaced by it.")
    written = len(store.list_chapters(work_id))
    last = min(written + 1, ws.story_params(store, work_id).max_chapters)
    plans = {p.chapter: p for p in ps.outline(store, work_id)}
    if plans:
        st.caption("The story's outline:")
        st.table([{"Chapter": p.chapter, "Beats": " · ".join(p.beats), "Characters": ", ".join(p.characters),
                   "Arc": p.arc, "By": SOURCES.get(p.source, p.source)} for p in plans.values()], hide_index=True)
    options = list(range(1, max(last, 1) + 1))
    n = st.selectbox("Chapter to plan", options, index=len(options) - 1, key=f"desk_plan_chapter_{work_id}",
                     format_func=lambda k: f"Chapter {k}" + (" (written)" if k <= written else " (next)"))
    plan = plans.get(n)
    beats, chars, arc, loaded = _boxes(work_id, n)
    current = plan.as_dict() if plan else {}
    typed = (beats.get(), chars.get(), arc.get())
    was = loaded.get()
    if was is None or not beats.is_set() or (was != current and typed == _as_boxes(
            ChapterPlan.from_dict(was) if was else None)):   # a new plan (Re-plan, another tab) and nothing typed
        beats.set(_as_boxes(plan)[0])
        chars.set(_as_boxes(plan)[1])
        arc.set(_as_boxes(plan)[2])
        loaded.set(current)
    if plan is None:
        st.caption(f"Chapter {n} has no plan yet: write one below, or let the model plan it.")
    else:
        st.caption(f"Chapter {n}: {SOURCES.get(plan.source, plan.source)}.")
        if plan.note:
            st.info(plain(plan.note), icon=":material/info:")
    st.text_area("Beats, one per line, in story order", key=beats.key, height=150)
    st.text_input("Characters in it (separated by commas)", key=chars.key)
    params = ws.story_params(store, work_id)
    st.text_input("Where it takes the story in its arc", key=arc.key, placeholder=f"{params.arc}: "
                  f"{arc_stage(params, n)}")
    save, replan = st.columns(2)
    if save.button("Save the plan", key="desk_plan_save", type="primary"):
        try:
            ps.edit_plan(store, work_id, n, beats=beats.get(), characters=chars.get(), arc=arc.get())
        except ValueError as exc:   # PlanError: an empty plan, a chapter outside the story
            st.error(plain(str(exc)))
        else:
            loaded.clear()
            done(f"The plan of chapter {n} is saved: " + ("the next chapter is written from it." if n > written
                                                          else "re-plan or check the chapter against it."))
    if replan.button("Re-plan" if plan else "Plan it with the model", key="desk_plan_replan", disabled=busy,
                     help="The story's model outlines this chapter afresh; your edits to it make way."):
        try:
            with st.spinner(f"Planning chapter {n}…"):
                ps.plan_chapter(store, work_id, writing_llm(store, work_id), n, replan=True)
        except (LLMError, ValueError) as exc:   # the model failed, or PlanError: nothing stored
            st.error(plain(str(exc)))
        else:
            loaded.clear()
            done(f"Chapter {n} re-planned.")
    if not (plan and plan.note) and (note := small_model_note(store, work_id, "planning")):   # else said above
        st.caption(note)
    if n <= written and plan is not None and (plan.beats or plan.characters):
        _adherence(store, work_id, n)


def _adherence(store: Store, work_id: int, n: int) -> None:
    """Does written chapter n follow its plan? Offline (the chapter's graph, sentence similarity to each beat)."""
    if not hasattr(ps, "adherence"):
        return
    shown: Slot[tuple[int, int, Any] | None] = Slot(f"desk_plan_check_{work_id}", None)
    if st.button("Does the chapter follow its plan?", key="desk_plan_check",
                 help="Which planned beats and characters chapter appear in the written chapter (offline: the "
                      "chapter's graph, and how close each beat is to its sentences)."):
        try:
            with st.spinner("Reading the chapter against its plan…"):
                shown.set((n, store.get_chapter(work_id, n).revision, ps.adherence(store, work_id, n)))
        except ValueError as exc:   # PlanError: no plan to check against
            st.error(plain(str(exc)))
    result = shown.get()
    if result is None or result[0] != n:
        return
    report = result[2]
    st.caption(f"{report.beats_found} of {len(report.beats)} beats found, {report.characters_present} of "
               f"{len(report.characters)} characters present" + (f". {report.note}" if report.note else "."))
    for beat in report.beats:
        mark = ":material/check: found" if beat.found else ":material/close: missing"
        st.markdown(f"{mark} — {plain(beat.beat)}" + (f"  \n*{plain(beat.passage[:200])}*" if beat.found else ""))
    for who in report.characters:
        st.markdown(f"{':material/check:' if who.present else ':material/close:'} {plain(who.name)}"
                    + (f" (in the {who.seen_in})" if who.present else " — not in the chapter"))

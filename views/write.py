"""Write: start a story, co-write it chapter by chapter with the graph (or its no-KG twin), continue any work from
the cursor, download it. Every generated chapter is a draft until accepted; continuations become new revisions."""
from __future__ import annotations

import streamlit as st

from core.services import write_service as ws
from core.services.background_jobs import saved_draft
from core.services.guarded_store import is_read_only
from core.write import DecodeParams
from views._continuity_view import draft_conflicts
from views._desk import desk_section
from views._jobs import job_panel, start_job
from views._shared import get_store, plain, work_picker
from views._state import (
    WRITE_DRAFT,
    WRITE_DRAFT_ID,
    WRITE_FINAL,
    WRITE_TEXT,
)
from views._write_continue import continue_section
from views._write_start import start_section

store = get_store()
st.title("Write")
start_section(store)  # the form, or the story just started and "Start another story"

work_id = work_picker()
if work_id is None or is_read_only(store, work_id):  # shared read-only (the picker says so): only its owner writes
    st.stop()
work = store.get_work(work_id)
story = "arc" in work.settings
left, right = st.columns(2)
temperature = left.slider("Temperature", 0.0, 1.5, 0.8, 0.05, key="write_temp",
                          help="How adventurous the word choices are: 0 always takes the likeliest word; higher "
                               "values surprise more and stray more.")
# A story's own box (a key per story) starts at its chapter length in tokens, so a chapter is never cut short by
# another work's number (a book's 150 tokens, or a shorter story's).
length = right.number_input("Max new tokens", 16, 8000,
                            ws.story_params(store, work_id).chapter_tokens() if story else 150,
                            key=f"write_tokens_story_{work_id}" if story else "write_tokens",
                            help="A token is about three quarters of a word. A story's chapter: its longest chapter "
                                 "in tokens. A continuation below: at most this.")
decode = DecodeParams(temperature=float(temperature), max_tokens=int(length))
# the one panel of the work's background job (a chapter, its storing, a KID continuation): progress, time left, Stop
busy = job_panel(store, work_id, ("story_chapter", "story_accept", "continuation")).busy


if story:
    state = ws.story_state(store, work_id)
    params = ws.story_params(store, work_id)
    st.caption(f"{plain(params.premise)} · {params.arc} · {ws.graph_note(store, work_id)} · "
               f"{work.chapter_count}/{params.max_chapters} chapters" + (" · finished" if state.finished else ""))
    if twin := work.settings.get("twin") or work.settings.get("twin_of"):
        st.caption(f"Twin: work #{twin}")
    elif st.button("Start the no-KG twin", key="write_twin", help="Same premise and arc, written without graph"):
        ws.create_twin(store, work_id)
        st.rerun()
    if not state.finished:  # an LLM job: its tokens and price before it starts
        name = ws.writing_model(store, work_id)
        est = ws.chapter_estimate(store, work_id, name, decode)
        st.caption(f"Estimate with {name}: ~{est.input_tokens:,} input and ~{est.output_tokens:,} output tokens for "
                   f"the chapter{' and the grapher' if est.calls > 1 else ''}: {est.label}")
    gen, regen = st.columns(2)
    go = gen.button("Generate next chapter", type="primary", key="write_next", disabled=state.finished or busy)
    go = regen.button("Regenerate", key="write_regen", disabled=not WRITE_DRAFT.is_set() or busy) or go
    if go:
        start_job(store, work_id, "story_chapter", {"temperature": decode.temperature, "max_tokens": decode.max_tokens})
    kept = saved_draft(store, work_id)  # the draft lives in the work until accepted: a reload or a tab keeps it
    if kept and WRITE_DRAFT_ID.get() != kept.id:  # a new draft: into the editor
        WRITE_DRAFT.set(kept.text)
        WRITE_FINAL.set(kept.final)
        WRITE_TEXT.set(kept.text)
        WRITE_DRAFT_ID.set(kept.id)
    elif kept is None and WRITE_DRAFT_ID.pop():  # accepted (here or in another tab)
        WRITE_DRAFT.clear()
        WRITE_TEXT.clear()
    if kept and kept.stopped:
        st.info("Stopped: the partial chapter is kept as a draft.")
    if WRITE_DRAFT.is_set():
        if kept and kept.note:  # a loop was cut: say so above the draft, not after it
            st.warning(plain(kept.note), icon=":material/content_cut:")
        # the box is as tall as the draft: a loop or an odd ending is never hidden below its top
        st.text_area("Draft (edit before accepting)", key=WRITE_TEXT.key, height="content")
        st.caption(f"The whole draft is shown: {len(WRITE_TEXT.get().split()):,} words.")
        draft_conflicts(store, work_id, WRITE_TEXT.get(), box="draft_continuity")   # issue 32, before Accept
        if note := ws.writer_note(store, work_id):
            st.caption(note)
        final = st.checkbox("This is the final chapter", key=WRITE_FINAL.key)
        if st.button("Accept chapter", key="write_accept", disabled=busy):
            start_job(store, work_id, "story_accept", {"text": WRITE_TEXT.get(), "final": final})
    with st.expander("Write a chapter yourself"):
        own_title = st.text_input("Title", key="own_title")
        own_text = st.text_area("Chapter", key="own_text", height=200)
        draft_conflicts(store, work_id, own_text)   # continuity (issue 32): a hand-written draft too
        own_final = st.checkbox("Final chapter", key="own_final")
        if st.button("Save my chapter", key="own_save", disabled=state.finished or busy):
            start_job(store, work_id, "story_accept", {"text": own_text, "final": own_final,
                                                       "title": own_title or None, "source": "written"})
    desk_section(store, work_id, busy=busy)   # issue 34: manuscript, plan, story bible, rewrite a passage

continue_section(store, work, temperature=float(temperature), length=int(length), busy=busy)

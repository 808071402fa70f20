"""The Write page's "Continue from the cursor" section: any work, any chapter, any mode (KID included), streamed
into the page and saved as a new revision on request."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from core.domain import Work
from core.llm import LLMError
from core.services import llm_service
from core.services import write_service as ws
from core.store import StaleRevision, Store
from core.write import ContinueParams, mode_names
from core.write.kid import VARIANTS, KidParams
from pages._shared import plain
from pages._state import CONT_LOADED, CONT_PARTIAL, CONT_TEXT, CONTINUATION, ShownContinuation, Slot

T = TypeVar("T")


def streamed(call: Callable[[Callable[[str], None]], T], partial: Slot[str]) -> T | None:
    """`call(on_piece)`, its pieces streamed into the page (and kept in `partial` should the run be cut off)."""
    box, stop = st.empty(), st.empty()
    partial.set("")

    def on_piece(piece: str) -> None:
        partial.set(partial.get() + piece)
        box.markdown(plain(partial.get()))
    stop.button("Stop", key=f"{partial.key}_stop")  # a click reruns the page, ending this run; the partial text stays
    try:
        out = call(on_piece)
    except (LLMError, ValueError) as exc:
        box.empty()  # the callers keep the partial text (as a draft, or as a continuation that can be saved)
        stop.empty()
        st.error(plain(str(exc)))
        return None
    box.empty()  # done: the caller shows the result (or the draft to edit); the streamed copy would repeat it
    stop.empty()
    return out


def continue_section(store: Store, work: Work, *, temperature: float, length: int) -> None:
    work_id = work.id
    chapters = store.list_chapters(work_id)
    if not chapters:
        return
    st.subheader("Continue from the cursor", anchor=False)
    index = st.selectbox("Chapter", [c.index for c in chapters], index=len(chapters) - 1, key="cont_chapter")
    chapter = store.get_chapter(work_id, index)
    if CONT_LOADED.get() != (work_id, index, chapter.revision):
        CONT_LOADED.set((work_id, index, chapter.revision))
        CONT_TEXT.set(chapter.text)
        CONTINUATION.clear()
    st.text_area("Your text: everything here is kept; cut it where the continuation should start", key=CONT_TEXT.key,
                 height=220)
    mode = st.radio("Mode", mode_names(), horizontal=True, key="cont_mode")
    kid = None
    if mode == "kid":  # Knowledge Infused Decoding: needs a local model (logits access)
        k1, k2, k3, k4, k5 = st.columns(5)
        kid = KidParams(hops=k1.number_input("Hops", 1, 4, 2, key="kid_hops"),
                        steps=k2.number_input("Steps", 0, 10, 3, key="kid_steps"),
                        strength=k3.number_input("Strength", 0.0, 5.0, 0.5, 0.1, key="kid_strength"),
                        variant=k4.selectbox("Variant", VARIANTS, key="kid_variant"),
                        seed=k5.number_input("Seed", 0, 2**31 - 1, 0, key="kid_seed"),
                        temperature=temperature, max_tokens=length)
    if st.button("Continue", key="cont_go"):
        params = ContinueParams(mode=mode, tokens=length, temperature=temperature, kid=kid)
        done = streamed(lambda cb: ws.continue_work(  # the model is built inside: its errors are shown like the run's
            store, work_id, params, llm_service.build_llm(store, "writing", work.settings.get("llm"), work_id=work_id),
            chapter=index, on_piece=cb, text=CONT_TEXT.get()), CONT_PARTIAL)
        if done:
            CONTINUATION.set(ShownContinuation(done))
            CONT_PARTIAL.clear()
    if partial := CONT_PARTIAL.pop().strip():  # stopped or failed midway: keep what came
        CONTINUATION.set(ShownContinuation(ws.Continuation(partial, mode, [], "(generation stopped before the end)",
                                                           0.0, []), partial=True))
    shown = CONTINUATION.get()
    if shown and shown.partial:
        st.info("Generation stopped before the end: the partial continuation below can still be saved.")
    result = shown.result if shown else None
    if result and (overlay := result.overlay()):
        st.html(overlay)  # every token html-escaped; hover a highlighted one for its fact
    elif result:
        st.markdown(plain(result.text) or "*(nothing generated)*")
    if result:  # every mode, KID included: its prompt, what was left out of it, and the save
        for note in result.notes:
            st.info(plain(note))
        rate = f", {result.tokens_per_second:.1f} tokens/s" if result.tokens_per_second else ""
        with st.expander(f"Prompt ({result.mode}, {result.seconds:.1f} s{rate})"):
            st.code(result.prompt, language=None, wrap_lines=True)
            if result.facts:
                st.dataframe(result.facts, hide_index=True)
        if st.button("Save as a new revision", key="cont_save"):
            try:
                ws.save_continuation(store, work_id, index, CONT_TEXT.get(), result.text, chapter.revision)
                CONTINUATION.clear()
                st.rerun()
            except StaleRevision as exc:
                st.error(plain(str(exc)))
    st.caption(f"Chapter {index} has {len(store.chapter_revisions(work_id, index))} revision(s).")
    md, epub = st.columns(2)
    for column, fmt in ((md, "md"), (epub, "epub")):
        data, name, mime = ws.export_story(store, work_id, fmt)
        column.download_button(f"Download {fmt.upper()}", data, name, mime, key=f"write_dl_{fmt}")

"""The Write page's "Continue from the cursor" section: any work, any chapter, any mode, streamed into the page and
saved as a new revision on request; KID (minutes on the embedded model) runs as a background job whose result waits in
the work. The modes' labels and KID's settings: views/_write_continue_modes.py; the continuation as shown, with its
save: views/_write_continue_result.py."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from core.domain import Work
from core.llm import LLMError
from core.services import continuation_job, llm_service
from core.services import continuation_service as cs
from core.services import write_service as ws
from core.store import Store
from core.write import ContinueParams, mode_names
from views._jobs import start_job
from views._shared import plain
from views._state import CONT_LOADED, CONT_PARTIAL, CONT_TEXT, CONTINUATION, ShownContinuation, Slot
from views._write_continue_modes import MODE_HELP, MODES, kid_params
from views._write_continue_result import continuation_result

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


def _pick_up(store: Store, work_id: int, indexes: list[int],
             chapter_key: Slot[int | None]) -> continuation_job.SavedContinuation | None:
    """A continuation the background job left in the work, not yet shown in this session: its chapter is chosen."""
    saved = continuation_job.saved_continuation(store, work_id)
    seen: Slot[str] = Slot(f"cont_seen_{work_id}", "")
    if saved is None or seen.get() == saved.id or saved.chapter not in indexes:
        return None
    seen.set(saved.id)
    chapter_key.set(saved.chapter)
    return saved


def continue_section(store: Store, work: Work, *, temperature: float, length: int, busy: bool = False) -> None:
    work_id = work.id
    chapters = store.list_chapters(work_id)
    if not chapters:
        return
    st.subheader("Continue from the cursor", anchor=False)
    indexes = [c.index for c in chapters]
    chapter_key: Slot[int | None] = Slot(f"cont_chapter_{work_id}", None)  # per work: a story's chapter 1 is not
    picked = _pick_up(store, work_id, indexes, chapter_key)                 # where a book is continued
    # the last chapter by default; the picked-up continuation's chapter when one was set by code (not both: a
    # default beside a value set by code makes Streamlit log a warning with a stack)
    index = st.selectbox("Chapter", indexes, index=0 if picked is not None else len(chapters) - 1, key=chapter_key.key,
                         help="The continuation is written after this chapter's text (the last one: the end of the "
                              "work).")
    chapter = store.get_chapter(work_id, index)
    if picked is not None:  # the text it continued, and the revision that text came from (a later edit: refused)
        CONT_LOADED.set((work_id, index, chapter.revision))
        CONT_TEXT.set(picked.kept)
        CONTINUATION.set(ShownContinuation(picked.result, picked.result.stopped, picked.id, picked.revision))
    elif CONT_LOADED.get() != (work_id, index, chapter.revision):
        CONT_LOADED.set((work_id, index, chapter.revision))
        CONT_TEXT.set(chapter.text)
        CONTINUATION.clear()
    st.text_area("Your text: everything here is kept; cut it where the continuation should start", key=CONT_TEXT.key,
                 height=220)
    mode = st.radio("Mode", mode_names(), horizontal=True, key="cont_mode", format_func=lambda m: MODES.get(m, m),
                    help=MODE_HELP)
    kid = kid_params(temperature, length) if mode == "kid" else None  # needs a local model (logits access)
    cannot = ws.kid_note(store, work_id) if mode == "kid" else None
    if cannot:
        st.warning(plain(cannot), icon=":material/info:")
    if st.button("Continue", key="cont_go", disabled=busy or bool(cannot)):
        params = ContinueParams(mode=mode, tokens=length, temperature=temperature, kid=kid)
        if mode == "kid":  # minutes on the embedded model: the background worker, with progress, time left, Stop
            CONTINUATION.clear()
            start_job(store, work_id, "continuation", continuation_job.continuation_params(
                mode=mode, tokens=length, temperature=temperature, chapter=index, text=CONT_TEXT.get(),
                revision=chapter.revision, kid=kid))  # reruns the page (its panel polls); a busy work: a message
        else:
            done = streamed(lambda cb: cs.continue_work(  # the model is built inside: its errors are shown as the
                store, work_id, params, llm_service.build_llm(  # run's are
                    store, "writing", work.settings.get("llm"), work_id=work_id),
                chapter=index, on_piece=cb, text=CONT_TEXT.get()), CONT_PARTIAL)
            if done:
                CONTINUATION.set(ShownContinuation(done))
                CONT_PARTIAL.clear()
    continuation_result(store, work_id, index, chapter.revision, mode)
    revisions = len(store.chapter_revisions(work_id, index))
    st.caption(f"Chapter {index} has {revisions} revision{'' if revisions == 1 else 's'}.")
    if "arc" in work.settings:   # a story: its manuscript on the writer's desk has the downloads (views/_desk*.py)
        return
    for column, fmt in zip(st.columns(3), ("md", "epub", "docx")):
        data, name, mime = ws.export_story(store, work_id, fmt)
        column.download_button(f"Download {fmt.upper()}", data, name, mime, key=f"write_dl_{fmt}")

"""The Write page's "Continue from the cursor" section: any work, any chapter, any mode, streamed into the page and
saved as a new revision on request; KID (minutes on the embedded model) runs as a background job whose result waits in
the work. Modes and KID's settings have plain labels; the papers' names are in the help."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from core.domain import Work
from core.llm import LLMError
from core.services import continuation_job, llm_service
from core.services import write_service as ws
from core.store import StaleRevision, Store
from core.write import ContinueParams, mode_names
from core.write.kid import KidParams
from views._jobs import start_job
from views._shared import plain
from views._state import CONT_LOADED, CONT_PARTIAL, CONT_TEXT, CONTINUATION, ShownContinuation, Slot

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


MODES = {"plain": "Text only", "kg-prompt": "Facts in the prompt", "kg-block": "Story notes in the prompt",
         "kid": "Fact-steered words (KID)"}
MODE_HELP = ("**Text only**: the model reads the text above and goes on. **Facts in the prompt**: the work's facts "
             "closest to your last paragraph are put before it (Andrus et al.). **Story notes in the prompt**: a note "
             "on the story's people, places and events from its graph comes first (Remember Me). **Fact-steered "
             "words (KID)**: the embedded model writes word by word, nudged toward the names and things of the "
             "closest facts; it runs in the background (minutes for 150 tokens), with progress and a Stop.")
METHODS = {"logits": "Word choices (fast)", "kv": "Model memory (about 5x slower)"}


def _kid_params(temperature: float, length: int) -> KidParams:
    """KID's settings, in words a writer can act on (the paper's names in the help)."""
    k1, k2, k3, k4, k5 = st.columns(5)
    return KidParams(
        hops=k1.number_input("How far to follow facts", 1, 4, 2, key="kid_hops",
                             help="1: facts about the names in your text; 2: also facts about what those facts "
                                  "name, and so on (the paper's hops)."),
        steps=k2.number_input("Nudges per word", 0, 10, 3, key="kid_steps",
                              help="How many times each word choice is pushed toward the facts; 0 turns steering off "
                                   "(plain sampling). The paper's policy-update steps."),
        strength=k3.number_input("Nudge strength", 0.0, 5.0, 0.5, 0.1, key="kid_strength",
                                 help="How big each push is; a cap keeps the text close to what the model would "
                                      "write anyway."),
        variant=k4.selectbox("Steering method", list(METHODS), format_func=METHODS.__getitem__, key="kid_variant",
                             help="Word choices: the paper's update of the next-word probabilities. Model memory: "
                                  "the released code's change to the model's memory of the text."),
        seed=k5.number_input("Seed", 0, 2**31 - 1, 0, key="kid_seed", help="The same seed writes the same text."),
        temperature=temperature, max_tokens=length)


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
    index = st.selectbox("Chapter", indexes, index=len(chapters) - 1, key=chapter_key.key,
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
    kid = _kid_params(temperature, length) if mode == "kid" else None  # needs a local model (logits access)
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
            done = streamed(lambda cb: ws.continue_work(  # the model is built inside: its errors are shown as the
                store, work_id, params, llm_service.build_llm(  # run's are
                    store, "writing", work.settings.get("llm"), work_id=work_id),
                chapter=index, on_piece=cb, text=CONT_TEXT.get()), CONT_PARTIAL)
            if done:
                CONTINUATION.set(ShownContinuation(done))
                CONT_PARTIAL.clear()
    if partial := CONT_PARTIAL.pop().strip():  # stopped or failed midway: keep what came
        CONTINUATION.set(ShownContinuation(ws.partial_continuation(partial, mode), partial=True))
    shown = CONTINUATION.get()
    if shown and shown.partial:
        st.info("Generation stopped before the end: the partial continuation below can still be saved.")
    result = shown.result if shown else None
    if result and (overlay := result.overlay()):
        st.html(overlay)  # every token html-escaped; hover a highlighted one for its fact
        st.caption("Highlighted: the words KID steered toward a fact (hover one for the fact).")
    elif result:
        st.markdown(plain(result.text) or "*(nothing generated)*")
    if shown and result:  # every mode, KID included: its prompt, what was left out of it, and the save
        for note in result.notes:
            st.info(plain(note))
        rate = f", {result.tokens_per_second:.1f} tokens/s" if result.tokens_per_second else ""
        with st.expander(f"Prompt ({MODES.get(result.mode, result.mode)}, {result.seconds:.1f} s{rate})"):
            st.code(result.prompt, language=None, wrap_lines=True)
            if result.facts:
                st.dataframe(result.facts, hide_index=True)
        save, drop = st.columns(2)
        if save.button("Save as a new revision", key="cont_save"):
            try:
                ws.save_continuation(store, work_id, index, CONT_TEXT.get(), result.text,
                                     shown.revision if shown.revision is not None else chapter.revision)
                _forget(store, work_id, shown)
            except StaleRevision as exc:
                st.error(plain(str(exc)))
        if shown.saved_id and drop.button("Discard", key="cont_discard"):
            _forget(store, work_id, shown)
    st.caption(f"Chapter {index} has {len(store.chapter_revisions(work_id, index))} revision(s).")
    if "arc" in work.settings:   # a story: its manuscript on the writer's desk has the downloads (views/_desk*.py)
        return
    for column, fmt in zip(st.columns(3), ("md", "epub", "docx")):
        data, name, mime = ws.export_story(store, work_id, fmt)
        column.download_button(f"Download {fmt.upper()}", data, name, mime, key=f"write_dl_{fmt}")


def _forget(store: Store, work_id: int, shown: ShownContinuation) -> None:
    """The shown continuation is done with (saved or discarded): off the page, and out of the work where it waited."""
    if shown.saved_id:
        continuation_job.discard_continuation(store, work_id, shown.saved_id)
    CONTINUATION.clear()
    st.rerun()

"""The Write page's continuation as shown: the text (KID's steered words highlighted), its notes, the prompt it was
written from, and Save as a new revision / Discard. A run stopped midway keeps its partial text here to save."""
from __future__ import annotations

import streamlit as st

from core.services import continuation_job
from core.services import continuation_service as cs
from core.store import StaleRevision, Store
from views._desk_common import continuation_note
from views._shared import plain
from views._state import CONT_PARTIAL, CONT_TEXT, CONTINUATION, ShownContinuation
from views._write_continue_modes import MODES


def continuation_result(store: Store, work_id: int, index: int, revision: int, mode: str) -> None:
    """The continuation of chapter `index` (at `revision`, the chapter's current one) in `mode`, under the button."""
    if partial := CONT_PARTIAL.pop().strip():  # stopped or failed midway: keep what came
        CONTINUATION.set(ShownContinuation(cs.partial_continuation(partial, mode), partial=True))
    shown = CONTINUATION.get()
    if shown and shown.partial:
        st.info("Generation stopped before the end: the partial continuation below can still be saved.")
    result = shown.result if shown else None
    if result:  # a loop cut, assistant talk: said above the text, as for drafts
        for note in result.notes:
            (st.warning if result.talk_only else st.info)(plain(note))
    if result and (overlay := result.overlay()):
        st.html(overlay)  # every token html-escaped; hover a highlighted one for its fact
        st.caption("Highlighted: the words KID steered toward a fact (hover one for the fact).")
    elif result and result.talk_only:  # the model wrote about the text: not presented as the story (core.metatalk)
        with st.expander("What the model wrote (about the text, not a continuation of it)"):
            st.caption(plain(result.text))
    elif result:
        st.markdown(plain(result.text) or "*(nothing generated)*")
    if result and (small := continuation_note(store, work_id)):  # beside the text, not only on Home
        st.caption(small)
    if shown and result:  # every mode, KID included: its prompt, what was left out of it, and the save
        rate = f", {result.tokens_per_second:.1f} tokens/s" if result.tokens_per_second else ""
        with st.expander(f"Prompt ({MODES.get(result.mode, result.mode)}, {result.seconds:.1f} s{rate})"):
            st.code(result.prompt, language=None, wrap_lines=True)
            if result.facts:
                st.dataframe(result.facts, hide_index=True)
        save, drop = st.columns(2)
        if save.button("Save as a new revision", key="cont_save"):
            try:
                cs.save_continuation(store, work_id, index, CONT_TEXT.get(), result.text,
                                     shown.revision if shown.revision is not None else revision)
                _forget(store, work_id, shown)
            except StaleRevision as exc:
                st.error(plain(str(exc)))
        if shown.saved_id and drop.button("Discard", key="cont_discard"):
            _forget(store, work_id, shown)


def _forget(store: Store, work_id: int, shown: ShownContinuation) -> None:
    """The shown continuation is done with (saved or discarded): off the page, and out of the work where it waited."""
    if shown.saved_id:
        continuation_job.discard_continuation(store, work_id, shown.saved_id)
    CONTINUATION.clear()
    st.rerun()

"""Continuity's "read this chapter with a capable model" box (issue 32's LLM path): the model and the price first,
then the findings whose two sentences were found in the book, each beside the earlier sentence it contradicts."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core.continuity.model import KIND_TITLES
from core.services import continuity_reading, continuity_service
from core.store import Store
from views._continuity_view import both_sentences
from views._state import CONT_READING
from views._text import plain


def reading_box(store: Store, work_id: int, chapter: int, open_in_reader: Callable[[int, int, int], None]) -> None:
    """Below the rule-based flags of one chapter: have the configured extraction model read it. `open_in_reader`:
    the page's callback taking (chapter, start, end), as its own flags' buttons do."""
    name = continuity_reading.reader_name(store)
    with st.expander(f"Read chapter {chapter} with a language model", icon=":material/neurology:"):
        if not continuity_reading.can_read(store):
            st.info(continuity_reading.EMBEDDED_NOTE)
            return
        try:
            plan = continuity_reading.reading_plan(store, work_id, chapter)
        except ValueError as exc:
            st.info(plain(str(exc)))
            return
        revision = store.get_chapter(work_id, chapter).revision
        key = f"{work_id}|{chapter}|{revision}|{name}"
        st.caption(f"{plain(name)} reads the chapter beside the earlier passages about its people: "
                   f"{plan.calls} call(s), about {plan.input_tokens:,} tokens sent, {plan.label}. A finding is shown "
                   "only when both sentences it quotes are in the book; it is not kept after you leave the page.")
        if st.button("Read the chapter", key="continuity_read_llm", icon=":material/neurology:"):
            with st.spinner(f"{name} is reading chapter {chapter}…"):
                CONT_READING.set((key, continuity_reading.read_chapter(store, work_id, chapter)))
        shown = CONT_READING.get()
        if shown is None or shown[0] != key:
            return
        done = shown[1]
        for note in done.notes:
            st.warning(plain(note))
        if not done.flags and done.calls:
            st.success(f"{plain(done.llm)} found no contradiction in chapter {chapter} ({done.seconds:.0f} s). A "
                       "model can miss one: this is a second reader, not a proof.")
        ruled = {v.flag.start for v in continuity_service.list_flags(store, work_id, chapter, include_intended=True)}
        for n, flag in enumerate(done.flags):
            with st.container(border=True, key=f"continuity_read_{n}"):
                st.markdown(f"**{KIND_TITLES.get(flag.kind, flag.kind)}** · {plain(flag.entity)}"
                            + (" · *also flagged by the rules above*" if flag.start in ruled else ""))
                st.caption(plain(flag.detail))
                both_sentences(flag, "continuity_read_", n, open_in_reader)

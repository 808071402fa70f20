"""Continuity's "read this chapter with a capable model" box (issue 32's LLM path): the model and the price first,
then the findings whose two sentences were found in the book, each beside the earlier sentence it contradicts."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core.continuity.model import KIND_TITLES
from core.services import continuity_reading, continuity_service
from core.store import Store
from core.wording import counted
from views._continuity_view import both_sentences
from views._state import CONT_PLANS, CONT_READING
from views._text import plain


def reading_box(store: Store, work_id: int, chapter: int, open_in_reader: Callable[[int, int, int], None]) -> None:
    """Below the rule-based flags of one chapter: have the configured extraction model read it. `open_in_reader`:
    the page's callback taking (chapter, start, end), as its own flags' buttons do."""
    name = continuity_reading.reader_name(store)
    with st.expander(f"Read chapter {chapter} with a language model", icon=":material/neurology:"):
        if not continuity_reading.can_read(store):
            st.info(continuity_reading.EMBEDDED_NOTE)
            return
        # the chapters the prompt is made of, by revision: the price is worked out once per edit, not on every rerun
        revisions = ",".join(str(c.revision) for c in store.list_chapters(work_id) if c.index <= chapter)
        key = f"{work_id}|{chapter}|{revisions}|{name}"
        plans = CONT_PLANS.get() or {}
        if key not in plans:
            plans = {k: v for k, v in list(plans.items())[-15:]}  # a few chapters' prices, not every one ever shown
            CONT_PLANS.set(plans)
            try:
                plans[key] = continuity_reading.reading_plan(store, work_id, chapter)
            except ValueError as exc:
                plans[key] = str(exc)
        plan = plans[key]
        if isinstance(plan, str):
            st.info(plain(plan))
            return
        st.caption(f"{plain(name)} reads the chapter beside the earlier passages about its people: "
                   f"{counted(plan.calls, 'call')}, about {plan.input_tokens:,} tokens sent, {plan.label}. "
                   "A finding is shown only when both sentences it quotes are in the book; it is not kept after you "
                   "leave the page.")
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

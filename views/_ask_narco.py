"""The Ask page's NARCO section: how many passages are connected by retrospective questions, and the background
build of more (window, chapters, the estimate with the extraction model)."""
from __future__ import annotations

import streamlit as st

from core.services import narco_service
from core.services.guarded_store import is_read_only
from core.services.llm_service import resolve_llm_name
from core.store import Store
from views._jobs import start_job


def narco_section(store: Store, work_id: int, last: int, busy: bool) -> None:
    """The "NARCO edges" expander; its button is disabled while `busy` (a job holds the work)."""
    with st.expander("NARCO edges (retrospective questions between passages)"):
        state = narco_service.status(store, work_id)
        st.caption(f"{state['built']} of {state['passages']} passages connected · {state['edges']} questions"
                   + (" · an earlier build stopped and will resume" if state["unfinished"] else ""))
        c1, c2, c3 = st.columns(3)
        window = c1.number_input("Window (passages)", 1, 20, 3, key="narco_window")
        first = c2.number_input("From chapter", 1, last, 1, key=f"narco_from_{work_id}")
        to = c3.number_input("To chapter", 1, last, last, key=f"narco_to_{work_id}")
        narco = narco_service.NarcoParams(window=int(window), first_chapter=int(first),
                                          last_chapter=int(max(first, to)))
        llm_name = resolve_llm_name(store, "extraction")
        estimate = narco_service.estimate(store, work_id, narco, llm_name)
        st.caption(f"Estimate with {llm_name}: {estimate.units} passages, {estimate.detail['pairs']} pairs, "
                   f"~{estimate.calls} calls, ~{estimate.input_tokens:,} input and "
                   f"{estimate.output_tokens:,} output tokens: {estimate.label}")
        if st.button("Build NARCO edges", key="narco_build",
                     disabled=not estimate.units or busy or is_read_only(store, work_id)):
            start_job(store, work_id, "narco", {"llm_name": llm_name, "window": narco.window,
                                                "first_chapter": narco.first_chapter,
                                                "last_chapter": narco.last_chapter})

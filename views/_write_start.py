"""The Write page's "Start a story" form. Once a story is started the form gives way to its confirmation and a "Start
another story" button (issue 37): the second click of a double click finds no form to submit, so the story is made
once, and the next story starts from an empty form (the fields' state goes with the form)."""
from __future__ import annotations

import streamlit as st

from core.services import llm_service
from core.services import write_service as ws
from core.store import Store
from core.write import ARCS, PREMISES, WriteParams
from views._shared import plain, select_work
from views._state import WORK_ID, WRITE_OPEN_START, Slot

STARTED: Slot[tuple[int, str, int] | None] = Slot("write_started", None)   # (work id, title, chapters) just started
MODEL_HELP = ("Who writes the chapters. `local:gemma3-270m` and `local:smollm2` are Fabula's own small models: "
              "offline and free, but they repeat themselves and lose the thread within a few paragraphs. For chapters "
              "worth keeping, set up a stronger model in Settings (for example `openai:gpt-4o-mini`, "
              "`anthropic:claude-haiku-4-5`, or a model on your own Ollama or LM Studio server) and name it here.")
PLAN_HELP = ("The writing model outlines each chapter (its beats, its characters, where it goes in the arc) before "
             "writing it; the outline is shown and editable on the writer's desk below (Plan), and can be switched "
             "on or off there later.")
GRAPH_HELP = ("Fabula reads each chapter into a graph of the story's people, places and events, and shows the writer a "
              "note made from it before the next chapter (the Remember Me method). Without it the writer sees only "
              "the last chapters.")


def start_section(store: Store) -> None:
    started = STARTED.get()
    if started is not None and WORK_ID.get() != started[0]:  # another work was opened since: the form again
        STARTED.clear()
        started = None
    with st.expander("Start a story", expanded=WRITE_OPEN_START.get() or not store.list_works() or bool(started)):
        if started is not None:
            work_id, title, chapters = started
            st.success(f"Started “{plain(title)}” ({chapters} chapters at most). Write its first chapter below.",
                       icon=":material/check_circle:")
            if st.button("Start another story", key="write_start_another", icon=":material/add:"):
                STARTED.clear()
                st.rerun()
            return
        _form(store)


def _form(store: Store) -> None:
    with st.form("write_new", enter_to_submit=False):  # Enter in a box submitted it: two stories were made
        title = st.text_input("Title", key="new_title")
        choice = st.selectbox("Premise", ["My own", *PREMISES], index=1, key="new_premise")
        own = st.text_area("Your premise", key="new_own", height=70,
                           help="When you write one, it is used instead of the premise chosen above.")
        c1, c2, c3 = st.columns(3)
        arc = c1.selectbox("Story arc", list(ARCS), key="new_arc", help="\n\n".join(f"**{a}**: {d}" for a, d in
                                                                               ARCS.items()))
        words = c2.slider("Chapter length (words)", 100, 3000, (800, 1200), 50, key="new_words")
        chapters = c3.number_input("At most chapters", 1, 200, 12, key="new_max")
        model = st.text_input("Model that writes", llm_service.resolve_llm_name(store, "writing"), key="new_model",
                              help=MODEL_HELP)
        kg_col, plan_col = st.columns(2)
        use_kg = kg_col.checkbox("Use the knowledge graph", True, key="new_kg", help=GRAPH_HELP)
        plan = plan_col.checkbox("Plan each chapter before it is written", False, key="new_plan", help=PLAN_HELP)
        if st.form_submit_button("Start", type="primary", key="new_start"):
            try:
                params = WriteParams(own.strip() or ("" if choice == "My own" else choice), arc, words[0], words[1],
                                     int(chapters), use_kg, llm=model or None, plan=plan)
                started = ws.start_story(store, title or "Untitled story", params)
            except ValueError as exc:
                st.error(plain(str(exc)))
                return
            select_work(started.id)
            STARTED.set((started.id, started.title, int(chapters)))
            st.rerun()  # the confirmation replaces the form: a second click of a double click has nothing to submit

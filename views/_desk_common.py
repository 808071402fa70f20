"""What the writer's desk views share (issue 34): the story's writing model from the one door, the honest note next
to what an embedded model planned or rewrote, and a one-shot message that survives the rerun after a save."""
from __future__ import annotations

import streamlit as st

from core.llm import LLM, LLMConfigError
from core.llm.registry import is_embedded
from core.services import llm_service
from core.services import write_service as ws
from core.store import Store
from views._shared import plain
from views._state import Slot

DONE: Slot[str | None] = Slot("desk_done", None)   # "Saved as revision 3", shown once after the rerun


def writing_llm(store: Store, work_id: int) -> LLM:
    """The story's own writing model (as "Generate next chapter" uses it), from the one door."""
    return llm_service.build_llm(store, "writing", store.get_work(work_id).settings.get("llm"), work_id=work_id)


def embedded_writer(store: Store, work_id: int) -> str | None:
    """The work's writing model when it is an embedded one (None for any other model)."""
    name = ws.writing_model(store, work_id)
    try:
        return name if is_embedded(name) else None
    except LLMConfigError:   # a name no provider knows: the model's own error says so when it is used
        return None


def small_model_note(store: Store, work_id: int, job: str) -> str | None:
    """What to say next to a plan or a rewrite by an embedded model (None for any other model)."""
    if (name := embedded_writer(store, work_id)) is None:
        return None
    return (f"This story is written by the embedded model {name}: a model this small does {job} poorly, so read "
            "its output as a suggestion to edit. A stronger model (Settings → writing) does it properly.")


def continuation_note(store: Store, work_id: int) -> str | None:
    """What to say next to a continuation by an embedded model (None for any other model)."""
    if (name := embedded_writer(store, work_id)) is None:
        return None
    return (f"Continued by the embedded model {name}: a model this small loses the thread within a few sentences "
            "and sometimes writes about the text instead of continuing it, so read this as a rough draft. A stronger "
            "model (Settings → writing) continues a story properly.")


def done(message: str) -> None:
    """Say `message` after the rerun that follows a save."""
    DONE.set(message)
    st.rerun()


def show_done() -> None:
    if message := DONE.pop():
        st.success(plain(message), icon=":material/check_circle:")

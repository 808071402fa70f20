"""The Read page's chapter editor: the chapter's text edited in place and saved as a new revision (every revision
is kept); a save from a stale copy is refused and the user's text stays in the editor."""
from __future__ import annotations

import streamlit as st

from core.domain import Chapter
from core.services.library import edit_chapter
from core.store import NotFound, StaleRevision, Store
from views._shared import plain
from views._state import READ_EDIT_ERROR, READ_EDIT_SAVED, READ_EDITING, Slot, read_editor


def save_edit(store: Store, work_id: int, index: int, text: Slot[str], loaded: Slot[tuple[int, str] | None]) -> None:
    """Save button callback. On success the editor closes; when the chapter was saved elsewhere meanwhile, nothing
    is saved and the user's text stays in the editor."""
    started = loaded.get()
    assert started is not None, "the editor's starting revision is kept from the moment it opens"
    revision = started[0]
    try:
        saved = edit_chapter(store, work_id, index, text.get(), revision)
    except StaleRevision:
        now = store.get_chapter(work_id, index).revision
        READ_EDIT_ERROR.set(
            f"Not saved: this chapter changed since you opened it (it is now revision {now}; you started from "
            f"revision {revision}). Your text is still in the editor: copy what you want to keep, then load the "
            "current text and apply your changes to it.")
    except NotFound:
        READ_EDIT_ERROR.set("Not saved: this chapter no longer exists.")
    except ValueError as exc:
        READ_EDIT_ERROR.set(f"Not saved: {exc}")
    else:
        load_current(text, loaded)
        READ_EDITING.set(False)
        READ_EDIT_SAVED.set(f"Saved as revision {saved.revision}; the earlier text stays in the chapter's history. "
                            "The graph and summaries redo this chapter when next built.")


def load_current(text: Slot[str], loaded: Slot[tuple[int, str] | None]) -> None:
    for slot in (text, loaded, READ_EDIT_ERROR):
        slot.clear()


def chapter_editor(store: Store, work_id: int, index: int, chapter: Chapter) -> None:
    """The editor of chapter `index` (its current stored `chapter`), started from the revision open when it opened."""
    text, started = read_editor(work_id, index)
    loaded = started.get()  # (revision, text) the editor started from
    if (not text.is_set() or loaded is None
            or (loaded[0] != chapter.revision and text.get() == loaded[1])):  # nothing typed yet
        text.set(chapter.text)
        loaded = (chapter.revision, chapter.text)
        started.set(loaded)
    if error := READ_EDIT_ERROR.pop():
        st.error(plain(error))
    elif loaded[0] != chapter.revision:
        st.warning(f"This chapter was saved elsewhere since you started editing (now revision {chapter.revision}, "
                   f"you started from {loaded[0]}); saving your text would be refused.")
    st.text_area("Chapter text", key=text.key, height=420)
    save_col, reload_col, _ = st.columns([1, 2, 3])
    save_col.button("Save", type="primary", key="read_edit_save", on_click=save_edit,
                    args=(store, work_id, index, text, started))
    reload_col.button("Load the current text", key="read_edit_reload", on_click=load_current,
                      args=(text, started), help="Discard your changes in the editor")

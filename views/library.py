"""Library: import books, list works, open, rename and delete them; the way to start a story on the Write page."""
from __future__ import annotations

import streamlit as st

from views._jobs_imports import import_panel
from views._library_import import import_section
from views._library_works import works_list
from views._shared import get_store
from views._state import WRITE_OPEN_START

store = get_store()
st.title("Library")
import_panel(store)
import_section(store)
with st.expander("Start a new story"):
    # One place starts stories: the Write page's form (premise, arc, chapter length). A story made here had no arc,
    # so the Write page took it for a book: no "Generate next chapter", and 150 tokens for a continuation.
    st.caption("A story is planned and written chapter by chapter on the Write page: choose a premise (or write "
               "your own), an arc and the chapter length there.")
    if st.button("Start a story on the Write page", key="library_new_story", icon=":material/edit_note:"):
        WRITE_OPEN_START.set(True)
        st.switch_page("views/write.py")

works_list(store)

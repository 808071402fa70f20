"""The Library's import section: the form (a large file goes to the background worker, whose panel is drawn above
it), and the choice drawn when the file is already in the library: open that work, import a copy, or cancel."""
from __future__ import annotations

import streamlit as st

from core.config import get_settings
from core.ingest import IngestError
from core.services import imports, library
from core.store import NotFound, Store
from core.wording import counted
from views._shared import plain, select_work
from views._state import IMPORTS_SEEN_BUSY, LIBRARY_OPEN_IMPORT, PENDING_IMPORT, READ_CHAPTER, PendingImport


def run_import(store: Store, name: str, data: bytes, title: str | None, allow_copy: bool) -> None:
    """One import in a status box; a file already in the library is kept for the choice drawn below the form. A
    large file imports in the background worker: its panel shows it, in every tab, until its outcome is dismissed."""
    if imports.runs_in_background(name, len(data)):
        try:
            imports.submit(store, name, data, title=title, allow_copy=allow_copy)
        except library.AlreadyInLibrary as exc:
            PENDING_IMPORT.set(PendingImport(name, data, title, exc.existing.id))
        except imports.ImportRefused as exc:
            st.error(plain(str(exc)))
            return
        else:
            IMPORTS_SEEN_BUSY.set(True)
        st.rerun()
    with st.status(f"Importing {library.clean_filename(name)}…", expanded=True) as status:
        bar = st.progress(0.0)

        def progress(d: int, t: int, m: str) -> None:
            bar.progress(d / t, text=m)

        try:
            work = library.import_book(store, name, data, title=title, allow_copy=allow_copy, on_progress=progress)
        except library.AlreadyInLibrary as exc:  # the same file: the user chooses below
            status.update(label="This file is already in the library", state="complete", expanded=False)
            PENDING_IMPORT.set(PendingImport(name, data, title, exc.existing.id))
        except IngestError as exc:
            status.update(label="Import failed: nothing was saved", state="error", expanded=True)
            st.error(plain(str(exc)))
        else:
            status.update(label=f"Imported “{work.title}”: {counted(work.chapter_count, 'chapter')}, "
                                f"{work.word_count:,} words", state="complete")
            select_work(work.id)
            imports.embed_soon(store, work.id)  # the first question then waits for no embedding


def import_section(store: Store) -> None:
    """The import form in its expander (open while the library is empty), then a pending duplicate's choice."""
    with st.expander("Import a book (.txt, .md, .epub, .docx or .pdf)",
                     expanded=LIBRARY_OPEN_IMPORT.get() or not store.list_works()):
        with st.form("import", clear_on_submit=True):
            upload = st.file_uploader("Book file", type=["txt", "md", "markdown", "epub", "docx", "pdf"],
                                      max_upload_size=get_settings().max_upload_mb)  # what it says is what import takes
            title = st.text_input("Title (optional: taken from the book when empty)")
            submitted = st.form_submit_button("Import", type="primary")

        if submitted:
            if upload is None:
                st.warning("Choose a file first.")
            else:
                run_import(store, upload.name, upload.getvalue(), title or None, allow_copy=False)

    # The same file imported twice: open the work already there, import a copy, or cancel.
    if pending := PENDING_IMPORT.get():
        name, data, pending_title = pending.name, pending.data, pending.title
        try:
            existing = store.get_work(pending.existing_id)
        except NotFound:  # deleted since: nothing to choose between
            PENDING_IMPORT.clear()
            run_import(store, name, data, pending_title, allow_copy=True)
        else:
            box = st.empty()
            with box.container(border=True):
                st.warning(f"{plain(library.clean_filename(name))} is already in the library as "
                           f"“{plain(existing.title)}” (#{existing.id}). Open that work, or import the file again "
                           "as a copy?")
                open_col, copy_col, cancel_col = st.columns(3)
                opened = open_col.button("Open the existing work", key="duplicate_open", type="primary")
                copied = copy_col.button("Import a copy", key="duplicate_copy")
                cancelled = cancel_col.button("Cancel", key="duplicate_cancel")
            if opened or copied or cancelled:
                PENDING_IMPORT.clear()
                box.empty()
            if opened:
                select_work(existing.id)
                READ_CHAPTER.set(1)
                st.switch_page("views/read.py")
            elif copied:
                run_import(store, name, data, pending_title, allow_copy=True)

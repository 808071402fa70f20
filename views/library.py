"""Library: import books, list works, open, rename and delete them; the way to start a story on the Write page."""
from __future__ import annotations

import streamlit as st

from core.config import get_settings
from core.ingest import IngestError
from core.services import imports, library
from core.services.access import Access, ReadOnly
from core.services.guarded_store import access_of
from core.store import NotFound
from core.wording import counted
from views._account import sign_in_on
from views._jobs import import_panel
from views._shared import get_store, plain, select_work
from views._sharing import share_popover
from views._state import (
    IMPORTS_SEEN_BUSY,
    LIBRARY_OPEN_IMPORT,
    PENDING_DELETE,
    PENDING_IMPORT,
    READ_CHAPTER,
    WORK_ID,
    WRITE_OPEN_START,
    PendingDelete,
    PendingImport,
)

store = get_store()
st.title("Library")


def run_import(name: str, data: bytes, title: str | None, allow_copy: bool) -> None:
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


import_panel(store)
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
            run_import(upload.name, upload.getvalue(), title or None, allow_copy=False)

# The same file imported twice: open the work already there, import a copy, or cancel.
if pending := PENDING_IMPORT.get():
    name, data, pending_title = pending.name, pending.data, pending.title
    try:
        existing = store.get_work(pending.existing_id)
    except NotFound:  # deleted since: nothing to choose between
        PENDING_IMPORT.clear()
        run_import(name, data, pending_title, allow_copy=True)
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
            run_import(name, data, pending_title, allow_copy=True)

with st.expander("Start a new story"):
    # One place starts stories: the Write page's form (premise, arc, chapter length). A story made here had no arc,
    # so the Write page took it for a book: no "Generate next chapter", and 150 tokens for a continuation.
    st.caption("A story is planned and written chapter by chapter on the Write page: choose a premise (or write "
               "your own), an arc and the chapter length there.")
    if st.button("Start a story on the Write page", key="library_new_story", icon=":material/edit_note:"):
        WRITE_OPEN_START.set(True)
        st.switch_page("views/write.py")


def _forget_pending_delete() -> None:
    PENDING_DELETE.clear()


@st.dialog("Delete this work?", on_dismiss=_forget_pending_delete)
def confirm_delete(work_id: int, title: str) -> None:
    st.write(f"“{title}” and everything derived from it (graph, questions, summaries) will be removed. "
             "This cannot be undone.")
    left, right = st.columns(2)
    if left.button("Delete", type="primary", key="confirm_delete"):
        try:
            store.delete_work(work_id)
        except NotFound:
            pass
        except ReadOnly as exc:  # a delete tampered into the session for a work shared read-only: nothing deleted
            _forget_pending_delete()
            st.error(plain(str(exc)))
            return
        WORK_ID.clear()
        _forget_pending_delete()
        st.rerun()
    if right.button("Cancel", key="cancel_delete"):
        _forget_pending_delete()
        st.rerun()


works = store.list_works()
if not works:
    st.info("No works yet: import a book above or start a story.")
sharing = sign_in_on()  # a shared server: the owner's works can be shared read-only, a reader's are marked
for work in works:
    level = access_of(store, work.id)  # WRITE in local mode: everything is the one user's
    with st.container(border=True):
        head, stats = st.columns([3, 2])
        head.markdown(f"**{plain(work.title)}**" + (f" — {plain(work.author)}" if work.author else ""))
        stats.caption(f"{work.kind.value} · {counted(work.chapter_count, 'chapter')} · "
                      f"{counted(work.word_count, 'word')} · #{work.id}")
        read_col, rename_col, delete_col = st.columns([1, 2, 1])
        if read_col.button("Open", key=f"open_{work.id}", disabled=work.chapter_count == 0):
            select_work(work.id)
            READ_CHAPTER.set(1)
            st.switch_page("views/read.py")
        if level is Access.READ:
            rename_col.caption(f":material/lock: Read-only: shared with you by {plain(work.owner or 'the admin')}")
            continue
        with rename_col.popover("Rename"):
            new_title = st.text_input("New title", value=work.title, key=f"title_{work.id}")
            if st.button("Save title", key=f"rename_{work.id}"):
                try:
                    library.rename_work(store, work.id, new_title)
                except (ValueError, NotFound) as exc:
                    st.error(plain(str(exc)))
                else:
                    st.rerun()
        if sharing:
            share_popover(rename_col, store, work)
        if delete_col.button("Delete", key=f"delete_{work.id}"):
            PENDING_DELETE.set(PendingDelete(work.id, work.title))

# The dialog is drawn on every run while a delete is pending, so its buttons work on the run they trigger.
if doomed := PENDING_DELETE.get():
    confirm_delete(doomed.work_id, doomed.title)

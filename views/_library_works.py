"""The Library's list of works: each with Open, Rename, Share (on a shared server) and Delete, a work shared
read-only marked so; Delete asks in a dialog first."""
from __future__ import annotations

import streamlit as st

from core.services import library
from core.services.access import Access, ReadOnly
from core.services.guarded_store import access_of
from core.store import NotFound, Store
from core.wording import counted
from views._account import sign_in_on
from views._shared import plain, select_work
from views._sharing import share_popover
from views._state import PENDING_DELETE, READ_CHAPTER, WORK_ID, PendingDelete


def _forget_pending_delete() -> None:
    PENDING_DELETE.clear()


@st.dialog("Delete this work?", on_dismiss=_forget_pending_delete)
def confirm_delete(store: Store, work_id: int, title: str) -> None:
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


def works_list(store: Store) -> None:
    """Every work the user may see, then the delete dialog while a delete is pending."""
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
        confirm_delete(store, doomed.work_id, doomed.title)

"""What every page shares: the Store (one per process), typed session state, small render helpers."""
from __future__ import annotations

import streamlit as st

from core.config import get_settings
from core.domain import ChapterInfo
from core.services.guarded_store import guarded, is_read_only
from core.store import Store
from views._state import URL_WRITTEN, WORK_ID, WORK_PICKED, Slot
from views._text import plain, plain_with_italics  # noqa: F401 - the pages' text helpers, shared from here

@st.cache_resource(show_spinner=False)
def raw_store() -> Store:  # a storage.repository.SqlStore, built here: pages are a composition root
    """The process's one Store, unchecked: for what is no one user's (seeding the sample, warming models up)."""
    from storage.repository import SqlStore
    return SqlStore.from_url(get_settings().database_url)


def get_store() -> Store:
    """The Store for this run of a page: the plain one in local mode; with sign-in configured, the Store as the
    signed-in user may use it (core.services.guarded_store: every work id is checked, whatever its source), and for
    a visitor who has not signed in, the sign-in screen and nothing else."""
    from views import _account
    store = raw_store()
    if not _account.sign_in_on():
        return store
    user = _account.signed_in_user()
    if user is None:
        _account.sign_in_screen()
        st.stop()
    return guarded(store, user, _account.legacy_owner())


def selected_work_id() -> int | None:
    """The work the user last opened on any page (shared across pages through session state)."""
    value = WORK_ID.get()
    return int(value) if value is not None else None


def select_work(work_id: int | None) -> None:
    """Open `work_id` on every page: the next work picker drawn shows it (a new story, an import, a link)."""
    WORK_ID.set(work_id)
    WORK_PICKED.set(work_id)


def url_link(name: str) -> str | None:
    """The query parameter `name` when it came from outside this session's own writing (a reload, a pasted or
    bookmarked link, a link from another page), else None: the session's state rules while it lives."""
    value = st.query_params.get(name)
    if value is None or URL_WRITTEN.get().get(name) == value:
        return None
    return value


def keep_in_url(**values: int | None) -> None:
    """Put the page's place in the URL (?work=3&chapter=2), so a reload or a shared link opens it again."""
    written = dict(URL_WRITTEN.get())
    for name, value in values.items():
        if value is None:
            st.query_params.pop(name, None)
            written.pop(name, None)
        elif st.query_params.get(name) != str(value) or written.get(name) != str(value):
            st.query_params[name] = str(value)
            written[name] = str(value)
    URL_WRITTEN.set(written)


def work_picker(label: str = "Work") -> int | None:
    """A selectbox over the library that remembers the choice across pages and in the URL (a reload keeps the open
    work); None when the library is empty."""
    store = get_store()
    works = store.list_works()
    if not works:
        st.info("The library is empty: import a book or start a story on the Library page.")
        return None
    ids = [w.id for w in works]
    if (linked := url_link("work")) is not None:
        if linked.isdigit() and int(linked) in ids:
            select_work(int(linked))
        else:
            st.warning("The link names a work that is not in your library; showing another.")
            keep_in_url(work=None)
    current = selected_work_id()
    index = ids.index(current) if current in ids else 0
    names = {w.id: f"{w.title} (#{w.id})" + (" · read-only" if is_read_only(store, w.id) else "") for w in works}
    picker: Slot[int | None] = Slot(f"picker_{label}", None)
    by_code = WORK_PICKED.pop() in ids
    if by_code:  # chosen by code since this picker was last drawn
        picker.set(current)  # the selectbox would otherwise keep showing its own last choice
    # (with its value set by code, no default index as well: Streamlit logs a warning with a stack for both)
    chosen = st.selectbox(label, ids, index=0 if by_code else index, format_func=lambda i: names[i], key=picker.key)
    WORK_ID.set(chosen)
    keep_in_url(work=chosen)
    read_only_note(store, chosen)
    return chosen


def read_only_note(store: Store, work_id: int | None) -> None:
    """The mark on every page of a work shared with the user read-only."""
    if work_id is not None and is_read_only(store, work_id):
        owner = store.work_sharing(work_id).owner or "the admin"
        st.caption(f":material/lock: Shared with you read-only by {plain(owner)}: you can read it, ask about it and "
                   "export it; only its owner can change it.")


def pick_work_with_chapters(label: str = "Work") -> tuple[int, list[ChapterInfo]]:
    """The work picker plus its chapter list; stops the page with a hint when there is nothing to show."""
    work_id = work_picker(label)
    if work_id is None:
        st.stop()
    chapters = get_store().list_chapters(work_id)
    if not chapters:
        st.info("This work has no chapters yet.")
        st.stop()
    return work_id, chapters

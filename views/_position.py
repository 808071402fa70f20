"""The reader's place on every page (issue 33): shown in the menu and above Ask and the Graph, used as their default
spoiler limit, moved in one click, and looking past it is an explicit choice that shows a warning."""
from __future__ import annotations

import streamlit as st

from core.companion.store import ReadingPosition
from core.services import companion_service as cs
from core.store import NotFound, Store
from views._text import plain


def place_of(store: Store, work_id: int | None) -> ReadingPosition | None:
    """The reader's place in the work (None: no work, none set, or a work they may not open)."""
    if work_id is None:
        return None
    try:
        return cs.get_position(store, work_id)
    except (NotFound, PermissionError):
        return None


def move_place(store: Store, work_id: int, chapter: int, passage: int = 0) -> None:
    """A button callback: the reader's place moves (forward or back) to `chapter`."""
    cs.set_position(store, work_id, chapter, passage)


def sidebar_place(store: Store, work_id: int | None) -> None:
    """The place in the open work, under the menu: seen from every page."""
    pos = place_of(store, work_id)
    if pos is None or work_id is None:
        return
    try:
        title = store.get_work(work_id).title
    except (NotFound, PermissionError):
        return
    st.caption(f":material/bookmark: Your place in {plain(title)}: chapter {pos.chapter}", help="Set on the Read "
               "page; Ask, the Graph, the X-Ray, the recap and the timelines show nothing after it unless you choose.")


def place_caption(store: Store, work_id: int) -> ReadingPosition | None:
    """One line: where the reader is (and that it limits what is shown); the place."""
    pos = place_of(store, work_id)
    if pos is None:
        st.caption(":material/bookmark_border: No reading place set yet: mark it on the Read page and everything "
                   "here stops there by default.")
    else:
        st.caption(f":material/bookmark: Your place: chapter {pos.chapter}. Nothing after it is shown unless you "
                   "choose a later chapter.")
    return pos


def past_place_warning(store: Store, work_id: int, chosen: int, pos: ReadingPosition | None,
                       key: str) -> None:
    """When the chosen chapter is past the reader's place: say so, with a one-click way to move the place there."""
    if pos is None or chosen <= pos.chapter:
        return
    left, right = st.columns([4, 1])
    left.warning(f"Chapter {chosen} is past your place (chapter {pos.chapter}): what is shown may spoil the story.",
                 icon=":material/visibility:")
    right.button(f"Move my place to chapter {chosen}", key=key, on_click=move_place, args=(store, work_id, chosen),
                 help="You have read this far: make it your place")

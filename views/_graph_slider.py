"""The Graph page's chapter slider and Play: where it stands (the graph's last chapter as a build adds chapters, the
reader's place, Ask's "Show in graph"), and Play stepping it one chapter per rerun."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from core.store import Store
from views._position import past_place_warning, place_caption
from views._state import KG_AS_OF, KG_HIGHLIGHT, KG_PLACED, KG_PLAY, KG_SLIDER_END, KG_STEP, GraphHighlight


def chapter_slider(store: Store, work_id: int, last: int) -> tuple[int, GraphHighlight | None]:
    """The chapter the graph is drawn as of (1 for a one-chapter work: no slider), and Ask's highlight for this work."""
    # The slider follows the graph's last chapter as a build adds chapters (or another work is opened) unless the user
    # moved it back: it sat at chapter 1 after a build whose first chapters were drawn while it ran.
    ended = KG_SLIDER_END.get()  # (work, last chapter) when the slider was last put at the end
    if ended != (work_id, last):
        if ended is None or ended[0] != work_id or (KG_AS_OF.get() or last) >= ended[1]:
            KG_AS_OF.set(last)
        KG_SLIDER_END.set((work_id, last))
    place = place_caption(store, work_id)  # the slider starts at the reader's place when it is set or moved (issue 33)
    if place is not None and KG_PLACED.get() != (work_id, place.chapter):
        KG_AS_OF.set(min(place.chapter, last))
        KG_PLACED.set((work_id, place.chapter))
    if KG_STEP.pop() and KG_PLAY.get():  # Play's next frame: move the slider before it exists
        KG_AS_OF.set(min((KG_AS_OF.get() or 1) + 1, last))
    if KG_PLAY.get() and (KG_AS_OF.get() or last) >= last:
        KG_PLAY.set(False)  # this is the last frame
    if not KG_AS_OF.is_set() or (KG_AS_OF.get() or last) > last:
        KG_AS_OF.set(last)  # the slider's value lives in session state (Play moves it)
    highlight = KG_HIGHLIGHT.get()  # set by Ask's "Show in graph": the subgraph an answer walked
    if highlight and highlight.work_id == work_id:
        if highlight.fresh:  # arriving from Ask: the graph as of the reader's chapter, never later
            KG_AS_OF.set(min(highlight.upto, last))
            KG_HIGHLIGHT.set(replace(highlight, fresh=False))
    else:
        highlight = None

    def toggle_play() -> None:
        """A button callback (runs before the rerun, when widget state may still be set): start over at the end."""
        KG_PLAY.set(not KG_PLAY.get())
        if KG_PLAY.get() and (KG_AS_OF.get() or last) >= last:
            KG_AS_OF.set(1)

    as_of = 1
    if last > 1:  # a one-chapter work has nothing to step through
        top = st.columns([6, 1])
        as_of = top[0].slider("Graph as of chapter", 1, last, key=KG_AS_OF.key,
                              help="Nothing from later chapters is shown.")
        top[1].button("⏸ Pause" if KG_PLAY.get() else "▶ Play", key="kg_play_button",
                      on_click=toggle_play)
        past_place_warning(store, work_id, as_of, place, key="kg_move_place")
    return as_of, highlight

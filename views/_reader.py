"""The reading companion on the Read page (issue 33): the reader's place (marked in one click, moved on by "Next →"),
the welcome back with the recap of the last visit, "Previously…" on demand, and beside the text the X-Ray of the
chapter as of the place (views/_reader_xray.py), with a character's or a pair's timeline. Every view here is the
service's, as of the place."""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.services import companion_prose
from core.services import companion_service as cs
from core.store import Store
from views._position import move_place, place_of
from views._state import (READ_CHAPTER, READ_HIGHLIGHT, READ_PLACE_SEEN, READ_RECAP, READ_RECAP_ERROR,
                          READ_SCROLL_TOP)
from views._text import plain


def opening_chapter(store: Store, work_id: int, arrived: bool) -> int | None:
    """The chapter to open a work at the first time this session shows it: the reader's place (None when a link or
    a citation `arrived` at a chapter of its own). Also notes, once, whether the reader is coming back after a pause
    (the welcome-back recap)."""
    seen = dict(READ_PLACE_SEEN.get())
    if work_id in seen:
        return None
    pos = place_of(store, work_id)
    seen[work_id] = cs.welcome_back(pos)
    READ_PLACE_SEEN.set(seen)
    if arrived:
        return None
    if pos is not None and pos.passage > 0:
        chunks = [c for c in store.list_chunks(work_id, pos.chapter) if c.chapter_index == pos.chapter]
        if pos.passage < len(chunks):
            READ_HIGHLIGHT.set(" ".join(chunks[pos.passage].text.split()[:8]) or None)
    return pos.chapter if pos is not None else None


def _dismiss(work_id: int) -> None:
    READ_PLACE_SEEN.set({**READ_PLACE_SEEN.get(), work_id: None})


def _recap(store: Store, work_id: int, first: int, last: int, words: int, prose: bool = False) -> None:
    """A button callback: the recap of chapters first..last, kept for the page to show."""
    try:
        told = cs.recap_of(store, work_id, first, last, words)
    except ValueError as exc:
        READ_RECAP_ERROR.set(str(exc))
        return
    written = companion_prose.recap_prose(store, work_id, told) if prose else None
    READ_RECAP.set((work_id, told, written))
    # the form says the range shown (the welcome-back offer recaps the last visit's chapters, not the form's)
    st.session_state[f"recap_from_{work_id}"], st.session_state[f"recap_to_{work_id}"] = told.first, told.last


def _open(chapter: int) -> None:
    READ_CHAPTER.set(chapter)
    READ_SCROLL_TOP.set(True)


def place_bar(store: Store, work_id: int, index: int, passages: int) -> None:
    """Where the reader is, and the one-click ways to mark it here; a returning reader's offer of a recap."""
    pos = place_of(store, work_id)
    welcome = READ_PLACE_SEEN.get().get(work_id)
    if welcome is not None:
        first, last = welcome
        with st.container(border=True, key="read_welcome"):
            st.markdown(f"**Welcome back.** Last time you read chapter{'s' if first != last else ''} "
                        + (f"{first}–{last}" if first != last else f"{first}") + ".")
            left, right = st.columns(2)
            left.button("Previously… (recap)", key="read_welcome_recap", type="primary", on_click=_recap,
                        args=(store, work_id, first, last, cs.RECAP_WORDS))
            right.button("No thanks", key="read_welcome_dismiss", on_click=_dismiss, args=(work_id,))
    left, mid, right = st.columns([3, 2, 2])
    if pos is None:
        left.caption(":material/bookmark_border: No place marked yet. Mark it here, or read on with “Next →”.")
    else:
        left.caption(f":material/bookmark: Your place: chapter {pos.chapter}, passage {pos.passage + 1}"
                     + (" (this chapter)" if pos.chapter == index else ""))
    here = pos is not None and pos.chapter == index
    mid.button("Mark my place here", key="read_mark_place", icon=":material/bookmark_add:", disabled=here,
               on_click=move_place, args=(store, work_id, index), help="Everything stops at this chapter: Ask, "
               "the Graph, the X-Ray, the recap and the timelines")
    with right.popover("At passage…", icon=":material/more_horiz:"):
        passage = st.number_input("Last passage read", 1, max(passages, 1), max(passages, 1),
                                  key=f"read_passage_{work_id}_{index}")
        st.button("Mark", key="read_mark_passage", on_click=move_place, args=(store, work_id, index, passage - 1))


def recap_section(store: Store, work_id: int, last: int) -> None:
    """ "Previously…": a recap of chosen chapters (default: the story so far, up to the place), a chapter per
    sentence, each one click from the reader."""
    pos = place_of(store, work_id)
    limit = min(pos.chapter if pos else last, last)
    shown = READ_RECAP.get()
    with st.expander("Previously… (recap)", icon=":material/history_edu:", expanded=bool(shown)):
        a, b, c = st.columns(3)
        # defaults through the state, as the recap's callback sets them (a default beside them makes Streamlit warn)
        st.session_state.setdefault(f"recap_from_{work_id}", 1)
        st.session_state.setdefault(f"recap_to_{work_id}", limit)
        first = a.number_input("From chapter", 1, last, key=f"recap_from_{work_id}")
        to = b.number_input("To chapter", 1, last, key=f"recap_to_{work_id}")
        words = c.number_input("Words", 30, cs.MAX_RECAP_WORDS, cs.RECAP_WORDS, step=50, key="recap_words")
        if pos is not None and to > pos.chapter:
            st.warning(f"Chapter {to} is past your place (chapter {pos.chapter}): the recap may spoil the story.")
        prose = st.toggle("Tell it in prose", key="recap_prose", disabled=not companion_prose.can_rewrite(store),
                          help="With a capable model for summarizing (Settings), checked against these sentences; "
                               "the embedded models keep the book's own words.")
        st.button("Recap", key="recap_go", type="primary", on_click=_recap,
                  args=(store, work_id, int(first), int(to), int(words), prose))
        if error := READ_RECAP_ERROR.pop():
            st.error(plain(error))
        if shown and shown[0] == work_id:
            _show_recap(shown[1], shown[2])


def _show_recap(told: Any, prose: Any) -> None:
    st.caption(f"Chapters {told.first}–{told.last}, {told.words} words in the book's own sentences"
               + (f", following {', '.join(told.main)}" if told.main else "") + ".")
    for note in [*told.notes, *(prose.notes if prose else [])]:
        st.caption(plain(note))
    if prose is not None and prose.supported:
        st.markdown(plain(prose.text))
        st.caption(f"Told by {plain(prose.llm)}; every sentence checked against the sources below.")
    with st.container(key="read_recap_sentences"):
        for k, s in enumerate(told.sentences):
            text, link = st.columns([6, 1])
            text.markdown(f"{plain(s.text)} :gray[(chapter {s.chapter})]")
            link.button(f"Ch. {s.chapter}", key=f"recap_open_{k}", on_click=_open, args=(s.chapter,),
                        help="Open this chapter in the reader")

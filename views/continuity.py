"""Continuity: the later sentences that contradict earlier ones (a dead character who acts, a tie, an attribute, a
name or a home that changes), grouped by chapter, both sentences side by side, each with a way into the reader.
A flag marked intended stays hidden across rebuilds until its sentence changes."""
from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from core.continuity.model import FLAG_KINDS, KIND_TITLES
from core.services import continuity_service
from core.services.guarded_store import is_read_only
from views._continuity_reading import reading_box
from views._continuity_view import both_sentences, reader_anchor
from views._shared import get_store, pick_work_with_chapters, plain, select_work
from views._state import CONT_NOTE, CONT_OPEN_READER, READ_CHAPTER, READ_HIGHLIGHT
from views._text import counted

READER = "views/read.py"
store = get_store()
if CONT_OPEN_READER.pop():
    try:
        st.switch_page(READER)
    except StreamlitPageNotFoundError:  # outside app.py's navigation (AppTest)
        st.info("Open the Read page to see the passage.")

st.title("Continuity")
st.caption("Later sentences that contradict what the story established earlier, found offline from the graph's "
           "parse. A rule-based reader: it misses contradictions it cannot parse and can flag a figure of speech; "
           "mark those intended.")
work_id, chapters = pick_work_with_chapters()
titles = {c.index: c.title for c in chapters}


def open_in_reader(chapter: int, start: int, end: int) -> None:
    """Button callback: the reader opens at the chapter with the sentence highlighted."""
    select_work(work_id)
    READ_CHAPTER.set(chapter)
    READ_HIGHLIGHT.set(reader_anchor(store.get_chapter(work_id, chapter).text, start, end))
    CONT_OPEN_READER.set(True)


def set_intended(key: str, intended: bool) -> None:
    try:
        if intended:
            flag = continuity_service.mark_intended(store, work_id, key)
            CONT_NOTE.set(f"Marked intended: {flag.entity} in chapter {flag.chapter}. It stays hidden until the "
                          "sentence changes.")
        else:
            continuity_service.unmark_intended(store, work_id, key)
            CONT_NOTE.set("No longer marked intended.")
    except ValueError as exc:
        CONT_NOTE.set(str(exc))


status = continuity_service.status(store, work_id)
if note := CONT_NOTE.pop():
    st.success(plain(note))
if status.with_states == 0:
    st.info("No story states yet: build the graph on the Graph page (the offline extractor reads them in the "
            "same pass), then come back. A graph built by an LLM extractor has none; rebuilding it offline adds them.")
    try:
        st.page_link("views/graph.py", label="Go to the Graph page", icon=":material/hub:")
    except StreamlitPageNotFoundError:  # outside app.py's navigation (AppTest)
        pass
    st.stop()
if status.stale:
    st.warning(f"{counted(len(status.stale), 'chapter')} changed or never read for story states "
               f"(chapters {', '.join(map(str, status.stale[:12]))}{'…' if len(status.stale) > 12 else ''}): "
               "the next graph build reads them and checks again.")

left, middle, right = st.columns([3, 2, 2])
kinds = left.multiselect("Kinds", FLAG_KINDS, default=list(FLAG_KINDS), format_func=lambda k: KIND_TITLES[k],
                         key="continuity_kinds")
chapter_choice = middle.selectbox("Chapter", [None, *titles], format_func=lambda i: "All chapters" if i is None
                                  else f"{i}. {titles[i]}", key="continuity_chapter")
show_intended = right.toggle("Show intended", key="continuity_show_intended",
                             help="Also the flags marked intended (greyed), to take the mark back")
if right.button("Check again", key="continuity_recheck", help="Re-run the checks on the stored states (seconds)"):
    report = continuity_service.check_work(store, work_id)
    st.toast(f"{counted(report.flags, 'flag')} in {report.seconds:.2f} s")
    status = continuity_service.status(store, work_id)

views = [v for v in continuity_service.list_flags(store, work_id, chapter_choice, include_intended=show_intended)
         if v.flag.kind in kinds]
summary = ", ".join(f"{n} {KIND_TITLES[k].lower()}" for k, n in sorted(status.by_kind.items()))
st.markdown(f"**{counted(status.flags, 'flag')}**" + (f": {summary}" if summary else "") +
            (f" · {status.intended} marked intended" if status.intended else ""))
if not views:
    st.info("No contradictions found" + (" in this chapter" if chapter_choice else "") + ". "
            + continuity_service.NO_FLAGS_CAVEAT)
read_only = is_read_only(store, work_id)
current = None
for n, view in enumerate(views):
    flag = view.flag
    if flag.chapter != current:
        current = flag.chapter
        st.subheader(f"Chapter {flag.chapter}: {plain(titles.get(flag.chapter, ''))}", anchor=False)
    with st.container(border=True, key=f"continuity_flag_{n}"):
        st.markdown(f"**{KIND_TITLES.get(flag.kind, flag.kind)}** · {plain(flag.entity)} · confidence "
                    f"{flag.confidence:.2f}" + (" · *intended*" if view.intended else ""))
        st.caption(plain(flag.detail))
        both_sentences(flag, "continuity_", n, open_in_reader)
        if not read_only:
            label = "Not intended after all" if view.intended else "Mark intended"
            st.button(label, key=f"continuity_mark_{n}", on_click=set_intended, args=(flag.key, not view.intended),
                      help="The story means it (a twist, a ghost, a nickname): hide it until the sentence changes")
if chapter_choice is not None and not read_only:
    reading_box(store, work_id, chapter_choice, open_in_reader)

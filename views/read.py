"""Read: one chapter of a work, with a chapter list, and its text edited in place (every revision is kept; a save from
a stale copy is refused). Citations elsewhere link here with ?work=ID&chapter=N."""
from __future__ import annotations

import streamlit as st

from core.services.companion_service import advance
from core.services.guarded_store import is_read_only
from core.store import NotFound
from views._read_editor import chapter_editor
from views._read_text import chapter_text, scroll_page
from views._reader import opening_chapter, place_bar, recap_section
from views._shared import get_store, keep_in_url, plain, select_work, url_link, work_picker
from views._state import READ_CHAPTER, READ_EDIT_SAVED, READ_EDITING, READ_HIGHLIGHT, READ_SCROLL_TOP
from views._text import counted

store = get_store()
if (linked := url_link("work")) is not None:  # a link (Ask's "Show in reader"), a reload or a bookmark
    try:
        store.get_work(int(linked))  # NotFound, also for a work the signed-in user may not open
        select_work(int(linked))
        if "chapter" in st.query_params:
            READ_CHAPTER.set(int(st.query_params["chapter"]))
        else:  # a link to the work alone (a returning reader's bookmark) opens it at the reader's place
            linked = None
    except ValueError:
        st.warning("The link names no valid work or chapter.")
    except NotFound as exc:
        st.warning(f"{plain(str(exc))} The link cannot be opened.")
    keep_in_url(work=None, chapter=None)  # the picker below writes what is open
elif (linked := url_link("chapter")) is not None and linked.isdigit():
    READ_CHAPTER.set(int(linked))

st.title("Read")
work_id = work_picker()
if work_id is None:
    st.stop()
try:
    chapters = store.list_chapters(work_id)
except NotFound:
    st.error("This work no longer exists.")
    st.stop()
if not chapters:
    st.info("This work has no chapters yet.")
    st.stop()

indices = [c.index for c in chapters]
# the first time this session shows the work, it opens at the reader's place (unless a link or a citation led here)
if (opened := opening_chapter(store, work_id, linked is not None or READ_HIGHLIGHT.get() is not None)) in indices:
    READ_CHAPTER.set(opened)
titles = {c.index: f"{c.index}. {c.title} ({c.word_count:,} words)" for c in chapters}
wanted = READ_CHAPTER.get() or indices[0]
index = st.selectbox("Chapter", indices, index=indices.index(wanted) if wanted in indices else 0,
                     format_func=lambda i: titles[i])
READ_CHAPTER.set(index)
keep_in_url(chapter=index)
chapter = store.get_chapter(work_id, index)
if READ_SCROLL_TOP.pop():  # "Next →" or "← Previous": the new chapter from its start
    scroll_page()
st.subheader(plain(chapter.title), anchor=False)
st.caption(f"{chapter.word_count:,} words · {chapter.source.value} · revision {chapter.revision}")
place_bar(store, work_id, index, sum(1 for c in store.list_chunks(work_id, index) if c.chapter_index == index))
recap_section(store, work_id, indices[-1])
if index > 1 and st.button("Recap", key="read_recap", icon=":material/history:",
                           help="The earlier passages this chapter builds on (from NARCO edges), with its questions"):
    from core.services.narco_service import recap
    with st.container(border=True):
        items = recap(store, work_id, index)
        if not items:
            st.info("No retrospective questions reach back from this chapter yet: build NARCO edges on the "
                    "Ask page (or `cli.py narco build`).")
        for item in items:
            st.markdown(f"**Chapter {item.chapter}, passage {item.chunk + 1}** · {counted(item.degree, 'question')}")
            st.caption(plain(item.text[:400] + ("…" if len(item.text) > 400 else "")))
            st.markdown("\n".join(f"- {plain(q['question'])}" for q in item.questions))

if saved_note := READ_EDIT_SAVED.pop():
    st.success(saved_note)
if not is_read_only(store, work_id) and st.toggle("Edit chapter", key=READ_EDITING.key,
                                                 help="Change this chapter's text; every revision is kept"):
    chapter_editor(store, work_id, index, chapter)
else:
    chapter_text(store, work_id, index, chapter)

prev_col, _, next_col = st.columns([1, 4, 1])
position = indices.index(index)
if prev_col.button("← Previous", disabled=position == 0, key="prev_chapter"):
    READ_CHAPTER.set(indices[position - 1])
    READ_SCROLL_TOP.set(True)
    st.rerun()
if next_col.button("Next →", disabled=position == len(indices) - 1, key="next_chapter"):
    READ_CHAPTER.set(indices[position + 1])
    advance(store, work_id, indices[position + 1])  # reading on moves the reader's place (never back)
    READ_SCROLL_TOP.set(True)
    st.rerun()

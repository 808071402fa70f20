"""Read: one chapter of a work, with a chapter list. Citations elsewhere link here with ?work=ID&chapter=N."""
from __future__ import annotations

import streamlit as st

from core.store import NotFound
from pages._shared import get_store, plain, select_work, work_picker

store = get_store()
params = st.query_params
if "work" in params:
    try:
        select_work(int(params["work"]))
        st.session_state["read_chapter"] = int(params.get("chapter", 1))
    except ValueError:
        st.warning("The link names no valid work or chapter.")
    st.query_params.clear()

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
titles = {c.index: f"{c.index}. {c.title} ({c.word_count:,} words)" for c in chapters}
wanted = st.session_state.get("read_chapter", indices[0])
index = st.selectbox("Chapter", indices, index=indices.index(wanted) if wanted in indices else 0,
                     format_func=lambda i: titles[i])
st.session_state["read_chapter"] = index
chapter = store.get_chapter(work_id, index)
st.subheader(plain(chapter.title), anchor=False)
st.caption(f"{chapter.word_count:,} words · {chapter.source.value} · revision {chapter.revision}")
if index > 1 and st.button("Recap", key="read_recap", icon=":material/history:",
                           help="The earlier passages this chapter builds on (from NARCO edges), with its questions"):
    from core.services.narco_service import recap
    with st.container(border=True):
        items = recap(store, work_id, index)
        if not items:
            st.info("No retrospective questions reach back from this chapter yet: build NARCO edges on the "
                    "Ask page (or `cli.py narco build`).")
        for item in items:
            st.markdown(f"**Chapter {item.chapter}, passage {item.chunk + 1}** · {item.degree} question(s)")
            st.caption(plain(item.text[:400] + ("…" if len(item.text) > 400 else "")))
            st.markdown("\n".join(f"- {plain(q['question'])}" for q in item.questions))
highlight = st.session_state.pop("read_highlight", None)
for paragraph in chapter.text.split("\n\n"):
    shown = plain(" ".join(paragraph.split()))
    if highlight and highlight in paragraph:
        st.info(shown)
    elif shown:
        st.markdown(shown)

prev_col, _, next_col = st.columns([1, 4, 1])
position = indices.index(index)
if prev_col.button("← Previous", disabled=position == 0, key="prev_chapter"):
    st.session_state["read_chapter"] = indices[position - 1]
    st.rerun()
if next_col.button("Next →", disabled=position == len(indices) - 1, key="next_chapter"):
    st.session_state["read_chapter"] = indices[position + 1]
    st.rerun()

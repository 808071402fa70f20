"""The Ask page's sources: each cited passage with its chapter, a link to it in the reader, and "Show in reader",
which opens the reader at the chapter with the passage highlighted."""
from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from core.services import qa_service
from core.store import Store
from views._shared import plain, select_work
from views._state import ASK_OPEN_READER, ASK_READER_UNAVAILABLE, READ_CHAPTER, READ_HIGHLIGHT

READER = "views/read.py"


def open_in_reader(store: Store, work_id: int, chapter: int, text: str) -> None:
    """Button callback: the reader opens at the chapter with the cited passage highlighted."""
    select_work(work_id)
    READ_CHAPTER.set(chapter)
    READ_HIGHLIGHT.set(qa_service.reader_anchor(store, work_id, chapter, text))
    ASK_OPEN_READER.set(True)


def reader_link(work_id: int, label: str, chapter: int) -> None:
    try:
        st.page_link(READER, label=label, icon=":material/menu_book:",
                     query_params={"work": str(work_id), "chapter": str(chapter)})
    except StreamlitPageNotFoundError:
        st.markdown(f"[{plain(label)}](read?work={work_id}&chapter={chapter})")


def sources_section(store: Store, work_id: int, result: dict[str, Any]) -> None:
    """The citations of an answer (`result`, the answer's dict view), up to the chapter it was asked as of."""
    st.markdown(f"**Sources** (up to chapter {result['upto']})")
    if ASK_READER_UNAVAILABLE.pop():
        st.caption("The reader opens from the app's navigation; use the chapter links here.")
    for i, c in enumerate(result["citations"]):
        with st.container(border=True):
            kind = {"fact": "fact from", "text": "ending text of", "passage": "retrieved from"}[c["kind"]]
            st.caption(f"{kind} chapter {c['chapter']}, passage {c['chunk'] + 1}"
                       + (f" · score {c['score']:.3f}" if c["score"] is not None else ""))
            st.markdown(plain(c["text"][:600] + ("…" if len(c["text"]) > 600 else "")))
            link, highlight = st.columns([3, 1])
            with link:
                reader_link(work_id, f"Chapter {c['chapter']}, passage {c['chunk'] + 1}", c["chapter"])
            highlight.button("Show in reader", key=f"ask_cite_{i}", on_click=open_in_reader,
                             args=(store, work_id, c["chapter"], c["text"]))

"""Read: one chapter of a work, with a chapter list, and its text edited in place (every revision is kept; a save from
a stale copy is refused). Citations elsewhere link here with ?work=ID&chapter=N."""
from __future__ import annotations

import json

import streamlit as st

from core.services.companion_service import advance
from core.services.continuity_service import list_flags
from core.services.guarded_store import is_read_only
from core.services.library import edit_chapter
from core.store import NotFound, StaleRevision
from views._continuity_view import flag_note, flags_by_paragraph
from views._reader import opening_chapter, place_bar, recap_section, xray_panel
from views._shared import get_store, keep_in_url, plain, plain_with_italics, select_work, url_link, work_picker
from views._state import (
    READ_CHAPTER,
    READ_EDIT_ERROR,
    READ_EDIT_SAVED,
    READ_EDITING,
    READ_HIGHLIGHT,
    READ_SCROLL_NONCE,
    READ_SCROLL_TOP,
    Slot,
    read_editor,
)

# A script of our own (no book text in it) that scrolls the page: to its top, or to the highlighted passage. The
# nonce makes each request a new element, so its script runs again; Streamlit otherwise keeps the scroll position.
_SCROLL = """<script>/* {nonce} */
(() => {{
  const target = {target};
  let tries = 0;
  const go = () => {{
    const main = document.querySelector('[data-testid="stMain"]');
    const el = target && document.querySelector(target);
    if (el) {{ el.scrollIntoView({{block: "center"}}); }} else if (!target && main) {{ main.scrollTo(0, 0); }}
    if (++tries < 12 && (!target || !el || tries < 4)) {{ setTimeout(go, 150); }}
  }};
  go();
}})();
</script>"""


def scroll_page(target: str | None = None) -> None:
    """Scroll to the element matching CSS `target`, or to the top of the page."""
    nonce = READ_SCROLL_NONCE.get() + 1
    READ_SCROLL_NONCE.set(nonce)
    st.html(_SCROLL.format(nonce=nonce, target=json.dumps(target)), unsafe_allow_javascript=True)


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
            st.markdown(f"**Chapter {item.chapter}, passage {item.chunk + 1}** · {item.degree} question(s)")
            st.caption(plain(item.text[:400] + ("…" if len(item.text) > 400 else "")))
            st.markdown("\n".join(f"- {plain(q['question'])}" for q in item.questions))


def save_edit(work_id: int, index: int, text: Slot[str], loaded: Slot[tuple[int, str] | None]) -> None:
    """Save button callback. On success the editor closes; when the chapter was saved elsewhere meanwhile, nothing
    is saved and the user's text stays in the editor."""
    started = loaded.get()
    assert started is not None, "the editor's starting revision is kept from the moment it opens"
    revision = started[0]
    try:
        saved = edit_chapter(store, work_id, index, text.get(), revision)
    except StaleRevision:
        now = store.get_chapter(work_id, index).revision
        READ_EDIT_ERROR.set(
            f"Not saved: this chapter changed since you opened it (it is now revision {now}; you started from "
            f"revision {revision}). Your text is still in the editor: copy what you want to keep, then load the "
            "current text and apply your changes to it.")
    except NotFound:
        READ_EDIT_ERROR.set("Not saved: this chapter no longer exists.")
    except ValueError as exc:
        READ_EDIT_ERROR.set(f"Not saved: {exc}")
    else:
        load_current(text, loaded)
        READ_EDITING.set(False)
        READ_EDIT_SAVED.set(f"Saved as revision {saved.revision}; the earlier text stays in the chapter's history. "
                            "The graph and summaries redo this chapter when next built.")


def load_current(text: Slot[str], loaded: Slot[tuple[int, str] | None]) -> None:
    for slot in (text, loaded, READ_EDIT_ERROR):
        slot.clear()


if saved_note := READ_EDIT_SAVED.pop():
    st.success(saved_note)
if not is_read_only(store, work_id) and st.toggle("Edit chapter", key=READ_EDITING.key,
                                                 help="Change this chapter's text; every revision is kept"):
    text, started = read_editor(work_id, index)
    loaded = started.get()  # (revision, text) the editor started from
    if (not text.is_set() or loaded is None
            or (loaded[0] != chapter.revision and text.get() == loaded[1])):  # nothing typed yet
        text.set(chapter.text)
        loaded = (chapter.revision, chapter.text)
        started.set(loaded)
    if error := READ_EDIT_ERROR.pop():
        st.error(plain(error))
    elif loaded[0] != chapter.revision:
        st.warning(f"This chapter was saved elsewhere since you started editing (now revision {chapter.revision}, "
                   f"you started from {loaded[0]}); saving your text would be refused.")
    st.text_area("Chapter text", key=text.key, height=420)
    save_col, reload_col, _ = st.columns([1, 2, 3])
    save_col.button("Save", type="primary", key="read_edit_save", on_click=save_edit,
                    args=(work_id, index, text, started))
    reload_col.button("Load the current text", key="read_edit_reload", on_click=load_current,
                      args=(text, started), help="Discard your changes in the editor")
else:
    highlight = READ_HIGHLIGHT.pop()
    # continuity (issue 32): paragraphs holding a flagged sentence are marked, with what they contradict
    flagged = flags_by_paragraph(chapter.text, [v.flag for v in list_flags(store, work_id, index)])
    text_column, xray_column = st.columns([3, 2], gap="large")
    with xray_column:  # the X-Ray beside the text (issue 33), as of the reader's place
        xray_panel(store, work_id, index)
    with text_column:
        for k, paragraph in enumerate(chapter.text.split("\n\n")):
            shown = plain_with_italics(" ".join(paragraph.split()))
            if k in flagged:
                shown += "".join(f"\n\n:orange[{flag_note(f)}]" for f in flagged[k])
            if highlight and highlight in paragraph:
                st.container(key="read_highlight").info(shown)
                scroll_page(".st-key-read_highlight")  # "Show in reader": the passage, not the chapter's start
                highlight = None
            elif k in flagged:
                st.container(key=f"read_flagged_{k}", border=True).markdown(shown)
            elif shown:
                st.markdown(shown)

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

"""The desk's manuscript (issue 34): the story's chapters in one table (title, words, draft or accepted), one chapter
opened to read or edit in place (a save is its next revision; a save over a newer revision is refused and the
writer's text stays in the box), its revisions with Restore, and the whole story as Markdown, EPUB or Word."""
from __future__ import annotations

import streamlit as st

from core.services import manuscript_service as ms
from core.store import StaleRevision, Store
from core.wording import counted
from views._desk_common import done
from views._shared import plain
from views._state import Slot

EXPORTS = (("md", "Markdown"), ("epub", "EPUB"), ("docx", "Word (.docx)"))


def _editor(work_id: int, index: int) -> tuple[Slot[str], Slot[str], Slot[tuple[int, str, str] | None]]:
    """The chapter's text box, its title box, and the (revision, text, title) they were loaded from."""
    return (Slot(f"desk_ms_text_{work_id}_{index}", ""), Slot(f"desk_ms_title_{work_id}_{index}", ""),
            Slot(f"desk_ms_loaded_{work_id}_{index}", None))


def manuscript_view(store: Store, work_id: int) -> None:
    rows = ms.manuscript(store, work_id)
    count, words = ms.totals(rows)
    if not rows:
        st.info("No chapter yet: generate the first one above, or write it yourself.")
        return
    with st.container(key="desk_ms_rows"):   # a plain table: every title and count is text on the page
        st.table([{"Chapter": r.index, "Title": r.title, "Words": r.words, "Status": r.status,
                   "Revision": r.revision or "—", "By": r.source} for r in rows], hide_index=True)
    st.caption(f"{counted(count, 'accepted chapter')}, {words:,} words" +
               (" · the draft waits above until it is accepted." if any(r.status == "draft" for r in rows) else "."))
    accepted = [r.index for r in rows if r.status == "accepted"]
    if not accepted:
        return
    index = st.selectbox("Open chapter", accepted, index=len(accepted) - 1, key=f"desk_ms_chapter_{work_id}",
                         format_func=lambda i: f"{i}. {next(r.title for r in rows if r.index == i)}")
    _chapter(store, work_id, index)
    _exports(store, work_id)


def _chapter(store: Store, work_id: int, index: int) -> None:
    chapter = store.get_chapter(work_id, index)
    text, title, loaded = _editor(work_id, index)
    was = loaded.get()
    # (re)load from the store when nothing is loaded yet, or when a newer revision came (a restore, a rewrite kept,
    # a save in another tab) and the writer has not typed anything since: their typing is never replaced. Another
    # view of the desk drops the boxes' state (Streamlit forgets widgets not drawn): loaded again then
    untouched = was is not None and (text.get(), title.get()) == (was[1], was[2])
    if was is None or not text.is_set() or (was[0] != chapter.revision and untouched):
        text.set(chapter.text)
        title.set(chapter.title)
        loaded.set((chapter.revision, chapter.text, chapter.title))
        was = loaded.get()
    assert was is not None
    if was[0] != chapter.revision:
        st.warning(f"Chapter {index} was saved elsewhere since you opened it (you edit revision {was[0]}; it is now "
                   f"revision {chapter.revision}). Your text is kept below; saving it is refused until you reload.")
    st.text_input("Title", key=title.key, max_chars=ms.TITLE_CHARS)
    st.text_area("Chapter text", key=text.key, height=320)
    st.caption(f"Revision {chapter.revision} · {len(text.get().split()):,} words in the box")
    save, reload = st.columns(2)
    if save.button("Save as a new revision", key="desk_ms_save", type="primary"):
        try:
            saved = ms.save_chapter(store, work_id, index, text.get(), expected_revision=was[0], title=title.get())
        except StaleRevision:
            st.error(f"Not saved: chapter {index} was saved elsewhere since you opened it (now revision "
                     f"{chapter.revision}). Your text is still in the box: copy it, press Reload, and apply it "
                     "again.")
        except ValueError as exc:   # ManuscriptError: an empty text
            st.error(plain(str(exc)))
        else:
            loaded.clear()
            done(f"Chapter {index} saved as revision {saved.revision}.")
    if reload.button("Reload (drop my changes)", key="desk_ms_reload"):
        loaded.clear()
        text.clear()
        title.clear()
        st.rerun()
    _revisions(store, work_id, index, chapter.revision)


def _revisions(store: Store, work_id: int, index: int, current: int) -> None:
    revs = ms.revisions(store, work_id, index)
    with st.expander(f"Revisions of chapter {index} ({len(revs)})"):
        by_number = {r.revision: r for r in revs}
        number = st.selectbox("Revision", list(by_number), key=f"desk_ms_rev_{work_id}_{index}",
                              format_func=lambda n: f"{n} · {by_number[n].source} · {by_number[n].words:,} words"
                                                    + (" · current" if n == current else ""))
        shown = by_number[number]
        with st.container(height=220):
            st.markdown(plain(shown.text))
        if st.button("Restore this revision", key="desk_ms_restore", disabled=number == current,
                     help="Its text becomes the newest revision; the revisions in between stay in this list."):
            try:
                restored = ms.restore_revision(store, work_id, index, number, expected_revision=current)
            except StaleRevision:
                st.error(f"Not restored: chapter {index} was saved elsewhere just now. Look again and retry.")
            except ValueError as exc:   # ManuscriptError
                st.error(plain(str(exc)))
            else:
                done(f"Revision {number} of chapter {index} restored as revision {restored.revision}.")


@st.cache_data(max_entries=32, show_spinner=False)
def _export(_store: Store, work_id: int, fmt: str, version: tuple[object, ...]) -> tuple[bytes, str, str]:
    """One export, made again only when the story changed (`version`): the page reruns every second while a job
    runs, and an EPUB or a .docx of a long story is not free."""
    return ms.export_work(_store, work_id, fmt)


def _exports(store: Store, work_id: int) -> None:
    st.caption("The whole story (accepted chapters), to download:")
    work = store.get_work(work_id)
    version = (work.title, work.author, *((c.index, c.revision, c.title) for c in store.list_chapters(work_id)))
    for column, (fmt, label) in zip(st.columns(len(EXPORTS)), EXPORTS):
        try:
            data, name, mime = _export(store, work_id, fmt, version)
        except ValueError as exc:   # ManuscriptError
            column.error(plain(str(exc)))
            continue
        column.download_button(label, data, name, mime, key=f"desk_dl_{fmt}", on_click="ignore",
                               icon=":material/download:")

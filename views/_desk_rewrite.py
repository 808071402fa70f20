"""The desk's "rewrite a passage" (issue 34): the writer picks a chapter and a run of its paragraphs (a page cannot read
the browser's text selection, so paragraphs are chosen by number, each shown by its first words), a kind of rewrite
and an instruction; the old and new text side by side; Keep saves the chapter as its next revision, Discard drops
the proposal. Nothing is stored until Keep."""
from __future__ import annotations

import re

import streamlit as st

from core.llm import LLMError
from core.services import rewrite_service as rs
from core.store import Store
from views._desk_common import done, small_model_note, writing_llm
from views._shared import plain
from views._state import Slot

KIND_LABELS = {"rewrite": "Rewrite", "expand": "Expand", "shorten": "Shorten", "tone": "Change the tone"}
_BLOCK = re.compile(r"[^\n]*\S[^\n]*(?:\n[^\n]*\S[^\n]*)*")   # lines with text, up to a blank line


def paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of each paragraph (a run of non-blank lines), its outer white space left out;
    one paragraph per line when the text has no blank lines (a chapter written line by line)."""
    blocks = [m.span() for m in _BLOCK.finditer(text)]
    if len(blocks) == 1 and text.count("\n") > 0:
        blocks = [m.span() for m in re.finditer(r"[^\n]*\S[^\n]*", text)]
    out = []
    for start, end in blocks:
        piece = text[start:end]
        out.append((start + len(piece) - len(piece.lstrip()), end - (len(piece) - len(piece.rstrip()))))
    return out


def _first_words(text: str, words: int = 9) -> str:
    head = text.split()
    return " ".join(head[:words]) + (" …" if len(head) > words else "")


def rewrite_view(store: Store, work_id: int, *, busy: bool = False) -> None:
    chapters = store.list_chapters(work_id)
    if not chapters:
        st.info("No chapter to rewrite yet: accept one first.")
        return
    shown: Slot[rs.Rewrite | None] = Slot(f"desk_rw_result_{work_id}", None)
    new_text: Slot[str] = Slot("desk_rw_new", "")
    indexes = [c.index for c in chapters]
    index = st.selectbox("Chapter to rewrite", indexes, index=len(indexes) - 1, key=f"desk_rw_chapter_{work_id}",
                         format_func=lambda i: f"{i}. {chapters[indexes.index(i)].title}")
    chapter = store.get_chapter(work_id, index)
    spans = paragraphs(chapter.text)
    if not spans:
        st.info("This chapter has no text.")
        return
    numbers = list(range(1, len(spans) + 1))

    def label(k: int) -> str:
        return f"¶{k}: {_first_words(chapter.text[spans[k - 1][0]:spans[k - 1][1]])}"
    first, last = st.columns(2)
    a = first.selectbox("From paragraph", numbers, key=f"desk_rw_from_{work_id}_{index}", format_func=label)
    b = last.selectbox("To paragraph", numbers, key=f"desk_rw_to_{work_id}_{index}", format_func=label)
    start, end = spans[a - 1][0], spans[max(a, b) - 1][1]
    if b < a:
        st.warning("The last paragraph comes before the first: the passage is the first paragraph alone.")
        end = spans[a - 1][1]
    passage = chapter.text[start:end]
    st.caption(f"The passage: paragraph{'s' if end > spans[a - 1][1] else ''} {a}" +
               (f"-{b}" if b > a else "") + f", {len(passage.split()):,} words.")
    with st.container(height=160):
        st.markdown(plain(passage))
    kind_col, wish_col = st.columns([1, 2])
    kind = kind_col.radio("Kind", rs.KINDS, format_func=KIND_LABELS.get, key="desk_rw_kind")
    instruction = wish_col.text_input("Instruction", key="desk_rw_instruction",
                                      placeholder="darker and slower; keep the dialogue",
                                      help="What you want of the new text (required for a change of tone).")
    if st.button("Ask for the rewrite", key="desk_rw_go", type="primary", disabled=busy):
        try:
            with st.spinner("Rewriting the passage…"):
                made = rs.rewrite_passage(store, work_id, index, start, end, kind, instruction,
                                          writing_llm(store, work_id))
        except (LLMError, ValueError) as exc:   # RewriteError: a bad selection, a failing model or an empty reply
            st.error(plain(str(exc)))
        else:
            shown.set(made)
            new_text.set(made.new)
    proposal = shown.get()
    if proposal is None or proposal.chapter != index:
        return
    if not new_text.is_set():   # the box was dropped (another view of the desk): the model's text again
        new_text.set(proposal.new)
    old_col, new_col = st.columns(2)
    old_col.markdown("**Old**")
    with old_col.container(height=300):
        st.markdown(plain(proposal.old))
    new_col.text_area("New (edit it before keeping)", key=new_text.key, height=300)
    if note := small_model_note(store, work_id, "rewriting"):
        st.caption(note)
    keep, drop = st.columns(2)
    if keep.button("Keep as a new revision", key="desk_rw_keep", type="primary"):
        try:
            saved = rs.keep_rewrite(store, work_id, proposal, new_text.get())
        except ValueError as exc:   # RewriteError: the chapter changed since, an empty new text
            st.error(plain(str(exc)))
        else:
            shown.clear()
            done(f"Kept: chapter {index} is now revision {saved.revision} (the earlier one can be restored in the "
                 "manuscript).")
    if drop.button("Discard", key="desk_rw_discard"):
        shown.clear()
        st.rerun()

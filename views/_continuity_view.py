"""Continuity's render helpers, shared by the Continuity page and the reader (which marks flagged sentences)."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import streamlit as st

from core.continuity.model import KIND_TITLES, Flag
from core.services import continuity_service
from core.store import Store
from core.wording import counted
from views._state import CONT_DRAFT
from views._text import plain


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each "\\n\\n"-separated paragraph of a chapter, as the reader draws them."""
    spans, start = [], 0
    for part in text.split("\n\n"):
        spans.append((start, start + len(part)))
        start += len(part) + 2
    return spans


def flags_by_paragraph(text: str, flags: Sequence[Flag]) -> dict[int, list[Flag]]:
    """Paragraph number -> the flags whose new sentence starts in it."""
    out: dict[int, list[Flag]] = {}
    for k, (start, end) in enumerate(paragraph_spans(text)):
        inside = [f for f in flags if start <= f.start < end]
        if inside:
            out[k] = inside
    return out


def reader_anchor(text: str, start: int, end: int) -> str | None:
    """The stretch of the chapter the reader highlights: the sentence, cut at a paragraph break."""
    if start < 0:
        return None
    return text[start:end].split("\n\n")[0] or None


def flag_note(flag: Flag) -> str:
    """One line under a flagged paragraph in the reader."""
    return (f"⚠ {KIND_TITLES.get(flag.kind, flag.kind)}: {plain(flag.detail)} — contradicts {where(flag)}: "
            f"“{plain(flag.prior_sentence[:160])}”")


def where(flag: Flag) -> str:
    """Where the contradicted sentence is: a chapter, or the story bible for a pinned fact (issue 34)."""
    return "a fact pinned in the story bible" if flag.prior_chapter == 0 else f"chapter {flag.prior_chapter}"


def sentence_box(title: str, sentence: str) -> None:
    st.caption(title)
    st.markdown(f"> {plain(sentence)}")


def both_sentences(flag: Flag, prefix: str, n: int, open_in_reader: Callable[[int, int, int], None]) -> None:
    """The earlier and the new sentence side by side, each with "Open in reader" (keys `{prefix}prior_{n}` and
    `{prefix}new_{n}`); a fact pinned in the story bible (chapter 0, issue 34) has no place in the reader."""
    earlier, later = st.columns(2)
    with earlier:
        pinned = flag.prior_chapter == 0
        sentence_box("Pinned in the story bible" if pinned else f"Earlier, chapter {flag.prior_chapter}",
                     flag.prior_sentence)
        if not pinned:
            st.button("Open in reader", key=f"{prefix}prior_{n}", icon=":material/menu_book:",
                      on_click=open_in_reader, args=(flag.prior_chapter, flag.prior_start, flag.prior_end))
    with later:
        sentence_box(f"Here, chapter {flag.chapter}", flag.sentence)
        st.button("Open in reader", key=f"{prefix}new_{n}", icon=":material/menu_book:",
                  on_click=open_in_reader, args=(flag.chapter, flag.start, flag.end))


def draft_conflicts(store: Store, work_id: int, text: str, box: str = "write_continuity") -> None:
    """Beside a draft on the Write page: its contradictions with the story so far (checked once per text). `box`:
    its container's key, one per box (the generated draft and a hand-written chapter can be open at once)."""
    if not text.strip():
        return
    key = hashlib.sha1(f"{work_id}|{text}".encode()).hexdigest()
    cached = CONT_DRAFT.get()
    if cached is None or cached[0] != key:
        try:
            with st.spinner("Checking the draft against the story so far…"):
                cached = (key, continuity_service.check_draft(store, work_id, text))
        except ValueError as exc:
            st.caption(f"Continuity not checked: {plain(str(exc))}")
            return
        CONT_DRAFT.set(cached)
    check = cached[1]
    with st.container(key=box):
        if check.flags:
            st.warning(f"Continuity: {counted(len(check.flags), 'conflict')} with the story so far. Edit the draft, or "
                       "accept it if the story means it.", icon=":material/rule:")
            for f in check.flags:
                title = KIND_TITLES.get(f.kind, f.kind)
                st.markdown(f"- **{title}** · {plain(f.entity)}: “{plain(f.sentence)}” — "
                            f"contradicts {where(f)}: “{plain(f.prior_sentence[:200])}”")
        else:
            st.caption("Continuity: no conflict with what the story has established.")
        if check.established:
            with st.expander("What the story has established about the characters in this draft"):
                st.markdown("\n".join(f"- {plain(line.text)} (chapter {line.chapter})"
                                       for line in check.established))

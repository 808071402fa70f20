"""The Read page's chapter text: its paragraphs (continuity flags marked, a cited passage highlighted and scrolled
to) beside the X-Ray, and the page's scrolling."""
from __future__ import annotations

import json

import streamlit as st

from core.domain import Chapter
from core.services.continuity_service import list_flags
from core.store import Store
from views._continuity_view import flag_note, flags_by_paragraph
from views._reader_xray import xray_panel
from views._shared import plain_with_italics
from views._state import READ_HIGHLIGHT, READ_SCROLL_NONCE

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


def chapter_text(store: Store, work_id: int, index: int, chapter: Chapter) -> None:
    """Chapter `index`'s paragraphs in the wide column, the X-Ray beside them."""
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

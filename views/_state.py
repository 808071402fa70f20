"""Typed page state: every value a page keeps in st.session_state, one typed slot each, and the objects stored there.

    READ_CHAPTER.set(3); READ_CHAPTER.get()           # int | None: where the reader is (Read, Ask, Library, Home)
    ASKED.set(Asked(work_id, result))                  # the last answer: the QAResult object, not its dict view
    if (shown := CONTINUATION.get()): shown.result.text

A slot's key is its session-state key, so a widget created with `key=SLOT.key` is read back through the slot, and
tests set state under the same names. Pages never index st.session_state with a string of their own.
"""
from __future__ import annotations

from typing import Any, Generic, TypeVar, cast

import streamlit as st

# the objects kept in state, importable from here as from their own module
from views._state_objects import Asked as Asked
from views._state_objects import GraphHighlight as GraphHighlight
from views._state_objects import PendingDelete as PendingDelete
from views._state_objects import PendingImport as PendingImport
from views._state_objects import ShownContinuation as ShownContinuation

T = TypeVar("T")


class Slot(Generic[T]):
    """One session-state entry of type T, `default` while unset."""

    def __init__(self, key: str, default: T) -> None:
        self.key = key
        self.default = default

    def get(self) -> T:
        return cast(T, st.session_state.get(self.key, self.default))

    def set(self, value: T) -> None:
        st.session_state[self.key] = value

    def pop(self) -> T:
        """The value (or the default), and the entry gone: a one-shot message between reruns or pages."""
        return cast(T, st.session_state.pop(self.key, self.default))

    def is_set(self) -> bool:
        return self.key in st.session_state

    def clear(self) -> None:
        st.session_state.pop(self.key, None)


# ---- the slots -----------------------------------------------------------------------------------------------------

WORK_ID: Slot[int | None] = Slot("work_id", None)                 # the work open on every page
WORK_PICKED: Slot[int | None] = Slot("_work_picked", None)       # chosen by code: the next picker shows it
URL_WRITTEN: Slot[dict[str, str]] = Slot("_url_written", {})     # the query parameters this session put in the URL

READ_CHAPTER: Slot[int | None] = Slot("read_chapter", None)
READ_HIGHLIGHT: Slot[str | None] = Slot("read_highlight", None)  # a cited passage's first words, to highlight
READ_SCROLL_TOP: Slot[bool] = Slot("read_scroll_top", False)
READ_SCROLL_NONCE: Slot[int] = Slot("read_scroll_nonce", 0)
READ_EDITING: Slot[bool] = Slot("read_editing", False)
READ_EDIT_ERROR: Slot[str | None] = Slot("read_edit_error", None)
READ_EDIT_SAVED: Slot[str | None] = Slot("read_edit_saved", None)
# the reading companion (issue 33)
READ_PLACE_SEEN: Slot[dict[int, Any]] = Slot("read_place_seen", {})      # work -> its welcome-back range, or None
READ_RECAP: Slot[tuple[int, Any, Any] | None] = Slot("read_recap_result", None)  # (work, Recap, Prose or None)
READ_RECAP_ERROR: Slot[str | None] = Slot("read_recap_error", None)
READ_XRAY: Slot[bool] = Slot("read_xray", True)                          # the X-Ray beside the text


def read_editor(work_id: int, index: int) -> tuple[Slot[str], Slot[tuple[int, str] | None]]:
    """The chapter editor's text (its text area) and the (revision, text) it started from, per work and chapter."""
    return Slot(f"read_edit_text_{work_id}_{index}", ""), Slot(f"read_edit_loaded_{work_id}_{index}", None)

CONT_OPEN_READER: Slot[bool] = Slot("continuity_open_reader", False)     # Continuity's "Open in reader"
CONT_NOTE: Slot[str | None] = Slot("continuity_note", None)              # a one-shot message (marked, unmarked)
CONT_DRAFT: Slot[tuple[str, Any] | None] = Slot("continuity_draft", None)  # (draft's hash, DraftCheck) on Write
CONT_READING: Slot[tuple[str, Any] | None] = Slot("continuity_reading", None)  # (key, Reading) a model read
CONT_PLANS: Slot[dict[str, Any] | None] = Slot("continuity_plans", None)  # reading key -> price (CostEstimate)/why not

ASKED: Slot[Asked | None] = Slot("ask_result", None)
ASK_OPEN_READER: Slot[bool] = Slot("ask_open_reader", False)
ASK_OPEN_GRAPH: Slot[bool] = Slot("ask_open_graph", False)
ASK_READER_UNAVAILABLE: Slot[bool] = Slot("ask_reader_unavailable", False)

KG_HIGHLIGHT: Slot[GraphHighlight | None] = Slot("kg_highlight", None)
KG_AS_OF: Slot[int | None] = Slot("kg_as_of", None)                      # the chapter slider
KG_SLIDER_END: Slot[tuple[int, int] | None] = Slot("kg_slider_end", None)  # (work, last chapter) it was put at
KG_PLACED: Slot[tuple[int, int] | None] = Slot("kg_placed", None)        # (work, reader's place) it was put at
KG_PLAY: Slot[bool] = Slot("kg_play", False)
KG_STEP: Slot[bool] = Slot("kg_step", False)                              # Play's next frame is due
KG_OPEN_NODE: Slot[str | None] = Slot("kg_open_node", None)               # clicked in the drawing or the list
KG_DRAWING: Slot[dict[str, Any] | None] = Slot("kg_graph", None)          # the drawing's value: {"node": id}
KG_ISOLATED: Slot[Any] = Slot("kg_isolated", None)                       # the isolated entities' table selection
KG_EXPORT_FORMAT: Slot[str] = Slot("kg_export_format", "json")


def kg_details(focus: str | None) -> Slot[str | None]:
    """The entity whose details are open, per search focus (a new search focuses the details on its match)."""
    return Slot(f"kg_node_{focus}", None)

CONTINUATION: Slot[ShownContinuation | None] = Slot("cont_result", None)
CONT_PARTIAL: Slot[str] = Slot("cont_partial", "")                       # the text streamed so far
CONT_TEXT: Slot[str] = Slot("cont_text", "")                             # the text to continue (its text area)
CONT_LOADED: Slot[tuple[int, int, int] | None] = Slot("cont_loaded", None)  # (work, chapter, revision) in it
WRITE_DRAFT: Slot[str | None] = Slot("write_draft", None)                # the chapter draft being edited
WRITE_DRAFT_ID: Slot[str | None] = Slot("write_draft_id", None)          # the stored draft it came from
WRITE_TEXT: Slot[str] = Slot("write_text", "")                           # the draft's text area
WRITE_FINAL: Slot[bool] = Slot("write_final", False)                     # "This is the final chapter"

LIBRARY_OPEN_IMPORT: Slot[bool] = Slot("library_open_import", False)
PENDING_IMPORT: Slot[PendingImport | None] = Slot("pending_import", None)
IMPORTS_SEEN_BUSY: Slot[bool] = Slot("_imports_busy", False)          # the import panel saw one run
PENDING_DELETE: Slot[PendingDelete | None] = Slot("pending_delete", None)
WRITE_OPEN_START: Slot[bool] = Slot("write_open_start", False)
PRICE_TABLE: Slot[Any] = Slot("price_table", None)                       # Settings' price grid (its edits)
SETTINGS_DONE: Slot[tuple[str, str] | None] = Slot("settings_done", None)  # Settings: (section, what was done)
KEY_KIND: Slot[str] = Slot("key_kind", "openai")                          # Settings: OpenAI / Anthropic / server
KEY_SECRET: Slot[str] = Slot("key_secret", "")                            # the typed key (a password box, cleared)
KEY_URL: Slot[str] = Slot("key_url", "")
KEY_TYPED: Slot[dict[str, Any] | None] = Slot("key_typed", None)         # handed from Test and save to one run
KEY_ROLES: Slot[list[str]] = Slot("key_roles", [])
LOCAL_ROLES: Slot[list[str]] = Slot("local_roles", [])                    # roles a detected server's model gets


def job_seen_busy(work_id: int) -> Slot[bool]:
    """Whether the job panel last saw the work's job running (a job that ended since redraws the page)."""
    return Slot(f"_job_busy_{work_id}", False)

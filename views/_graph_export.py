"""The Graph page's export: the whole graph as of the slider's chapter in a chosen format (the lorebook with the
story bible's notes)."""
from __future__ import annotations

import streamlit as st

from core.kg.export import FORMATS
from core.services import bible_service, kg_views
from core.store import Store
from views._state import KG_EXPORT_FORMAT


def export_section(store: Store, work_id: int, view: kg_views.GraphView) -> None:
    """The format box and the download button (the file is made when it is clicked)."""
    fmt_col, button_col = st.columns([1, 3])
    # Re-assert the choice each run: after a work without a graph (no box drawn) the box came back showing "json"
    # while its state, and so the download, was still the format chosen before.
    KG_EXPORT_FORMAT.set(KG_EXPORT_FORMAT.get())
    fmt = fmt_col.selectbox("Export format", list(FORMATS), key=KG_EXPORT_FORMAT.key,
                            help="The whole graph as of this chapter (filters do not apply).")
    title = store.get_work(work_id).title
    file_name, mime = kg_views.export_filename(view, fmt, title)
    button_col.download_button(f"Download {file_name}", data=lambda: kg_views.export_view(
        view, fmt, title, bible_service.lore(store, work_id) if fmt == "lorebook" else None)[0],  # + the bible's notes
        file_name=file_name, mime=mime, key="kg_download")

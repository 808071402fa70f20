"""The Library's sharing control, for a work's owner when sign-in is on: share read-only by email, list, revoke."""
from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from core.domain import Work
from core.services import guarded_store
from core.store import NotFound, Store
from views._shared import plain


def share_popover(container: DeltaGenerator, store: Store, work: Work) -> None:
    """"Share read-only with…": a form for the other user's email, then who it is shared with, each with Revoke."""
    with container.popover("Share read-only with…", icon=":material/share:"):
        with st.form(f"share_{work.id}", clear_on_submit=True, border=False):
            other = st.text_input("Their email address (or sign-in subject)", key=f"share_user_{work.id}")
            shared = st.form_submit_button("Share read-only")
        if shared:
            try:
                guarded_store.share(store, work.id, other)
            except (ValueError, NotFound) as exc:
                st.error(plain(str(exc)))
            else:
                st.success(f"Shared read-only with {plain(other.strip())}.")
        readers = guarded_store.shares(store, work.id)
        if not readers:
            st.caption("Not shared with anyone: only you can see it.")
            return
        st.caption("Shared read-only with:")
        for reader in readers:
            name_col, revoke_col = st.columns([3, 1], vertical_alignment="center")
            name_col.markdown(plain(reader))
            if revoke_col.button("Revoke", key=f"revoke_{work.id}_{reader}"):
                try:
                    guarded_store.unshare(store, work.id, reader)
                except (ValueError, NotFound) as exc:
                    st.error(plain(str(exc)))
                else:
                    st.rerun()

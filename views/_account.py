"""Sign-in on the pages: whether it is configured, who is signed in, the sign-in screen and the account menu.

Sign-in is on when the Streamlit secrets have an [auth] section (README "Sign-in"); then every page gets the Store as
the signed-in user may use it (views._shared.get_store), and nothing runs for a visitor who has not signed in. Off,
Fabula is the single-user local app and none of this shows.
"""
from __future__ import annotations

import streamlit as st

from core.config import get_settings
from core.services import access
from views._text import plain


def sign_in_on() -> bool:
    """Whether an [auth] section is configured (st.secrets: the server's secrets files, or a test's)."""
    return st.secrets.load_if_toml_exists() and bool(st.secrets.get("auth"))


def signed_in_user() -> str | None:
    """The signed-in user's key (email, else subject); None when nobody is signed in."""
    if not st.user.is_logged_in:
        return None
    email, subject = st.user.get("email"), st.user.get("sub")
    try:
        return access.user_of(str(email) if email else None, str(subject) if subject else None)
    except ValueError:  # a provider that gives neither: treat as not signed in
        return None


def sign_in_screen() -> None:
    """What a visitor sees until they sign in: what Fabula is, and the button."""
    st.title("Fabula")
    st.write("Read long fiction through a knowledge graph: import a book, ask about it, summarise it, continue it.")
    st.info("This Fabula is shared: sign in to see your own works and the works shared with you.",
            icon=":material/lock:")
    if st.button("Sign in", type="primary", icon=":material/login:", key="sign_in"):
        st.login()


def account_menu() -> None:
    """In the sidebar: who is signed in, and Sign out."""
    name = st.user.get("name") or st.user.get("email") or st.user.get("sub") or "you"
    st.divider()
    st.caption(f"Signed in as **{plain(str(name))}**")
    if (user := signed_in_user()) and str(name) != user:
        st.caption(plain(user))
    if st.button("Sign out", icon=":material/logout:", key="sign_out"):
        st.logout()


def legacy_owner() -> str | None:
    """Who owns the works made before sign-in was configured (FABULA_ADMIN)."""
    return get_settings().admin

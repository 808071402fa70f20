"""Fabula's Streamlit entry point: the composition root. Builds the Store once, seeds the sample book on a fresh
database, and hands navigation to the pages in views/."""
from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import streamlit as st  # noqa: E402

from core.services import llm_service  # noqa: E402
from core.services.access import ReadOnly  # noqa: E402
from core.services.library import ensure_sample  # noqa: E402
from core.store import NotFound  # noqa: E402
from views import _account  # noqa: E402
from views._position import sidebar_place  # noqa: E402
from views._shared import get_store, plain, raw_store, selected_work_id  # noqa: E402

PAGES_DIR = Path(__file__).resolve().parent / "views"

# (file, title, icon, url path), in menu order.
PAGES = [
    ("home.py", "Home", ":material/home:", "home"),
    ("library.py", "Library", ":material/library_books:", "library"),
    ("read.py", "Read", ":material/menu_book:", "read"),
    ("graph.py", "Graph", ":material/hub:", "graph"),
    ("continuity.py", "Continuity", ":material/rule:", "continuity"),
    ("ask.py", "Ask the book", ":material/question_answer:", "ask"),
    ("summaries.py", "Summaries", ":material/summarize:", "summaries"),
    ("write.py", "Write", ":material/edit_note:", "write"),
    ("dashboard.py", "Retention", ":material/monitoring:", "retention"),
    ("settings.py", "Settings", ":material/settings:", "settings"),
]


@st.cache_resource(show_spinner="Preparing the library…")
def _seed_once() -> bool:
    ensure_sample(raw_store())  # with sign-in on, an unowned work: FABULA_ADMIN's (core.services.access)
    return True


@st.cache_resource(show_spinner=False)
def _warm_up_once() -> bool:
    """Once per server process: load the local models and the embedder in the background (pages share them)."""
    llm_service.start_warm_up(raw_store())
    return True


# A local icon: a Material icon as favicon is fetched from fonts.gstatic.com, which an offline install cannot reach.
st.set_page_config(page_title="Fabula", page_icon=str(Path(__file__).parent / "assets" / "favicon.png"), layout="wide")
pages = [st.Page(PAGES_DIR / f, title=t, icon=i, url_path=u, default=(u == "home"))
         for f, t, i, u in PAGES]
# The menu is drawn first, before anything slow: a list of page links with their titles (Streamlit's own menu is
# hidden in .streamlit/config.toml, client.showSidebarNavigation = false). The page files live in views/, not
# pages/: a pages/ folder beside app.py would switch Streamlit to its legacy multipage mode for a fresh server's
# first request, so a deep link (/ask) would run without app.py.
page = st.navigation(pages, position="hidden")
signing_in = _account.sign_in_on()  # [auth] in the secrets: a shared server, each user sees their own works
if signing_in and _account.signed_in_user() is None:
    _account.sign_in_screen()
    st.stop()
with st.sidebar:
    for listed in pages:
        st.page_link(listed)
    sidebar_place(get_store(), selected_work_id())  # the reader's place in the open work (issue 33)
    if signing_in:
        _account.account_menu()
_seed_once()
_warm_up_once()
try:
    page.run()
except ReadOnly as exc:  # a change tried on a work shared read-only (a tampered form or URL): nothing was changed
    st.error(plain(str(exc)), icon=":material/lock:")
except NotFound as exc:  # with sign-in on, also another user's work asked for by id
    if not signing_in:
        raise
    st.error(plain(str(exc)))

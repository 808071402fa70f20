"""The Settings page's keys and servers: a key or an OpenAI-compatible server typed in (tested, saved to the data
directory's secrets file, assigned to roles), the saved ones with Remove, and the Ollama / LM Studio servers found
running on this machine as one-click choices. The rules live in core.services.llm_endpoints."""
from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from core.llm import LLMError
from core.services import llm_endpoints, llm_service
from core.store import Store
from views._shared import plain
from views._state import KEY_KIND, KEY_ROLES, KEY_SECRET, KEY_TYPED, KEY_URL, LOCAL_ROLES, SETTINGS_DONE, Slot

MAX_BUTTONS = 12  # more models than this: a list and one button
_URL = re.compile(r"(https?://[^\s,;)]+[^\s,;).])")


def _done(section: str, message: str) -> None:
    """Say it in `section` after the rerun that redraws the roles table."""
    SETTINGS_DONE.set((section, message))
    st.rerun()


def _say_done(section: str) -> None:
    if (done := SETTINGS_DONE.get()) and done[0] == section:
        SETTINGS_DONE.clear()
        st.success(_said(done[1]))


def _code(text: str) -> str:
    """A URL or path shown as inline code: literal inside (markdown escapes would show), so only backticks go."""
    return f"`{text.replace('`', '')}`"


def _said(text: str) -> str:
    """A message for st.error / st.success: escaped like book text, except its URLs, shown as code (an escaped URL
    would be autolinked with its backslashes)."""
    parts = _URL.split(text)
    return "".join(_code(p) if i % 2 else plain(p) for i, p in enumerate(parts))


def _roles_box(slot_key: str, locked: bool) -> list[str]:
    return st.multiselect("Use it for", llm_service.ROLES, default=list(llm_service.ROLES), key=slot_key,
                          disabled=locked, help="The roles that get this model (the others keep theirs)")


def local_servers_section(store: Store, locked: bool) -> list[str]:
    """Ollama / LM Studio running here, each model one click away; the detected model names (for the pickers)."""
    st.subheader("Models on this machine")
    _say_done("local")
    refresh = st.button("Look again", key="detect_again", icon=":material/refresh:")
    servers = llm_endpoints.detected_servers(refresh=refresh)
    if not servers:
        looked = "; ".join(f"{label} at {_code(url)}" for label, url in llm_endpoints.looked_for()) or "none"
        st.caption(f"No Ollama or LM Studio server is running here (looked for {looked}). Start one, fetch a model "
                   "(`ollama pull llama3.2`), and press Look again: its models then appear here as one-click choices.")
        return []
    for server in servers:
        where = f"**{server.label}** is running at {_code(server.url)}"
        if server.models:
            st.markdown(f"{where} with {len(server.models)} model{'s' if len(server.models) > 1 else ''}: no key, "
                        "nothing leaves this machine. One click below gives a model the roles chosen here.")
        else:
            st.info(f"{where} but has no chat model yet: fetch one (e.g. `ollama pull llama3.2`) and press Look "
                    "again.")
    offering = [s for s in servers if s.models]
    roles = _roles_box(LOCAL_ROLES.key, locked) if offering else []
    for server in offering:
        names = server.names
        if len(names) > MAX_BUTTONS:
            names = [st.selectbox(f"{server.label} models", names, key=f"pick_{server.provider}")]
        cols = st.columns(min(len(names), 4))
        for i, name in enumerate(names):
            if cols[i % len(cols)].button(f"Use {plain(name.split(':', 1)[1])}", key=f"use_{name}",
                                          disabled=locked or not roles, help=f"{name} ({server.label})"):
                try:
                    llm_endpoints.use_local_model(store, name, roles)
                except (LLMError, ValueError, PermissionError) as exc:
                    st.error(_said(str(exc)))
                else:
                    _done("local", f"{name} now serves {', '.join(roles)}. Try it under Test connection.")
    return [n for s in servers for n in s.names]


def keys_section(store: Store, locked: bool) -> None:
    """Where keys come from, the saved ones with Remove, and the form that tests and saves a new one."""
    st.subheader("Keys and servers")
    _say_done("keys")
    st.dataframe(pd.DataFrame(llm_service.endpoints()), hide_index=True, width="stretch",
                 column_config={"base_url": "Base URL", "base_url_from": "Base URL from", "key": "Key from"})
    for problem in llm_endpoints.file_problems():
        st.warning(_said(problem))
    for row in llm_endpoints.saved_rows():
        left, right = st.columns([4, 1])
        left.caption(f"Saved here: **{row['provider']}** at {_code(row['base_url'])}, key {row['key']}.")
        if right.button("Remove", key=f"remove_{row['provider']}", disabled=locked):
            still = llm_endpoints.remove(store, row["provider"])
            _done("keys", f"Removed the saved {row['provider']} entry."
                  + (f" {', '.join(still)} still use{'s' if len(still) == 1 else ''} {row['provider']} models: they "
                     "now take the environment's key and URL, or say that none is set." if still else ""))
    st.caption(plain(llm_endpoints.PRECEDENCE) + f" Saved in {_code(llm_endpoints.where_saved())} (readable only by "
               "the account the server runs as); never in the database, the logs or an export, and never shown.")

    kind = st.radio("Add", list(llm_endpoints.KINDS), format_func=llm_endpoints.KINDS.__getitem__, horizontal=True,
                    key=KEY_KIND.key, disabled=locked)
    with st.form("key_form"):
        if kind == "compatible":
            st.text_input("Base URL", key=KEY_URL.key, placeholder="http://localhost:8000/v1",
                          help="Ollama: http://localhost:11434/v1 · LM Studio: http://localhost:1234/v1 · vLLM, "
                               "llama.cpp server: http://HOST:PORT/v1")
        st.text_input("API key (optional)" if kind == "compatible" else "API key", key=KEY_SECRET.key,
                      type="password", autocomplete="off")
        st.text_input("Model", value=llm_endpoints.DEFAULT_MODEL[kind], key=_model_slot(kind).key,
                      placeholder="the name the server knows, e.g. llama3.1:8b")
        _roles_box(KEY_ROLES.key, locked)
        st.form_submit_button("Test and save", type="primary", disabled=locked, on_click=_take_typed)
    if (typed := KEY_TYPED.pop()) is not None:
        with st.spinner("Sending one short request…"):
            try:
                result = llm_endpoints.connect(store, **typed)
            except (LLMError, ValueError, PermissionError) as exc:
                st.error(_said(str(exc)))
            else:
                reply, seconds = result["reply"][:80], result["seconds"]
                serves = f"; it now serves {', '.join(result['roles'])}." if result["roles"] else "."
                _done("keys", f"{result['llm']} answered in {seconds:.1f} s (“{reply}”) and is saved{serves}")


def _model_slot(kind: str) -> Slot[str]:
    return Slot(f"key_model_{kind}", "")


def _take_typed() -> None:
    """Test and save's on_click (it runs before the page): hand what was typed to this run once, and empty the key
    box at once, so the key stays neither in the session nor in the browser's field."""
    kind = KEY_KIND.get()
    KEY_TYPED.set({"kind": kind, "key": KEY_SECRET.get(), "base_url": KEY_URL.get() if kind == "compatible" else None,
                   "model": _model_slot(kind).get(), "roles": list(KEY_ROLES.get())})
    KEY_SECRET.set("")

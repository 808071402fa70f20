"""Settings: which LLM serves each role, endpoints and where keys come from, a connection test, the price table."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.llm import LLMError
from core.services import llm_service
from core.services.guarded_store import can_change_settings
from views._settings_keys import keys_section, local_servers_section
from views._shared import get_store, plain
from views._state import PRICE_TABLE

store = get_store()
st.title("Settings")
locked = not can_change_settings(store)  # a shared server: the models and prices are the admin's (FABULA_ADMIN)
if locked:
    st.info("These settings are shared by everyone on this server: only its admin can change them.",
            icon=":material/lock:")

# -- a server on this machine (Ollama, LM Studio) found running: its models one click away; then each role's model --
detected = local_servers_section(store, locked)
st.subheader("Language models")
saved = llm_service.load_role_assignment(store)
effective = {row["role"]: row["llm"] for row in llm_service.effective_roles(store)}
suggestions = sorted({ex for p in llm_service.list_models() if p["listed"] for ex in p["examples"]} | set(detected)
                     | set(effective.values()) | ({saved.default} if saved.default else set()))


def model_box(label: str, current: str, key: str) -> str:
    """A model picker that also accepts any PROVIDER:MODEL typed in (e.g. openai:llama3.1:8b on Ollama)."""
    return st.selectbox(label, suggestions, index=suggestions.index(current), key=key, accept_new_options=True,
                        help="PROVIDER:MODEL; type a new one for any model your OpenAI-compatible server has")


# "One model for everything" only when it is true: writing has its own built-in default (SmolLM2), for one.
per_role = st.radio("Assign", ["One model for everything", "One model per role"], horizontal=True,
                    index=1 if saved.roles or len(set(effective.values())) > 1 else 0)
everything: str | None
with st.form("llm_roles"):
    if per_role == "One model for everything":
        everything = model_box("Model", saved.default or effective["answering"], "llm_all")
        if others := [row for row in llm_service.effective_roles(store) if row["llm"] != everything]:
            st.caption("Now " + "; ".join(f"{row['role']} uses {row['llm']} ({row['source']})" for row in others)
                       + f". Saving gives every role {everything}.")
        choices: dict[str, str] = {}
    else:
        everything = None
        choices = {role: model_box(role.capitalize(), effective[role], f"llm_{role}") for role in llm_service.ROLES}
    if st.form_submit_button("Save", type="primary", disabled=locked):
        try:
            llm_service.save_role_assignment(store, everything, choices)
        except (LLMError, ValueError) as exc:
            st.error(plain(str(exc)))
        else:
            st.success("Saved.")
            st.rerun()

st.dataframe(pd.DataFrame(llm_service.effective_roles(store)), hide_index=True, width="stretch")
if effective.get("writing") == llm_service.BUILTIN_ROLE_DEFAULTS.get("writing") != effective.get("answering"):
    st.caption(f"Writing uses {effective['writing']} by default: {effective['answering']} is a base model that "
               "cannot follow the chapter-writing prompt.")
runtime = llm_service.local_runtime()
if runtime["runtime"] == "openvino":
    st.caption("The embedded local models generate with OpenVINO on 8-bit weights (the fast path): prompts are read "
               "about three times as fast as with transformers.")
elif runtime["runtime"] == "llama.cpp":
    st.caption("The embedded local models generate with llama.cpp on their 4-bit weights (FABULA_LOCAL_RUNTIME="
               "llama.cpp, or OpenVINO missing or failing here): text comes out fastest, prompts are read slower "
               "than with OpenVINO.")
else:
    st.warning("The embedded local models generate with transformers here, several times slower: OpenVINO and "
               "llama.cpp are missing, turned off (FABULA_LOCAL_RUNTIME) or failed their test run on this CPU. "
               "`bash scripts/dev.sh setup` installs them.")
if len(set(runtime["models"].values())) > 1:
    st.caption("By model: " + "; ".join(f"{name} uses {used}" for name, used in runtime["models"].items()) + ".")
for note in runtime["notes"]:
    st.caption(plain(note) + ".")
if st.button("Use the environment's settings (FABULA_LLM…)", disabled=locked or not (saved.default or saved.roles)):
    llm_service.clear_role_assignment(store)
    st.rerun()

# -- keys and servers typed in here (views/_settings_keys.py) ------------------------------------------------------
keys_section(store, locked)

# -- connection test ---------------------------------------------------------------------------------------------
st.subheader("Test connection")
target = st.selectbox("LLM to test", suggestions, index=suggestions.index(effective["answering"]),
                      accept_new_options=True, key="llm_test")
if st.button("Test connection"):
    with st.spinner(f"Sending one short request to {target}… (a local model loads first, up to a minute)"):
        try:
            result = llm_service.test_connection(target)
        except (LLMError, ValueError) as exc:
            st.error(plain(str(exc)))
        else:
            st.success(f"{result['provider']}:{result['model']} answered.")
            st.text(result["reply"])  # model output is shown as plain text, never as markdown/HTML
            cols = st.columns(3)
            cols[0].metric("Input tokens", result["input_tokens"])
            cols[1].metric("Output tokens", result["output_tokens"])
            cols[2].metric("Seconds", f"{result['seconds']:.2f}")

# -- prices -------------------------------------------------------------------------------------------------------
st.subheader("Prices")
st.caption("USD per million tokens, used for the estimate before a long job and the tally after it. Local models "
           "are free; a model missing here shows as “unknown price”. Defaults are 2025 list prices: check yours.")
edited = st.data_editor(pd.DataFrame(llm_service.price_table_rows(store)), num_rows="dynamic", hide_index=True,
                        key=PRICE_TABLE.key, width="stretch",
                        column_config={"model": st.column_config.TextColumn("PROVIDER:MODEL", required=True),
                                       "input_per_1m": st.column_config.NumberColumn("Input $/1M", min_value=0.0),
                                       "output_per_1m": st.column_config.NumberColumn("Output $/1M", min_value=0.0)})
save_col, reset_col = st.columns(2)
if save_col.button("Save prices", disabled=locked):
    try:
        llm_service.save_price_table(store, edited.to_dict("records"))
    except ValueError as exc:
        st.error(plain(str(exc)))
    else:
        st.success("Prices saved.")
if reset_col.button("Restore default prices", disabled=locked):
    llm_service.reset_price_table(store)
    PRICE_TABLE.clear()
    st.rerun()

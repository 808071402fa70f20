"""Home, the first page: what Fabula is, three ways to start (the sample book, an import, a story), and which
features want a stronger model than the embedded ones, with the way to Settings."""
from __future__ import annotations

import streamlit as st

from core.config import get_settings
from core.services import library, llm_service
from views._shared import get_store, select_work
from views._state import LIBRARY_OPEN_IMPORT, READ_CHAPTER, WRITE_OPEN_START

store = get_store()
st.title("Fabula")
st.markdown("**Welcome.** Fabula reads a novel, or a story you are writing, chapter by chapter into a knowledge "
            "graph of its characters, places and what happens between them. With that graph it answers your "
            "questions with the chapters cited (never past the chapter you have reached), summarizes chapters, "
            "continues the story with you, and shows which characters and relationships a story keeps or drops.")

st.subheader("Start here", anchor=False)
sample_col, import_col, story_col = st.columns(3)
with sample_col.container(border=True, height="stretch"):
    st.markdown("**Open the sample book**")
    sample = library.sample_work(store)
    st.caption("*A Christmas Carol* by Charles Dickens, five chapters, already in your library: read it, build "
               "its graph, ask it questions." if sample else
               "*A Christmas Carol* by Charles Dickens is not in your library (deleted, or never imported because "
               "the library had books already): open it to import it.")
    if st.button("Open A Christmas Carol", key="home_sample", type="primary", icon=":material/menu_book:"):
        sample = library.sample_work(store, restore=True)
        assert sample is not None  # restore=True finds the book or imports it again (an import error raises)
        select_work(sample.id)
        READ_CHAPTER.set(1)
        st.switch_page("views/read.py")
with import_col.container(border=True, height="stretch"):
    st.markdown("**Import a book**")
    st.caption(f"A .txt, .md, .epub, Word .docx or text .pdf file of up to {get_settings().max_upload_mb} MB; "
               "chapters are found from its headings.")
    if st.button("Import a book", key="home_import", icon=":material/upload_file:"):
        LIBRARY_OPEN_IMPORT.set(True)
        st.switch_page("views/library.py")
with story_col.container(border=True, height="stretch"):
    st.markdown("**Start a story**")
    st.caption("Choose a premise (or write your own) and an arc; Fabula plans and writes it chapter by chapter "
               "with you, and you edit or write any chapter yourself.")
    if st.button("Start a story", key="home_story", icon=":material/edit_note:"):
        WRITE_OPEN_START.set(True)
        st.switch_page("views/write.py")

st.subheader("What the embedded models can do", anchor=False)
st.markdown(
    "Fabula works offline with two small embedded models (Gemma 3 270M and SmolLM2 135M). Importing, reading, "
    "the offline knowledge graph, passage search and the retention dashboard need no model at all.\n\n"
    "These features run on the embedded models but **need a stronger model** (OpenAI, Anthropic, or a local "
    "server such as Ollama or LM Studio) to be useful:\n"
    "- **Answers** to questions: the embedded models answer in a sentence or two and are often wrong.\n"
    "- **Summaries** of chapters.\n"
    "- **Writing and continuing** stories: the embedded writer loses the thread within a few paragraphs.\n"
    "- **Building the graph with an LLM**, and the grapher that reads new story chapters: the embedded models "
    "return no usable facts (the offline builder needs no model).\n"
    "- **NARCO** retrospective questions.\n\n"
    "Knowledge infused decoding (KID) steers a model's own token probabilities, so it runs on the embedded models.")
local = sorted({row["role"] for row in llm_service.effective_roles(store) if row["llm"].startswith("local:")})
st.caption(("Now served by an embedded model: " + ", ".join(local) + "." if local else
            "Every role is served by a model you chose.") + " Choose a model for each role in Settings.")
st.page_link("views/settings.py", label="Settings: choose your models", icon=":material/settings:")

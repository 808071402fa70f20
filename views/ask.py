"""Ask the book: an answer in one of five modes, its sources (linked to the reader) and the prompt inspector (with,
in graph mode, the entities the walk started from and the subgraph it used, which "Show in graph" opens)."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.errors import StreamlitPageNotFoundError

from core.config import get_settings
from core.llm import LLMError
from core.qa import MODE_HELP, MODES, QAParams
from core.qa.params import ANSWER_PATHS, DEFAULT_MODE, FACT_RANKINGS, PASSAGE_SEARCHES
from core.services import kg_views, qa_service
from views._ask_answer import PATH_LABELS, render_answer
from views._ask_inspector import prompt_inspector
from views._ask_narco import narco_section
from views._ask_sources import READER, sources_section
from views._jobs import job_panel
from views._position import past_place_warning, place_caption
from views._shared import get_store, pick_work_with_chapters, plain
from views._state import ASK_OPEN_GRAPH, ASK_OPEN_READER, ASK_READER_UNAVAILABLE, ASKED, READ_CHAPTER, Asked

GRAPH = "views/graph.py"
store = get_store()
for flag, page in ((ASK_OPEN_READER, READER), (ASK_OPEN_GRAPH, GRAPH)):
    if flag.pop():
        try:
            st.switch_page(page)
        except StreamlitPageNotFoundError:  # running outside app.py's navigation (AppTest, `streamlit run views/…`)
            ASK_READER_UNAVAILABLE.set(True)
st.title("Ask the book")
work_id, chapters = pick_work_with_chapters()


def progress_to(bar: DeltaGenerator) -> Callable[[int, int, str], None]:
    """An on_progress callback that moves `bar` (done of total, with the message)."""
    def progress(done: int, total: int, msg: str) -> None:
        bar.progress(done / max(total, 1), text=msg)
    return progress


@st.cache_data(max_entries=32, show_spinner=False)
def example_question(work_id: int, upto: int, graph_version: int, database: str) -> str:
    """A question about this book's most mentioned character met by chapter `upto` (not Scrooge on every book);
    read once per database, graph version and chapter, not at every rerun of the page."""
    from core.services.retention_service import graph_entities
    met = [e for e in graph_entities(store, work_id) if e.type == "character" and e.first_chapter <= upto]
    if not met:
        return "e.g. Who is the main character, and what do they want?"
    return f"e.g. What does {max(met, key=lambda e: e.mentions).label} want?"


last = chapters[-1].index
place = place_caption(store, work_id)  # the reader's place is the default spoiler limit (issue 33)
reading = min(place.chapter if place else (READ_CHAPTER.get() or last), last)
with st.form("ask_form"):
    question = st.text_input("Question", key="ask_question", placeholder=example_question(
        work_id, reading, kg_views.graph_version(store, work_id), get_settings().database_url))
    left, middle, right = st.columns([2, 3, 1])
    upto = left.number_input("I have read up to chapter", 1, last, reading, key=f"ask_upto_{work_id}",
                             help="Nothing after this chapter is read, retrieved or cited: no spoilers.")
    mode = middle.radio("Mode", MODES, index=MODES.index(DEFAULT_MODE), horizontal=True, key="ask_mode",
                        help="\n\n".join(f"**{m}**: {h}" for m, h in MODE_HELP.items()))
    dry_run = right.checkbox("Prompt only", key="ask_dry_run", help="Build the prompt without asking the model.")
    with st.expander("Budget and scoring"):
        budget = st.number_input("Prompt budget (tokens)", 50, 32_000, get_settings().prompt_budget_tokens,
                                 key="ask_budget")
        lam = st.slider("NARCO λ", 0.0, 1.0, 0.1, 0.05, key="ask_lambda")
        answer_path = st.radio("Answer", ANSWER_PATHS, horizontal=True, key="ask_answer_path",
                               format_func=PATH_LABELS.get,
                               help="automatic: the book's own words with an embedded model, the model's answer "
                                    "with a capable one (the chosen sentences lead its prompt).")
        left, right = st.columns(2)
        fact_ranking = left.radio("kg: facts chosen by", FACT_RANKINGS, horizontal=True, key="ask_fact_ranking",
                                  format_func={"levenshtein": "edit distance (paper)", "meaning": "meaning"}.get,
                                  help="The Andrus paper picks the 3 facts nearest the question by Levenshtein "
                                       "distance; 'meaning' picks them by MiniLM similarity.")
        search = right.radio("rag and graph: passages matched by", PASSAGE_SEARCHES, horizontal=True,
                             key="ask_passage_search",
                             format_func={"hybrid": "words + meaning", "dense": "meaning", "bm25": "words"}.get,
                             help="hybrid: BM25 and MiniLM fused by reciprocal rank (the default).")
    asked = st.form_submit_button("Ask", type="primary", key="ask_submit")
past_place_warning(store, work_id, int(upto), place, key="ask_move_place")  # looking past the place: said so

if asked and question.strip():
    params = QAParams(mode=mode, upto=int(upto), budget_tokens=int(budget), narco_lambda=float(lam),
                      fact_ranking=fact_ranking, passage_search=search, answer=answer_path)
    with st.status("Reading…", expanded=False) as status:
        try:
            if mode in ("rag", "narco", "graph") and qa_service.needs_vectors(store, work_id):
                bar = st.progress(0.0, text="Embedding the book's passages once…")
                qa_service.ensure_vectors(store, work_id, progress_to(bar))
            if (mode == "graph" or (mode == "kg" and fact_ranking == "meaning")) and \
                    qa_service.needs_meaning_vectors(store, work_id):
                bar = st.progress(0.0, text="Embedding the graph's facts and names once…")
                qa_service.attach_meaning_vectors(store, qa_service.load_corpus(store, work_id),
                                                  on_progress=progress_to(bar))
            ASKED.set(Asked(work_id, qa_service.ask(store, work_id, question, params, dry_run=dry_run)))
            status.update(label="Done", state="complete")
        except (LLMError, ValueError, LookupError) as exc:
            status.update(label="Could not answer", state="error", expanded=True)  # the reason must be seen
            st.error(plain(str(exc)))

answered = ASKED.get()
if answered and answered.work_id == work_id:
    result = answered.result.as_dict()  # the answer's view: what the tables below show
    render_answer(result)
    for note in result["notes"]:
        st.caption(plain(note))
    sources_section(store, work_id, result)
    prompt_inspector(work_id, result)

busy = job_panel(store, work_id, ("narco",)).busy  # NARCO builds run in the background: progress, Stop, outcome
narco_section(store, work_id, last, busy)

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
from core.qa.params import ANSWER_PATHS, FACT_RANKINGS, PASSAGE_SEARCHES
from core.services import narco_service, qa_service
from core.services.guarded_store import is_read_only
from core.services.llm_service import resolve_llm_name
from views._ask_answer import PATH_LABELS, render_answer
from views._jobs import job_panel, start_job
from views._position import past_place_warning, place_caption
from views._shared import get_store, pick_work_with_chapters, plain, select_work
from views._state import (
    ASK_OPEN_GRAPH,
    ASK_OPEN_READER,
    ASK_READER_UNAVAILABLE,
    ASKED,
    KG_HIGHLIGHT,
    READ_CHAPTER,
    READ_HIGHLIGHT,
    Asked,
    GraphHighlight,
)

READER = "views/read.py"
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


def open_in_reader(chapter: int, text: str) -> None:
    """Button callback: the reader opens at the chapter with the cited passage highlighted."""
    select_work(work_id)
    READ_CHAPTER.set(chapter)
    READ_HIGHLIGHT.set(qa_service.reader_anchor(store, work_id, chapter, text))
    ASK_OPEN_READER.set(True)


def open_in_graph(graph: dict, question: str, upto: int) -> None:
    """Button callback: the Graph page opens as of the reader's chapter, drawing only the subgraph graph mode used."""
    select_work(work_id)
    KG_HIGHLIGHT.set(GraphHighlight(work_id, question, upto, tuple(e["entity_id"] for e in graph["entities"])))
    ASK_OPEN_GRAPH.set(True)


def progress_to(bar: DeltaGenerator) -> Callable[[int, int, str], None]:
    """An on_progress callback that moves `bar` (done of total, with the message)."""
    def progress(done: int, total: int, msg: str) -> None:
        bar.progress(done / max(total, 1), text=msg)
    return progress


def reader_link(label: str, chapter: int) -> None:
    try:
        st.page_link(READER, label=label, icon=":material/menu_book:",
                     query_params={"work": str(work_id), "chapter": str(chapter)})
    except StreamlitPageNotFoundError:
        st.markdown(f"[{plain(label)}](read?work={work_id}&chapter={chapter})")


last = chapters[-1].index
place = place_caption(store, work_id)  # the reader's place is the default spoiler limit (issue 33)
reading = min(place.chapter if place else (READ_CHAPTER.get() or last), last)
with st.form("ask_form"):
    question = st.text_input("Question", key="ask_question", placeholder="e.g. Why does Scrooge fear the future?")
    left, middle, right = st.columns([2, 3, 1])
    upto = left.number_input("I have read up to chapter", 1, last, reading, key=f"ask_upto_{work_id}",
                             help="Nothing after this chapter is read, retrieved or cited: no spoilers.")
    mode = middle.radio("Mode", MODES, index=MODES.index("kg"), horizontal=True, key="ask_mode",
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
    st.markdown(f"**Sources** (up to chapter {result['upto']})")
    if ASK_READER_UNAVAILABLE.pop():
        st.caption("The reader opens from the app's navigation; use the chapter links here.")
    for i, c in enumerate(result["citations"]):
        with st.container(border=True):
            kind = {"fact": "fact from", "text": "ending text of", "passage": "retrieved from"}[c["kind"]]
            st.caption(f"{kind} chapter {c['chapter']}, passage {c['chunk'] + 1}"
                       + (f" · score {c['score']:.3f}" if c["score"] is not None else ""))
            st.markdown(plain(c["text"][:600] + ("…" if len(c["text"]) > 600 else "")))
            link, highlight = st.columns([3, 1])
            with link:
                reader_link(f"Chapter {c['chapter']}, passage {c['chunk'] + 1}", c["chapter"])
            highlight.button("Show in reader", key=f"ask_cite_{i}", on_click=open_in_reader,
                             args=(c["chapter"], c["text"]))
    with st.expander("Prompt inspector"):
        st.caption(f"{result['mode']} · {result['llm']} · {result['prompt_tokens']} prompt tokens + "
                   f"{result['template_tokens']} chat-template tokens of a {result['budget']}-token budget · "
                   f"facts verbalized by {result['verbalized_by']} · "
                   + ", ".join(f"{k} {v:.0f}" for k, v in result["timings"].items()))
        st.code(result["prompt"], language=None, wrap_lines=True)
        if result["facts"]:
            st.markdown("**Facts** (Levenshtein distance to the question, lower is nearer)")
            st.dataframe(result["facts"], hide_index=True)
        if result.get("graph"):
            graph = result["graph"]
            st.markdown(f"**Graph walk**: personalized PageRank (damping {graph['damping']}) from these seed "
                        f"entities and the {graph['passage_seeds']} best-matching passages")
            st.dataframe(graph["seeds"], hide_index=True,
                         column_order=["label", "how", "weight", "evidence"])
            if graph["entities"]:
                st.markdown("**Subgraph used**: the entities holding most of the walk, and their relationships")
                st.dataframe(graph["entities"], hide_index=True, column_order=["label", "type", "score"])
                if graph["edges"]:
                    st.dataframe([{"between": f"{e['source_label']} – {e['target_label']}",
                                   "labels": ", ".join(e["labels"]), "weight": e["weight"]} for e in graph["edges"]],
                                 hide_index=True)
                st.button("Show in graph", key="ask_show_graph", icon=":material/hub:", on_click=open_in_graph,
                          args=(graph, result["question"], result["upto"]))
        if result["passages"]:
            st.markdown("**Passages** (score: reciprocal-rank fusion or cosine for rag, S = q·v + λ·max q·e for "
                        "narco, PageRank mass for graph; similarity: cosine)")
            st.dataframe(result["passages"], hide_index=True)

busy = job_panel(store, work_id, ("narco",)).busy  # NARCO builds run in the background: progress, Stop, outcome
with st.expander("NARCO edges (retrospective questions between passages)"):
    state = narco_service.status(store, work_id)
    st.caption(f"{state['built']} of {state['passages']} passages connected · {state['edges']} questions"
               + (" · an earlier build stopped and will resume" if state["unfinished"] else ""))
    c1, c2, c3 = st.columns(3)
    window = c1.number_input("Window (passages)", 1, 20, 3, key="narco_window")
    first = c2.number_input("From chapter", 1, last, 1, key=f"narco_from_{work_id}")
    to = c3.number_input("To chapter", 1, last, last, key=f"narco_to_{work_id}")
    narco = narco_service.NarcoParams(window=int(window), first_chapter=int(first), last_chapter=int(max(first, to)))
    llm_name = resolve_llm_name(store, "extraction")
    estimate = narco_service.estimate(store, work_id, narco, llm_name)
    st.caption(f"Estimate with {llm_name}: {estimate.units} passages, {estimate.detail['pairs']} pairs, "
               f"~{estimate.calls} calls, ~{estimate.input_tokens:,} input and "
               f"{estimate.output_tokens:,} output tokens: {estimate.label}")
    if st.button("Build NARCO edges", key="narco_build",
                 disabled=not estimate.units or busy or is_read_only(store, work_id)):
        start_job(store, work_id, "narco", {"llm_name": llm_name, "window": narco.window,
                                            "first_chapter": narco.first_chapter, "last_chapter": narco.last_chapter})

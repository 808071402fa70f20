"""The Ask page's prompt inspector: the prompt sent, its token budget and timings, the facts and passages chosen,
and in graph mode the walk's seed entities and the subgraph it used, which "Show in graph" opens on the Graph page."""
from __future__ import annotations

from typing import Any

import streamlit as st

from views._shared import select_work
from views._state import ASK_OPEN_GRAPH, KG_HIGHLIGHT, GraphHighlight


def open_in_graph(work_id: int, graph: dict, question: str, upto: int) -> None:
    """Button callback: the Graph page opens as of the reader's chapter, drawing only the subgraph graph mode used."""
    select_work(work_id)
    KG_HIGHLIGHT.set(GraphHighlight(work_id, question, upto, tuple(e["entity_id"] for e in graph["entities"])))
    ASK_OPEN_GRAPH.set(True)


def prompt_inspector(work_id: int, result: dict[str, Any]) -> None:
    """The expander under an answer (`result`, the answer's dict view)."""
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
                          args=(work_id, graph, result["question"], result["upto"]))
        if result["passages"]:
            st.markdown("**Passages** (score: reciprocal-rank fusion or cosine for rag, S = q·v + λ·max q·e for "
                        "narco, PageRank mass for graph; similarity: cosine)")
            st.dataframe(result["passages"], hide_index=True)

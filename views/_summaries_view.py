"""The Summaries page's render helpers: one summary with what made it and how far to trust it, and the scores table
(KGScore and ROUGE as the KGScore paper reports them). Widget keys carry the work id, as Ask's do, so a value kept
for one work never reaches another work's widget."""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.services import summary_scores, summary_service as ss
from core.summarize import EXTRACTIVE, MODE_LABELS
from views._shared import get_store, plain
from views._text import counted

CHOICES = {EXTRACTIVE: "In the book's own words (extractive)", "kg": "Model, with the graph",
           "no_kg": "Model, chapter text only", "both": "Model, both side by side"}
EXTRACTIVE_NOTE = ("No model writes this: the chapter's own sentences, chosen with the knowledge graph (the main "
                   "characters' events, new relationships, deaths and arrivals) and by how much of the chapter "
                   "they carry, fitted to the length asked and kept in story order.")
EMBEDDED_NOTE = ("Written by a small embedded model ({model}): it often repeats itself or copies the chapter's "
                 "opening, so read it as a rough draft, not a summary. The book's own words (extractive) are the "
                 "honest summary offline; a stronger model can be chosen in Settings.")


def default_choice(llm_name: str, has_graph: bool) -> str:
    """Extractive with an embedded model; with a capable one, the model's summaries (both, when there is a graph)."""
    if ss.embedded(llm_name):
        return EXTRACTIVE
    return "both" if has_graph else "no_kg"


def render_summary(work_id: int, chapter: int, mode: str, entry: dict[str, Any], read_only: bool) -> None:
    """One mode's shown summary: who made it and how, an honest note where it is a small model's, its text, what it
    was given or why its sentences were chosen, and (for the owner) an editor."""
    st.subheader(MODE_LABELS[mode], anchor=False)
    shown = entry["shown"]
    if shown is None:
        st.info("No summary yet.")
        return
    stats = shown.stats or {}
    if shown.user_edited:
        by = "edited by you"
    elif mode == EXTRACTIVE:
        how = "with the graph" if stats.get("used_graph") else "by salience alone (no graph yet)"
        by = (f"extractive: {len(stats.get('sentences', []))} of {stats.get('total_sentences', '?')} sentences "
              f"chosen {how}, in story order, {stats.get('words', '?')} words")
    else:
        by = f"written by {shown.model}"
    st.caption(f"{by} · {shown.created_at:%Y-%m-%d %H:%M} · {counted(entry['versions'], 'version')}"
               + (" · the chapter changed since" if entry["stale"] else ""))
    if entry["newer_generated"]:
        st.caption("A newer generated version exists; your edit stays the one shown.")
    if mode != EXTRACTIVE and not shown.user_edited and ss.embedded(shown.model):
        st.warning(EMBEDDED_NOTE.format(model=shown.model), icon=":material/warning:")
    st.markdown(plain(shown.text))
    if mode == EXTRACTIVE and not shown.user_edited and stats.get("reasons"):
        with st.expander("Why these sentences"):
            for index, reasons in zip(stats.get("sentences", []), stats["reasons"]):
                st.caption(f"Sentence {index + 1}: " + plain("; ".join(reasons) or "salience"))
    if mode == "kg":
        with st.expander(f"KG lines given ({len(shown.kg_lines)})"):
            st.code("\n".join(shown.kg_lines) or "(none)", language=None, wrap_lines=True)
    if read_only:  # shared read-only: its owner edits
        return
    with st.expander("Edit"):
        text = st.text_area("Your version", shown.text, height=200,
                            key=f"sum_text_{work_id}_{mode}_{chapter}_{shown.id}")
        if st.button("Save as my version", key=f"sum_save_{work_id}_{mode}"):
            try:
                ss.save_edit(get_store(), work_id, chapter, mode, text)
            except ss.SummaryError as exc:
                st.error(plain(str(exc)))
            else:
                st.rerun()


@st.cache_data(show_spinner="Scoring the summaries (KGScore)…", max_entries=64)
def _scores(key: tuple[Any, ...], _work_id: int, _chapter: int) -> summary_scores.ScoreTable:
    """Scores change only with `key` (summary_scores.score_key): the shown versions, the reference, the chapter."""
    return summary_scores.score_chapter(get_store(), _work_id, _chapter)


def _percent(value: Any) -> str:
    return f"{100 * value:.1f}" if isinstance(value, float) else "—"


def render_scores(work_id: int, chapter: int, read_only: bool) -> None:
    """KGScore (and ROUGE against a reference summary when the chapter has one) of each shown summary."""
    store = get_store()
    st.subheader("Scores", anchor=False)
    try:
        table = _scores(summary_scores.score_key(store, work_id, chapter), work_id, chapter)
    except ValueError as exc:
        st.error(plain(f"The summaries could not be scored: {exc}"))
        return
    if not table.rows:
        st.caption("No summary of this chapter to score yet.")
    else:
        against = "your reference summary" if table.against == "reference" else "the chapter itself"
        columns = [c for c in summary_scores.SCORE_COLUMNS if any(c in r for r in table.rows)]
        st.dataframe([{"Summary": r["label"], "By": r["author"],
                       **{summary_scores.COLUMN_LABELS[c]: _percent(r.get(c)) for c in columns},
                       "Facts": r["edges"]} for r in table.rows], hide_index=True,
                     key=f"sum_scores_{work_id}_{chapter}")
        st.caption(f"Against {against}, in percent, as the KGScore paper reports them: P_KG, R_KG and F_KG compare "
                   "the facts (knowledge-graph edges between the same named characters) of the summary with those "
                   "of the reference. Two facts count as alike by the meaning of what they say, rescaled so that "
                   "unrelated facts score 0, and each fact counts once.")
        for note in table.notes:
            st.caption(plain(note))
    if read_only:
        return
    with st.expander("Reference summary" + (" (saved)" if table.reference else "")):
        text = st.text_area("A summary to compare with (a human one, say)", table.reference.text
                            if table.reference else "", height=150, key=f"sum_reference_{work_id}_{chapter}")
        if st.button("Save reference", key=f"sum_reference_save_{work_id}_{chapter}"):
            try:
                summary_scores.save_reference(store, work_id, chapter, text)
            except summary_scores.BadReference as exc:
                st.error(plain(str(exc)))
            else:
                st.rerun()

"""Whole-book and creative questions with a capable model: GraphRAG's global search over the work's global view.

    answer, raw, notes = answer_globally(llm, store, work_id, upto, plan, params)

The reports mapped over (core.retrieval.global_search): the communities graph mode found for the question (their
members, chapters and relationships, told from the question's entities), the chapter summaries Fabula stores (the
version shown on the Summaries page, chapters up to the reader's; for a chapter the communities act in that has none,
its offline extractive summary, core.summarize.extractive), and the sentences graph mode chose for the prompt.
Called by the QA service only when the answering model is not an embedded one and graph mode judged the question
global or creative; None as the answer means "use the single prompt" (no report, or no usable point).
"""
from __future__ import annotations

import json

from core.llm import LLM
from core.qa import QAParams, QAPlan
from core.retrieval.global_search import REDUCE_TOKENS, Report, global_answer
from core.store import Store
from core.summarize.extractive import extractive_summary
from core.summarize.store import current

MAX_SUMMARIES = 40   # chapter summaries mapped over at most (one call each): the chapters the communities act in first
EXTRACT_WORDS = 150  # length of an extractive summary made for a chapter of theirs that has no stored summary


def global_reports(store: Store, work_id: int, upto: int, plan: QAPlan) -> list[Report]:
    """Community reports, stored chapter summaries (the communities' chapters first) and the chosen sentences."""
    trace = plan.graph
    if trace is None:
        return []
    reports = [Report(f"Group: {', '.join(c['focus']) or 'the question’s entities'}", c["report"])
               for c in trace.communities]
    by_chapter: dict[int, list] = {}
    for version in store.summary_history(work_id):
        if version.chapter_index <= upto:
            by_chapter.setdefault(version.chapter_index, []).append(version)
    acting = {ch for c in trace.communities for ch in c["chapters"] if ch <= upto}
    order = sorted(set(by_chapter) | acting, key=lambda ch: (ch not in acting, ch))[:MAX_SUMMARIES]
    for chapter in sorted(order):
        shown = current(by_chapter.get(chapter, []))
        if shown is not None and shown.text.strip():
            reports.append(Report(f"Chapter {chapter} summary", shown.text))
        else:  # no stored summary: the offline extractive one (core.summarize.extractive), by salience alone
            try:
                text = extractive_summary(store.get_chapter(work_id, chapter).text, None, EXTRACT_WORDS).text
            except (ValueError, LookupError):   # an empty or vanished chapter has nothing to add
                continue
            reports.append(Report(f"Chapter {chapter}, its most salient sentences", text))
    quoted = "\n".join(c.text for c in plan.citations if c.kind == "passage")
    if quoted.strip():
        reports.append(Report("Sentences of the book chosen for the question", quoted))
    return reports


def answer_globally(llm: LLM, store: Store, work_id: int, upto: int, plan: QAPlan,
                    params: QAParams) -> tuple[str | None, str | None, list[str]]:
    """(answer or None, the rated points as JSON, notes) from a map-reduce over global_reports."""
    reports = global_reports(store, work_id, upto, plan)
    if not reports:
        return None, None, []
    found = global_answer(llm, plan.question, reports, count=llm.count_tokens, budget=params.budget_tokens,
                          answer_tokens=max(params.answer_tokens, REDUCE_TOKENS))
    raw = json.dumps([{"point": p.description, "score": p.score, "report": reports[p.report].title}
                      for p in found.points], ensure_ascii=False)
    notes = [f"Answered by global search: {found.calls} calls over {len(reports)} reports "
             "(communities, chapter summaries, chosen sentences)."] + found.notes
    return found.answer, raw, notes

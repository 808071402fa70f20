"""Summarizing one chapter with a scripted LLM: the KG block comes first and fills the room the chapter leaves, the
prompt never exceeds the budget, long chapters are summarized in parts, and replies are tidied."""
from __future__ import annotations

import pytest

from core.llm import FakeLLM
from core.summarize import ChapterInput, ChapterKg, SummaryParams, clean_summary, plan_prompt, summarize_chapter
from core.summarize.prompts import KG_HEADER_LINES
from core.summarize.retrieval import KgEdge

EDGES = [KgEdge(i, "anna", "Anna", f"did thing number {i}", "Tom" if i % 2 else None, "tom" if i % 2 else None, 1,
                f"did thing number {i}") for i in range(1, 41)]
KG = ChapterKg(EDGES, {"anna": 5, "tom": 2}, {"anna": "Anna", "tom": "Tom"})
SHORT = ChapterInput(2, "The Harbour", "Anna met Tom at the harbour. They talked about the storm.",
                     ["Anna met Tom at the harbour.", "They talked about the storm."])


def words(text: str) -> int:
    return len(text.split())


def test_kg_lines_come_before_the_chapter_and_fill_the_budget() -> None:
    llm = FakeLLM(["Summary: Anna meets Tom."], context_window=400)
    params = SummaryParams(mode="kg", summary_tokens=100)
    out = summarize_chapter(llm, SHORT, KG, params)
    prompt = llm.calls[0].prompt
    assert out.text == "Anna meets Tom."                          # the label is dropped
    assert prompt.index(KG_HEADER_LINES) < prompt.index("[Begin chapter 2: The Harbour]")
    assert prompt.rstrip().endswith("Write the summary only.")
    assert 0 < out.edges_given < len(EDGES) and out.edges_available == len(EDGES)
    assert words(prompt) <= 300 == out.budget                    # 400 - 100 reserved for the summary
    assert llm.calls[0].options.max_tokens == 100
    assert out.kg_lines and all(line in prompt for line in out.kg_lines)
    # one more edge would not have fit
    bigger = summarize_chapter(FakeLLM(["x"], context_window=400), SHORT,
                               ChapterKg(EDGES[:out.edges_given + 1], KG.mentions, KG.names),
                               params.with_(max_edges=out.edges_given + 1))
    assert bigger.edges_given == out.edges_given


def test_no_kg_mode_and_context_budget() -> None:
    llm = FakeLLM(["A plain summary."], context_window=4000)
    out = summarize_chapter(llm, SHORT, KG, SummaryParams(mode="no_kg", context_tokens=1000, summary_tokens=200))
    assert KG_HEADER_LINES not in llm.calls[0].prompt and out.kg_lines == [] and out.edges_given == 0
    assert out.budget == 800 and out.parts == 1 and out.calls == 1


def test_long_chapter_is_summarized_in_parts_then_as_a_whole() -> None:
    passages = [f"Passage {i}: " + " ".join(f"word{i}_{j}" for j in range(60)) for i in range(10)]
    chapter = ChapterInput(3, "", "\n\n".join(passages), passages)
    llm = FakeLLM(lambda msgs, opts: "Part summary." if "Summarize this part" in msgs[-1].content
                  else "Whole summary.", context_window=300)
    params = SummaryParams(mode="kg", summary_tokens=60, part_tokens=40)
    done: list[tuple[int, int]] = []
    out = summarize_chapter(llm, chapter, KG, params, on_part=lambda d, t: done.append((d, t)))
    assert out.parts > 1 and out.calls == out.parts + 1 and out.text == "Whole summary."
    assert done[-1] == (out.parts, out.parts)
    for call in llm.calls:                                       # every prompt within its own budget
        assert words(call.prompt) + call.options.max_tokens <= 300
    final = llm.calls[-1].prompt
    assert "Summaries of the consecutive parts of chapter 3" in final and "Part 1: Part summary." in final
    assert out.edges_given > 0                                   # the part summaries leave room for the graph
    joined = " ".join(c.prompt for c in llm.calls[:-1])
    assert all(f"word{i}_59" in joined for i in range(10))       # no passage was dropped


def test_a_single_overlong_passage_is_cut_at_words() -> None:
    text = " ".join(f"w{i}" for i in range(900))
    llm = FakeLLM(lambda msgs, opts: "ok.", context_window=300)
    out = summarize_chapter(llm, ChapterInput(1, "", text, [text]), None, SummaryParams(mode="no_kg",
                                                                                        summary_tokens=60))
    assert out.parts >= 4 and all(words(c.prompt) + c.options.max_tokens <= 300 for c in llm.calls)
    assert "w899" in " ".join(c.prompt for c in llm.calls)


def test_preview_without_generation() -> None:
    llm = FakeLLM([], context_window=400)
    plan = plan_prompt(llm, SHORT, KG, SummaryParams(mode="kg", summary_tokens=100))
    assert not llm.calls and plan.kg_lines and plan.prompt_tokens <= plan.budget


def test_clean_summary() -> None:
    assert clean_summary("**Summary:** Anna leaves.") == "Anna leaves."
    assert clean_summary("Anna leaves. Tom stays. Then the", "length") == "Anna leaves. Tom stays."
    assert clean_summary("Anna leaves and", "length") == "Anna leaves and"


def test_params_are_validated() -> None:
    with pytest.raises(ValueError):
        SummaryParams(mode="fancy")
    with pytest.raises(ValueError):
        SummaryParams(context_tokens=100, summary_tokens=200)
    with pytest.raises(ValueError):
        SummaryParams(kg_format="xml")

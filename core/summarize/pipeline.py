"""Summarizing one chapter within the model's context: fill the room the chapter leaves with ranked edges, and
summarize hierarchically (parts, then the part summaries) when the chapter alone does not fit.

    outcome = summarize_chapter(llm, ChapterInput(3, "Chapter 3", text, passages), kg, SummaryParams(mode="kg"))
    outcome.text, outcome.kg_lines, outcome.parts, outcome.prompt

Every budget check counts the whole prompt with the model's own tokenizer (token counts are not additive), plus the
chat template's overhead; the room for the summary (`summary_tokens`) is reserved first.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.llm.base import LLM, local_access
from core.nlp import clean_for_parsing
from core.textfit import longest_prefix
from core.textguard import check_text
from core.summarize.linearize import fill, linearize
from core.summarize.params import SummaryParams
from core.summarize.prompts import chapter_prompt, part_prompt
from core.summarize.retrieval import KgEdge

MAX_LEVELS = 4
_LABEL = re.compile(r"^\s*[*#_ ]*(?:chapter\s+\d+\s+)?summary\s*(?::\s*[*_]*|[*_]+:)\s*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*(?=\s|$)")
PartFn = Callable[[int, int], None]  # (part done, parts) while a long chapter is summarized part by part


@dataclass(frozen=True)
class ChapterInput:
    number: int
    title: str
    text: str
    passages: Sequence[str] = ()  # paragraph-bounded pieces (the stored chunks): where a long chapter is split


@dataclass
class ChapterKg:
    """E_k ranked best first, with the chapter's mention counts and display names (see retrieval.ChapterGraph)."""

    ranked: list[KgEdge]
    mentions: dict[str, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)


@dataclass
class SummaryOutcome:
    text: str
    prompt: str
    kg_lines: list[str]
    edges_available: int
    edges_given: int
    parts: int               # 1: the chapter fit; n > 1: summarized from n part summaries
    calls: int
    prompt_tokens: int
    budget: int
    finish_reason: str = "stop"
    notes: list[str] = field(default_factory=list)


def messages_for(prompt: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}]


def template_overhead(llm: LLM) -> int:
    """Tokens a local model's chat template adds around one message (0 for providers that send it as it is)."""
    if not llm.abilities.prompt_text:
        return 0
    try:
        return int(llm.count_tokens(local_access(llm).format_prompt(messages_for("")))) + 1
    except Exception:  # noqa: BLE001 - a provider without a usable local template adds nothing we can count
        return 0


def context_size(llm: LLM, params: SummaryParams) -> int:
    window = llm.context_window or 4096
    return window if params.context_tokens is None else min(params.context_tokens, window)


def prompt_budget(llm: LLM, params: SummaryParams, reply_tokens: int | None = None) -> int:
    """Tokens the prompt may use: the context minus the reply's room and the chat template's own tokens."""
    room = params.summary_tokens if reply_tokens is None else reply_tokens
    return context_size(llm, params) - room - template_overhead(llm)


def clean_summary(text: str, finish_reason: str = "stop") -> str:
    """The reply without a "Summary:" label; a reply cut off by the token limit ends at its last full sentence."""
    text = _LABEL.sub("", (text or "").strip()).strip()
    if finish_reason == "length":
        ends = [m.end() for m in _SENTENCE_END.finditer(text)]
        if ends and ends[-1] >= len(text) // 2:
            text = text[:ends[-1]]
    return text.strip()


class _Summarizer:
    def __init__(self, llm: LLM, chapter: ChapterInput, params: SummaryParams, on_part: PartFn | None) -> None:
        self.llm, self.chapter, self.params = llm, chapter, params
        self.count: Callable[[str], int] = llm.count_tokens
        self.budget = prompt_budget(llm, params)
        self.part_budget = prompt_budget(llm, params, params.part_tokens)
        self.on_part = on_part or (lambda done, total: None)
        self.calls = 0
        self.notes: list[str] = []

    def fits(self, prompt: str) -> bool:
        return self.count(prompt) <= self.budget

    def final_prompt(self, body: str, parts: bool, edges: Sequence[KgEdge] = (), kg: ChapterKg | None = None) -> \
            tuple[str, list[str]]:
        kg_text, lines = linearize(edges, kg.mentions, kg.names, self.params.kg_format) if kg and edges else ("", [])
        c = self.chapter
        return chapter_prompt(c.number, c.title, body, kg_text, self.params.kg_format, parts), lines

    def complete(self, prompt: str, max_tokens: int) -> Any:
        self.calls += 1
        return self.llm.complete(messages_for(prompt), max_tokens=max_tokens, temperature=0.0)

    # -- hierarchical reduction --------------------------------------------------------------------------------
    def _part_fits(self, text: str, part: int = 1, parts: int = 1) -> bool:
        c = self.chapter
        return self.count(part_prompt(c.number, c.title, part, parts, text)) <= self.part_budget

    def _split(self, pieces: Sequence[str]) -> list[str]:
        """Consecutive pieces packed into groups whose part prompt fits; a piece too long alone is cut at words."""
        groups: list[str] = []
        current = ""
        for piece in pieces:
            while piece and not self._part_fits(piece, 99, 99):
                head = longest_prefix(piece, lambda t: self._part_fits(t, 99, 99)) or piece[:200]
                if current:
                    groups.append(current)
                    current = ""
                groups.append(head.strip())
                piece = piece[len(head):].strip()
            if not piece:
                continue
            joined = f"{current}\n\n{piece}" if current else piece
            if current and not self._part_fits(joined, 99, 99):
                groups.append(current)
                joined = piece
            current = joined
        if current:
            groups.append(current)
        return groups

    def body(self) -> tuple[str, bool, int]:
        """(what the final prompt summarizes, whether it is part summaries, how many parts the chapter had)."""
        text = clean_for_parsing(self.chapter.text)
        if self.fits(self.final_prompt(text, False)[0]):
            return text, False, 1
        pieces = [clean_for_parsing(p) for p in self.chapter.passages if p.strip()] or text.split("\n\n")
        first_parts = 0
        for _level in range(MAX_LEVELS):
            groups = self._split(pieces)
            first_parts = first_parts or len(groups)
            c = self.chapter
            summaries = []
            for i, group in enumerate(groups, start=1):
                reply = self.complete(part_prompt(c.number, c.title, i, len(groups), group), self.params.part_tokens)
                summaries.append(self.unlooped(clean_summary(reply.text, reply.finish_reason)))
                self.on_part(i, len(groups))
            body = "\n\n".join(f"Part {i}: {s}" for i, s in enumerate(summaries, start=1))
            if self.fits(self.final_prompt(body, True)[0]):
                return body, True, first_parts
            pieces = summaries
        self.notes.append("The part summaries still did not fit the context; they were cut.")
        return longest_prefix(body, lambda b: self.fits(self.final_prompt(b, True)[0])), True, first_parts


    def unlooped(self, text: str) -> str:
        """The text with a loop the model wrote cut (core.textguard), saying so in the notes: a looped summary is
        never presented as a summary."""
        checked = check_text(text)
        if checked.cut:
            self.notes.append(checked.note)
        return checked.text

def summarize_chapter(llm: LLM, chapter: ChapterInput, kg: ChapterKg | None, params: SummaryParams,
                      on_part: PartFn | None = None) -> SummaryOutcome:
    """Summarize one chapter; in "kg" mode, the best-ranked edges that still fit go before the chapter."""
    s = _Summarizer(llm, chapter, params, on_part)
    if s.budget < 50:
        raise ValueError(f"The context budget leaves {s.budget} tokens for the prompt; raise it or lower the "
                         f"summary length.")
    body, summarized, parts = s.body()
    use_kg = params.mode == "kg" and kg is not None
    edges: list[KgEdge] = []
    if use_kg and kg is not None:
        edges = fill(kg.ranked, lambda es: s.fits(s.final_prompt(body, summarized, es, kg)[0]), params.max_edges)
        if not kg.ranked:
            s.notes.append("No knowledge-graph edges connect the entities of this chapter (as of this chapter).")
        elif not edges:
            s.notes.append("The chapter leaves no room in the context for knowledge-graph edges.")
    prompt, lines = s.final_prompt(body, summarized, edges, kg if use_kg else None)
    reply = s.complete(prompt, params.summary_tokens)
    ranked = len(kg.ranked) if use_kg and kg is not None else 0
    summary = s.unlooped(clean_summary(reply.text, reply.finish_reason))
    return SummaryOutcome(summary, prompt, lines, ranked, len(edges), parts, s.calls, s.count(prompt), s.budget,
                          reply.finish_reason, s.notes)


def plan_prompt(llm: LLM, chapter: ChapterInput, kg: ChapterKg | None, params: SummaryParams) -> SummaryOutcome:
    """What summarize_chapter would send for a chapter that fits (no LLM call): the preview of the KG lines.
    A chapter that needs hierarchical summarization is previewed with its text cut to the budget."""
    s = _Summarizer(llm, chapter, params, None)
    text = clean_for_parsing(chapter.text)
    fits = s.fits(s.final_prompt(text, False)[0])
    if not fits:
        text = longest_prefix(text, lambda t: s.fits(s.final_prompt(t, False)[0]))
    edges = fill(kg.ranked, lambda es: s.fits(s.final_prompt(text, False, es, kg)[0]), params.max_edges) \
        if params.mode == "kg" and kg else []
    prompt, lines = s.final_prompt(text, False, edges, kg if params.mode == "kg" else None)
    notes = [] if fits else ["The chapter is longer than the context: it will be summarized in parts, and the "
                             "final prompt holds the part summaries (so more edges fit)."]
    return SummaryOutcome("", prompt, lines, len(kg.ranked) if kg else 0, len(edges), 1 if fits else 0, 0,
                          s.count(prompt), s.budget, "stop", notes)

"""GraphRAG's global search (Edge et al. 2024) with a capable model: map the question over the global view's reports
(community reports, chapter summaries), then reduce the rated key points into one answer.

    reports = [Report("Community: Elizabeth, Darcy ...", text), Report("Chapter 3 summary", summary), ...]
    result = global_answer(llm, question, reports, count=llm.count_tokens, budget=1000)
    result.answer, result.points (rated key points, best first), result.notes, result.calls

Map: one prompt per report asks for the key points that answer the question from that report alone, each rated
0-100 for how much it helps (MAP_PROMPT, the shape of GraphRAG's map prompt: JSON {"points": [{"description",
"score"}]}); a point rated 0 or a reply that is not such JSON contributes nothing (and a note says how many
replies were unusable). Reduce: the points, best first, as many as fit the budget, go into one prompt that writes
the answer (REDUCE_PROMPT). Every prompt is cut to the budget with the caller's token counter. The embedded models
cannot follow these prompts, so the QA service calls this only for a capable model (and only for whole-book or
creative questions); with no usable point the answer is None and the caller falls back to the single prompt.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.llm.base import LLM
from core.llm.errors import LLMError

MAP_PROMPT = """You are helping a reader with a question about a book. Below is one report about part of the book:
a group of its characters, places and things with their relationships, or a chapter summary.

Report:
{report}

Question: {question}

List the key points of this report that help answer the question. Rate each from 0 (no help) to 100 (answers it).
Use only what the report says; if it does not help, return an empty list.
Reply with JSON only: {{"points": [{{"description": "...", "score": 0}}]}}"""

REDUCE_PROMPT = """You are helping a reader with a question about a whole book. Analysts each read one part of the
book and wrote key points, rated by how much each helps (higher first):

{points}

Question: {question}

Answer the question from these points, as the question asks (a summary, a description, or the piece of writing it
asks for). Do not add facts that are not in the points."""

MAP_TOKENS = 300          # the longest map reply
REDUCE_TOKENS = 400       # the longest answer
_JSON = re.compile(r"\{.*\}", re.S)


@dataclass(frozen=True)
class Report:
    title: str
    text: str


@dataclass(frozen=True)
class Point:
    description: str
    score: int
    report: int               # index into the reports


@dataclass
class GlobalAnswer:
    answer: str | None
    points: list[Point] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    calls: int = 0


def global_answer(llm: LLM, question: str, reports: Sequence[Report], *, count: Callable[[str], int],
                  budget: int, answer_tokens: int = REDUCE_TOKENS) -> GlobalAnswer:
    """Map over `reports`, reduce the points (see the module docstring). `budget` bounds every prompt's tokens."""
    result = GlobalAnswer(None)
    bad = 0
    for i, report in enumerate(reports):
        prompt = _fit(lambda text: MAP_PROMPT.format(report=text, question=question), report.text, count, budget)
        if prompt is None:
            continue
        try:
            reply = llm.complete([{"role": "user", "content": prompt}], max_tokens=MAP_TOKENS)
        except LLMError as exc:
            result.notes.append(f"A map call failed ({exc}); its report was left out.")
            continue
        finally:
            result.calls += 1
        points = parse_points(reply.text, i)
        if points is None:
            bad += 1
            continue
        result.points.extend(points)
    if bad:
        result.notes.append(f"{bad} of {len(reports)} map replies were not the JSON asked for and were left out.")
    result.points.sort(key=lambda p: (-p.score, p.report))
    if not result.points:
        result.notes.append("No report held anything that answers the question.")
        return result
    kept: list[str] = []
    for p in result.points:
        candidate = kept + [f"- ({p.score}) {p.description}"]
        if count(REDUCE_PROMPT.format(points="\n".join(candidate), question=question)) > budget:
            break
        kept = candidate
    if not kept:
        result.notes.append("The question leaves no room for the analysts' points in the budget.")
        return result
    try:
        reply = llm.complete([{"role": "user", "content": REDUCE_PROMPT.format(points="\n".join(kept),
                                                                            question=question)}],
                             max_tokens=answer_tokens)
    except LLMError as exc:
        result.notes.append(f"The reduce call failed ({exc}).")
        return result
    finally:
        result.calls += 1
    result.answer = reply.text.strip() or None
    return result


def parse_points(reply: str, report: int) -> list[Point] | None:
    """The rated points of a map reply (score 0 dropped, scores clamped to 0-100); None when it is not the JSON
    asked for."""
    found = _JSON.search(reply or "")
    if not found:
        return None
    try:
        data = json.loads(found.group(0))
    except json.JSONDecodeError:
        return None
    items = data.get("points") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        text = str(item.get("description", "")).strip()
        try:
            score = max(0, min(100, int(float(item.get("score", 0)))))
        except (TypeError, ValueError):
            continue
        if text and score > 0:
            out.append(Point(text, score, report))
    return out


def _fit(render: Callable[[str], str], text: str, count: Callable[[str], int], budget: int) -> str | None:
    """`render(text)` with `text` cut by words until the prompt fits `budget` tokens (None if not even one word)."""
    words = text.split()
    lo, hi = 0, len(words)
    if count(render(text)) <= budget:
        return render(text)
    while lo < hi:  # the most words that fit
        mid = (lo + hi + 1) // 2
        if count(render(" ".join(words[:mid]))) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return render(" ".join(words[:lo])) if lo else None

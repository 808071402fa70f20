"""The QA prompts: the answer prompt (Andrus Algorithm 1, line 15: text, then verbalized facts, then framing text and
the question) and the few-shot fact verbalization prompt of Andrus et al., Figure 2."""
from __future__ import annotations

from collections.abc import Sequence

QA_FRAMING = "Answer the question about the story above in a few words."
QA_QUESTION = "Question: {question}\nAnswer:"
QA_SEPARATOR = "\n\n"

# Figure 2, verbatim apart from spacing: a completion prompt, one fact per line, "head, relation, tail : sentence".
VERBALIZE_FEW_SHOT = """She , no went to , the market . : She didn't go to the market.
Rowling , is author of, Harry Potter . : Rowling is the author of Harry Potter.
SLC airport, located , Salt Lake City : SLC airport is located in Salt Lake City.
knight, fought with, dragon : The knight fought with the dragon.
{head}, {relation}, {tail} :"""
VERBALIZE_MAX_TOKENS = 40


def render_prompt(context: str, facts: Sequence[str], question: str) -> str:
    """context, the facts as one paragraph, the framing text and the question; empty parts are left out."""
    parts = [context.strip()] if context.strip() else []
    if facts:
        parts.append(" ".join(f.strip() for f in facts if f.strip()))
    parts.append(f"{QA_FRAMING}\n{QA_QUESTION.format(question=question.strip())}")
    return QA_SEPARATOR.join(p for p in parts if p)


LEAD_HEADER = "The sentences of the story that best answer the question:"


def lead_with(sentences: Sequence[str], prompt: str) -> str:
    """`prompt` with the chosen sentences first (a capable model's prompt: the extractive reader's choice leads)."""
    chosen = [s.strip() for s in sentences if s.strip()]
    if not chosen:
        return prompt
    return LEAD_HEADER + "\n" + "\n".join(f"- {s}" for s in chosen) + QA_SEPARATOR + prompt

"""Per-call summary parameters (ARCHITECTURE principle 6) and the edge-ranking keywords of the KGScore paper."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

EXTRACTIVE = "extractive"                     # the chapter's own sentences, chosen without a language model
MODEL_MODES: tuple[str, ...] = ("kg", "no_kg")  # written by the summarizing model (abstractive)
MODES: tuple[str, ...] = (EXTRACTIVE, *MODEL_MODES)
MODE_LABELS: dict[str, str] = {EXTRACTIVE: "In the book's own words", "kg": "With knowledge graph",
                               "no_kg": "Chapter text only"}
KG_FORMATS: tuple[str, ...] = ("lines", "tokens")

# Table 3 (Appendix A): keywords and weights for ranking knowledge-graph edges by their predicates.
KEYWORDS: tuple[tuple[str, float], ...] = (
    ("relation", 30.0), ("happen", 15.0), ("conflict", 10.0), ("desire", 10.0), ("emotion", 10.0),
    ("role", 10.0), ("think", 5.0), ("location", 5.0), ("personality", 5.0),
)


@dataclass(frozen=True)
class SummaryParams:
    """How one chapter summary is made.

    mode: "kg" (knowledge-graph edges of chapters <= k before the chapter text), "no_kg" (the baseline), or
    "extractive" (no model: the chapter's salient sentences within summary_tokens, see core.summarize.extractive).
    context_tokens: the prompt plus the summary, counted with the summarizing model's tokenizer; None = the model's
    whole context window (the paper fills the context). summary_tokens: the most the summary may take (reserved).
    kg_format: "lines" (`subject; predicate; object`, for models used as they are) or "tokens" (the paper's
    <subject>/<object>/<predicate> format for fine-tuned models). max_edges caps the edges given (None: the budget
    decides). part_tokens: the most a part summary may take when a chapter is summarized hierarchically.
    """

    mode: str = "kg"
    context_tokens: int | None = None
    summary_tokens: int = 200
    kg_format: str = "lines"
    keywords: tuple[tuple[str, float], ...] = KEYWORDS
    max_edges: int | None = None
    part_tokens: int = 120

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown summary mode {self.mode!r}; choose one of {', '.join(MODES)}")
        if self.kg_format not in KG_FORMATS:
            raise ValueError(f"kg_format must be one of {', '.join(KG_FORMATS)}")
        if self.summary_tokens < 16 or self.part_tokens < 16:
            raise ValueError("summary_tokens and part_tokens must be at least 16")
        if self.context_tokens is not None and self.context_tokens < self.summary_tokens + 200:
            raise ValueError(f"the context budget ({self.context_tokens} tokens) leaves no room for a chapter: "
                             f"give at least {self.summary_tokens + 200}")
        if self.max_edges is not None and self.max_edges < 0:
            raise ValueError("max_edges must not be negative")
        if not self.keywords or any(not k.strip() for k, _ in self.keywords):
            raise ValueError("at least one non-empty keyword is needed to rank edges")

    def with_(self, **changes: Any) -> SummaryParams:
        return replace(self, **changes)

    def signature(self) -> dict[str, Any]:
        """What decides the result, for job resumption and for the stored record."""
        return {"context_tokens": self.context_tokens, "summary_tokens": self.summary_tokens,
                "kg_format": self.kg_format, "max_edges": self.max_edges, "part_tokens": self.part_tokens,
                "keywords": [list(k) for k in self.keywords]}

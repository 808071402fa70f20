"""Per-call QA parameters (ARCHITECTURE principle 6): one small frozen dataclass, validated on creation."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

MODES: tuple[str, ...] = ("traditional", "kg", "rag", "narco", "graph")
# What Ask and `cli.py ask` use unless told otherwise: graph mode puts the most of the gold evidence in the prompt
# (GraphRAG-Bench Novel dev, all 1,041 questions: 68.5% against 68.2% hybrid rag and 32.3% for kg's three facts plus
# the ending; answers present 96.3% against 31.0% on LF-SQuAD; bench/README.md). kg, the Andrus paper's mode, filled
# its prompt with the book's last chapters, so it cited chapters far from the question.
DEFAULT_MODE = "graph"
MODE_HELP: dict[str, str] = {
    "traditional": "the end of the text up to your position, as much as fits (the Andrus baseline)",
    "kg": "the 3 knowledge-graph facts nearest the question (by edit distance, the paper's method, or by meaning), "
          "then as much ending text as fits",
    "rag": "the passages that best match the question: BM25 words fused with MiniLM meaning (or either alone)",
    "narco": "passages ranked by similarity plus their best retrospective question (NARCO, λ·max q·e)",
    "graph": "passages ranked by personalized PageRank over the book's graph of characters, places and passages, "
             "started from the entities the question names or means (HippoRAG 2 style)",
}
FACT_RANKINGS: tuple[str, ...] = ("levenshtein", "meaning")
PASSAGE_SEARCHES: tuple[str, ...] = ("hybrid", "dense", "bm25")
VERBALIZERS: tuple[str, ...] = ("llm", "template")
EDGE_SIDES: tuple[str, ...] = ("outgoing", "incoming", "both")
# extractive: the book's sentence that answers (no generative model); generate: the answering model writes it;
# auto: extractive when the answering model is embedded (a 270M model loses the right sentence), else generate
ANSWER_PATHS: tuple[str, ...] = ("auto", "extractive", "generate")


@dataclass(frozen=True)
class QAParams:
    """How one question is answered.

    mode: traditional | kg | rag | narco | graph (DEFAULT_MODE). upto: the reader's chapter (nothing after it is
    read; None = the whole work). budget_tokens: the whole prompt, counted with the answering model's tokenizer,
    chat template included.
    top_facts: facts verbalized in kg mode (3 in the paper). max_passages: candidates considered by rag/narco.
    narco_lambda: λ of the NARCO score. edge_side: which questions count as a passage's edges in the NARCO score:
    "outgoing" (asked from the passage, the paper's eq. 2), "incoming" (answered by it) or both.
    verbalize: "llm" (the Figure 2 few-shot prompt) or "template"; dry runs always use the template.
    fact_ranking: kg mode's fact selection, "levenshtein" (Andrus eq. 1) or "meaning" (MiniLM cosine).
    passage_search: how rag ranks passages and graph seeds them: "hybrid" (BM25 and MiniLM, reciprocal rank
    fusion), "dense" (MiniLM only) or "bm25" (words only).
    answer: the answer path, "auto" | "extractive" | "generate" (ANSWER_PATHS).
    """

    mode: str = DEFAULT_MODE
    upto: int | None = None
    budget_tokens: int = 1000
    top_facts: int = 3
    max_passages: int = 12
    narco_lambda: float = 0.1
    edge_side: str = "outgoing"
    verbalize: str = "llm"
    answer_tokens: int = 32
    fact_ranking: str = "levenshtein"
    passage_search: str = "hybrid"
    answer: str = "auto"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; choose one of {', '.join(MODES)}")
        if self.upto is not None and self.upto < 1:
            raise ValueError("upto must be a chapter number (1 or more)")
        if self.budget_tokens < 1:
            raise ValueError("the prompt budget must be at least 1 token")
        if self.top_facts < 0 or self.max_passages < 1 or self.answer_tokens < 1:
            raise ValueError("top_facts must be >= 0, max_passages and answer_tokens >= 1")
        if not 0 <= self.narco_lambda <= 10:
            raise ValueError("narco_lambda must be between 0 and 10")
        if self.edge_side not in EDGE_SIDES:
            raise ValueError(f"edge_side must be one of {', '.join(EDGE_SIDES)}")
        if self.fact_ranking not in FACT_RANKINGS:
            raise ValueError(f"fact_ranking must be one of {', '.join(FACT_RANKINGS)}")
        if self.passage_search not in PASSAGE_SEARCHES:
            raise ValueError(f"passage_search must be one of {', '.join(PASSAGE_SEARCHES)}")
        if self.answer not in ANSWER_PATHS:
            raise ValueError(f"answer must be one of {', '.join(ANSWER_PATHS)}")
        if self.verbalize not in VERBALIZERS:
            raise ValueError(f"verbalize must be one of {', '.join(VERBALIZERS)}")

    def with_(self, **changes: Any) -> QAParams:
        return replace(self, **changes)

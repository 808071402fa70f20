"""KGScore (section 3.5 of "Generating and evaluating long story summaries with knowledge graphs"), with ROUGE and an
embedding similarity beside it.

    scorer = SummaryScorer(extractor=OfflineEdgeExtractor())     # or LLMEdgeExtractor(llm): the Appendix F prompt
    scorer.score(generated, reference) -> {"precision", "recall", "f1", "rouge1", "rouge2", "rougeL",
                                           "embedding_similarity", "entities", "generated_edges", ...}
    kg_score(generated_edges, reference_edges, embed)           # eqs. (5)-(9) on edges already extracted

Entities come from the reference only (spaCy NER), and the edges of both summaries are extracted for those same
entities. For each generated edge, the reference edges with the same subject and object are its candidates (eq. 5);
it scores the best cosine similarity between its predicate's embedding and theirs, 0 without candidates (eqs. 6-7).
Precision averages over the generated edges, recall the other way round over the reference edges (eq. 8), F1 is their
harmonic mean (eq. 9). Scores are fractions (0-1); the paper prints them as percentages.

Two changes make the score mean something with MiniLM and the offline extractor (ScoringRule; PAPER is eqs. 5-9 as
printed, CALIBRATED the default of SummaryScorer):
- chance: MiniLM gives two unrelated predicates a cosine of about 0.14 (CHANCE_COSINE: the mean over random pairs of
  predicates from different NarrativeQA dev summaries, a set KGScore was not evaluated on), so an edge whose ends
  match earned ~0.15-0.3 for any predicate at all. The similarity is rescaled so chance is 0 and identity 1
  (max(0, (cos - c) / (1 - c)), BERTScore's baseline rescaling);
- one-to-one: eq. 7 lets one reference edge support every generated edge with the same ends (a main character with
  twenty descriptions matched each generated description to its best one). Each edge is matched at most once, by a
  maximum-weight assignment within each (subject, object) group, so precision and recall count facts, not repeats.
On SQuALITY dev (bench/summaries.py) the entity-shuffle drop with both is in bench/README.md beside the paper rule's.

Paper: ../shared/seeds/long_story_summaries_kgscore.txt (section 3.5; the entity shuffle test in section 4.3).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from core.metrics.score_edges import ScoreEdge

EmbedFn = Callable[[Sequence[str]], np.ndarray]
@dataclass
class KGScore:
    precision: float
    recall: float
    f1: float
    generated_edges: int
    reference_edges: int
    matched_generated: int   # |E'_g|: generated edges with at least one same-subject-and-object reference edge
    matched_reference: int   # |E'_r|

    def as_dict(self) -> dict[str, Any]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def _unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms > 0, norms, 1.0)


CHANCE_COSINE = 0.14   # MiniLM cosine of unrelated predicates (NarrativeQA dev summaries; see the module docstring)


@dataclass(frozen=True)
class ScoringRule:
    """How predicate similarities become KGScore: `chance` is rescaled to 0; `one_to_one` matches each edge once."""

    chance: float = 0.0
    one_to_one: bool = False

    def similarity(self, cos: np.ndarray) -> np.ndarray:
        if self.chance <= 0:
            return cos
        return np.maximum(0.0, (cos - self.chance) / (1.0 - self.chance))


PAPER = ScoringRule()
CALIBRATED = ScoringRule(chance=CHANCE_COSINE, one_to_one=True)


def _by_ends(edges: Sequence[ScoreEdge]) -> dict[tuple[str, str], list[int]]:
    groups: dict[tuple[str, str], list[int]] = {}
    for i, e in enumerate(edges):
        groups.setdefault((e.subject, e.object), []).append(i)
    return groups


def _directional(a: Sequence[ScoreEdge], b: Sequence[ScoreEdge], sim: Callable[[list[int], list[int]], np.ndarray]) \
        -> tuple[float, int]:
    """(1/|a|) * sum over a' of the max similarity over the same-(subject, object) edges of b, and |a'| (eqs.
    5-7). `sim(rows of a, rows of b)` is the similarity matrix of their predicates."""
    if not a:
        return 0.0, 0
    ends = _by_ends(b)
    total, matched = 0.0, 0
    for (s, o), rows in _by_ends(a).items():
        candidates = ends.get((s, o))      # E_{b,e} (eq. 5); e is in a' when it is not empty
        if candidates:
            matched += len(rows)
            total += float(sim(rows, candidates).max(axis=1).sum())
    return total / len(a), matched


def _assigned(generated: Sequence[ScoreEdge], reference: Sequence[ScoreEdge],
              sim: Callable[[list[int], list[int]], np.ndarray]) -> tuple[float, int]:
    """The largest total similarity of a one-to-one matching between same-(subject, object) edges, and how many
    edges were matched (each side matches the same number)."""
    from scipy.optimize import linear_sum_assignment
    ends = _by_ends(reference)
    total, matched = 0.0, 0
    for (s, o), rows in _by_ends(generated).items():
        candidates = ends.get((s, o))
        if candidates:
            m = sim(rows, candidates)
            r, c = linear_sum_assignment(-m)
            total += float(m[r, c].sum())
            matched += len(r)
    return total, matched


def kg_score(generated: Sequence[ScoreEdge], reference: Sequence[ScoreEdge], embed: EmbedFn,
             rule: ScoringRule = PAPER) -> KGScore:
    """Eqs. (5)-(9) (with `rule`: CALIBRATED for the rescaled, one-to-one variant), with every distinct predicate
    embedded once."""
    predicates = list(dict.fromkeys([e.predicate for e in generated] + [e.predicate for e in reference]))
    matrix = np.zeros((0, 0))
    if generated and reference:
        vectors = _unit(np.asarray(embed(predicates)))
        matrix = rule.similarity(vectors @ vectors.T)
    row = {p: i for i, p in enumerate(predicates)}
    g_rows = [row[e.predicate] for e in generated]
    r_rows = [row[e.predicate] for e in reference]

    def g_to_r(gs: list[int], rs: list[int]) -> np.ndarray:
        return matrix[np.ix_([g_rows[i] for i in gs], [r_rows[j] for j in rs])]

    def r_to_g(rs: list[int], gs: list[int]) -> np.ndarray:
        return g_to_r(gs, rs).T

    if rule.one_to_one:
        total, matched = _assigned(generated, reference, g_to_r)
        precision = total / len(generated) if generated else 0.0
        recall = total / len(reference) if reference else 0.0
        matched_g = matched_r = matched
    else:
        precision, matched_g = _directional(generated, reference, g_to_r)
        recall, matched_r = _directional(reference, generated, r_to_g)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return KGScore(precision, recall, f1, len(generated), len(reference), matched_g, matched_r)


class EdgeExtractor(Protocol):
    name: str

    def extract(self, text: str, entities: Sequence[str]) -> list[ScoreEdge]: ...


class SummaryScorer:
    """KGScore, ROUGE-1/2/L and embedding similarity of generated summaries against references, with models loaded
    once. Reference entities and edges are cached by reference text, so scoring several generated summaries against
    one reference extracts the reference once."""

    def __init__(self, extractor: EdgeExtractor, *, nlp: Any = None, embed: EmbedFn | None = None,
                 rouge: bool = True, similarity: bool = True, rule: ScoringRule = CALIBRATED) -> None:
        self.extractor, self.nlp, self.rouge, self.similarity, self.rule = extractor, nlp, rouge, similarity, rule
        self._embed = embed
        self._references: dict[str, tuple[list[str], list[ScoreEdge]]] = {}

    @property
    def embed(self) -> EmbedFn:
        if self._embed is None:
            from core.nlp import embed
            self._embed = embed
        return self._embed

    def reference_graph(self, reference: str) -> tuple[list[str], list[ScoreEdge]]:
        """The reference's entities (spaCy NER) and its edges among them (cached)."""
        hit = self._references.get(reference)
        if hit is None:
            from core.metrics.kgscore_offline import reference_entities
            entities = reference_entities(reference, self.nlp)
            hit = (entities, self.extractor.extract(reference, entities))
            if len(self._references) > 256:
                self._references.clear()
            self._references[reference] = hit
        return hit

    def score(self, generated: str, reference: str) -> dict[str, Any]:
        if not generated.strip() or not reference.strip():
            raise ValueError("Both the generated and the reference summary must contain text.")
        entities, reference_edges = self.reference_graph(reference)
        generated_edges = self.extractor.extract(generated, entities)
        kg = kg_score(generated_edges, reference_edges, self.embed, self.rule)
        result: dict[str, Any] = {"precision": round(kg.precision, 6), "recall": round(kg.recall, 6),
                                  "f1": round(kg.f1, 6)}
        if self.rule != PAPER:  # eqs. 5-9 as printed, on the same edges: for comparison with the paper's figures
            paper = kg_score(generated_edges, reference_edges, self.embed, PAPER)
            result.update({"paper_precision": round(paper.precision, 6), "paper_recall": round(paper.recall, 6),
                           "paper_f1": round(paper.f1, 6)})
        if self.rouge:
            from core.metrics.rouge_wrap import rouge_scores
            result.update(rouge_scores(generated, reference))
        if self.similarity:
            from core.metrics.rouge_wrap import embedding_similarity
            result["embedding_similarity"] = round(embedding_similarity(generated, reference, self.embed), 6)
        result.update({"extractor": self.extractor.name, "entities": len(entities),
                       "generated_edges": kg.generated_edges, "reference_edges": kg.reference_edges,
                       "matched_generated": kg.matched_generated, "matched_reference": kg.matched_reference})
        return result

    def edges(self, text: str, reference: str) -> dict[str, list[ScoreEdge]]:
        """The two graphs compared for (text, reference): for inspection."""
        entities, reference_edges = self.reference_graph(reference)
        return {"generated": self.extractor.extract(text, entities), "reference": reference_edges}

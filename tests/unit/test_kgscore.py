"""KGScore eqs. (5)-(9) on hand-built graphs with a fake embedder of known vectors, the Appendix F prompt and its
parser, and the scorer's output keys."""
from __future__ import annotations

import zlib
from collections import Counter

import numpy as np
import pytest

from core.llm import FakeLLM
from core.metrics.kgscore import CALIBRATED, PAPER, ScoreEdge, ScoringRule, SummaryScorer, kg_score
from core.metrics.score_edges import entity_key
from core.metrics.kgscore_llm import RULES, LLMEdgeExtractor, messages, parse_edges

VECTORS = {"loves": [1, 0, 0], "adores": [0.6, 0.8, 0], "hates": [0, 1, 0], "is brave": [0, 0, 1],
           "is bold": [0, 0.6, 0.8]}


def known(texts):  # noqa: ANN001, ANN201
    return np.array([VECTORS[t] for t in texts], dtype=float) * 3  # not unit length: kg_score normalises


def hashed(texts):  # noqa: ANN001, ANN201 - any text: a bag-of-words vector
    out = np.zeros((len(texts), 64))
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, zlib.crc32(w.encode()) % 64] += 1
    return out + 1e-3


G = [ScoreEdge("a", "b", "loves"), ScoreEdge("a", "a", "is brave"), ScoreEdge("c", "b", "hates")]
R = [ScoreEdge("a", "b", "adores"), ScoreEdge("a", "b", "hates"), ScoreEdge("a", "a", "is bold"),
     ScoreEdge("b", "a", "loves")]


def test_known_precision_recall_f1() -> None:
    s = kg_score(G, R, known)
    # P: g1 -> max(cos(loves, adores)=0.6, cos(loves, hates)=0); g2 -> cos(is brave, is bold)=0.8; g3 has no
    # reference edge from c to b. P = (0.6 + 0.8) / 3
    assert s.precision == pytest.approx(1.4 / 3)
    # R: r1 -> 0.6, r2 -> cos(hates, loves)=0, r3 -> 0.8, r4 (b -> a: direction matters) -> nothing
    assert s.recall == pytest.approx(1.4 / 4)
    assert s.f1 == pytest.approx(0.4)
    assert (s.generated_edges, s.reference_edges, s.matched_generated, s.matched_reference) == (3, 4, 2, 3)


def test_identical_graphs_score_one_and_empty_graphs_zero() -> None:
    same = kg_score(R, R, known)
    assert (same.precision, same.recall, same.f1) == pytest.approx((1.0, 1.0, 1.0))
    assert kg_score([], R, known).f1 == 0.0 and kg_score(G, [], known).precision == 0.0


def test_swapping_entities_lowers_the_score() -> None:
    swapped = [ScoreEdge({"a": "c", "c": "a"}.get(e.subject, e.subject), {"a": "c", "c": "a"}.get(e.object, e.object),
                         e.predicate) for e in R]
    assert kg_score(swapped, R, known).f1 < kg_score(R, R, known).f1 / 2


def test_chance_rescaling() -> None:
    rule = ScoringRule(chance=0.5)
    s = kg_score(G, R, known, rule)
    # cos 0.6 -> (0.6 - 0.5) / 0.5 = 0.2; cos 0.8 -> 0.6; cos 0 (hates vs loves) stays 0, never negative
    assert s.precision == pytest.approx((0.2 + 0.6) / 3) and s.recall == pytest.approx((0.2 + 0.6) / 4)
    assert kg_score(R, R, known, rule).f1 == pytest.approx(1.0)


def test_one_to_one_matching_counts_a_reference_edge_once() -> None:
    generated = [ScoreEdge("a", "b", "loves"), ScoreEdge("a", "b", "adores")]
    reference = [ScoreEdge("a", "b", "loves")]
    paper = kg_score(generated, reference, known, PAPER)
    assert paper.precision == pytest.approx((1.0 + 0.6) / 2) and paper.recall == pytest.approx(1.0)
    matched = kg_score(generated, reference, known, ScoringRule(one_to_one=True))
    assert matched.precision == pytest.approx(0.5) and matched.recall == pytest.approx(1.0)  # "adores" unmatched
    assert (matched.matched_generated, matched.matched_reference) == (1, 1)
    assert kg_score(R, R, known, CALIBRATED).f1 == pytest.approx(1.0)
    assert kg_score(G, R, known, CALIBRATED).f1 < kg_score(G, R, known, PAPER).f1


def test_entity_key() -> None:
    assert entity_key("The Aphrodite’s") == entity_key("aphrodite") == "aphrodite"
    assert entity_key("  Mr.   Darcy ") == "mr. darcy"


REPLY = """- Narrator, Janek; Canyon B; continues journey toward
- Janek; [None]; falls and injures leg
2. AC-293; Janek; argues with
- Janek; skeptical
this line is not an edge
- Martian Colony; [None]; far away
- Janek; [None]; falls and injures leg

Summary:
- Janek; Narrator; should never be read"""


def test_parse_appendix_f_edges() -> None:
    stats: Counter[str] = Counter()
    edges = parse_edges(REPLY, ["Narrator", "Janek", "AC-293", "Canyon B"], stats)
    assert edges == [ScoreEdge("narrator", "canyon b", "continues journey toward"),
                     ScoreEdge("janek", "canyon b", "continues journey toward"),
                     ScoreEdge("janek", "janek", "falls and injures leg"),
                     ScoreEdge("ac-293", "janek", "argues with"),
                     ScoreEdge("janek", "janek", "skeptical")]
    assert stats == {"malformed_lines": 1, "not_an_entity": 1}
    assert len(parse_edges(REPLY)) == 6  # without an entity list nothing is dropped for its names


def test_prompt_is_the_appendix_f_conversation_with_entities() -> None:
    msgs = messages("Strike saves Gorman.", ["Strike", "Gorman"])
    assert [m["role"] for m in msgs] == ["user", "assistant"] * 3 + ["user"]
    assert msgs[0]["content"].startswith(RULES) and "Keep the predicates short (four words max)." in RULES
    assert "Named entities: Narrator, Janek, AC-293, Canyon B" in msgs[0]["content"]
    assert msgs[1]["content"].startswith("- Narrator, Janek, AC-293; Canyon B; continues journey toward")
    assert msgs[-1]["content"] == "Summary:\nStrike saves Gorman.\n\nNamed entities: Strike, Gorman"


def test_llm_extractor_and_scorer_with_a_fake_model() -> None:
    replies = {"Strike saves Gorman. Strike flies home.": "- Strike; Gorman; saves\n- Strike; [None]; flies home",
               "Strike rescues Gorman.": "- Strike; Gorman; rescues"}
    llm = FakeLLM(lambda msgs, opts: replies[msgs[-1].content.split("\n")[1]])
    scorer = SummaryScorer(LLMEdgeExtractor(llm), embed=hashed)
    scorer.reference_graph = lambda ref: (["Strike", "Gorman"], scorer.extractor.extract(ref, ["Strike", "Gorman"]))
    result = scorer.score("Strike rescues Gorman.", "Strike saves Gorman. Strike flies home.")
    assert set(result) >= {"precision", "recall", "f1", "rouge1", "rouge2", "rougeL", "embedding_similarity",
                           "paper_precision", "paper_recall", "paper_f1"}
    assert result["generated_edges"] == 1 and result["reference_edges"] == 2
    assert result["matched_generated"] == 1 and result["matched_reference"] == 1
    assert 0 < result["paper_recall"] < result["paper_precision"] <= 1
    # "rescues" and "saves" share no word: a bag-of-words cosine near chance gives no credit once rescaled
    assert result["f1"] < result["paper_f1"]
    assert llm.calls[0].options.stop == ("\nSummary:",)
    with pytest.raises(ValueError):
        scorer.score(" ", "x")

"""bench/graphrag_bench_llm.py: GraphRAG-Bench's answer accuracy judged through the real openai SDK against a stub
OpenAI-compatible server on 127.0.0.1 (tests/support/llm_server.py), malformed judge output, the plain mean over
question types, and the answering loop on a two-chapter book with the stub answering and judging. MiniLM is real."""
from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.services import library
from tests.support.llm_server import LLMServer, Reply

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("graphrag_bench_llm", ROOT / "bench" / "graphrag_bench_llm.py")
gbl = importlib.util.module_from_spec(_spec)
assert _spec.loader is not None
sys.modules[_spec.name] = gbl  # dataclasses look their module up
_spec.loader.exec_module(gbl)

QUESTION = "Who was Scrooge's partner?"
ANSWER = "Marley, who died on Christmas Eve."
TRUTH = "Jacob Marley was Scrooge's business partner; he had died seven years before."
ANSWER_STATEMENTS = ["Marley was Scrooge's partner.", "Marley died on Christmas Eve."]
TRUTH_STATEMENTS = ["Jacob Marley was Scrooge's business partner.", "Jacob Marley had died seven years before."]
ONE_EACH = {"TP": [{"statement": ANSWER_STATEMENTS[0], "reason": "stated"}],
            "FP": [{"statement": ANSWER_STATEMENTS[1], "reason": "the ground truth does not say when"}],
            "FN": [{"statement": TRUTH_STATEMENTS[1], "reason": "missing"}]}
BOOK = ("CHAPTER 1.\n\n" + "Scrooge kept the counting-house with Jacob Marley, his partner of many years. " * 8
        + "\n\nCHAPTER 2.\n\n" + "On Christmas Eve the ghost of Jacob Marley came to Scrooge in chains. " * 8 + "\n")


class RoutingServer(LLMServer):
    """The stub answers by what the prompt contains (first matching needle), else as LLMServer does."""

    def __init__(self) -> None:
        super().__init__()
        self.routes: list[tuple[str, str]] = []

    def next_behaviour(self) -> Any:
        body = self.requests[-1].body if self.requests else None  # recorded just before the handler asks
        prompt = body["messages"][-1]["content"] if isinstance(body, dict) else ""
        for needle, text in self.routes:
            if needle in prompt:
                return Reply(text)
        return super().next_behaviour()

    def prompts(self) -> list[str]:
        return [r.body["messages"][-1]["content"] for r in self.requests]


@pytest.fixture
def server(fresh_settings: pytest.MonkeyPatch) -> Iterator[RoutingServer]:
    """The stub, with the openai provider pointed at it the way the app configures a base URL (no key needed)."""
    for var in ("FABULA_LLM", "FABULA_LLM_ANSWERING", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        fresh_settings.delenv(var, raising=False)
    with RoutingServer() as s:
        fresh_settings.setenv("FABULA_OPENAI_BASE_URL", s.openai_url)
        yield s


def _judge_routes(classification: str, answer_split: str | None = None) -> list[tuple[str, str]]:
    return [("Ground-truth statements:", classification),
            (f"Answer: {ANSWER}", answer_split or "```json\n" + json.dumps(ANSWER_STATEMENTS) + "\n```"),
            (f"Answer: {TRUTH}", json.dumps(TRUTH_STATEMENTS))]


def _similarity(a: str, b: str) -> float:
    from core.nlp import embed
    u, v = embed([a, b])
    return (float(u @ v) + 1) / 2


def test_judge_scores_a_known_answer(store, server: RoutingServer) -> None:  # noqa: ANN001
    server.routes = _judge_routes("Here is the classification:\n" + json.dumps(ONE_EACH))
    judged = gbl.build_judge(store, "openai:stub-judge").score(QUESTION, ANSWER, TRUTH)

    # one TP, one FP, one FN: F1 = 1 / (1 + 0.5 * 2) = 0.5; accuracy = 0.75 * 0.5 + 0.25 * (cos + 1) / 2
    similarity = _similarity(ANSWER, TRUTH)
    assert (judged.tp, judged.fp, judged.fn, judged.malformed) == (1, 1, 1, None)
    assert judged.factuality == pytest.approx(0.5)
    assert judged.similarity == pytest.approx(similarity, abs=1e-4)
    assert judged.accuracy == pytest.approx(0.75 * 0.5 + 0.25 * similarity, abs=1e-4)

    assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 3  # answer split, truth split, classify
    assert all(r.body["temperature"] == 0 for r in server.requests)
    classify = server.prompts()[2]
    assert json.dumps(ANSWER_STATEMENTS) in classify and json.dumps(TRUTH_STATEMENTS) in classify


def test_malformed_judge_output_scores_zero_and_is_counted(store, server: RoutingServer) -> None:  # noqa: ANN001
    judge = gbl.build_judge(store, "openai:stub-judge")
    similarity = _similarity(ANSWER, TRUTH)

    server.routes = _judge_routes("Mostly right, I would say: one fact matches.")
    bad_classification = judge.score(QUESTION, ANSWER, TRUTH)
    assert (bad_classification.factuality, bad_classification.malformed) == (0.0, "classification")
    assert bad_classification.accuracy == pytest.approx(0.25 * similarity, abs=1e-4)

    asked = len(server.requests)
    server.routes = _judge_routes(json.dumps(ONE_EACH), answer_split="Marley was the partner; he died.")
    bad_split = judge.score(QUESTION, ANSWER, TRUTH)
    assert (bad_split.factuality, bad_split.malformed) == (0.0, "answer split")
    assert len(server.requests) == asked + 1  # nothing more is asked once a split is unusable

    server.routes = _judge_routes(json.dumps({"TP": "all of them", "FP": [], "FN": []}))  # JSON of the wrong shape
    assert judge.score(QUESTION, ANSWER, TRUTH).malformed == "classification"

    server.routes = _judge_routes(json.dumps(ONE_EACH))
    good = judge.score(QUESTION, ANSWER, TRUTH)
    records = [{"type": "Fact Retrieval", "f1": 0.5, "seconds": 1.0, "accuracy": j.accuracy, "judge": vars(j)}
               for j in (bad_classification, bad_split, good)]
    row = gbl.mode_row("rag", records)
    assert row["malformed"] == 2
    assert row["acc_fact"] == round(100 * (bad_classification.accuracy + bad_split.accuracy + good.accuracy) / 3, 1)


def test_json_is_found_in_fences_and_prose() -> None:
    assert gbl.parse_json('```json\n["a", "b"]\n```') == ["a", "b"]
    assert gbl.parse_json('Sure. {"TP": [], "FP": ["x"], "FN": []} Hope this helps.') == {"TP": [], "FP": ["x"],
                                                                                          "FN": []}
    assert gbl.parse_json("no JSON [here") is None
    assert gbl.as_statements({"statements": ["a", {"statement": "b"}]}) == ["a", "b"]
    assert gbl.as_counts({"tp": [1, 2], "FN": [3]}) == (2, 0, 1)
    assert gbl.as_counts(["TP"]) is None and gbl.as_counts({"verdict": "good"}) is None


def test_means_are_per_type_then_the_plain_mean_over_types() -> None:
    records = ([{"type": "Fact Retrieval", "f1": v, "accuracy": v, "seconds": 2.0} for v in (1.0, 0.0, 0.5, 0.5)]
               + [{"type": "Complex Reasoning", "f1": 1.0, "accuracy": 1.0, "seconds": 4.0}]
               + [{"type": "Contextual Summarize", "f1": 0.0, "accuracy": 0.0, "seconds": 2.0}] * 2
               + [{"type": "Creative Generation", "f1": 0.25, "accuracy": 0.25, "seconds": 2.0}])
    means = gbl.type_means((r["type"], r["f1"]) for r in records)
    assert means == {"Fact Retrieval": 0.5, "Complex Reasoning": 1.0, "Contextual Summarize": 0.0,
                     "Creative Generation": 0.25, "all": pytest.approx(0.4375)}  # pooled would be 3.25 / 8
    row = gbl.mode_row("kg", records)
    assert (row["f1_all"], row["acc_all"], row["f1_fact"], row["f1_reason"], row["f1_summ"], row["f1_creative"]) == (
        43.8, 43.8, 50.0, 100.0, 0.0, 25.0)
    assert row["s_per_q"] == 2.2 and row["n"] == 8 and "malformed" not in row  # no judge, no malformed column
    assert gbl.type_means([("Fact Retrieval", 0.2), ("Fact Retrieval", 0.4)])["all"] == pytest.approx(0.3)


def test_sample_is_seeded_and_spread_over_types() -> None:
    questions = [{"question_type": t, "id": f"{t}-{i}"} for t, k in zip(gbl.TYPES, (50, 40, 30, 3)) for i in range(k)]
    sample = gbl.sample_questions(questions, 20, seed=7)
    counts = {t: sum(q["question_type"] == t for q in sample) for t in gbl.TYPES}
    assert len(sample) == 20 and len({q["id"] for q in sample}) == 20
    assert counts["Creative Generation"] == 3 and min(counts[t] for t in gbl.TYPES[:3]) >= 5
    assert [q["id"] for q in gbl.sample_questions(questions, 20, seed=7)] == [q["id"] for q in sample]


def test_answer_loop_with_the_stub_answering_and_judging(store, server: RoutingServer) -> None:  # noqa: ANN001
    work = library.import_book(store, "carol.txt", BOOK.encode())
    questions = [{"id": "q1", "source": "carol", "question": "Who was Scrooge's partner?", "answer": "Jacob Marley",
                  "question_type": "Fact Retrieval"},
                 {"id": "q2", "source": "carol", "question": "What happened on Christmas Eve?",
                  "answer": "The ghost of Jacob Marley visited Scrooge in chains.",
                  "question_type": "Complex Reasoning"}]
    server.routes = [("Ground-truth statements:", json.dumps({"TP": ["x"], "FP": [], "FN": []})),
                     ("Statements:", json.dumps(["Jacob Marley was Scrooge's partner."]))]
    server.default = Reply("Jacob Marley")  # every answering prompt
    modes = {"traditional": {"mode": "traditional"}, "rag-dense": {"mode": "rag", "passage_search": "dense"},
             "narco": {"mode": "narco"}}
    result = gbl.run_answers(store, {"carol": work.id}, questions, modes, "openai:stub-answerer",
                             "openai:stub-judge", budget=300, log=lambda _: None)

    assert (result["llm"], result["judge"], result["narco_edges"]) == ("openai:stub-answerer", "openai:stub-judge", 0)
    assert result["copied"] == {"narco": "rag-dense"} and set(result["answers"]) == {"traditional", "rag-dense"}
    rows = {r["mode"]: r for r in result["rows"]}
    assert rows["narco"]["note"] == "no NARCO edges: same prompts as rag-dense"
    assert {k: v for k, v in rows["narco"].items() if k != "mode" and k != "note"} == {
        k: v for k, v in rows["rag-dense"].items() if k != "mode" and k != "note"}
    for mode in ("traditional", "rag-dense"):
        first, second = result["answers"][mode]
        assert first["answer"] == "Jacob Marley" and first["f1"] == 1.0 and second["f1"] < 1.0
        assert first["judge"]["factuality"] == 1.0 and first["judge"]["malformed"] is None
        assert first["accuracy"] == pytest.approx(0.75 + 0.25 * _similarity("Jacob Marley", "Jacob Marley"), abs=1e-4)
        assert rows[mode]["malformed"] == 0 and rows[mode]["f1_fact"] == 100.0
        assert rows[mode]["f1_all"] == round(100 * (1.0 + second["f1"]) / 2, 1)
    text = gbl.report(result)
    assert "judged by openai:stub-judge" in text and "| HippoRAG 2 | 56.5 |" in text  # published beside ours
    # 1 warm-up + 2 modes x 2 questions answered; each answer judged with 3 calls; nothing left this machine
    assert len(server.requests) == 1 + 4 + 4 * 3

"""NARCO generation and verification with a scripted FakeLLM: parsing malformed replies, the two turns, filtering."""
from __future__ import annotations

import pytest

from core.llm import FakeLLM, LLMTimeout
from core.narco import (edge_questions, evidence_in_prior, generate_questions, parse_questions, parse_verdict,
                        verify_question)

PRIOR = ("Marley was dead, to begin with. Scrooge signed the register of his burial. "
         "Scrooge never painted out old Marley's name above the warehouse door.")
CURRENT = ("The sign still read Scrooge and Marley. Newcomers called Scrooge by Marley's name. "
           "He answered to both names, for it was all the same to him.")


@pytest.mark.parametrize("reply, expected", [
    ("1. Why was Marley's name still on the sign?\n2. Who signed the register of Marley's burial?",
     ["Why was Marley's name still on the sign?", "Who signed the register of Marley's burial?"]),
    ("- **Why does the sign still read Scrooge and Marley?**\n* Q2: Is Marley alive or dead?",
     ["Why does the sign still read Scrooge and Marley?", "Is Marley alive or dead?"]),
    ("Here are the questions:\nQuestion 1: Why is Marley's name kept? Because Scrooge never painted it out.",
     ["Why is Marley's name kept?"]),
    ('"1) What happened to Marley before this?"\n"1) What happened to Marley before this?"',
     ["What happened to Marley before this?"]),
    ("None", []),
    ("", []),
    ("Why?\n???\n1.\n2. ok", []),                             # too short to be a question
    ("No questions. The passages are unrelated.", []),
    ("1. Why " + "very " * 80 + "long?", []),                  # a looping model's run-on line is dropped
])
def test_parse_questions_handles_malformed_output(reply: str, expected: list[str]) -> None:
    assert parse_questions(reply) == expected


def test_parse_questions_keeps_at_most_the_limit() -> None:
    reply = "\n".join(f"{i}. Why did event number {i} happen?" for i in range(1, 10))
    assert len(parse_questions(reply, limit=5)) == 5


@pytest.mark.parametrize("reply, answerable, answer, evidence", [
    ("Answerable: yes\nAnswer: Marley is dead\nEvidence: \"Marley was dead, to begin with.\"",
     True, "Marley is dead", ["Marley was dead, to begin with."]),
    ("**Answerable:** Yes.\nAnswer: he never painted it out\nEvidence:\n- Scrooge never painted out old Marley's "
     "name above the warehouse door.\n- All the same.", True, "he never painted it out",
     ["Scrooge never painted out old Marley's name above the warehouse door."]),
    ("answerable - no\nanswer: unknown", False, "unknown", []),
    ("Yes, the context says so. Evidence: Scrooge signed the register of his burial.", True, "",
     ["Scrooge signed the register of his burial."]),
    ("I am not sure what you mean.", None, "", []),
    ("", None, "", []),
])
def test_parse_verdict(reply: str, answerable: bool | None, answer: str, evidence: list[str]) -> None:
    verdict = parse_verdict(reply)
    assert verdict.answerable is answerable
    assert verdict.answer == answer
    assert verdict.evidence == evidence


def test_evidence_is_attributed_to_the_prior_passage_only_when_it_comes_from_there() -> None:
    # a loose copy of a prior sentence maps back to the book's own sentence
    found = evidence_in_prior(["Scrooge never painted out Marley's name above the door"], PRIOR, CURRENT)
    assert found == "Scrooge never painted out old Marley's name above the warehouse door."
    assert evidence_in_prior(["Newcomers called Scrooge by Marley's name."], PRIOR, CURRENT) is None  # self-answerable
    assert evidence_in_prior(["The ghost rattled its chains in the cellar."], PRIOR, CURRENT) is None  # hallucinated
    assert evidence_in_prior([], PRIOR, CURRENT) is None


def test_two_turn_generation_sends_the_first_reply_back_in_the_second_turn() -> None:
    llm = FakeLLM(["1. The sign: Scrooge never painted out Marley's name.",
                   "1. Why does the sign still read Scrooge and Marley?"])
    questions, calls, listing = generate_questions(llm, PRIOR, CURRENT)
    assert questions == ["Why does the sign still read Scrooge and Marley?"] and calls == 2
    first, second = llm.calls
    assert PRIOR in first.prompt and CURRENT in first.prompt
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert second.messages[1].content == listing


def test_no_connection_ends_the_pair_after_one_call() -> None:
    llm = FakeLLM(["None."])
    assert generate_questions(llm, PRIOR, CURRENT)[:2] == ([], 1)


def test_verification_keeps_only_questions_answered_by_the_prior_passage() -> None:
    replies = [
        "1. Marley's name\n2. Newcomers",
        "1. Why does the sign still read Scrooge and Marley?\n2. What do newcomers call Scrooge?\n"
        "3. Who haunts the cellar?\n4. Is anything known?",
        # kept: evidence quoted from the prior passage
        "Answerable: yes\nAnswer: Scrooge never painted it out\nEvidence: Scrooge never painted out old Marley's "
        "name above the warehouse door.",
        # dropped: self-answerable (evidence in the current passage)
        "Answerable: yes\nAnswer: Marley\nEvidence: Newcomers called Scrooge by Marley's name.",
        # dropped: not answerable
        "Answerable: no",
        # dropped: unreadable verdict (counted as malformed)
        "Well, hmm.",
    ]
    llm = FakeLLM(replies)
    result = edge_questions(llm, PRIOR, CURRENT)
    assert len(result.generated) == 4 and result.calls == 6 and result.malformed == 1
    assert [k.question for k in result.kept] == ["Why does the sign still read Scrooge and Marley?"]
    assert result.kept[0].evidence == "Scrooge never painted out old Marley's name above the warehouse door."
    # the verification context joins both passages without marking the boundary
    assert f"{PRIOR}\n\n{CURRENT}" in llm.calls[2].prompt and "Prior passage" not in llm.calls[2].prompt


def test_without_verification_every_generated_question_is_kept() -> None:
    llm = FakeLLM(["1. a link", "1. Why does the sign read Scrooge and Marley?\n2. Who was Marley then?"])
    result = edge_questions(llm, PRIOR, CURRENT, verify=False)
    assert [k.verified for k in result.kept] == [False, False] and result.calls == 2


def test_a_failing_llm_raises_instead_of_inventing_edges() -> None:
    with pytest.raises(LLMTimeout):
        verify_question(FakeLLM([LLMTimeout("slow")]), PRIOR, CURRENT, "Why is the name kept?")

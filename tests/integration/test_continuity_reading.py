"""A chapter read for contradictions by a capable model (issue 32's LLM path), with a scripted FakeLLM on a real
SQLite file: the prompt carries the established states, the earlier passages that describe the chapter's people and
the chapter; only findings whose two sentences are in the book are kept; a malformed reply or a model error is a
note, never a finding; the embedded models are never asked; the cost comes before anything is sent."""
from __future__ import annotations

import json

import pytest

from core.continuity import reading
from core.llm import LLMUnavailable
from core.llm.fake import FakeLLM
from core.services import continuity_reading, kg_service, library
from tests.support.continuity_farm import BOOK, FOUND



@pytest.fixture
def farm(store):
    work = library.import_book(store, "farm.txt", BOOK.encode())
    kg_service.build_graph(store, work.id)
    return store, work.id


def _reply(*items: dict[str, object]) -> str:
    return "```json\n" + json.dumps({"contradictions": list(items)}) + "\n```"




def test_a_finding_with_both_sentences_in_the_book_is_kept_with_offsets(farm) -> None:  # noqa: ANN001
    store, work_id = farm
    llm = FakeLLM(_reply(FOUND), model="gpt-test")
    done = continuity_reading.read_chapter(store, work_id, 3, llm=llm)
    assert done.notes == [] and done.calls == 1
    (flag,) = done.flags
    text = store.get_chapter(work_id, 3).text
    earlier = store.get_chapter(work_id, 1).text
    assert text[flag.start:flag.end].startswith("The little white terrier") and flag.chapter == 3
    assert earlier[flag.prior_start:flag.prior_end].startswith("Bob was a huge black dog") and flag.prior_chapter == 1
    assert flag.detail.startswith("read by fake:gpt-test") and flag.kind == "attribute"
    prompt = llm.calls[0].prompt
    assert "huge black dog" in prompt and "little white terrier" in prompt   # the earlier passage and the chapter
    assert "Chapter 3" in prompt and "Tom drove the cart" not in prompt.split("Chapter 3")[-1]


def test_an_invented_quotation_is_dropped_and_counted(farm) -> None:  # noqa: ANN001
    store, work_id = farm
    invented = dict(FOUND, earlier="Bob was a small white terrier with a black patch.")
    elsewhere = dict(FOUND, sentence="Bob barked at the moon all night long.")
    done = continuity_reading.read_chapter(store, work_id, 3, llm=FakeLLM(_reply(invented, elsewhere)))
    assert done.flags == [] and len(done.dropped) == 2
    assert any("left out" in n for n in done.notes)


def test_a_malformed_reply_or_a_failing_model_is_a_note_not_a_finding(farm) -> None:  # noqa: ANN001
    store, work_id = farm
    done = continuity_reading.read_chapter(store, work_id, 3, llm=FakeLLM("Bob seems fine to me!"))
    assert done.flags == [] and "did not answer with the list" in done.notes[0]
    done = continuity_reading.read_chapter(store, work_id, 3, llm=FakeLLM([LLMUnavailable("server down")]))
    assert done.flags == [] and "could not read chapter 3" in done.notes[0] and "server down" in done.notes[0]
    none = continuity_reading.read_chapter(store, work_id, 3, llm=FakeLLM(_reply()))
    assert none.flags == [] and none.notes == []


def test_the_embedded_models_are_never_asked_and_the_cost_comes_first(farm) -> None:  # noqa: ANN001
    store, work_id = farm
    assert not continuity_reading.can_read(store, "local:smollm2")
    done = continuity_reading.read_chapter(store, work_id, 3, "local:smollm2")
    assert done.calls == 0 and "Settings" in done.notes[0]
    plan = continuity_reading.reading_plan(store, work_id, 3, "openai:gpt-4o-mini")
    assert plan.calls == 1 and plan.input_tokens > 100 and plan.usd is not None and plan.usd > 0
    with pytest.raises(ValueError, match="No chapter 9"):
        continuity_reading.reading_plan(store, work_id, 9, "openai:gpt-4o-mini")


def test_a_long_chapter_is_read_in_parts_cut_at_paragraphs() -> None:
    paragraph = " ".join(["word"] * 900)
    parts = reading.parts_of("\n\n".join([paragraph] * 10), part_words=4_000)
    assert len(parts) == 3 and all(len(p.split()) <= 4_000 for p in parts)
    assert sum(len(p.split()) for p in parts) == 9_000
    assert reading.parts_of("One short chapter.") == ["One short chapter."]

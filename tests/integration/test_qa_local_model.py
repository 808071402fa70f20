"""The real local model (SmolLM2) answering from a real book within the budget, counted with its own tokenizer and
chat template; and the shared-prefix option scoring used for multiple choice agreeing with plain `token_logprobs`."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.domain import NewChapter, WorkKind
from core.llm.local import LocalLLM
from core.qa import QAParams, score_options
from core.qa.answer import messages_for
from core.services import qa_service
from tests.integration.test_qa_book import carol_chapters

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> LocalLLM:
    from tests.conftest import MODEL_CACHE
    llm = LocalLLM("smollm2", cache_dir=MODEL_CACHE)
    llm.load()
    return llm


def test_the_local_model_answers_within_the_budget(store, smollm2: LocalLLM) -> None:  # noqa: ANN001
    first = carol_chapters(1)[0]
    work = store.create_work("Carol", None, WorkKind.BOOK, {}, [NewChapter(first.title, first.text, first.chunks[:8])])
    result = qa_service.ask(store, work.id, "Who was dead, to begin with?", QAParams(mode="kg", budget_tokens=600),
                            llm=smollm2)
    assert result.answer and len(result.answer.split()) <= 40
    sent = smollm2.format_prompt(messages_for(result.plan.prompt))  # what the model actually read
    assert smollm2.count_tokens(sent) <= 600 and result.plan.total_tokens <= 600
    assert smollm2.count_tokens(sent) >= 600 - 40  # and the budget is used
    assert result.citations and all(c.chapter == 1 for c in result.citations)


def test_shared_prefix_option_scores_match_token_logprobs(smollm2: LocalLLM) -> None:
    prompt = "Marley was dead, to begin with.\n\nQuestion: Who was dead?\nAnswer:"
    options = ["Jacob Marley", "Scrooge's nephew Fred", "nobody at all"]
    fast = score_options(smollm2, prompt, options)
    text = smollm2.format_prompt(messages_for(prompt))
    slow = [sum(t.logprob for t in lps) / len(lps)
            for lps in (smollm2.token_logprobs(text, " " + o) for o in options)]
    assert fast == pytest.approx(slow, abs=1e-3)

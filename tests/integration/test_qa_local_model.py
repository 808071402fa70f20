"""The default local model (Settings.llm, or SmolLM2 when the default is not local) answering from a real book within
the budget, counted with its own tokenizer (and chat template, if it has one); and the shared-prefix option scoring
used for multiple choice agreeing with plain `token_logprobs`."""
from __future__ import annotations

import pytest

from core.domain import NewChapter, WorkKind
from core.llm.local import LocalLLM
from core.qa import QAParams, score_options
from core.config import get_settings
from core.qa.answer import model_input
from core.services import qa_service
from tests.integration.test_qa_book import carol_chapters

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local() -> LocalLLM:
    from tests.conftest import MODEL_CACHE
    provider, _, model = get_settings().llm.partition(":")
    llm = LocalLLM(model if provider == "local" else "smollm2", cache_dir=MODEL_CACHE)
    llm.load()
    return llm


def test_the_local_model_answers_within_the_budget(store, local: LocalLLM) -> None:  # noqa: ANN001
    first = carol_chapters(1)[0]
    work = store.create_work("Carol", None, WorkKind.BOOK, {}, [NewChapter(first.title, first.text, first.chunks[:8])])
    # the model writes the answer (in auto mode it may only rephrase the extractive reader's sentence, and the
    # kg prompt's passages here hold no sentence about who was dead: no answer, rightly)
    result = qa_service.ask(store, work.id, "Who was dead, to begin with?",
                            QAParams(mode="kg", budget_tokens=600, answer="generate"), llm=local)
    assert result.answer and len(result.answer.split()) <= 40
    sent = model_input(local, result.plan.prompt)  # what the model actually read
    assert local.count_tokens(sent) <= 600 and result.plan.total_tokens <= 600
    assert local.count_tokens(sent) >= 600 - 40  # and the budget is used
    assert result.citations and all(c.chapter == 1 for c in result.citations)


def test_shared_prefix_option_scores_match_token_logprobs(local: LocalLLM) -> None:
    prompt = "Marley was dead, to begin with.\n\nQuestion: Who was dead?\nAnswer:"
    options = ["Jacob Marley", "Scrooge's nephew Fred", "nobody at all"]
    fast = score_options(local, prompt, options)
    text = model_input(local, prompt)
    slow = [sum(t.logprob for t in lps) / len(lps) for lps in (local.token_logprobs(text, " " + o) for o in options)]
    assert fast == pytest.approx(slow, abs=1e-3)

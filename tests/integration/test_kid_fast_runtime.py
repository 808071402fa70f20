"""KID's logits variant on the fast runtime (issue 35), on the real SmolLM2-135M, a few tokens each: with steering off
and greedy, KidMode writes the very tokens the runtime's own greedy generation writes (like for like with a plain
continuation), without loading the float32 transformers weights; with steering on it still raises the facts' words."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.llm import local_models, runtimes
from core.llm.base import StopScanner
from core.llm.decoding import Decode, FastRun
from core.llm.local import LocalLLM
from core.write.kid import KidMode, KidParams
from core.write.modes import PreparedPrompt

pytestmark = pytest.mark.slow
PROMPT = "Elizabeth walked into the drawing room at Longbourn. Mr Darcy stood by the window, and"
FACTS = [{"text": "Darcy owns Pemberley.", "score": 1.0}, {"text": "Darcy loves Elizabeth Bennet.", "score": 0.9}]


@pytest.fixture(scope="module")
def fast_llm() -> LocalLLM:
    """SmolLM2 on the default fast runtime (OpenVINO where installed, else llama.cpp)."""
    from tests.conftest import MODEL_CACHE
    llm = LocalLLM("smollm2", cache_dir=Path(MODEL_CACHE))
    if llm._fast() is None:
        pytest.fail(f"no fast runtime serves smollm2 here ({runtimes.serving('smollm2').runtime}): KID on the fast "
                    "runtime cannot be tested")
    return llm


def runtime_greedy(llm: LocalLLM, ids: list[int], n: int) -> list[int]:
    """The runtime's own greedy generation (its sampler at temperature 0, no loop guard), `n` new ids."""
    fast = llm._fast()
    assert fast is not None
    run = FastRun(StopScanner(()))
    with llm._lock:
        for _ in fast.text_pieces(ids, Decode(run, llm.decode, n)):
            pass
    return run.new_ids


def test_steering_off_greedy_is_the_runtimes_greedy_generation(fast_llm: LocalLLM) -> None:
    weights_before = local_models.loaded("smollm2")
    kid = KidMode(KidParams(steps=0, temperature=0, no_repeat=0, max_tokens=12)).run(
        fast_llm, PreparedPrompt(PROMPT, FACTS))
    assert [s.token_id for s in kid.steps] == runtime_greedy(fast_llm, fast_llm.encode(PROMPT), 12)
    if weights_before is None:   # the float32 transformers model was never loaded for it
        assert local_models.loaded("smollm2") is None


def test_steering_on_the_fast_runtime_raises_the_facts_words(fast_llm: LocalLLM) -> None:
    """Greedy, so only the steering differs: plain writes no fact word here, KID (a strong nudge, a wide trust
    region, to decide within 10 tokens) writes one, with its probability raised and its fact recorded."""
    prepared = PreparedPrompt(PROMPT, FACTS)
    plain = KidMode(KidParams(steps=0, temperature=0, max_tokens=10)).run(fast_llm, prepared)
    kid = KidMode(KidParams(temperature=0, max_tokens=10, strength=2.0, kl_max=1.0)).run(fast_llm, prepared)
    assert "Elizabeth" not in plain.text and "Elizabeth" in kid.text
    assert kid.boosted and all(b["p_after"] > b["p_before"] for b in kid.boosted)
    assert {b["fact"] for b in kid.boosted} <= {"Darcy owns Pemberley", "Darcy loves Elizabeth Bennet"}

"""KID on the fast runtime (issue 35): the loop reads its next-token logits through a Stepper; a FastStepper over a
runtime's numpy logits gives the very steps the transformers path gives over the same logits (steering on and off),
it reads one token per step after the prompt, and the "kv" variant, which needs gradients through the key/value
cache, refuses it. The tiny bigram "model" (tests/support/tiny_lm.py) stands in for both runtimes."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
import torch

from core.write.kid import EntityMemory, KidParams, KnowledgeTrie
from core.write.kid.decode import FastStepper, kid_decode
from tests.support.tiny_lm import TinyLocalLLM, walking_table

TRIE = KnowledgeTrie.build([("the dog", "followed", "Buck"), ("Thornton", "loved", "Buck")])
PROMPT = "The dog went home and the man saw"


class NumpyRuntime:
    """The tiny model's logits as a fast runtime gives them (float32 numpy), counting how many ids each call reads
    beyond the ones the previous call read (a runtime's incremental step)."""

    def __init__(self, lm: TinyLocalLLM) -> None:
        self.lm, self.seen, self.read = lm, list[int](), list[int]()

    def __call__(self, ids: Sequence[int]) -> np.ndarray:
        grew = list(ids[:len(self.seen)]) == self.seen and len(ids) == len(self.seen) + 1
        self.read.append(1 if grew else len(ids))
        self.seen = list(ids)
        return self.lm.model(torch.tensor([list(ids)])).logits[0, -1].numpy().astype(np.float32)


def run(model: object, lm: TinyLocalLLM, params: KidParams) -> list[tuple[int, str, float, float, str | None]]:
    memory = EntityMemory(2)
    memory.add("dog")
    return [(s.token_id, s.piece, round(s.p_before, 6), round(s.p_after, 6), s.fact)
            for s in kid_decode(model, lm.tokenizer, lm.encode(PROMPT), params, TRIE, memory, stop_ids=[0])]


@pytest.mark.parametrize("params", [KidParams(steps=0, seed=3, max_tokens=20, temperature=1.0, top_k=4),
                                    KidParams(seed=3, max_tokens=20, temperature=1.0, top_k=4),
                                    KidParams(temperature=0, max_tokens=12)])
def test_the_fast_stepper_gives_the_steps_the_transformers_path_gives(params: KidParams) -> None:
    lm = TinyLocalLLM(walking_table())
    runtime = NumpyRuntime(lm)
    fast = run(FastStepper(runtime), lm, params)
    assert fast == run(lm.model, lm, params)
    assert runtime.read[0] == len(lm.encode(PROMPT)) and set(runtime.read[1:]) <= {1}   # one token per step
    if params.steering:
        assert any(fact is not None and after > before for _, _, before, after, fact in fast)


def test_prompt_logits_read_ahead_are_used_once() -> None:
    lm = TinyLocalLLM(walking_table())
    runtime = NumpyRuntime(lm)
    first = runtime(lm.encode(PROMPT))
    params = KidParams(temperature=0, max_tokens=6)
    assert run(FastStepper(runtime, first), lm, params) == run(lm.model, lm, params)
    assert runtime.read[0] == len(lm.encode(PROMPT)) and set(runtime.read[1:]) == {1}


def test_the_kv_variant_refuses_the_fast_runtime() -> None:
    lm = TinyLocalLLM(walking_table())
    with pytest.raises(ValueError, match="kv"):
        run(FastStepper(NumpyRuntime(lm)), lm, KidParams(variant="kv", max_tokens=3))


def test_torch_threads_are_restored_after_a_fast_loop() -> None:
    lm = TinyLocalLLM(walking_table())
    before = torch.get_num_threads()
    steps = kid_decode(FastStepper(NumpyRuntime(lm)), lm.tokenizer, lm.encode(PROMPT), KidParams(max_tokens=5))
    next(steps)
    assert torch.get_num_threads() == 1
    steps.close()
    assert torch.get_num_threads() == before

"""The loop guard in the embedded models' decoding loops (core/llm/loopguard.py), on each runtime: a prompt that makes
SmolLM2 write one sentence over and over without the guard gives no 8-gram more than twice with it (the default),
and never the same n-gram of guard tokens twice; the guard is deterministic and `loop_guard=None` is plain decoding.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from core.llm import runtimes
from core.llm.base import StopScanner
from core.llm.decoding import Decode, FastRun
from core.llm.local import LocalLLM
from core.llm.loopguard import LoopGuard
from core.textguard import NGRAM, repetition_stats
from tests.integration.test_llm_runtimes import require_safe

pytestmark = pytest.mark.slow

# SmolLM2 continues this with "The man in the red sweater." until the token limit (issue 37's summary, as a prompt)
LOOPING = ("Buck lived at a big house in the sun-kissed Santa Clara Valley. The man in the red sweater. The man in "
           "the red sweater. The man in the red sweater.")
TOKENS = 48


@pytest.fixture(scope="module")
def cache() -> Path:
    from tests.conftest import MODEL_CACHE
    return MODEL_CACHE


def most_repeated_8gram(text: str) -> int:
    words = text.lower().split()
    grams = Counter(tuple(words[i:i + NGRAM]) for i in range(len(words) - NGRAM + 1))
    return max(grams.values(), default=0)


def repeated_token_ngrams(ids: Sequence[int], n: int) -> int:
    grams = Counter(tuple(ids[i:i + n]) for i in range(len(ids) - n + 1))
    return sum(c - 1 for c in grams.values())


def fast_ids(llm: LocalLLM, prompt: str, guard: LoopGuard | None, runtime: str) -> list[int]:
    """Greedy new ids of the fast runtime serving `llm`, with `guard` (its lock held)."""
    fast = llm._fast()
    assert fast is not None and llm.runtime == runtime
    run = FastRun(StopScanner(()))
    with llm._lock:
        for _ in fast.text_pieces(llm.encode(prompt), Decode(run, llm.decode, TOKENS, guard=guard)):
            pass
    return run.new_ids


@pytest.mark.parametrize("runtime", ["openvino", "llama.cpp"])
def test_the_fast_runtimes_never_repeat_a_guarded_ngram_where_plain_decoding_loops(
        runtime: str, monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    require_safe(runtime, cache)
    monkeypatch.setenv(runtimes.RUNTIME_ENV, runtime)
    llm = LocalLLM("smollm2", cache_dir=cache)
    plain = fast_ids(llm, LOOPING, None, runtime)
    assert most_repeated_8gram(llm.decode(plain)) > 2, llm.decode(plain)  # the prompt does loop without the guard
    guard = LoopGuard()
    guarded = fast_ids(llm, LOOPING, guard, runtime)
    assert len(guarded) == TOKENS and repeated_token_ngrams(guarded, guard.ngram) == 0, llm.decode(guarded)
    assert most_repeated_8gram(llm.decode(guarded)) <= 2
    assert fast_ids(llm, LOOPING, guard, runtime) == guarded  # deterministic: the same tokens again
    assert fast_ids(llm, LOOPING, None, runtime) == plain  # off is plain decoding, whatever ran before


def test_every_embedded_generation_is_guarded_by_default_on_the_default_runtime(cache: Path) -> None:
    llm = LocalLLM("smollm2", cache_dir=cache)
    plain = llm.generate_text(LOOPING, max_tokens=TOKENS, loop_guard=None).text
    guarded = llm.generate_text(LOOPING, max_tokens=TOKENS)  # the default options: the guard on
    assert most_repeated_8gram(plain) > 2 and repetition_stats(plain).repeated_sentences > 2
    assert guarded.output_tokens == TOKENS and most_repeated_8gram(guarded.text) <= 2, guarded.text
    assert repetition_stats(guarded.text).repeated_sentences == 0
    streamed = "".join(llm.stream([{"role": "user", "content": LOOPING}], max_tokens=TOKENS))
    assert streamed == llm.complete([{"role": "user", "content": LOOPING}], max_tokens=TOKENS).text


def test_the_transformers_path_guards_the_same_way(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    monkeypatch.setenv(runtimes.RUNTIME_ENV, "transformers")
    llm = LocalLLM("smollm2", cache_dir=cache)
    assert llm.runtime == "transformers"
    plain = llm.generate_text(LOOPING, max_tokens=TOKENS, loop_guard=None).text
    guarded = llm.generate_text(LOOPING, max_tokens=TOKENS).text
    assert most_repeated_8gram(plain) > 2 and most_repeated_8gram(guarded) <= 2, guarded
    ids = llm.encode(guarded, add_special_tokens=False)
    assert repeated_token_ngrams(ids, LoopGuard().ngram) == 0, guarded

"""The float32 copies of the embedded models (KID, scoring, the transformers fallback) are let go when nobody has
asked for them for a while and nobody holds them (issue 37, rough edge 11: an idle server held 3.6 GB after KID had
run on both models). A model in use, by a running job or a caller, is never let go."""
from __future__ import annotations

import gc
import weakref

import pytest

from core.llm import local_models
from core.llm.local import LocalLLM

pytestmark = pytest.mark.slow

MODEL = "smollm2"


def _cache():  # noqa: ANN202
    from tests.conftest import MODEL_CACHE
    return MODEL_CACHE


def test_an_idle_float32_model_is_let_go_and_loads_again_on_need() -> None:
    local_models.unload(MODEL)
    llm = LocalLLM(MODEL, cache_dir=_cache())
    first = llm.next_token_logits("Marley was dead: to begin with.")
    model = weakref.ref(local_models.loaded(MODEL).model)  # type: ignore[union-attr]
    in_use = llm.model  # as a KID job holds it while it decodes
    later = local_models.release_idle(0)   # (another model an earlier test left loaded and unheld may go)
    assert MODEL not in later and local_models.is_loaded(MODEL), "a model someone holds is never let go"
    del in_use
    assert local_models.release_idle(3600) == [], "recently used: kept"
    assert local_models.release_idle(0) == [MODEL] and not local_models.is_loaded(MODEL)
    gc.collect()
    assert model() is None, "nothing else kept the weights alive"
    assert llm._loaded is None and llm.tokenizer is not None  # the tokenizer alone serves counting meanwhile
    again = llm.next_token_logits("Marley was dead: to begin with.")  # needed again: loaded again, same numbers
    assert local_models.is_loaded(MODEL) and bool((again == first).all())


def test_the_idle_time_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(local_models.IDLE_ENV, "0")
    assert local_models.idle_seconds() == 0.0
    monkeypatch.setenv(local_models.IDLE_ENV, "not a number")
    assert local_models.idle_seconds() == local_models.DEFAULT_IDLE_S

"""A dry run needs the answering model's tokenizer, never its weights: `cli.py ask --dry-run` and
`Asker(dry_run=True)` with the packaged SmolLM2 plan kg and rag prompts on real SQLite without loading (or
dequantizing) the model, and count exactly the tokens the loaded model's own tokenizer counts. The tokenizer-only
loader reads the same tokenizer as the model load, for both packaged models, from the cache folder and the GGUF.
"""
from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import cli
import cli_commands
from core.domain import NewChapter, WorkKind
from core.llm import local_models
from core.llm.local import LocalLLM
from core.qa import QAParams
from core.services.qa_service import Asker

pytestmark = pytest.mark.slow

MODEL = "smollm2"
CHAPTERS = [("One", "Marley was dead, to begin with. Scrooge signed the register of his burial.\n\n"
                    "Scrooge never painted out old Marley's name above the warehouse door."),
            ("Two", "The ghost of Marley came through the heavy door and looked at Scrooge: “Humbug!”"),
            ("Three", "Tiny Tim did not die, and Scrooge became a second father to him.")]
QUESTION = "Who was dead, to begin with?"
SAMPLES = ["Marley was dead: to begin with.", "  “Bah,” said Scrooge, “Humbug!” — naïve café, 1843\n\n\tend  ",
           "<|im_start|>user\nliteral special tokens<|im_end|><start_of_turn>", "日本語のテキスト 🎄", ""]


def _model_cache() -> Path:
    from tests.conftest import MODEL_CACHE
    return MODEL_CACHE


@pytest.fixture
def work_id(store, monkeypatch: pytest.MonkeyPatch) -> int:  # noqa: ANN001
    monkeypatch.setattr(cli_commands, "_store", store)
    chapters = [NewChapter(t, x, x.split("\n\n")) for t, x in CHAPTERS]
    return store.create_work("Carol", None, WorkKind.BOOK, {}, chapters).id


@contextlib.contextmanager
def weights_refused(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Within: the process has neither the model nor its tokenizer in memory, and reading weights fails the test.
    Afterwards everything is put back (a model another test loaded included)."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a dry run tried to load the model's weights")
    with monkeypatch.context() as m:
        m.delitem(local_models._loaded, MODEL, raising=False)
        m.setattr(local_models, "_tokenizers", {})
        for name in ("load_local_model", "_from_gguf"):
            m.setattr(local_models, name, refuse)
        m.setattr("core.llm.local.load_local_model", refuse)
        yield


def _loaded_tokenizer() -> Any:
    """The tokenizer that comes with the fully loaded model."""
    return local_models.load_local_model(MODEL, _model_cache()).tokenizer


def _counts(tokenizer: Any, prompt: str) -> tuple[int, int]:
    """(prompt tokens, chat-template tokens + 1), counted the way the QA planner and template_overhead count."""
    prompt_tokens = len(tokenizer(prompt, add_special_tokens=False)["input_ids"])
    empty = tokenizer.apply_chat_template([{"role": "user", "content": ""}], tokenize=False,
                                          add_generation_prompt=True)
    return prompt_tokens, len(tokenizer(empty, add_special_tokens=False)["input_ids"]) + 1


def test_cli_dry_run_in_kg_and_rag_mode_never_loads_the_weights(work_id: int, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    results = []
    with weights_refused(monkeypatch):
        for mode in ("kg", "rag"):
            status = cli.main(["ask", str(work_id), QUESTION, "--mode", mode, "--dry-run", "--json",
                               "--llm", f"local:{MODEL}"])
            out = capsys.readouterr()
            assert status == 0, out.err
            results.append(json.loads(out.out))
        assert not local_models.is_loaded(MODEL)
        assert list(local_models._tokenizers) == [MODEL]  # read once for both runs
    for result in results:
        assert result["answer"] is None and result["prompt"].endswith(f"Question: {QUESTION}\nAnswer:")
        assert result["citations"] and result["prompt_tokens"] > 50
    assert results[0]["mode"] == "kg" and results[1]["mode"] == "rag" and results[1]["passages"]
    tokenizer = _loaded_tokenizer()
    for result in results:
        assert (result["prompt_tokens"], result["template_tokens"]) == _counts(tokenizer, result["prompt"])


def test_asker_dry_run_counts_what_the_loaded_model_counts(store, work_id: int,  # noqa: ANN001
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    llm = LocalLLM(MODEL, cache_dir=_model_cache())
    with weights_refused(monkeypatch):
        asker = Asker(store, llm, dry_run=True)
        dry = {mode: asker.ask(work_id, QUESTION, QAParams(mode=mode)) for mode in ("kg", "rag")}
        assert llm._loaded is None and llm._tokenizer is not None and "loaded=False" in repr(llm)
        assert llm.has_chat_template and "<|im_start|>user" in llm.format_prompt(QUESTION)
    llm.load()  # now the weights, as generation would
    assert llm._loaded is not None and llm._tokenizer is None and llm.tokenizer is llm._loaded.tokenizer
    loaded = Asker(store, llm, dry_run=True)
    for mode, result in dry.items():
        again = loaded.ask(work_id, QUESTION, QAParams(mode=mode))
        assert result.answer is None and result.plan.prompt == again.plan.prompt
        assert (result.plan.prompt_tokens, result.plan.reserve) == (again.plan.prompt_tokens, again.plan.reserve)
        assert (result.plan.prompt_tokens, result.plan.reserve) == _counts(llm.tokenizer, result.plan.prompt)


@pytest.mark.parametrize("name", list(local_models.LOCAL_MODELS))
def test_the_tokenizer_alone_is_the_models_tokenizer(name: str, tmp_path: Path) -> None:
    """From the cache folder (by the class it names, without torch) and from the GGUF (no cache yet), the tokenizer
    read alone encodes, decodes and formats exactly like AutoTokenizer on the saved tokenizer; so does the copy the
    GGUF read saves for the next process.
    The GGUF read is the model load's own AutoTokenizer call; it is checked on SmolLM2 only, since converting
    Gemma's 262k-token vocabulary from the GGUF takes 30-90 s on 2 cores."""
    from transformers import AutoTokenizer
    cache = _model_cache()
    local_models._save_tokenizer(local_models.load_local_tokenizer(name, cache), name, cache)  # the suite's cache
    folder = cache / "tokenizers" / name
    reference = AutoTokenizer.from_pretrained(folder)
    alone = local_models._tokenizer_from_folder(folder)
    tokenizers = [alone]
    if name == MODEL:
        tokenizers.append(local_models._tokenizer_from_gguf(local_models.spec_for(name), tmp_path))
        saved = tmp_path / "tokenizers" / name  # kept for the next process: the tokenizer alone, complete
        assert (saved / local_models.CACHE_MARKER).is_file() and not (tmp_path / "models").exists()
        assert not list(tmp_path.rglob(".*"))  # no scratch folder left
        tokenizers.append(local_models._tokenizer_from_folder(saved))
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": SAMPLES[1]}]
    for tok in tokenizers:
        assert type(tok) is type(reference)
        assert (tok.bos_token_id, tok.eos_token_id, tok.pad_token_id) == (
            reference.bos_token_id, reference.eos_token_id, reference.pad_token_id)
        assert tok.chat_template == reference.chat_template and len(tok) == len(reference)
        for text in SAMPLES:
            for special in (True, False):
                ids = tok(text, add_special_tokens=special)["input_ids"]
                assert ids == reference(text, add_special_tokens=special)["input_ids"], (text, special)
                assert tok.decode(ids) == reference.decode(ids)
        if reference.chat_template:
            assert tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=True) == \
                reference.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)


def test_the_tokenizer_alone_is_read_once_and_gives_way_to_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cached per process like the model; once the model is loaded its own tokenizer is what everyone gets."""
    llm = LocalLLM(MODEL, cache_dir=_model_cache())
    with weights_refused(monkeypatch):
        first = local_models.load_local_tokenizer(MODEL, _model_cache())
        assert local_models.load_local_tokenizer(MODEL, _model_cache()) is first
        text = "Marley was dead"
        assert llm.count_tokens(text) == len(first(text, add_special_tokens=False)["input_ids"])
        assert llm.tokenizer is first and llm._loaded is None
    model = local_models.load_local_model(MODEL, _model_cache())
    assert local_models.load_local_tokenizer(MODEL, _model_cache()) is model.tokenizer
    assert LocalLLM(MODEL, cache_dir=_model_cache()).tokenizer is model.tokenizer  # a new user: no second read

"""core.llm without any network or model: options, messages, stop handling, FakeLLM, registry, metering, pricing,
key sources and redaction."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.llm import (Completion, FakeLLM, GenerationOptions, LLMConfigError, LLMError, LLMTimeout, LLMUsage,
                      MeteredLLM, StopScanner, check_llm_name, estimate_job_cost, get_llm, normalize_messages,
                      parse_llm_name, price_for, redact, register_provider, unregister_provider)
from core.llm.keys import api_key, display_url, key_source
from core.llm.pricing import (DEFAULT_PRICES, Price, cost_usd, price_table_from_json, price_table_to_json,
                              prices_from_rows)

# -- options and messages ------------------------------------------------------------------------------------------


def test_options_build_applies_overrides_and_rejects_unknown_names() -> None:
    opts = GenerationOptions.build(GenerationOptions(max_tokens=10), temperature=0.5, stop="\n")
    assert (opts.max_tokens, opts.temperature, opts.stop) == (10, 0.5, ("\n",))
    with pytest.raises(TypeError, match="max_new_tokens"):
        GenerationOptions.build(max_new_tokens=5)
    with pytest.raises(ValueError):
        GenerationOptions(max_tokens=0)
    with pytest.raises(ValueError):
        GenerationOptions(top_p=1.5)


def test_messages_accept_a_string_dicts_or_message_objects() -> None:
    assert normalize_messages("hi")[0].as_dict() == {"role": "user", "content": "hi"}
    msgs = normalize_messages([{"role": "system", "content": "be brief"}, {"role": "user", "content": "q"}])
    assert [m.role for m in msgs] == ["system", "user"]
    with pytest.raises(ValueError, match="role"):
        normalize_messages([{"role": "wizard", "content": "x"}])
    with pytest.raises(ValueError, match="user message"):
        normalize_messages([{"role": "system", "content": "only system"}])
    with pytest.raises(ValueError):
        normalize_messages([{"content": "no role"}])


def test_stop_scanner_never_emits_a_stop_string_split_across_pieces() -> None:
    scanner = StopScanner(["\nQuestion:"])
    pieces = ["The answer", " is 4.\nQue", "stion: what", " else"]
    emitted = "".join(scanner.feed(p) for p in pieces) + scanner.flush()
    assert emitted == "The answer is 4."
    assert scanner.stopped


def test_stop_scanner_releases_held_text_that_turned_out_not_to_be_a_stop() -> None:
    scanner = StopScanner(["END"])
    out = [scanner.feed(p) for p in ["go E", "N", "ough"]]
    assert "".join(out) + scanner.flush() == "go ENough"
    assert out[0] == "go "  # "E" is held back until it is clear it does not start "END"


# -- FakeLLM -----------------------------------------------------------------------------------------------------


def test_fake_llm_replays_its_script_and_records_calls() -> None:
    llm = FakeLLM(["first", "second reply"])
    assert llm.complete("one").text == "first"
    result = llm.complete([{"role": "user", "content": "two words"}], max_tokens=9)
    assert (result.text, result.input_tokens, result.output_tokens) == ("second reply", 2, 2)
    assert [c.prompt for c in llm.calls] == ["one", "two words"]
    assert llm.calls[1].options.max_tokens == 9
    with pytest.raises(LLMError, match="no scripted replies"):
        llm.complete("three")


def test_fake_llm_raises_scripted_errors_in_order() -> None:
    llm = FakeLLM(["ok", LLMTimeout("scripted timeout", provider="fake"), "recovered"])
    assert llm.complete("a").text == "ok"
    with pytest.raises(LLMTimeout):
        llm.complete("b")
    assert llm.complete("c").text == "recovered"
    assert len(llm.calls) == 3


def test_fake_llm_honours_stop_and_max_tokens_and_streams() -> None:
    llm = FakeLLM(lambda msgs, opts: "alpha beta gamma delta")
    assert llm.complete("x", stop=["gamma"]).text == "alpha beta "
    cut = llm.complete("x", max_tokens=2)
    assert (cut.text, cut.finish_reason, cut.output_tokens) == ("alpha beta", "length", 2)
    stream = llm.stream("x", stop=["delta"])
    assert "".join(stream) == "alpha beta gamma "
    assert stream.completion is not None and stream.completion.output_tokens == 3
    assert llm.calls[-1].streamed


def test_fake_llm_without_script_echoes() -> None:
    assert get_llm("fake:echo").complete("say this").text == "say this"


# -- registry ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec, expected", [
    ("local:smollm2", ("local", "smollm2")),
    ("openai:llama3.1:8b", ("openai", "llama3.1:8b")),
    ("openai:meta-llama/Llama-3.1-8B-Instruct", ("openai", "meta-llama/Llama-3.1-8B-Instruct")),
    (" Anthropic : claude-haiku-4-5 ", ("anthropic", "claude-haiku-4-5")),
])
def test_parse_llm_name_splits_at_the_first_colon(spec: str, expected: tuple[str, str]) -> None:
    assert parse_llm_name(spec) == expected


@pytest.mark.parametrize("spec, message", [
    ("smollm2", "PROVIDER:MODEL"),
    ("local:", "provider and a model"),
    (":gpt-4o", "provider and a model"),
    ("nosuch:model", "unknown LLM provider 'nosuch'"),
    ("local:gpt-4o", "unknown local model 'gpt-4o'; available: smollm2, gemma3-270m"),
])
def test_bad_names_give_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(LLMConfigError) as info:
        get_llm(spec)
    assert message in str(info.value)


def test_open_providers_accept_any_model_name() -> None:
    assert check_llm_name("openai:whatever-my-server-has") == "openai:whatever-my-server-has"


def test_register_provider_makes_a_name_resolvable() -> None:
    register_provider("scripted", lambda model, **kw: FakeLLM([f"from {model}"], model=model))
    try:
        assert get_llm("scripted:m1").complete("hi").text == "from m1"
    finally:
        unregister_provider("scripted")
    with pytest.raises(LLMConfigError):
        get_llm("scripted:m1")


def test_importing_core_llm_does_not_import_torch_or_sdks() -> None:
    import subprocess
    import sys
    code = ("import sys, core.llm, core.services.llm_service; "
            "print(sorted(m for m in ('torch', 'transformers', 'openai', 'anthropic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "[]"


# -- metering ----------------------------------------------------------------------------------------------------


def test_metered_llm_reports_each_call_to_the_sink_with_its_context() -> None:
    seen: list[LLMUsage] = []
    llm = MeteredLLM(FakeLLM(["one two three", "four five"]), seen.append, role="answering", work_id=7, job_id=3)
    llm.complete("a b")
    stream = llm.stream("c")
    assert "".join(stream) == "four five"
    assert [(u.provider, u.model, u.input_tokens, u.output_tokens, u.role, u.work_id, u.job_id) for u in seen] == [
        ("fake", "test", 2, 3, "answering", 7, 3), ("fake", "test", 1, 2, "answering", 7, 3)]
    assert (llm.totals.calls, llm.totals.input_tokens, llm.totals.output_tokens) == (2, 3, 5)
    assert llm.name == "fake:test" and llm.calls  # everything else passes through to the wrapped LLM


def test_metered_llm_records_nothing_for_a_failed_call_and_survives_a_broken_sink() -> None:
    def broken_sink(usage: LLMUsage) -> None:
        raise RuntimeError("database is locked")
    llm = MeteredLLM(FakeLLM([LLMTimeout("down", provider="fake"), "fine"]), broken_sink)
    with pytest.raises(LLMTimeout):
        llm.complete("x")
    assert llm.totals.calls == 0
    assert llm.complete("x").text == "fine"  # the sink failed, the reply is kept
    assert llm.with_context(job_id=9).job_id == 9


# -- pricing -----------------------------------------------------------------------------------------------------


def test_prices_local_free_known_priced_unknown_none() -> None:
    assert price_for("local:smollm2") == Price(0, 0)
    assert price_for("openai:gpt-4o-mini") == DEFAULT_PRICES["openai:gpt-4o-mini"]
    assert price_for("anthropic:claude-haiku-4-5-20251001") == DEFAULT_PRICES["anthropic:claude-haiku-4-5"]
    assert price_for("openai:gpt-4o-mini-2024-07-18") == DEFAULT_PRICES["openai:gpt-4o-mini"]  # not gpt-4o's
    assert price_for("openai:llama3.1:8b") is None
    assert cost_usd(1_000_000, 1_000_000, "openai:gpt-4o-mini") == pytest.approx(0.75)


def test_estimate_job_cost_prices_the_tokens() -> None:
    job = {"units": 40, "calls": 40, "input_tokens": 80_000, "output_tokens": 12_000}
    est = estimate_job_cost("openai:gpt-4o-mini", **job, detail={"pairs": 3})
    assert est.usd == pytest.approx(80_000 * 0.15e-6 + 12_000 * 0.60e-6)
    assert est.as_dict() | {"usd": 0} == {"model": "openai:gpt-4o-mini", **job, "usd": 0, "price_known": True,
                                          "label": est.label, "price": {"input_per_1m": 0.15, "output_per_1m": 0.6},
                                          "pairs": 3}
    assert estimate_job_cost("local:gemma3-270m", **job).label == "free (local)"
    unknown = estimate_job_cost("openai:my-local-llama", **job, prices={})
    assert (unknown.usd, unknown.label, unknown.price_known) == (None, "unknown price", False)
    with pytest.raises(ValueError):
        estimate_job_cost("local:smollm2", units=1, calls=1, input_tokens=-1, output_tokens=0)


def test_price_table_round_trips_and_rejects_bad_rows() -> None:
    table = {"openai:x": Price(1.0, 2.0)}
    assert price_table_from_json(price_table_to_json(table)) == table
    assert prices_from_rows([{"model": "", "input_per_1m": None}]) == {}  # blank rows are skipped
    for bad, message in [({"model": "nocolon", "input_per_1m": 1, "output_per_1m": 1}, "PROVIDER:MODEL"),
                         ({"model": "a:b", "input_per_1m": -1, "output_per_1m": 1}, "zero or more"),
                         ({"model": "a:b", "input_per_1m": "cheap", "output_per_1m": 1}, "must be a number")]:
        with pytest.raises(ValueError, match=message):
            prices_from_rows([bad])
    with pytest.raises(ValueError):
        price_table_from_json("{not json")


# -- keys --------------------------------------------------------------------------------------------------------


def test_key_source_environment_then_secrets_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('OPENAI_API_KEY = "sk-from-file-123456"\n[anthropic]\napi_key = "sk-ant-file-654321"\n')
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert key_source("openai", [secrets]) == "secrets.toml"
    assert key_source("anthropic", [secrets]) == "secrets.toml"
    assert api_key("anthropic", [secrets]) == "sk-ant-file-654321"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-999999")
    assert key_source("openai", [secrets]) == "environment"
    assert key_source("openai", [tmp_path / "missing.toml"]) == "environment"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert key_source("openai", [tmp_path / "missing.toml"]) == "not set"


def test_a_broken_secrets_file_means_not_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    broken = tmp_path / "secrets.toml"
    broken.write_bytes(b"OPENAI_API_KEY = \xff\xfe not toml")
    assert key_source("openai", [broken]) == "not set"


def test_redact_blanks_configured_keys_and_key_shaped_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "plainsecretvalue")
    text = "failed with plainsecretvalue and sk-abcdefghijklmnop and Bearer custom-token-1"
    out = redact(text, ("custom-token-1",))
    assert "plainsecretvalue" not in out and "sk-abcdefghijklmnop" not in out and "custom-token-1" not in out
    assert LLMError("boom plainsecretvalue").args[0] == "boom ***"


def test_display_url_drops_credentials_and_query() -> None:
    assert display_url("https://user:pw@example.com:8443/v1?key=abc") == "https://example.com:8443/v1"


def test_completion_is_a_plain_value() -> None:
    c = Completion("t", 1, 2, 0.5)
    assert (c.finish_reason, c.text) == ("stop", "t")


def test_plain_transcript_for_base_models() -> None:
    from core.llm.local import plain_transcript
    msgs = normalize_messages([{"role": "system", "content": "Story: Phoebe opens a school."},
                               {"role": "user", "content": "Who opens a school?"},
                               {"role": "assistant", "content": "Phoebe."},
                               {"role": "user", "content": "Why?"}])
    assert plain_transcript(msgs) == ("Story: Phoebe opens a school.\n\nQuestion: Who opens a school?\n"
                                      "Answer: Phoebe.\nQuestion: Why?\nAnswer:")


def test_local_names_are_checked_without_loading_anything() -> None:
    from core.llm import local_models
    before = local_models.is_loaded("gemma3-270m")   # an earlier test in this process may have loaded it
    llm = get_llm("local:gemma3-270m")
    assert (llm.name, llm.context_window) == ("local:gemma3-270m", 32768)
    assert local_models.is_loaded("gemma3-270m") == before and f"loaded={before}" in repr(llm)

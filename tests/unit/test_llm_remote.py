"""The real openai and anthropic SDKs against a local HTTP server that speaks their protocols (tests/support).

Every scenario runs for both providers: a reply, a streamed reply, 429 then success, 5xx until the retries run
out, a timeout, malformed bodies, a refused connection, and keys that never reach an error message.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from core.llm import (LLMAuthError, LLMBadRequest, LLMBadResponse, LLMConfigError, LLMRateLimited, LLMTimeout,
                      LLMUnavailable, LLMUsage, MeteredLLM, get_llm)
from core.llm.anthropic_llm import AnthropicLLM
from core.llm.openai_llm import OpenAILLM
from tests.support.llm_server import LLMServer, Raw, Reply, Sleep, Status, refused_url

PROVIDERS = ["openai", "anthropic"]
FAST_RETRY = {"retry-after-ms": "10"}  # the SDKs honour it, so retries do not slow the suite down


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer() as s:
        yield s


@pytest.fixture(autouse=True)
def no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


Factory = Callable[..., Any]


@pytest.fixture(params=PROVIDERS)
def make(request: pytest.FixtureRequest, server: LLMServer) -> Factory:
    """make(**kw) -> an LLM of the parametrized provider pointed at the test server."""
    def build(url: str | None = None, **kw: Any) -> Any:
        kw.setdefault("timeout", 5.0)
        kw.setdefault("max_retries", 2)
        if request.param == "openai":
            return OpenAILLM("gpt-4o-mini", base_url_override=url or server.openai_url, **kw)
        return AnthropicLLM("claude-haiku-4-5", base_url_override=url or server.anthropic_url, **kw)
    build.provider = request.param  # type: ignore[attr-defined]
    return build


def test_a_reply_with_usage_and_the_request_the_server_saw(make: Factory, server: LLMServer) -> None:
    server.script(Reply("Phoebe runs a school.", input_tokens=21, output_tokens=5))
    llm = make()
    result = llm.complete([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Who?"}],
                          max_tokens=40, stop=["\n\n"])
    assert (result.text, result.input_tokens, result.output_tokens, result.finish_reason) == (
        "Phoebe runs a school.", 21, 5, "stop")
    assert result.seconds >= 0
    body = server.requests[0].body
    assert body["max_tokens"] == 40
    if make.provider == "openai":
        assert server.requests[0].path == "/v1/chat/completions"
        assert body["stop"] == ["\n\n"]
        assert body["messages"][0] == {"role": "system", "content": "Be brief."}
        assert server.requests[0].headers["authorization"] == "Bearer not-needed"  # placeholder, no real key
    else:
        assert server.requests[0].path == "/v1/messages"
        assert body["stop_sequences"] == ["\n\n"]
        assert body["system"] == "Be brief." and body["messages"] == [{"role": "user", "content": "Who?"}]


def test_length_finish_reason_is_reported(make: Factory, server: LLMServer) -> None:
    server.script(Reply("cut sho", finish="length"))
    assert make().complete("x", max_tokens=2).finish_reason == "length"


def test_a_streamed_reply_arrives_in_pieces_with_usage_at_the_end(make: Factory, server: LLMServer) -> None:
    server.script(Reply("unused", input_tokens=9, output_tokens=3, chunks=["Miss ", "Liv", "vy"]))
    stream = make().stream("Who is the invented character?")
    assert list(stream) == ["Miss ", "Liv", "vy"]
    assert stream.completion is not None
    assert (stream.completion.text, stream.completion.input_tokens, stream.completion.output_tokens) == (
        "Miss Livvy", 9, 3)
    assert server.requests[0].body["stream"] is True


def test_429_with_retry_after_then_success(make: Factory, server: LLMServer) -> None:
    server.script(Status(429, "slow down", headers={"retry-after": "0.2"}), Reply("second time lucky"))
    start = time.perf_counter()
    assert make().complete("x").text == "second time lucky"
    assert time.perf_counter() - start >= 0.2  # the SDK waited as the server asked
    assert len(server.requests) == 2


def test_429_until_retries_run_out_is_rate_limited(make: Factory, server: LLMServer) -> None:
    server.default = Status(429, headers={"retry-after": "0.01"})
    with pytest.raises(LLMRateLimited) as info:
        make(max_retries=1).complete("x")
    assert info.value.retry_after == pytest.approx(0.01)
    assert make.provider in str(info.value) and "429" in str(info.value)
    assert len(server.requests) == 2


def test_500_until_retries_run_out_gives_a_clear_error(make: Factory, server: LLMServer) -> None:
    server.default = Status(500, "model crashed", headers=FAST_RETRY)
    with pytest.raises(LLMUnavailable) as info:
        make(max_retries=2).complete("x")
    message = str(info.value)
    assert message.startswith(f"{make.provider}:")
    assert "HTTP 500" in message and "3 attempts" in message and server.url in message
    assert len(server.requests) == 3  # one try plus max_retries


def test_503_once_is_retried_transparently(make: Factory, server: LLMServer) -> None:
    server.script(Status(503, headers=FAST_RETRY), Reply("back"))
    assert make().complete("x").text == "back"


def test_a_slow_server_times_out_after_bounded_retries(make: Factory, server: LLMServer) -> None:
    server.default = Sleep(5.0)
    start = time.perf_counter()
    with pytest.raises(LLMTimeout) as info:
        make(timeout=0.3, max_retries=1).complete("x")
    assert time.perf_counter() - start < 4.0
    assert "within 0.3 s" in str(info.value) and "server is running" in str(info.value)
    assert len(server.requests) == 2


def test_per_call_timeout_option_overrides_the_client_default(make: Factory, server: LLMServer) -> None:
    server.default = Sleep(5.0)
    start = time.perf_counter()
    with pytest.raises(LLMTimeout):
        make(timeout=30, max_retries=0).complete("x", timeout=0.3)
    assert time.perf_counter() - start < 4.0


@pytest.mark.parametrize("body, content_type", [
    ('{"id": "x", "object": "chat.completion", "type": "message"}', "application/json"),  # no choices / content
    ('{"choices": [', "application/json"),                                                 # not JSON at all
    ("<html><body>502 Bad Gateway</body></html>", "text/html"),                             # a proxy's page
    ('{"choices": [{"index": 0, "message": {"role": "assistant"}}], "content": "text"}', "application/json"),
])
def test_malformed_bodies_become_bad_response_not_attribute_errors(make: Factory, server: LLMServer, body: str,
                                                                   content_type: str) -> None:
    server.script(Raw(body, content_type))
    with pytest.raises(LLMBadResponse) as info:
        make().complete("x")
    assert str(info.value).startswith(f"{make.provider}:") and "base URL" in str(info.value)


def test_a_malformed_stream_is_a_bad_response(make: Factory, server: LLMServer) -> None:
    server.script(Raw("data: {not json}\n\n", "text/event-stream"))
    with pytest.raises(LLMBadResponse):
        make().stream("x").text()


def test_a_refused_connection_says_to_check_the_url_and_server(make: Factory) -> None:
    url = refused_url()
    with pytest.raises(LLMUnavailable) as info:
        make(url=url + ("/v1" if make.provider == "openai" else ""), max_retries=1).complete("x")
    message = str(info.value)
    assert "cannot connect" in message and "127.0.0.1" in message and "server is running" in message


def test_404_names_the_model(make: Factory, server: LLMServer) -> None:
    server.script(Status(404, "model not found"))
    with pytest.raises(LLMBadRequest) as info:
        make().complete("x")
    assert "check the model name" in str(info.value)


def test_keys_never_appear_in_errors_or_repr(make: Factory, server: LLMServer,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-SECRET-abcdef123456"
    monkeypatch.setenv("OPENAI_API_KEY" if make.provider == "openai" else "ANTHROPIC_API_KEY", secret)
    llm = make()
    assert secret not in repr(llm)
    server.script(Status(401, "bad key"))
    with pytest.raises(LLMAuthError) as auth:
        llm.complete("x")
    assert "environment" in str(auth.value)  # says where the key came from...
    seen = server.requests[-1].headers["authorization"]
    assert secret in seen  # ...the key was really sent...
    server.script(Status(400, f"invalid request, you sent {seen}"))  # ...and a server that echoes it back
    with pytest.raises(LLMBadRequest) as echoed:
        llm.complete("x")
    assert secret not in str(echoed.value) and "***" in str(echoed.value)


def test_the_public_endpoint_without_a_key_is_a_config_error(make: Factory) -> None:
    url = "https://api.openai.com/v1" if make.provider == "openai" else "https://api.anthropic.com"
    with pytest.raises(LLMConfigError, match="no API key"):
        make(url=url)


def test_metering_counts_the_servers_usage(make: Factory, server: LLMServer) -> None:
    server.script(Reply("a", input_tokens=30, output_tokens=4), Reply("b", input_tokens=12, output_tokens=2))
    seen: list[LLMUsage] = []
    llm = MeteredLLM(make(), seen.append, role="summarizing", work_id=1, job_id=2)
    llm.complete("x")
    llm.stream("y").text()
    assert [(u.provider, u.input_tokens, u.output_tokens, u.job_id) for u in seen] == [
        (make.provider, 30, 4, 2), (make.provider, 12, 2, 2)]


def test_registry_takes_the_base_url_from_the_environment(server: LLMServer, monkeypatch: pytest.MonkeyPatch,
                                                          fresh_settings: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_url)
    assert get_llm("openai:meta-llama/Llama-3.1:8b").complete("x").text == Reply().text
    assert server.requests[-1].body["model"] == "meta-llama/Llama-3.1:8b"
    assert get_llm("anthropic:claude-haiku-4-5").complete("x").text == Reply().text
    assert server.requests[-1].path == "/v1/messages"


def test_fabula_setting_wins_over_the_sdk_variable(server: LLMServer, monkeypatch: pytest.MonkeyPatch,
                                                   fresh_settings: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", refused_url() + "/v1")
    monkeypatch.setenv("FABULA_OPENAI_BASE_URL", server.openai_url)
    assert get_llm("openai:local-model").complete("x").text == Reply().text

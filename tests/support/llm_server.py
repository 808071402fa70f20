"""A small threaded HTTP server on 127.0.0.1 that speaks enough of two APIs for the real SDKs to talk to it:

- OpenAI chat completions: POST /v1/chat/completions (JSON, or SSE chunks + [DONE] when "stream": true)
- Anthropic messages:      POST /v1/messages         (JSON, or the SSE event sequence when "stream": true)

Behaviour is scripted per request: `server.script(Status(429, headers={"retry-after": "0.05"}), Reply("hi"))`
answers the first request with a 429 and the second with "hi"; when the script is empty, `server.default` answers.
Every request is recorded (path, lower-cased headers, JSON body) in `server.requests`.

With `server.models = ["llama3.2:latest", ...]` it also lists models as a local server does (GET /api/tags as Ollama,
GET /v1/models as any OpenAI-compatible server), so it can stand in for Ollama or LM Studio on their ports.

    with LLMServer() as server:
        llm = OpenAILLM("gpt-4o-mini", base_url_override=server.openai_url, max_retries=2, timeout=1)
"""
from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """A normal answer. `chunks` sets how a streamed answer is split (default: word by word)."""

    text: str = "Hello from the test server."
    input_tokens: int = 11
    output_tokens: int = 6
    finish: str = "stop"  # "stop" or "length"; mapped to the protocol's own words
    chunks: list[str] | None = None


@dataclass
class Status:
    """An error status with the protocol's error body (or `body` verbatim when given)."""

    code: int
    message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None


@dataclass
class Sleep:
    """Wait `seconds` (longer than the client's timeout, usually), then behave like `then`."""

    seconds: float
    then: Any = field(default_factory=Reply)


@dataclass
class Raw:
    """Exactly this body: malformed JSON, JSON of the wrong shape, HTML, a broken SSE stream..."""

    body: str
    content_type: str = "application/json"
    code: int = 200


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class LLMServer:
    def __init__(self) -> None:
        self.default: Any = Reply()
        self.models: list[str] | None = None  # set: GET /api/tags and /v1/models list these
        self.requests: list[Recorded] = []
        self._script: deque[Any] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="llm-test-server", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    @property
    def anthropic_url(self) -> str:
        return self.url

    def script(self, *behaviours: Any) -> LLMServer:
        with self._lock:
            self._script.extend(behaviours)
        return self

    def next_behaviour(self) -> Any:
        with self._lock:
            return self._script.popleft() if self._script else self.default

    def start(self) -> LLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in Sleep
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def refused_url() -> str:
    """A 127.0.0.1 URL nothing listens on (the port was free a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# -- protocol bodies ---------------------------------------------------------------------------------------------

def _openai_body(reply: Reply, model: str) -> dict[str, Any]:
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                         "finish_reason": reply.finish}],
            "usage": {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
                      "total_tokens": reply.input_tokens + reply.output_tokens}}


def _openai_events(reply: Reply, model: str, pieces: list[str]) -> list[str]:
    def chunk(delta: dict[str, Any], finish: str | None) -> str:
        return json.dumps({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model,
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    events = [chunk({"role": "assistant", "content": ""}, None)]
    events += [chunk({"content": p}, None) for p in pieces]
    events.append(chunk({}, reply.finish))
    events.append(json.dumps({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model,
                              "choices": [], "usage": {"prompt_tokens": reply.input_tokens,
                                                       "completion_tokens": reply.output_tokens,
                                                       "total_tokens": reply.input_tokens + reply.output_tokens}}))
    return [f"data: {e}\n\n" for e in events] + ["data: [DONE]\n\n"]


def _anthropic_stop(finish: str) -> str:
    return "max_tokens" if finish == "length" else "end_turn"


def _anthropic_body(reply: Reply, model: str) -> dict[str, Any]:
    return {"id": "msg_test", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": reply.text}], "stop_reason": _anthropic_stop(reply.finish),
            "stop_sequence": None, "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens}}


def _anthropic_events(reply: Reply, model: str, pieces: list[str]) -> list[str]:
    def event(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"
    start = {"id": "msg_test", "type": "message", "role": "assistant", "model": model, "content": [],
             "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": reply.input_tokens,
                                                                   "output_tokens": 1}}
    out = [event("message_start", {"message": start}),
           event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
           event("ping", {})]
    out += [event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": p}}) for p in pieces]
    out += [event("content_block_stop", {"index": 0}),
            event("message_delta", {"delta": {"stop_reason": _anthropic_stop(reply.finish), "stop_sequence": None},
                                    "usage": {"output_tokens": reply.output_tokens}}),
            event("message_stop", {})]
    return out


def _error_body(status: Status, anthropic: bool) -> Any:
    if status.body is not None:
        return status.body
    if anthropic:
        kind = {429: "rate_limit_error", 401: "authentication_error", 404: "not_found_error"}.get(status.code,
                                                                                                 "api_error")
        return {"type": "error", "error": {"type": kind, "message": status.message}}
    return {"error": {"message": status.message, "type": "test_error", "code": status.code}}


def _make_handler(server: LLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:  # noqa: N802 - the model lists of Ollama (/api/tags) and OpenAI (/v1/models)
            server.requests.append(Recorded("GET", self.path, {k.lower(): v for k, v in self.headers.items()}, None))
            path = self.path.split("?", 1)[0].rstrip("/")
            if server.models is None or path not in ("/api/tags", "/v1/models"):
                return self._send(404, {"error": f"no route {self.path}"})
            if path == "/api/tags":
                return self._send(200, {"models": [{"name": m, "model": m, "size": 1,
                                                    "details": {"family": "bert" if "embed" in m else "llama"}}
                                                   for m in server.models]})
            return self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "test"}
                                                               for m in server.models]})

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except json.JSONDecodeError:
                body = raw.decode("utf-8", "replace")
            server.requests.append(Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            anthropic = self.path.rstrip("/").endswith("/messages")
            if not anthropic and not self.path.rstrip("/").endswith("/chat/completions"):
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            try:
                self._behave(server.next_behaviour(), body if isinstance(body, dict) else {}, anthropic)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to answer

        def _behave(self, behaviour: Any, body: dict[str, Any], anthropic: bool) -> None:
            if isinstance(behaviour, Sleep):
                if server._stopping.wait(behaviour.seconds):
                    return
                behaviour = behaviour.then
            model = str(body.get("model", "test-model"))
            if isinstance(behaviour, Status):
                return self._send(behaviour.code, _error_body(behaviour, anthropic), behaviour.headers)
            if isinstance(behaviour, Raw):
                return self._send_raw(behaviour.code, behaviour.body.encode(), behaviour.content_type)
            reply: Reply = behaviour
            if body.get("stream"):
                pieces = reply.chunks if reply.chunks is not None else [w for w in _split_words(reply.text)]
                events = (_anthropic_events if anthropic else _openai_events)(reply, model, pieces)
                return self._send_raw(200, "".join(events).encode(), "text/event-stream")
            return self._send(200, (_anthropic_body if anthropic else _openai_body)(reply, model))

        def _send(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            self._send_raw(code, json.dumps(payload).encode(), "application/json", headers)

        def _send_raw(self, code: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(code)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            self.send_header("connection", "close")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            self.close_connection = True

    return Handler


def _split_words(text: str) -> list[str]:
    words = text.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]

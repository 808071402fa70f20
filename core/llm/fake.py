"""A scripted LLM for tests: queued replies (or a function), a call history, whitespace token counting.

    llm = FakeLLM(["first reply", LLMTimeout("scripted"), "third reply"])
    llm.complete("hi").text          -> "first reply"
    llm.complete("again")            -> raises the scripted LLMTimeout
    llm.calls[0].messages[0].content -> "hi"

With no script it echoes the last user message. It honours `stop` and `max_tokens` like a real model (tokens are
whitespace-separated words), so code that relies on those behaves the same against it.
"""
from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any

from core.llm.base import (CHAT_API, Completion, FinishReason, GenerationOptions, Message, MessagesIn, StopScanner,
                           Stopwatch, TextStream, normalize_messages, truncate_at_stop)
from core.llm.errors import LLMError

Reply = str | BaseException
ReplyFunction = Callable[[list[Message], GenerationOptions], str]
_TOKEN = re.compile(r"\S+\s*|\s+")


@dataclass
class FakeCall:
    messages: list[Message]
    options: GenerationOptions
    streamed: bool

    @property
    def prompt(self) -> str:
        """All message contents joined, handy for `assert "chapter 3" in call.prompt`."""
        return "\n".join(m.content for m in self.messages)


class FakeLLM:
    provider = "fake"
    abilities = CHAT_API  # a test that fakes a local model subclasses this and declares more

    def __init__(self, replies: Iterable[Reply] | ReplyFunction | None = None, *, model: str = "test",
                 context_window: int = 4096, repeat_last: bool = False) -> None:
        self.model_name = model
        self.name = f"fake:{model}"
        self.context_window = context_window
        self.repeat_last = repeat_last
        self.calls: list[FakeCall] = []
        self._function: ReplyFunction | None = None
        self._queue: deque[Reply] = deque()
        self._last: Reply | None = None
        self._echo = replies is None  # no script at all: echo the last user message
        if callable(replies):
            self._function = replies
        elif replies is not None:
            if isinstance(replies, str):
                replies = [replies]
            self._queue.extend(replies)

    def __repr__(self) -> str:
        return f"FakeLLM(name={self.name!r}, queued={len(self._queue)}, calls={len(self.calls)})"

    def queue(self, *replies: Reply) -> FakeLLM:
        """Append more scripted replies (strings or exceptions to raise)."""
        self._queue.extend(replies)
        return self

    @property
    def remaining(self) -> int:
        return len(self._queue)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _next_reply(self, messages: list[Message], options: GenerationOptions) -> str:
        if self._function is not None:
            reply: Reply = self._function(messages, options)
        elif self._queue:
            reply = self._queue.popleft()
            self._last = reply
        elif self.repeat_last and self._last is not None:
            reply = self._last
        elif self._echo:
            reply = next(m.content for m in reversed(messages) if m.role == "user")
        else:
            raise LLMError("FakeLLM: no scripted replies left", provider="fake")
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def _shape(self, text: str, options: GenerationOptions) -> tuple[str, FinishReason, int]:
        """Apply stop strings and max_tokens; return (text, finish_reason, output tokens)."""
        text, stopped = truncate_at_stop(text, options.stop)
        pieces = _TOKEN.findall(text)
        words = [p for p in pieces if p.strip()]
        if len(words) > options.max_tokens:
            kept, n = [], 0
            for p in pieces:
                if p.strip():
                    if n == options.max_tokens:
                        break
                    n += 1
                kept.append(p)
            return "".join(kept).rstrip(), "length", options.max_tokens
        return text, "stop", len(words)

    def complete(self, messages: MessagesIn, options: GenerationOptions | None = None,
                 **overrides: Any) -> Completion:
        watch = Stopwatch()
        msgs, opts = normalize_messages(messages), GenerationOptions.build(options, **overrides)
        self.calls.append(FakeCall(msgs, opts, streamed=False))
        text, finish, out_tokens = self._shape(self._next_reply(msgs, opts), opts)
        prompt_tokens = sum(self.count_tokens(m.content) for m in msgs)
        return Completion(text, prompt_tokens, out_tokens, watch.elapsed(), finish, self.model_name)

    def stream(self, messages: MessagesIn, options: GenerationOptions | None = None,
               **overrides: Any) -> TextStream:
        msgs, opts = normalize_messages(messages), GenerationOptions.build(options, **overrides)
        self.calls.append(FakeCall(msgs, opts, streamed=True))

        def pieces() -> Generator[str, None, Completion]:
            watch = Stopwatch()
            text, finish, out_tokens = self._shape(self._next_reply(msgs, opts), opts)
            scanner = StopScanner(opts.stop)
            for piece in _TOKEN.findall(text):
                if out := scanner.feed(piece):
                    yield out
            if tail := scanner.flush():
                yield tail
            prompt_tokens = sum(self.count_tokens(m.content) for m in msgs)
            return Completion(text, prompt_tokens, out_tokens, watch.elapsed(), finish, self.model_name)

        return TextStream(pieces(), self.name)

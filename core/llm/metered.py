"""Usage accounting as a thin wrapper: every finished call reports its tokens and time to a sink.

    llm = MeteredLLM(get_llm("openai:gpt-4o-mini"), sink, role="extraction", work_id=3, job_id=12)

Services pass a sink that writes `store.record_llm_usage(**usage.as_record())`. Everything else (model, tokenizer,
logprob, ... on a local model) passes straight through to the wrapped LLM, so a metered LLM can go wherever an LLM
goes. A failing sink is logged and never fails the call: the text was paid for and is worth keeping.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Generic, TypeVar, cast

from core.llm.base import LLM, Abilities, Completion, GenerationOptions, MessagesIn, TextStream

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class LLMUsage:
    provider: str
    model: str
    input_tokens: int
    output_tokens: int
    seconds: float
    role: str = ""
    work_id: int | None = None
    job_id: int | None = None

    def as_record(self) -> dict[str, Any]:
        """Keyword arguments for Store.record_llm_usage."""
        return asdict(self)


UsageSink = Callable[[LLMUsage], None]


@dataclass
class UsageTotals:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0


class _Inner(Generic[T]):
    """A read-only attribute that is the wrapped LLM's attribute of the same name."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attr = name

    def __get__(self, obj: Any, owner: type | None = None) -> T:
        return cast(T, getattr(obj.inner, self.attr))


class MeteredLLM:
    def __init__(self, llm: LLM, sink: UsageSink | None = None, *, role: str = "", work_id: int | None = None,
                 job_id: int | None = None) -> None:
        self.inner = llm
        self.sink = sink
        self.role, self.work_id, self.job_id = role, work_id, job_id
        self.totals = UsageTotals()  # what this wrapper has seen, for an "afterwards" tally without a query
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:  # only called for names not found on the wrapper
        attr = getattr(self.inner, name)
        if name == "generate_text":  # local raw-text generation is metered too (kept out of the class so that
            def metered(*args: Any, **kwargs: Any) -> Completion:  # hasattr() stays true only where it exists)
                result = attr(*args, **kwargs)
                self._record(result)
                return result
            return metered
        return attr

    def __repr__(self) -> str:
        return f"MeteredLLM({self.inner!r}, role={self.role!r}, work_id={self.work_id}, job_id={self.job_id})"

    # Declared (not left to __getattr__) so that type checkers see a MeteredLLM as an LLM.
    name: _Inner[str] = _Inner()
    provider: _Inner[str] = _Inner()
    model_name: _Inner[str] = _Inner()
    context_window: _Inner[int] = _Inner()
    abilities: _Inner[Abilities] = _Inner()

    def with_context(self, *, role: str | None = None, work_id: int | None = None,
                     job_id: int | None = None) -> MeteredLLM:
        """The same LLM and sink, recording under another role / work / job."""
        return MeteredLLM(self.inner, self.sink, role=self.role if role is None else role,
                          work_id=self.work_id if work_id is None else work_id,
                          job_id=self.job_id if job_id is None else job_id)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def complete(self, messages: MessagesIn, options: GenerationOptions | None = None,
                 **overrides: Any) -> Completion:
        result = self.inner.complete(messages, options, **overrides)
        self._record(result)
        return result

    def stream(self, messages: MessagesIn, options: GenerationOptions | None = None,
               **overrides: Any) -> TextStream:
        return self.meter(self.inner.stream(messages, options, **overrides))

    def meter(self, stream: TextStream) -> TextStream:
        """Record `stream`'s usage when it ends, unless a metering wrapper already does: for generation that drives
        the model itself (KID's decoding loop) rather than calling stream()."""
        if not stream.metered:
            stream.metered = True
            stream.on_done(self._record)
        return stream

    def _record(self, result: Completion) -> None:
        usage = LLMUsage(self.inner.provider, self.inner.model_name, result.input_tokens, result.output_tokens,
                         result.seconds, self.role, self.work_id, self.job_id)
        with self._lock:
            self.totals.calls += 1
            self.totals.input_tokens += result.input_tokens
            self.totals.output_tokens += result.output_tokens
            self.totals.seconds += result.seconds
        if self.sink is None:
            return
        try:
            self.sink(usage)
        except Exception:  # noqa: BLE001 - accounting must not lose a finished (and paid-for) reply
            log.warning("could not record LLM usage for %s", self.inner.name, exc_info=True)

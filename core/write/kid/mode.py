"""The "kid" continuation mode: the text before the cursor is continued as raw text by the KID loop, steered by the
work's facts most similar to the end of the text (SBERT cosine, as KID retrieves its documents).

`KidMode(params)` carries its KidParams; the registered instance uses the defaults and `configured(ContinueParams)`
gives the one a call asks for (continuation_service.continue_work, the app's one door). `run()` gives the text with the
`boosted` record of every token whose probability KID raised; `generate()` streams the same loop as a KidStream (its
steps so far give a job's progress; `stop()` ends it at the next word) whose completion (a KidCompletion) keeps every
step.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from core.llm.base import LLM, Completion, Stopwatch, TextStream, local_access
from core.textfit import fit_end
from core.write.kid.params import KidParams, Step, boosted_records
from core.write.kid.memory import EntityMemory, entities_in
from core.write.kid.trie import KnowledgeTrie
from core.write.modes import (ContinuationMode, ContinuationRequest, FactPool, PreparedPrompt, _default_embed,
                              split_last_paragraph, top_facts)
from core.write.params import ContinueParams, DecodeParams

_LEADING_NAME = re.compile(r"^((?:[A-Z][\w'\u2019-]*\s+)*[A-Z][\w'\u2019-]*)\s+(.+)$")


def triple_from_text(text: str) -> tuple[str, str, str]:
    """(subject, rest, "") of a verbalized fact: its leading run of capitalized words is the subject ("Mr Darcy
    loves Elizabeth." -> ("Mr Darcy", "loves Elizabeth", "")); without one, its first word."""
    text = text.strip().rstrip(".!?")
    match = _LEADING_NAME.match(text)
    if match:
        return match.group(1), match.group(2), ""
    head, _, rest = text.partition(" ")
    return head, rest, ""


@dataclass
class KidCompletion(Completion):
    boosted: list[dict[str, Any]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)


@dataclass
class KidRun:
    text: str
    boosted: list[dict[str, Any]]
    steps: list[Step]
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return len(self.steps) / self.seconds if self.seconds > 0 else 0.0


class KidMode(ContinuationMode):
    name = "kid"
    description = "Knowledge Infused Decoding: the graph's facts steer every token (local model only)."
    needs_graph = True

    def __init__(self, params: KidParams | None = None) -> None:
        self.params = params or KidParams()

    def configured(self, params: ContinueParams) -> KidMode:
        return self if params.kid is None or params.kid == self.params else KidMode(params.kid)

    def prepare(self, request: ContinuationRequest) -> PreparedPrompt:
        """The plain prompt, and the top facts by similarity to the last paragraph (the trie's knowledge)."""
        prompt = fit_end(request.text, request.params.budget_tokens, request.count_tokens)
        pool = request.facts() if request.facts else FactPool()
        _, last = split_last_paragraph(request.text)
        facts = top_facts(pool, last, self.params.facts, request.embed or _default_embed)
        notes = [] if pool.texts else ["The work has no graph facts yet: KID decodes like plain sampling."]
        return PreparedPrompt(prompt, facts, notes, [pool.triple(f["text"]) for f in facts])

    def params_for(self, decode: DecodeParams | None) -> KidParams:
        if decode is None:
            return self.params
        from dataclasses import replace
        return replace(self.params, max_tokens=decode.max_tokens,
                       seed=self.params.seed if self.params.seed is not None else decode.seed)

    def steps(self, llm: LLM, prepared: PreparedPrompt, params: KidParams,
              should_stop: Callable[[], bool] | None = None) -> Generator[Step, None, None]:
        """The KID loop on `llm`'s model for this prompt: trie from the prepared facts (their triples where known),
        memory from the prompt; `should_stop()` ends it before the next word. The "logits" variant reads the fast
        runtime (OpenVINO or llama.cpp) when one serves `llm`, else the transformers model; the "kv" variant always
        reads the transformers model (it needs gradients through the key/value cache)."""
        if not llm.abilities.logits:
            raise ValueError("KID needs a local model with logits access (e.g. local:smollm2).")
        model = local_access(llm)
        known = prepared.triples if len(prepared.triples) == len(prepared.facts) else [None] * len(prepared.facts)
        trie = KnowledgeTrie.build(triple or triple_from_text(f["text"]) for f, triple in zip(prepared.facts, known))
        memory = EntityMemory(params.hops)
        memory.extend(entities_in(prepared.prompt, trie))
        from core.write.kid.decode import FastStepper, kid_decode  # torch is imported only when KID runs
        tok = model.tokenizer  # on the fast runtime, the tokenizer alone (the float32 weights are never loaded)
        ids = list(tok(prepared.prompt, add_special_tokens=True)["input_ids"])
        fast = getattr(model, "fast_next_logits", None) if params.variant == "logits" else None
        first = fast(ids) if fast is not None else None  # None where transformers serves
        stepper: Any = FastStepper(fast, first) if fast is not None and first is not None else model.model
        # the stop ids the fast runtimes use (end of text and chat-turn ends), from the tokenizer alone
        yield from kid_decode(stepper, tok, ids, params, trie, memory, stop_ids=stop_ids(tok),
                              should_stop=should_stop)

    def run(self, llm: LLM, prepared: PreparedPrompt, decode: DecodeParams | None = None) -> KidRun:
        watch = Stopwatch()
        steps = list(self.steps(llm, prepared, self.params_for(decode)))
        text = "".join(s.piece for s in steps)
        return KidRun(text, boosted_records(steps), steps, watch.elapsed())

    def generate(self, llm: LLM, prepared: PreparedPrompt, decode: DecodeParams) -> KidStream:
        params = self.params_for(decode)

        def pieces() -> Generator[str, None, Completion]:  # runs from the first next(): `stream` is bound by then
            watch = Stopwatch()
            for step in self.steps(llm, prepared, params, should_stop=lambda: stream.stop_requested):
                stream.steps.append(step)
                if step.piece:
                    yield step.piece
            steps = stream.steps
            text = "".join(s.piece for s in steps)
            return KidCompletion(text, 0, len(steps), watch.elapsed(), "length" if len(steps) >= params.max_tokens
                                 else "stop", llm.name, boosted_records(steps), steps)

        stream = KidStream(pieces(), llm.name)
        return stream


@functools.lru_cache(maxsize=8)
def stop_ids(tokenizer: Any) -> list[int]:
    """KID's stop ids: those the fast runtimes stop on (the end token and the chat-turn ends), from the tokenizer
    alone, without loading the transformers weights for their generation config; once per tokenizer (reading
    Gemma's 262k vocabulary takes half a second)."""
    from core.llm.decoding import end_ids
    return sorted(end_ids(tokenizer))


class KidStream(TextStream):
    """KID's TextStream: `steps` so far (one per token: progress, and the overlay of a stopped run), and `stop()`,
    after which the loop ends at the next word boundary and the stream completes as usual (metered, steps kept)."""

    def __init__(self, pieces: Generator[str, None, Completion], name: str = "") -> None:
        super().__init__(pieces, name)
        self.steps: list[Step] = []
        self.stop_requested = False

    def stop(self) -> None:
        self.stop_requested = True

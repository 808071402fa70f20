"""Continuing any work (book or story) from a point in its text, in any mode of core.write.modes, and saving a
continuation as a new revision of the chapter; split from write_service (stories) by feature.

    out = continue_work(store, work_id, ContinueParams(mode="kg-prompt"), llm)   # a Continuation: text, facts, ...
    out = continue_work(store, work_id, ContinueParams(mode="kid", kid=KidParams(seed=3)), local_llm)  # + out.steps
    save_continuation(store, work_id, chapter, kept_text, out.text, revision)    # a new revision; the old one kept
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.domain import Chapter
from core.ingest import chunk_text
from core.llm import LLM, Completion, MeteredLLM, TextStream
from core.services.kg_query import facts_for_retrieval
from core.services.qa_corpus import embed_cached
from core.services.write_service import PieceFn, TokensFn, WriteError, story_graph
from core.store import Store
from core.write.context import kg_block
from core.write.kid import KidCompletion, KidStream, Step, boosted_records
from core.write.kid.overlay import overlay_html, token_dicts
from core.write.modes import ContinuationRequest, FactPool, get_mode, verbalize
from core.write.params import ContinueParams
from core.write.tidy import tidy_generated

CONTEXT_WORDS = 3000  # how much of a work's end a continuation reads before the mode fits it to the budget


@dataclass
class Continuation:
    """A continuation, of any mode. `steps`: KID's decoding steps, every token with what KID did to its probability
    (empty for the other modes); `tokens_per_second`: the generation's own rate, as the provider measured it."""

    text: str
    mode: str
    facts: list[dict[str, Any]]
    prompt: str
    seconds: float
    notes: list[str]
    tokens_per_second: float = 0.0
    steps: list[Step] = field(default_factory=list)
    stopped: bool = False   # Stop was pressed: the text is what came before it
    talk_only: bool = False  # the model wrote about the text rather than continuing it (core.metatalk)

    @property
    def boosted(self) -> list[dict[str, Any]]:
        """The tokens whose probability KID raised, each with the fact behind it."""
        return boosted_records(self.steps)

    def overlay(self) -> str:
        """KID's text as escaped HTML, the tokens it raised highlighted with their fact; "" for the other modes."""
        return overlay_html(token_dicts(self.steps)) if self.steps else ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON view (the CLI's output): the steps as KID's boosted records."""
        data = {k: v for k, v in self.__dict__.items() if k != "steps"}
        return data | ({"boosted": self.boosted} if self.steps else {})


def fact_pool(store: Store, work_id: int, upto_chapter: int | None) -> FactPool:
    """The work's facts up to a chapter, verbalized, with their triples (KID's trie) and their vectors from the
    store's embedding cache (a book's thousands of facts are embedded once, not at every continuation: 40 s on a busy
    machine for The Call of the Wild)."""
    triples: dict[str, tuple[str, str, str]] = {}
    for f in facts_for_retrieval(store, work_id, upto_chapter):
        if text := verbalize(f.subject, f.relation, f.object):
            triples.setdefault(text, (f.subject, f.relation, f.object))
    texts = list(triples)
    return FactPool(texts, embed_cached(store, texts) if texts else None, list(triples.values()))


def work_tail(store: Store, work_id: int, upto_chapter: int | None = None, words: int = CONTEXT_WORDS) -> str:
    """The last `words` words of the work up to a chapter, paragraphs kept."""
    parts: list[str] = []
    count = 0
    for c in reversed(store.list_chapters(work_id)):
        if upto_chapter is not None and c.index > upto_chapter:
            continue
        parts.insert(0, store.get_chapter(work_id, c.index).text.strip())
        count += c.word_count
        if count >= words:
            break
    return "\n\n".join(parts)


def continue_work(store: Store, work_id: int, params: ContinueParams, llm: LLM, *, text: str | None = None,
                  chapter: int | None = None, on_piece: PieceFn | None = None, on_tokens: TokensFn | None = None,
                  should_stop: Callable[[], bool] | None = None) -> Continuation:
    """Continue `text` (default: the end of the work up to `chapter`, default its last) with a mode from the registry,
    set up with `params` (KID with `params.kid`). The facts and the graph block are the work's up to that chapter.
    `on_tokens` hears the progress after each piece; `should_stop()`, asked as often, ends the generation early (KID:
    at the next word) and the Continuation keeps what came, `stopped` set (the background job's Stop)."""
    started = time.perf_counter()
    mode = get_mode(params.mode).configured(params)
    chapters = store.list_chapters(work_id)
    upto = chapter or (chapters[-1].index if chapters else 0)
    source = text if text is not None else work_tail(store, work_id, upto)
    if not source.strip():
        raise WriteError("There is no text to continue: write something first.")
    request = ContinuationRequest(source, params, llm.count_tokens, facts=lambda: fact_pool(store, work_id, upto),
                                  kg_block=lambda: kg_block(story_graph(store, work_id, upto), upto + 1))
    prepared = mode.prepare(request)
    stream = mode.generate(llm, prepared, params.decode())
    if isinstance(llm, MeteredLLM):  # KID drives the model itself, past stream(): its usage is recorded here, once
        llm.meter(stream)
    done, stopped = _drain_until(stream, on_piece, on_tokens, should_stop, params.tokens)
    rate = done.output_tokens / done.seconds if done and done.seconds > 0 else 0.0
    text, steps = (done.text if done else ""), (done.steps if isinstance(done, KidCompletion) else [])
    tidy = tidy_generated(text.strip(), keep_start=bool(steps),
                          at_limit=done is not None and done.finish_reason == "length" and not stopped)
    return Continuation(tidy.text, mode.name, prepared.facts, prepared.prompt,
                        round(time.perf_counter() - started, 3), prepared.notes + tidy.notes, round(rate, 2),
                        steps_within(steps, text, tidy.kept) if tidy.kept != text.strip() else steps, stopped,
                        tidy.talk_only)


def _drain_until(stream: TextStream, on_piece: PieceFn | None, on_tokens: TokensFn | None,
                 should_stop: Callable[[], bool] | None, asked: int) -> tuple[Completion | None, bool]:
    """`_drain` with progress and a stop: (completion, stopped). A KidStream asked to stop ends at its next word and
    completes as usual (metered, its steps kept); another stream is closed and what came is its completion."""
    pieces: list[str] = []
    stopped = False
    for piece in stream:
        pieces.append(piece)
        if on_piece:
            on_piece(piece)
        if on_tokens:
            on_tokens(len(stream.steps) if isinstance(stream, KidStream) else len(pieces), asked, "".join(pieces))
        if not stopped and should_stop is not None and should_stop():
            stopped = True
            if not isinstance(stream, KidStream):
                stream.close()
                return Completion("".join(pieces), 0, len(pieces), 0.0, "stop", stream.name), True
            stream.stop()
    return stream.completion, stopped


def steps_within(steps: list[Step], text: str, kept: str) -> list[Step]:
    """KID's steps that wrote `kept`, the start of `text` (stripped) left after a loop was cut: the overlay then
    shows the text the page presents, not the loop."""
    end = len(text) - len(text.lstrip()) + len(kept)
    out, at = [], 0
    for step in steps:
        if at >= end:
            break
        out.append(step)
        at += len(step.piece)
    return out


def partial_continuation(text: str, mode: str) -> Continuation:
    """What a continuation stopped before its end (or cut off by an error) leaves to show and save: its text with
    a loop cut as a finished one's is."""
    tidy = tidy_generated(text.strip())
    return Continuation(tidy.text, mode, [], "(generation stopped before the end)", 0.0, tidy.notes,
                        talk_only=tidy.talk_only)


def save_continuation(store: Store, work_id: int, chapter: int, kept: str, continuation: str,
                      expected_revision: int) -> Chapter:
    """A new revision: the user's text as kept, then the continuation. The previous revision stays in the history;
    StaleRevision if the chapter changed since it was opened (nothing is saved then)."""
    kept = kept.rstrip()
    if not continuation.strip():
        raise WriteError("The continuation is empty: nothing to save.")
    text = f"{kept}{' ' if kept and not kept.endswith(chr(10)) else ''}{continuation.strip()}"
    return store.update_chapter(work_id, chapter, text, chunk_text(text), expected_revision)

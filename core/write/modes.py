"""Continuation modes: how the prompt for "continue this text" is built, and how the continuation is generated.

    mode = get_mode("kg-prompt")
    prepared = mode.prepare(request)                  # prompt text + the facts used
    stream = mode.generate(llm, prepared, decode)     # a TextStream (iterate for pieces; .completion at the end)

plain: the text before the cursor, its end kept within the budget.
kg-prompt: Andrus et al.'s story completion: the top-k facts by SBERT cosine to the last paragraph, verbalized,
inserted before the last paragraph; the earlier text is cut at its start so everything fits the budget.
kg-block: the Remember Me context block, then the text before the cursor.
A new mode (Knowledge Infused Decoding) subclasses ContinuationMode, overrides `generate` to steer decoding token by
token with `prepared.facts`, and calls `register_mode(KidMode())`; pages and the CLI list modes from the registry.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.llm.base import LLM, GenerationOptions, TextStream, local_access
from core.retrieval import rank_by_similarity
from core.textfit import fit_end, keep_end
from core.write.params import ContinueParams, DecodeParams
from core.write.prompts import CONTINUE_SYSTEM, CONTINUE_USER

Embed = Callable[[Sequence[str]], np.ndarray]
_PARAGRAPHS = re.compile(r"\n[ \t]*\n\s*")
RAW_MIN_TOKENS = 16  # a raw continuation has at least this many tokens (or all it was asked for, if fewer)


@dataclass
class FactPool:
    """Verbalized facts a continuation may use (in reading order), with their unit embeddings when known and, when
    known, the (subject, relation, object) each was verbalized from (KID keys its trie by the subject)."""

    texts: list[str] = field(default_factory=list)
    vectors: np.ndarray | None = None
    triples: list[tuple[str, str, str]] | None = None

    def triple(self, text: str) -> tuple[str, str, str] | None:
        """The triple `text` was verbalized from, None when the pool does not know it."""
        if self.triples is None:
            return None
        try:
            return self.triples[self.texts.index(text)]
        except (ValueError, IndexError):
            return None


@dataclass
class ContinuationRequest:
    """Everything a mode may read. `facts` and `kg_block` are loaded lazily: plain mode never touches the graph."""

    text: str
    params: ContinueParams
    count_tokens: Callable[[str], int]
    facts: Callable[[], FactPool] | None = None
    kg_block: Callable[[], str] | None = None
    embed: Embed | None = None


@dataclass
class PreparedPrompt:
    prompt: str
    facts: list[dict[str, Any]] = field(default_factory=list)   # {"text", "score"} of what was inserted
    notes: list[str] = field(default_factory=list)
    triples: list[tuple[str, str, str] | None] = field(default_factory=list)  # KID: each fact's triple, if known


def raw_prompt(prompt: str) -> str:
    """The text a raw continuation starts from: the prompt, then a new paragraph."""
    return prompt.rstrip() + "\n\n"


def continue_messages(prompt: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": CONTINUE_SYSTEM}, {"role": "user", "content": CONTINUE_USER.format(
        prompt=prompt)}]


class ContinuationMode:
    name = "base"
    description = ""
    needs_graph = False

    def prepare(self, request: ContinuationRequest) -> PreparedPrompt:  # pragma: no cover - abstract
        raise NotImplementedError

    def configured(self, params: ContinueParams) -> ContinuationMode:
        """This mode set up with one call's own settings (KID reads `params.kid`); most modes have none."""
        return self

    def generate(self, llm: LLM, prepared: PreparedPrompt, decode: DecodeParams) -> TextStream:
        """A TextStream of the continuation. A model with raw text access (the embedded ones) continues the prompt
        itself, from a new paragraph, as Andrus et al.'s completion does; any other is asked through its chat
        interface. Asked in a chat, the small models answer as an assistant talking about the text about half the
        time, and predict the book's own next paragraph less well (bench/write.py, framing)."""
        if llm.abilities.raw_text:  # an end of text before RAW_MIN_TOKENS becomes a new paragraph: never empty
            options = GenerationOptions.build(decode.options(), min_tokens=min(RAW_MIN_TOKENS, decode.max_tokens))
            return local_access(llm).stream_text(raw_prompt(prepared.prompt), options)
        return llm.stream(continue_messages(prepared.prompt), decode.options())


def split_last_paragraph(text: str) -> tuple[str, str]:
    """(everything before the last paragraph, the last paragraph)."""
    parts = _PARAGRAPHS.split(text.strip())
    return "\n\n".join(parts[:-1]), parts[-1] if parts else ""


def verbalize(subject: str, relation: str, obj: str) -> str:
    """A triple as a sentence by concatenation ("in many cases ... adequate", Andrus et al.): "Head relation tail."."""
    text = " ".join(" ".join(p.split()) for p in (subject, relation, obj) if p and p.strip())
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


class PlainMode(ContinuationMode):
    name = "plain"
    description = "The text before the cursor only (no graph)."

    def prepare(self, request: ContinuationRequest) -> PreparedPrompt:
        return PreparedPrompt(fit_end(request.text, request.params.budget_tokens, request.count_tokens))


def top_facts(pool: FactPool, query: str, k: int, embed: Embed) -> list[dict[str, Any]]:
    """The k facts nearest `query` by cosine of SBERT embeddings, best first."""
    if not pool.texts or k < 1 or not query.strip():
        return []
    vectors = pool.vectors if pool.vectors is not None else embed(pool.texts)
    ranked = rank_by_similarity(embed([query])[0], vectors, k)
    return [{"text": pool.texts[r.index], "score": round(r.score, 4)} for r in ranked]


def andrus_prompt(before: str, last: str, facts: Sequence[str], budget: int, count: Callable[[str], int]) -> str:
    """`before` + facts + `last`, with `before` cut at its start (and facts dropped from the end, then `last` cut
    at its start, only if they alone overflow) so the whole prompt fits `budget` tokens."""
    facts = list(facts)

    def assemble(head: str, fs: Sequence[str], tail: str) -> str:
        return "\n\n".join(p for p in (head, " ".join(fs), tail) if p)

    while facts and count(assemble("", facts, last)) > budget:
        facts.pop()
    if count(assemble("", facts, last)) > budget:
        return fit_end(last, budget, count)
    if count(assemble(before, facts, last)) <= budget:
        return assemble(before, facts, last)
    head = keep_end(before, lambda s: count(assemble(s, facts, last)) <= budget)
    return assemble(head, facts, last)


class KgPromptMode(ContinuationMode):
    name = "kg-prompt"
    description = "Andrus et al.: the top facts by SBERT similarity to the last paragraph, inserted before it."
    needs_graph = True

    def prepare(self, request: ContinuationRequest) -> PreparedPrompt:
        before, last = split_last_paragraph(request.text)
        pool = request.facts() if request.facts else FactPool()
        embed = request.embed or _default_embed
        facts = top_facts(pool, last, request.params.facts, embed)
        prompt = andrus_prompt(before, last, [f["text"] for f in facts], request.params.budget_tokens,
                               request.count_tokens)
        used = [f for f in facts if f["text"] in prompt]
        notes = [] if pool.texts else ["The work has no graph facts yet: the prompt is the plain one."]
        return PreparedPrompt(prompt, used, notes)


class KgBlockMode(ContinuationMode):
    name = "kg-block"
    description = "The Remember Me context block (foundational, milestone and recent chapters; cumulative cast)."
    needs_graph = True

    def prepare(self, request: ContinuationRequest) -> PreparedPrompt:
        block = request.kg_block() if request.kg_block else ""
        budget, count = request.params.budget_tokens, request.count_tokens
        if block and count(block) > budget // 2:
            block = keep_end(block, lambda s: count(s) <= budget // 2)  # the story text keeps at least half
        room = budget - (count(block) + 2 if block else 0)
        text = fit_end(request.text, room, count)
        notes = [] if block else ["The work has no graph yet: the prompt is the plain one."]
        return PreparedPrompt("\n\n".join(p for p in (block, text) if p), [], notes)


def _default_embed(texts: Sequence[str]) -> np.ndarray:
    from core.nlp import embed
    return embed(texts)


_modes: dict[str, ContinuationMode] = {}


def register_mode(mode: ContinuationMode) -> None:
    """Make `mode` selectable by its name everywhere (re-registering a name replaces it)."""
    _modes[mode.name] = mode


def get_mode(name: str) -> ContinuationMode:
    try:
        return _modes[name]
    except KeyError:
        raise ValueError(f"Unknown continuation mode '{name}'; choose one of {', '.join(_modes)}.") from None


def mode_names() -> list[str]:
    return list(_modes)


for _mode in (PlainMode(), KgPromptMode(), KgBlockMode()):
    register_mode(_mode)

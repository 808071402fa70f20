"""Turning a KG triple into a sentence: Andrus et al.'s few-shot prompt (Figure 2) with an LLM, or a template.

The template is the fallback the paper mentions ("in many cases even simple concatenation of fact constituents
produces adequate verbalizations"): "head relation tail." with a capital letter. The LLM's reply is used only when it
looks like a verbalization of that fact: one line, not much longer than the fact, keeping the first content word of
its head and the last of its tail, and borrowing no content word from the few-shot examples (a small model readily turns
"Alice caught the baby" into "The baby was caught by the knight"). Anything else, and any LLM error, falls back to
the template, so kg mode never fails or misleads because a small model rambled.
"""
from __future__ import annotations

import re
import time

from core.llm.base import LLM, local_access
from core.qa.corpus import FactRecord
from core.qa.prompts import VERBALIZE_FEW_SHOT, VERBALIZE_MAX_TOKENS

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset({"the", "a", "an", "of", "to", "in", "on", "and", "is", "was", "be", "by", "for", "at"})


def template_verbalize(fact: FactRecord) -> str:
    """"head relation tail." with the first letter capitalised."""
    text = " ".join(" ".join(p.split()) for p in (fact.subject, fact.relation, fact.object) if p.strip())
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


# The nouns of the few-shot examples: a reply using one that the fact lacks copied the examples, not the fact.
_EXAMPLE_WORDS = frozenset({"market", "rowling", "harry", "potter", "slc", "airport", "salt", "lake", "city", "knight",
                            "dragon"})


def accept_verbalization(reply: str, fact: FactRecord) -> str | None:
    """The reply's first line when it is a plausible sentence for `fact`, else None."""
    line = next((ln.strip() for ln in (reply or "").splitlines() if ln.strip()), "")
    line = line.strip(" \"'“”`")
    if not line or len(line) > 3 * len(fact.text) + 40:
        return None
    said = set(_content_words(line))
    head, tail = _content_words(fact.subject), _content_words(fact.object)
    if (head and head[0] not in said) or (tail and tail[-1] not in said):
        return None
    if (said - set(_content_words(fact.text))) & _EXAMPLE_WORDS:
        return None
    return line if line.endswith((".", "!", "?")) else line + "."


class LLMVerbalizer:
    """Callable fact -> sentence through the Figure 2 prompt. Local models continue the prompt as raw text (the way
    the paper used GPT-3); chat models get it as one user message. `used_llm` counts accepted LLM sentences."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.used_llm = 0
        self.fallbacks = 0
        self.seconds = 0.0

    def __call__(self, fact: FactRecord) -> str:
        started = time.perf_counter()
        try:
            return self._verbalize(fact)
        finally:
            self.seconds += time.perf_counter() - started

    def _verbalize(self, fact: FactRecord) -> str:
        prompt = VERBALIZE_FEW_SHOT.format(head=fact.subject, relation=fact.relation, tail=fact.object)
        try:
            if self.llm.abilities.raw_text:
                reply = local_access(self.llm).generate_text(prompt, max_tokens=VERBALIZE_MAX_TOKENS, stop=["\n"]).text
            else:
                reply = self.llm.complete([{"role": "user", "content": prompt}], max_tokens=VERBALIZE_MAX_TOKENS,
                                          stop=["\n"]).text
        except Exception:  # noqa: BLE001 - any provider failure: the template is a correct answer too
            reply = ""
        sentence = accept_verbalization(reply, fact)
        if sentence is None:
            self.fallbacks += 1
            return template_verbalize(fact)
        self.used_llm += 1
        return sentence

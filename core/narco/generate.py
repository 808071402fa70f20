"""Two-turn retrospective question generation for one (prior, current) passage pair, and parsing its reply.

    questions, calls = generate_questions(llm, prior_text, current_text)

LLM output is data: numbered lists, bullets, "Q1:" labels, prose around the list, quotes, repeated lines and empty
replies all parse to a (possibly empty) list of distinct questions; nothing here raises on a malformed reply.
"""
from __future__ import annotations

import re
from typing import Any

from core.llm.base import LLM
from core.narco.prompts import MAX_QUESTIONS_PER_PAIR, QG_TURN1, QG_TURN2, TURN1_MAX_TOKENS, TURN2_MAX_TOKENS

# A list marker at the start of a line: "1.", "2)", "-", "*", "•", "Q1:", "Question 2:", "**3.**"
_MARKER = re.compile(r"^\s*(?:[*_]{1,2})?\s*(?:(?:q(?:uestion)?\s*\d{0,3}\s*[:.)-])|(?:\d{1,3}\s*[.):-])|[-*•])\s*",
                     re.IGNORECASE)
_EDGE_JUNK = re.compile(r"^[\s\"'“”‘’`*_]+|[\s\"'“”‘’`*_]+$")
MIN_QUESTION_WORDS = 3
MAX_QUESTION_CHARS = 300


def _clean_line(line: str) -> str:
    previous = None
    while previous != line:  # markers can nest: "- 1. **Q:** ..."
        previous = line
        line = _MARKER.sub("", line, count=1)
        line = _EDGE_JUNK.sub("", line)
    return line


def parse_questions(text: str, limit: int = MAX_QUESTIONS_PER_PAIR) -> list[str]:
    """Distinct questions in an LLM reply, in order: each line's text up to and including its first '?', with list
    markers and quotes removed. Lines without a '?' (explanations, "None", chatter) are ignored."""
    found: list[str] = []
    seen: set[str] = set()
    for raw in (text or "").splitlines():
        line = _clean_line(raw)
        mark = line.find("?")
        if mark < 0:
            continue
        question = _clean_line(line[:mark + 1])
        words = question.split()
        if len(words) < MIN_QUESTION_WORDS or len(question) > MAX_QUESTION_CHARS:
            continue
        key = " ".join(w.lower() for w in words)
        if key in seen:
            continue
        seen.add(key)
        found.append(" ".join(words))
        if len(found) >= limit:
            break
    return found


def _text(reply: Any) -> str:
    return reply if isinstance(reply, str) else str(getattr(reply, "text", "") or "")


def generate_questions(llm: LLM, prior: str, current: str,
                       limit: int = MAX_QUESTIONS_PER_PAIR) -> tuple[list[str], int, str]:
    """(questions, LLM calls made, turn-1 reply). Turn 1 lists the connections; turn 2, in the same conversation,
    turns them into questions. A turn-1 reply that finds no connection ends the pair after one call."""
    turn1 = [{"role": "user", "content": QG_TURN1.format(prior=prior.strip(), current=current.strip())}]
    listing = _text(llm.complete(turn1, max_tokens=TURN1_MAX_TOKENS, loop_guard=None)).strip()  # a list: no guard
    if not listing or listing.lower().rstrip(".! ") in ("none", "no", "nothing", "n/a"):
        return [], 1, listing
    turn2 = [*turn1, {"role": "assistant", "content": listing}, {"role": "user", "content": QG_TURN2}]
    reply = _text(llm.complete(turn2, max_tokens=TURN2_MAX_TOKENS, loop_guard=None))
    return parse_questions(reply, limit), 2, listing

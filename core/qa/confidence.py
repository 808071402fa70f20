"""Does the extractive reader's sentence answer the question, or is it only the closest one? (issue 37)

The reader (core.qa.extract) always finds a best sentence; on questions that ask why or how, or what someone
meant, the best sentence is mostly one that shares a word or two with the question ("Why did the Skipper
surrender?" -> "The skipper's color subsided."). Shown under "Answer", with its chapter, it is a confident wrong
answer with a source under it. `answers` says whether the sentence states what the question asks for, from what
the reader itself found:

  - who / where / when / how many / a name: a name or time of the asked type in a sentence that mentions what was
    asked (the reader's topic rule has already withheld one that does not);
  - "Who is X?": a sentence that says who X is ("X, the ...", "X was a ..."), not merely one that names X;
  - a fact of the book's graph whose relation states the question's topic word;
  - why: a sentence that states the asked event (the question's topic words, at least TOPIC_SHARE of them) and
    gives a reason ("because", "so that", "for fear", "wanted to", ...);
  - how, what, yes-or-no: a sentence that states the asked event (TOPIC_SHARE of the topic words, at least one);
  - a whole-story or retelling question: never; the chosen sentences are the book's lines that bear on it.

Where it does not, the page and the CLI present the sentence as the closest passage, not as the answer, and the
embedded model does not rephrase it (a fluent rewording of a wrong sentence reads as a confident answer).
TOPIC_SHARE was chosen on GraphRAG-Bench's dev half (bench/answer_confidence.py); the held-back half, QuALITY and
NarrativeQA were scored once with it.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from core.qa.relevance import topic_stated, topic_words

TOPIC_SHARE = 0.5    # of the question's topic words the sentence must state (with at least one)
# a reason given in so many words: a causal or purpose conjunction or phrase ("for" and "so" only after a comma,
# where they join a clause: "he stayed, for he was afraid"; "so" also in "so that")
REASON = re.compile(r"\b(?:because|since|so\s+that|in\s+order\s+(?:to|that)|therefore|thus|hence|due\s+to|owing\s+to|"
                    r"on\s+account\s+of|for\s+fear|lest|reasons?|that\s+is\s+why|that's\s+why|for\s+the\s+sake|"
                    r"wanted\s+to|hoping\s+to|meant\s+to|as\s+a\s+result|caused?|made\s+(?:him|her|them|it|me|us))\b"
                    r"|,\s*(?:for|so)\s", re.IGNORECASE)
SPAN_KINDS = frozenset({"person", "place", "time", "number", "name"})
EVENT_KINDS = frozenset({"reason", "manner", "thing", "yesno"})
NEVER = frozenset({"summary", "creative"})


def topic_share(question: str, text: str, names: Sequence[str] = (), bases: Mapping[str, str] | None = None
                ) -> tuple[float, int]:
    """The share of the question's topic words (core.qa.relevance.topic_words) that `text` states, and their
    count (0 when the question has none beyond its names and the words for the kind of answer)."""
    topic = topic_words(question, names)
    if not topic:
        return 0.0, 0
    return sum(topic_stated(topic, [text], bases)) / len(topic), len(topic)


def answers(question: str, kind: str, text: str, *, span: str | None = None, described: bool = False,
            from_fact: bool = False, names: Sequence[str] = (), bases: Mapping[str, str] | None = None,
            share: float | None = None) -> bool:
    """Whether the reader's `text` (its quoted sentence) answers `question` of type `kind` (core.qa.question_types),
    given what the reader found: the typed `span`, whether the sentence `described` the person of a "Who is X?"
    question, whether the answer is a graph fact (`from_fact`); `share` defaults to TOPIC_SHARE."""
    if from_fact:
        return True
    if kind in NEVER:
        return False
    if kind in SPAN_KINDS:
        return span is not None
    if kind == "identity":
        return described
    if kind not in EVENT_KINDS:
        return False
    stated, count = topic_share(question, text, names, bases)
    if count == 0 or stated < (TOPIC_SHARE if share is None else share):
        return False
    return kind != "reason" or REASON.search(text) is not None

"""Does an answer address the question asked? The second half of the answer check (core.qa.support).

    rel = relevance("Who stole Buck?", "Manuel stole Buck.", ["Manuel ... stole Buck ..."], cosine=0.61)
    rel.coverage, rel.cosine, rel.missing        # the question's own words the answer states; MiniLM cosine
    answer_probability(support_mean, rel)        # the calibrated chance the answer is right (bench-fitted)
    speaks_to(question, [sentence], names)       # does the sentence a name comes from mention what was asked?

Support alone cannot tell a right answer from a true sentence of the same book that answers something else: on
GraphRAG-Bench novel dev, the gold answer of the most similar other question ("an on-topic wrong answer") is
backed by the cited passages about as well as the right one (AUC 0.56). What separates them is whether the answer
speaks to what was asked, the idea of RAGAS's answer relevancy: the share of the question's own words (its framing,
"according to the narrative", left out) that the answer states, and the MiniLM cosine of question and answer. A
short answer ("The Yeehats.") states none of the question's words, so for an answer of fewer than SHORT content
words the source sentence that backs it counts as its context ("The Yeehats killed John Thornton by the river").

The verdict is one logistic model over three measures: the mean support score of the answer's sentences, the
cosine and the coverage. COEFFICIENTS, INTERCEPT and PROBABILITY are fitted by bench/answer_support.py on the
seeded dev half of GraphRAG-Bench novel (right answers against near and name-swapped wrong ones; the threshold
keeps recall 0.8 there) and reported once on the held-back half (bench/results/answer_support.json).

Measured and not used: the embedded model's pointwise mutual information of answer and question given the cited
passages (log p(answer | passages, question) - log p(answer | passages), SmolLM2 on transformers) added 0.04 of
precision on dev (0.700 vs 0.662) at two forward passes of ~1,000 tokens per answer (4 s on these 2 cores), see
bench/README.md. Held-back half as shipped: precision 0.66 at recall 0.81 against near answers (goal 0.8).
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.qa.words import FRAME_STEMS, content_words, without_phrasal_frames

SHORT = 4  # an answer with fewer content words than this is judged with the source sentence that backs it
BRIEF = 12  # ... and so is one of at most this many words that states none of the question's words (a list of names)
# Fitted by bench/answer_support.py (see the module docstring): (support mean, cosine, coverage) and the intercept.
COEFFICIENTS: tuple[float, float, float] = (1.076, 1.587, 1.863)
INTERCEPT = -2.838
PROBABILITY = 0.35  # an answer is right when answer_probability reaches it (dev recall 0.8, names aside)


@dataclass(frozen=True)
class Relevance:
    """How far an answer speaks to its question."""

    coverage: float              # share of the question's own words found in the answer (or its backing sentence)
    cosine: float                # MiniLM cosine of the question and the answer
    missing: tuple[str, ...]     # the question's own words the answer leaves out (surface forms, in order)
    with_context: bool = False   # a short answer: its backing source sentence counted as its context

    def as_dict(self) -> dict[str, Any]:
        return {"coverage": round(self.coverage, 4), "cosine": round(self.cosine, 4), "missing": list(self.missing),
                "with_context": self.with_context}


def question_focus(question: str) -> list[tuple[str, str]]:
    """(stem, surface word) of the question's own content words: its framing words left out, unless nothing else
    is left."""
    words = list(dict.fromkeys(content_words(without_phrasal_frames(question)))) or list(
        dict.fromkeys(content_words(question)))
    own = [(stem, word) for stem, word in words if stem not in FRAME_STEMS]
    return own or words


def relevance(question: str, answer: str, backing: Sequence[str], *, cosine: float) -> Relevance:
    """`backing`: the source sentences that back the answer's sentences (the support check's best matches);
    `cosine`: the MiniLM cosine of question and answer (the support check embeds both in its one call)."""
    focus = question_focus(question)
    stated = {stem for stem, _ in content_words(answer)}
    brief = len(answer.split()) <= BRIEF and not stated & {stem for stem, _ in focus}
    short = len(stated) < SHORT or brief
    if short:
        for sentence in backing:
            stated |= {stem for stem, _ in content_words(sentence)}
    found = [(stem, word) for stem, word in focus if stem in stated]
    coverage = len(found) / len(focus) if focus else 0.0
    missing = tuple(dict.fromkeys(word for stem, word in focus if stem not in stated))
    return Relevance(coverage, cosine, missing, short)


def answer_probability(support_mean: float, rel: Relevance,
                       coefficients: Sequence[float] = COEFFICIENTS, intercept: float = INTERCEPT) -> float:
    """The logistic model's chance that the answer is right, from its mean support score and its relevance."""
    a, b, c = coefficients
    z = intercept + a * support_mean + b * rel.cosine + c * rel.coverage
    return 1.0 / (1.0 + math.exp(-z))


PREFIX = 5   # a topic word is stated by a word sharing its stem's first PREFIX letters ("stole" / "stolen")
# Question words that say what kind of answer is wanted, not what it is about: a sentence that answers "What year
# did X arrive?" need not say "year", nor one that answers "What is the name of his horse?" say "name".
ANSWER_KIND_WORDS = frozenset("""name names named first last full given family maiden middle christian surname kind
type sort year years time day date century month age season hour period era place city town country region location
person people man woman men women character individual figure number percentage amount sum happen happened happens
occur occurred do does did located situated stated noted known based provided within""".split())


def topic_words(question: str, names: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(stem, word) of what the question is about beyond its names: its own content words (question_focus) without
    the names it asks about (`names`, as core.qa.names.question_names finds them) and without ANSWER_KIND_WORDS.
    "What is the name of Ichabod's horse?" -> [("hors", "horse")]."""
    named = {w.lower() for name in names for w in re.findall(r"[^\W_]+", name)}
    return [(stem, word) for stem, word in question_focus(question)
            if word.lower() not in named and word.lower() not in ANSWER_KIND_WORDS]


def speaks_to(question: str, texts: Sequence[str], names: Sequence[str] = (),
              bases: Mapping[str, str] | None = None) -> tuple[bool, tuple[str, ...]]:
    """Whether `texts` (an answer's sentence) state at least one of the question's topic words (topic_words), and
    the topic words as written. True when the question has none beyond its names. A sentence that states none of
    them ("Brom took all opportunities ..." for "What is the name of Ichabod's horse?") may hold a name of the asked
    type, but not the one asked for. `bases`: irregular forms to their base word ("led" -> "lead", "men" -> "man"),
    spaCy's lemmatizer exceptions where the caller has the pipeline loaded."""
    topic = topic_words(question, names)
    words = tuple(dict.fromkeys(word for _, word in topic))
    return (any(topic_stated(topic, texts, bases)) if topic else True), words


def topic_stated(topic: Sequence[tuple[str, str]], texts: Sequence[str],
                 bases: Mapping[str, str] | None = None) -> list[bool]:
    """For each (stem, word) of `topic`, whether `texts` state it: its stem or, for an irregular form, its base's
    (`bases`: "led" -> "lead"), on either side, by `states`."""
    bases = bases or {}
    stated = {stem for text in texts for stem, _ in content_words(text)}
    stated |= {stem for text in texts for _, word in content_words(text)
               if word.lower() in bases for stem, _ in content_words(bases[word.lower()])}
    found = []
    for stem, word in topic:
        forms = [stem, *(b for b, _ in content_words(bases.get(word.lower(), "")))]
        found.append(any(states(form, stated) for form in forms))
    return found


def states(stem: str, stated: set[str]) -> bool:
    """The stem, or one sharing its first PREFIX letters (irregular forms the stemmer keeps apart: "stole" and
    "stolen", "marri" and "marriag")."""
    if stem in stated:
        return True
    return len(stem) >= PREFIX and any(s[:PREFIX] == stem[:PREFIX] for s in stated)

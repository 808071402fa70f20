"""Is an answer supported by the passages it cites? A model-free check, sentence by sentence.

    support = check_support("Manuel stole Buck.", [c.text for c in plan.citations])
    support.sentences[0].supported, .score, .overlap, .cosine, .source, .citation
    support.unsupported  -> the sentences the cited passages do not back

With the small embedded models an answer can be wrong while its citations look convincing, so each answer sentence
is compared with the sentences of the cited texts on two things: (a) the share of its content words (lower-cased,
Snowball-stemmed, function words removed) found in the best-matching source sentence and in the cited text as a
whole, and (b) the MiniLM cosine with the best-matching source sentence. The weighted sum is the score; a sentence is
supported when it reaches THRESHOLD. WEIGHTS and THRESHOLD are measured, not guessed: bench/answer_support.py picks
them on half of GraphRAG-Bench's novel questions (gold answers against the passages a real retrieval cites for their
own question vs. a shuffled answer of another question of the same book) and reports precision and recall on the
other half (bench/results/answer_support.json).

The check sees words and meaning, not truth: an answer that reuses the passages' words for a wrong claim ("The
Yeehats stole Buck" where the passage says the Yeehats killed Thornton) can still pass. It catches answers the
cited text does not talk about. Sentences without content words ("Yes.") cannot be checked and are marked None.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from core.ingest.sentences import split_sentences
from core.retrieval.hybrid import stemmer
from core.stopwords import ENGLISH

Embed = Callable[[Sequence[str]], np.ndarray]  # texts -> unit row vectors (core.nlp.embed)

# Measured by bench/answer_support.py: the best of 20 candidates (10 weightings, with and without discounting the
# question's words) on the dev half of GraphRAG-Bench novel (balanced accuracy 0.814) and its threshold; on the test
# half precision 0.77, recall 0.87 of "supported", AUC 0.88. Discounting lost on the dev half (0.770) and did not
# help against on-topic wrong answers either (0.543 vs 0.552), so it is off.
WEIGHTS: tuple[float, float, float] = (0.25, 0.25, 0.5)  # best-sentence word share, cited-text word share, cosine
THRESHOLD = 0.44
DISCOUNT_QUESTION_WORDS = False  # whether words repeated from the question are left out of the word shares
MAX_ANSWER_SENTENCES = 40    # a longer answer: the rest is listed unchecked (and a note says so)
MAX_SOURCE_SENTENCES = 300   # cited sentences embedded at most: those sharing the most words with the answer

NO_CITATIONS = "No passages were cited, so nothing in the answer is supported by them."
EMPTY_ANSWER = "The answer is empty: there is nothing to check."
NOTHING_TO_CHECK = "The answer has no content words to compare with the passages."

# Function words, pronouns, auxiliaries and the fillers of short answers ("Yes.", "Not really."): words that say
# nothing about whether a passage backs a claim.
STOPWORDS = ENGLISH | frozenset("""whose ms also as because until while yes yeah yep nope maybe perhaps indeed certainly
correct incorrect true false answer unknown one""".split())
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_POSSESSIVE = re.compile(r"['\u2019]s?$")


@lru_cache(maxsize=16384)  # cited passages recur from question to question
def content_words(text: str) -> tuple[tuple[str, str], ...]:
    """(stem, surface word) of each content word of `text`, in order; possessives dropped ("Buck's" -> "buck")."""
    surface = [_POSSESSIVE.sub("", w) for w in _WORD.findall(text)]
    kept = [w for w in surface if w and w.lower() not in STOPWORDS and (len(w) > 1 or w.isdigit())]
    stems = stemmer().stemWords([w.lower() for w in kept]) if kept else []
    return tuple(zip(stems, kept))


@dataclass(frozen=True)
class SentenceSupport:
    """One answer sentence. supported: None when it cannot be checked (no content words, or past the limit)."""

    text: str
    supported: bool | None
    score: float = 0.0
    overlap: float = 0.0        # share of its content words in the best source sentence
    text_overlap: float = 0.0   # share of its content words anywhere in the cited text
    cosine: float = 0.0         # MiniLM cosine with the best source sentence
    source: str | None = None   # the best-matching source sentence
    citation: int | None = None  # which cited text it came from (index into the sources given)
    unmatched: tuple[str, ...] = ()  # its content words found nowhere in the cited text

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "supported": self.supported, "score": round(self.score, 4),
                "overlap": round(self.overlap, 4), "text_overlap": round(self.text_overlap, 4),
                "cosine": round(self.cosine, 4), "source": self.source, "citation": self.citation,
                "unmatched": list(self.unmatched)}


@dataclass
class AnswerSupport:
    sentences: list[SentenceSupport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    threshold: float = THRESHOLD
    weights: tuple[float, float, float] = WEIGHTS

    @property
    def checked(self) -> list[SentenceSupport]:
        return [s for s in self.sentences if s.supported is not None]

    @property
    def unsupported(self) -> list[SentenceSupport]:
        return [s for s in self.sentences if s.supported is False]

    @property
    def supported(self) -> bool | None:
        """True when every checked sentence is supported; None when nothing could be checked."""
        checked = self.checked
        return all(s.supported for s in checked) if checked else None

    @property
    def best(self) -> SentenceSupport | None:
        """The checked sentence with the strongest source (the one to show under the answer)."""
        sourced = [s for s in self.checked if s.source is not None]
        return max(sourced, key=lambda s: s.score) if sourced else None

    def as_dict(self, citations: Sequence[Any] = ()) -> dict[str, Any]:
        """Plain data; with the `citations` the sources were taken from (objects with .chapter and .chunk), each
        sentence also says the chapter and passage of its best source."""
        rows = []
        for s in self.sentences:
            row = s.as_dict()
            if s.citation is not None and s.citation < len(citations):
                row["chapter"] = getattr(citations[s.citation], "chapter", None)
                row["chunk"] = getattr(citations[s.citation], "chunk", None)
            rows.append(row)
        best = self.best
        return {"supported": self.supported, "sentences": rows, "notes": list(self.notes),
                "best": None if best is None else self.sentences.index(best),
                "threshold": self.threshold, "weights": list(self.weights)}


def check_support(answer: str, sources: Sequence[str], *, question: str | None = None, embed: Embed | None = None,
                  threshold: float = THRESHOLD, weights: tuple[float, float, float] = WEIGHTS,
                  discount_question: bool = DISCOUNT_QUESTION_WORDS) -> AnswerSupport:
    """Each sentence of `answer` scored against the sentences of the cited `sources` (texts, in citation order).

    With the `question` (and `discount_question`), the words an answer sentence repeats from the question do not
    count as found: "The Yeehats stole Buck." is judged on "Yeehats", not on "stole Buck", which the retrieved
    passages contain because the question asked about them (a sentence made only of the question's words keeps
    them all). `embed` defaults to core.nlp.embed (MiniLM); it is called once, on the answer's and the sources'
    sentences.
    """
    result = AnswerSupport(threshold=threshold, weights=weights)
    sentences = split_sentences(answer or "")
    if not sentences:
        result.notes.append(EMPTY_ANSWER)
        return result
    if len(sentences) > MAX_ANSWER_SENTENCES:
        result.notes.append(f"Only the first {MAX_ANSWER_SENTENCES} of {len(sentences)} sentences were checked.")
    words = [content_words(s) for s in sentences[:MAX_ANSWER_SENTENCES]]
    if question and discount_question:
        asked = {stem for stem, _ in content_words(question)}
        words = [tuple(p for p in w if p[0] not in asked) or w for w in words]
    rest = [SentenceSupport(s, None) for s in sentences[MAX_ANSWER_SENTENCES:]]
    todo = [i for i, w in enumerate(words) if w]
    if not todo:
        result.sentences = [SentenceSupport(s, None) for s in sentences[:MAX_ANSWER_SENTENCES]] + rest
        result.notes.append(NOTHING_TO_CHECK)
        return result
    cited = [(k, s) for k, text in enumerate(sources) for s in split_sentences(text or "")]
    if not cited:
        result.notes.append(NO_CITATIONS)
        result.sentences = [SentenceSupport(s, False if w else None, unmatched=tuple(dict.fromkeys(x for _, x in w)))
                            for s, w in zip(sentences, words)] + rest
        return result
    source_stems = [{stem for stem, _ in content_words(s)} for _, s in cited]
    everywhere = set().union(*source_stems)
    cited, source_stems = _shortlist(cited, source_stems, {stem for w in words for stem, _ in w})
    vectors = (embed or _default_embed)([sentences[i] for i in todo] + [s for _, s in cited])
    answer_vecs, source_vecs = vectors[:len(todo)], vectors[len(todo):]
    cosines = answer_vecs @ source_vecs.T  # (checked answer sentences, source sentences)
    w_overlap, w_text, w_cosine = weights
    scored: dict[int, SentenceSupport] = {}
    for row, i in enumerate(todo):
        stems = {stem for stem, _ in words[i]}
        overlaps = np.array([len(stems & t) / len(stems) for t in source_stems], dtype=np.float64)
        text_overlap = len(stems & everywhere) / len(stems)
        best = int(np.argmax(w_overlap * overlaps + w_cosine * cosines[row]))
        score = w_overlap * overlaps[best] + w_text * text_overlap + w_cosine * float(cosines[row, best])
        unmatched = tuple(dict.fromkeys(word for stem, word in words[i] if stem not in everywhere))
        scored[i] = SentenceSupport(sentences[i], bool(score >= threshold), float(score), float(overlaps[best]),
                                    text_overlap, float(cosines[row, best]), cited[best][1], cited[best][0],
                                    unmatched)
    result.sentences = [scored.get(i) or SentenceSupport(s, None) for i, s in enumerate(sentences[:len(words)])]
    result.sentences += rest
    return result


def _shortlist(cited: list[tuple[int, str]], stems: list[set[str]], answer: set[str],
               limit: int = MAX_SOURCE_SENTENCES) -> tuple[list[tuple[int, str]], list[set[str]]]:
    """At most `limit` source sentences to embed: those sharing the most content words with the answer (in their
    original order), so a huge prompt budget costs a bounded embedding call."""
    if len(cited) <= limit:
        return cited, stems
    order = sorted(range(len(cited)), key=lambda j: -len(stems[j] & answer))[:limit]
    keep = sorted(order)
    return [cited[j] for j in keep], [stems[j] for j in keep]


def _default_embed(texts: Sequence[str]) -> np.ndarray:
    from core.nlp import embed
    return embed(texts)

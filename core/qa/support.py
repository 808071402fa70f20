"""Is an answer supported by the passages it cites, and does it answer the question? A model-free check.

    support = check_support("Manuel stole Buck.", [c.text for c in plan.citations], question="Who stole Buck?")
    support.sentences[0].supported, .score, .overlap, .cosine, .source, .citation
    support.unsupported  -> the sentences the cited passages do not back
    support.relevance, .probability, .off_question  -> with a question: core.qa.relevance's verdict

With the small embedded models an answer can be wrong while its citations look convincing, so each answer sentence
is compared with the sentences of the cited texts on two things: (a) the share of its content words (lower-cased,
Snowball-stemmed, function words removed) found in the best-matching source sentence and in the cited text as a
whole, and (b) the MiniLM cosine with the best-matching source sentence. The weighted sum is the sentence's score; a
sentence is backed when it reaches THRESHOLD. A name the cited passages lack (the answer's, or one the question asks
about) fails the answer outright.

Backing is not answering: a true sentence of the same book that answers another question is backed as well as the
right answer (bench/answer_support.py: AUC 0.56 against the nearest other question's answer). So with a question
the verdict is core.qa.relevance's logistic model over the mean sentence score and the answer's relevance to the
question (the question's own words it states, its MiniLM cosine with the question), fitted on GraphRAG-Bench novel's
dev half and reported once on the held-back half (bench/results/answer_support.json). Without one (a recap's
prose), every checked sentence must be backed.

The check sees words and meaning, not truth: an answer that reuses the passages' words for a wrong claim ("The
Yeehats stole Buck" where the passage says the Yeehats killed Thornton) can still pass, and a name swapped for
another name the passages hold mostly does (AUC 0.55 on such answers). Sentences without content words ("Yes.")
cannot be checked and are marked None.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.ingest.sentences import split_sentences
from core.qa.names import answer_names, missing_names, missing_words, question_names
from core.qa.relevance import COEFFICIENTS, INTERCEPT, PROBABILITY, Relevance, answer_probability, relevance
from core.qa.words import FRAME_STEMS, content_words

Embed = Callable[[Sequence[str]], np.ndarray]  # texts -> unit row vectors (core.nlp.embed)

# The sentence score's weights and threshold: (best-sentence word share, cited-text word share, cosine, question-answer
# co-location), chosen by an earlier bench/answer_support.py against off-topic wrong answers (test half: precision
# 0.77, recall 0.87); against on-topic ones no weighting reaches 0.53 precision at recall 0.8, which is what the
# relevance model (core.qa.relevance) is for. Co-location is computed and shown per sentence but weighted 0.
WEIGHTS: tuple[float, float, float, float] = (0.25, 0.25, 0.5, 0.0)
THRESHOLD = 0.44
# How an answer of several sentences is judged: "all" (every checked sentence supported) or "mean" (the mean
# sentence score reaches the threshold). Either way a name the cited passages lack fails the answer.
ANSWER_RULE = "all"
DISCOUNT_QUESTION_WORDS = False  # whether words repeated from the question are left out of the word shares
MAX_ANSWER_SENTENCES = 40    # a longer answer: the rest is listed unchecked (and a note says so)
MAX_SOURCE_SENTENCES = 300   # cited sentences embedded at most: those sharing the most words with the answer

NO_CITATIONS = "No passages were cited, so nothing in the answer is supported by them."
EMPTY_ANSWER = "The answer is empty: there is nothing to check."
NOTHING_TO_CHECK = "The answer has no content words to compare with the passages."
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
    colocation: float = 0.0     # its new words and the question's words found together (a sentence and neighbours)
    missing_names: tuple[str, ...] = ()  # name words it states that no cited text contains (fail it)

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "supported": self.supported, "score": round(self.score, 4),
                "overlap": round(self.overlap, 4), "text_overlap": round(self.text_overlap, 4),
                "cosine": round(self.cosine, 4), "source": self.source, "citation": self.citation,
                "unmatched": list(self.unmatched), "colocation": round(self.colocation, 4),
                "missing_names": list(self.missing_names)}


@dataclass
class AnswerSupport:
    sentences: list[SentenceSupport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    threshold: float = THRESHOLD
    weights: tuple[float, float, float, float] = WEIGHTS
    rule: str = ANSWER_RULE
    question_missing: tuple[str, ...] = ()  # names the question asks about that no cited text contains
    relevance: Relevance | None = None      # with a question: how far the answer speaks to it (core.qa.relevance)
    probability: float | None = None        # with a question: the chance the answer is right (support + relevance)
    probability_threshold: float = PROBABILITY

    @property
    def checked(self) -> list[SentenceSupport]:
        return [s for s in self.sentences if s.supported is not None]

    @property
    def unsupported(self) -> list[SentenceSupport]:
        return [s for s in self.sentences if s.supported is False]

    @property
    def missing_names(self) -> list[str]:
        """Every name word of the answer that the cited passages lack, in order."""
        return list(dict.fromkeys(w for s in self.sentences for w in s.missing_names))

    @property
    def score(self) -> float | None:
        """The mean score of the checked sentences (None when nothing could be checked)."""
        checked = self.checked
        return float(np.mean([s.score for s in checked])) if checked else None

    @property
    def supported(self) -> bool | None:
        """The answer's verdict: False when the question's or the answer's names are missing from the cited
        passages; else, with a question, whether the answer's probability (its support and its relevance to the
        question) reaches the threshold; without one, by `rule`, every checked sentence supported ("all") or the
        mean score over the threshold ("mean"); None when nothing could be checked."""
        if self.question_missing or self.missing_names:
            return False
        checked = self.checked
        if not checked:
            return None
        if self.probability is not None:
            return bool(self.probability >= self.probability_threshold)
        if self.rule == "mean":
            return bool(np.mean([s.score for s in checked]) >= self.threshold)
        return all(s.supported for s in checked)

    @property
    def off_question(self) -> bool:
        """Whether the verdict fails although the answer's sentences are backed: it does not speak to the question
        (a true sentence of the book that answers something else)."""
        return (self.supported is False and not (self.question_missing or self.missing_names)
                and self.relevance is not None and all(s.supported for s in self.checked))

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
        score = self.score
        return {"supported": self.supported, "sentences": rows, "notes": list(self.notes),
                "best": None if best is None else self.sentences.index(best),
                "score": None if score is None else round(score, 4), "missing_names": self.missing_names,
                "question_missing": list(self.question_missing), "rule": self.rule,
                "threshold": self.threshold, "weights": list(self.weights),
                "relevance": None if self.relevance is None else self.relevance.as_dict(),
                "probability": None if self.probability is None else round(self.probability, 4),
                "probability_threshold": self.probability_threshold, "off_question": self.off_question}


def check_support(answer: str, sources: Sequence[str], *, question: str | None = None, embed: Embed | None = None,
                  threshold: float = THRESHOLD, weights: tuple[float, ...] = WEIGHTS,
                  discount_question: bool = DISCOUNT_QUESTION_WORDS, names: bool = True, entities: Any = None,
                  rule: str = ANSWER_RULE, relevant: bool = True, coefficients: Sequence[float] = COEFFICIENTS,
                  intercept: float = INTERCEPT, probability: float = PROBABILITY) -> AnswerSupport:
    """Each sentence of `answer` scored against the sentences of the cited `sources` (texts, in citation order).

    With the `question`, each sentence is also scored on co-location: the share of its words the question does not
    already hold, times the share of the question's words, found together in one cited sentence and its neighbours
    (an on-topic wrong answer borrows words the passages hold, but not beside what the question asks about); and
    the names the question asks about must be in the cited text. With `names`, a name the answer states that no
    cited text contains fails its sentence and the answer (`entities`, the graph's EntityIndex, tells names at a
    sentence's start). With `discount_question`, the words an answer sentence repeats from the question do not
    count as found. With the `question` and `relevant`, the verdict is core.qa.relevance's logistic model over
    the mean sentence score and the answer's relevance to the question (`coefficients`, `intercept`,
    `probability`: the fitted ones by default). `embed` defaults to core.nlp.embed (MiniLM); it is called once, on
    the answer's and the sources' sentences (and the question and the whole answer). `weights` may give three
    components (no co-location) or four.
    """
    w4 = (*weights, 0.0)[:4] if len(weights) == 3 else tuple(weights)
    result = AnswerSupport(threshold=threshold, weights=(w4[0], w4[1], w4[2], w4[3]), rule=rule,
                           probability_threshold=probability)
    if question and names:
        result.question_missing = tuple(missing_names(question_names(question, entities), sources))
    sentences = split_sentences(answer or "")
    if not sentences:
        result.notes.append(EMPTY_ANSWER)
        return result
    if len(sentences) > MAX_ANSWER_SENTENCES:
        result.notes.append(f"Only the first {MAX_ANSWER_SENTENCES} of {len(sentences)} sentences were checked.")
    words = [content_words(s) for s in sentences[:MAX_ANSWER_SENTENCES]]
    asked = {stem for stem, _ in content_words(question)} if question else set()
    if question and discount_question:
        words = [tuple(p for p in w if p[0] not in asked) or w for w in words]
    lacking = [tuple(missing_words(answer_names(s, entities), sources)) if names else () for s in sentences]
    rest = [SentenceSupport(s, None) for s in sentences[MAX_ANSWER_SENTENCES:]]
    todo = [i for i, w in enumerate(words) if w]
    if not todo:
        result.sentences = [SentenceSupport(s, None) for s in sentences[:MAX_ANSWER_SENTENCES]] + rest
        result.notes.append(NOTHING_TO_CHECK)
        return result
    cited = [(k, s) for k, text in enumerate(sources) for s in split_sentences(text or "")]
    if not cited:
        result.notes.append(NO_CITATIONS)
        result.sentences = [SentenceSupport(s, False if w else None, unmatched=tuple(dict.fromkeys(x for _, x in w)),
                                            missing_names=lacking[i])
                            for i, (s, w) in enumerate(zip(sentences, words))] + rest
        return result
    source_stems = [{stem for stem, _ in content_words(s)} for _, s in cited]
    everywhere = set().union(*source_stems)
    windows = _windows(cited, source_stems)
    focus = {stem for stem in asked if stem not in FRAME_STEMS} or asked
    cited, source_stems = _shortlist(cited, source_stems, {stem for w in words for stem, _ in w})
    judged = bool(question and relevant)
    extra = [question or "", answer] if judged else []
    vectors = (embed or _default_embed)([sentences[i] for i in todo] + [s for _, s in cited] + extra)
    answer_vecs, source_vecs = vectors[:len(todo)], vectors[len(todo):len(todo) + len(cited)]
    cosines = answer_vecs @ source_vecs.T  # (checked answer sentences, source sentences)
    w_overlap, w_text, w_cosine, w_coloc = w4
    scored: dict[int, SentenceSupport] = {}
    for row, i in enumerate(todo):
        stems = {stem for stem, _ in words[i]}
        overlaps = np.array([len(stems & t) / len(stems) for t in source_stems], dtype=np.float64)
        text_overlap = len(stems & everywhere) / len(stems)
        coloc = _colocation(stems, focus, windows) if focus else float(overlaps.max(initial=0.0))
        best = int(np.argmax(w_overlap * overlaps + w_cosine * cosines[row]))
        score = (w_overlap * overlaps[best] + w_text * text_overlap + w_cosine * float(cosines[row, best])
                 + w_coloc * coloc)
        unmatched = tuple(dict.fromkeys(word for stem, word in words[i] if stem not in everywhere))
        scored[i] = SentenceSupport(sentences[i], bool(score >= threshold) and not lacking[i], float(score),
                                    float(overlaps[best]), text_overlap, float(cosines[row, best]), cited[best][1],
                                    cited[best][0], unmatched, coloc, lacking[i])
    result.sentences = [scored.get(i) or SentenceSupport(s, None, missing_names=lacking[i])
                        for i, s in enumerate(sentences[:len(words)])]
    result.sentences += rest
    if judged and question:
        backing = [s.source for s in scored.values() if s.source]
        q_vec, a_vec = vectors[-2], vectors[-1]
        result.relevance = relevance(question, answer, backing, cosine=float(q_vec @ a_vec))
        mean = float(np.mean([s.score for s in scored.values()]))
        result.probability = answer_probability(mean, result.relevance, coefficients, intercept)
    return result


def _windows(cited: list[tuple[int, str]], stems: list[set[str]]) -> list[set[str]]:
    """Each cited sentence's stems with its neighbours' in the same cited text."""
    out = []
    for j, (k, _) in enumerate(cited):
        window = set(stems[j])
        for n in (j - 1, j + 1):
            if 0 <= n < len(cited) and cited[n][0] == k:
                window |= stems[n]
        out.append(window)
    return out


def _colocation(stems: set[str], focus: set[str], windows: list[set[str]]) -> float:
    """max over windows of (share of the sentence's new words there) x (share of the question's words there)."""
    new = stems - focus or stems
    best = 0.0
    for window in windows:
        found = len(new & window)
        if found:
            best = max(best, found / len(new) * len(focus & window) / len(focus))
    return best


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

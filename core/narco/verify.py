"""Self-verification (NARCO's second stage): answer each generated question on the two passages joined without
their boundary, then keep it only when its quoted evidence is found in the prior passage.

The quote an LLM gives is matched back to the book's sentences (fuzzy, rapidfuzz partial ratio), so a paraphrased or
partial quote still counts, and the stored evidence is the book's own sentence. Evidence that matches the current
passage as well as (or better than) the prior one marks a self-answerable question, which is dropped. An unparsable
verdict drops the question too: the stage is precision-first, as in the paper.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.ingest.sentences import split_sentences
from core.llm.base import LLM
from core.narco.generate import _text, generate_questions
from core.narco.prompts import MAX_QUESTIONS_PER_PAIR, VERIFY, VERIFY_MAX_TOKENS
from core.narco.types import PairResult, VerifiedQuestion

_ANSWERABLE = re.compile(r"answerable\W{0,4}(yes|no)\b", re.IGNORECASE)
_LEADING_VERDICT = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_ANSWER = re.compile(r"^\W*answer\W*:\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_EVIDENCE = re.compile(r"evidences?\W*:\s*(.*)", re.IGNORECASE | re.DOTALL)
_LABEL = re.compile(r"^\W*(?:answerable|answer|reasoning|reason|explanation)\W*:", re.IGNORECASE | re.MULTILINE)
_QUOTES = re.compile(r"^[\s\"'“”‘’`*_>•-]+|[\s\"'“”‘’`*_]+$")
MATCH_THRESHOLD = 80.0
MIN_EVIDENCE_WORDS = 4


@dataclass
class Verdict:
    answerable: bool | None  # None: the reply gave no readable verdict
    answer: str = ""
    evidence: list[str] = field(default_factory=list)


def parse_verdict(text: str) -> Verdict:
    """The verdict, answer and quoted evidence sentences of a verification reply, however loosely formatted."""
    text = text or ""
    found = _ANSWERABLE.search(text) or _LEADING_VERDICT.search(text)
    answerable = None if found is None else found.group(1).lower() == "yes"
    answer_match = _ANSWER.search(text)
    answer = answer_match.group(1).strip() if answer_match else ""
    evidence: list[str] = []
    ev = _EVIDENCE.search(text)
    if ev:
        block = ev.group(1)
        stop = _LABEL.search(block)
        block = block[:stop.start()] if stop else block
        for line in block.splitlines():
            for sentence in split_sentences(_QUOTES.sub("", line)):
                sentence = _QUOTES.sub("", sentence)
                if len(sentence.split()) >= MIN_EVIDENCE_WORDS:
                    evidence.append(sentence)
    return Verdict(answerable, answer, evidence)


def _best(sentence: str, candidates: list[str]) -> tuple[float, str]:
    from rapidfuzz import fuzz, process
    if not candidates:
        return 0.0, ""
    match = process.extractOne(sentence, candidates, scorer=fuzz.partial_ratio)
    return (float(match[1]), match[0]) if match else (0.0, "")


def evidence_in_prior(evidence: list[str], prior: str, current: str,
                      threshold: float = MATCH_THRESHOLD) -> str | None:
    """The prior passage's sentence that the quoted evidence comes from, or None when no quote is found there
    (or a quote fits the current passage at least as well, i.e. the question answers itself)."""
    prior_sents, current_sents = split_sentences(prior), split_sentences(current)
    best_score, best_sentence = 0.0, None
    for quote in evidence:
        p_score, p_sentence = _best(quote, prior_sents)
        c_score, _ = _best(quote, current_sents)
        if p_score >= threshold and p_score > c_score and p_score > best_score:
            best_score, best_sentence = p_score, p_sentence
    return best_sentence


def verify_question(llm: LLM, prior: str, current: str, question: str) -> tuple[VerifiedQuestion | None, bool]:
    """(the kept question or None, whether the reply was unreadable)."""
    context = f"{prior.strip()}\n\n{current.strip()}"
    reply = _text(llm.complete([{"role": "user", "content": VERIFY.format(context=context, question=question)}],
                               max_tokens=VERIFY_MAX_TOKENS))
    verdict = parse_verdict(reply)
    if verdict.answerable is None:
        return None, True
    if not verdict.answerable:
        return None, False
    sentence = evidence_in_prior(verdict.evidence, prior, current)
    if sentence is None:
        return None, not verdict.evidence
    return VerifiedQuestion(question, sentence, verdict.answer[:300]), False


def edge_questions(llm: LLM, prior: str, current: str, *, verify: bool = True,
                   limit: int = MAX_QUESTIONS_PER_PAIR) -> PairResult:
    """The retrospective questions from `current` back to `prior`: two-turn generation, then (by default)
    self-verification. Without verification every question is kept with an empty evidence sentence."""
    generated, calls, _ = generate_questions(llm, prior, current, limit)
    result = PairResult(generated=generated, calls=calls)
    for question in generated:
        if not verify:
            result.kept.append(VerifiedQuestion(question, "", "", verified=False))
            continue
        kept, malformed = verify_question(llm, prior, current, question)
        result.calls += 1
        result.malformed += int(malformed)
        if kept is not None:
            result.kept.append(kept)
    return result

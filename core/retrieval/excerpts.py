"""Which sentences of the ranked passages a prompt should hold: the relevant ones, covering every part of the question.

    picks = choose_sentences(sentences, candidates, relevance, terms, weights, room, count)
    groups = group_by_passage(sentences, picks)   # [(passage row, [sentence ids in reading order])], best first

A 1,000-token prompt holds three or four whole 240-word passages; a question about several people or events ("which
figures are connected to St. Michael's Mount, and how?") needs a sentence from each of a dozen places. So graph mode
fills its budget with sentences: greedily, each step taking the candidate with the most *uncovered* question weight
(the IDF of each question word and the specificity of each seed entity it names, discounted by how many chosen
sentences already have it: weight / (1 + times covered) ** COVERAGE_DECAY), plus its relevance (the walk's rank of the
sentence and of its passage). That is maximal-marginal-relevance selection on the question's terms: the second
sentence about Sir John Arundel gains little while Henry de la Pomeroy is still missing. Sentences are then shown
passage by passage in reading order, so a reader (and the support check) sees them where the book has them.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import sparse

from core.retrieval.sentences import SentenceIndex

COVERAGE_DECAY = 2.0     # a covered term's weight is divided by (1 + times covered) ** this
RELEVANCE_WEIGHT = 2.0   # the weight of the (max-scaled) relevance beside the coverage gain
LENGTH_POWER = 0.5       # the coverage gain is divided by (sentence words) ** this: a long sentence must earn its room
MAX_PICKS = 80           # sentences chosen at most (a 1,000-token budget holds 30-45)
ROOM_SLACK = 1.1         # picks continue until their tokens exceed room * this (the fill cuts the last)
TOKENS_PER_WORD = 1.3    # the first estimate of a pick's tokens (English prose, subword tokenizers); then measured


def choose_sentences(sentences: SentenceIndex, candidates: np.ndarray, relevance: np.ndarray,
                     terms: sparse.csr_matrix, weights: np.ndarray, room: int,
                     count: Callable[[str], int]) -> list[tuple[int, float]]:
    """(sentence id, value when chosen) in the order chosen; the values never rise (a term's weight only falls as
    it is covered), so they rank what was chosen. `candidates` (c,) sentence ids; `relevance` (c,) higher is better;
    `terms` (c, t) which question term each candidate has (0/1); `weights` (t,) each term's weight; `room` the
    tokens to fill, measured with `count` (approximately, and only when the estimate reaches the room: counting
    every pick cost more than the rest of the choice; the prompt's fill is exact)."""
    if candidates.size == 0 or room <= 0:
        return []
    terms = sparse.csr_matrix(terms, dtype=np.float64)
    dense = terms.toarray()   # candidates x terms is small (hundreds x tens): dense rows are cheapest to add
    lengths = np.maximum(sentences.words[candidates], 1).astype(np.float64)
    rel = np.asarray(relevance, dtype=np.float64)
    top = float(rel.max()) if rel.size else 0.0
    rel = rel / top if top > 0 else np.zeros_like(rel)
    covered = np.zeros(terms.shape[1])
    open_ = np.ones(candidates.size, dtype=bool)
    chosen: list[tuple[int, float]] = []
    words = 0
    ratio = TOKENS_PER_WORD   # tokens per word, measured on the picks whenever the estimate reaches the room
    while open_.any() and len(chosen) < MAX_PICKS:
        if words * ratio > room * ROOM_SLACK:
            ratio = count(" ".join(sentences.texts[c] for c, _ in chosen)) / max(words, 1)
            if words * ratio > room * ROOM_SLACK:
                break
        gain = dense @ (weights / (1.0 + covered) ** COVERAGE_DECAY) / lengths ** LENGTH_POWER
        score = np.where(open_, gain + RELEVANCE_WEIGHT * rel, -np.inf)
        pick = int(np.argmax(score))
        open_[pick] = False
        if gain[pick] <= 0 and rel[pick] <= 0:
            break
        chosen.append((int(candidates[pick]), float(score[pick])))
        covered += dense[pick]
        words += int(lengths[pick]) + 1
    return chosen


def group_by_passage(sentences: SentenceIndex,
                     picks: Sequence[tuple[int, float]]) -> list[tuple[int, list[int], float]]:
    """The picks grouped by passage: (passage row, sentence ids in reading order, value of its first pick), groups in
    the order of their first pick (so the prompt's exact fit, cutting from the end, drops the least useful)."""
    groups: dict[int, tuple[list[int], float]] = {}
    for s, value in picks:
        groups.setdefault(int(sentences.passage[s]), ([], value))[0].append(int(s))
    return [(row, sorted(ids), value) for row, (ids, value) in groups.items()]


def excerpt_runs(sentences: SentenceIndex, text: str, ids: Sequence[int]) -> list[str]:
    """The chosen sentences of one passage as the passage's own text: one slice of `text` per run of consecutive
    sentences (so each is a quotation the reader can find, line breaks and all), in reading order."""
    runs: list[list[int]] = []
    for s in sorted(ids):
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return [text[int(sentences.spans[run[0]][0]):int(sentences.spans[run[-1]][1])] for run in runs]

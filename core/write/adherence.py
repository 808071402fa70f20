"""Does a chapter follow its plan? (issue 34, item 5). Offline: for each planned beat, the passage of the chapter that
best matches it, and for each planned character, whether the chapter has them.

    result = check(text, plan, embed, graph_names={"Ebenezer Scrooge", "Scrooge"}, aliases={"Scrooge": [...]})
    [b.beat for b in result.beats if not b.found]          # the beats the chapter does not seem to have

A beat is a one-sentence summary ("Scrooge refuses to give to the charity collectors") and the chapter tells it in
many sentences, with dialogue, so a beat is compared with every window of WINDOW consecutive sentences (and every
single sentence): the MiniLM cosine of the beat and the window, plus OVERLAP_WEIGHT times the share of the beat's
content words (crudely stemmed: "refuses" and "refused" agree; names count as words) that the window holds. The best
window's score against THRESHOLD says found or missing. Both constants were chosen on the dev split of
bench/plan_adherence.py (hand-written beats of the shared novels' chapters, and beats of other chapters of the same
book as the negatives: the threshold that maximises the smaller of the two rates, and the smallest weight within one
beat of the best), then the held-back split was read once; bench/README.md has both figures.

A character is present when one of their names is among the names the chapter's graph counted (`graph_names`), or,
without a graph, when a name occurs in the text as a whole word. Pure: the embedder is passed in.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from core.ingest.sentences import split_sentences
from core.write.bible import named_in
from core.write.plan import ChapterPlan

EmbedFn = Callable[[Sequence[str]], np.ndarray]
WINDOW = 3
OVERLAP_WEIGHT = 1.0   # dev: 0.875 of both rates at 1.0, 0.889 at 3.0 (within one beat), 0.815 with MiniLM alone
THRESHOLD = 0.96
MAX_WINDOW_CHARS = 1200   # MiniLM reads 256 word pieces; a longer window is cut
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]+")
_STOP = frozenset("""a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has have having he
her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
off on once only or other our ours out over own same she should so some such than that the their theirs them then
there these they this those through to too under until up very was we were what when where which while who whom why
will with would you your yours yourself one two upon said says say tells tell told goes go went gets get got makes
make made comes come came takes take took again back still even much many chapter""".split())


@dataclass(frozen=True)
class BeatCheck:
    """One planned beat: found or not, its score (cosine + OVERLAP_WEIGHT * overlap of the best window), and the
    chapter's best-matching passage."""

    beat: str
    found: bool
    score: float
    similarity: float
    overlap: float
    passage: str


@dataclass(frozen=True)
class CharacterCheck:
    """One planned character: present or not, and how it was seen ("graph", "text", or "" when absent)."""

    name: str
    present: bool
    seen_in: str


@dataclass(frozen=True)
class Adherence:
    chapter: int
    beats: tuple[BeatCheck, ...]
    characters: tuple[CharacterCheck, ...]
    threshold: float
    note: str = ""

    @property
    def beats_found(self) -> int:
        return sum(b.found for b in self.beats)

    @property
    def characters_present(self) -> int:
        return sum(c.present for c in self.characters)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"beats_found": self.beats_found, "characters_present": self.characters_present}


def stems(text: str) -> set[str]:
    """The content words of `text`, lower-cased and cut to five letters (a stemmer good enough to match "refuses"
    with "refused" and "donation" with "donate"), stop words left out."""
    words = (w.lower().replace("’", "'").removesuffix("'s") for w in _WORD.findall(text))
    return {w[:5] for w in words if len(w) > 2 and w not in _STOP}


def windows(text: str, size: int = WINDOW) -> list[str]:
    """Every sentence of the text, and every run of `size` consecutive sentences (a beat is often told in several)."""
    sentences = [s for s in split_sentences(text) if s.strip()]
    runs = [" ".join(sentences[k:k + size]) for k in range(max(len(sentences) - size + 1, 0))] if size > 1 else []
    return [w[:MAX_WINDOW_CHARS] for w in dict.fromkeys([*sentences, *runs])]


def score_beats(beats: Sequence[str], passages: Sequence[str], embed: EmbedFn,
                overlap_weight: float = OVERLAP_WEIGHT) -> list[tuple[float, float, float, int]]:
    """Per beat: (score, cosine, overlap, index of the best passage); (0, 0, 0, -1) when there is no passage."""
    if not beats:
        return []
    if not passages:
        return [(0.0, 0.0, 0.0, -1) for _ in beats]
    vectors = embed([*beats, *passages])
    sims = vectors[:len(beats)] @ vectors[len(beats):].T
    passage_stems = [stems(p) for p in passages]
    out = []
    for k, beat in enumerate(beats):
        wanted = stems(beat)
        overlap = np.array([len(wanted & s) / len(wanted) if wanted else 0.0 for s in passage_stems])
        scores = sims[k] + overlap_weight * overlap
        best = int(np.argmax(scores))
        out.append((float(scores[best]), float(sims[k][best]), float(overlap[best]), best))
    return out


def character_checks(text: str, characters: Sequence[str], graph_names: Collection[str] | None,
                     aliases: Mapping[str, Sequence[str]] | None = None) -> list[CharacterCheck]:
    out = []
    for name in characters:
        names = list(dict.fromkeys([name, *(aliases or {}).get(name, ())]))
        if graph_names is not None and any(n in graph_names for n in names):
            out.append(CharacterCheck(name, True, "graph"))
        elif named_in(text, names):
            out.append(CharacterCheck(name, True, "text"))
        else:
            out.append(CharacterCheck(name, False, ""))
    return out


def check(text: str, plan: ChapterPlan, embed: EmbedFn, *, graph_names: Collection[str] | None = None,
          aliases: Mapping[str, Sequence[str]] | None = None, threshold: float = THRESHOLD,
          overlap_weight: float = OVERLAP_WEIGHT) -> Adherence:
    """The chapter `text` against its `plan` (see the module docstring)."""
    passages = windows(text)
    scored = score_beats(plan.beats, passages, embed, overlap_weight)
    beats = tuple(BeatCheck(b, score >= threshold, round(score, 4), round(sim, 4), round(overlap, 4),
                            passages[best] if best >= 0 else "")
                  for b, (score, sim, overlap, best) in zip(plan.beats, scored))
    note = "" if graph_names is not None else ("The chapter's graph is not built: characters were looked for by "
                                               "name in the text.")
    return Adherence(plan.chapter, beats, tuple(character_checks(text, plan.characters, graph_names, aliases)),
                     threshold, note)

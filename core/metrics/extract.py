"""What the retention metrics read from a chapter's text, with spaCy: named mentions (with the sentence each is in
and spaCy's label) and verb-mediated links (a named subject and a named object of the same verb).

Which of these names are characters is not decided here: with a knowledge graph, a name is a character when the
graph's entity of that name is one (core.kg.characters, the definition the Graph page uses: "Perrault" is one though
spaCy labels him an organization, "Colt" is none though it labels it a person); without one, the PERSON label decides,
as in the Remember Me paper.

The result keeps raw surface forms, not resolved names: resolving aliases and counting co-occurrences are cheap
and depend on settings (the alias graph, the window), while parsing is the slow part. So a chapter is parsed once
per revision and the stored extraction serves every later setting.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # spaCy is imported when a pipeline is loaded, not when the CLI starts
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

from core.metrics.aliases import HONORIFICS
from core.nlp import clean_for_parsing, load_spacy

EXTRACTOR_VERSION = 2  # bump when the payload's meaning changes: stored extractions of other versions are redone
ANALYSIS_KIND = "retention"   # the kind a chapter's extraction is stored under (Store.put_analysis)
PERSON = "PERSON"
# spaCy's labels of the names a knowledge graph may call a character (a dog labelled ORG, a man labelled GPE)
NAME_LABELS = frozenset({"PERSON", "ORG", "NORP", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART", "EVENT"})
# Skipped while parsing: verbs are recognised by the tagger's fine tags (VB*), so lemmas and the coarse POS of
# the attribute ruler are never read (saves ~13% of parsing time).
UNUSED_PIPES = ("lemmatizer", "attribute_ruler")
MAX_PASSAGE_CHARS = 20_000
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
OBJECT_DEPS = frozenset({"dobj", "dative", "iobj", "oprd"})
PREPOSITION_DEPS = frozenset({"prep", "agent"})
INHERITS_SUBJECT = frozenset({"xcomp", "conj"})  # "Darcy wanted to see Elizabeth": see's subject is Darcy

K = TypeVar("K")


def load_nlp() -> Language:
    """The app's one shared spaCy pipeline (core.nlp); UNUSED_PIPES are skipped per call, not unloaded."""
    return load_spacy()


@dataclass
class ChapterMentions:
    """Named mentions as (sentence number within the chapter, surface text, spaCy label), and (subject, object) verb
    links between named mentions."""

    sentences: int = 0
    mentions: list[tuple[int, str, str]] = field(default_factory=list)
    verb_links: list[tuple[str, str]] = field(default_factory=list)

    def to_payload(self) -> dict[str, Any]:
        return {"v": EXTRACTOR_VERSION, "sentences": self.sentences,
                "mentions": [list(m) for m in self.mentions], "verb_links": [list(v) for v in self.verb_links]}

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> "ChapterMentions | None":
        """None when the payload was written by another extractor version (it must be recomputed)."""
        if payload.get("v") != EXTRACTOR_VERSION:
            return None
        return cls(sentences=int(payload["sentences"]),
                   mentions=[(int(s), str(n), str(label)) for s, n, label in payload["mentions"]],
                   verb_links=[(str(a), str(b)) for a, b in payload["verb_links"]])

    def persons(self) -> set[str]:
        """The surface forms spaCy labelled PERSON in this chapter."""
        return {surface for _, surface, label in self.mentions if label == PERSON}


def split_passages(text: str) -> list[str]:
    """Paragraphs (split on blank lines, hard wraps and _italics_ marks removed by core.nlp.clean_for_parsing); a
    paragraph longer than MAX_PASSAGE_CHARS is cut after a sentence end so the parser never sees a huge document."""
    passages: list[str] = []
    for para in re.split(r"\n\s*\n", clean_for_parsing(text)):
        para = " ".join(para.split())
        while len(para) > MAX_PASSAGE_CHARS:
            cut = para.rfind(". ", 0, MAX_PASSAGE_CHARS)
            cut = cut + 1 if cut > 0 else MAX_PASSAGE_CHARS
            passages.append(para[:cut].strip())
            para = para[cut:].strip()
        if para:
            passages.append(para)
    return passages


def _surface(ent: Span) -> str:
    """The entity's text with the title spaCy leaves outside PERSON spans ("Mr." Darcy, "Mrs." Bennet): without
    it Mr. and Mrs. Bennet would be one person."""
    start = ent.start
    if start > 0 and ent.doc[start - 1].text.rstrip(".").lower() in HONORIFICS:
        start -= 1
    return " ".join(ent.doc[start:ent.end].text.split())


def _names(doc: Doc) -> dict[int, str]:
    """Token position -> the surface text of the named entity (NAME_LABELS) it belongs to."""
    return {t.i: _surface(ent) for ent in doc.ents if ent.label_ in NAME_LABELS for t in ent}


def _with_conjuncts(tokens: Iterable[Token]) -> list[Token]:
    return [c for t in tokens for c in (t, *t.conjuncts)]


def _verb_links(doc: Doc, persons: dict[int, str]) -> list[tuple[str, str]]:
    links: list[tuple[str, str]] = []
    for verb in doc:
        if not verb.tag_.startswith("VB"):
            continue
        subjects = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
        if not subjects and verb.dep_ in INHERITS_SUBJECT:
            subjects = [c for c in verb.head.children if c.dep_ in SUBJECT_DEPS]
        objects = [c for c in verb.children if c.dep_ in OBJECT_DEPS]
        objects += [g for c in verb.children if c.dep_ in PREPOSITION_DEPS for g in c.children if g.dep_ == "pobj"]
        subj_names = {persons[t.i] for t in _with_conjuncts(subjects) if t.i in persons}
        obj_names = {persons[t.i] for t in _with_conjuncts(objects) if t.i in persons}
        links += [(s, o) for s in sorted(subj_names) for o in sorted(obj_names) if s != o]
    return links


def _read_doc(doc: Doc, into: ChapterMentions) -> None:
    starts = [s.start for s in doc.sents]
    for ent in doc.ents:
        if ent.label_ in NAME_LABELS:
            into.mentions.append((into.sentences + bisect_right(starts, ent.start) - 1, _surface(ent), ent.label_))
    into.verb_links += _verb_links(doc, _names(doc))
    into.sentences += len(starts)


def read_docs(docs: Iterable[Doc]) -> ChapterMentions:
    """The extraction of a chapter already parsed, passage by passage in reading order (the graph build's parse:
    core.kg.offline.OfflineExtractor's `also`): the same reading as `extract_chapters` without a second parse."""
    into = ChapterMentions()
    for doc in docs:
        _read_doc(doc, into)
    return into


def extract_chapters(chapters: Iterable[tuple[K, str]], nlp: Language | None = None,
                     batch_size: int = 64) -> Iterator[tuple[K, ChapterMentions]]:
    """Parse chapters given as (key, text), yielding (key, extraction) as soon as each chapter is done.

    All passages go through one `nlp.pipe`, so batches span chapter boundaries and short chapters do not waste
    the batching; the caller can store each chapter as it arrives (a job killed midway keeps finished chapters).
    """
    nlp = nlp if nlp is not None else load_nlp()

    def passages() -> Iterator[tuple[str, tuple[K, int, int]]]:
        for key, text in chapters:
            parts = split_passages(text) or [""]
            for i, part in enumerate(parts):
                yield part, (key, i, len(parts))

    skip = [name for name in UNUSED_PIPES if name in nlp.pipe_names]
    current = ChapterMentions()
    for doc, (key, i, n) in nlp.pipe(passages(), as_tuples=True, batch_size=batch_size, disable=skip):
        _read_doc(doc, current)
        if i == n - 1:
            yield key, current
            current = ChapterMentions()


def extract_chapter(text: str, nlp: Language | None = None) -> ChapterMentions:
    return next(extract_chapters([(0, text)], nlp))[1]

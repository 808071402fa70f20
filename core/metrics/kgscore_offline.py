"""KGScore's entities (spaCy NER on the reference) and the offline edge extractor, which needs no LLM: the project's
Open IE triples (core.kg.openie) with the Andrus filters, restricted to the given entities.

A triple between two of the entities is an edge; a triple whose subject is an entity and whose object is not is a
self-loop on that entity whose predicate carries the rest ("Strike | takes over the ship" -> (strike, strike, "takes
over the ship")), the paper's "<subject>; [None]; <predicate>" (Appendix F: "a description or action of a single
entity"). A triple whose only entity is its object makes no edge: the prompt asks for named-entity subjects, and such
a loop ("the pilot takes | Retief") kept part of the credit when the shuffle moved the name that made it an edge.
Both summaries are read for exactly the same entities, as the paper does.

The paper used spaCy's transformer pipeline and an LLM that resolves "he" and "Hendricks" by itself; with the small
spaCy model and no LLM, three plain rules stand in (the same for both summaries):
- entities: spaCy's named entities, plus proper nouns the model missed that occur at least twice in the reference;
- names: an entity is also found by a word of its name when that word belongs to no other entity ("Hendricks" for
  "I.V. Hendricks"; honorifics and short words never count);
- pronouns (optional, off by default, see OfflineEdgeExtractor): the book graph's resolver (core.kg.coref), or the
  older rule (a "he"/"she" subject continues the last sentence that had an entity subject);
- interactions (optional): two entities named in one sentence that no verb triple joins get an "appears with" edge.

Papers: ../shared/seeds/long_story_summaries_kgscore.txt (section 3.5), with the Open IE triples and filters of
../shared/seeds/andrus2022_dynamic_document_kg.txt.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from core import nlp as nlp_helpers
from core.kg import coref
from core.kg.filters import violated_rule
from core.kg.mentions import find_mentions
from core.kg.names import ADDRESS_WORDS, HONORIFICS, normalize_name
from core.kg.openie import as_phrase, text_of, triples_from_sentence
from core.kg.types import CO_OCCURS
from core.metrics.score_edges import ScoreEdge, entity_key

_SIMPLE_TOKENS = re.compile(r"\w+|[^\w\s]")
SUBJECT_PRONOUNS = frozenset({"he", "she"})
MIN_REPEATS = 2
MIN_PART_CHARS = 3
Lookup = dict[int, tuple[int, int, str]]


def _parse(text: str, nlp: Any = None) -> Any:
    model = nlp or nlp_helpers.load_spacy()
    return next(nlp_helpers.pipe([nlp_helpers.clean_for_parsing(text)], nlp=model, disable=nlp_helpers.KG_DISABLE))


def _repeated_proper_nouns(doc: Any, covered: set[int]) -> list[str]:
    """Runs of title-case proper nouns outside the entity spans that occur at least MIN_REPEATS times."""
    runs: list[tuple[int, str]] = []
    i = 0
    while i < len(doc):
        j = i
        while j < len(doc) and j not in covered and doc[j].pos_ == "PROPN" and doc[j].text[:1].isupper() \
                and doc[j].text.replace(".", "").replace("-", "").isalnum():
            j += 1
        if j > i:
            name = normalize_name(doc[i:j].text)
            if name and name.lower().rstrip(".") not in ADDRESS_WORDS:
                runs.append((i, name))
            i = j
        else:
            i += 1
    counts = Counter(name for _, name in runs)
    return [name for name in dict.fromkeys(n for _, n in runs) if counts[name] >= MIN_REPEATS]


def reference_entities(text: str, nlp: Any = None) -> list[str]:
    """The named entities of a (reference) summary, first occurrence order, one name per entity key. A name that is
    another entity's name with an honorific in front ("Captain Anna Grey") or one word of exactly one other entity's
    name ("Grey") is not a separate entity: entity_lookup finds it as that entity."""
    doc = _parse(text, nlp)
    mentions = find_mentions(doc)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    seen: dict[str, str] = {}
    for name in [m.name for m in mentions] + _repeated_proper_nouns(doc, covered):
        key = entity_key(name)
        if key and key not in seen:
            seen[key] = name
    keys = set(seen)
    seen = {k: n for k, n in seen.items() if not (len(k.split()) > 1 and k.split()[0].rstrip(".") in HONORIFICS
                                                   and k.split(" ", 1)[1] in keys)}
    owners = Counter(w for k in seen if len(k.split()) > 1 for w in set(k.split()))
    return [name for key, name in seen.items() if len(key.split()) > 1 or owners[key] != 1]


def _aligned_words(tokens: Sequence[str]) -> tuple[str, ...]:
    """One lowered word per token, aligned with the tokens: a whitespace token (a paragraph break) is ""."""
    return tuple(w.lower().rstrip(".").replace("’", "'") if w.strip() else "" for w in tokens)


def _words(tokens: Sequence[str]) -> tuple[str, ...]:
    """A name's words (its whitespace dropped)."""
    return tuple(w for w in _aligned_words(tokens) if w)


def _doc_words(doc: Any) -> tuple[str, ...]:
    """The words of `doc` aligned with its token indices; "" matches no name. (Dropping whitespace tokens, as a
    name's words do, shifted every later index by one.)"""
    return _aligned_words([t.text for t in doc])


def name_patterns(entities: Sequence[str], tokenize: Callable[[str], list[str]]) -> dict[tuple[str, ...], str]:
    """Word sequences that denote each entity (its full name, and each distinctive word of a longer name) -> key."""
    full = {_words(tokenize(e)): entity_key(e) for e in entities}
    full = {w: k for w, k in full.items() if w}
    owners: dict[str, set[str]] = {}
    for words, key in full.items():
        if len(words) > 1:
            for w in words:
                owners.setdefault(w, set()).add(key)
    parts: dict[tuple[str, ...], str] = {(w,): next(iter(keys)) for w, keys in owners.items()
             if len(keys) == 1 and len(w) >= MIN_PART_CHARS and w.isalpha() and w not in HONORIFICS
             and w not in ADDRESS_WORDS and (w,) not in full}
    return {**parts, **full}


def entity_lookup(doc: Any, entities: Sequence[str], tokenize: Callable[[str], list[str]] | None = None) -> Lookup:
    """Token index -> (start, end, entity key) for every occurrence of an entity's words in `doc` (tokenize entity
    names the way `doc` was: pass the pipeline's tokenizer); the longest match wins. A capitalised word is needed
    for a one-word match, so "mars" the verb is not Mars."""
    by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for words, key in name_patterns(entities, tokenize or _SIMPLE_TOKENS.findall).items():
        by_first.setdefault(words[0], []).append((words, key))
    for options in by_first.values():
        options.sort(key=lambda p: -len(p[0]))
    lowered = _doc_words(doc)
    found: Lookup = {}
    i = 0
    while i < len(lowered):
        for words, key in by_first.get(lowered[i], ()):
            if lowered[i:i + len(words)] == words and any(t.text[:1].isupper() for t in doc[i:i + len(words)]):
                found.update({j: (i, i + len(words), key) for j in range(i, i + len(words))})
                i += len(words) - 1
                break
        i += 1
    return found


def resolve_subject_pronouns(doc: Any, found: Lookup) -> Lookup:
    """`found` plus "he"/"she" subjects mapped to the entity that was the subject of the nearest earlier sentence
    with an entity subject (a sentence with another entity subject takes over)."""
    out = dict(found)
    last: str | None = None
    for sent in doc.sents:
        subjects = [t for t in sent if t.dep_ in ("nsubj", "nsubjpass")]
        resolved = None
        for t in subjects:
            if t.i in found:
                resolved = resolved or found[t.i][2]
            elif t.lower_ in SUBJECT_PRONOUNS and last is not None:
                out[t.i] = (t.i, t.i + 1, last)
        last = resolved or last
    return out


def _phrase(tokens: list[Any], name: str | None, named: Lookup | None = None) -> list[tuple[str, str]]:
    """The filter's view of a phrase: a resolved pronoun counts as the proper noun it stands for."""
    if name and len(tokens) == 1 and (tokens[0].lower_ in SUBJECT_PRONOUNS
                                      or (named is not None and tokens[0].i not in named)):
        return [(name, "PROPN")]
    return as_phrase(tokens)


def resolve_pronouns(doc: Any, found: Lookup) -> Lookup:
    """`found` plus every pronoun the book graph's resolver (core.kg.coref: gender, recency, salience, binding,
    quotations) resolves to one of the entities."""
    spans = sorted({(s, e, key) for s, e, key in found.values()})
    resolved = coref.resolve_chapter([doc], [[coref.NamedSpan(s, e, key) for s, e, key in spans]]).refs[0]
    out = dict(found)
    for i, key in resolved.items():
        out.setdefault(i, (i, i + 1, key))
    return out


def _verb_of(r: Any) -> int:
    """The token index of the verb a triple was read from (its relation's last verb)."""
    verbs = [t.i for t in r.relation if t.pos_ in ("VERB", "AUX")]
    return verbs[-1] if verbs else r.relation[0].i


PRONOUN_MODES = ("none", "subject", "coref")


class OfflineEdgeExtractor:
    """Open IE edges of a summary for the given entities (spaCy parse, no LLM). `pronouns`: "none" (named ends
    only, the default), "subject" (the older rule) or "coref" (the book graph's resolver); `interactions` adds an
    "appears with" edge between two entities named in one sentence that no verb joins.

    The default is what the entity-shuffle check (bench/summaries.py) measured sharpest: resolving pronouns makes
    KGScore *less* sensitive to shuffled names, because gender agreement finds the true referent of "she" in a
    shuffled text ("Tom hires Anna. She pays him." still says Anna pays Tom), and interaction edges between
    same-type entities survive a same-type shuffle (F_KG drop, n = 25: none 25%, subject 15%, coref 12%).

    As the paper's prompt asks for "a diverse set of edges, never repeating similar edges", a verb that joins its
    subject to another entity gives that edge only, not also a self-loop for its other objects ("punches Lemuel in
    the face": the edge to Lemuel, no "punches in the face" loop); and, as its self-loop is "a description or action
    of a single entity", one action is one self-loop (`merge_actions`): "begin their adventure on the planet at odds"
    was three loops ("begin their adventure", "begin on the planet", "begin at odds") that each took credit. On the
    three SQuALITY question sets it was tried on, the shuffle drop rose on each (bench/README.md)."""

    name = "offline"

    def __init__(self, nlp: Any = None, pronouns: str = "none", interactions: bool = False,
                 merge_actions: bool = True) -> None:
        if pronouns not in PRONOUN_MODES:
            raise ValueError(f"pronouns must be one of {', '.join(PRONOUN_MODES)}")
        self.nlp, self.pronouns, self.interactions = nlp, pronouns, interactions
        self.merge_actions = merge_actions

    def extract(self, text: str, entities: Sequence[str]) -> list[ScoreEdge]:
        if not entities or not text.strip():
            return []
        model = self.nlp or nlp_helpers.load_spacy()
        doc = _parse(text, model)
        named = entity_lookup(doc, entities, lambda s: [t.text for t in model.tokenizer(s)])
        at = (resolve_pronouns(doc, named) if self.pronouns == "coref" else
              resolve_subject_pronouns(doc, named) if self.pronouns == "subject" else named)
        edges: list[ScoreEdge] = []
        for sent in doc.sents:
            joined: set[frozenset[str]] = set()
            kept = [r for r in triples_from_sentence(sent, at.get) if r.head_name and violated_rule(
                _phrase(r.head, r.head_name, named),
                as_phrase(r.relation) + ([(r.relation_suffix, "ADP")] if r.relation_suffix else []),
                _phrase(r.tail, r.tail_name, named)) is None]
            acted_on = {(r.head_name, _verb_of(r)) for r in kept if r.tail_name}
            actions: dict[tuple[str, int], list[Any]] = {}
            for r in kept:
                rel = " ".join(p for p in (text_of(r.relation), r.relation_suffix) if p).lower()
                if r.head_name and r.tail_name:
                    edges.append(ScoreEdge(r.head_name, r.tail_name, rel))
                    joined.add(frozenset((r.head_name, r.tail_name)))
                elif r.head_name and (r.head_name, _verb_of(r)) not in acted_on:
                    if self.merge_actions:
                        actions.setdefault((r.head_name, _verb_of(r)), []).extend([*r.relation, *r.tail])
                    else:
                        edges.append(ScoreEdge(r.head_name, r.head_name, f"{rel} {text_of(r.tail)}".strip()))
            for (head, _), tokens in actions.items():
                words = sorted({t.i: t for t in tokens}.values(), key=lambda t: t.i)
                edges.append(ScoreEdge(head, head, " ".join(t.text for t in words).lower()))
            if self.interactions:
                keys = list(dict.fromkeys(named[i][2] for i in range(sent.start, sent.end) if i in named))
                if 2 <= len(keys) <= coref.MAX_NAMES_PER_SENTENCE:
                    edges.extend(ScoreEdge(a, b, CO_OCCURS) for k, a in enumerate(keys) for b in keys[k + 1:]
                                 if frozenset((a, b)) not in joined)
        return list(dict.fromkeys(edges))

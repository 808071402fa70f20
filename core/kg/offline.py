"""The offline extractor (the default; no LLM): spaCy parse -> name mentions, Open IE triples, alias evidence.

Nodes are named entities. The small English model leaves honorifics out of PERSON spans ("Mr." + "Darcy"), so spans
are widened over a preceding honorific, and an honorific followed by proper nouns the model missed is a mention too.
The model's labels are noisy on fiction ("Lydia" is often ORG), so an occurrence with an honorific, or as the subject
of a speech verb ("said Lydia"), counts as a character whatever the label; resolution sums these votes per entity.

Triples come from core.kg.openie and pass the five Andrus rules (core.kg.filters). A triple whose subject or object
is a name mention is an edge; the rest are facts. Appositions such as "Elizabeth, or Beth, as everyone called her"
are alias evidence.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core import nlp as nlp_helpers
from core.kg.filters import RULE_NAMES, violated_rule
from core.kg.names import HONORIFICS, normalize_name
from core.kg.openie import as_phrase, text_of, triples_from_sentence
from core.kg.types import AliasLink, ChapterExtraction, NameMention, Triple

if TYPE_CHECKING:  # pragma: no cover
    from spacy.language import Language
    from spacy.tokens import Doc, Span

ENTITY_TYPES: dict[str, str] = {"PERSON": "character", "NORP": "organization", "ORG": "organization",
                                "GPE": "location", "LOC": "location", "FAC": "location", "EVENT": "event",
                                "WORK_OF_ART": "object", "PRODUCT": "object", "LAW": "object"}
SPEECH_VERBS = frozenset({"said", "says", "cried", "cries", "replied", "replies", "answered", "exclaimed", "asked",
                          "added", "continued", "observed", "returned", "rejoined", "whispered", "shouted",
                          "muttered", "murmured", "called", "thought", "laughed", "sighed", "smiled", "repeated",
                          "declared", "remarked", "began", "interrupted", "resumed", "inquired", "enquired"})
# Honorifics that make a mention a person ("St." and "Saint" name churches and streets as often as saints).
PERSON_HONORIFICS = frozenset(k for k in HONORIFICS if k not in ("st", "saint", "king", "queen", "m"))
# Between two names, these words say the second is another name of the first: "Elizabeth, or Beth", "X, called Y".
ALIAS_BRIDGES = frozenset({", or", ", or,", "(", ", called", ", known as", ", alias", ", nicknamed",
                           ", otherwise", ", whom they called", ", whom everyone called", ", or as"})
NO_ALIAS_BEFORE = frozenset({"either", "whether", "neither", "between"})


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    name: str
    type: str


@dataclass(frozen=True)
class ChapterText:
    index: int
    chunks: Sequence[str]


def _is_honorific(token_text: str) -> bool:
    return token_text[:1].isupper() and token_text.rstrip(".").lower() in PERSON_HONORIFICS


def find_mentions(doc: Doc) -> list[Mention]:
    """Named-entity mentions with honorifics attached, possessives removed and names normalised."""
    found: list[Mention] = []
    covered: set[int] = set()
    for ent in doc.ents:
        etype = ENTITY_TYPES.get(ent.label_)
        if etype is None:
            continue
        start, end = ent.start, ent.end
        while start > 0 and start > ent.start - 2 and _is_honorific(doc[start - 1].text):
            start -= 1
        while end > start and doc[end - 1].text in ("'s", "’s", "'", "’"):
            end -= 1
        while start < end and doc[start].pos_ != "PROPN" and not _is_honorific(doc[start].text):
            start += 1  # "Come, Darcy" / "Dear Lizzy": the model's span starts too early
        name = normalize_name(doc[start:end].text) if end > start else None
        if not name:
            continue
        if start < ent.start or _is_honorific(doc[start].text):
            etype = "character"
        found.append(Mention(start, end, name, etype))
        covered.update(range(start, end))
    for tok in doc:
        if tok.i in covered or not _is_honorific(tok.text) or tok.i + 1 >= len(doc):
            continue
        end = tok.i + 1
        while end < len(doc) and doc[end].pos_ == "PROPN" and end not in covered and end - tok.i <= 4:
            end += 1
        if end > tok.i + 1:
            name = normalize_name(doc[tok.i:end].text)
            if name:
                found.append(Mention(tok.i, end, name, "character"))
                covered.update(range(tok.i, end))
    found.sort(key=lambda m: m.start)
    return [_speech_vote(doc, m) for m in found]


def _speech_vote(doc: Doc, mention: Mention) -> Mention:
    root = doc[mention.end - 1]
    if mention.type != "character" and root.dep_ == "nsubj" and root.head.lower_ in SPEECH_VERBS:
        return Mention(mention.start, mention.end, mention.name, "character")
    return mention


def alias_links(sent: Span, mentions: list[Mention], chunk_index: int) -> list[AliasLink]:
    """Appositions between consecutive names in a sentence ("Elizabeth, or Beth, as everyone called her")."""
    doc = sent.doc
    inside = [m for m in mentions if sent.start <= m.start and m.end <= sent.end]
    links: list[AliasLink] = []
    for first, second in zip(inside, inside[1:]):
        bridge = " ".join(t.lower_ for t in doc[first.end:second.start]).replace(" ,", ",")
        bridge = bridge if bridge.startswith(("(", ",")) else ""
        if bridge not in ALIAS_BRIDGES or first.name == second.name:
            continue
        if any(t.lower_ in NO_ALIAS_BEFORE for t in doc[max(sent.start, first.start - 3):first.start]):
            continue  # "either from the Archbishop, or Lady Catherine": alternatives, not aliases
        after = doc[second.end].text if second.end < len(doc) else ""
        if bridge.startswith(", or") and after not in (",", ")", ";", "as", "—", "-", "."):
            continue  # "Jane, or Elizabeth will go" offers a choice; a true alias is parenthetical
        links.append(AliasLink(first.name, second.name, "apposition", chunk_index, " ".join(sent.text.split())))
    return links


def extract_doc(doc: Doc, chunk_index: int, stats: Counter[str]) -> tuple[list[Triple], Counter[tuple[str, str]],
                                                                          list[AliasLink]]:
    """Triples (filtered), mention counts per (name, type) and alias links of one parsed passage."""
    mentions = find_mentions(doc)
    at: dict[int, tuple[int, int, str]] = {}
    for m in mentions:
        for i in range(m.start, m.end):
            at[i] = (m.start, m.end, m.name)
    lookup = at.get
    triples: list[Triple] = []
    aliases: list[AliasLink] = []
    for sent in doc.sents:
        stats["sentences"] += 1
        raw = triples_from_sentence(sent, lookup)
        if raw:
            sentence = " ".join(sent.text.split())
            for r in raw:
                stats["candidates"] += 1
                relation = as_phrase(r.relation) + ([(r.relation_suffix, "ADP")] if r.relation_suffix else [])
                rule = violated_rule(as_phrase(r.head), relation, as_phrase(r.tail))
                if rule is not None:
                    stats[f"dropped_{RULE_NAMES[rule]}"] += 1
                    continue
                relation_text = " ".join(p for p in (text_of(r.relation), r.relation_suffix) if p).lower()
                triples.append(Triple(text_of(r.head), relation_text, text_of(r.tail), sentence, chunk_index,
                                      r.head_name, r.tail_name))
        if len(mentions) > 1:
            aliases.extend(alias_links(sent, mentions, chunk_index))
    counts: Counter[tuple[str, str]] = Counter((m.name, m.type) for m in mentions)
    return triples, counts, aliases


class OfflineExtractor:
    """Extracts chapters with one streaming `nlp.pipe` over all their passages (batched across chapters)."""

    name = "offline"

    def __init__(self, nlp: Language | None = None, batch_size: int = nlp_helpers.DEFAULT_BATCH_SIZE,
                 n_process: int = 1) -> None:
        self.nlp = nlp
        self.batch_size = batch_size
        self.n_process = n_process

    def extract(self, chapters: Iterable[ChapterText], known: object = None) -> Iterator[ChapterExtraction]:
        """One ChapterExtraction per chapter, in order. Stopping early (closing the generator) stops the parse.
        `known` (the graph so far) is accepted for a common interface and not needed here."""
        order = list(chapters)
        items = ((nlp_helpers.clean_for_parsing(text), (ch.index, j)) for ch in order for j, text in
                 enumerate(ch.chunks))
        docs = nlp_helpers.pipe_with_context(items, nlp=self.nlp or nlp_helpers.load_spacy(),
                                             disable=nlp_helpers.KG_DISABLE, batch_size=self.batch_size,
                                             n_process=self.n_process)
        try:
            for chapter in order:
                yield self._chapter(chapter, docs)
        finally:
            close = getattr(docs, "close", None)
            if close:
                close()

    def _chapter(self, chapter: ChapterText, docs: Iterator) -> ChapterExtraction:
        ext = ChapterExtraction(chapter.index)
        stats: Counter[str] = Counter()
        for _ in range(len(chapter.chunks)):
            doc, (_, chunk_index) = next(docs)
            triples, counts, aliases = extract_doc(doc, chunk_index, stats)
            ext.triples.extend(triples)
            ext.aliases.extend(aliases)
            ext.mentions.extend(NameMention(name, etype, chunk_index, n) for (name, etype), n in counts.items())
        stats["edges"] = sum(1 for t in ext.triples if t.is_edge)
        stats["facts"] = len(ext.triples) - stats["edges"]
        stats["mentions"] = sum(m.count for m in ext.mentions)
        ext.stats = dict(stats)
        return ext

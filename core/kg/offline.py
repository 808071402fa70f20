"""The offline extractor (the default; no LLM): spaCy parse -> name mentions, Open IE triples, alias evidence.

Nodes are named entities. The small English model leaves honorifics out of PERSON spans ("Mr." + "Darcy"), so spans
are widened over a preceding honorific, and an honorific followed by proper nouns the model missed is a mention too.
The model's labels are noisy on fiction ("Lydia" is often ORG), so an occurrence with an honorific, or as the subject
of a speech verb ("said Lydia"), counts as a character whatever the label; resolution sums these votes per entity.
A name found once in a chapter is a mention wherever the chapter writes it (propagate_names), and a letter's
signature is a character's name (core.kg.letters).

Triples come from core.kg.openie and pass the five Andrus rules (core.kg.filters). A triple whose subject or object
is a name mention is an edge; the rest are facts. Appositions such as "Elizabeth, or Beth, as everyone called her"
are alias evidence.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core import nlp as nlp_helpers
from core.kg import coref as coref_rules
from core.kg import letters
from core.kg.coref_words import SPEECH_VERBS
from core.kg.filters import RULE_NAMES, violated_rule
from core.kg.names import HONORIFICS, normalize_name
from core.kg.openie import as_phrase, text_of, triples_from_sentence
from core.kg.types import CO_MENTIONED, CO_OCCURS, SPEAKS_TO, AliasLink, ChapterExtraction, NameMention, Triple

if TYPE_CHECKING:  # pragma: no cover
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

ENTITY_TYPES: dict[str, str] = {"PERSON": "character", "NORP": "organization", "ORG": "organization",
                                "GPE": "location", "LOC": "location", "FAC": "location", "EVENT": "event",
                                "WORK_OF_ART": "object", "PRODUCT": "object", "LAW": "object"}
# Honorifics that make a mention a person ("St." and "Saint" name churches and streets as often as saints).
PERSON_HONORIFICS = frozenset(k for k in HONORIFICS if k not in ("st", "saint", "king", "queen", "m"))
# Between two names, these words say the second is another name of the first: "Elizabeth, or Beth", "X, called Y".
ALIAS_BRIDGES = frozenset({", or", ", or,", "(", ", called", ", known as", ", alias", ", nicknamed",
                           ", otherwise", ", whom they called", ", whom everyone called", ", or as"})
NO_ALIAS_BEFORE = frozenset({"either", "whether", "neither", "between"})


# Characters a book never names but keeps calling by one description: Frankenstein's creature, a stranger, the
# jailer. A descriptor becomes an entity ("the creature") in a chapter that uses it at least DESCRIPTOR_MIN times
# with "the", once at least as a subject. People nouns as generic as "man" or "girl" are left out (every man of a
# chapter would be one node), and so are ghost and spirit (capitalised, they are names already).
DESCRIPTORS = frozenset("""creature monster daemon demon fiend wretch stranger giant dwarf witch wizard hermit beggar
traveller traveler sailor soldier landlord landlady innkeeper shopkeeper gardener servant housekeeper butler
coachman footman postman clerk lawyer magistrate priest parson vicar curate clergyman squire governess tutor jailer
gaoler prisoner murderer thief robber convict detective inspector sheriff chief""".split())
DESCRIPTOR_MIN = 3
NEARBY_SENTENCES = 2   # names this many sentences apart in one paragraph are "mentioned with" each other
COPULA = frozenset({"be", "am", "is", "are", "was", "were", "'m", "’m", "'s", "’s", "'re", "’re"})


# Capitalised at the start of a sentence, these are not names ("Whereupon he rose": the model calls it an ORG).
NOT_NAMES = frozenset("""whereupon meanwhile nevertheless however presently suddenly thereupon henceforth hence
thence therefore moreover furthermore besides perhaps indeed accordingly afterwards afterward instantly immediately
yonder hullo hallo hello goodbye farewell alas hurrah hurray bravo amen ay aye nay yea ha hah oho aha hush hark
behold lo pshaw bah humbug tut""".split())


# Titles that name one character when written "the Queen", "the King" (Alice's Queen of Hearts is "the Queen"
# throughout); a bare title is otherwise no name (core.kg.names.ADDRESS_WORDS), and "the" + a title + a name is the
# usual honorific ("the Duke of X" keeps its own span).
TITLE_NAMES = frozenset({"king", "queen", "duchess", "duke", "prince", "princess", "judge", "colonel", "captain",
                         "doctor", "professor", "emperor", "empress", "squire", "major", "general", "count",
                         "countess", "baron", "baroness", "governor", "sheriff", "abbot", "bishop", "cardinal"})


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    name: str
    type: str
    evidence: bool = False      # typed by what the text says (honorific, speech verb), not the NER label alone


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
        commas = [i for i in range(start, end) if doc[i].text in (",", "!", "?", ";", ":", "—")]
        if commas:
            start = commas[-1] + 1  # "Come, Spitz": a vocative inside the model's span
        while start < end and doc[start].pos_ != "PROPN" and not _is_honorific(doc[start].text):
            start += 1  # "Come, Darcy" / "Dear Lizzy": the model's span starts too early
        name = normalize_name(doc[start:end].text) if end > start else None
        if not name or (end - start == 1 and (doc[start].lower_ in NOT_NAMES or doc[start].is_stop)):
            continue
        evidence = start < ent.start or _is_honorific(doc[start].text)
        if evidence:
            etype = "character"
        found.append(Mention(start, end, name, etype, evidence))
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
                found.append(Mention(tok.i, end, name, "character", True))
                covered.update(range(tok.i, end))
    i = 0
    while i < len(doc):  # "the Ghost of Christmas Past": a capitalised name after "the" that the model missed
        end = _title_run(doc, i, covered) if i > 0 and doc[i - 1].lower_ == "the" else i
        if end - i >= 2:
            name = normalize_name(doc[i:end].text)
            if name:
                found.append(Mention(i, end, name, "object"))
                covered.update(range(i, end))
            i = end
        else:
            i += 1
    for tok in doc:  # "the Queen", "the King": a bare title used as the name of one character
        if (tok.i in covered or tok.lower_ not in TITLE_NAMES or not tok.text[:1].isupper() or tok.is_sent_start
                or tok.i == 0 or doc[tok.i - 1].lower_ != "the"
                or (tok.i + 1 < len(doc) and doc[tok.i + 1].pos_ == "PROPN")):
            continue
        found.append(Mention(tok.i, tok.i + 1, tok.text.capitalize(), "character"))
        covered.add(tok.i)
    paras = letters.paragraphs(doc)
    for previous, paragraph in zip([None, *paras], paras):  # a letter's signature: "R. Walton", "LYDIA BENNET."
        span = letters.signature_span(doc, paragraph, previous) or letters.closing_signature_span(doc, paragraph)
        name = normalize_name(span.text) if span is not None else None
        if span is not None and name:
            found = [m for m in found if m.end <= span.start or m.start >= span.end]
            found.append(Mention(span.start, span.end, name, "character", True))
    found.sort(key=lambda m: m.start)
    return [_speech_vote(doc, m) for m in found]


def _title_run(doc: Doc, start: int, covered: set[int]) -> int:
    """The end of a run of capitalised proper nouns from `start` ("Ghost of Christmas Past", "Goodwood Plunger";
    "of" may join two of them), or `start` when there is none."""
    end = start
    while end < len(doc) and end not in covered and end - start < 6:
        tok = doc[end]
        if tok.pos_ == "PROPN" and tok.text[:1].isupper() and tok.text.isalpha():
            end += 1
        elif (tok.lower_ == "of" and end > start and end + 1 < len(doc) and doc[end + 1].pos_ == "PROPN"
              and doc[end + 1].text[:1].isupper()):
            end += 1
        else:
            break
    while end > start and doc[end - 1].lower_ == "of":
        end -= 1
    return end


def _speech_vote(doc: Doc, mention: Mention) -> Mention:
    root = doc[mention.end - 1]
    if not mention.evidence and root.dep_ == "nsubj" and root.head.lower_ in SPEECH_VERBS:
        return Mention(mention.start, mention.end, mention.name, "character", True)
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


Lemma = Callable[["Token"], str]


def _lower(tok: Token) -> str:
    return tok.lower_


def relation_label(relation: Sequence[Token], suffix: str = "", lemma: Lemma = _lower) -> str:
    """A readable predicate: the verb's lemma with its particle, preposition or noun ("sold ... to" -> "sell to",
    "wanted to see" -> "want to see"); a passive keeps its participle ("was taken by" -> "taken by")."""
    passive = any(t.dep_ == "auxpass" for t in relation)
    negated = any(t.dep_ == "neg" for t in relation)
    words = []
    for t in relation:
        if t.dep_ in ("auxpass", "neg") or (t.dep_ == "aux" and t.lower_ != "to"):
            continue
        words.append(lemma(t).lower() if t.pos_ in ("VERB", "AUX") and not passive else t.lower_)
    if suffix:
        words.append(suffix)
    label = " ".join(w for w in words if w.strip())
    return f"not {label}" if negated and label else label


def _render(tokens: list[Token], name: str | None, refs: dict[int, str]) -> tuple[str, list[tuple[str, str]]]:
    """A phrase's text and (word, POS) pairs with resolved pronouns replaced by the names they refer to: "He" ->
    "Manuel", "his master" -> "Buck's master". Unresolved pronouns stay, and the Andrus rules judge them."""
    if name and tokens and all(t.i in refs for t in tokens):
        return name, [(name, "PROPN")]
    if not any(t.i in refs for t in tokens):
        return text_of(tokens), as_phrase(tokens)
    parts: list[str] = []
    phrase: list[tuple[str, str]] = []
    for t in tokens:
        ref = refs.get(t.i)
        if ref is None:
            parts.append(t.text)
            phrase.append((t.text, t.pos_))
        else:
            word = f"{ref}'s" if t.dep_ == "poss" else ref
            parts.append(word)
            phrase.append((word, "PROPN"))
    return " ".join(parts), phrase


def extract_doc(doc: Doc, chunk_index: int, stats: Counter[str], *, mentions: list[Mention] | None = None,
                refs: dict[int, str] | None = None, types: dict[str, str] | None = None,
                lemma: Lemma = _lower) -> tuple[list[Triple], Counter[tuple[str, str]], list[AliasLink]]:
    """Triples (filtered), mention counts per (name, type) and alias links of one parsed passage.

    `refs` maps pronoun tokens to the names they were resolved to (core.kg.coref), which makes "He sold Buck" an
    edge from the right man; `types` is the chapter's evidence-based type per name (overriding the NER label).
    Interaction edges join two entities in one sentence (named, or referred to by a resolved pronoun) that no verb
    triple of the sentence joins: "appears with" for two characters, "mentioned with" otherwise; and names at most
    NEARBY_SENTENCES apart in one paragraph are "mentioned with" each other (once per pair and paragraph)."""
    mentions = find_mentions(doc) if mentions is None else mentions
    refs = refs or {}
    types = types or {}
    at: dict[int, tuple[int, int, str]] = {i: (i, i + 1, name) for i, name in refs.items()}
    for m in mentions:
        for i in range(m.start, m.end):
            at[i] = (m.start, m.end, m.name)
    lookup = at.get
    triples: list[Triple] = []
    aliases: list[AliasLink] = []
    starts = {m.start: m for m in mentions}
    kinds = {m.name: m.type for m in mentions}
    breaks = [t.i for t in doc if t.is_space and "\n" in t.text]
    window: list[tuple[str, list[str]]] = []
    linked: set[frozenset[str]] = set()
    window_paragraph = -1
    for sent in doc.sents:
        stats["sentences"] += 1
        raw = triples_from_sentence(sent, lookup)
        sentence = " ".join(sent.text.split())
        joined: set[frozenset[str]] = set()
        for r in raw:
            stats["candidates"] += 1
            relation = as_phrase(r.relation) + ([(r.relation_suffix, "ADP")] if r.relation_suffix else [])
            head_text, head = _render(r.head, r.head_name, refs)
            tail_text, tail = _render(r.tail, r.tail_name, refs)
            rule = violated_rule(head, relation, tail)
            if rule is not None:
                stats[f"dropped_{RULE_NAMES[rule]}"] += 1
                continue
            label = relation_label(r.relation, r.relation_suffix, lemma)
            if (r.head_name and r.tail_name and r.head_name != r.tail_name and not r.relation_suffix
                    and all(t.lower_ in COPULA for t in r.relation if t.dep_ != "neg")
                    and all(t.i in refs for t in r.head)):
                stats["dropped_identity"] += 1   # "I am Mr. Holmes" (I resolved to "Mr. Sherlock Holmes"): one
                joined.add(frozenset((r.head_name, r.tail_name)))   # person under two names, not two people
                continue
            if any(t.i in refs for t in (*r.head, *r.tail)):
                stats["coref_triples"] += 1
            relation_text = " ".join(p for p in (text_of(r.relation), r.relation_suffix) if p).lower()
            triples.append(Triple(head_text, relation_text, tail_text, sentence, chunk_index, r.head_name,
                                  r.tail_name, label))
            if r.head_name and r.tail_name:
                joined.add(frozenset((r.head_name, r.tail_name)))
        present = [starts[i].name if i in starts else refs[i] for i in range(sent.start, sent.end)
                   if i in starts or i in refs]
        names = list(dict.fromkeys(present))
        paragraph = bisect_left(breaks, sent.start)
        if paragraph != window_paragraph:
            window, linked, window_paragraph = [], set(), paragraph
        linked |= joined
        if 2 <= len(names) <= coref_rules.MAX_NAMES_PER_SENTENCE:
            for k, a in enumerate(names):
                for b in names[k + 1:]:
                    if frozenset((a, b)) in joined:
                        continue
                    linked.add(frozenset((a, b)))
                    both = types.get(a, kinds.get(a)) == types.get(b, kinds.get(b)) == "character"
                    relation = CO_OCCURS if both else CO_MENTIONED
                    triples.append(Triple(a, relation, b, sentence, chunk_index, a, b, relation))
                    stats["co_occurrence_edges" if both else "co_mention_edges"] += 1
        explicit = list(dict.fromkeys(starts[i].name for i in range(sent.start, sent.end) if i in starts))
        if len(explicit) <= coref_rules.MAX_NAMES_PER_SENTENCE:
            for earlier, earlier_names in window:  # names a sentence or two apart in one paragraph
                for a in earlier_names:
                    for b in explicit:
                        if a != b and frozenset((a, b)) not in linked:
                            linked.add(frozenset((a, b)))
                            triples.append(Triple(a, CO_MENTIONED, b, f"{earlier} {sentence}"[:1000], chunk_index,
                                                  a, b, CO_MENTIONED))
                            stats["nearby_mention_edges"] += 1
            window = [*window, (sentence, explicit)][-NEARBY_SENTENCES:] if explicit else window
        if len(mentions) > 1:
            aliases.extend(alias_links(sent, mentions, chunk_index))
    counts: Counter[tuple[str, str]] = Counter((m.name, types.get(m.name, m.type)) for m in mentions)
    return triples, counts, aliases


def descriptor_mentions(docs: Sequence[Doc], mentions: list[list[Mention]]) -> list[list[Mention]]:
    """`mentions` plus the chapter's recurring descriptions of unnamed characters ("the creature"), see DESCRIPTORS."""
    found: list[tuple[int, int, str]] = []
    subjects: Counter[str] = Counter()
    for d, doc in enumerate(docs):
        covered = {i for m in mentions[d] for i in range(m.start, m.end)}
        for tok in doc:
            if (tok.pos_ == "NOUN" and _unligatured(tok.lower_) in DESCRIPTORS and tok.i not in covered
                    and any(c.dep_ == "det" and c.lower_ == "the" for c in tok.children)):
                name = f"the {tok.lower_}"
                found.append((d, tok.i, name))
                subjects[name] += tok.dep_ in ("nsubj", "nsubjpass")
    counts = Counter(name for _, _, name in found)
    out = [list(per_doc) for per_doc in mentions]
    for d, i, name in found:
        if counts[name] >= DESCRIPTOR_MIN and subjects[name]:
            out[d].append(Mention(i, i + 1, name, "character", True))
    for per_doc in out:
        per_doc.sort(key=lambda m: m.start)
    return out


def propagate_names(docs: Sequence[Doc], mentions: list[list[Mention]]) -> list[list[Mention]]:
    """`mentions` plus every other occurrence in the chapter of a name written as one of them: a name is a name
    throughout a chapter (one sense per discourse), though the model labels it in one sentence and not in the next
    ("There goes Bill!"). Only capitalised forms count; at the start of a sentence only where the parser calls the
    word a proper noun ("Will you..."); a form followed or preceded by another proper noun is part of a longer name
    and left alone."""
    forms: dict[tuple[str, ...], set[tuple[str, str]]] = defaultdict(set)
    for doc, per_doc in zip(docs, mentions):
        for m in per_doc:
            words = tuple(t.text for t in doc[m.start:m.end])
            if words and words[0][:1].isupper():
                forms[words].add((m.name, m.type))
    by_first: dict[str, list[tuple[tuple[str, ...], str, str]]] = defaultdict(list)
    for words, owners in forms.items():
        names = {name for name, _ in owners}
        if len(names) == 1:
            types = Counter(t for _, t in owners)
            by_first[words[0]].append((words, names.pop(), types.most_common(1)[0][0]))
    if not by_first:
        return mentions
    out = []
    for doc, per_doc in zip(docs, mentions):
        covered = {i for m in per_doc for i in range(m.start, m.end)}
        added = []
        for tok in doc:
            candidates = by_first.get(tok.text)
            if not candidates or tok.i in covered:
                continue
            if tok.is_sent_start and tok.pos_ != "PROPN":
                continue
            if tok.i > 0 and doc[tok.i - 1].pos_ == "PROPN" and doc[tok.i - 1].text[:1].isupper():
                continue
            for words, name, etype in sorted(candidates, key=lambda c: -len(c[0])):
                end = tok.i + len(words)
                if (end <= len(doc) and all(doc[k].text == w for k, w in zip(range(tok.i, end), words))
                        and not any(k in covered for k in range(tok.i, end))
                        and not (end < len(doc) and doc[end].pos_ == "PROPN" and doc[end].text[:1].isupper())):
                    added.append(Mention(tok.i, end, name, etype))
                    covered.update(range(tok.i, end))
                    break
        out.append(sorted([*per_doc, *added], key=lambda m: m.start) if added else per_doc)
    return out


def _unligatured(word: str) -> str:
    """"dæmon" -> "daemon": the old ligatures spelled out, for looking a word up in a list."""
    return word.replace("æ", "ae").replace("œ", "oe") if "æ" in word or "œ" in word else word


def chapter_types(mentions: Sequence[Sequence[Mention]], found: coref_rules.ChapterCoref,
                  with_article: Counter[str] | None = None) -> dict[str, str]:
    """The type the chapter's evidence gives each name, where it gives one: referred to as he/she, speaking, being
    addressed, an honorific or a speech verb make a character; prepositions of place and place words a location; a
    name mostly written with "the" ("the Narwhal", "the Government", "the Yeehats") is not a person unless it
    speaks or is "he"/"she" more than once ("the Queen", "the White Rabbit" are). Names without evidence keep their
    NER label, mention by mention."""
    character = Counter(found.character_evidence)
    honorific: Counter[str] = Counter()
    total: Counter[str] = Counter()
    ner: dict[str, Counter[str]] = defaultdict(Counter)
    for per_doc in mentions:
        for m in per_doc:
            total[m.name] += 1
            ner[m.name][m.type] += 1
            if m.evidence:
                character[m.name] += 1
                honorific[m.name] += 1
    with_article = with_article or Counter()
    out: dict[str, str] = {}
    for name in total:
        person, place = character.get(name, 0), found.place_evidence.get(name, 0)
        if not honorific[name] and with_article[name] * 2 >= total[name] and found.character_evidence[name] < 2:
            labels = ner[name]
            best = max((t for t in labels if t != "character"), key=lambda t: labels[t], default=None)
            out[name] = "location" if place > 0 else best or ("organization" if name.endswith("s") else "object")
        elif person >= 1 and person >= place:
            out[name] = "character"
        elif place >= 1 and place > person:
            out[name] = "location"
    return out


# Stored with each chapter's stats: a chapter read by an older version is read again by the next build, so a graph
# built before pronoun resolution gains it without the user having to ask for a full re-read.
VERSION = "offline-3"


class OfflineExtractor:
    """Extracts chapters with one streaming `nlp.pipe` over all their passages (batched across chapters)."""

    name = "offline"
    version = VERSION

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

    def _lemma(self) -> Lemma:
        try:
            lemmatizer = (self.nlp or nlp_helpers.load_spacy()).get_pipe("lemmatizer")
        except (KeyError, AttributeError):  # a pipeline without one: surface forms
            return _lower
        rule = getattr(lemmatizer, "rule_lemmatize", None)
        if rule is None:
            return _lower
        return lambda tok: (rule(tok) or [tok.lower_])[0]

    def _chapter(self, chapter: ChapterText, docs: Iterator) -> ChapterExtraction:
        """Parse-level extraction of one chapter: its passages' docs are read first, so pronouns resolve across
        passage boundaries and the chapter's evidence types every mention of a name."""
        ext = ChapterExtraction(chapter.index)
        stats: Counter[str] = Counter()
        parsed = [next(docs) for _ in range(len(chapter.chunks))]
        docs = [doc for doc, _ in parsed]
        mentions = propagate_names(docs, descriptor_mentions(docs, [find_mentions(doc) for doc, _ in parsed]))
        spans = [[coref_rules.NamedSpan(m.start, m.end, m.name) for m in per_doc] for per_doc in mentions]
        ner = [{m.name: m.type for m in per_doc} for per_doc in mentions]
        found = coref_rules.resolve_chapter([doc for doc, _ in parsed], spans, ner)
        with_article: Counter[str] = Counter(m.name for (doc, _), per_doc in zip(parsed, mentions) for m in per_doc
                                             if m.start > 0 and doc[m.start - 1].lower_ == "the")
        types = chapter_types(mentions, found, with_article)
        lemma = self._lemma()
        for k, (doc, (_, chunk_index)) in enumerate(parsed):
            triples, counts, aliases = extract_doc(doc, chunk_index, stats, mentions=mentions[k], refs=found.refs[k],
                                                   types=types, lemma=lemma)
            ext.triples.extend(triples)
            ext.aliases.extend(aliases)
            ext.mentions.extend(NameMention(name, etype, chunk_index, n) for (name, etype), n in counts.items())
        for q in found.quotes:
            if q.speaker and q.addressee and q.speaker != q.addressee:
                ext.triples.append(Triple(q.speaker, SPEAKS_TO, q.addressee, q.sentence, parsed[q.doc][1][1],
                                          q.speaker, q.addressee, SPEAKS_TO))
                stats["dialogue_edges"] += 1
        stats.update({k: v for k, v in found.stats.items()})
        stats["edges"] = sum(1 for t in ext.triples if t.is_edge)
        stats["facts"] = len(ext.triples) - stats["edges"]
        stats["mentions"] = sum(m.count for m in ext.mentions)
        ext.stats = {**stats, "version": VERSION}
        return ext

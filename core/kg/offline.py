"""The offline extractor (the default; no LLM): spaCy parse -> name mentions, Open IE triples, alias evidence.

Nodes are named entities, found by core.kg.mentions (honorifics, speech votes, descriptors, names propagated through
a chapter). Resolution sums the chapter's evidence per name to type it (chapter_types), overriding the model's noisy
NER labels.

Triples come from core.kg.openie and pass the five Andrus rules (core.kg.filters). A triple whose subject or object
is a name mention is an edge; the rest are facts. Appositions such as "Elizabeth, or Beth, as everyone called her"
are alias evidence.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core import nlp as nlp_helpers
from core.kg import coref as coref_rules
from core.kg.coref_words import shape_type
from core.kg.filters import RULE_NAMES, violated_rule
from core.kg.given_names import is_first_name, is_given_name, same_given_name
from core.kg.mentions import Mention, descriptor_mentions, drop_exclamations, find_mentions, propagate_names
from core.kg.names import parse_name, title_class
from core.kg.openie import agreeing, as_phrase, text_of, triples_from_sentence
from core.kg.states import STATES_VERSION, chapter_states
from core.kg.types import CO_MENTIONED, CO_OCCURS, SPEAKS_TO, AliasLink, ChapterExtraction, NameMention, Triple

if TYPE_CHECKING:  # pragma: no cover
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token


# Between two names, these words say the second is another name of the first: "Elizabeth, or Beth", "X, called Y".
ALIAS_BRIDGES = frozenset({", or", ", or,", "(", ", called", ", known as", ", alias", ", nicknamed",
                           ", otherwise", ", whom they called", ", whom everyone called", ", or as"})
NO_ALIAS_BEFORE = frozenset({"either", "whether", "neither", "between"})
NEARBY_SENTENCES = 2   # names this many sentences apart in one paragraph are "mentioned with" each other
# How the name of a people or a language ends ("German", "English", "Chinese", "Arabs", "Turks"): the NER model
# calls some cities NORP too ("Tunis"), and a city keeps its place evidence.
DEMONYM_ENDINGS = ("an", "ans", "ese", "ish", "ch", "ic", "ics", "ite", "ites", "i", "ard", "ards", "eek", "eeks",
                   "urk", "urks", "ew", "ews", "oor", "oors", "ab", "abs")
COPULA = frozenset({"be", "am", "is", "are", "was", "were", "'m", "’m", "'s", "’s", "'re", "’re"})


@dataclass(frozen=True)
class ChapterText:
    index: int
    chunks: Sequence[str]


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
        if bridge == "(" and (after not in (")", ",", ";") or _cast(first.name, second.name)):
            continue  # "Americans (Angeline Stickney included)": one of them; "Rachael (Sean Young)": who plays her
        kind = "apposition-or" if bridge.startswith(", or") else "apposition"   # people only (core.kg.resolve)
        links.append(AliasLink(first.name, second.name, kind, chunk_index, " ".join(sent.text.split())))
    return links


def _cast(name: str, bracketed: str) -> bool:
    """Whether a name in brackets after another is a different person's name, as a film's summary names the actor
    after the part ("Rachael (Sean Young)", "Gus (John C. Reilly)", "Sarge (R. Lee Ermey)", "Aldys (Leelee
    Sobieski)"): two words or more, none of them in the name before it nor a familiar form of its first name; or,
    after a given name alone, one word that is no given name ("Brandi (Faris)"). "Elizabeth Bennet (Lizzy)" and
    "Tarzan (Lord Greystoke)" stay aliases."""
    parts, outer = parse_name(bracketed), parse_name(name).core
    inner = parts.core
    if parts.honorific or not inner or set(inner) & set(outer):
        return False
    if len(inner) == 1:
        return len(outer) == 1 and is_first_name(outer[0]) and not is_first_name(inner[0])
    return not same_given_name(inner[0], outer[0]) and all(w[:1].isupper() for w in inner)


Lemma = Callable[["Token"], str]


def same_referent(a: str, b: str) -> bool:
    """Whether two names can be one person's: equal, or one the first or last words of the other with no clashing
    honorific, the longer one a person's name by its honorific or first name ("Thornton" / "John Thornton", "Mr.
    Darcy" / "Mr. Fitzwilliam Darcy"), or one name under two honorifics of one class ("Mr. Poirot" / "Monsieur
    Poirot"); not "Mr. Bennet" / "Mrs. Bennet", nor "Jews" / "Atlas Jews" or "Africa" / "North Africa")."""
    if a == b:
        return True
    pa, pb = parse_name(a), parse_name(b)
    if pa.honorific and pb.honorific:
        if title_class(pa.honorific) != title_class(pb.honorific):
            return False   # "Mr. Bennet" is not "Mrs. Bennet"
        if pa.core == pb.core:
            return True    # "Mr. Poirot" is "Monsieur Poirot"
    (short, _), (long_, long_parts) = sorted(((pa.core, pa), (pb.core, pb)), key=lambda x: len(x[0]))
    if not (long_parts.honorific or is_given_name(long_[0])):
        return False
    return 0 < len(short) < len(long_) and (long_[:len(short)] == short or long_[-len(short):] == short)


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
    if negated and words and words[0] in COPULA | {"be"}:   # "is not handsome as", not "not is handsome as"
        return " ".join([words[0], "not", *words[1:]]).strip()
    return f"not {label}" if negated and label else label


def _render(tokens: list[Token], name: str | None, refs: dict[int, str],
            own: frozenset[int] = frozenset()) -> tuple[str, list[tuple[str, str]]]:
    """A phrase's text and (word, POS) pairs with resolved pronouns replaced by the names they refer to: "He" ->
    "Manuel", "his master" -> "Buck's master". Unresolved pronouns stay, and the Andrus rules judge them. Pronouns in
    `own` refer to the triple's own subject: they keep their word in the text ("Thornton gave his advice", not
    "Thornton gave John Thornton's advice") and are judged by the Andrus rules as the name they resolve to."""
    if name and tokens and all(t.i in refs for t in tokens):
        return name, [(name, "PROPN")]
    if not any(t.i in refs for t in tokens):
        return text_of(tokens), as_phrase(tokens)
    parts: list[str] = []
    phrase: list[tuple[str, str]] = []
    for t in tokens:
        ref = refs.get(t.i)
        if t.i in own and ref is not None:
            parts.append(t.text)
            phrase.append((f"{ref}'s" if t.dep_ == "poss" else ref, "PROPN"))
        elif ref is None:
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
            tail_name = r.tail_name
            own = frozenset(t.i for t in r.tail if r.head_name and t.i in refs
                            and same_referent(refs[t.i], r.head_name))
            if own:
                # "Thornton gave his advice": "his" is the subject himself; written as a name the fact would read
                # "Thornton gave John Thornton's advice" (issue 37), so the pronoun keeps its word and is no edge
                stats["self_references"] += 1
            if r.head_name and tail_name and same_referent(tail_name, r.head_name):
                tail_name = None     # one person under two of their names is no edge between two entities
            tail_text, tail = _render(r.tail, tail_name, refs, own)
            rule = violated_rule(head, relation, tail)
            if rule is not None:
                stats[f"dropped_{RULE_NAMES[rule]}"] += 1
                continue
            label = relation_label(r.relation, r.relation_suffix, lemma)
            if (r.head_name and tail_name and r.head_name != tail_name and not r.relation_suffix
                    and all(t.lower_ in COPULA for t in r.relation if t.dep_ != "neg")
                    and all(t.i in refs for t in r.head)):
                stats["dropped_identity"] += 1   # "I am Mr. Holmes" (I resolved to "Mr. Sherlock Holmes"): one
                joined.add(frozenset((r.head_name, tail_name)))   # person under two names, not two people
                continue
            if any(t.i in refs for t in (*r.head, *r.tail)):
                stats["coref_triples"] += 1
            verb = text_of(r.relation)
            if len(r.head) == 1 and r.head[0].i in refs and r.head[0].lower_ in ("i", "you"):
                verb = agreeing(r.relation)   # "I have a high respect" said by Mr. Bennet: "Mr. Bennet has ..."
            relation_text = " ".join(p for p in (verb, r.relation_suffix) if p).lower()
            triples.append(Triple(head_text, relation_text, tail_text, sentence, chunk_index, r.head_name,
                                  tail_name, label))
            if r.head_name and tail_name:
                joined.add(frozenset((r.head_name, tail_name)))
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
                    if frozenset((a, b)) in joined or same_referent(a, b):
                        continue
                    linked.add(frozenset((a, b)))
                    both = types.get(a, kinds.get(a)) == types.get(b, kinds.get(b)) == "character"
                    pair_relation = CO_OCCURS if both else CO_MENTIONED
                    triples.append(Triple(a, pair_relation, b, sentence, chunk_index, a, b, pair_relation))
                    stats["co_occurrence_edges" if both else "co_mention_edges"] += 1
        explicit = list(dict.fromkeys(starts[i].name for i in range(sent.start, sent.end) if i in starts))
        if len(explicit) <= coref_rules.MAX_NAMES_PER_SENTENCE:
            for earlier, earlier_names in window:  # names a sentence or two apart in one paragraph
                for a in earlier_names:
                    for b in explicit:
                        if not same_referent(a, b) and frozenset((a, b)) not in linked:
                            linked.add(frozenset((a, b)))
                            triples.append(Triple(a, CO_MENTIONED, b, f"{earlier} {sentence}"[:1000], chunk_index,
                                                  a, b, CO_MENTIONED))
                            stats["nearby_mention_edges"] += 1
            window = [*window, (sentence, explicit)][-NEARBY_SENTENCES:] if explicit else window
        if len(mentions) > 1:
            aliases.extend(alias_links(sent, mentions, chunk_index))
    counts: Counter[tuple[str, str]] = Counter((m.name, types.get(m.name, m.type)) for m in mentions)
    return triples, counts, aliases


def chapter_types(mentions: Sequence[Sequence[Mention]], found: coref_rules.ChapterCoref,
                  with_article: Counter[str] | None = None, common: Counter[str] | None = None) -> dict[str, str]:
    """The type the chapter's evidence gives each name, where it gives one: referred to as he/she, speaking, being
    addressed, an honorific or a speech verb make a character; prepositions of place and place words a location; a
    name mostly written with "the" ("the Narwhal", "the Government", "the Yeehats") is not a person unless it
    speaks or is "he"/"she" more than once ("the Queen", "the White Rabbit" are). A name the NER model mostly
    labels a nationality or a people (NORP), and never a place, is a group, whatever its prepositions say. A title
    (mostly labelled a work of art, or quoted on its own: “Sentimental Journey”) and a maker's name ("a Colt's
    revolver") is a thing, and so is a one-word name that the chapter also writes in lower case at least as often
    (`common`: lower-case word counts), a common noun capitalised ("the womb of Time", "Life"), unless it is a first
    name or speaks, is addressed or is "he"/"she" more than once. Names without evidence keep their NER label,
    mention by mention."""
    character = Counter(found.character_evidence)
    honorific: Counter[str] = Counter()
    total: Counter[str] = Counter()
    ner: dict[str, Counter[str]] = defaultdict(Counter)
    peoples: Counter[str] = Counter()
    places: Counter[str] = Counter()
    works: Counter[str] = Counter()
    for per_doc in mentions:
        for m in per_doc:
            total[m.name] += 1
            ner[m.name][m.type] += 1
            peoples[m.name] += m.label == "NORP"
            places[m.name] += m.label in ("GPE", "LOC")
            works[m.name] += m.label == "WORK_OF_ART"
            if m.evidence:
                character[m.name] += 1
                honorific[m.name] += 1
    with_article = with_article or Counter()
    common = common or Counter()
    out: dict[str, str] = {}
    for name in total:
        person, place = character.get(name, 0), found.place_evidence.get(name, 0)
        weak = not honorific[name] and found.character_evidence[name] < 2
        if weak and peoples[name] * 2 > total[name] and not places[name] and name.endswith(DEMONYM_ENDINGS):
            out[name] = "organization"   # "the Germans", "in German": a people or its language, not a place
        elif weak and (found.thing_evidence.get(name, 0) + (works[name] if works[name] * 2 >= total[name] else 0)
                       >= max(person, 1)
                     or (" " not in name and common[name.lower()] >= max(2, total[name])
                         and not is_given_name(name) and not place)):
            out[name] = "object"
        elif weak and with_article[name] * 2 >= total[name]:
            labels = ner[name]
            best = max((t for t in labels if t != "character"), key=lambda t: labels[t], default=None)
            out[name] = "location" if place > 0 else best or ("organization" if name.endswith("s") else "object")
        elif person >= 1 and person >= place:
            out[name] = "character"
        elif place >= 1 and place > person:
            out[name] = "location"
        elif not person and not place and _first_name_organization(name, ner[name]):
            out[name] = "character"   # "Delphine de Nucingen", "Christophe": an organization to the NER model alone
    return out


def _first_name_organization(name: str, labels: Counter[str]) -> bool:
    """Whether a name the NER model mostly calls an organization starts with a given name (of the long list,
    given_names.is_first_name) and has no organization's shape ("the Army", "Galaxy Magazine") nor a partnership's.
    A firm named after people with nothing else said of it ("Morgan Stanley") is then taken for a person too."""
    core = parse_name(name).core
    return (bool(core) and labels.most_common(1)[0][0] == "organization" and is_first_name(core[0])
            and not shape_type(name) and "&" not in name and " and " not in name)   # "Smith & Wesson": a firm


# Stored with each chapter's stats: a chapter read by an older version is read again by the next build, so a graph
# built before pronoun resolution gains it without the user having to ask for a full re-read.
VERSION = "offline-16"   # 16: a name that calls someone in speech is no argument (", Alan.", "Harry!"). 15: "the Old
# Man" an epithet, not "Man". 14: "Sugar, } Starch, }" (a table) no names; "Sarge
# (R. Lee Ermey)" and "Brandi (Faris)" no aliases; "Cousin" alone no name, "Cousin Cæsar" a title; "Brooke tells them" a
# person. 13: "Saliva has" and a list's "Bread, Butter" no names; "the publication of X" a work; no edge through a
# fronted phrase or your noun ("after your departure for X"); "Adieu! ... / Elizabeth" signs; no edge from a yes-or-no
# question. 12: a heading of one word ("SALIVA.") is no name; "Americans (X included)" and "Rachael (Sean Young)" no
# alias; "Richard II" keeps its numeral. 11: "Delphine", an organization to the NER model, a person. 10: "X, who" is a
# person; no adverbs, no Roman numerals. 9: no speaker inside a quotation; "Skipper," calls. 8: no names capitalised by
# their place. 7: "Mr. Bennet has" for "I have". 6: "sat on"


class OfflineExtractor:
    """Extracts chapters with one streaming `nlp.pipe` over all their passages (batched across chapters)."""

    name = "offline"
    version = VERSION

    def __init__(self, nlp: Language | None = None, batch_size: int = nlp_helpers.DEFAULT_BATCH_SIZE,
                 n_process: int = 1, also: Mapping[str, Callable[[Sequence[Doc]], dict[str, Any]]] | None = None
                 ) -> None:
        """`also`: other readings of a chapter's parsed passages (kind -> reader), each kept in
        `ChapterExtraction.extra[kind]`, so a caller that needs the same parse for something else does not parse
        the chapter again."""
        self.nlp = nlp
        self.batch_size = batch_size
        self.n_process = n_process
        self.also = dict(also or {})
        self._not_noun_words: tuple[frozenset[str], frozenset[str], frozenset[str]] | None = None   # read once

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

    def _not_nouns(self) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        """The English words the pipeline's lemmatizer tables (WordNet's lemmas) know as adjectives, adverbs or
        verbs and never as nouns: words that name nobody where only their place in a sentence capitalises them
        ("Frantic, I dashed", "Postpone and postpone"), while a noun may be a surname ("Clay, at the Association");
        of those, the words known only as adverbs ("Beautifully illustrated"), which no name is; and the nouns
        ("butter", "banana": items of a capitalised list)."""
        nlp = self.nlp or nlp_helpers.load_spacy()
        try:
            lemmatizer: Any = nlp.get_pipe("lemmatizer")
            index = lemmatizer.lookups.get_table("lemma_index")
        except (KeyError, AttributeError, ValueError):  # a pipeline without the tables: none known
            return frozenset(), frozenset(), frozenset()
        strings = nlp.vocab.strings
        words = {pos: set(index.get(strings.add(pos), [])) for pos in ("noun", "adj", "adv", "verb")}
        not_nouns = frozenset((words["adj"] | words["adv"] | words["verb"]) - words["noun"])
        return (not_nouns, frozenset(words["adv"] - words["noun"] - words["adj"] - words["verb"]),
                frozenset(words["noun"]))

    def _lemma(self) -> Lemma:
        try:
            lemmatizer = (self.nlp or nlp_helpers.load_spacy()).get_pipe("lemmatizer")
        except (KeyError, AttributeError):  # a pipeline without one: surface forms
            return _lower
        rule = getattr(lemmatizer, "rule_lemmatize", None)
        if rule is None:
            return _lower
        return lambda tok: (rule(tok) or [tok.lower_])[0]

    def _chapter(self, chapter: ChapterText, stream: Iterator[Any]) -> ChapterExtraction:
        """Parse-level extraction of one chapter: its passages' docs are read first, so pronouns resolve across
        passage boundaries and the chapter's evidence types every mention of a name."""
        ext = ChapterExtraction(chapter.index)
        stats: Counter[str] = Counter()
        parsed = [next(stream) for _ in range(len(chapter.chunks))]
        docs = [doc for doc, _ in parsed]
        if self._not_noun_words is None:
            self._not_noun_words = self._not_nouns()
        mentions = drop_exclamations(docs, propagate_names(docs, descriptor_mentions(
            docs, [find_mentions(doc) for doc, _ in parsed])), *self._not_noun_words)
        spans = [[coref_rules.NamedSpan(m.start, m.end, m.name) for m in per_doc] for per_doc in mentions]
        ner = [{m.name: m.type for m in per_doc} for per_doc in mentions]
        found = coref_rules.resolve_chapter([doc for doc, _ in parsed], spans, ner)
        with_article: Counter[str] = Counter(m.name for (doc, _), per_doc in zip(parsed, mentions) for m in per_doc
                                             if m.start > 0 and doc[m.start - 1].lower_ == "the")
        common: Counter[str] = Counter(t.lower_ for doc in docs for t in doc if t.is_alpha and t.is_lower)
        types = chapter_types(mentions, found, with_article, common)
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
        # the story's states for the continuity checks (issue 32), from the same parse and coreference
        ext.states = chapter_states(docs, mentions, found.refs, [c for _, (_, c) in parsed], types)
        ext.stats["states"] = STATES_VERSION
        ext.extra = {kind: read(docs) for kind, read in self.also.items()}
        return ext

"""Open IE-style (subject, relation, object) triples from a spaCy dependency parse.

Stanford Open IE, which Andrus et al. used, splits a sentence into short clauses and each clause into a triple. This
does the same with the parse spaCy already made: every verb with a subject yields one triple per object, where an
object is a direct object or attribute ("Mr. Bennet | made | no answer"), a prepositional object with the preposition
moved into the relation ("Netherfield | is taken by | a young man"), or an adjective complement ("Darcy | was |
proud"). Conjoined subjects and objects give one triple each; an open clausal complement extends the relation
("Jane | wanted to see | Bingley"); a conjoined verb without its own subject borrows its head's, and so does an -ing
clause ("responded by punching Lemuel", "..., knocking him down"); the subject of a bare clause after help/let/make/
see... is that verb's object ("helped Rector get back"); a common-noun head with a name in apposition is that name
("the man, Potter, ..."); the relative pronoun of a relative clause is replaced by the noun it modifies. A name that
calls someone in speech is no argument ("You have saved me from ruin, Alan," / "Why do you ask me that, Harry?" /
"Harry, I am vexed": the parse makes Alan an apposition of "ruin" and Harry an object, and the graph would hold
"... saved from Alan"). Phrases are kept short (determiners, adjectives, compounds and possessives before the head
noun), the way Open IE's minimal clauses are.

Paper: ../shared/seeds/andrus2022_dynamic_document_kg.txt (Open IE triples per sentence).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.kg.coref_words import PERSON_APPOSITIONS

if TYPE_CHECKING:  # pragma: no cover - the functions only read attributes of spaCy objects
    from spacy.tokens import Doc, Span, Token

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
OBJECT_DEPS = frozenset({"dobj", "attr", "oprd", "dative"})
PREP_DEPS = frozenset({"prep", "agent"})
NP_LEFT_DEPS = frozenset({"det", "amod", "compound", "poss", "nummod", "nmod", "predet", "quantmod", "npadvmod"})
NP_RIGHT_DEPS = frozenset({"compound", "flat"})
RELATIVE_PRONOUNS = frozenset({"who", "which", "that", "whom"})
# Verbs whose object can be the subject of a bare clause ("helped Rector get back", "saw Jo leave"), as word forms:
# the graph's parse runs without spaCy's lemmatizer.
SMALL_CLAUSE_VERBS = frozenset(
    "help helps helped helping let lets letting make makes made making see sees saw seen seeing watch watches watched "
    "watching hear hears heard hearing feel feels felt feeling notice notices noticed noticing find finds found "
    "finding have has had having bid bids bade".split())
PARTICIPLE_PREPOSITIONS = frozenset({"by", "after", "before", "while", "without", "upon", "on"})
NOMINAL = frozenset({"NOUN", "PROPN", "PRON", "NUM"})
QUOTE_MARKS = frozenset({'"', "“", "”", "'", "‘", "’", "''", "``"})
TERMINAL = frozenset({".", "?", "!"})
CALLING_WORDS = frozenset({"dear", "my", "dearest", "oh", "o"})   # before a name that calls someone
# Nouns a name can stand in apposition to at the end of a speech ("This is my friend, Watson."): a person's role.
PERSON_HEADS = PERSON_APPOSITIONS | frozenset("""cousin nephew niece doctor captain colonel officer neighbour neighbor
guest visitor host hostess landlord landlady clerk lawyer priest inspector detective""".split())
MAX_PHRASE_TOKENS = 8
MAX_RELATION_TOKENS = 8

# Where a token belongs to a named-entity mention: (start, end, name) of that mention, or None.
MentionLookup = Callable[[int], "tuple[int, int, str] | None"]


@dataclass
class RawTriple:
    head: list[Token]
    relation: list[Token]
    tail: list[Token]
    head_name: str | None
    tail_name: str | None
    relation_suffix: str = ""   # a word the sentence implies but does not contain ("visit *of*" for "Jane's visit")


def _no_mention(_: int) -> None:
    return None


def noun_phrase(token: Token, mention_at: MentionLookup = _no_mention) -> tuple[list[Token], str | None]:
    """The short phrase headed by `token`, and the entity name when the head lies inside a name mention."""
    doc = token.doc
    mention = mention_at(token.i)
    if mention is None and token.pos_ == "NOUN":   # "the man, Potter, ..." names the man by apposition
        mention = next((m for m in (mention_at(c.i) for c in token.rights if c.dep_ == "appos") if m), None)
    if mention is not None:
        start, end, name = mention
        return list(doc[start:end]), name
    left = right = token.i
    for child in token.lefts:
        if child.dep_ in NP_LEFT_DEPS:
            left = min(left, child.left_edge.i)
    for child in token.rights:
        if child.dep_ in NP_RIGHT_DEPS:
            right = max(right, child.right_edge.i)
    tokens = [t for t in doc[left:right + 1] if not (t.is_punct and t.text not in ("'s", "’s", "-"))]
    if len(tokens) > MAX_PHRASE_TOKENS:
        tokens = tokens[-MAX_PHRASE_TOKENS:]
    return tokens, None


def _adjective_phrase(token: Token) -> list[Token]:
    mods = [c for c in token.lefts if c.dep_ in ("advmod", "neg")]
    return sorted([*mods, token], key=lambda t: t.i)


def _with_conjuncts(token: Token) -> list[Token]:
    return [token, *[c for c in token.conjuncts if c.i > token.i]]


def subjects(verb: Token) -> list[Token]:
    """The subject tokens of `verb`: its own, else (for "smiled and left") those of the verb it is conjoined to."""
    own = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
    if not own:
        if verb.dep_ == "conj" and verb.head.pos_ in ("VERB", "AUX") and verb.head.i != verb.i:
            return subjects(verb.head)
        governor = _participle_governor(verb)
        return subjects(governor) if governor is not None else []
    found: list[Token] = []
    for subj in own:
        if subj.lower_ in RELATIVE_PRONOUNS and verb.dep_ == "relcl" and verb.head.pos_ in NOMINAL:
            subj = verb.head
        found.extend(_with_conjuncts(subj))
    return found


def _participle_governor(verb: Token) -> Token | None:
    """The verb whose subject a subjectless -ing clause shares: "responded by punching Lemuel" (after/before/by/
    while + -ing) and "..., knocking him down" (a participial adverbial clause) are done by the main verb's subject."""
    if verb.tag_ != "VBG":
        return None
    head = verb.head
    if verb.dep_ == "pcomp" and head.dep_ == "prep" and head.head.pos_ in ("VERB", "AUX") \
            and head.lower_ in PARTICIPLE_PREPOSITIONS:
        return head.head
    if verb.dep_ == "advcl" and head.pos_ in ("VERB", "AUX") and head.i < verb.i:
        return head
    return None


def _relation_core(verb: Token) -> list[Token]:
    return sorted([*(c for c in verb.children if c.dep_ in ("aux", "auxpass", "neg", "prt")), verb],
                  key=lambda t: t.i)


def _objects(verb: Token, relation: list[Token]) -> Iterator[tuple[list[Token], Token, bool]]:
    """(relation tokens, object head, is_adjective) for each object of `verb`, following one xcomp level."""
    for child in verb.children:
        if child.dep_ in OBJECT_DEPS and child.pos_ in NOMINAL:
            for obj in _with_conjuncts(child):
                yield relation, obj, False
        elif child.dep_ == "acomp" and child.pos_ == "ADJ":
            preps = [p for p in child.children if p.dep_ == "prep"]
            pobjs = [(p, o) for p in preps for o in p.children if o.dep_ == "pobj"]
            if pobjs:
                for prep, pobj in pobjs:
                    for obj in _with_conjuncts(pobj):
                        yield sorted([*relation, child, prep], key=lambda t: t.i), obj, False
            else:
                yield relation, child, True
        elif child.dep_ in PREP_DEPS:
            # a fronted preposition ("On a fine afternoon, Ichabod sat") follows the verb: "sat on", not "on sat"
            with_prep = sorted([*relation, child], key=lambda t: t.i) if child.i > verb.i else [*relation, child]
            for pobj in (c for c in child.children if c.dep_ == "pobj"):
                for obj in _with_conjuncts(pobj):
                    yield with_prep, obj, False
        elif child.dep_ == "ccomp" and verb.lower_ in SMALL_CLAUSE_VERBS and child.i > verb.i:
            for subj in (c for c in child.children if c.dep_ == "nsubj" and c.pos_ in NOMINAL and c.i < child.i):
                for obj in _with_conjuncts(subj):    # "helped Rector get back": Rector is whom he helped
                    yield relation, obj, False
        elif child.dep_ == "xcomp" and child.pos_ == "VERB" and child.i > verb.i:
            extended = sorted([*relation, *_relation_core(child)], key=lambda t: t.i)
            yield from _objects(child, extended)


# Verbs that open a question answered by yes or no ("Do you also join with my enemies?", "Is Beth ill?").
QUESTION_OPENERS = frozenset({"do", "does", "did", "is", "are", "was", "were", "am", "have", "has", "had", "will",
                              "would", "can", "could", "shall", "should", "may", "might", "must", "dare"})


def asks_yes_or_no(verb: Token) -> bool:
    """Whether a verb's clause asks whether something is so, and so states nothing: its auxiliary (or the verb "be"
    or "have" itself) comes before its subject and a question mark ends it ("“Does Elizabeth love Darcy?” asked
    Jane", "Is Beth ill?"). A question with "who", "why" or "how" may take what it asks about as given ("Why did you
    kill him?") and is not one."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass", "expl")), None)
    if subject is None:
        return False
    inverted = (any(c.dep_ in ("aux", "auxpass") and c.lower_ in QUESTION_OPENERS and c.i < subject.i
                    for c in verb.children) or (verb.lower_ in QUESTION_OPENERS and verb.i < subject.i))
    if not inverted or any(t.tag_ in ("WDT", "WP", "WP$", "WRB") for t in verb.subtree):
        return False
    doc, last = verb.doc, max(t.i for t in verb.subtree)
    return any(t.text == "?" for t in verb.subtree) or (last + 1 < len(doc) and doc[last + 1].text == "?")


def _inside_quotation(doc: Doc, i: int) -> bool:
    """Whether token `i` lies inside a quotation of its paragraph: an odd number of straight double quotes before
    it, or more curly openings than closings (the paragraph starts after a line break)."""
    straight = opened = 0
    k = i - 1
    while k >= 0 and not (doc[k].is_space and "\n" in doc[k].text):
        text = doc[k].text
        straight += text.count('"')
        opened += text.count("“") - text.count("”")
        k -= 1
    return straight % 2 == 1 or opened > 0


def vocatives(sent: Span, mention_at: MentionLookup = _no_mention) -> set[int]:
    """Token indices of the names in `sent` that call someone in speech: inside a quotation, a name after a comma
    that ends a sentence ("You have saved me from ruin, Alan.", "Why do you ask me that, Harry?") or the speech
    ('..., Alan," said he'); a name that opens a sentence with a comma after it and is none of its verbs' subjects
    or objects ("Harry, I am vexed"); a name that is all a quotation says ('"Harry!" exclaimed Hallward'). Not a
    name in apposition to a person's role ("This is my friend, Watson.") nor one closing a list ("Jo, Meg, and
    Amy.")."""
    doc = sent.doc
    found: set[int] = set()
    seen: set[int] = set()
    for tok in sent:
        mention = mention_at(tok.i)
        if (mention is None or mention[0] in seen or doc[mention[0]].pos_ == "PRON"
                or not doc[mention[0]].text[:1].isupper()):
            continue
        start, end, _ = mention
        seen.add(start)
        head = doc[end - 1]
        first = start
        while first > sent.start and doc[first - 1].lower_ in CALLING_WORDS:
            first -= 1                                   # '"Dear Lady Narborough," murmured Dorian'
        before = doc[first - 1] if first > sent.start else None
        after = [doc[k].text for k in range(end, min(end + 2, len(doc)))]
        closes = bool(after) and (after[0] in TERMINAL or (after[0] == "," and len(after) == 2
                                                          and after[1] in QUOTE_MARKS))
        ends_speech = (before is not None and before.text == "," and closes and _inside_quotation(doc, start)
                       and not any(doc[k].lower_ in ("and", "or", "nor") for k in range(max(sent.start, start - 3),
                                                                                       start))
                       and not (head.dep_ == "appos" and head.head.lower_ in PERSON_HEADS))
        opens = ((before is None or before.text in QUOTE_MARKS) and after[:1] == [","]
                 and head.dep_ not in SUBJECT_DEPS | OBJECT_DEPS | {"pobj", "appos", "conj", "compound", "poss"})
        # '"Harry!" exclaimed Hallward': a speech of its own, which begins its sentence or follows another one's
        # closing mark ('called by him "Systeme Atlantique," and ...' quotes a term)
        prior = before.i - 1 if before is not None else -1
        while prior >= sent.start and doc[prior].is_space:
            prior -= 1                                   # a paragraph break inside the parse's sentence
        alone = (before is not None and before.text in QUOTE_MARKS and len(after) == 2
                 and after[0] in TERMINAL | {","} and after[1] in QUOTE_MARKS
                 and (prior < sent.start or doc[prior].text in TERMINAL | QUOTE_MARKS))
        if ends_speech or opens or alone:
            found.update(range(start, end))
    return found


def triples_from_sentence(sent: Span, mention_at: MentionLookup = _no_mention) -> list[RawTriple]:
    """Every (subject, relation, object) the sentence's parse supports, before any filtering; a name that calls
    someone (`vocatives`) is neither subject nor object, nor the name of a noun it is read in apposition to."""
    out: list[RawTriple] = []
    called = vocatives(sent, mention_at)
    if called:
        named = mention_at
        mention_at = lambda i: None if i in called else named(i)   # noqa: E731
    for verb in sent:
        if verb.pos_ not in ("VERB", "AUX") or verb.dep_ in ("aux", "auxpass", "xcomp", "amod"):
            continue
        if asks_yes_or_no(verb):   # "Do you also join with my enemies?" states no joining
            continue
        subjs = [t for t in subjects(verb) if t.i not in called]
        if not subjs:
            continue
        core = _relation_core(verb)
        objects = [o for o in _objects(verb, core) if o[1].i not in called]
        if not objects:
            continue
        heads = [noun_phrase(s, mention_at) for s in subjs]
        for relation, obj, is_adjective in objects:
            if len(relation) > MAX_RELATION_TOKENS:
                continue
            tail, tail_name = (_adjective_phrase(obj), None) if is_adjective else noun_phrase(obj, mention_at)
            for head, head_name in heads:
                if not head or not tail or (head_name and head_name == tail_name):
                    continue
                out.append(RawTriple(head, relation, tail, head_name, tail_name))
                if not is_adjective and tail_name is None and not _fronted(obj, verb):
                    out.extend(_named_inside(head, head_name, relation, obj, mention_at))
    return out


# First and second person possessives, and the subjects whose own they are: "your departure" is not Justine's.
OTHER_OWNERS = {"my": {"i"}, "our": {"we"}, "your": {"you"}, "thy": {"thou"}}


def _fronted(obj: Token, verb: Token) -> bool:
    """Whether an object hangs off a preposition set before its verb: a scene-setting phrase ("After the death of
    Mr. Darcy, Elizabeth went"), no relation of the subject to a name inside it."""
    return obj.head.dep_ in PREP_DEPS and obj.head.head.i == verb.i and obj.head.i < verb.i


def _named_inside(head: list[Token], head_name: str | None, relation: list[Token], obj: Token,
                  mention_at: MentionLookup) -> list[RawTriple]:
    """Edges to a name inside a common-noun object, the noun joining the relation: "took leave of Jane" ->
    (X, took leave of, Jane); "returned Mr. Bennet's visit" -> (X, returned visit of, Mr. Bennet). Not through a
    noun someone else owns: "was called home after your departure for Ingolstadt" is no relation to Ingolstadt."""
    found = []
    speaker = {t.lower_ for t in head}
    owned = any(c.dep_ == "poss" and (c.pos_ == "PROPN" or (c.lower_ in OTHER_OWNERS
                                                             and not OTHER_OWNERS[c.lower_] & speaker))
                for c in obj.children)   # "her visit to Pemberley" is the subject's own, "a day's journey" no one's
    for child in obj.children:
        if child.dep_ == "prep" and not owned:
            for pobj in (c for c in child.children if c.dep_ == "pobj"):
                tail, name = noun_phrase(pobj, mention_at)
                if name and name != head_name:
                    found.append(RawTriple(head, sorted([*relation, obj, child], key=lambda t: t.i), tail, head_name,
                                           name))
        elif child.dep_ == "poss":
            tail, name = noun_phrase(child, mention_at)
            if name and name != head_name:
                found.append(RawTriple(head, sorted([*relation, obj], key=lambda t: t.i), tail, head_name, name,
                                       relation_suffix="of"))
    return found


def text_of(tokens: list[Token], instead: dict[int, str] | None = None) -> str:
    """Tokens joined the way they appear (spaces only where the text had them); `instead`: another word for the
    token at a position."""
    if not tokens:
        return ""
    parts: list[str] = []
    for i, tok in enumerate(tokens):
        parts.append(instead.get(tok.i, tok.text) if instead else tok.text)
        if i + 1 < len(tokens):
            nxt = tokens[i + 1]
            parts.append(tok.whitespace_ if nxt.i == tok.i + 1 else " ")
    return "".join(parts).strip()


def as_phrase(tokens: list[Token]) -> list[tuple[str, str]]:
    """(word, POS) pairs, the input of core.kg.filters."""
    return [(t.text, t.pos_) for t in tokens]


_THIRD_PERSON = {"am": "is", "are": "is", "'m": "is", "’m": "is", "'re": "is", "’re": "is", "were": "was",
                 "have": "has", "'ve": "has", "’ve": "has", "do": "does", "go": "goes"}


def third_person(word: str) -> str:
    """A verb of "I" or "you" as it reads after a name: "have" -> "has", "am" -> "is", "think" -> "thinks"."""
    low = word.lower()
    if low in _THIRD_PERSON:
        return _THIRD_PERSON[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return word + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def agreeing(relation: list[Token]) -> str:
    """The relation's text with its first finite verb in the third person singular, for a subject "I" or "you"
    written as the name it stands for ("I have" -> "Mr. Bennet has"; "you were" -> "Jane was"); a modal's or a past
    verb stays ("can abuse", "said")."""
    for tok in relation:
        if tok.tag_ in ("VBP", "MD", "VBD") or tok.lower_ == "were":
            if tok.tag_ == "VBP" or tok.lower_ == "were":
                return text_of(relation, {tok.i: third_person(tok.text)})
            break
    return text_of(relation)

"""Name mentions of a parsed passage (offline extractor, core.kg.offline): which spans of a spaCy doc name an entity.

The small English model leaves honorifics out of PERSON spans ("Mr." + "Darcy"), so spans are widened over a
preceding honorific, and an honorific followed by proper nouns the model missed is a mention too. The model's labels
are noisy on fiction ("Lydia" is often ORG), so an occurrence with an honorific, or as the subject of a speech verb
("said Lydia"), carries evidence that it is a character. Per chapter, recurring descriptions of unnamed characters
("the creature") become mentions (descriptor_mentions), and a name found once is a mention wherever the chapter writes
it (propagate_names). A letter's signature is a character's name (core.kg.letters).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.kg import letters
from core.kg.coref_words import SPEECH_VERBS
from core.kg.evidence import singular
from core.kg.given_names import is_first_name, is_given_name
from core.kg.names import HONORIFICS, ROMAN_NUMERAL, normalize_name

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc


ENTITY_TYPES: dict[str, str] = {"PERSON": "character", "NORP": "organization", "ORG": "organization",
                                "GPE": "location", "LOC": "location", "FAC": "location", "EVENT": "event",
                                "WORK_OF_ART": "object", "PRODUCT": "object", "LAW": "object"}
# Honorifics that make a mention a person ("St." and "Saint" name churches and streets as often as saints).
PERSON_HONORIFICS = frozenset(k for k in HONORIFICS if k not in ("st", "saint", "king", "queen", "m"))


# Characters a book never names but keeps calling by one description: Frankenstein's creature, a stranger, the
# jailer. A descriptor becomes an entity ("the creature") in a chapter that uses it at least DESCRIPTOR_MIN times
# with "the", once at least as a subject. People nouns as generic as "man" or "girl" are left out (every man of a
# chapter would be one node), and so are ghost and spirit (capitalised, they are names already).
DESCRIPTORS = frozenset("""creature monster daemon demon fiend wretch stranger giant dwarf witch wizard hermit beggar
traveller traveler sailor soldier landlord landlady innkeeper shopkeeper gardener servant housekeeper butler
coachman footman postman clerk lawyer magistrate priest parson vicar curate clergyman squire governess tutor jailer
gaoler prisoner murderer thief robber convict detective inspector sheriff chief""".split())
DESCRIPTOR_MIN = 3


# Capitalised at the start of a sentence, these are not names ("Whereupon he rose": the model calls it an ORG).
NOT_NAMES = frozenset("""whereupon meanwhile nevertheless however presently suddenly thereupon henceforth hence
thence therefore moreover furthermore besides perhaps indeed accordingly afterwards afterward instantly immediately
yonder hullo hallo hello goodbye farewell alas hurrah hurray bravo amen ay aye nay yea ha hah oho aha hush hark
behold lo pshaw bah humbug tut halloo halloa hallo hillo hilloa hoop whoop pooh chirrup huzza huzzah ahoy egad
zounds""".split())
# Parts of speech a one-word name never has (a capitalised adverb or preposition at a sentence start).
NOT_NAME_POS = frozenset({"ADV", "ADP", "SCONJ", "CCONJ", "DET", "PRON", "PART", "INTJ"})
# Greetings, toasts and thanks the model takes for names: "Merry Christmas!", "Hilli-ho, Dick!", "Thank'ee!".
GREETINGS = frozenset({"merry christmas", "happy christmas", "happy new year", "happy birthday", "good morning",
                       "good afternoon", "good evening", "good night", "good day", "good-bye", "thank you",
                       "thank'ee", "thankee", "thank ye", "hilli-ho", "heigh-ho", "yo-ho", "god bless", "bless you"})


def is_exclamation(name: str) -> bool:
    """Whether a would-be name is a greeting or an interjection ("A Merry Christmas", "Pooh", "Hilli-ho")."""
    low = name.lower().replace("\u2019", "'")
    low = low[2:] if low.startswith("a ") else low
    return low in GREETINGS or low in NOT_NAMES


def _starts_greeting(doc: Doc, start: int) -> bool:
    """Whether a greeting begins at token `start` ("Merry" of "A Merry Christmas": the model's name is "Merry")."""
    words = [t.lower_ for t in doc[start:start + 3]]
    return any(" ".join(words[:k]) in GREETINGS for k in (2, 3))


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
    label: str = ""             # the NER model's label, where the model found the span ("NORP": a people)


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
        if (not name or is_exclamation(name) or _starts_greeting(doc, start)
                or (end - start == 1 and (doc[start].is_stop or doc[start].pos_ in NOT_NAME_POS))):
            continue  # "Beautifully, the ...", "Ere long": an adverb or a preposition the model took for a name
        evidence = start < ent.start or _is_honorific(doc[start].text)
        if evidence:
            etype = "character"
        found.append(Mention(start, end, name, etype, evidence, ent.label_))
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
    for k, (previous, paragraph) in enumerate(zip([None, *paras], paras)):   # a letter's signature: "R. Walton"
        span = (letters.signature_span(doc, paragraph, previous, following=letters.next_paragraph([doc], paras, k))
                or letters.closing_signature_span(doc, paragraph))
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


_SPEECH_QUOTES = frozenset({'"', "\u201c", "\u201d", "\u2018", "\u2019", "'"})


def _speech_vote(doc: Doc, mention: Mention) -> Mention:
    """A name the parse makes the subject of a speech verb is someone who speaks ("Wass said"), unless a quotation
    mark stands between the two: then the name is what is said or whom it is said to ('"Water," Wass said')."""
    root = doc[mention.end - 1]
    if not mention.evidence and root.dep_ == "nsubj" and root.head.lower_ in SPEECH_VERBS:
        lo, hi = (mention.end, root.head.i) if root.head.i >= mention.end else (root.head.i + 1, mention.start)
        if any(doc[k].text in _SPEECH_QUOTES for k in range(lo, hi)):
            return mention
        return Mention(mention.start, mention.end, mention.name, "character", True, mention.label)
    return mention


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
    forms: dict[tuple[str, ...], Counter[tuple[str, str]]] = defaultdict(Counter)
    labels: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)   # the NER labels a form was found with
    for doc, per_doc in zip(docs, mentions):
        for m in per_doc:
            words = tuple(t.text for t in doc[m.start:m.end])
            if words and words[0][:1].isupper():
                forms[words][(m.name, m.type)] += 1
                labels[words][m.label] += 1
    by_first: dict[str, list[tuple[tuple[str, ...], str, str, str]]] = defaultdict(list)
    for words, owners in forms.items():
        names = {name for name, _ in owners}
        if len(names) == 1:
            # The form's most frequent label; a tie goes to the one met first. (A set of labels counted once each
            # left the tie to the set's order, which changes with the process's hash seed: a graph built in two
            # processes, a resumed build or a Ray worker, typed such a name two ways.)
            types: Counter[str] = Counter()
            for (_, etype), count in owners.items():
                types[etype] += count
            by_first[words[0]].append((words, names.pop(), types.most_common(1)[0][0],
                                       labels[words].most_common(1)[0][0]))
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
            for words, name, etype, label in sorted(candidates, key=lambda c: -len(c[0])):
                end = tok.i + len(words)
                if (end <= len(doc) and all(doc[k].text == w for k, w in zip(range(tok.i, end), words))
                        and not any(k in covered for k in range(tok.i, end))
                        and not (end < len(doc) and doc[end].pos_ == "PROPN" and doc[end].text[:1].isupper())):
                    added.append(Mention(tok.i, end, name, etype, label=label))
                    covered.update(range(tok.i, end))
                    break
        out.append(sorted([*per_doc, *added], key=lambda m: m.start) if added else per_doc)
    return out


OATH_BEFORE = frozenset({"by", "begad", "egad"})
QUOTE_MARKS = frozenset({'"', "“", "‘", "'"})


def _exclaimed(doc: Doc, m: Mention) -> bool:
    """Whether a mention is an oath or a bare exclamation rather than a name: "by Gar!", or a whole exclamation of
    its own ("Sacredam!", "Mush!")."""
    after = doc[m.end].text if m.end < len(doc) else ""
    before = doc[m.start - 1] if m.start > 0 else None
    if before is not None and before.lower_ in OATH_BEFORE and after in ("!", "?"):
        return True   # not "by X," ("ratified by George II, who..."): only the cry
    starts = before is None or before.is_space or before.text in QUOTE_MARKS or bool(doc[m.start].is_sent_start)
    return starts and after == "!"


def _in_capitals(doc: Doc, m: Mention) -> bool:
    """Whether a mention is written in capitals inside a line of capitals: a heading ("CARE OF THE BRAIN AND
    NERVES.", "REVIEW QUESTIONS.", "CHAPTER XIII. STRENGTH."), where every noun is capitalised and none is a name
    by that alone. A neighbouring word of two or more capitals (one word further across a full stop) marks it."""
    words = [t for t in doc[m.start:m.end] if t.is_alpha]
    if not words or not all(t.text.isupper() for t in words):
        return False
    return any(0 <= k < len(doc) and doc[k].is_alpha and len(doc[k].text) > 1 and doc[k].text.isupper()
               for k in (m.start - 1, m.start - 2, m.end, m.end + 1))


def _heading_word(doc: Doc, m: Mention, lower: Counter[str]) -> bool:
    """Whether a mention in capitals, every word of which the chapter also writes in lower case, is a sentence of its
    own or opens one: a heading of one topic ("HINGE-JOINTS. Some of your joints work like hinges", "SALIVA."),
    where no neighbour in capitals shows the heading (`_in_capitals`), or a chapter's first word set in capitals
    ("DISTILLING may be a new word to you"). A speaker's name in a play ("HAMLET.") or a signature ("LYDIA
    BENNET.") is no word the chapter writes in lower case."""
    words = [t for t in doc[m.start:m.end] if t.is_alpha]
    if not words or not all(len(t.text) > 1 and t.text.isupper() and t.text.lower() in lower for t in words):
        return False
    sent = doc[m.start].sent
    return m.start == sent.start or all(t.is_punct or m.start <= t.i < m.end for t in sent if not t.is_space)


# Parts of speech of a common word: the tagger's reading of a capitalised word where its place capitalises it.
COMMON_POS = frozenset({"NOUN", "ADJ", "VERB", "ADV"})
# What may stand before a word capitalised only because a sentence, a quotation or a paragraph starts there.
_OPENERS = frozenset({".", "!", "?", '"', "“", "”", "‘", "'", "’", "—", "–", "-", "--", "…", "(", ":",
                      ";"})


def _capitalised_by_position(doc: Doc, m: Mention) -> bool:
    """Whether a one-word mention stands where any word is capitalised: a sentence's, a quotation's or a
    paragraph's first word ("Postpone and postpone until it's too late", "Then—'I can't'", '"Water," Wass said')."""
    if m.end - m.start != 1 or any(c.dep_ == "appos" for c in doc[m.start].children):
        return False   # "Curly, a good-natured Newfoundland": described as someone
    if m.start == 0 or doc[m.start].is_sent_start:
        return True
    before = doc[m.start - 1]
    return before.is_space or before.text in _OPENERS or before.text.rstrip(".") == ""


_NUMBERED = frozenset({"chapter", "book", "part", "volume", "vol", "canto", "act", "scene", "section", "letter",
                       "stave", "no"})


def _numeral(doc: Doc, m: Mention) -> bool:
    """Whether a one-word mention is a Roman numeral: one of I, V, X and L written in capitals ("XII", "LII"), or
    any after a word that numbers ("CHAPTER XII.", "Chapter xii", "Book MC"); not a name that happens to spell one
    ("Liv", "Dix", "Vi") nor an abbreviation in capitals that does ("Washington, DC", "MD")."""
    if m.end - m.start != 1:
        return False
    word = doc[m.start].text.rstrip(".")
    if len(word) < 2 or not ROMAN_NUMERAL.fullmatch(word.upper()):
        return False
    return ((word.isupper() and set(word) <= set("IVXL"))
            or (m.start > 0 and doc[m.start - 1].lower_.rstrip(".") in _NUMBERED))


def _numbered(doc: Doc, m: Mention) -> bool:
    """Whether a one-word mention is an abbreviation that numbers something: "Fig. 1", "FIG. 4", "Vol. II" (of four
    letters at most, then a number in figures or a Roman numeral of two letters or more: "the Jaq. I can't think"
    and "in Paris. 1914 was" end sentences)."""
    if m.end - m.start != 1 or len(doc[m.start].text) > 4 or m.end + 1 >= len(doc) or doc[m.end].text != ".":
        return False
    number = doc[m.end + 1].text
    return number[:1].isdigit() or (len(number) >= 2 and number.isupper() and bool(ROMAN_NUMERAL.fullmatch(number)))


_TABLE_RULES = frozenset({"}", "]", ")", "|"})   # what a table puts after an item's comma ("Sugar, } Starch, }")


def _in_capitalised_list(doc: Doc, m: Mention, lower: Counter[str], nouns: frozenset[str]) -> bool:
    """Whether a one-word mention is an item of a list of capitalised common nouns, as in a bill of fare or a table
    ("Squash, Bread, Butter, Salt"; "Meat, } Sugar, } Milk, } Starch, }"): a run of three or more capitalised words
    between commas (a table's bracket after the comma too), of which another is a word the chapter writes in lower
    case ("bread"), and the mention a noun of the dictionary (`nouns`, singular or plural) or written in lower case
    too. A list of cities ("Paris, London, Rome": nouns to WordNet too) or of given names ("Meg, Jo, Beth") has no
    item the chapter writes in lower case."""
    if m.end - m.start != 1:
        return False

    def item(k: int) -> bool:
        return 0 <= k < len(doc) and doc[k].is_alpha and doc[k].text.istitle() and not is_given_name(doc[k].text)

    def gap(k: int) -> int:   # the tokens from k that part two items: a comma, or a table's "," + "}"
        if not (k < len(doc) and doc[k].text == ","):
            return 0
        return 2 if k + 1 < len(doc) and doc[k + 1].text in _TABLE_RULES else 1

    def before(k: int) -> int:   # the item before the one at k, or -1
        return next((k - n - 1 for n in (2, 1) if k - n - 1 >= 0 and gap(k - n) == n and item(k - n - 1)), -1)

    def after(k: int) -> int:    # the item after the one at k, or -1
        n = gap(k + 1)
        return k + n + 1 if n and item(k + n + 1) else -1

    if not item(m.start):
        return False
    items = [m.start]
    while (k := before(items[0])) >= 0:
        items.insert(0, k)
    while (k := after(items[-1])) >= 0:
        items.append(k)
    others = [doc[k].lower_ for k in items if k != m.start]
    word = doc[m.start].lower_
    return (len(others) >= 2 and any(lower[w] > 0 for w in others)
            and (lower[word] > 0 or word in nouns or any(w in nouns for w in singular(word))))


def _common_word(doc: Doc, m: Mention, lower: Counter[str], words: tuple[frozenset[str], frozenset[str],
                 frozenset[str]], written: int) -> bool:
    """Whether a mention is a common word capitalised by its place (see drop_exclamations); `words`: the words that
    are never nouns, the adverbs and the nouns; `written`: how often the chapter writes the name."""
    not_nouns, adverbs, nouns = words
    if m.evidence or is_given_name(m.name):
        return False
    if _in_capitalised_list(doc, m, lower, nouns):
        return m.label != "PERSON"
    if not _capitalised_by_position(doc, m):
        return False
    word = m.name.lower()
    if m.label == "PERSON":   # "Saliva has the wonderful power": a person to the NER model, a noun 13 times
        return (doc.vocab[word].is_stop or word in adverbs
                or (lower[word] >= max(3, 2 * written) and not is_first_name(m.name)))
    return (doc.vocab[word].is_stop or word in adverbs or word in lower or word in not_nouns
            or doc[m.start].pos_ in COMMON_POS)


def drop_exclamations(docs: Sequence[Doc], mentions: list[list[Mention]], not_nouns: frozenset[str] = frozenset(),
                      adverbs: frozenset[str] = frozenset(), nouns: frozenset[str] = frozenset()
                      ) -> list[list[Mention]]:
    """`mentions` without the names that a chapter only ever exclaims (`_exclaimed`): an oath ("by Gar!") or a cry
    ("Sacredam!") is not a character, while "Buck!" stays, the chapter naming Buck elsewhere too. An oath after "by"
    is dropped wherever it occurs ("by George!" swears; George elsewhere is still a name). Likewise a name the
    chapter only writes in a heading's capitals (`_in_capitals`: "THE BLOOD AND THE BRAIN."; `_heading_word`:
    "SALIVA."), unless an honorific or a signature marks it ("MR. DARCY", "LYDIA BENNET."), a Roman numeral
    (`_numeral`: "CHAPTER XII."), a numbering abbreviation (`_numbered`: "Fig. 1"), and a one-word name the chapter
    capitalises only where every word is capitalised (`_capitalised_by_position`) and that is a stop word or an
    adverb and nothing else (`adverbs`: "Beautifully illustrated", which the NER model calls a person), or that the
    NER model does not call a person and that is written in lower case too, tagged a common noun, adjective, verb or
    adverb, or an English word that is never a noun (`not_nouns`): "Then—", "Postpone and postpone", "Frantic, I
    dashed", "Anger rose in Martin"; one the NER model calls a person only where the chapter writes it in lower
    case at least three times and twice as often ("Saliva has the wonderful power"). So is an item of a list of
    capitalised nouns (`_in_capitalised_list`, `nouns`: "Squash, Bread, Butter, Salt"). A given name ("Will",
    "Grace") stays, and so does a name with an apposition ("Curly, a good-natured Newfoundland") and a surname that
    is a noun too ("Clay, at the Association")."""
    lower: Counter[str] = Counter(t.text for doc in docs for t in doc if t.is_alpha and t.is_lower)
    not_a_name: Counter[str] = Counter()
    total: Counter[str] = Counter(m.name for per_doc in mentions for m in per_doc)
    for doc, per_doc in zip(docs, mentions):
        for m in per_doc:
            not_a_name[m.name] += (_exclaimed(doc, m) or _numeral(doc, m) or _numbered(doc, m)
                                   or (not m.evidence and (_in_capitals(doc, m) or _heading_word(doc, m, lower)))
                                   or _common_word(doc, m, lower, (not_nouns, adverbs, nouns), total[m.name]))
    only = {name for name, n in total.items() if not_a_name[name] == n}
    out = []
    for doc, per_doc in zip(docs, mentions):
        kept = [m for m in per_doc if m.name not in only
                and not (m.start > 0 and doc[m.start - 1].lower_ in OATH_BEFORE and _exclaimed(doc, m))]
        out.append(kept if len(kept) != len(per_doc) else per_doc)
    return out


def _unligatured(word: str) -> str:
    """"dæmon" -> "daemon": the old ligatures spelled out, for looking a word up in a list."""
    return word.replace("æ", "ae").replace("œ", "oe") if "æ" in word or "œ" in word else word

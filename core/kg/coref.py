"""Who "he", "she", "I" and "you" are, and who is a character: offline, rule-based, over one parsed chapter.

Fiction is told through pronouns: "He sold Buck to the man" is about Manuel, and a graph that drops pronoun-led
sentences (Andrus rule 4) loses most of who-did-what-to-whom. This module resolves third-person singular pronouns
to the named mentions they refer to, and first and second person inside a quotation to its speaker and addressee, in
one pass over a chapter's parsed passages (about a second for a novel's chapter on top of the parse):

- Agreement. Each name's gender comes from its honorific ("Mrs.", "Sir"), its first name, and what the chapter itself
  says: a he/she that follows a sentence naming only that person votes for that gender. A candidate of the other
  gender is never chosen; one of unknown gender only with a clear margin.
- Recency and salience. Candidates are the names of the current and two previous sentences (narration for narration;
  inside a quotation the quotation's own names too); a subject outranks an object, a nearer sentence a farther one,
  and the referent of the last pronoun of the same gender is kept (a chain). When the best two candidates are too
  close ("Jane and Elizabeth came in. She smiled."), nothing is resolved: a wrong edge is worse than a missing one.
- Syntax. A pronoun is not its own verb's other argument ("Manuel sold him": him is not Manuel); "himself" is.
- Dialogue. Quotations are found from the quotation marks (curly or straight, a quotation inside a quotation
  included), their speaker from a speech verb's subject next to them ("said Buck", "he asked", "exclaimed Henry"
  misparsed as an object) or the one name acting in the paragraph, their addressee from a name set off by commas
  inside them ("Come, Buck!", "My dear Victor,"), from "to" on the speech verb ("said Darcy to Elizabeth") or the
  other speaker of an alternating exchange. Two turn-taking rules fill in the rest: the reply to a name is that
  person's, and an unresolved "she cried" is the conversation's one woman (see _conversation_speakers). "I"/"you"
  resolve to speaker/addressee only at the first level: the speaker of a quotation inside a quotation is unknown.
- Letters (core.kg.letters). In a signed letter, "I" is the name signed and "you" the name saluted, in narration
  and in a letter read aloud in quotation marks.
- First-person narration. "I" outside quotations is the narrator when the chapter makes it clear: told in the first
  person, with one name that the speakers address far more than anyone else and that the narration never names as a
  subject (Watson in the Holmes stories, Victor in Frankenstein).

It also collects the evidence that types a name (core.kg.offline uses it): being referred to as he/she, speaking,
being addressed, owning a hand or a sister ("Buck's master") make a character; following a preposition of place ("in
Seattle", "to Dawson") or ending in a place word ("Queen Charlotte Sound") a location.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.kg.coref_words import (DIRECTION_PREPOSITIONS, FEMALE, FEMALE_NOUNS, FIRST_PERSON, MALE, MALE_NOUNS,
                                 MOTION_VERBS, OBJECT_DEPS, PERSONAL_NOUNS, PLACE_PREPOSITIONS, POSSESSIVE, REFLEXIVE,
                                 SECOND_PERSON, SPEECH_LEMMAS, SUBJECT_DEPS, THIRD_PERSON, UNNAMED, is_place_name,
                                 prior_gender)
from core.kg.letters import find_letters
from core.kg.names import surname
from core.kg.quotes import QUOTE_CLOSE, QUOTE_OPEN, Quote, quote_levels

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc, Token

WINDOW = 2            # previous sentences searched for an antecedent
NARRATOR_MIN_I = 15   # a chapter told in the first person says "I" at least this often outside quotations
MARGIN = 0.75         # the best candidate must lead the next by this much
DISTANCE = 0.8        # score lost per sentence back (a subject gains 1.0)
MAX_NAMES_PER_SENTENCE = 6
CONVERSATION_TURNS = 4  # paragraphs of dialogue whose speakers and addressees are a conversation's participants
# Words that may stand between the punctuation and a name in a vocative: "My dear Victor,", "Come, my good Buck!"
# ("poor", "old" and "young" are left out: "—poor Eliza!—" pities someone absent as often as it calls her.)
VOCATIVE_WORDS = frozenset({"my", "dear", "dearest", "good", "sweet", "beloved", "darling", "little", "kind",
                            "excellent", "honest", "noble", "gentle", "brave", "worthy"})


@dataclass(frozen=True)
class NamedSpan:
    """A name mention in one doc: tokens [start, end)."""

    start: int
    end: int
    name: str


@dataclass
class ChapterCoref:
    """What the chapter's pronouns and quotations resolve to, and the typing evidence gathered on the way."""

    refs: list[dict[int, str]]                                       # per doc: token index -> name
    quotes: list[Quote] = field(default_factory=list)
    gender: dict[str, str] = field(default_factory=dict)
    narrator: str | None = None                                      # who "I" is in the narration, if clear
    character_evidence: Counter[str] = field(default_factory=Counter)
    place_evidence: Counter[str] = field(default_factory=Counter)
    stats: Counter[str] = field(default_factory=Counter)


# ---- the resolver -----------------------------------------------------------------------------------------------

@dataclass
class _Entry:
    sentence: int
    name: str          # UNNAMED for a common-noun person
    subject: bool
    doc: int
    verb: int          # token index of the governing verb in its doc (binding)
    quote: int         # first-level quotation id (-1 narration)
    gender: str | None = None


def _role(tok: Token) -> tuple[bool, int]:
    """(is a subject, index of the governing word) of a mention's head token."""
    if tok.dep_ in ("poss",):
        return False, tok.head.head.i
    if tok.dep_ == "pobj":
        return False, tok.head.head.i
    if tok.dep_ == "conj":
        return _role(tok.head)
    return tok.dep_ in SUBJECT_DEPS, tok.head.i


def _adjacent(prev: Quote, cur: Quote) -> bool:
    """Quotations in consecutive paragraphs (of one passage, or the last and first of two)."""
    return (prev.doc == cur.doc and cur.paragraph == prev.paragraph + 1) or (
        cur.doc == prev.doc + 1 and cur.paragraph == 0)


def _is_speech_verb(tok: Token) -> bool:
    return tok.pos_ == "VERB" and tok.lower_ in SPEECH_LEMMAS


class _Chapter:
    def __init__(self, docs: Sequence[Doc], mentions: Sequence[Sequence[NamedSpan]],
                 types: Sequence[dict[str, str]]) -> None:
        self.docs = docs
        self.mentions = mentions
        self.ner_type: dict[str, str] = {m.name: "" for per_doc in mentions for m in per_doc}
        for per_doc in types:
            self.ner_type.update(per_doc)
        self.levels = [quote_levels(d) for d in docs]
        self.at: list[dict[int, NamedSpan]] = []
        for per_doc in mentions:
            table: dict[int, NamedSpan] = {}
            for m in per_doc:
                for i in range(m.start, m.end):
                    table[i] = m
            self.at.append(table)
        self.out = ChapterCoref(refs=[{} for _ in docs])
        self.quotes: dict[tuple[int, int], Quote] = {}
        self.narrated: set[str] = set()     # names the chapter's narration uses (not only its dialogue)
        self.narrated_subject: Counter[str] = Counter()
        self.first_person_narration = 0
        self.narrator: str | None = None
        self.letters: list[list[tuple[int, int, str, str | None]]] = [[] for _ in docs]  # per doc: (start, end,
        # writer, addressee) of the token ranges of its letters' paragraphs
        self.letter_quotes: set[int] = set()             # ids of the quotes inside a letter
        self.named_addressee: set[int] = set()           # ids of the quotes whose addressee the text names

    # -- pass 1: genders and typing evidence from explicit names ------------------------------------------------
    def learn(self) -> None:
        votes: dict[str, Counter[str]] = defaultdict(Counter)
        last_names: list[str] = []          # distinct narration names of the previous sentence
        for d, doc in enumerate(self.docs):
            depths = self.levels[d][0]
            for sent in doc.sents:
                names_here: list[str] = []
                for tok in sent:
                    m = self.at[d].get(tok.i)
                    if m is not None and tok.i == m.start:
                        if depths[tok.i] == 0:
                            self.narrated.add(m.name)
                            if doc[m.end - 1].dep_ in SUBJECT_DEPS | {"poss"}:
                                names_here.append(m.name)   # a salient name: "He dreamed of the Sunland" is no vote
                            if doc[m.end - 1].dep_ in SUBJECT_DEPS:
                                self.narrated_subject[m.name] += 1
                        self._place_vote(doc, m)
                        self._possessive_vote(doc, m)
                        continue
                    if tok.lower_ in FIRST_PERSON and depths[tok.i] == 0 and tok.pos_ == "PRON":
                        self.first_person_narration += 1
                    gender = THIRD_PERSON.get(tok.lower_)
                    if gender and depths[tok.i] == 0 and tok.pos_ == "PRON":
                        scope = set(names_here) if names_here else set(last_names)
                        if len(scope) == 1:
                            votes[next(iter(scope))][gender] += 1
                last_names = list(dict.fromkeys(names_here)) if names_here else last_names[:0]
        for name in self.ner_type:
            prior = prior_gender(name)
            v = votes.get(name, Counter())
            if prior:
                self.out.gender[name] = prior
            elif v[MALE] >= 2 and v[MALE] >= 3 * v[FEMALE]:
                self.out.gender[name] = MALE
            elif v[FEMALE] >= 2 and v[FEMALE] >= 3 * v[MALE]:
                self.out.gender[name] = FEMALE
            if v[MALE] + v[FEMALE] >= 2 and name in self.out.gender:
                self.out.character_evidence[name] += v[MALE] + v[FEMALE]
            if is_place_name(name):
                self.out.place_evidence[name] += 3

    def _possessive_vote(self, doc: Doc, m: NamedSpan) -> None:
        """"Buck's master", "Thornton's hand": a name that owns a body part, a kinsman or a feeling is a person."""
        if m.end >= len(doc) or doc[m.end].lower_ not in ("'s", "’s"):
            return
        owned = doc[m.end - 1].head
        if owned.pos_ == "NOUN" and owned.lower_ in PERSONAL_NOUNS:
            self.out.character_evidence[m.name] += 1

    def _place_vote(self, doc: Doc, m: NamedSpan) -> None:
        root = doc[m.end - 1]
        if root.dep_ != "pobj":
            return
        prep = root.head
        word = prep.lower_
        if word in PLACE_PREPOSITIONS or (word in DIRECTION_PREPOSITIONS and prep.head.lower_ in MOTION_VERBS):
            self.out.place_evidence[m.name] += 1

    def is_place(self, name: str) -> bool:
        place = self.out.place_evidence.get(name, 0)
        person = self.out.character_evidence.get(name, 0)
        if name in self.out.gender and place <= person + 2:
            return False
        return place > person or (self.ner_type.get(name) == "location" and person == 0)

    # -- pass 2: quotations and their speakers --------------------------------------------------------------------
    def find_quotes(self) -> None:
        for d, doc in enumerate(self.docs):
            depths, quote_ids, paragraphs = self.levels[d]
            spans: dict[int, list[int]] = {}
            for tok in doc:
                q = quote_ids[tok.i]
                if q >= 0:
                    spans.setdefault(q, [tok.i, tok.i])[1] = tok.i
            for q, (first, last) in spans.items():
                sentence = " ".join(doc[doc[first].sent.start:doc[last].sent.end].text.split())
                quote = Quote(d, paragraphs[first], first, last, sentence=sentence[:600])
                quote.addressee = self._vocative(d, first, last, depths)
                if quote.addressee:
                    self.named_addressee.add(id(quote))
                self.quotes[(d, q)] = quote
                self.out.quotes.append(quote)
        self.narrator = self._narrator()
        self._find_letters()

    def _find_letters(self) -> None:
        """Signed letters (core.kg.letters): "I" in them is the name signed, "you" the name saluted."""
        for letter in find_letters(self.docs):
            sig = letter.signature
            writer = next((self.at[sig.doc][i].name for i in range(sig.start, sig.end) if i in self.at[sig.doc]),
                          None)
            if writer is None:
                continue
            sal = letter.salutation
            saluted = next((m.name for i in range(sal.start, sal.end)
                            if (m := self.at[sal.doc].get(i)) is not None and m.name != writer
                            and not self.is_place(m.name)), None)
            for p in letter.paragraphs:
                self.letters[p.doc].append((p.start, p.end, writer, saluted))
            self.out.character_evidence[writer] += 1
            self.out.stats["letters"] += 1

    def _letter(self, d: int, i: int) -> tuple[str, str | None] | None:
        """(writer, addressee) of the letter holding token `i` of doc `d`, if any."""
        for start, end, writer, saluted in self.letters[d]:
            if start <= i < end:
                return writer, saluted
        return None

    def _narrator(self) -> str | None:
        """Who "I" is in a first-person narration ("I met Clerval"): the one name the chapter's speakers address
        most ("my dear Watson", "Victor!") that the narration itself hardly ever names as a subject, when the
        narration says "I" often. None when that is not clear."""
        if self.first_person_narration < NARRATOR_MIN_I:
            return None
        addressed = Counter(q.addressee for q in self.out.quotes if q.addressee)
        ranked = addressed.most_common(2)
        if not ranked or ranked[0][1] < 2 or (len(ranked) > 1 and ranked[1][1] * 2 > ranked[0][1]):
            return None
        name = ranked[0][0]
        family = (surname(name) or name).lower()
        named = sum(n for other, n in self.narrated_subject.items() if (surname(other) or other).lower() == family)
        if named > ranked[0][1]:
            return None                                  # "Holmes said ...": the narration names him ("Mr. Holmes"
            # is addressed, "Holmes" narrated: one man); he is not the "I"
        self.out.stats["narrator_found"] += 1
        self.out.narrator = name
        return name

    def _vocative(self, d: int, first: int, last: int, depths: list[int]) -> str | None:
        """A name set off by punctuation inside the quotation and not an argument of its verbs ("Come, Buck!")."""
        doc = self.docs[d]
        for i in range(first, last + 1):
            m = self.at[d].get(i)
            if m is None or i != m.start or depths[i] != 1:
                continue
            start = m.start
            while start > first and doc[start - 1].lower_ in VOCATIVE_WORDS:
                start -= 1                               # "My dear Victor,", "Welcome, my dearest Victor"
            if start == m.start and m.name not in self.narrated and prior_gender(m.name) is None:
                continue                                 # "Merry Christmas!", "Thank'ee!": exclamations, not people
            before = doc[start - 1].text if start > 0 else ""
            after = doc[m.end].text if m.end < len(doc) else ""
            head = doc[m.end - 1]
            argument = head.dep_ in SUBJECT_DEPS | OBJECT_DEPS | {"poss", "compound"} and depths[head.head.i] >= 1
            answer = after == "." and start <= first + 1 and m.end + 1 >= last   # “Mr. Scrooge.”: a reply, no call
            if (before in (",", QUOTE_OPEN, '"', "O", "Oh", "oh", "!", "—") and after in (",", "!", "?", ".", ";",
                                                                                         QUOTE_CLOSE, '"', "—")
                    and not argument and not answer):
                return m.name                            # (a "subject" of the narration's verb is a misparse)
        return None

    def _speaker_token(self, d: int, quote: Quote) -> Token | None:
        """The subject of the speech verb next to a quotation ("said Buck", "he asked"), in narration."""
        doc = self.docs[d]
        depths, _, paragraphs = self.levels[d]
        last = doc[quote.last].sent
        sents = {doc[quote.first].sent.start: doc[quote.first].sent, last.start: last}
        after = last.end
        while after < len(doc) and depths[after] == 0 and doc[after].is_punct and after - quote.last <= 2:
            after += 1                                   # the closing mark, cut off into the next sentence
        if last.end - quote.last <= 2 and after < len(doc) and doc[after].sent.start == after:
            sents[after] = doc[after:after + 3]          # '"There, now!" | she cried': a sentence cut after the mark
        for sent in sents.values():
            for tok in sent:
                if depths[tok.i] == 0 and paragraphs[tok.i] == quote.paragraph and _is_speech_verb(tok):
                    for child in tok.children:
                        if child.dep_ in SUBJECT_DEPS and depths[child.i] == 0:
                            return child
                    named = self.at[d].get(tok.i + 1)
                    root = doc[named.end - 1] if named is not None and named.start == tok.i + 1 else None
                    nxt = tok.i + 1 + (tok.i + 1 < len(doc) and doc[tok.i + 1].dep_ in ("det", "poss"))
                    if root is None and nxt < len(doc) and doc[nxt].pos_ == "NOUN":
                        root = doc[nxt]                  # "cried his wife"
                    if (root is not None and root.head.i == tok.i and root.dep_ in OBJECT_DEPS
                            and depths[root.i] == 0):
                        return root                      # "exclaimed Henry" parsed as an object: the inversion
        return None

    def _spoken_to(self, d: int, verb: Token) -> str | None:
        """The name (or resolved pronoun) after "to" on a speech verb: "said Darcy to Elizabeth", "he said to her"."""
        for prep in verb.children:
            if prep.dep_ == "prep" and prep.lower_ == "to":
                for obj in prep.children:
                    if obj.dep_ == "pobj":
                        m = self.at[d].get(obj.i)
                        return m.name if m is not None else self.out.refs[d].get(obj.i)
        return None

    def _actor(self, d: int, quote: Quote) -> str | None:
        """The one name that is the subject of narration in the quotation's paragraph ('Thornton grinned. "Good
        dog."'), else None."""
        doc = self.docs[d]
        depths, _, paragraphs = self.levels[d]
        found = set()
        start = quote.first
        while start > 0 and paragraphs[start - 1] == quote.paragraph:
            start -= 1
        end = quote.last
        while end + 1 < len(doc) and paragraphs[end + 1] == quote.paragraph:
            end += 1
        for i in range(start, end + 1):
            if depths[i] != 0:
                continue
            m = self.at[d].get(i)
            if m is not None and doc[m.end - 1].dep_ in SUBJECT_DEPS:
                found.add(m.name)
            elif i in self.out.refs[d] and doc[i].dep_ in SUBJECT_DEPS:
                found.add(self.out.refs[d][i])
        return next(iter(found)) if len(found) == 1 else None

    # -- pass 3: pronouns, in reading order -----------------------------------------------------------------------
    def resolve(self) -> None:
        recent: list[_Entry] = []
        chain: dict[str, tuple[str, int]] = {}
        sentence = 0
        for d, doc in enumerate(self.docs):
            depths, quote_ids, _ = self.levels[d]
            for sent in doc.sents:
                sentence += 1
                recent = [e for e in recent if e.sentence >= sentence - WINDOW]
                for tok in sent:
                    m = self.at[d].get(tok.i)
                    if m is not None:
                        if tok.i == m.start:
                            subject, verb = _role(doc[m.end - 1])
                            if not self.is_place(m.name):
                                recent.append(_Entry(sentence, m.name, subject, d, verb, quote_ids[tok.i],
                                                     self.out.gender.get(m.name)))
                        continue
                    low = tok.lower_
                    if tok.pos_ == "NOUN" and tok.dep_ in SUBJECT_DEPS:
                        noun_gender = MALE if low in MALE_NOUNS else FEMALE if low in FEMALE_NOUNS else None
                        if noun_gender or _is_speech_verb(tok.head):
                            recent.append(_Entry(sentence, UNNAMED, True, d, tok.head.i, quote_ids[tok.i],
                                                 noun_gender))
                        continue
                    if tok.pos_ != "PRON" and low not in ("his", "her"):
                        continue
                    depth = depths[tok.i]
                    if low in THIRD_PERSON and depth <= 1:
                        name = self._third_person(d, tok, sentence, recent, chain, quote_ids[tok.i])
                        if name:
                            self.out.refs[d][tok.i] = name
                            chain[THIRD_PERSON[low]] = (name, sentence)
                            subject, verb = _role(tok)
                            recent.append(_Entry(sentence, name, subject, d, verb, quote_ids[tok.i],
                                                 THIRD_PERSON[low]))
                            self.out.character_evidence[name] += 1
                            self.out.stats["coref_resolved"] += 1
                    elif depth == 1 and (low in FIRST_PERSON or low in SECOND_PERSON):
                        self.out.stats["dialogue_pronouns"] += 1
                    elif depth == 0 and (low in FIRST_PERSON or low in SECOND_PERSON) and (
                            letter := self._letter(d, tok.i)):
                        name = letter[0] if low in FIRST_PERSON else letter[1]
                        if name:
                            self.out.refs[d][tok.i] = name
                            self.out.stats["letter_pronouns"] += 1
                    elif depth == 0 and low in FIRST_PERSON and self.narrator:
                        self.out.refs[d][tok.i] = self.narrator
                        self.out.stats["narrator_pronouns"] += 1
        self.attribute_speakers(final=True)

    def _third_person(self, d: int, tok: Token, sentence: int, recent: list[_Entry],
                      chain: dict[str, tuple[str, int]],
                      quote: int) -> str | None:
        low = tok.lower_
        gender = THIRD_PERSON[low]
        subject, verb = _role(tok)
        speaker = addressee = None
        if quote >= 0 and (d, quote) in self.quotes:
            q = self.quotes[(d, quote)]
            speaker, addressee = q.speaker, q.addressee
        best: dict[str, float] = {}
        for e in recent:
            if e.quote >= 0 and e.quote != quote:
                continue                                 # a name inside another quotation is not narration's
            if quote >= 0 and e.name in (speaker, addressee):
                continue                                 # "he" in a speech is neither its speaker nor its hearer
            same_clause = e.sentence == sentence and e.doc == d and e.verb == verb
            if low in REFLEXIVE:
                if not (same_clause and e.subject):
                    continue
            elif same_clause and low not in POSSESSIVE and tok.dep_ != "poss":
                continue                                 # "Manuel sold him": him is not Manuel
            known = e.gender
            if known and known != gender:
                continue
            score = (1.0 if e.subject else 0.0) - DISTANCE * (sentence - e.sentence) - (0.8 if known is None else 0.0)
            if chain.get(gender) == (e.name, sentence) or chain.get(gender) == (e.name, sentence - 1):
                score += 0.5                             # the referent of the last pronoun, a sentence ago at most
            if e.name not in best or score > best[e.name]:
                best[e.name] = score
        if not best:
            self.out.stats["coref_no_candidate"] += 1
            return None
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        if ranked[0][0] == UNNAMED:
            self.out.stats["coref_unnamed"] += 1
            return None
        if low in REFLEXIVE or len(ranked) == 1 or ranked[0][1] - ranked[1][1] >= MARGIN:
            return ranked[0][0]
        self.out.stats["coref_ambiguous"] += 1
        return None

    def attribute_speakers(self, final: bool = False) -> None:
        """Speakers (explicit names first; again after pronouns are resolved, for "he said", and then the turns of
        the conversation) and addressees."""
        if final:
            self._conversation_speakers()
        by_paragraph: list[Quote] = []
        for q in self.out.quotes:
            tok = self._speaker_token(q.doc, q) if not (q.speaker and q.addressee) else None
            if tok is not None and not q.addressee:  # "said Darcy to Elizabeth", "he said to her"
                q.addressee = self._spoken_to(q.doc, tok.head)
                if q.addressee:
                    self.named_addressee.add(id(q))
            if q.speaker:
                if q.speaker == q.addressee:
                    q.addressee = None
                by_paragraph.append(q)
                continue
            letter = self._letter(q.doc, q.first)
            if tok is not None:  # "he said": known once the pronoun is resolved
                m = self.at[q.doc].get(tok.i)
                q.speaker = m.name if m else self.out.refs[q.doc].get(tok.i)
            elif letter is not None:  # a letter read out: its writer "speaks" to the one it salutes
                q.speaker, q.addressee = letter[0], q.addressee or letter[1]
                self.letter_quotes.add(id(q))
            else:
                q.speaker = self._actor(q.doc, q)
            if q.speaker and q.speaker == q.addressee:
                q.addressee = None
            by_paragraph.append(q)
        # an alternating exchange: consecutive paragraphs spoken by two people are spoken to each other
        for prev, cur in zip(by_paragraph, by_paragraph[1:]):
            if (_adjacent(prev, cur) and prev.speaker and cur.speaker and prev.speaker != cur.speaker
                    and not {id(prev), id(cur)} & self.letter_quotes):
                prev.addressee = prev.addressee or cur.speaker
                cur.addressee = cur.addressee or prev.speaker

    def _gender(self, name: str) -> str | None:
        return self.out.gender.get(name) or prior_gender(name)

    def _conversation_speakers(self) -> None:
        """Two rules of turn-taking for the paragraphs of dialogue that no name or resolved pronoun attributes:
        - a reply to a name: the paragraph right after a quotation that addresses someone by name ("I hope we may
          clear him, Miss Turner," said Holmes.) is that person's, when its own speech verb, if any, has no name
          for a subject ("said my patient") or a pronoun or noun of that person's gender ("cried his wife" is not
          Mr. Collins's), when it does not name that person itself and calls nobody but the previous speaker;
        - "she cried" with "she" left unresolved (the narration named nobody nearby): the one participant of that
          gender in the conversation (the speakers and addressees of its last CONVERSATION_TURNS paragraphs, with
          no paragraph of narration between), when every turn of it has a known speaker and every participant a
          known gender.
        Both apply only to a paragraph that opens with its quotation, and the reply rule only after a quotation
        that closes (a speech running on into the next paragraph is still its speaker's)."""
        groups: list[list[Quote]] = []                   # the quotations of each paragraph, in reading order
        for q in self.out.quotes:
            if groups and (groups[-1][0].doc, groups[-1][0].paragraph) == (q.doc, q.paragraph):
                groups[-1].append(q)
            else:
                groups.append([q])
        recent: list[list[Quote]] = []
        for group in groups:
            if recent and not _adjacent(recent[-1][-1], group[0]):
                recent = []
            if not any(q.speaker for q in group) and not any(id(q) in self.letter_quotes for q in group):
                speaker = self._turn(group, recent)
                if speaker:
                    for q in group:
                        q.speaker = speaker
                        if q.addressee == speaker:
                            q.addressee = None
            recent = [*recent, group][-CONVERSATION_TURNS:]

    def _opens_paragraph(self, q: Quote) -> bool:
        """True when nothing but whitespace precedes the quotation in its paragraph."""
        doc, paragraphs = self.docs[q.doc], self.levels[q.doc][2]
        i = q.first - 1
        while i >= 0 and paragraphs[i] == q.paragraph and doc[i].is_space:
            i -= 1
        return i < 0 or paragraphs[i] != q.paragraph

    def _closed(self, q: Quote) -> bool:
        """True when the quotation ends with its closing mark (a speech running on into the next paragraph does
        not: that paragraph is the same speaker's)."""
        doc = self.docs[q.doc]
        return q.last + 1 < len(doc) and doc[q.last + 1].text in (QUOTE_CLOSE, '"', "’", "'")

    def _turn(self, group: list[Quote], recent: list[list[Quote]]) -> str | None:
        if not self._opens_paragraph(group[0]):
            return None                                  # narration first: not a plain turn of the dialogue
        tokens = [t for t in (self._speaker_token(q.doc, q) for q in group) if t is not None]
        tok = tokens[0] if tokens else None
        d = group[0].doc
        if tok is not None and (tok.i in self.at[d] or tok.i in self.out.refs[d]):
            return None                                  # attributed already (to a name the rules refuse)
        gender = THIRD_PERSON.get(tok.lower_) if tok is not None and tok.pos_ == "PRON" else None
        if tok is not None and tok.pos_ == "PRON" and gender is None:
            return None                                  # "I said", "you said": not a third person
        if tok is not None and tok.pos_ == "NOUN":       # "cried his wife", "said her brother"
            gender = MALE if tok.lower_ in MALE_NOUNS else FEMALE if tok.lower_ in FEMALE_NOUNS else None
        if recent and self._closed(recent[-1][-1]):
            prev = recent[-1]
            named = [q.addressee for q in prev if q.addressee and id(q) in self.named_addressee
                     and q.addressee != q.speaker]
            own = {m.name for q in group for i in range(q.first, q.last + 1) if (m := self.at[d].get(i))}
            calls = {q.addressee for q in group if q.addressee and id(q) in self.named_addressee}
            speakers = {q.speaker for q in prev if q.speaker}
            if (named and named[-1] not in own and calls <= speakers
                    and (gender is None or self._gender(named[-1]) == gender)):
                self.out.stats["speaker_reply_to_name"] += 1
                return self._attribute(d, tok, named[-1])
        if gender is None or tok is None or tok.pos_ != "PRON":
            return None
        if any(q.speaker is None for g in recent for q in g):
            return None                                  # a turn of someone unknown: the participants are not known
        people = {n for g in recent for q in g for n in (q.speaker, q.addressee) if n}
        if not people or any(self._gender(n) is None for n in people):
            return None
        same = [n for n in people if self._gender(n) == gender]
        if len(same) != 1:
            return None
        self.out.stats["speaker_from_conversation"] += 1
        return self._attribute(d, tok, same[0])

    def _attribute(self, d: int, tok: Token | None, name: str) -> str:
        if tok is not None and tok.pos_ == "PRON":
            self.out.refs[d][tok.i] = name                # "she cried": she is the speaker
        return name

    def first_second_person(self) -> None:
        for q in self.out.quotes:
            if q.speaker:
                self.out.character_evidence[q.speaker] += 1
            if q.addressee:
                self.out.character_evidence[q.addressee] += 1
            doc = self.docs[q.doc]
            depths, quote_ids, _ = self.levels[q.doc]
            for i in range(q.first, q.last + 1):
                if depths[i] != 1 or doc[i].pos_ != "PRON":
                    continue
                low = doc[i].lower_
                if low in FIRST_PERSON and q.speaker:
                    self.out.refs[q.doc][i] = q.speaker
                elif low in SECOND_PERSON and q.addressee:
                    self.out.refs[q.doc][i] = q.addressee


def resolve_chapter(docs: Sequence[Doc], mentions: Sequence[Sequence[NamedSpan]],
                    ner_types: Sequence[dict[str, str]] | None = None) -> ChapterCoref:
    """Resolve the chapter's pronouns. `mentions[k]` are the name mentions of `docs[k]`; `ner_types[k]` maps each
    name to the type the NER model (and its local cues) gave it, used when the chapter has no other evidence."""
    chapter = _Chapter(docs, mentions, ner_types or [{} for _ in docs])
    chapter.learn()
    chapter.find_quotes()
    chapter.attribute_speakers()
    chapter.resolve()
    chapter.first_second_person()
    return chapter.out

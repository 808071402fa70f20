"""Pass 1 of the chapter resolver (core.kg.coref): each name's gender (honorific, first name, the chapter's own
he/she votes) and the evidence that types it as a character (he/she, a possessed hand or sister) or a place
(a preposition of place, a place word)."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from core.kg.coref_words import (ANIMAL_NOUNS, ANIMATE_VERBS, AT_PERSON_VERBS, DIRECTION_PREPOSITIONS, FEMALE,
                                 FIRST_PERSON, MALE, MOTION_VERBS, PERSON_APPOSITIONS, PERSONAL_NOUNS,
                                 PLACE_PREPOSITIONS, SUBJECT_DEPS, THIRD_PERSON, WORK_NOUNS, is_place_name,
                                 prior_gender)

from core.kg.given_names import is_given_name

COPULAS = frozenset({"be", "is", "was", "were", "are", "been", "being"})
DETERMINERS = frozenset({"a", "an", "the", "his", "her", "their", "my", "your", "our", "its"})

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc, Token

    from core.kg.coref_types import NamedSpan
    from core.kg.coref_state import ChapterState


def _who_clause(head: Token, name: Token) -> bool:
    """Whether a relative clause after the name opens with "who" or "whom" ("Flavian, who is", and on the noun the
    name is in apposition with: "a young knight, Cornelius, who becomes a friend"), which English says of people
    (and of animals treated as people), not of places or things."""
    return any(c.dep_ == "relcl" and any(g.lower_ in ("who", "whom") and name.i < g.i < c.i for g in c.children)
               for c in head.children)


class EvidenceMixin:
    """Genders and typing evidence of a _Chapter."""

    # -- pass 1: genders and typing evidence from explicit names ------------------------------------------------
    def learn(self: ChapterState) -> None:
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
                        self._animate_vote(doc, m)
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

    def _possessive_vote(self: ChapterState, doc: Doc, m: NamedSpan) -> None:
        """"Buck's master", "Thornton's hand": a name that owns a body part, a kinsman or a feeling is a person."""
        if m.end >= len(doc) or doc[m.end].lower_ not in ("'s", "’s"):
            return
        owned = doc[m.end - 1].head
        if owned.pos_ == "NOUN" and owned.lower_ in PERSONAL_NOUNS:
            self.out.character_evidence[m.name] += 1

    def _animate_vote(self: ChapterState, doc: Doc, m: NamedSpan) -> None:
        """What only a living being is or does, for characters the NER model does not know as people (dogs named
        Curly or Koona): in apposition with an animal or a person ("Curly, a good-natured Newfoundland", "two native
        huskies, Teek and Koona"), said to be one ("Nig was a dog"), or the subject of a verb only a living being
        does ("Koona howled"). And a name owned by a thing behind an article is a maker's name, not a person
        ("a big Colt's revolver", "the Colt's revolver")."""
        root = doc[m.end - 1]
        name_token, head = root, root.head
        while root.dep_ == "conj" and head.pos_ == "PROPN" and head.i != root.i:   # "Teek and Koona": Koona too
            root, head = head, head.head
        nouns = ANIMAL_NOUNS | PERSON_APPOSITIONS
        appositions = [c for c in root.children if c.dep_ == "appos"]
        if root.dep_ == "appos" or (root.dep_ == "conj" and head.lower_ in ANIMAL_NOUNS):
            appositions.append(head)     # "two native huskies, Teek and Koona" (parsed as a conjunction)
        if m.end < len(doc) and doc[m.end].text == ",":   # "Toots, the Japanese pug," parsed as a conjunction
            appositions.extend(c for c in root.children if c.dep_ == "conj" and c.lower_ in ANIMAL_NOUNS)
        if root.dep_ in SUBJECT_DEPS and head.lower_ in COPULAS:
            appositions.extend(c for c in head.children if c.dep_ in ("attr", "acomp"))
        if any(a.lower_ in nouns or (a.pos_ in ("NOUN", "PROPN") and a.lower_.rstrip("s") in nouns)
               for a in appositions):
            self.out.character_evidence[m.name] += 2
        elif root.dep_ in SUBJECT_DEPS and head.pos_ in ("VERB", "AUX") and head.lower_ in ANIMATE_VERBS:
            self.out.character_evidence[m.name] += 1
        elif _who_clause(root, root) or (root.dep_ == "appos" and _who_clause(root.head, root)):
            self.out.character_evidence[m.name] += 2   # "Cornelius, who becomes a friend": "who" is said of people
        opens = m.start > 0 and doc[m.start - 1].text in ("“", '"')
        closes = m.end < len(doc) and doc[m.end].text in ("”", '"')
        if opens and closes and m.end - m.start >= 2:
            self.out.thing_evidence[m.name] += 1   # “Sentimental Journey”: a title quoted on its own, not a speech
        if root.dep_ == "pobj" and root.head.lower_ == "of" and root.head.head.lower_ in WORK_NOUNS:
            self.out.thing_evidence[m.name] += 1   # "the publication of the Sentimental Journey": a written work
        owner, owned = name_token, name_token.head
        if (owner.dep_ == "poss" and m.end < len(doc) and doc[m.end].lower_ in ("'s", "’s")
                and owned.lower_ not in PERSONAL_NOUNS
                and (any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in (*owner.children, *owned.children))
                     or any(c.dep_ == "det" and c.lower_ in DETERMINERS and c.i < m.start for c in owned.children))):
            self.out.thing_evidence[m.name] += 1   # "a big Colt's revolver": no one says "a Thornton's camp"

    def _place_vote(self: ChapterState, doc: Doc, m: NamedSpan) -> None:
        root = doc[m.end - 1]
        if root.dep_ != "pobj":
            return
        prep = root.head
        word = prep.lower_
        if word == "at" and prep.head.lower_ in AT_PERSON_VERBS:
            return  # "Curly growled at Thomas Reed": aimed at someone, not somewhere
        if word in PLACE_PREPOSITIONS or (word in DIRECTION_PREPOSITIONS and prep.head.lower_ in MOTION_VERBS):
            self.out.place_evidence[m.name] += 1

    def is_place(self: ChapterState, name: str) -> bool:
        place = self.out.place_evidence.get(name, 0)
        person = self.out.character_evidence.get(name, 0)
        if name in self.out.gender and place <= person + 2:
            return False
        return place > person or (self.ner_type.get(name) == "location" and person == 0)

    def is_thing(self: ChapterState, name: str) -> bool:
        """A maker's name ("a Colt's revolver") or a common noun capitalised: one word that the chapter writes in
        lower case at least as often (and twice), no first name and no honorific ("Time", "Life"; not "Rose")."""
        if self.out.thing_evidence.get(name, 0):
            return True
        return (" " not in name and self.common[name.lower()] >= max(2, self.name_total[name])
                and prior_gender(name) is None and not is_given_name(name))

    def _gender(self: ChapterState, name: str) -> str | None:
        return self.out.gender.get(name) or prior_gender(name)

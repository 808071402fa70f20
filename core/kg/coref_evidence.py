"""Pass 1 of the chapter resolver (core.kg.coref): each name's gender (honorific, first name, the chapter's own
he/she votes) and the evidence that types it as a character (he/she, a possessed hand or sister) or a place
(a preposition of place, a place word)."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from core.kg.coref_words import (DIRECTION_PREPOSITIONS, FEMALE, FIRST_PERSON, MALE, MOTION_VERBS,
                                 PERSONAL_NOUNS, PLACE_PREPOSITIONS, SUBJECT_DEPS, THIRD_PERSON, is_place_name,
                                 prior_gender)

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc

    from core.kg.coref import NamedSpan
    from core.kg.coref_state import ChapterState


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

    def _place_vote(self: ChapterState, doc: Doc, m: NamedSpan) -> None:
        root = doc[m.end - 1]
        if root.dep_ != "pobj":
            return
        prep = root.head
        word = prep.lower_
        if word in PLACE_PREPOSITIONS or (word in DIRECTION_PREPOSITIONS and prep.head.lower_ in MOTION_VERBS):
            self.out.place_evidence[m.name] += 1

    def is_place(self: ChapterState, name: str) -> bool:
        place = self.out.place_evidence.get(name, 0)
        person = self.out.character_evidence.get(name, 0)
        if name in self.out.gender and place <= person + 2:
            return False
        return place > person or (self.ner_type.get(name) == "location" and person == 0)

    def _gender(self: ChapterState, name: str) -> str | None:
        return self.out.gender.get(name) or prior_gender(name)

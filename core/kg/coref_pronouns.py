"""Pass 3 of the chapter resolver (core.kg.coref): third-person pronouns in reading order (agreement, recency,
salience, binding, the chain of the last pronoun), and "I"/"you" of letters and of the narrator in narration."""
from __future__ import annotations

from typing import TYPE_CHECKING

from core.kg.coref_dialogue import _is_speech_verb
from core.kg.coref_types import _Entry
from core.kg.coref_words import (FEMALE, FEMALE_NOUNS, FIRST_PERSON, MALE, MALE_NOUNS, POSSESSIVE, REFLEXIVE,
                                 SECOND_PERSON, SUBJECT_DEPS, THIRD_PERSON, UNNAMED)

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Token

    from core.kg.coref_state import ChapterState

WINDOW = 2            # previous sentences searched for an antecedent
MARGIN = 0.75         # the best candidate must lead the next by this much
DISTANCE = 0.8        # score lost per sentence back (a subject gains 1.0)




def _role(tok: Token) -> tuple[bool, int]:
    """(is a subject, index of the governing word) of a mention's head token."""
    if tok.dep_ in ("poss",):
        return False, tok.head.head.i
    if tok.dep_ == "pobj":
        return False, tok.head.head.i
    if tok.dep_ == "conj":
        return _role(tok.head)
    return tok.dep_ in SUBJECT_DEPS, tok.head.i



class PronounMixin:
    """Pronoun resolution of a _Chapter."""

    # -- pass 3: pronouns, in reading order -----------------------------------------------------------------------
    def resolve(self: ChapterState) -> None:
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
                            if not self.is_place(m.name) and not self.is_thing(m.name):
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

    def _third_person(self: ChapterState, d: int, tok: Token, sentence: int, recent: list[_Entry],
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

"""Turn-taking for the chapter resolver (core.kg.coref): the speaker of a paragraph of dialogue that no name or
resolved pronoun attributes, from the reply to a name or the one participant of a gender in the conversation."""
from __future__ import annotations

from typing import TYPE_CHECKING

from core.kg.coref_dialogue import _adjacent
from core.kg.coref_words import FEMALE, FEMALE_NOUNS, MALE, MALE_NOUNS, THIRD_PERSON
from core.kg.quotes import QUOTE_CLOSE, Quote

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Token

    from core.kg.coref_state import ChapterState

CONVERSATION_TURNS = 4  # paragraphs of dialogue whose speakers and addressees are a conversation's participants


class TurnsMixin:
    """The turns of a _Chapter's conversations."""

    def _conversation_speakers(self: ChapterState) -> None:
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

    def _opens_paragraph(self: ChapterState, q: Quote) -> bool:
        """True when nothing but whitespace precedes the quotation in its paragraph."""
        doc, paragraphs = self.docs[q.doc], self.levels[q.doc][2]
        i = q.first - 1
        while i >= 0 and paragraphs[i] == q.paragraph and doc[i].is_space:
            i -= 1
        return i < 0 or paragraphs[i] != q.paragraph

    def _closed(self: ChapterState, q: Quote) -> bool:
        """True when the quotation ends with its closing mark (a speech running on into the next paragraph does
        not: that paragraph is the same speaker's)."""
        doc = self.docs[q.doc]
        return q.last + 1 < len(doc) and doc[q.last + 1].text in (QUOTE_CLOSE, '"', "’", "'")

    def _turn(self: ChapterState, group: list[Quote], recent: list[list[Quote]]) -> str | None:
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

    def _attribute(self: ChapterState, d: int, tok: Token | None, name: str) -> str:
        if tok is not None and tok.pos_ == "PRON":
            self.out.refs[d][tok.i] = name                # "she cried": she is the speaker
        return name

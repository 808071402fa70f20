"""Quotations for the chapter resolver (core.kg.coref): finding them, their speakers (a speech verb's subject, the
one name acting in the paragraph, a letter read out), their addressees (a vocative, "to" on the speech verb, the
other side of an alternating exchange), and "I"/"you" inside them."""
from __future__ import annotations

from typing import TYPE_CHECKING

from core.kg.coref_words import FIRST_PERSON, OBJECT_DEPS, SECOND_PERSON, SPEECH_LEMMAS, SUBJECT_DEPS, prior_gender
from core.kg.quotes import QUOTE_CLOSE, QUOTE_OPEN, Quote

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Token

    from core.kg.coref_state import ChapterState

# Words that may stand between the punctuation and a name in a vocative: "My dear Victor,", "Come, my good Buck!"
# ("poor", "old" and "young" are left out: "—poor Eliza!—" pities someone absent as often as it calls her.)
VOCATIVE_WORDS = frozenset({"my", "dear", "dearest", "good", "sweet", "beloved", "darling", "little", "kind",
                            "excellent", "honest", "noble", "gentle", "brave", "worthy"})


def _adjacent(prev: Quote, cur: Quote) -> bool:
    """Quotations in consecutive paragraphs (of one passage, or the last and first of two)."""
    return (prev.doc == cur.doc and cur.paragraph == prev.paragraph + 1) or (
        cur.doc == prev.doc + 1 and cur.paragraph == 0)


def _is_speech_verb(tok: Token) -> bool:
    return tok.pos_ == "VERB" and tok.lower_ in SPEECH_LEMMAS


def _opens_a_broken_sentence(state: ChapterState, d: int, end: int, last: int, reach: int = 12) -> bool:
    """Whether a quotation holds only a name and its comma, and the speech goes on in lower case after the speech
    verb: '"Skipper," Wass said carefully, "if we don't get out..."' calls Skipper (the sentence runs on past the
    tag), where '"Water," Wass said thoughtfully. "There must be..."' says a word."""
    doc = state.docs[d]
    depths, _, paragraphs = state.levels[d]
    if end > last or doc[end].text != "," or any(doc[k].is_alpha for k in range(end, last + 1)):
        return False
    for k in range(last + 1, min(len(doc), last + 1 + reach)):
        if paragraphs[k] != paragraphs[last]:
            return False
        if depths[k] >= 1 and doc[k].is_alpha:
            return doc[k].is_lower
    return False


class DialogueMixin:
    """Quotations, speakers and addressees of a _Chapter."""

    # -- pass 2: quotations and their speakers --------------------------------------------------------------------
    def find_quotes(self: ChapterState) -> None:
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


    def _vocative(self: ChapterState, d: int, first: int, last: int, depths: list[int]) -> str | None:
        """A name set off by punctuation inside the quotation and not an argument of its verbs ("Come, Buck!")."""
        doc = self.docs[d]
        for i in range(first, last + 1):
            m = self.at[d].get(i)
            if m is None or i != m.start or depths[i] != 1:
                continue
            start = m.start
            while start > first and doc[start - 1].lower_ in VOCATIVE_WORDS:
                start -= 1                               # "My dear Victor,", "Welcome, my dearest Victor"
            if (start == m.start and m.name not in self.narrated and prior_gender(m.name) is None
                    and not _opens_a_broken_sentence(self, d, m.end, last)):
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

    def _speaker_token(self: ChapterState, d: int, quote: Quote) -> Token | None:
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

    def _spoken_to(self: ChapterState, d: int, verb: Token) -> str | None:
        """The name (or resolved pronoun) after "to" on a speech verb: "said Darcy to Elizabeth", "he said to her"."""
        for prep in verb.children:
            if prep.dep_ == "prep" and prep.lower_ == "to":
                for obj in prep.children:
                    if obj.dep_ == "pobj":
                        m = self.at[d].get(obj.i)
                        return m.name if m is not None else self.out.refs[d].get(obj.i)
        return None

    def _actor(self: ChapterState, d: int, quote: Quote) -> str | None:
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

    def attribute_speakers(self: ChapterState, final: bool = False) -> None:
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

    def first_second_person(self: ChapterState) -> None:
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

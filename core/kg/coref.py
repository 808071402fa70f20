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

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.kg.coref_dialogue import DialogueMixin
from core.kg.coref_evidence import EvidenceMixin
from core.kg.coref_narration import NarrationMixin
from core.kg.coref_pronouns import PronounMixin
from core.kg.coref_turns import TurnsMixin
from core.kg.coref_types import ChapterCoref, NamedSpan
from core.kg.coref_words import is_place_name, prior_gender
from core.kg.quotes import Quote, quote_levels

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc

__all__ = ["ChapterCoref", "MAX_NAMES_PER_SENTENCE", "NamedSpan", "is_place_name", "prior_gender",
           "quote_levels", "resolve_chapter"]

MAX_NAMES_PER_SENTENCE = 6


# ---- the resolver -----------------------------------------------------------------------------------------------

class _Chapter(EvidenceMixin, DialogueMixin, NarrationMixin, PronounMixin, TurnsMixin):
    """The state of one chapter's resolution; its passes live in the mixins' modules (core.kg.coref_*)."""

    def __init__(self, docs: Sequence[Doc], mentions: Sequence[Sequence[NamedSpan]],
                 types: Sequence[dict[str, str]]) -> None:
        self.docs = docs
        self.mentions = mentions
        self.ner_type: dict[str, str] = {m.name: "" for per_doc in mentions for m in per_doc}
        for per_doc in types:
            self.ner_type.update(per_doc)
        self.levels = [quote_levels(d) for d in docs]
        self.at: list[dict[int, NamedSpan]] = []
        for doc_mentions in mentions:
            table: dict[int, NamedSpan] = {}
            for m in doc_mentions:
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
        # lower-case words and name mentions of the chapter: a name the chapter also writes in lower case as often
        # ("the womb of Time" beside "time") is a common noun, never a pronoun's antecedent (EvidenceMixin.is_thing)
        self.common: Counter[str] = Counter(t.lower_ for doc in docs for t in doc if t.is_alpha and t.is_lower)
        self.name_total: Counter[str] = Counter(m.name for per_doc in mentions for m in per_doc)


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

"""Who "I" and "you" are outside quotations, for the chapter resolver (core.kg.coref): the writer and the saluted
reader of a signed letter (core.kg.letters), and the narrator of a first-person narration."""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from core.kg.letters import find_letters
from core.kg.names import surname

if TYPE_CHECKING:  # pragma: no cover
    from core.kg.coref_state import ChapterState

NARRATOR_MIN_I = 15   # a chapter told in the first person says "I" at least this often outside quotations


class NarrationMixin:
    """Letters and the first-person narrator of a _Chapter."""

    def _find_letters(self: ChapterState) -> None:
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

    def _letter(self: ChapterState, d: int, i: int) -> tuple[str, str | None] | None:
        """(writer, addressee) of the letter holding token `i` of doc `d`, if any."""
        for start, end, writer, saluted in self.letters[d]:
            if start <= i < end:
                return writer, saluted
        return None

    def _narrator(self: ChapterState) -> str | None:
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

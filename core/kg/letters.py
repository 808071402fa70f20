"""Letters in a chapter: who wrote them and to whom, from their layout alone.

A letter in a novel ends with a signature: a paragraph that is nothing but a name ("R. Walton", "“LYDIA BENNET.”")
right after the complimentary close, a paragraph ending in a comma ("Your affectionate brother,", "...your
well-wisher and friend,"; prose paragraphs never end in a comma) or in a farewell ("Adieu! my cousin; ... write!",
"God bless you."), or the close and the name as one short paragraph ("Your affectionate brother, Robert Walton"). It
begins with a salutation: a short paragraph that opens with "Dear", "My", "Sir", "To"... and ends in a comma ("My
dear Victor,", "MY DEAR HARRIET,", "Dear Sir,--"), or an address line ("To Mrs. Saville, England."). Inside a
letter, "I" is the writer and "you" the person saluted, in narration (an epistolary chapter) as in a letter read
aloud within quotation marks.

A signature with no salutation before it (within MAX_LETTER_PARAGRAPHS) makes no letter: where the letter begins
is not known, and a wrong "I" is worse than none.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.kg.names import normalize_name

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc, Span

MAX_SIGNATURE_WORDS = 4
MAX_SALUTATION_WORDS = 8
MAX_LETTER_PARAGRAPHS = 40
SALUTATION_WORDS = frozenset({"dear", "dearest", "my", "to", "sir", "madam", "madame", "gentlemen", "ladies",
                              "honoured", "honored", "beloved", "respected", "esteemed"})
# The first word of a complimentary close ("Your affectionate brother,", "Yours ever,", "Believe me, ...").
CLOSING_WORDS = frozenset({"your", "yours", "ever", "believe", "faithfully", "affectionately", "sincerely", "truly",
                           "respectfully", "adieu", "farewell"})
# Words of farewell that end a letter's last paragraph when no close of its own comes before the signature.
FAREWELLS = frozenset({"adieu", "farewell", "yours"})
FAREWELL_SPAN = 20
_SIGNATURE_WORD = re.compile(r"^[A-Z][A-Za-z'’-]*\.?$")
_MARKS = frozenset({'"', "“", "”", "‘", "’", "'", "—", "–", "-", "_", "*"})


@dataclass(frozen=True)
class Paragraph:
    doc: int
    start: int          # token range [start, end) in its doc, surrounding whitespace excluded
    end: int


@dataclass(frozen=True)
class Letter:
    salutation: Paragraph
    signature: Paragraph
    paragraphs: tuple[Paragraph, ...]   # salutation .. signature, in order


def paragraphs(doc: Doc, d: int = 0) -> list[Paragraph]:
    """The doc's paragraphs (split at whitespace tokens holding a line break), empty ones left out."""
    out: list[Paragraph] = []
    start = 0
    for tok in doc:
        if tok.is_space and "\n" in tok.text:
            if tok.i > start:
                out.append(Paragraph(d, start, tok.i))
            start = tok.i + 1
    if len(doc) > start:
        out.append(Paragraph(d, start, len(doc)))
    return [p for p in out if any(not doc[i].is_space for i in range(p.start, p.end))]


def _words(doc: Doc, p: Paragraph) -> list[int]:
    return [i for i in range(p.start, p.end) if not doc[i].is_space and not doc[i].is_punct
            and doc[i].text not in _MARKS]


def _last_mark(doc: Doc, p: Paragraph) -> str:
    """The paragraph's last token that is not a quotation mark, a dash or whitespace."""
    for i in range(p.end - 1, p.start - 1, -1):
        if not doc[i].is_space and doc[i].text not in _MARKS:
            return doc[i].text
    return ""


def ends_in_comma(doc: Doc, p: Paragraph) -> bool:
    return _last_mark(doc, p) == ","


def ends_in_farewell(doc: Doc, p: Paragraph) -> bool:
    """Whether the paragraph's last words bid farewell: "...Adieu! my cousin; take care of yourself; and, I entreat
    you, write!", "I will only add, God bless you." (the last FAREWELL_SPAN words), or break off into the close
    ("Oh, do come soon to your loving...")."""
    words = [doc[i].lower_ for i in _words(doc, p)][-FAREWELL_SPAN:]
    return (any(w in FAREWELLS for w in words) or any(a == "god" and b == "bless" for a, b in zip(words, words[1:]))
            or (_last_mark(doc, p) in ("...", "…") and "your" in words[-4:]))


def signature_span(doc: Doc, p: Paragraph, previous: Paragraph | None, previous_doc: Doc | None = None,
                   following: tuple[Doc, Paragraph] | None = None) -> Span | None:
    """The name of a signature paragraph (see the module docstring), or None when `p` is not one. After a farewell
    rather than a close, a name followed by a salutation is the next letter's place and date ("Adieu, I embrace
    you. / HEIDELBERG / My dear Mamma,"), not a signature."""
    before = previous_doc if previous_doc is not None else doc
    if previous is None:
        return None
    if not ends_in_comma(before, previous) and not (ends_in_farewell(before, previous)
                                                    and not (following and is_salutation(*following))):
        return None
    words = _words(doc, p)
    if not 1 <= len(words) <= MAX_SIGNATURE_WORDS or ends_in_comma(doc, p):
        return None
    return _name_span(doc, words)


def closing_signature_span(doc: Doc, p: Paragraph) -> Span | None:
    """The name ending a close and signature written as one paragraph ("Your affectionate brother, Robert Walton"),
    or None."""
    words = _words(doc, p)
    if not 2 <= len(words) <= MAX_SALUTATION_WORDS + MAX_SIGNATURE_WORDS or doc[words[0]].lower_ not in CLOSING_WORDS:
        return None
    commas = [i for i in range(p.start, p.end) if doc[i].text == ","]
    if not commas:
        return None
    tail = [i for i in words if i > commas[-1]]
    return _name_span(doc, tail) if 1 <= len(tail) <= MAX_SIGNATURE_WORDS else None


def _name_span(doc: Doc, words: list[int]) -> Span | None:
    if not all(_SIGNATURE_WORD.match(doc[i].text) for i in words):
        return None
    if any(doc[i].text != "." for i in range(words[0], words[-1] + 1) if i not in words):
        return None                                      # "Yours, John": a comma inside is a close, not a name
    span = doc[words[0]:words[-1] + 1]
    return span if normalize_name(span.text) else None


def is_salutation(doc: Doc, p: Paragraph) -> bool:
    words = _words(doc, p)
    if not 1 <= len(words) <= MAX_SALUTATION_WORDS or doc[words[0]].lower_ not in SALUTATION_WORDS:
        return False
    if doc[words[0]].lower_ == "to":                     # an address line: "To Mrs. Saville, England."
        return len(words) > 1 and doc[words[1]].text[:1].isupper()
    return ends_in_comma(doc, p)


def find_letters(docs: Sequence[Doc]) -> list[Letter]:
    """The chapter's signed letters, in order (`docs` are its passages)."""
    paras = [p for d, doc in enumerate(docs) for p in paragraphs(doc, d)]
    letters: list[Letter] = []
    last_end = -1
    for k in range(1, len(paras)):
        p, close = paras[k], paras[k - 1]
        if signature_span(docs[p.doc], p, close, docs[close.doc], next_paragraph(docs, paras, k)) is not None:
            body_end = k - 2                             # the paragraph before the close
        elif closing_signature_span(docs[p.doc], p) is not None:
            body_end = k - 1
        else:
            continue
        for j in range(body_end, max(last_end, body_end - MAX_LETTER_PARAGRAPHS), -1):
            q = paras[j]
            if _is_signature_at(docs, paras, j):
                break                                    # the end of an earlier letter: this one's start is unknown
            if is_salutation(docs[q.doc], q):
                letters.append(Letter(q, p, tuple(paras[j:k + 1])))
                last_end = k
                break
    return letters


def _is_signature_at(docs: Sequence[Doc], paras: list[Paragraph], k: int) -> bool:
    doc = docs[paras[k].doc]
    return closing_signature_span(doc, paras[k]) is not None or (k > 0 and signature_span(
        doc, paras[k], paras[k - 1], docs[paras[k - 1].doc], next_paragraph(docs, paras, k)) is not None)


def next_paragraph(docs: Sequence[Doc], paras: list[Paragraph], k: int) -> tuple[Doc, Paragraph] | None:
    """The paragraph after paragraph k, with its doc (a signature's check for a salutation after it)."""
    return (docs[paras[k + 1].doc], paras[k + 1]) if k + 1 < len(paras) else None

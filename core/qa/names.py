"""Names in a question or an answer, and which of them the cited passages never mention.

    question_names("How does John Thornton die?")          -> ["John Thornton"]
    missing_names(["John Thornton"], cited_texts)            -> ["John Thornton"] when no cited text names him
    answer_names("Jacob Marley came through the door.")      -> ["Jacob Marley"]
    missing_words(["Jacob Marley"], cited_texts)             -> ["Jacob"] when the texts only say "Marley"

A name is a run of capitalised words inside a sentence (a sentence's first word counts only when the book's graph
knows it as a name, or the same text writes it capitalised elsewhere), without honorifics, function words and the
words of a quoted title ("In 'An Unsentimental Journey through Cornwall', who ..."). The checks are model-free and
case-insensitive on the cited side, so "scrooge" in a lower-case passage still counts.

A question's name is missing when none of its words is in the cited texts ("Thornton" alone finds "John
Thornton"); an answer's name fails on any word the cited texts lack, because a wrong first name beside a right
surname ("Jacob Marley" for Marley's ghost) is exactly the confident slip a reader must be warned about.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from core.kg.names import HONORIFICS
from core.stopwords import ENGLISH

_QUOTED = re.compile(r"(?<!\w)['\u2018\"\u201c][^'\u2019\"\u201d]{2,80}['\u2019\"\u201d](?!\w)")
_TOKEN = re.compile(r"[^\W\d_][\w'\u2019-]*|[.!?;:,()]")
_SENTENCE_END = frozenset(".!?;:")
POSSESSIVE = re.compile(r"['\u2019]s?$")
# capitalised words that are not names: question words, the pronoun I, roman-numeral-like chapter words
_NOT_NAMES = ENGLISH | frozenset(HONORIFICS) | frozenset(
    "i who whom whose what which where when why how chapter book part volume yes no oh ah".split())


def name_words(text: str) -> set[str]:
    """The words of a text, lower-cased, a possessive's "'s" left off ("John Thornton's": john, thornton)."""
    return {POSSESSIVE.sub("", w.lower()) for w in re.findall(r"[^\W_][\w'\u2019-]*", text)}


def _runs(text: str, known: frozenset[str] = frozenset()) -> list[list[str]]:
    """Runs of capitalised name words; a sentence-initial word only when `known` (lower case) holds it or the
    text writes it capitalised mid-sentence too."""
    raw = _TOKEN.findall(_QUOTED.sub(" , ", text))
    # the period of "Mr." or of an initial ("W. H. Carpenter") ends no sentence
    tokens = [t for k, t in enumerate(raw)
              if not (t == "." and k and (raw[k - 1].lower() in HONORIFICS or len(raw[k - 1]) == 1))]
    mid_caps = {t.lower() for k, t in enumerate(tokens) if k and tokens[k - 1] not in _SENTENCE_END and t[0].isupper()}
    runs: list[list[str]] = []
    current: list[str] = []
    for k, tok in enumerate(tokens):
        initial = k == 0 or tokens[k - 1] in _SENTENCE_END
        word = POSSESSIVE.sub("", tok)
        lower = word.lower()
        is_name = (word[:1].isupper() and len(word) > 1 and lower not in _NOT_NAMES
                   and (not initial or lower in known or lower in mid_caps or _starts_run(tokens, k)))
        if is_name:
            current.append(word)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def _starts_run(tokens: list[str], k: int) -> bool:
    """A sentence's first word followed by a name word ("Jacob Marley came") begins that name."""
    nxt = tokens[k + 1] if k + 1 < len(tokens) else ""
    return nxt[:1].isupper() and len(nxt) > 1 and nxt.lower() not in _NOT_NAMES


def _known(entities: Any) -> frozenset[str]:
    """Lower-case single words of the graph's entity names (an EntityIndex), to recognise sentence-initial names."""
    if entities is None:
        return frozenset()
    return frozenset(w.lower() for e in entities.entities for n in (e.label, *e.names) for w in n.split())


def question_names(question: str, entities: Any = None) -> list[str]:
    """The names a question asks about, as written ("John Thornton"), in order, without repeats."""
    return list(dict.fromkeys(" ".join(r) for r in _runs(question, _known(entities))))


def answer_names(answer: str, entities: Any = None) -> list[str]:
    """The names an answer states, as written."""
    return list(dict.fromkeys(" ".join(r) for r in _runs(answer, _known(entities))))


def missing_names(names: Iterable[str], texts: Sequence[str]) -> list[str]:
    """The names none of whose words occurs in any of `texts` (case-insensitive)."""
    present = set().union(*(name_words(t) for t in texts)) if texts else set()
    return [n for n in names if not name_words(n) & present]


def missing_words(names: Iterable[str], texts: Sequence[str]) -> list[str]:
    """Each word of the names that occurs in none of `texts` (case-insensitive), in order, without repeats."""
    present = set().union(*(name_words(t) for t in texts)) if texts else set()
    out: list[str] = []
    for n in names:
        out += [w for w in n.split() if POSSESSIVE.sub("", w.lower()) not in present]
    return list(dict.fromkeys(out))

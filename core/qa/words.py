"""The content words of answers, questions and passages, as the answer check (core.qa.support, core.qa.relevance)
and the extractive reader compare them: lower-cased, Snowball-stemmed, function words and question framing out.

    content_words("He stole Buck's collar.")  -> (("stole", "stole"), ("buck", "Buck"), ("collar", "collar"))
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from core.retrieval.hybrid import stemmer
from core.stopwords import ENGLISH

# words that frame a question ("According to the narrative, ...") rather than say what it asks
FRAME_WORDS = frozenset("""narrative narrator story novel book text chapter account according describe described
description mention mentioned identify identified discussion detail context portray portrayed depict depicted said
say told tell called referred refer""".split())

# Function words, pronouns, auxiliaries and the fillers of short answers ("Yes.", "Not really."): words that say
# nothing about whether a passage backs a claim.
STOPWORDS = ENGLISH | frozenset("""whose ms also as because until while yes yeah yep nope maybe perhaps indeed certainly
correct incorrect true false answer unknown one""".split())
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
FRAME_STEMS = frozenset(stemmer().stemWords(sorted(FRAME_WORDS)))
# Phrases that frame a question without naming what it is about: "How did Jonathan end up on the asteroid?" asks
# how he came to be there, and its "end" once chose "Jonathan's hair stood on end" as the answer; "at the end (of
# the story)" says when in the book, as "in the beginning" does.
PHRASAL_FRAMES = re.compile(
    r"\b(?:(?:end|ends|ended|ending|wind|winds|wound|winding)\s+up"
    r"|(?:at|in|by|towards?)\s+the\s+(?:very\s+)?(?:end|beginning|start)"
    r"(?:\s+of\s+the\s+(?:story|book|novel|tale|chapter|narrative))?)\b", re.IGNORECASE)


def without_phrasal_frames(question: str) -> str:
    """The question with its framing phrases blanked (PHRASAL_FRAMES)."""
    return PHRASAL_FRAMES.sub(" ", question)


_POSSESSIVE = re.compile(r"['\u2019]s?$")


@lru_cache(maxsize=16384)  # cited passages recur from question to question
def content_words(text: str) -> tuple[tuple[str, str], ...]:
    """(stem, surface word) of each content word of `text`, in order; possessives dropped ("Buck's" -> "buck")."""
    surface = [_POSSESSIVE.sub("", w) for w in _WORD.findall(text)]
    kept = [w for w in surface if w and w.lower() not in STOPWORDS and (len(w) > 1 or w.isdigit())]
    stems = stemmer().stemWords([w.lower() for w in kept]) if kept else []
    return tuple(zip(stems, kept))


def added_words(text: str, sources: Sequence[str]) -> tuple[str, ...]:
    """The content words of `text` (surface forms, in order, once each) whose stems none of `sources` has: what a
    restatement of `sources` adds to them ("... hurt by the Christmas spirit" beside a sentence that says neither)."""
    known = {stem for source in sources for stem, _ in content_words(source)}
    return tuple(dict.fromkeys(word for stem, word in content_words(text) if stem not in known))


@lru_cache(maxsize=1)
def irregular_bases() -> dict[str, str]:
    """Irregular verb and noun forms to their base ("led" -> "lead", "stole" -> "steal", "men" -> "man"): the
    exception tables of the packaged spaCy pipeline's lemmatizer (loads it; the extractive reader has it already)."""
    from core.nlp import load_spacy
    try:
        table = getattr(load_spacy().get_pipe("lemmatizer"), "lookups").get_table("lemma_exc")
    except (KeyError, ValueError):
        return {}
    return {form: bases[0] for pos in ("verb", "noun") for form, bases in table.get(pos, {}).items()
            if bases and bases[0] != form}

"""Assistant talk in generated fiction: sentences that speak about the text instead of continuing it. Pure functions;
used where a continuation or a chapter draft becomes a result (write_service, the writer), beside the loop check.

    checked = check_meta(reply_text)
    text = checked.text            # the preamble ("Here's a revised version of the continuation:") taken off
    if checked.note:
        notes.append(checked.note) # said next to the result; `checked.mostly_meta`: no story to speak of

Asked to continue a story, an instruction-tuned model this small (SmolLM2 135M, Gemma 3 270M) often answers as an
assistant: "In this continuation, you continue the story with a different direction.", "This continuation is
perfectly accurate. The text continues:", "I added a sentence of consequence to the previous paragraph". Such text
shown under "Continue" looks like a continuation and is not. A sentence is assistant talk when it names the work of
writing (a continuation, a revised version, the original text, the previous paragraph) or speaks as an assistant
("I'm glad to continue", "Here's the rewritten passage"); the patterns keep off what novels say (a paragraph in
the Times, "I wrote to him", "Here is the letter"): bench/metatalk.py counts them on the shared novels and the
GraphRAG-Bench books as the floor, and on the embedded models' continuations.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_WRITING = r"(?:continuation|version|rewrite|rewritten text|passage|paragraph|excerpt|text|story|chapter|draft)"
PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.I) for p in (
    r"(?<!in )\bcontinuations?\b",  # not a heading's "Walton, in continuation"
    r"\b(?:revised|rewritten|edited|polished|updated|improved|modified|shortened|expanded) "
    r"(?:version|text|paragraph|passage|excerpt|continuation|draft)\b",
    r"\b(?:the|this|that|your) (?:original|given|provided|above|previous|preceding) "
    r"(?:text|passage|excerpt|paragraph|prompt)s?\b",
    rf"^(?:sure|certainly|of course|okay|ok)?[,!.]?\s*here(?:'s|\u2019s| is| are) (?:a |an |the |my |your |some )?"
    rf"(?:\w+ ){{0,3}}{_WRITING}\b",
    r"\bI(?:'ve|\u2019ve| have)? (?:rewrote|rewritten|revised|tweaked|rephrased|paraphrased)\b",
    r"\bI(?:'m|\u2019m| am) (?:glad|happy|delighted) to (?:help|continue|assist|write)\b",
    r"\b(?:hope|happy) (?:this|that|it) helps\b",
    r"\blet me know if you\b",
    r"\bas an ai\b|\blanguage model\b",
    r"\bthe (?:writer|author|narrator) (?:is|was) (?:attempting|trying|using|writing|describing)\b",
    r"\bthe text continues\b",
    r"^(?:then )?you (?:continue|introduce|rewrite|revise)\b",  # the model telling the user what "you" wrote
    r"^(?:please )?continue (?:this|the) (?:text|story|passage|excerpt)\b",  # the instruction said back
    r"\bI(?:'ve|\u2019ve| have)? added (?:a|an|the|some|this|that) (?:\w+ )?"
    r"(?:detail|sentence|phrase|paragraph|line|word|description)s?\b",
    r"^(?:the|this|that) (?:text|excerpt|paragraph|imagery|conclusion of the text)"
    # commentary is in the present tense, a novel's narration mostly in the past: "The text was in Latin" is left alone
    r"(?: \w+){0,2} (?:is|ends|begins|continues|describes|uses|suggests|conveys|explores|shows)\b",
    r"\bliterary device\b|\balliteration\b|\bis a metaphor for\b",
    r"\byour (?:last|first|next|previous|final|opening) (?:sentence|paragraph|line)s?\b",
    r"\b(?:in|for) (?:this|the|your) (?:story|text|passage|excerpt), (?:you|I)\b",
))
_SENTENCE = re.compile(r"(?:[^.!?\n]|\n(?![ \t]*\n))+(?:[.!?]+[\"'\u201d\u2019)]*|(?=\n[ \t]*\n)|$)")
PREAMBLE_NOTE = "Assistant talk before the story taken off (the model introduced its text: {said})."
META_NOTE = ("Not a continuation: the model wrote about the text ({said}) rather than continuing the story. A model "
             "this small often does; a stronger one can be set in Settings.")
TALK_NOTE = ("The model also wrote about the text among the story ({said}): read this as a rough draft; a stronger "
             "model can be set in Settings.")
MOSTLY = 0.3  # at least this share of the words left in assistant talk: the text is said not to be a continuation


@dataclass(frozen=True)
class MetaCheck:
    text: str                     # the text with a leading preamble of assistant talk taken off
    meta: tuple[str, ...]         # the assistant-talk sentences found (the preamble's included), in order
    mostly_meta: bool             # what is left is still largely talk about the text, not story
    note: str                     # what to say next to the result ("" when there is nothing to say)


def is_meta(sentence: str) -> bool:
    """Whether `sentence` talks about the text (see the module docstring)."""
    s = " ".join(sentence.split())
    return any(p.search(s) for p in PATTERNS)


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of `text`, blank ones left out."""
    return [(m.start(), m.end()) for m in _SENTENCE.finditer(text) if m.group().strip()]


def check_meta(text: str) -> MetaCheck:
    """Assistant talk in `text`: a preamble of it is taken off (the leading talk, and everything up to a sentence of
    talk that introduces what follows with a colon: "To continue, I would rewrite it. Here's a revised version:");
    talk left among the story is kept and said, as is a text that is mostly talk."""
    spans = sentences(text)
    flags = [is_meta(text[a:b]) for a, b in spans]
    meta = tuple(" ".join(text[a:b].split()) for (a, b), f in zip(spans, flags) if f)
    if not meta:
        return MetaCheck(text, (), False, "")
    lead = 0
    while lead < len(spans) and flags[lead]:
        lead += 1
    for i, ((a, b), flagged) in enumerate(zip(spans, flags)):
        if flagged and text[a:b].rstrip().endswith(":") and i + 1 < len(spans):
            lead = max(lead, i + 1)
    if lead == len(spans):   # nothing but talk
        return MetaCheck(text, meta, True, META_NOTE.format(said=_said(meta)))
    body = text[spans[lead][0]:].lstrip() if lead else text
    left = [" ".join(text[a:b].split()) for (a, b), f in zip(spans[lead:], flags[lead:]) if f]
    if sum(len(m.split()) for m in left) / (len(body.split()) or 1) >= MOSTLY:
        return MetaCheck(text, meta, True, META_NOTE.format(said=_said(meta)))
    notes = [PREAMBLE_NOTE.format(said=_said(meta[:len(meta) - len(left)]))] if lead else []
    if left:
        notes.append(TALK_NOTE.format(said=_said(tuple(left))))
    return MetaCheck(body, meta, False, " ".join(notes))


def _said(sentences: tuple[str, ...]) -> str:
    return "; ".join(f"\u201c{_clip(m)}\u201d" for m in sentences[:2])


def _clip(sentence: str, words: int = 12) -> str:
    parts = sentence.split()
    return " ".join(parts[:words]) + (" \u2026" if len(parts) > words else "")


def without_talk(text: str, *, keep_start: bool = False) -> tuple[str, list[str], bool]:
    """(`text` with a preamble of assistant talk taken off (kept with `keep_start`, where KID's steps are tied to the
    text's start), what to say about it, whether it is mostly talk): a small model asked to continue often writes
    about the text instead, and that is never shown as if it were the story."""
    talk = check_meta(text)
    if not talk.note:
        return text, [], False
    return (text if keep_start else talk.text), [talk.note], talk.mostly_meta

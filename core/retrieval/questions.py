"""What kind of question this is, from its wording: about one fact or scene (local), about the whole book (global),
or a writing task set in the book (creative); and the words of it that are about the book.

    question_scope("Summarize how Elizabeth's view of Darcy changes over the novel")   -> "global"
    question_scope("Imagine you are Jane. Write a diary entry about the ball.")         -> "creative"
    question_scope("Who is Mr. Bingley?")                                              -> "local"
    content_query("Imagine you are Jane. Write a diary entry about the ball.")          -> "Jane. the ball."

A local question is answered by a passage or two. A global one ("how does X change", "what role does X play", "which
figures ... and how are they connected", "throughout the novel") needs a dozen places of the book at once, and a
creative one needs the people, places and events it names gathered from wherever the book has them: both are
answered from a global view (core.retrieval.global_view). The cues are the ones GraphRAG-Bench's Contextual
Summarize and Creative Generation questions and readers' "summarize"/"describe" questions share; a question that
lists three or more names joined by commas asks about all of them, so it is global too.
"""
from __future__ import annotations

import re

SCOPES: tuple[str, ...] = ("local", "global", "creative")

_CREATIVE = re.compile(
    r"^\s*(imagine|pretend|suppose you are|write|rewrite|re-write|retell|re-tell|compose|draft|create|narrate|"
    r"recount .* as|tell .* as|describe .* as (a|an) (diary|letter|poem|news|article|report|monologue))\b|"
    r"\b(diary entry|journal entry|news (article|report)|newspaper (article|report)|poem|sonnet|monologue|"
    r"short story|(a|an) letter (to|from)|from the (perspective|point of view) of)\b", re.I)
_GLOBAL = re.compile(
    r"\b(summari[sz]e|summary|overview|describe|characteri[sz]e|portray(s|ed)?|depict(s|ed)?|"
    r"(change|develop|evolve|grow|progress|shift|transform)(s|ed|es)? (over|throughout|across|during|in the course)|"
    r"how (does|did|do) .{1,80}(change|develop|evolve|grow|progress|transform)|"
    r"throughout (the )?(story|novel|narrative|book|text|account)|over the course of|"
    r"what (role|roles|significance|themes?|impact|influence|part)|in what ways?|significance|"
    r"(relationship|relationships|connection|connections|interplay|interactions?) (between|among|of)|"
    r"what (events|details|evidence|aspects)|how (is|are|was|were) .{1,80}(described|depicted|portrayed|"
    r"characteri[sz]ed|presented|connected|linked|related|associated))\b", re.I)
_LIST = re.compile(r"(?:\b[A-Z][^,;?]{0,40},\s+(?:and |or )?(?:the )?){2,}[A-Z]")  # three names or more, by commas
_CONTENT = re.compile(r"[^\W\d_]{3,}")   # a word of three letters or more
# the words of a writing task that say what to write, not what the book holds
_TASK = re.compile(
    r"\b(imagine|pretend|suppose|you are|you were|your|yourself|write|rewrite|re-write|retell|re-tell|compose|draft|"
    r"create|narrate|recount|diary|journal|entry|newspaper|news|article|report|letter|poem|sonnet|monologue|"
    r"speech|perspective|point of view|reflective|highlighting|focusing on|describing|as a|as an)\b", re.I)


def question_scope(question: str) -> str:
    """"creative", "global" or "local" (SCOPES) from the wording alone."""
    text = " ".join(question.split())
    if _CREATIVE.search(text):
        return "creative"
    if _GLOBAL.search(text) or _LIST.search(text):
        return "global"
    return "local"


def content_query(question: str) -> str:
    """The question without a writing task's instructions (for search: "diary" and "article" are not in the book);
    the question itself when that would leave nothing."""
    kept = " ".join(_TASK.sub(" ", question).split())
    return kept if _CONTENT.search(kept) else " ".join(question.split())

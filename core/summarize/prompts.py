"""The summary prompts. The knowledge graph comes first, then the chapter (the paper prepends the linearized edges
to the chapter text), then the instruction, which small models follow best when it comes last."""
from __future__ import annotations

from core.summarize.linearize import CHAPTER_TOKEN

KG_HEADER_LINES = ("What is known about the characters so far (from this chapter and earlier ones), one fact per "
                   "line as `subject; predicate; object` (a fact without an object describes its subject):")
KG_HEADER_TOKENS = "What is known about the characters so far (<subject>, <predicate>, <object>):"
CHAPTER_BLOCK = "[Begin chapter {number}{title}]\n{text}\n[End chapter {number}]"
PART_BLOCK = "[Begin part {part} of {parts} of chapter {number}{title}]\n{text}\n[End part {part}]"
PARTS_BLOCK = "Summaries of the consecutive parts of chapter {number}{title}:\n{text}"
SUMMARY_INSTRUCTION = ("Write a summary of chapter {number} in one paragraph: the main events, in order, and the "
                       "characters involved. Use the facts above only to get who is who and how they are related "
                       "right. Write the summary only.")
PART_INSTRUCTION = "Summarize this part of chapter {number} in a few sentences: what happens and who is involved."
SEPARATOR = "\n\n"


def _title(title: str) -> str:
    title = " ".join((title or "").split())
    return f": {title}" if title else ""


def kg_block(kg_text: str, fmt: str) -> str:
    if not kg_text.strip():
        return ""
    if fmt == "tokens":
        return f"{KG_HEADER_TOKENS}\n{kg_text} {CHAPTER_TOKEN}"
    return f"{KG_HEADER_LINES}\n{kg_text}"


def chapter_prompt(number: int, title: str, text: str, kg_text: str = "", fmt: str = "lines",
                   summarized_parts: bool = False) -> str:
    """The final prompt: knowledge graph (if any), the chapter (or its part summaries), the instruction."""
    block = (PARTS_BLOCK if summarized_parts else CHAPTER_BLOCK).format(number=number, title=_title(title),
                                                                         text=text.strip())
    parts = [kg_block(kg_text, fmt), block, SUMMARY_INSTRUCTION.format(number=number)]
    return SEPARATOR.join(p for p in parts if p)


def part_prompt(number: int, title: str, part: int, parts: int, text: str) -> str:
    """One part of a chapter too long for the context (hierarchical summarization, first level)."""
    block = PART_BLOCK.format(part=part, parts=parts, number=number, title=_title(title), text=text.strip())
    return SEPARATOR.join([block, PART_INSTRUCTION.format(number=number)])

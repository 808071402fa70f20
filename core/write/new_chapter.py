"""A continuation continues the chapter it is written after: a chapter heading or "THE END" in it is the model
starting a chapter (or ending a book) the writer did not ask for, and saved as it is it would put "CHAPTER 21"
inside chapter 20's text. Seen with SmolLM2 after the last part of The Legend of Sleepy Hollow, which has no
numbered chapters at all: "CHAPTER 21" and a new chapter.

    text, notes = without_new_chapter("CHAPTER 21\\n\\nThe next morning ...")
    # -> ("The next morning ...", ["The model began its text with a chapter heading (“CHAPTER 21”) ..."])
    text, notes = without_new_chapter("He rode on.\\n\\nCHAPTER XXI\\n\\nThe school ...")
    # -> ("He rode on.", ["The model started a new chapter (“CHAPTER XXI”) after 3 words; ..."])

A title line right after a heading at the start goes with it ("CHAPTER XXVI." then "THE STORY OF ...").
A heading is a line standing alone that core.ingest.headings reads as a numbered heading ("Chapter 21", "CHAPTER
XXI. The Return", "XXI" alone, "Part Two"; not "2. That was all.", which may be a list's item) or as an end ("THE
END", "Finis"), Markdown's "#" and "**" around it allowed.
"""
from __future__ import annotations

import re

from core.ingest.headings import classify_line, looks_like_title
from core.wording import counted

_MARKUP = re.compile(r"^\s*#{1,6}\s*|[*_]{1,3}")


def heading_line(line: str) -> str | None:
    """The heading as written (markup off) when `line` is a numbered chapter heading or an end line, else None."""
    bare = _MARKUP.sub("", line).strip()
    if not bare or len(bare.split()) > 12:
        return None
    heading = classify_line(bare)
    if heading is None or heading.kind not in ("numbered", "end") or heading.family == "bare-titled":
        return None   # "2. That was all." may be a list's item; "21" alone, "Chapter 21" or "THE END" is not
    return bare


def without_new_chapter(text: str, keep_start: bool = False) -> tuple[str, list[str]]:
    """`text` without a chapter the model started: heading lines at its start taken off (kept when `keep_start`:
    KID's steps follow the text from its first token), and the text cut before a later heading line. The notes
    say what was done, for the page."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip() and not heading_line(line)), len(lines))
    leading = ", ".join(f"“{h}”" for line in lines[:first] if line.strip() and (h := heading_line(line)))
    rest = next((i for i in range(first + 1, len(lines)) if lines[i].strip()), None)
    if leading and rest is not None and looks_like_title(lines[first]):   # "CHAPTER XXVI." then "THE RETURN"
        leading += f", “{' '.join(lines[first].split())}”"
        first = rest
    notes: list[str] = []
    if not leading:
        body = 0
    elif first == len(lines):
        return text.strip(), [f"The model wrote only a chapter heading ({leading}), which is not the book's."]
    elif keep_start:
        body = 0
        notes.append(f"The model began its text with a chapter heading ({leading}), which is not the book's: take "
                     "it out before you save, as the text continues the chapter it follows.")
    else:
        body = first
        notes.append(f"The model began its text with a chapter heading ({leading}), which is not the book's; it "
                     "was taken out, as the text continues the chapter it follows.")
    for i in range(first, len(lines)):
        if found := heading_line(lines[i]):
            kept = "\n".join(lines[body:i]).strip()
            words = counted(len(kept.split()), "word")
            if getattr(classify_line(found), "kind", "") == "end":
                notes.append(f"The model ended the book (“{found}”) after {words}; the text ends there.")
            else:
                notes.append(f"The model started a new chapter (“{found}”) after {words}; the text ends before it, "
                             "as a continuation continues the chapter it follows.")
            return kept, notes
    return "\n".join(lines[body:]).strip(), notes

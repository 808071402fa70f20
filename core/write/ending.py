"""A continuation that ran into its token limit stops mid-sentence ("... was very important for the Tory"): it ends
at its last full sentence instead, as long as most of it is kept, and says so. A stop the writer pressed keeps what
came, as it came.

    text, note = whole_sentences("He rode on. The bridge was", cut=True)   # -> ("He rode on.", "The token limit ...")
"""
from __future__ import annotations

import re

from core.wording import counted

# A sentence's end: . ! ? or … with any closing quotes or brackets after it, then white space or the text's end.
SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*(?=\s|$)")
MIN_KEPT = 0.5   # a cut keeps at least this share of the words, else the text stays as it came


def whole_sentences(text: str, cut: bool) -> tuple[str, str]:
    """(`text` up to its last sentence end, a note) when `cut` (the generation hit its token limit) and the text
    ends mid-sentence; else (`text`, "")."""
    stripped = text.rstrip()
    ends = [m.end() for m in SENTENCE_END.finditer(stripped)]
    if not cut or not ends or ends[-1] == len(stripped):
        return text, ""
    if len(stripped[:ends[-1]].split()) < MIN_KEPT * len(stripped.split()):
        return text, ""
    dropped = counted(len(stripped[ends[-1]:].split()), "word")
    return stripped[:ends[-1]], (f"The token limit cut the last sentence short; the text ends at the sentence before "
                                 f"it ({dropped} left out). Ask for more new tokens for a longer text.")

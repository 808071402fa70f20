"""A fast, regex-based sentence splitter for English fiction.

A sentence ends at ".", "!", "?" or an ellipsis (with any closing quotes or brackets) followed by white space and a
capital letter, digit or opening quote. It does not end after a title or common abbreviation ("Mr.", "Mrs.",
"Dr.", "St.", "Miss."), after an initial ("H. G. Wells", "U.S."), after "No." before a number, or at an
ellipsis inside an open quotation ("“Well... I suppose,” she said"), where the speaker is pausing, not stopping.
Cuts are only ever made at white space, so the sentences contain exactly the words of the input, in order.
"""
from __future__ import annotations

import re

_ABBREVIATIONS = {
    "Mr", "Mrs", "Ms", "Messrs", "Mme", "Mlle", "Mmes", "Dr", "Drs", "St", "Ste", "Prof", "Rev", "Revd", "Hon",
    "Capt", "Col", "Gen", "Lt", "Sgt", "Maj", "Cpl", "Adm", "Gov", "Pres", "Sen", "Rep", "Supt", "Insp", "Jr", "Sr",
    "Esq", "Mt", "Ft", "Fig", "Ch", "Chap", "Sec", "Ed", "Eds", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep",
    "Sept", "Oct", "Nov", "Dec", "Inc", "Ltd", "Co", "Corp", "Bros", "Dept", "Ave", "Rd", "Blvd", "Miss", "Mister",
    "vs", "viz", "cf", "al", "approx", "ca",
}
_BEFORE_NUMBER = {"No", "Nos", "no", "nos", "p", "pp", "Vol", "vol", "Art", "art", "Op", "op", "Nr", "nr"}
# A word ending in a run of end marks ("?!", "...", "…") and closing quotes, then white space, any opening quotes or
# brackets and the first character of what follows (inside the lookahead, so the next match can start there). The
# word is captured for the abbreviation checks; matches start at word starts only, and the lookbehind lets a run of
# marks start only where the run starts, so nothing is tried twice: "(?:\.{2,}|…|[.!?])+", the first form of the
# marks, took exponential time on a run of dots not followed by white space ("a .........x": 24 dots, 2 s; 40,
# forever), and looking the word up by slicing the paragraph before it was quadratic in a million-sentence paragraph.
_END = re.compile(r"(?<!\S)(?P<word>\S*?)(?P<marks>(?<![.!?…])[.!?…]+[\"'”’)\]_*]*)"
                  r"(?=\s+(?P<open>[\"'“‘(\[_*]*)(?P<first>\S))")
_QUOTE = re.compile(r"[“”\"‘’]")
_INITIALISM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")


def split_sentences(text: str) -> list[str]:
    """Sentences of `text` on one line each (runs of white space become one space); a blank line always ends
    a sentence."""
    sentences: list[str] = []
    for para in _PARAGRAPH_BREAK.split(text):
        if para.strip():
            sentences.extend(_split_paragraph(para.strip()))
    return sentences


def next_sentence_start(text: str, pos: int, stop: int) -> int | None:
    """Where the first sentence that starts in text[pos:stop] after a sentence end starts, or None. The quotations
    open at `pos` are not known, so an ellipsis there ends a sentence as it does outside quotations."""
    for m in _END.finditer(text, pos, stop):
        first = m.group("first")
        if (first.isupper() or first.isdigit()) and _is_boundary(m, 0):
            return m.start("open")
    return None


def _split_paragraph(para: str) -> list[str]:
    para = " ".join(para.split())  # once here, so that each sentence is a plain slice
    out: list[str] = []
    start = 0
    depth = 0  # how many quotations are open at the scan position
    scanned = 0
    quotes = _QUOTE.search(para) is not None
    for m in _END.finditer(para):
        first = m.group("first")
        if not (first.isupper() or first.isdigit()):
            continue  # no sentence starts in lower case; the quotations before are counted at the next candidate
        if quotes:
            marks = m.start("marks")
            depth = _quote_depth(para, scanned, marks, depth)
            scanned = marks
        if _is_boundary(m, depth):
            out.append(para[start:m.end()])
            start = m.end() + 1
    if start < len(para):
        out.append(para[start:])
    return out


def _quote_depth(para: str, begin: int, end: int, depth: int) -> int:
    """Track open quotations; a ‘ or ’ inside a word is an apostrophe and does not count."""
    for q in _QUOTE.finditer(para, begin, end):
        ch, i = q.group(), q.start()
        before = para[i - 1] if i else " "
        after = para[i + 1] if i + 1 < len(para) else " "
        if ch == "“" or (ch == "‘" and not before.isalnum()):
            depth += 1
        elif ch == "”" or (ch == "’" and not after.isalnum() and not before.isspace()):
            depth = max(0, depth - 1)
        elif ch == '"':
            depth = 0 if depth else 1
    return depth


def _is_boundary(end: re.Match[str], depth: int) -> bool:
    """Whether the end marks matched by `end` (followed by a capital or a digit) end a sentence."""
    marks = end.group("marks")
    punct = marks.rstrip("\"'”’)]_*")
    if punct.endswith(("..", "…")):
        return punct != marks or depth == 0  # an ellipsis that closes a quotation, or outside one
    if not punct.endswith("."):
        return True
    token = end.group("word").lstrip("\"'“‘([_*")
    if token in _ABBREVIATIONS or (token.isupper() and token.capitalize() in _ABBREVIATIONS):
        return False
    if len(token) == 1 and token.isupper() and token != "I":
        return False  # an initial, as in "H. G. Wells"
    if "." in token and _INITIALISM.fullmatch(token):
        return False
    return not (end.group("first").isdigit() and token in _BEFORE_NUMBER)

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
_END = re.compile(r"(?:\.{2,}|…|[.!?])+[\"'”’)\]_*]*(?=\s)")
_NEXT = re.compile(r"\s+([\"'“‘(\[_*]*)(\S)")
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


def _split_paragraph(para: str) -> list[str]:
    out: list[str] = []
    start = 0
    depth = 0  # how many quotations are open at the scan position
    scanned = 0
    for m in _END.finditer(para):
        nxt = _NEXT.match(para, m.end())
        if nxt is None:
            continue
        depth = _quote_depth(para, scanned, m.start(), depth)
        scanned = m.start()
        if _is_boundary(para, m, nxt, depth):
            out.append(" ".join(para[start:m.end()].split()))
            start = nxt.start(1)
    tail = " ".join(para[start:].split())
    if tail:
        out.append(tail)
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


def _is_boundary(para: str, end: re.Match[str], nxt: re.Match[str], depth: int) -> bool:
    first = nxt.group(2)
    if not (first.isupper() or first.isdigit()):
        return False
    punct = end.group().rstrip("\"'”’)]_*")
    closes_quote = punct != end.group()
    if punct.endswith(("..", "…")):
        return closes_quote or depth == 0
    if not punct.endswith("."):
        return True
    token = para[:end.start()].rsplit(None, 1)[-1].lstrip("\"'“‘([_*")
    if token in _ABBREVIATIONS or (token.isupper() and token.capitalize() in _ABBREVIATIONS):
        return False
    if len(token) == 1 and token.isupper() and token != "I":
        return False  # an initial, as in "H. G. Wells"
    if _INITIALISM.fullmatch(token):
        return False
    return not (first.isdigit() and token in _BEFORE_NUMBER)

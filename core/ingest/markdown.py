"""Markdown books: `#`/`##` headings are chapter headings, and the markup is reduced to plain text.

Which heading level holds the chapters is read from the document rather than assumed: the shallowest level that
occurs at least twice. A single heading above it at the very top is the book's title ("# Moby-Dick" followed by
"## Chapter 1" ... "## Chapter 135"). A file with no repeated heading level is treated as plain text, so "Chapter 1"
lines without any `#` are still found.
"""
from __future__ import annotations

import html
import re
from bisect import bisect_left

from core.ingest.chapters import chapters_from_sections, split_chapters
from core.ingest.paragraphs import is_prose
from core.ingest.headings import classify_line, title_from_lines
from core.ingest.models import ParsedBook
from core.ingest.text import decode_text

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_YAML_FIELD = re.compile(r"^(title|author)\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_FENCE = re.compile(r" {0,3}(```|~~~)")
_REFERENCE = re.compile(r" {0,3}\[[^\]]+\]:\s*\S.*")
_QUOTE_OR_BULLET = re.compile(r"^\s*(?:>\s?)+|^\s*[-*+]\s+")
_INNER_SPACES = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")  # left behind by removed images and tags
# Inline markup is removed in time linear in the line's length, whatever the line holds. Bracketed constructs
# cannot contain their own opening character, so an unclosed "[" or "<" is scanned only up to the next one; emphasis
# is paired by `_pair` instead of a lazy `(.+?)` regex, which rescans the rest of the line for every unclosed
# opener (a 90 KB line of " _a" took a minute that way, a megabyte hours).
_URL = r"\((?:[^()\n]|\([^()\n]*\))*\)"  # one level of nested parentheses: Wikipedia links
_INLINE = [
    (re.compile(r"!\[[^\][\n]*\]" + _URL), ""),  # images
    (re.compile(r"\[([^\][\n]+)\]" + _URL), r"\1"),  # links
    (re.compile(r"\[([^\][\n]+)\]\[[^\][\n]*\]"), r"\1"),  # reference links
    (re.compile(r"<[^<>\n]+>"), ""),  # inline HTML tags
    (re.compile(r"`([^`\n]+)`"), r"\1"),
]
# Bold, emphasis and strikethrough, in this order: an opener whose first group is the delimiter, and for each
# delimiter the closer (looked for with a lookahead, so that overlapping candidates such as "***" are all found).
_EMPHASIS = [(re.compile(opener), {d: re.compile(f"(?=({closer}))") for d, closer in closers.items()})
             for opener, closers in (
                 (r"(\*\*|__)(?=\S)", {"**": r"(?<=\S)\*\*", "__": r"(?<=\S)__"}),
                 (r"(?<![\w*])(\*)(?=[^\s*])", {"*": r"(?<=[^\s*])\*(?![\w*])"}),
                 (r"(?<![\w_])(_)(?=[^\s_])", {"_": r"(?<=[^\s_])_(?![\w_])"}),
                 (r"(~~)(?=\S)", {"~~": r"(?<=\S)~~"}),
             )]
# Raw HTML elements whose content is code, not prose: dropped with what is in them (other tags lose only the tag).
_RAW_OPEN = re.compile(r"<(script|style)\b[^<>]*>", re.IGNORECASE)
_RAW_CLOSE = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in ("script", "style")}
_MARKUP = re.compile(r"[\[<`*_~\\&]")  # a character without which no inline pattern, escape or entity can match
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!>~|])")


def read_markdown(data: bytes) -> ParsedBook:
    """Chapters, title and author (from YAML front matter or a lone top heading) of a Markdown file."""
    text, encoding = decode_text(data)
    warnings = [] if encoding in ("utf-8", "ascii") else [f"The file is not UTF-8; it was read as {encoding}."]
    meta, text = _front_matter(text)
    blocks = _blocks(_strip_raw_elements(_strip_comments(text)))
    return book_from_blocks(blocks, meta.get("title"), meta.get("author"), warnings)


def book_from_blocks(blocks: list[tuple[int, str]], title: str | None, author: str | None,
                     warnings: list[str]) -> ParsedBook:
    """Chapters from (heading level, text) blocks, level 0 for paragraphs: cut at the chapter heading level, or
    found in the text by `split_chapters` when no heading level repeats. Also used for Word documents' styles."""
    level, title_index = _chapter_level(blocks)
    title = title or (blocks[title_index][1] if title_index is not None else None)
    if level is None:
        plain = "\n\n".join(body for k, (_, body) in enumerate(blocks) if k != title_index)
        chapters, notes = split_chapters(plain)
        return ParsedBook(title, author, chapters, warnings + notes)
    front: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    skipping = False  # inside a "Contents" section
    for k, (lvl, body) in enumerate(blocks):
        if k == title_index:
            continue
        if lvl and lvl <= level:
            heading = classify_line(body)
            skipping = heading is not None and heading.kind == "toc"
            if lvl == level and not skipping:
                sections.append((title_from_lines([body]), []))
            continue
        if not skipping:
            (sections[-1][1] if sections else front).append(body)
    chapters, notes = chapters_from_sections(front, sections)
    return ParsedBook(title, author, chapters, warnings + notes)


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """YAML front matter's title and author (read with a regex; nothing else in it matters here)."""
    m = _FRONT_MATTER.match(text)
    if not m:
        return {}, text
    fields = {key.lower(): value.strip("\"'") for key, value in _YAML_FIELD.findall(m.group(1))}
    return fields, text[m.end():]


def _blocks(text: str) -> list[tuple[int, str]]:
    """(heading level, text) per block; level 0 for paragraphs, whose lines are kept for tidy_paragraph."""
    blocks: list[tuple[int, str]] = []
    para: list[str] = []
    fence: str | None = None

    def end_paragraph() -> None:
        cleaned = [_inline(line) for line in para]
        joined = "\n".join(line for line in cleaned if line.strip())
        if joined.strip():
            blocks.append((0, joined))
        para.clear()

    for line in text.split("\n"):
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
                end_paragraph()
            else:
                para.append(line)
            continue
        if m := _FENCE.match(line):
            end_paragraph()
            fence = m.group(1)
        elif not line.strip() or _REFERENCE.fullmatch(line):
            end_paragraph()
        elif (m := _SETEXT.fullmatch(line)) and len(para) == 1 and not _RULE.fullmatch(para[0]):
            blocks.append((1 if m.group(1)[0] == "=" else 2, _inline(para[0]).strip()))
            para.clear()
        elif m := _ATX.fullmatch(line):
            end_paragraph()
            if (heading := _inline(m.group(2) or "").strip()):
                blocks.append((len(m.group(1)), heading))
        elif _RULE.fullmatch(line):
            end_paragraph()  # a scene break
        else:
            para.append(_QUOTE_OR_BULLET.sub("", line))
    end_paragraph()
    return blocks


def _strip_comments(text: str) -> str:
    """Text without <!-- ... --> comments; an unclosed one is kept as text (and ends the search)."""
    out: list[str] = []
    pos = 0
    while (start := text.find("<!--", pos)) != -1:
        end = text.find("-->", start + 4)
        if end == -1:
            break
        out.append(text[pos:start])
        pos = end + 3
    out.append(text[pos:])
    return "".join(out)


def _strip_raw_elements(text: str) -> str:
    """Text without <script>...</script> and <style>...</style> elements; an unclosed one loses only its tag later."""
    out: list[str] = []
    pos = at = 0
    unclosed: set[str] = set()
    while len(unclosed) < len(_RAW_CLOSE) and (m := _RAW_OPEN.search(text, at)) is not None:
        name = m.group(1).lower()
        close = None if name in unclosed else _RAW_CLOSE[name].search(text, m.end())
        if close is None:  # no closing tag after this one, so none after any later one either
            unclosed.add(name)
            at = m.end()
            continue
        out.append(text[pos:m.start()])
        pos = at = close.end()
    out.append(text[pos:])
    return "".join(out)


def _inline(text: str) -> str:
    """One line of Markdown as plain text: images, links, tags and code marks removed, emphasis unwrapped."""
    if not _MARKUP.search(text):  # most lines of a book: nothing to remove (eleven passes saved per line)
        return _INNER_SPACES.sub(" ", text) if "  " in text or "\t" in text else text
    for pattern, replacement in _INLINE:
        text = pattern.sub(replacement, text)
    for opener, closer in _EMPHASIS:
        text = _pair(text, opener, closer)
    text = _ESCAPE.sub(r"\1", text)
    return _INNER_SPACES.sub(" ", html.unescape(text))


def _pair(line: str, opener: re.Pattern[str], closers: dict[str, re.Pattern[str]]) -> str:
    """`line` with each opener ... closer pair replaced by what is between them, as re.sub would do with
    `(D)(?=...)(.+?)closer-of-D`, in linear time. The closers are found once; an opener takes the first closer of
    its delimiter at least one character after it. When it has none, no later opener of that delimiter can have one
    either, so that delimiter is done with instead of the rest of the line being scanned again for each."""
    found = {d: [(m.start(), m.start() + len(m.group(1))) for m in c.finditer(line)] for d, c in closers.items()}
    starts = {d: [start for start, _ in spans] for d, spans in found.items()}
    done: set[str] = set()
    out: list[str] = []
    pos = at = 0
    while len(done) < len(found) and (m := opener.search(line, at)) is not None:
        delimiter = m.group(1)
        k = len(starts[delimiter]) if delimiter in done else bisect_left(starts[delimiter], m.end() + 1)
        if k == len(starts[delimiter]):
            done.add(delimiter)
            at = m.start() + 1
            continue
        start, end = found[delimiter][k]
        out += [line[pos:m.start()], line[m.end():start]]
        pos = at = end
    out.append(line[pos:])
    return "".join(out)


def _chapter_level(blocks: list[tuple[int, str]]) -> tuple[int | None, int | None]:
    """(heading level of the chapters, index of the block that is the book's title), either None when absent."""
    counts: dict[int, int] = {}
    for lvl, _ in blocks:
        if lvl:
            counts[lvl] = counts.get(lvl, 0) + 1
    first_heading = next((k for k, (lvl, _) in enumerate(blocks) if lvl), None)
    before_is_prose = first_heading is not None and any(is_prose(body) for _, body in blocks[:first_heading])
    title_index = None
    if first_heading is not None and counts[blocks[first_heading][0]] == 1 and not before_is_prose:
        heading = classify_line(blocks[first_heading][1])
        if heading is None or heading.kind not in ("numbered", "special"):
            title_index = first_heading
    for lvl in sorted(counts):
        if counts[lvl] >= 2 and lvl <= 3:
            return lvl, title_index
    if title_index is None and first_heading is not None:
        return blocks[first_heading][0], None  # a single chapter heading
    return None, title_index

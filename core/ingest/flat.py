"""Text whose line breaks were lost: chapter headings found inside running text, and sections of bounded size.

Some sources flatten a whole book onto one line (GraphRAG-Bench's novels are like that), so there are no heading
paragraphs to find. `find_inline_chapters` looks for headings inside the text instead, and only trusts what is
unambiguous:

1. A heading is a chapter keyword in capitals or Title Case ("CHAPTER", "Chapter", "Chap.", "Letter", ...) or,
   failing those, any word in capitals ("DAY", "SCENE"), followed by a number (12, XII, Twelve, the First) that is not
   preceded by a letter ("as shown in Chapter 4") and is followed by something a heading is followed by: a
   separator and a title in capitals or Title Case, a title in capitals, or the capital letter that opens the
   chapter's first sentence. A comma, a lower-case word or a bracket after the number makes it a mention.
2. Headings of one family (same keyword, same case, same kind of numeral) count up: the longest chain whose numbers
   rise by one (one missing number is forgiven) wins, the longer span breaking ties (a contents list and the chapters
   it lists are two chains of the same length). A chain needs at least two headings and chapter-sized text between
   them (a median of MIN_CHAPTER_WORDS words; more, and a start at one, for keywords that are not chapter words, so
   that page or figure numbers are not taken for chapters).
3. An earlier chain of the same headings with little text after each is the book's contents list and is dropped;
   one with chapter-sized text is an earlier volume and is kept, as is a later one.

`cut_sections` cuts text into sections of about a given size, at paragraph ends where the paragraphs allow it, then at
line ends, sentence ends and, for a "sentence" longer than a section, between words.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from core.ingest.headings import NUMBER_WORDS, CHAPTER_KEYWORDS, Heading, take_number, looks_like_title
from core.ingest.sentences import next_sentence_start

GIANT_PARAGRAPH_WORDS = 2000  # longer than any real paragraph (the longest in the test novels is under 700 words)
SECTION_WORDS = 4000  # the size sections of flattened text aim at
MAX_SECTION_WORDS = 5000  # no section of flattened text is longer (bar a single unbreakable "word")
UNIT_WORDS = 1000  # pieces cut at a paragraph, line or sentence end are at most this long, so sections overshoot little
MIN_CHAPTER_WORDS = 100  # median text between two chapter-keyword headings
MIN_GENERIC_WORDS = 1000  # ... between two headings of another capitals word ("DAY THE FIRST", "SCENE SECOND")
MAX_CHAINS = 8  # contents lists and volumes looked for around the main chain (bounds the work on hostile input)
MAX_MATCHES = 5_000  # heading-like places in one text beyond which it has no unambiguous headings
CUT_WINDOW = 6000  # characters (about a thousand words) looked through for a line or sentence end at a cut
_COUNT_BLOCK = 1 << 20  # characters counted at a time
_WINDOW = 400  # characters after a heading's number that can hold its title
_MAX_TITLE_WORDS = 16

_NUMBER_ALTERNATIVES = "|".join(sorted((w.upper() for w in NUMBER_WORDS), key=len, reverse=True))
_KEYWORDS = sorted({form for kw in CHAPTER_KEYWORDS for form in (kw.upper(), kw.capitalize())}, key=len, reverse=True)
# Both patterns start with what they match (no lookbehind first), so the regex engine skips ahead by the first
# character; that the keyword is not the end of a longer word is checked on each match.
_CHAPTER_AT = re.compile(r"(?P<kw>" + "|".join(_KEYWORDS) + r")\.?[ \t\n]+(?=\w)")
_GENERIC_AT = re.compile(r"(?P<kw>[A-Z]{3,})[ \t]+(?=(?:THE[ \t]+)?(?:" + _NUMBER_ALTERNATIVES
                         + r"|[IVXLC]+|\d{1,3})(?![\w'’]))")
_SEPARATOR = re.compile(r"[ \t]*(?P<sep>[.:—–-]*)[ \t\n]*(?:[—–-]+[ \t\n]*)?")
_TOKEN = re.compile(r"\S+")
_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(?:--|[—–]|$)")
_ABBREVIATIONS = {"MR", "MRS", "MS", "DR", "ST", "MT", "NO", "CAPT", "COL", "GEN", "LT", "REV", "PROF", "SR", "JR"}
_NOT_KEYWORDS = {"THE", "AND"}
_LEADING = " \t\n.:—–-"  # separator characters left between a heading and its chapter's first word


@dataclass
class InlineHeading:
    start: int  # where the keyword starts
    end: int  # where the chapter's text starts
    family: tuple[str, ...]
    heading: Heading


@dataclass
class InlineChapters:
    headings: list[InlineHeading]
    contents: tuple[int, int] | None  # the span of a contents list before the first chapter, to drop


def has_giant_paragraph(paras: list[str]) -> bool:
    """Whether a paragraph is longer than any real one: the text's line breaks were lost."""
    return any(len(p) > GIANT_PARAGRAPH_WORDS * 2 and more_words_than(p, GIANT_PARAGRAPH_WORDS) for p in paras)


def more_words_than(text: str, limit: int) -> bool:
    """len(text.split()) > limit, without splitting more than `limit` words off."""
    return len(text.split(None, limit)) > limit


def count_words(text: str) -> int:
    """len(text.split()), a block at a time: the words of a 25 MB paragraph at once take ten times its size."""
    if len(text) <= _COUNT_BLOCK:
        return len(text.split())
    total = 0
    in_word = False  # whether the block before ended inside a word
    for start in range(0, len(text), _COUNT_BLOCK):
        block = text[start:start + _COUNT_BLOCK]
        total += len(block.split()) - (in_word and not block[0].isspace())
        in_word = not block[-1].isspace()
    return total


def find_inline_chapters(text: str) -> InlineChapters | None:
    """The chapter headings inside running text, or None when there is no unambiguous chain of them."""
    result = _best_family(text, _families(text, _CHAPTER_AT, generic=False), MIN_CHAPTER_WORDS)
    if result is None:
        result = _best_family(text, _families(text, _GENERIC_AT, generic=True), MIN_GENERIC_WORDS, from_one=True,
                              min_length=3)
    return result


def _families(text: str, pattern: re.Pattern[str], generic: bool) -> dict[tuple[str, ...], list[InlineHeading]]:
    """Headings found by `pattern`, grouped by family; none at all past MAX_MATCHES candidates (a text with that
    many is no book with a few dozen headings, and checking each would cost seconds on a hostile file)."""
    families: dict[tuple[str, ...], list[InlineHeading]] = {}
    for count, m in enumerate(pattern.finditer(text)):
        if count >= MAX_MATCHES:
            return {}
        found = _heading_at(text, m, generic)
        if found is not None:
            families.setdefault(found.family, []).append(found)
    return families


def _heading_at(text: str, m: re.Match[str], generic: bool) -> InlineHeading | None:
    keyword = m.group("kw")
    if m.start() and text[m.start() - 1].isalpha():
        return None  # the end of a longer word ("SUBCHAPTER", "ALMANAC XII")
    if generic and (keyword in _NOT_KEYWORDS or keyword.lower() in CHAPTER_KEYWORDS):
        return None
    window = text[m.end():m.end() + _WINDOW]
    taken = take_number(window)
    if taken is None:
        return None
    number, numeral, rest = taken
    after = _heading_end(rest, keyword)
    if after is None:
        return None
    sep, title, used = after
    offset = m.end() + len(window) - len(rest) + used
    while offset < len(text) and text[offset] in _LEADING:
        offset += 1
    if generic:
        label = _generic_label(keyword, window[:len(window) - len(rest)])
        family: tuple[str, ...] = ("generic", keyword, "the" if " the " in f" {label} " else "")
    else:
        label = f"{CHAPTER_KEYWORDS[keyword.lower()]} {numeral}"
        kind = "digit" if numeral.isdigit() else "roman" if _is_roman(numeral) else "word"
        family = (CHAPTER_KEYWORDS[keyword.lower()], "upper" if keyword.isupper() else "title", kind)
    return InlineHeading(m.start(), offset, family, Heading("numbered", family[0], number, label, title, sep))


def _generic_label(keyword: str, number_text: str) -> str:
    words = [keyword.capitalize()] + [w.lower() if w.upper() == "THE" else w.capitalize() if not _is_roman(w) else w
                                      for w in number_text.split()]
    return " ".join(words)


def _is_roman(word: str) -> bool:
    return bool(re.fullmatch(r"[IVXLCDM]+", word))


def _heading_end(rest: str, keyword: str) -> tuple[str, str, int] | None:
    """(display separator, title, characters of `rest` the heading uses) after a heading's number, or None when what
    follows shows a mention in running prose ("Chapter 3 of the report", "Chapter VII, in which ...")."""
    sep_match = _SEPARATOR.match(rest)
    raw_sep = sep_match.group("sep") if sep_match else ""
    start = sep_match.end() if sep_match else 0
    tokens = [(t.group(), t.start(), t.end())
              for t in itertools.islice(_TOKEN.finditer(rest, start), _MAX_TITLE_WORDS + 2)]
    if not tokens:
        return None
    first = tokens[0][0]
    opening = next((ch for ch in first if ch.isalnum()), "")
    if not opening or opening.islower() or first[0] in "([{,;" or (not raw_sep and first[0] in ",;"):
        return None
    separator = ": " if ":" in raw_sep else " — " if any(d in raw_sep for d in "—–-") else ". "
    next_heading = tokens[0][1]
    tokens = list(itertools.takewhile(lambda t: t[0].rstrip(".").upper() != keyword.upper(), tokens))
    if not tokens:
        return separator, "", next_heading  # another heading straight after this one: a contents list
    caps = _capitals_title(tokens)
    if caps is not None:
        title, end = caps
        return separator, title, end
    if raw_sep:
        sentence = _sentence_title(tokens)
        if sentence is not None:
            title, end = sentence
            return separator, title, end
    return separator, "", tokens[0][1]


def _capitals_title(tokens: list[tuple[str, int, int]]) -> tuple[str, int] | None:
    """A title in capitals ("THE STUDENT DAYS 1885-1892"): the words up to the first with a lower-case letter or a
    full stop. A capitals word just before a lower-case one opens the text ("THE night was dark") and is left out."""
    run: list[tuple[str, int, int]] = []
    closed = False
    for token in tokens:
        word = token[0]
        if any(ch.islower() for ch in word):
            break
        run.append(token)
        if _ends_sentence(word):
            closed = True
            break
    if len(run) > _MAX_TITLE_WORDS:
        return None
    if run and not closed and len(run) < len(tokens) and tokens[len(run)][0][:1].islower():
        run.pop()
    if not any(sum(ch.isalpha() for ch in word) >= 2 for word, _, _ in run):
        return None
    return " ".join(word for word, _, _ in run), run[-1][2]


def _sentence_title(tokens: list[tuple[str, int, int]]) -> tuple[str, int] | None:
    """A Title Case title up to its full stop ("The Mogador Jewesses.--Disputes between ..." -> "The Mogador
    Jewesses"), if the words up to the first sentence end read like a title."""
    for k, (word, start, _) in enumerate(tokens[:12]):
        end = _SENTENCE_END.search(word)
        if end is None or _is_abbreviation(word[:end.start()]):
            continue
        words = [w for w, _, _ in tokens[:k]] + [word[:end.start()]]
        title = " ".join(words)
        return (title, start + end.start() + 1) if looks_like_title(title) else None
    return None


def _ends_sentence(word: str) -> bool:
    stripped = word.rstrip("\"'”’)]")
    return stripped.endswith((".", "!", "?")) and not _is_abbreviation(stripped[:-1])


def _is_abbreviation(word: str) -> bool:
    core = word.strip("\"'“‘(")
    return len(core) <= 1 or core.upper() in _ABBREVIATIONS or bool(re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", core))



def _best_family(text: str, families: dict[tuple[str, ...], list[InlineHeading]], min_words: int,
                 from_one: bool = False, min_length: int = 2) -> InlineChapters | None:
    best: tuple[tuple[int, int], list[InlineHeading], list[InlineHeading]] | None = None
    for members in families.values():
        chain = _chain(members)
        if len(chain) < min_length or (from_one and chain[0].heading.number != 1):
            continue
        if _median_gap(text, chain) < min_words:
            continue
        key = (len(chain), chain[-1].start - chain[0].start)
        if best is None or key > best[0]:
            best = (key, chain, members)
    if best is None:
        return None
    _, chain, members = best
    return _with_volumes_and_contents(text, chain, members, min_words)


def _with_volumes_and_contents(text: str, chain: list[InlineHeading], members: list[InlineHeading],
                               min_words: int) -> InlineChapters:
    """Add earlier and later volumes of the same headings; drop an earlier chain that is a contents list."""
    contents = None
    median = _median_gap(text, chain)
    for _ in range(MAX_CHAINS):
        before = _chain([m for m in members if m.start < chain[0].start])
        if len(before) < 2:
            break
        if _median_gap(text, before, stop=chain[0].start) < max(min_words, median / 5):
            contents = (before[0].start, chain[0].start)
            break
        chain = before + chain
    for _ in range(MAX_CHAINS):
        after = _chain([m for m in members if m.start > chain[-1].start])
        if len(after) < 2 or _median_gap(text, after) < max(min_words, median / 5):
            break
        chain = chain + after
    return InlineChapters(chain, contents)


def _chain(members: list[InlineHeading]) -> list[InlineHeading]:
    """The longest chain of headings whose numbers rise by one (or two: one heading missing), the one spanning most
    text among equally long ones. Linear: the best chain ending at each number is kept as the scan goes."""
    best_at: dict[int, int] = {}  # number -> index of the member ending the longest chain so far at that number
    length = [0] * len(members)
    first = [0] * len(members)
    previous: list[int | None] = [None] * len(members)
    for i, member in enumerate(members):
        number = member.heading.number or 0
        pred = None
        for step in (1, 2):
            j = best_at.get(number - step)
            if j is not None and (pred is None or length[j] > length[pred]):
                pred = j
        length[i] = length[pred] + 1 if pred is not None else 1
        first[i] = first[pred] if pred is not None else i
        previous[i] = pred
        held = best_at.get(number)
        if held is None or length[i] >= length[held]:
            best_at[number] = i
    if not members:
        return []
    end = max(range(len(members)), key=lambda i: (length[i], members[i].start - members[first[i]].start))
    chain: list[InlineHeading] = []
    k: int | None = end
    while k is not None:
        chain.append(members[k])
        k = previous[k]
    return chain[::-1]


def _median_gap(text: str, chain: list[InlineHeading], stop: int | None = None) -> float:
    """The median number of words between consecutive headings (the last one's text runs to `stop` or the end)."""
    ends = [h.start for h in chain[1:]] + [len(text) if stop is None else stop]
    gaps = sorted(_approximate_words(text, h.end, e) for h, e in zip(chain, ends))
    return gaps[len(gaps) // 2]


def _approximate_words(text: str, start: int, stop: int) -> int:
    """Words in text[start:stop] counted as the spaces and newlines there (no copy: called for every heading of
    every family)."""
    return text.count(" ", start, stop) + text.count("\n", start, stop) if stop > start else 0


# ---- sections of bounded size ------------------------------------------------------------------------------------

def cut_sections(paras: list[str], size: int = SECTION_WORDS) -> list[str]:
    """Tidied paragraphs cut into sections of about `size` words, at most MAX_SECTION_WORDS (bar a single unbreakable
    "word"); each section's paragraphs are separated by blank lines. Every character but the white space at a cut is
    kept, in order.

    Cuts fall after the paragraph that reaches a section's share of the words. A paragraph longer than UNIT_WORDS is
    cut inside as well, near the character where the share is reached (words are taken as evenly spread), at the
    next line end, else the next sentence end, else the next white space: one look at a short stretch of text per
    cut, so a 25 MB paragraph costs no more than reading it. A section that comes out too long after all (words
    unevenly spread) is cut again.
    """
    counts = [count_words(p) for p in paras]
    total = sum(counts)
    if not total:
        return []
    count = max(1, math.ceil(total / size))
    goal = total / count
    sections: list[list[str]] = [[]]
    done = 0
    for para, words in zip(paras, counts):
        start = 0
        while words > UNIT_WORDS and len(sections) < count and done + words > goal * len(sections):
            into = (goal * len(sections) - done) / words  # the share of this paragraph before the cut
            cut = _cut_point(para, max(start, int(len(para) * into)))
            if cut is None:
                break
            sections[-1].append(para[start:cut])
            sections.append([])
            start = cut
        sections[-1].append(para[start:])
        done += words
        if len(sections) < count and done >= goal * len(sections):
            sections.append([])
    result = []
    for pieces in sections:
        text = "\n\n".join(piece.strip() for piece in pieces if piece.strip())
        if not text:
            continue
        if count > 1 and more_words_than(text, MAX_SECTION_WORDS):
            again = cut_sections(text.split("\n\n"), math.ceil(count_words(text) / 2))
            if len(again) > 1:
                result += again
                continue
        result.append(text)
    return result


def _cut_point(para: str, pos: int) -> int | None:
    """Where to cut `para` at or after `pos`: after the next line end, else before the next sentence, else at the next
    white space, looking CUT_WINDOW characters ahead (the next white space however far it is, as a last resort)."""
    stop = min(len(para), pos + CUT_WINDOW)
    newline = para.find("\n", pos, stop)
    if newline != -1:
        return newline + 1
    sentence = next_sentence_start(para, pos, stop)
    if sentence is not None:
        return sentence
    space = _SPACE.search(para, pos)
    return space.end() if space and space.end() < len(para) else None

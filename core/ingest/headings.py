"""Recognising one heading line ("CHAPTER I. Down the Rabbit-Hole", "Stave III", "XII.", "EPILOGUE") and giving
it a tidy display title.

This module only looks at single lines; deciding which recognised headings really start chapters (and which are a
table of contents, a sub-section or a "PART" container) is the job of `chapters`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# Keyword -> display form. Containers group chapters and only become chapters when nothing finer exists.
CHAPTER_KEYWORDS = {"chapter": "Chapter", "chap": "Chapter", "stave": "Stave", "letter": "Letter",
                    "adventure": "Adventure", "canto": "Canto", "episode": "Episode", "story": "Story",
                    "tale": "Tale", "section": "Section"}
CONTAINER_KEYWORDS = {"part": "Part", "book": "Book", "volume": "Volume", "vol": "Volume"}
FRONT_SPECIALS = {"preface", "foreword", "introduction", "introductory", "author's note", "prefatory note",
                  "dedication", "prologue", "prelude"}
STORY_SPECIALS = {"prologue", "prelude"}  # front matter that is part of the story, kept however short
_SPECIALS = ("prologue|prelude|epilogue|preface|foreword|introduction|introductory note|introductory|afterword"
             "|postscript|conclusion|interlude|appendix|author['’]s note|prefatory note|dedication|l['’]envoi|envoi"
             "|coda")

_ROMAN = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_UNITS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_UNIT_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                  "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                  "eighteenth", "nineteenth"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_TEN_ORDINALS = ["twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth",
                 "ninetieth"]


def _number_words() -> dict[str, int]:
    words: dict[str, int] = {}
    for i, (card, ordn) in enumerate(zip(_UNITS, _UNIT_ORDINALS), start=1):
        words[card], words[ordn] = i, i
    for t, (card, ordn) in enumerate(zip(_TENS, _TEN_ORDINALS), start=2):
        words[card], words[ordn] = t * 10, t * 10
        for u in range(1, 10):
            for sep in ("-", " "):
                words[f"{card}{sep}{_UNITS[u - 1]}"] = t * 10 + u
                words[f"{card}{sep}{_UNIT_ORDINALS[u - 1]}"] = t * 10 + u
    return words


NUMBER_WORDS = _number_words()
_KEYWORD_LINE = re.compile(r"(?P<kw>" + "|".join(sorted({*CHAPTER_KEYWORDS, *CONTAINER_KEYWORDS}, key=len,
                                                          reverse=True)) + r")\.?\s+(?P<rest>\S.*)", re.IGNORECASE)
_TITLED_CONTAINER = re.compile(r"[^\W\d_][\w'’ ,-]*\s(?P<kw>PART|BOOK|VOLUME)\s+(?P<rest>\S.*)")
_BARE_LINE = re.compile(r"(?P<num>[IVXLCDM]+|\d{1,3})(?P<sep>\s*[.:)\]—–-]?)\s*(?P<title>.*)")
_SPECIAL_LINE = re.compile(r"(?P<kw>(?:the\s+)?(?:" + _SPECIALS + r"))\b(?P<rest>.*)", re.IGNORECASE)
# What every heading line starts with (contents, "The End", a keyword, a special, a numeral): lines that start
# otherwise are turned away before the six patterns are tried, which a text of a million short lines makes count.
_MAYBE_HEADING = re.compile(r"(?i:table|contents|list|illustrations|the|finis|"
                            + "|".join(sorted({*CHAPTER_KEYWORDS, *CONTAINER_KEYWORDS}, key=len, reverse=True))
                            + "|" + _SPECIALS + r")|[IVXLCDM]|\d")
_TOC_LINE = re.compile(r"(?:table\s+of\s+)?contents|(?:list\s+of\s+)?illustrations", re.IGNORECASE)
_END_LINE = re.compile(r"(?:the\s+end|finis)\W*", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*[.:)\]—–-]+\s*|\s+")
_SMALL_WORDS = {"a", "an", "the", "and", "but", "or", "nor", "of", "in", "on", "at", "to", "by", "for", "with",
                "from", "as", "vs"}
_MAX_BARE_NUMBER = 300  # a numeral alone above this is a year or a word ("MIX"), not a chapter
_QUOTES_OPEN = "\"'“‘«"


@dataclass(frozen=True)
class Heading:
    """A recognised heading line.

    kind: "numbered" (chapter-like or container), "special" (Preface, Epilogue...), "toc" (Contents) or "end".
    family: what must match for two headings to be at the same level: the keyword's display form ("Chapter",
    "Letter", "Part"), "bare" for a numeral alone, "bare-titled" for a numeral followed by a title, or the
    special's name in lower case ("preface", "epilogue").
    label: the heading without its title ("Chapter XII", "IV", "The Preface"); `display()` adds the title.
    """

    kind: str
    family: str
    number: int | None
    label: str
    title: str = ""
    separator: str = ". "

    @property
    def is_container(self) -> bool:
        return self.family in CONTAINER_KEYWORDS.values()

    @property
    def is_bare(self) -> bool:
        return self.family.startswith("bare")

    def display(self, next_line_title: str = "") -> str:
        """The chapter title: label and title joined, e.g. "Chapter I. Down the Rabbit-Hole"."""
        if self.title:
            return self.label + self.separator + tidy_title(self.title)
        if next_line_title:
            return self.label + (". " if self.is_bare else ": ") + tidy_title(next_line_title)
        return self.label


def classify_line(line: str) -> Heading | None:
    """The heading this line is, or None. Expects one line; surrounding blank lines are the caller's concern."""
    s = " ".join(line.split())
    if not s or len(s) > 120:
        return None
    s = s.strip("_*")  # Gutenberg italics / markdown emphasis around a whole heading
    if not _MAYBE_HEADING.match(s) and not s.isupper():  # a capitals line may be "LITTLE WOMEN PART 2"
        return None
    if _TOC_LINE.fullmatch(s.rstrip(".:")) and s[0].isupper():
        return Heading("toc", "toc", None, "Contents")
    if _END_LINE.fullmatch(s) and s[0].isupper():
        return Heading("end", "end", None, "The End")
    return _keyword_heading(s) or _bare_heading(s) or _special_heading(s) or _titled_container(s)


def title_from_lines(lines: list[str]) -> str:
    """A chapter title from a heading's printed lines: "Stave I" + "Marley's Ghost" -> "Stave I: Marley's Ghost"."""
    heading = classify_line(lines[0]) if lines else None
    if heading is not None and heading.kind in ("numbered", "special"):
        if heading.title or len(lines) == 1:
            return " ".join([heading.display(), *lines[1:]])
        return heading.display(" ".join(lines[1:]))
    return tidy_title(" ".join(lines))


def _keyword_heading(s: str) -> Heading | None:
    m = _KEYWORD_LINE.fullmatch(s)
    if not m or not m.group("kw")[0].isupper():
        return None
    keyword = m.group("kw").lower()
    taken = take_number(m.group("rest"))
    if taken is None:
        return None
    number, numeral, rest = taken
    sep, title = _split_title(rest)
    if title and not _inline_title_ok(title):
        return None
    display = CHAPTER_KEYWORDS.get(keyword) or CONTAINER_KEYWORDS[keyword]
    return Heading("numbered", display, number, f"{display} {numeral}", title, sep)


def _titled_container(s: str) -> Heading | None:
    """"LITTLE WOMEN PART 2": a capitals line that ends in a container keyword and a number."""
    m = _TITLED_CONTAINER.fullmatch(s)
    if not m or not s.isupper():
        return None
    taken = take_number(m.group("rest"))
    if taken is None or taken[2].strip(" .:"):
        return None
    display = CONTAINER_KEYWORDS[m.group("kw").lower()]
    return Heading("numbered", display, taken[0], f"{display} {taken[1]}")


def _bare_heading(s: str) -> Heading | None:
    m = _BARE_LINE.fullmatch(s)
    if not m:
        return None
    raw = m.group("num")
    number = int(raw) if raw.isdigit() else roman_value(raw)
    if not number or number > _MAX_BARE_NUMBER:
        return None
    title = m.group("title").strip()
    if not title:
        return Heading("numbered", "bare", number, raw)
    if not re.search(r"[.:)\]—–-]", m.group("sep")) or not looks_like_title(title):
        return None
    return Heading("numbered", "bare-titled", number, raw, title, _display_separator(m.group("sep")))


def _special_heading(s: str) -> Heading | None:
    m = _SPECIAL_LINE.fullmatch(s)
    if not m or not m.group("kw")[0].isupper():
        return None
    sep, title = _split_title(m.group("rest"))
    if title and not _inline_title_ok(title):
        return None
    family = re.sub(r"^the\s+", "", m.group("kw").lower()).replace("’", "'")
    return Heading("special", family, None, tidy_title(smart_title_case(m.group("kw"))), title, sep)


def take_number(rest: str) -> tuple[int, str, str] | None:
    """(value, display form, remainder) for the number at the start of `rest`: 12, XII, xii, Twelve, the First."""
    if m := re.match(r"(\d{1,4})(?![\w])", rest):
        return int(m.group(1)), m.group(1), rest[m.end():]
    if (m := re.match(r"([IVXLCDM]+|[ivxlcdm]+)(?![\w'’])", rest)) and (value := roman_value(m.group(1).upper())):
        return value, m.group(1).upper(), rest[m.end():]
    m = re.match(r"(?:(the)\s+)?([A-Za-z]+)(?:([- ])([A-Za-z]+))?(?![\w'’])", rest, re.IGNORECASE)
    if not m:
        return None
    article = "the " if m.group(1) else ""
    if m.group(4) and (compound := f"{m.group(2)}{m.group(3)}{m.group(4)}".lower()) in NUMBER_WORDS:
        return NUMBER_WORDS[compound], article + smart_title_case(compound.title()), rest[m.end():]
    if m.group(2).lower() in NUMBER_WORDS:
        end = m.end(2)
        return NUMBER_WORDS[m.group(2).lower()], article + m.group(2).capitalize(), rest[end:]
    return None


def _split_title(rest: str) -> tuple[str, str]:
    m = _SEPARATOR.match(rest)
    raw_sep = m.group(0) if m else ""
    return _display_separator(raw_sep), rest[len(raw_sep):].strip()


def _display_separator(raw: str) -> str:
    if ":" in raw:
        return ": "
    if any(dash in raw for dash in "—–-"):
        return " — "
    return ". "


def roman_value(numeral: str) -> int | None:
    """The value of an upper-case Roman numeral, or None if it is not a well-formed one."""
    if not numeral or not _ROMAN.fullmatch(numeral):
        return None
    total = 0
    for i, ch in enumerate(numeral):
        value = _ROMAN_VALUES[ch]
        total += -value if i + 1 < len(numeral) and _ROMAN_VALUES[numeral[i + 1]] > value else value
    return total


def _inline_title_ok(title: str) -> bool:
    """A title on the heading line must read like one: starts with a capital, quote or digit; no prose."""
    first = next((ch for ch in title if ch.isalnum()), "")
    return (bool(first) and (first.isupper() or first.isdigit()) and len(title) <= 100
            and len(title.split()) <= 16 and title[-1] not in ",;")


def looks_like_title(text: str) -> bool:
    """Whether a short line is a chapter title (for titles printed on the line after "CHAPTER ONE").

    All-capital lines qualify; otherwise it must be Title Case and not end like a sentence, so that the first line
    of dialogue ("Yes!", "Oh dear!") or a dateline is not mistaken for a title.
    """
    s = " ".join(text.split())
    letters = [ch for ch in s if ch.isalpha()]
    if not s or len(s) > 90 or len(s.split()) > 14 or len(letters) < 2 or s[-1] in ",;":
        return False
    if all(ch.isupper() for ch in letters):
        return True
    if s[0] in _QUOTES_OPEN or s.rstrip("\"'”’)]").endswith((".", ":")):
        return False
    if not letters[0].isupper():
        return False
    long_words = [w for w in s.split() if sum(ch.isalpha() for ch in w) > 3]
    capitalised = sum(1 for w in long_words if next(ch for ch in w if ch.isalpha()).isupper())
    needed = 2 if s[-1] in "!?" else 1
    return capitalised >= needed and capitalised >= len(long_words) / 2


def tidy_title(title: str) -> str:
    """Collapse spaces, drop a closing full stop, and Title Case a title printed in capitals."""
    t = " ".join(title.split()).strip("_*")
    if t.endswith(".") and not t.endswith("..") and not re.search(r"\b\w\.\w\.$", t):
        t = t[:-1].rstrip()
    letters = [ch for ch in t if ch.isalpha()]
    if len(letters) > 1 and sum(ch.isupper() for ch in letters) >= 0.7 * len(letters):
        t = smart_title_case(t)  # capitals, perhaps with a lower-case word ("JOURNAL--continued")
    return t


def smart_title_case(text: str) -> str:
    """"MARLEY'S GHOST" -> "Marley's Ghost"; keeps Roman numerals (XII) and initialisms (P.C.) in capitals."""
    out = []
    for i, word in enumerate(text.split()):
        core = word.strip("\"'“”‘’()[]:;,.!?—–-")
        if re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]?\.?", core) or (len(core) > 1 and roman_value(core.upper())
                                                                  and core.isupper() and core not in {"MIX", "DI"}):
            out.append(word)
            continue
        lower = word.lower()
        if i > 0 and core.lower() in _SMALL_WORDS and not out[-1].endswith(":"):
            out.append(lower)
            continue
        out.append(re.sub(r"(^|[-—–\"“‘(\[])([a-z])", lambda m: m.group(1) + m.group(2).upper(), lower, count=2))
    return " ".join(out)

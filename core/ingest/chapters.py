"""Plain text to chapters: find heading paragraphs, drop the table of contents, work out which headings are
chapters, and cut the text there.

The steps, each general rather than tuned to one book:

1. A heading is a paragraph of its own (blank lines around it) that `headings.classify_line` recognises. A heading
   without a title takes the next paragraph as its title when that is a short Title Case or capitals line
   ("CHAPTER ONE" / "PLAYING PILGRIMS", " I" / " Introduction").
2. A table of contents is a run of three or more headings with (almost) no text between them; all but the last
   one, which is followed by prose, are dropped. Of two identical headings, an earlier one with little text after
   it is dropped as well, so a contents list whose entries carry a line of description goes too.
3. Headings come in families (keyword, or a bare numeral with or without a title). The chapter family is the
   best-ranked one ("Chapter" over "Letter"/"Stave" over bare numerals, then the most frequent). Another family
   joins it when its numbers continue the sequence ("ADVENTURE VI" then "VII. THE ADVENTURE OF ...") or, for
   keyword families, when it lies wholly before or after the chapters (Letters 1-4, then Chapters 1-24). What is
   left is sub-structure: numerals that restart inside a chapter are section breaks, "PART" headings are
   containers, and neither starts a chapter.
4. Specials (Preface, Prologue, Epilogue, Postscript...) are chapters of their own; a preface, foreword or
   introduction before the first chapter only when it has at least MIN_FRONT_PROSE words of prose, because short
   ones are dedications and publisher's notes rather than part of the book. Unheaded text before the first
   chapter follows the same rule and is called "Preface" when kept; title pages and contents never count as prose.
5. Without any chapter headings the text is cut at paragraph boundaries into parts of about PART_WORDS words (into
   sections of about flat.SECTION_WORDS at sentence ends when its line breaks were lost).
6. A text whose line breaks were lost is also searched for headings inside its running text (`flat`), and its
   chapters longer than flat.MAX_SECTION_WORDS are cut into parts at sentence ends.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.ingest.flat import (MAX_SECTION_WORDS, SECTION_WORDS, InlineChapters, count_words, cut_sections,
                              find_inline_chapters, has_giant_paragraph, more_words_than)
from core.ingest.headings import FRONT_SPECIALS, STORY_SPECIALS, Heading, classify_line, looks_like_title
from core.ingest.models import RawChapter
from core.ingest.paragraphs import is_prose, join_paragraphs, paragraphs, tidy_paragraph

MIN_FRONT_PROSE = 300
PART_WORDS = 2000
_TOC_GAP = 15  # words between two headings that still count as "nothing between them"
_MIN_SPECIAL_WORDS = 20


@dataclass
class _Candidate:
    index: int  # paragraph index of the heading line
    end: int  # first paragraph after the heading and its title
    heading: Heading
    title: str
    gap: int = 0  # words until the next candidate


def split_chapters(text: str) -> tuple[list[RawChapter], list[str]]:
    """Chapters of a plain-text book and warnings for the user; an empty list when the text has no words.

    A text whose line breaks were lost (a paragraph longer than any real one) is also searched for headings inside
    its running text, which are used when they find more chapters than the heading paragraphs did; its chapters
    longer than MAX_SECTION_WORDS are then cut into parts at sentence ends (see `flat`).
    """
    paras = paragraphs(text)
    chapters, warnings, headed = _split_paragraphs(paras)
    if not has_giant_paragraph(paras):
        return chapters, warnings
    inline = find_inline_chapters(text)
    if inline is not None and len(inline.headings) > headed:
        chapters, warnings = _inline_chapters(text, inline)
    return _bound_sections(chapters), warnings


def _inline_chapters(text: str, inline: InlineChapters) -> tuple[list[RawChapter], list[str]]:
    """Chapters cut at headings found inside running text; a contents list before them is left out."""
    heads = inline.headings
    chapters = []
    for k, head in enumerate(heads):
        stop = heads[k + 1].start if k + 1 < len(heads) else len(text)
        chapters.append(RawChapter(head.heading.display(), join_paragraphs(paragraphs(text[head.end:stop]))))
    front = text[:inline.contents[0] if inline.contents else heads[0].start]
    warnings = _add_front_matter(paragraphs(front), chapters)
    return [ch for ch in chapters if ch.text.strip()], warnings


def _bound_sections(chapters: list[RawChapter]) -> list[RawChapter]:
    """Chapters over MAX_SECTION_WORDS whose line breaks were lost, cut into parts: "Chapter IV (part 2 of 3)"."""
    result = []
    for chapter in chapters:
        paras = chapter.text.split("\n\n")
        if not more_words_than(chapter.text, MAX_SECTION_WORDS) or not has_giant_paragraph(paras):
            result.append(chapter)
            continue
        sections = cut_sections(paras)
        result += [RawChapter(f"{chapter.title} (part {k} of {len(sections)})", section)
                   for k, section in enumerate(sections, start=1)]
    return result


def _split_paragraphs(paras: list[str]) -> tuple[list[RawChapter], list[str], int]:
    """Chapters from heading paragraphs, warnings, and how many numbered chapter headings were used."""
    cum = [0]
    for para in paras:
        cum.append(cum[-1] + count_words(para))
    cands = _find_candidates(paras)
    _set_gaps(cands, cum)
    cands, removed = _drop_toc_runs(cands)
    cands = _drop_duplicates(cands)
    _set_gaps(cands, cum)
    chapters, containers, sub_headings = _select_levels(cands)
    removed |= sub_headings
    specials = _select_specials(cands, chapters, paras)
    if not chapters:
        return (*_split_without_headings(paras, [s for s in specials if s.heading.family not in FRONT_SPECIALS]), 0)
    skipped = [c for c in cands if c.heading.kind in ("toc", "end") and c.gap < 200]
    bounds = sorted([*chapters, *specials, *containers, *skipped], key=lambda c: c.index)
    starts_chapter = {id(c) for c in [*chapters, *specials]}
    result: list[RawChapter] = []
    containers_of: list[str] = []  # the label of the container each chapter is in ("" for none)
    container = ""
    pending: list[str] = []  # prose under a container heading ("PART TWO" and its epigraph) opens the next chapter
    for k, bound in enumerate(bounds):
        stop = bounds[k + 1].index if k + 1 < len(bounds) else len(paras)
        body = [paras[j] for j in range(bound.end, stop) if j not in removed]
        if id(bound) in starts_chapter:
            result.append(RawChapter(bound.title, join_paragraphs(pending + body)))
            containers_of.append(container)
            pending = []
        elif bound.heading.kind == "numbered":
            container = bound.heading.label
            pending += body if _prose_words(body) else []
    if pending and result:
        result[-1].text += "\n\n" + join_paragraphs(pending)
    _qualify_repeated_titles(result, containers_of)
    front = [paras[j] for j in range(bounds[0].index) if j not in removed]
    warnings = _add_front_matter(front, result)
    return [ch for ch in result if ch.text.strip()], warnings, len(chapters)


def _qualify_repeated_titles(chapters: list[RawChapter], containers_of: list[str]) -> None:
    """When numbering restarts in each part ("VOLUME II" / "CHAPTER I"), prefix titles with their part."""
    titles = [ch.title for ch in chapters]
    if len(set(titles)) == len(titles):
        return
    for chapter, container in zip(chapters, containers_of):
        if container:
            chapter.title = f"{container}, {chapter.title}"


def chapters_from_sections(front: list[str], sections: list[tuple[str, list[str]]]) -> tuple[list[RawChapter],
                                                                                               list[str]]:
    """Chapters from already-titled sections (markdown headings) with the same front-matter rule as plain text, and
    the same parts for a long chapter whose line breaks were lost."""
    result = [RawChapter(title, join_paragraphs(body)) for title, body in sections if any(p.strip() for p in body)]
    warnings = _add_front_matter(front, result)
    return _bound_sections(result), warnings


def _find_candidates(paras: list[str]) -> list[_Candidate]:
    cands: list[_Candidate] = []
    i = 0
    while i < len(paras):
        lines = paras[i].split("\n")
        heading = classify_line(lines[0]) if len(lines) <= 3 else None
        if heading is None or (len(lines) > 1 and not (heading.kind in ("numbered", "special") and not heading.title
                                                       and all(looks_like_title(x) for x in lines[1:]))):
            i += 1
            continue
        title_lines = [line.strip() for line in lines[1:]]
        end = i + 1
        if not title_lines and heading.kind in ("numbered", "special") and not heading.title and end < len(paras):
            nxt = paras[end].split("\n")
            follower = classify_line(nxt[0])
            if (len(nxt) <= 2 and all(looks_like_title(x) for x in nxt)
                    and (follower is None or follower.kind == "special")):
                title_lines, end = [x.strip() for x in nxt], end + 1
        cands.append(_Candidate(i, end, heading, heading.display(" ".join(title_lines))))
        i = end
    return cands


def _set_gaps(cands: list[_Candidate], cum: list[int]) -> None:
    for k, cand in enumerate(cands):
        stop = cands[k + 1].index if k + 1 < len(cands) else len(cum) - 1
        cand.gap = cum[stop] - cum[cand.end]


def _drop_toc_runs(cands: list[_Candidate]) -> tuple[list[_Candidate], set[int]]:
    """Drop runs of three or more headings with nothing between them, except the last (the one before prose).

    Returns the kept headings and the paragraph indices of the dropped ones, which are removed from the text.
    """
    kept: list[_Candidate] = []
    removed: set[int] = set()
    k = 0
    while k < len(cands):
        j = k
        while j + 1 < len(cands) and cands[j].gap < _TOC_GAP:
            j += 1
        if j - k >= 2:
            kept.append(cands[j])
            removed.update(i for c in cands[k:j] for i in range(c.index, c.end))
        else:
            kept.extend(cands[k:j + 1])
        k = j + 1
    return kept, removed


def _drop_duplicates(cands: list[_Candidate]) -> list[_Candidate]:
    """Of identical numbered headings, drop earlier ones with little text after them (contents with blurbs)."""
    last: dict[tuple[str, int | None], int] = {}
    for cand in cands:
        last[(cand.heading.family, cand.heading.number)] = cand.index
    return [c for c in cands if c.heading.kind != "numbered" or c.gap >= 100
            or last[(c.heading.family, c.heading.number)] == c.index]


def _select_levels(cands: list[_Candidate]) -> tuple[list[_Candidate], list[_Candidate], set[int]]:
    """(chapter headings, container headings, paragraph indices of numeral-only sub-headings to remove)."""
    families: dict[str, list[_Candidate]] = {}
    for cand in cands:
        if cand.heading.kind == "numbered":
            families.setdefault(cand.heading.family, []).append(cand)
    for name in [f for f in families if families[f][0].heading.is_bare]:
        families[name] = _in_sequence(families[name])
    chapterish = {f: m for f, m in families.items() if not m[0].heading.is_container
                  and (len(m) >= 2 or not m[0].heading.is_bare)}
    containers = [c for m in families.values() if m[0].heading.is_container for c in m]
    if not chapterish:
        chapterish = {f: m for f, m in families.items() if m[0].heading.is_container}
        containers = []
    if not chapterish:
        return [], containers, set()
    order = sorted(chapterish, key=lambda f: (_rank(chapterish[f][0].heading), -len(chapterish[f])))
    accepted = list(chapterish[order[0]])
    for name in order[1:]:
        members = chapterish[name]
        outside = members[-1].index < accepted[0].index or members[0].index > accepted[-1].index
        if _continues_numbering(accepted, members) or (outside and not members[0].heading.is_bare):
            accepted = sorted(accepted + members, key=lambda c: c.index)
    chosen = {id(c) for c in accepted}
    removed = {j for c in cands if id(c) not in chosen and c.heading.family == "bare" for j in range(c.index, c.end)}
    return accepted, containers, removed


def _rank(heading: Heading) -> int:
    if heading.family == "Chapter":
        return 0
    if heading.is_bare:
        return 3
    return 2 if heading.family == "Section" else 1


def _in_sequence(members: list[_Candidate]) -> list[_Candidate]:
    """Bare numerals that count up by one (restarting at 1 is allowed); stray numbers are not headings."""
    start = next((k for k, c in enumerate(members) if c.heading.number == 1), 0)
    kept = [members[start]]
    for cand in members[start + 1:]:
        if cand.heading.number in (1, (kept[-1].heading.number or 0) + 1):
            kept.append(cand)
    return kept


def _continues_numbering(accepted: list[_Candidate], members: list[_Candidate]) -> bool:
    merged = sorted(accepted + members, key=lambda c: c.index)
    member_ids = {id(c) for c in members}
    for k, cand in enumerate(merged):
        if id(cand) in member_ids:
            previous = merged[k - 1].heading.number if k else None
            if previous is None or cand.heading.number != previous + 1:
                return False
    return True


def _select_specials(cands: list[_Candidate], chapters: list[_Candidate], paras: list[str]) -> list[_Candidate]:
    first = chapters[0].index if chapters else None
    kept = []
    for k, cand in enumerate(cands):
        if cand.heading.kind != "special":
            continue
        family = cand.heading.family
        if first is None or cand.index < first:
            if not chapters and family in FRONT_SPECIALS:
                continue  # a book without chapters keeps its preface inside the first part
            if family in STORY_SPECIALS or family not in FRONT_SPECIALS:
                if cand.gap >= _MIN_SPECIAL_WORDS:
                    kept.append(cand)
            elif _prose_words(paras[cand.end:_next_index(cands, k, len(paras))]) >= MIN_FRONT_PROSE:
                kept.append(cand)
        elif cand.gap >= _MIN_SPECIAL_WORDS:
            kept.append(cand)
    return kept


def _next_index(cands: list[_Candidate], k: int, default: int) -> int:
    """The paragraph index of the candidate after cands[k] (they are in text order). Looked up, not searched for: a
    list of every later candidate for each special made 8,000 front-matter "Preface" headings take 2 s, 25 MB hours."""
    return cands[k + 1].index if k + 1 < len(cands) else default


def _prose_words(paras: list[str]) -> int:
    return sum(count_words(p) for p in paras if is_prose(p))


def _add_front_matter(front: list[str], chapters: list[RawChapter]) -> list[str]:
    """Keep substantial prose before the first chapter as a "Preface"; report what was skipped."""
    front = front[_title_page_end(front):]  # title page lines: book title, "by ...", publisher
    if _prose_words(front) >= MIN_FRONT_PROSE:
        chapters.insert(0, RawChapter("Preface", join_paragraphs(front)))
        return []
    words = sum(count_words(p) for p in front)
    if words >= 20:
        return [f"Skipped {words} words before the first chapter (title page, contents or a short preface)."]
    return []


def _title_page_end(paras: list[str]) -> int:
    """How many leading paragraphs are short non-prose lines (a title page). Counted, not sliced off one by one: that
    copied the list each time, quadratic in a file of a hundred thousand one-word paragraphs."""
    k = 0
    while k < len(paras) and not is_prose(paras[k]) and not more_words_than(paras[k], 30):
        k += 1
    return k


def _split_without_headings(paras: list[str], specials: list[_Candidate]) -> tuple[list[RawChapter], list[str]]:
    """Parts of about PART_WORDS words cut at paragraph ends; closing specials (Postscript) stay chapters."""
    main_end = specials[0].index if specials else len(paras)
    main = paras[:main_end]
    skip = _title_page_end(main)
    if skip < len(main):  # else the whole text is short lines ("Just one line of text."): that is the book
        main = main[skip:]
    counts = [count_words(p) for p in main]
    total = sum(counts)
    chapters: list[RawChapter] = []
    n_parts = max(1, round(total / PART_WORDS))
    size = PART_WORDS
    if has_giant_paragraph(main):  # line breaks lost: sections cut at sentence ends, bounded in size
        size = SECTION_WORDS
        sections = cut_sections([tidy_paragraph(p) for p in main if any(ch.isalnum() for ch in p)], size)
        chapters = [RawChapter(f"Part {k}", section) for k, section in enumerate(sections, start=1)]
    elif total:
        goal = total / n_parts
        current: list[str] = []
        done = 0
        for para, n in zip(main, counts):
            current.append(para)
            done += n
            if done >= goal * (len(chapters) + 1) and len(chapters) + 1 < n_parts:
                chapters.append(RawChapter(f"Part {len(chapters) + 1}", join_paragraphs(current)))
                current = []
        if current:
            chapters.append(RawChapter(f"Part {len(chapters) + 1}", join_paragraphs(current)))
    parts = len(chapters)  # what was made, not n_parts: a text without blank lines is one paragraph, so one part
    for k, cand in enumerate(specials):
        stop = specials[k + 1].index if k + 1 < len(specials) else len(paras)
        body = [p for p in paras[cand.end:stop] if not _is_end_marker(p)]
        if body:
            chapters.append(RawChapter(cand.title, join_paragraphs(body)))
    warnings = []
    if parts > 1:
        warnings.append(f"No chapter headings were found, so the text was cut into {parts} parts "
                        f"of about {size:,} words.")
    return chapters, warnings


def _is_end_marker(para: str) -> bool:
    heading = classify_line(para)
    return heading is not None and heading.kind == "end"

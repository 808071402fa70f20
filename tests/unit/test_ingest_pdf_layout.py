"""The PDF layout rules on hand-made lines: running headers, footers and page numbers found by repetition (and a
chapter heading kept), line-end hyphens joined or kept, paragraphs from indents, gaps and type sizes."""
from __future__ import annotations

from collections import Counter

from core.ingest.pdf_layout import Line, join_hyphenated, paragraphs, remove_furniture, vocabulary

PITCH, SIZE, LEFT, RIGHT = 13.0, 10.5, 50.0, 370.0


def _line(text: str, page: int, baseline: float, left: float = LEFT, right: float = RIGHT,
          size: float = SIZE) -> Line:
    return Line(text, left, right, baseline + size * 0.8, baseline - size * 0.2, page, size, baseline)


def _body(page: int, texts: list[str], top: float = 520.0) -> list[Line]:
    return [_line(text, page, top - k * PITCH) for k, text in enumerate(texts)]


def _book(pages: int, header: bool = True, first_number: int = 1) -> list[list[Line]]:
    """Pages of two body lines under a running header (book title on even pages, chapter title on odd ones) and
    above a page number; page 0 opens the chapter with its heading lower down and no header."""
    out = []
    for k in range(pages):
        lines = _body(k, [f"Body line one of page {k}, in the middle.", f"Body line two of page {k} goes on."])
        if k == 0:
            lines.insert(0, _line("Chapter 2", 0, 540.0, left=180, size=15))
        elif header:
            lines.insert(0, _line("A Harbour Tale" if k % 2 == 0 else "Chapter 2", k, 560.0, left=170, size=9))
        lines.append(_line(str(k + first_number), k, 35.0, left=205, size=9))
        out.append(lines)
    return out


def test_running_headers_and_page_numbers_go_and_the_chapter_heading_stays() -> None:
    kept = remove_furniture(_book(8, first_number=5))
    texts = [[line.text for line in page] for page in kept]
    assert texts[0] == ["Chapter 2", "Body line one of page 0, in the middle.", "Body line two of page 0 goes on."]
    for page in texts[1:]:
        assert len(page) == 2 and all(t.startswith("Body line") for t in page), page


def test_short_runs_of_a_chapter_header_go_with_the_headers_at_their_height() -> None:
    """A chapter's title as header on two pages only is too few repeats alone; its height gives it away."""
    pages = _book(10)
    pages[3][0].text = pages[5][0].text = "Chapter 3"  # a second short chapter's running header
    kept = remove_furniture(pages)
    assert all(line.text.startswith("Body") for page in kept[1:] for line in page)


def test_a_numbered_heading_at_a_page_top_is_not_a_page_number() -> None:
    """"3" heading a chapter is a number at a page's top, but not one that follows the pages' own numbering."""
    pages = _book(9, header=False)
    pages[4].insert(0, _line("3", 4, 500.0, left=200, size=15))
    kept = remove_furniture(pages)
    assert "3" in [line.text for line in kept[4]]
    assert all(line.text != str(k + 1) for k, page in enumerate(kept) for line in page)


def test_a_page_number_inside_a_header_line_is_dropped() -> None:
    pages = [_body(k, ["Prose of the page that is long enough.", "More prose here."]) for k in range(6)]
    for k, page in enumerate(pages):
        page.insert(0, _line(f"{k + 11} THE HARBOUR TALE" if k % 2 else f"THE HARBOUR TALE {k + 11}", k, 560.0))
    kept = remove_furniture(pages)
    assert all(line.text.startswith(("Prose", "More")) for page in kept for line in page)


def test_hyphen_repair_follows_the_documents_own_words() -> None:
    words = Counter({"example": 3, "sea-shore": 2, "sea": 5, "shore": 4, "to-day": 3, "today": 1, "under": 2,
                     "stand": 2})
    assert join_hyphenated("exam", "ple", words)  # the joined word is a word of the text
    assert not join_hyphenated("sea", "shore", words)  # the text writes the compound with its hyphen
    assert not join_hyphenated("to", "day", words)  # hyphenated more often than not
    assert join_hyphenated("strugg", "led", words)  # "strugg" is no word: a broken one
    assert not join_hyphenated("under", "stand", words)  # both halves words, nothing known: keep (unsure)
    assert not join_hyphenated("self", "gratulation", words)  # a compound-making first half


def test_paragraphs_from_indents_gaps_and_type_sizes_with_hyphens_repaired() -> None:
    lines = [
        _line("Chapter One", 0, 560.0, left=160, size=15),
        _line("It was an exam-", 0, 520.0, left=LEFT + 15),
        _line("ple of the old sea-", 0, 507.0),
        _line("shore town, and a good example.", 0, 494.0, right=250),
        _line("A new paragraph starts indented", 0, 481.0, left=LEFT + 15),
        _line("and ends on this line.", 0, 468.0, right=200),
        _line("After a gap, a block paragraph.", 0, 440.0),
        _line("It goes on to the next page, the", 0, 427.0),
        _line("very same paragraph.", 1, 520.0),
    ]
    lines += [_line("Filler text of an ordinary full line, for the margins.", 1, 507.0 - k * PITCH) for k in range(6)]
    words = vocabulary(lines) + Counter({"sea-shore": 1})
    paras = paragraphs(lines, words)
    assert paras[:4] == ["Chapter One",
                         "It was an example of the old sea-shore town, and a good example.",
                         "A new paragraph starts indented and ends on this line.",
                         "After a gap, a block paragraph. It goes on to the next page, the very same paragraph. "
                         + " ".join(["Filler text of an ordinary full line, for the margins."] * 6)]


def test_vocabulary_leaves_out_the_fragments_around_a_line_end_hyphen() -> None:
    words = vocabulary([_line("He strugg-", 0, 500.0), _line("led hard.", 0, 487.0)])
    assert words["he"] == 1 and words["hard"] == 1 and not words["strugg"] and not words["led"]


def test_a_heading_at_the_top_of_a_page_is_its_own_paragraph() -> None:
    """Block paragraphs (gaps, no indents) across a page break: no gap can be seen there, but a short line with a gap
    under it, at the top of the new page, is a heading on its own, and so is the end of the text before it."""
    full = "A full line of ordinary prose that reaches the right margin of the page."
    lines = [_line(full, 0, 520.0 - k * PITCH) for k in range(5)]
    lines.append(_line("and so the chapter ends.", 0, 520.0 - 5 * PITCH, right=360))
    lines.append(_line("CHAPTER 2.", 1, 556.0, right=110))
    lines += [_line(full, 1, 534.0 - k * PITCH) for k in range(5)]
    paras = paragraphs(lines, vocabulary(lines))
    assert [p[:12] for p in paras] == ["A full line ", "CHAPTER 2.", "A full line "]

"""Extraction with the real spaCy model: titles kept on names, sentence numbers, verb-mediated links, batching."""
from __future__ import annotations

from core.metrics.extract import MAX_PASSAGE_CHARS, extract_chapter, extract_chapters, split_passages

TEXT = ("Elizabeth met Mr. Darcy at the ball. He ignored her. Mrs. Bennet scolded Mr. Bennet.\n\n"
        "Elizabeth was kissed by Darcy. Jane told Bingley everything.")


def test_mentions_keep_titles_and_sentence_numbers() -> None:
    e = extract_chapter(TEXT)
    assert e.sentences == 5
    found = {(s, name) for s, name, _ in e.mentions}
    assert (0, "Elizabeth") in found and (0, "Mr. Darcy") in found
    assert (2, "Mrs. Bennet") in found and (2, "Mr. Bennet") in found
    assert (3, "Darcy") in found  # the second paragraph continues the sentence count
    assert {"Elizabeth", "Mr. Darcy", "Mrs. Bennet"} <= e.persons()


def test_verb_links_subject_and_object() -> None:
    links = set(extract_chapter(TEXT).verb_links)
    assert ("Elizabeth", "Mr. Darcy") in links  # met: nsubj + dobj
    assert ("Mrs. Bennet", "Mr. Bennet") in links  # scolded
    assert ("Elizabeth", "Darcy") in links  # passive: nsubjpass + agent "by Darcy"
    assert ("Jane", "Bingley") in links  # told: nsubj + dative/dobj


def test_no_person_no_links() -> None:
    e = extract_chapter("The sea was grey. It rained all day.")
    assert e.mentions == [] and e.verb_links == [] and e.sentences == 2
    assert extract_chapter("").sentences == 0


def test_chapters_stream_in_order_including_empty_ones() -> None:
    out = list(extract_chapters([("a", TEXT), ("b", ""), ("c", "Tom Reed waved to Anna Marsh.")], batch_size=2))
    assert [k for k, _ in out] == ["a", "b", "c"]
    assert out[1][1].mentions == [] and ("Tom Reed", "Anna Marsh") in out[2][1].verb_links


def test_long_paragraphs_are_cut_at_sentence_ends() -> None:
    para = "Anna rowed out to the point and back again. " * 1000
    parts = split_passages(para + "\n\n  Second   paragraph. ")
    assert all(len(p) <= MAX_PASSAGE_CHARS for p in parts)
    assert all(p.endswith(".") for p in parts) and parts[-1] == "Second paragraph."
    assert "".join(p.replace(" ", "") for p in parts[:-1]) == para.replace(" ", "")

"""core.qa.identity: "Who is X?" is answered by a sentence that says who X is under any of the graph's names for X.

Seen on QuALITY's "Captain Chaos": "Who is Johnny Wainwright?" quoted '"Yeah!" snorted Johnny Wainwright' while the
book says "John Wainwright, our First Officer, licked his chops"."""
from __future__ import annotations

from core.qa.identity import describes_pattern, other_names
from core.retrieval.entities import EntityIndex, EntityRef


def _index() -> EntityIndex:
    refs = [EntityRef(1, "Johnny Wainwright", "character", ("Johnny Wainwright", "John Wainwright", "Johnny")),
            EntityRef(2, "Slops", "character", ("Slops",))]
    return EntityIndex.build(["Johnny Wainwright and Slops."], refs)


def test_the_graph_s_other_names_count_and_our_or_my_opens_an_apposition() -> None:
    names = other_names("Johnny Wainwright", _index())
    assert names[0] == "Johnny Wainwright" and "John Wainwright" in names
    pattern = describes_pattern(names)
    assert pattern.search("John Wainwright, our First Officer, licked his chops.")
    assert pattern.search("Johnny Wainwright was my oldest friend.")
    assert not pattern.search('"Yeah!" snorted Johnny Wainwright disdainfully.')
    assert pattern.search("Johnny Wainwright, who was the ship's first officer, laughed.")
    # a relative clause of another verb says what he did, not who he is (Frankenstein: "poor Elizabeth, who had
    # relied upon Justine's innocence" answered "Who is Elizabeth?")
    assert not pattern.search("This was a blow to poor Johnny Wainwright, who had relied upon her.")
    assert other_names("Slops", None) == ["Slops"]   # no graph: the question's own name only


def test_who_is_x_quotes_the_graph_s_introduction_when_it_says_who_x_is() -> None:
    """"Who is Johnny Wainwright?": no cited sentence says who he is; the sentence the graph holds as his
    introduction does, and becomes the answer, with its chapter and passage and a note saying where it comes from."""
    from core.qa.corpus import Corpus, Passage
    from core.qa.extract import Extraction, Quote
    from core.services.qa_service import _introduced
    corpus = Corpus([Passage(1, 1, 0, "We picked up our cook on Phobos."),
                     Passage(2, 1, 1, "John Wainwright, our First Officer, licked his chops and said, "
                                      "\"The blockade!\"")])
    closest = Extraction("identity", '"Yeah!" snorted Johnny Wainwright.', None,
                         (Quote('"Yeah!" snorted Johnny Wainwright.', 2, 3, 0, 0.4),), 0.4, about="Johnny Wainwright")
    card = {"introduced": {"chapter": 1, "sentence": "John Wainwright, our First Officer, licked his chops and said, "
                                                      "\"The blockade!\""}, "aliases": ["John Wainwright"]}
    # without the graph's other names the introduction's "John Wainwright" is not the "Johnny Wainwright" asked about
    assert _introduced(closest, card, corpus) is closest
    corpus.entities = _index_over([p.text for p in corpus.passages])
    found = _introduced(closest, card, corpus)
    assert found.confident and found.answer.startswith("John Wainwright, our First Officer")
    assert (found.quotes[0].chapter, found.quotes[0].chunk) == (1, 1) and "introduces Johnny Wainwright" in found.note
    plain = {"introduced": {"chapter": 1, "sentence": "John Wainwright licked his chops."}}
    assert _introduced(closest, plain, corpus) is closest      # an introduction that says nothing of who he is


def _index_over(texts: list[str]) -> EntityIndex:
    refs = [EntityRef(1, "Johnny Wainwright", "character", ("Johnny Wainwright", "John Wainwright", "Johnny"))]
    return EntityIndex.build(texts, refs)


def test_a_sentence_that_only_calls_x_by_name_is_the_last_choice_for_who_is_x() -> None:
    """Seen on The Picture of Dorian Gray: "Who is Harry?" quoted '"I do not, Harry."' (Basil calling Lord Henry),
    the earliest cited sentence naming Harry, though a later one told of him."""
    import re
    from types import SimpleNamespace

    from core.qa.identity import first_naming
    from core.summarize.quotes import only_calls
    harry = re.compile(r"\bHarry\b")
    for called in ['"I do not, Harry."', '"Harry!" exclaimed Hallward, frowning.', "Oh! Harry, I am vexed with you.",
                   '"My dear Harry, we lunch together every day."', '"And ... Harry!"']:
        assert only_calls(called, harry), called
    for told in ["Harry and Basil went out into the garden.", '"Yes," said Harry.', "Harry, Basil, and Dorian sat.",
                 "It was Harry who spoke first.", "Lord Henry Wotton, whom Basil called Harry, smiled.",
                 "Nobody was there."]:
        assert not only_calls(told, harry), told
    citations = [SimpleNamespace(chapter=2, chunk=1), SimpleNamespace(chapter=5, chunk=3)]
    pool = [SimpleNamespace(text='"I do not, Harry."', citation=0, position=0),
            SimpleNamespace(text="Harry lunched with his aunt at the club.", citation=1, position=4)]
    assert first_naming(pool, "Harry", citations).text.startswith("Harry lunched")
    assert first_naming(pool[:1], "Harry", citations).text == '"I do not, Harry."'    # nothing else: still quoted

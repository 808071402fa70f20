"""Who / where answers from the graph's facts (core.qa.graph_answer): the other end of a fact of the cited passages
that joins the question's character by what the question asks about; each with the case where it must not answer."""
from __future__ import annotations

from core.qa.corpus import Corpus, FactRecord, Passage
from core.qa.extract import extract_answer
from core.qa.graph_answer import fact_answer
from core.qa.pipeline import Citation
from core.retrieval.entities import EntityIndex, EntityRef
from tests.unit.test_qa_extract import WordEmbed

PASSAGES = [
    Passage(1, 1, 0, "Cousin Cæsar lay wounded near the ford. The old man bound up his wound and carried him home."),
    Passage(2, 2, 0, "Mr. Collins wanted to marry Elizabeth. Elizabeth refused him."),
    Passage(3, 3, 0, "In the spring he married her at Longbourn church, and all the village came."),
]
ENTITIES = [EntityRef(1, "Cousin Cæsar", "character", ("Cousin Cæsar", "Cæsar")),
            EntityRef(2, "Steve", "character", ("Steve", "the old man")),
            EntityRef(3, "Elizabeth", "character", ("Elizabeth", "Lizzy")),
            EntityRef(4, "Mr. Collins", "character", ("Mr. Collins",)),
            EntityRef(5, "Mr. Darcy", "character", ("Mr. Darcy", "Darcy")),
            EntityRef(6, "Longbourn", "location", ("Longbourn",))]
FACTS = [
    FactRecord("the old man", "bound up wound of", "Cousin Cæsar", 1, 0, 1,
               "The old man bound up his wound and carried him home.", 1, 0),
    FactRecord("Mr. Collins", "wanted to marry", "Elizabeth", 2, 0, 2, "Mr. Collins wanted to marry Elizabeth.", 3, 2),
    FactRecord("Elizabeth", "refused", "Mr. Collins", 2, 0, 2, "Elizabeth refused him.", 2, 3),
    FactRecord("Mr. Darcy", "married", "Elizabeth", 3, 0, 3,   # the store keeps the names the graph read
               "In the spring he married her at Longbourn church, and all the village came.", 4, 2),
    FactRecord("Mr. Darcy", "married at", "Longbourn", 3, 0, 3,
               "In the spring he married her at Longbourn church, and all the village came.", 4, 5),
]


def _view():  # noqa: ANN202
    index = EntityIndex.build([p.text for p in PASSAGES], ENTITIES)
    return Corpus(list(PASSAGES), list(FACTS), entities=index).upto(None)


def _cite(*rows: int) -> list[Citation]:
    return [Citation(PASSAGES[r].chapter, PASSAGES[r].index, PASSAGES[r].text, PASSAGES[r].chunk_id, "passage", 1.0)
            for r in rows]


def test_the_other_end_of_a_fact_about_what_was_asked_answers() -> None:
    found = fact_answer("Who tended Cousin Cæsar's wound?", "person", _cite(0), _view())
    assert found is not None and found.name == "Steve" and found.citation == 0
    found = fact_answer("Whom did Elizabeth marry?", "person", _cite(1, 2), _view())
    assert found is not None and found.name == "Mr. Darcy" and found.citation == 1   # "he" read by the graph
    found = fact_answer("Where did Mr. Darcy marry Elizabeth?", "place", _cite(2), _view())
    assert found is not None and found.name == "Longbourn"


def test_no_answer_from_a_wish_a_denial_another_topic_or_an_uncited_passage() -> None:
    view = _view()
    # "wanted to marry" is a wish, not a marriage: only Darcy's fact counts, and it is not cited here
    assert fact_answer("Whom did Elizabeth marry?", "person", _cite(1), view) is None
    assert fact_answer("Who carried Cousin Cæsar's horse away?", "person", _cite(0), view) is None  # no "horse"
    assert fact_answer("Who tended Cousin Cæsar's wound?", "person", _cite(1), view) is None        # not cited
    assert fact_answer("Why was Cousin Cæsar wounded?", "reason", _cite(0), view) is None           # not who/where
    assert fact_answer("Who tended the wound?", "person", _cite(0), view) is None   # the question names no one


def test_the_reader_shows_the_graphs_answer_with_its_sentence_and_says_how_it_read_it() -> None:
    found = extract_answer("Whom did Elizabeth marry?", _cite(1, 2), view=_view(), embed=WordEmbed())
    assert found.span == "Mr. Darcy"
    assert found.quotes[0].text.startswith("In the spring he married her") and found.quotes[0].chapter == 3
    assert found.note is not None and found.note.startswith("The sentence does not name Mr. Darcy; the book's graph")
    found = extract_answer("Who tended Cousin Cæsar's wound?", _cite(0), view=_view(), embed=WordEmbed())
    assert found.span == "Steve" and found.note is not None and "“the old man”" in found.note

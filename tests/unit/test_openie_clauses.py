"""Open IE rules for who did what to whom in clauses without their own subject or object (core.kg.openie), and
the offline KGScore extractor's reading of them (core.metrics.kgscore_offline), with the packaged spaCy model.
Each rule has a case where it must not fire."""
from __future__ import annotations

import pytest

from core import nlp
from core.kg.openie import asks_yes_or_no, third_person, triples_from_sentence
from core.metrics.kgscore_offline import OfflineEdgeExtractor, _doc_words, _parse, entity_lookup


@pytest.fixture(scope="module")
def model():  # noqa: ANN201
    return nlp.load_spacy()


def triples(model, text: str) -> set[tuple[str, str, str]]:  # noqa: ANN001
    doc = next(nlp.pipe([text], nlp=model, disable=nlp.KG_DISABLE))
    return {(" ".join(t.text for t in r.head), " ".join(t.text for t in r.relation),
             " ".join(t.text for t in r.tail)) for s in doc.sents for r in triples_from_sentence(s)}


def test_by_ing_clause_shares_the_main_subject(model) -> None:  # noqa: ANN001
    found = triples(model, "Retief responded by punching Lemuel in the face.")
    assert ("Retief", "punching", "Lemuel") in found


def test_participial_clause_after_the_verb_shares_its_subject(model) -> None:  # noqa: ANN001
    found = triples(model, "Retief hit Lemuel hard, knocking Potter to the ground.")
    assert any(h == "Retief" and t == "Potter" for h, _, t in found)


def test_an_ing_word_with_its_own_subject_keeps_it(model) -> None:  # noqa: ANN001
    found = triples(model, "Retief waited while Potter was watching the door.")
    assert not any(h == "Retief" and t == "the door" for h, _, t in found)
    assert any(h == "Potter" and "door" in t for h, _, t in found)


def test_apposition_names_a_common_noun_subject(model) -> None:  # noqa: ANN001
    doc = next(nlp.pipe(["The man, Potter, takes Retief to the camp."], nlp=model, disable=nlp.KG_DISABLE))
    potter = next(t for t in doc if t.text == "Potter")
    at = {potter.i: (potter.i, potter.i + 1, "Potter")}
    found = [r for r in triples_from_sentence(doc[:], at.get)]
    assert any(r.head_name == "Potter" and "Retief" in [t.text for t in r.tail] for r in found)
    assert not any(r.head_name == "Potter" for r in triples_from_sentence(
        next(nlp.pipe(["The man takes Retief to the camp."], nlp=model)).sents.__next__(), {}.get))


def test_small_clause_subject_is_whom_the_help_was_for(model) -> None:  # noqa: ANN001
    found = triples(model, "Harold Tate helps Rector get back to safety.")
    assert any(h == "Harold Tate" and r == "helps" and t == "Rector" for h, r, t in found)


def test_a_reported_clause_subject_is_not_an_object(model) -> None:  # noqa: ANN001
    found = triples(model, "Harold Tate said Rector went back to the city.")
    assert not any(h == "Harold Tate" and t == "Rector" for h, _, t in found)


def test_lookup_stays_aligned_after_a_paragraph_break(model) -> None:  # noqa: ANN001
    text = "Strike meets Cob.\n\nLater Hendricks fixes the ship and Cob thanks Hendricks."
    doc = _parse(text, model)
    assert len(_doc_words(doc)) == len(doc) and "" in _doc_words(doc)
    found = entity_lookup(doc, ["Strike", "Cob", "Hendricks"], lambda s: [t.text for t in model.tokenizer(s)])
    assert {doc[i].text for i in found} == {"Strike", "Cob", "Hendricks"}
    assert all(doc[i].text.lower() == key for i, (_, _, key) in found.items())


def test_edges_have_entity_subjects_and_no_repeated_loop(model) -> None:  # noqa: ANN001
    text = "The pilot takes Retief to Adobe. Retief punches Lemuel in the face. Retief crawls into a cave."
    edges = OfflineEdgeExtractor(nlp=model).extract(text, ["Retief", "Lemuel", "Adobe"])
    loops = {(e.subject, e.predicate) for e in edges if e.is_self_loop}
    assert ("retief", "lemuel") in {(e.subject, e.object) for e in edges}
    assert not any("pilot" in p for _, p in loops)            # Retief is only the object there: no edge of his
    assert not any(p.startswith("punches") for _, p in loops)  # the edge to Lemuel says it; no loop repeats it
    assert ("retief", "crawls into a cave") in loops         # an action with no entity object stays a loop


def test_a_fronted_preposition_reads_after_its_verb(model) -> None:  # noqa: ANN001
    found = triples(model, "On a fine autumnal afternoon, Ichabod sat on the stool. In his hand he swayed a ferule.")
    found = {(h, r.lower(), t) for h, r, t in found}      # the graph stores relations in lower case
    relations = {r for _, r, _ in found}
    assert ("Ichabod", "sat on", "a fine autumnal afternoon") in found
    assert not any(r.split()[0].lower() in ("on", "in") for r in relations)
    assert ("Ichabod", "sat on", "the stool") in found           # a preposition after the verb is unchanged


@pytest.mark.parametrize("verb, third", [("have", "has"), ("am", "is"), ("are", "is"), ("were", "was"), ("do", "does"),
                                         ("think", "thinks"), ("wish", "wishes"), ("carry", "carries"),
                                         ("say", "says"), ("go", "goes"), ("Know", "Knows")])
def test_a_verb_of_i_or_you_in_the_third_person(verb: str, third: str) -> None:
    assert third_person(verb) == third


def test_no_relation_to_a_name_inside_a_scene_setting_phrase_or_someone_elses_noun(model) -> None:  # noqa: ANN001
    def named(text: str) -> set[tuple[str, str]]:
        doc = next(nlp.pipe([text], nlp=model, disable=nlp.KG_DISABLE))
        names = {"Justine", "Ingolstadt", "Elizabeth", "Darcy", "Jane", "Pemberley"}
        lookup = {t.i: (t.i, t.i + 1, t.text) for t in doc if t.text in names}
        return {(r.head_name or "", r.tail_name or "") for s in doc.sents
                for r in triples_from_sentence(s, lookup.get) if r.tail_name}
    assert ("Justine", "Ingolstadt") not in named(
        "Accordingly, a few months after your departure for Ingolstadt, Justine was called home by her mother.")
    assert ("Justine", "Ingolstadt") not in named("Justine was called home after your departure for Ingolstadt.")
    assert ("Elizabeth", "Darcy") not in named("After the death of Darcy, Elizabeth went to London.")
    assert ("Elizabeth", "Jane") in named("Elizabeth took leave of Jane.")               # a noun of her own
    assert ("Elizabeth", "Pemberley") in named("Elizabeth made her visit to Pemberley.")


@pytest.mark.parametrize("text, asks", [("“Do you also join with my enemies to crush me?”", True),
                                        ("“Does Elizabeth love Darcy?” asked Jane.", True),
                                        ("Is Beth ill?", True), ("Have you seen Lydia?", True),
                                        ("Why did you kill my brother?", False), ("Who killed William?", False),
                                        ("Do come in.", False), ("Elizabeth joined her sister.", False)])
def test_a_question_asked_by_yes_or_no_states_nothing(model, text: str, asks: bool) -> None:  # noqa: ANN001
    doc = next(nlp.pipe([text], nlp=model, disable=nlp.KG_DISABLE))
    verbs = [t for t in doc if t.pos_ in ("VERB", "AUX") and t.dep_ not in ("aux", "auxpass")]
    assert asks_yes_or_no(verbs[0]) is asks, [(t.text, t.dep_, t.head.text) for t in doc]

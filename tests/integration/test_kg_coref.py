"""Coreference, dialogue and typing rules of the offline extractor, on small texts of our own (the packaged spaCy
model parses them). Each rule has a case where it must fire and, where the issue names one, a case where it must not:
two women in a scene, "it" for a thing, a quotation inside a quotation, an unnamed man between a name and "he"."""
from __future__ import annotations

import pytest

from core import nlp
from core.kg import coref
from core.kg.offline import ChapterText, OfflineExtractor, find_mentions
from core.kg.types import CO_MENTIONED, CO_OCCURS, SPEAKS_TO


@pytest.fixture(scope="module")
def parse():
    model = nlp.load_spacy()

    def run(text: str):
        doc = model(nlp.clean_for_parsing(text))
        mentions = find_mentions(doc)
        found = coref.resolve_chapter([doc], [[coref.NamedSpan(m.start, m.end, m.name) for m in mentions]],
                                      [{m.name: m.type for m in mentions}])
        refs = {doc[i].text + f"@{i}": name for i, name in found.refs[0].items()}
        return doc, found, refs
    return run


def refs_of(found, doc, word: str) -> list[str | None]:
    """What each occurrence of `word` (case-sensitive) resolved to, in order."""
    return [found.refs[0].get(t.i) for t in doc if t.text == word]


@pytest.fixture(scope="module")
def extract():
    extractor = OfflineExtractor()

    def run(*chunks: str):
        (ext,) = list(extractor.extract([ChapterText(1, list(chunks))]))
        return ext
    return run


def test_he_after_a_named_man_is_that_man(parse):
    doc, found, _ = parse("Manuel was one of the gardener's helpers. He sold Buck to a stranger for a hundred dollars.")
    assert refs_of(found, doc, "He") == ["Manuel"]


def test_pronoun_led_sentence_becomes_an_edge_from_the_antecedent(extract):
    ext = extract("Manuel was one of the gardener's helpers. He sold Buck to a stranger for a hundred dollars.")
    edges = {(t.subject_name, t.label, t.object_name) for t in ext.triples if t.subject_name and t.object_name}
    assert ("Manuel", "sell", "Buck") in edges
    assert any(t.subject == "Manuel" and t.subject_name == "Manuel" for t in ext.triples)


def test_two_women_in_a_scene_leave_she_unresolved(parse):
    doc, found, _ = parse("Jane and Elizabeth walked into the drawing room together. She smiled at the fire.")
    assert refs_of(found, doc, "She") == [None]
    assert found.stats["coref_ambiguous"] >= 1


def test_gender_agreement_picks_the_only_match(parse):
    doc, found, _ = parse("Elizabeth met Mr. Darcy at the ball. He bowed to her and said nothing.")
    assert refs_of(found, doc, "He") == ["Mr. Darcy"]
    assert refs_of(found, doc, "her") == ["Elizabeth"]


def test_it_for_a_thing_is_never_resolved(parse):
    doc, found, _ = parse("Buck found the heavy crate in the yard. It was made of oak and iron.")
    assert refs_of(found, doc, "It") == [None]


def test_object_pronoun_is_not_its_own_subject(parse):
    doc, found, _ = parse("Mr. Thornton slept by the fire. Manuel robbed him that night.")
    assert refs_of(found, doc, "him") == ["Mr. Thornton"]


def test_reflexive_goes_to_its_own_subject(parse):
    doc, found, _ = parse("Buck watched the gate. Thornton hurled himself at the snarling dog.")
    assert refs_of(found, doc, "himself") == ["Thornton"]


def test_an_unnamed_man_blocks_the_named_one(parse):
    doc, found, _ = parse("Buck rushed at the crate. The man in the red sweater came out of the house. "
                          "He smiled grimly and brought a club.")
    assert refs_of(found, doc, "He") == [None]


def test_speaker_addressee_first_and_second_person(parse):
    doc, found, _ = parse("Spitz waited by the gate.\n\n“Come, Spitz! I have a bone for you,” said Thornton.")
    (quote,) = found.quotes
    assert (quote.speaker, quote.addressee) == ("Thornton", "Spitz")
    assert refs_of(found, doc, "I") == ["Thornton"]
    assert refs_of(found, doc, "you") == ["Spitz"]


def test_an_exclamation_is_not_an_addressee(parse):
    _, found, _ = parse("Scrooge looked up.\n\n“Merry Christmas!” cried the boy at the door.")
    assert [q.addressee for q in found.quotes] == [None]


def test_a_quotation_inside_a_quotation_keeps_its_own_speaker_unknown(parse):
    doc, found, _ = parse("“Then the stranger told me, ‘I will sell you the dog,’ and he left,” said Thornton.")
    assert refs_of(found, doc, "me") == ["Thornton"]
    assert refs_of(found, doc, "I") == [None]      # the stranger's "I", not Thornton's
    assert refs_of(found, doc, "you") == [None]


def test_he_inside_a_speech_is_not_its_speaker(parse):
    doc, found, _ = parse("Perrault looked at Buck. “He is one in a thousand,” said Francois.")
    assert refs_of(found, doc, "He") != ["Francois"]


def test_alternating_dialogue_is_an_exchange(extract):
    ext = extract("“Where is the dog?” asked Hal.\n\n“In the yard,” said Thornton.\n\n“Then I will take him,” "
                  "said Hal.")
    speaks = {(t.subject_name, t.object_name) for t in ext.triples if t.relation == SPEAKS_TO}
    assert ("Hal", "Thornton") in speaks and ("Thornton", "Hal") in speaks


def test_two_characters_in_one_sentence_are_joined_by_an_interaction_edge(extract):
    ext = extract("Buck said nothing. Spitz said nothing. Buck and Spitz circled slowly under the moon.")
    pairs = {frozenset((t.subject_name, t.object_name)) for t in ext.triples if t.relation == CO_OCCURS}
    assert frozenset(("Buck", "Spitz")) in pairs


def test_a_place_is_mentioned_with_not_met(extract):
    ext = extract("Buck said nothing. Spitz said nothing. Buck and Spitz waited while the sled left Dawson.")
    kinds = {frozenset((t.subject_name, t.object_name)): t.relation for t in ext.triples
             if t.relation in (CO_OCCURS, CO_MENTIONED)}
    assert kinds.get(frozenset(("Buck", "Spitz"))) == CO_OCCURS
    assert kinds.get(frozenset(("Buck", "Dawson"))) == CO_MENTIONED


def test_typing_from_pronouns_places_and_place_words(extract):
    ext = extract("Spitz snarled at the new dog. He was a cunning fighter and he hated Buck. "
                  "The team travelled to Dawson. In Dawson they rested. They sailed past Queen Charlotte Sound.")
    types = {m.name: m.type for m in ext.mentions}
    assert types["Spitz"] == "character"
    assert types["Dawson"] == "location"
    assert types["Queen Charlotte Sound"] == "location"


def test_a_name_written_with_the_is_not_a_person(extract):
    ext = extract("Buck was carried aboard the Narwhal. The Narwhal sailed north, and she rolled in the swell. "
                  "Mr. Perrault stood on the deck of the Narwhal. He said nothing.")
    types = {m.name: m.type for m in ext.mentions}
    assert types["Narwhal"] != "character"
    assert types["Mr. Perrault"] == "character"


def test_a_title_with_the_names_a_character(extract):
    ext = extract("Alice looked at the Queen. “Off with her head!” said the Queen. The King said nothing. "
                  "The Queen of Hearts, she made some tarts.")
    types = {m.name: m.type for m in ext.mentions}
    assert types.get("Queen") == "character"
    assert types.get("King") == "character"
    assert "Queen" not in {m.name for m in ext.mentions if m.type != "character"}


def test_sentence_initial_adverbs_are_not_names(parse):
    doc, _, _ = parse("Whereupon he lay down sullenly. Meanwhile the men laughed.")
    assert not {m.name for m in find_mentions(doc)} & {"Whereupon", "Meanwhile"}


def test_labels_are_lemmas_with_particles(extract):
    ext = extract("Thornton picked up the rifle. Hans was taken by the current.")
    labels = {t.label for t in ext.triples}
    assert "pick up" in labels
    assert "taken by" in labels


def test_quote_levels_on_straight_and_curly_marks() -> None:
    import spacy
    doc = spacy.blank("en")('He said, "Go, \'now\' please." Done.')
    depths, quotes, _ = coref.quote_levels(doc)
    by_word = {t.text: d for t, d in zip(doc, depths)}
    assert by_word["He"] == 0 and by_word["Go"] == 1 and by_word["now"] == 2 and by_word["Done"] == 0


def test_prior_gender_and_place_names() -> None:
    assert coref.prior_gender("Mrs. Bennet") == "f"
    assert coref.prior_gender("Sir William") == "m"
    assert coref.prior_gender("Lydia") == "f"
    assert coref.prior_gender("Buck") is None
    assert coref.is_place_name("Queen Charlotte Sound")
    assert not coref.is_place_name("John Thornton")


def test_a_recurring_description_is_an_unnamed_character(extract):
    ext = extract("Victor looked up. The creature stood at the door. The creature spoke to Victor in a low voice. "
                  "Victor fled, but the creature followed him. Later the servant brought candles.")
    names = {m.name: m.type for m in ext.mentions}
    assert names.get("the creature") == "character"
    assert "the servant" not in names                  # once is not a recurring character
    assert any({t.subject_name, t.object_name} == {"Victor", "the creature"} for t in ext.triples)


def test_a_capitalised_name_after_the_that_the_model_missed(parse):
    doc, _, _ = parse("“I am the Ghost of Christmas Past,” said the Spirit. Scrooge looked at the Ghost of Christmas "
                      "Past and at the door of the house.")
    names = [m.name for m in find_mentions(doc)]
    assert names.count("Ghost of Christmas Past") == 2
    assert not any(n.endswith(" of") for n in names)


def test_a_possessive_of_a_personal_noun_is_character_evidence(parse):
    _, found, _ = parse("They reached Skaguay at night. Nobody looked at Skaguay's harbour. Curly licked Curly's "
                        "wounds and Toots's master laughed.")
    assert found.character_evidence["Toots"] >= 1
    assert found.character_evidence.get("Skaguay", 0) == 0        # a harbour is no hand or sister


def test_a_place_named_in_passing_takes_no_gender_vote(parse):
    _, found, _ = parse("Buck lay by the fire. He dreamed of the Sunland. He dreamed of the Sunland again and "
                        "he whined. Later he dreamed of the Sunland once more.")
    assert "Sunland" not in found.gender and found.character_evidence.get("Sunland", 0) == 0

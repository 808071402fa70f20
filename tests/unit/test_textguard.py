"""The check on finished text (core/textguard.py): loops are cut after their first occurrence and the result says
so; ordinary prose, refrains and short repeated lines of dialogue are left alone."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.llm.loopguard import LoopGuard
from core.textguard import check_text, repetition_stats

OPENING = ("Buck did not read the newspapers, or he would have known that trouble was brewing. He lived at a big "
           "house in the sun-kissed Santa Clara Valley. Judge Miller's place, it was called.")


def test_a_sentence_written_twenty_times_is_cut_after_its_first_occurrence() -> None:
    text = OPENING + " The man in the red sweater." * 20
    checked = check_text(text)
    assert checked.cut and checked.text == OPENING + " The man in the red sweater."
    assert checked.repetition is not None and checked.repetition.occurrences == 20
    assert checked.repetition.kind == "sentence" and checked.repetition.unit == "The man in the red sweater."
    assert checked.total_words == len(text.split()) and checked.cut_words == 19 * 6
    assert "20 times" in checked.note and "114 of" in checked.note


def test_a_chapter_looping_after_three_paragraphs_keeps_the_paragraphs_and_one_sentence() -> None:
    paragraphs = "\n\n".join([OPENING, "The dog barked twice and ran into the woods behind the house.",
                              "Nobody followed him, and the night came down cold over the valley."])
    loop = "He knew that the dog was going to come back for him someday soon. " * 40
    checked = check_text(paragraphs + "\n\n" + loop)
    assert checked.text == paragraphs + "\n\nHe knew that the dog was going to come back for him someday soon."
    assert checked.repetition is not None and checked.repetition.occurrences == 40
    assert checked.cut_words == 39 * 14


def test_a_loop_with_variation_between_its_repeats_is_cut_too() -> None:
    text = (OPENING + " Buck looked at the man in the red sweater. It was cold. Buck looked at the man in the red "
            "sweater. The snow fell. Buck looked at the man in the red sweater. The wind blew.")
    checked = check_text(text)
    assert checked.cut and checked.text == OPENING + " Buck looked at the man in the red sweater. It was cold."


def test_a_loop_inside_one_sentence_is_cut_at_its_second_cycle() -> None:
    text = OPENING + " And he ran and ran" + " and the dog ran and the man ran" * 6 + "."
    checked = check_text(text)
    assert checked.cut and checked.repetition is not None and checked.repetition.kind == "8-gram"
    # the cycle has no first word of its own: one whole turn of it is kept, no second one
    assert text.startswith(checked.text) and checked.text.startswith(OPENING + " And he ran and ran and the dog ran")
    assert checked.text.count("the dog ran") == 1 and checked.text.count("the man") == 1


def test_a_template_loop_is_cut_after_its_first_sentence() -> None:
    """Gemma's summary of The Call of the Wild, chapter 1, with the n-gram guard: no n-gram twice, one pattern."""
    animals = ["dog", "man", "woman", "horse", "boy", "girl", "cat", "wolf"]
    head = "The story of the dog Buck was born to."
    checked = check_text(head + " " + " ".join(f"The {a} that was a {a}." for a in animals))
    assert checked.text == head + " The dog that was a dog."
    assert checked.repetition is not None and checked.repetition.kind == "pattern"
    assert checked.repetition.occurrences == 8 and "8 sentences in a row on one pattern" in checked.note


def test_short_parallel_sentences_and_a_few_alike_are_prose() -> None:
    text = ("She was tired. She was cold. She was hungry. She was alone. The dog that was a dog. The man that was a "
            "man. The woman that was a woman. Then the snow came down over the whole valley.")
    assert not check_text(text).cut  # four of three words, three alike of six: the novels have runs of up to three


def test_the_same_word_over_and_over_keeps_one() -> None:
    checked = check_text("Mush! " + "yes " * 50)
    assert checked.text == "Mush! yes" and checked.cut_words == 49


def test_ordinary_prose_is_left_alone() -> None:
    text = "\n\n".join([OPENING, "The dog barked twice and ran into the woods behind the house.",
                        "He knew that the dog was going to come back for him someday soon."] * 2)
    checked = check_text(text)  # each paragraph twice: not more than twice
    assert not checked.cut and checked.text == text and checked.note == "" and checked.cut_words == 0


def test_refrains_and_short_lines_of_dialogue_are_left_alone() -> None:
    # a short line said three times (even twice in a row), and a chorus that comes back among new verses
    dialogue = ('"Come into the parlour," said old Joe. He shut the door. "Come into the parlour. Come into the '
                'parlour."\n\n"Bah!" said Scrooge. "Humbug!" He went on. "Bah!" said Scrooge again. "Humbug!"')
    chorus = ("Will you, won't you, will you, won't you, will you join the dance? Will you, won't you, will you, "
              "won't you, won't you join the dance?")
    song = "\n\n".join([
        "Will you walk a little faster, said a whiting to a snail, there is a porpoise close behind us, and he is "
        f"treading on my tail. See how eagerly the lobsters and the turtles all advance! {chorus}",
        "You can really have no notion how delightful it will be when they take us up and throw us, with the "
        "lobsters, out to sea! But the snail replied, too far, too far, and gave a look askance, and said he "
        "thanked the whiting kindly, but he would not join the dance.",
        f"What matters it how far we go, his scaly friend replied. There is another shore, you know. {chorus}"])
    for text in (dialogue, song):
        assert not check_text(text).cut, text


def test_a_short_line_said_over_and_over_is_a_loop() -> None:
    text = '"Come into the parlour," said old Joe. ' + "Come into the parlour. " * 12
    checked = check_text(text)
    assert checked.cut and checked.text.count("Come into the parlour") <= 3


@pytest.mark.parametrize("text", ["", "   ", "One.", "\n\n\n"])
def test_empty_and_tiny_texts(text: str) -> None:
    checked = check_text(text)
    assert not checked.cut and checked.text == text


def test_a_loop_that_varies_a_word_each_turn_is_cut() -> None:
    """SmolLM2's first chapter of premise 1, unguarded, before its exact loop began."""
    head = OPENING + "\n\nThis is just the beginning, so write 300 words.\n\nAfter that, write the next 500 words."
    text = head + ("\n\nThis is just the beginning, so write 10 words.\n\nIn 10 words, write 4 words."
                   "\n\nThis is just the beginning, so write 3 words.\n\nThis is just the beginning, so write 2 words.")
    checked = check_text(text)
    assert checked.cut and checked.repetition is not None and checked.repetition.kind == "8-gram"
    assert checked.text == head + "\n\nThis is just the beginning, so write 10 words."
    assert checked.repetition.occurrences == 3 and "words this is just the beginning so" not in checked.note


def test_the_check_does_not_cut_the_books_themselves() -> None:
    """A Christmas Carol (bundled, with its "Come into the parlour" and its Ghost of Christmas Yet To Come) as it is;
    with the shared novels at hand, every chapter of all eleven (Alice's Lobster Quadrille among them)."""
    from core.ingest import read_book
    from tests.conftest import NOVELS
    paths = [Path("assets/a_christmas_carol.txt"), *sorted(NOVELS.glob("*.txt"))]
    for path in paths:
        for chapter in read_book(path.name, path.read_bytes()).chapters:
            assert not check_text(chapter.text).cut, (path.name, chapter.title)


def test_repetition_stats_count_repeated_8grams_and_sentences() -> None:
    stats = repetition_stats(OPENING + " The man in the red sweater." * 3)
    assert stats.sentences == 6 and stats.repeated_sentences == 3 and stats.sentence_share == 0.5
    words = len(OPENING.split()) + 18
    assert stats.ngrams == words - 7 and stats.repeated_ngrams == 5  # the 8-grams starting in the 2nd and 3rd turn
    clean = repetition_stats(OPENING)
    assert clean.repeated_ngrams == 0 and clean.repeated_sentences == 0 and clean.ngram_share == 0.0
    assert repetition_stats("").ngram_share == 0.0 and repetition_stats("").sentence_share == 0.0


# ---- the decoding loops' guard (core/llm/loopguard.py) ---------------------------------------------------------

def test_the_guard_bars_the_token_that_would_repeat_an_ngram_of_the_generated_text() -> None:
    state = LoopGuard(3).state()
    logits = np.zeros(10, dtype=np.float32)
    out = state.apply(logits, [1, 2, 3, 1, 2])  # "1 2 3" was written: after "1 2" the 3 is barred
    assert out[3] == -np.inf and np.isfinite(np.delete(out, 3)).all()
    assert np.all(logits == 0)  # the input is left as it was
    assert state.apply(logits, [1, 2, 3, 1, 2, 4]) is logits  # "2 4" has no continuation yet: nothing to bar


def test_the_guard_counts_only_generated_tokens_and_is_the_same_incrementally_or_at_once() -> None:
    ids = [5, 6, 7, 5, 6, 8, 5, 6]
    stepwise = LoopGuard(3).state()
    for n in range(1, len(ids) + 1):
        stepwise.sync(ids[:n])
    at_once = LoopGuard(3).state()
    at_once.sync(ids)
    assert stepwise.banned() == at_once.banned() == {7, 8}
    assert LoopGuard(3).state().banned() == set()


def test_the_guard_works_on_torch_tensors_and_its_penalty_follows_ctrl() -> None:
    import torch
    state = LoopGuard(0, penalty=2.0).state()
    logits = torch.tensor([4.0, -4.0, 1.0, float("-inf")])
    out = state.apply(logits, [0, 1, 3])
    assert out.tolist() == [2.0, -8.0, 1.0, float("-inf")]
    barred = LoopGuard(2).state().apply(torch.zeros(4), [1, 2, 1])
    assert barred[2] == float("-inf") and barred[0] == 0


def test_guard_options_are_validated_and_off_is_explicit() -> None:
    from core.llm import GenerationOptions
    assert GenerationOptions().loop_guard == LoopGuard() and GenerationOptions(loop_guard=None).loop_guard is None
    assert not LoopGuard(0).active and LoopGuard().active
    with pytest.raises(ValueError):
        LoopGuard(1)
    with pytest.raises(ValueError):
        LoopGuard(4, penalty=0.5)

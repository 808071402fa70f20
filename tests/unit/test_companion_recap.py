"""The companion's pure parts (issue 33): the recap's choice across chapters (story order, the length, each sentence
from its own chapter, a long range covered rather than its busiest chapter) and the X-Ray's refusal of a graph that
is not taken as of the reader's place."""
from __future__ import annotations

import pytest

from core.companion.recap import _choose, quoted_sentences, recap
from core.companion.xray import xray
from core.kg.graph import GraphData, graph_as_of

CHAPTERS = [
    (1, "The miller lived by the river with his three daughters. The eldest daughter sang at the mill every morning. "
        "The river rose in the spring and flooded the lower fields of the valley. The miller feared the flood."),
    (2, "A stranger came to the mill on a grey horse one evening. The stranger asked the miller for bread and a bed. "
        "The youngest daughter gave the stranger her own supper and a warm blanket."),
    (3, "In the night the mill wheel broke under the weight of the water. The stranger mended the wheel before dawn "
        "with his own hands. The miller thanked the stranger and offered him the eldest daughter in marriage."),
]


def test_the_recap_keeps_story_order_and_the_length_and_cites_each_sentence() -> None:
    told = recap(CHAPTERS, None, 40)
    assert told.words <= 40 and told.sentences
    assert [(s.chapter, s.index) for s in told.sentences] == sorted((s.chapter, s.index) for s in told.sentences)
    texts = dict(CHAPTERS)
    assert all(s.text in texts[s.chapter] for s in told.sentences)
    assert not told.used_graph and "salience alone" in told.notes[0]


def test_a_chapter_counts_less_for_each_sentence_taken_from_it() -> None:
    count = iter(range(100))
    def sentence() -> str:  # five words, none shared with another sentence
        return " ".join("wor" + "".join(chr(97 + int(d)) for d in f"{next(count):02d}") for _ in range(5)) + "."
    pool = [(1, i, sentence(), 1.0 - 0.05 * i, ()) for i in range(4)]      # one busy chapter, all strong
    pool += [(k, i, sentence(), 0.6 - 0.1 * i, ()) for k in (2, 3) for i in range(2)]
    flat = [p[0] for p in _choose(pool, 30, decay=1.0)]
    spread = [p[0] for p in _choose(pool, 30, decay=0.3)]
    assert flat.count(1) == 4 and set(spread) == {1, 2, 3} and spread.count(1) < 4
    assert spread == sorted(spread)                                         # story order


def test_no_sentence_cut_out_of_a_quotation_enters_the_recap() -> None:
    text = ("Jonathan leaped to his feet. She said in an angry voice: “He's mine. You will not take him from me.” "
            "The men laughed.\n\n\"Oh. Your eyes,\" she said, \"are like deep mysterious pools.\" He blushed.\n\n"
            "“I went to the town. I saw him there.\n\n“Then I came back,” he said.")
    cut = dict(quoted_sentences(text))
    assert cut["She said in an angry voice: “He's mine."] and cut["You will not take him from me.”"]
    assert cut['"Oh.'] and cut['Your eyes," she said, "are like deep mysterious pools."']
    assert cut["I saw him there."] and not cut["“Then I came back,” he said."]   # each paragraph reopens
    assert not any(cut[s] for s in ("Jonathan leaped to his feet.", "The men laughed.", "He blushed."))
    told = recap([(1, text)], None, 60)
    assert {s.text for s in told.sentences} <= {s for s, c in cut.items() if not c}
    speech = recap([(1, "“I went to the town. I saw him there.")], None, 5)
    assert speech.sentences                                  # a chapter of nothing but a cut speech still has one


def test_no_sentence_takes_over_a_quarter_of_the_recap_while_shorter_ones_are_left() -> None:
    """Seen in a 250-word recap of The Picture of Dorian Gray: one 150-word sentence describing a room (the
    salience of a long sentence is its words' mean, so length costs it nothing) took three fifths of the recap, and
    two of the eight chapters got no sentence."""
    room = ("From the corner of the divan on which he was lying, smoking, as was his custom, innumerable cigarettes, "
            "Lord Henry could just catch the gleam of the blossoms of a laburnum, " * 5).rstrip(", ") + "."
    chapters = [(1, room + " Basil painted the portrait of the young man that summer."),
                (2, "Dorian loved Sibyl Vane, the actress, and told Lord Henry of her."),
                (3, "Sibyl Vane played Juliet badly, and Dorian left her that night in anger.")]
    told = recap(chapters, None, 200)              # the room would fit: 140 words of 200
    assert 200 > len(room.split()) > 200 // 4 and all(len(s.text.split()) <= 200 // 4 for s in told.sentences)
    assert {s.chapter for s in told.sentences} == {1, 2, 3}
    alone = recap([(1, room)], None, 200)       # nothing shorter: the long one is still told
    assert alone.sentences and alone.sentences[0].text == " ".join(room.split())


def test_bad_requests_are_refused() -> None:
    with pytest.raises(ValueError):
        recap([], None, 100)
    with pytest.raises(ValueError):
        recap(CHAPTERS, None, 2)


def test_the_xray_refuses_a_graph_not_taken_as_of_the_place() -> None:
    data = GraphData([], [], {}, 3)
    with pytest.raises(ValueError):
        xray(data, graph_as_of(data, 3), 1, 2, lambda _: [])          # a later graph would leak
    assert xray(data, graph_as_of(data, 2), 1, 2, lambda _: []) == []

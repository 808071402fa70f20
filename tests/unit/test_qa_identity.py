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
    assert other_names("Slops", None) == ["Slops"]   # no graph: the question's own name only
